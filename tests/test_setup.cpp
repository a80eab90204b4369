// The Setup: one reader for the page's query, a share link and the command
// line, and a link that gives back exactly what it was written from.
#include <catch2/catch.hpp>
#include <random>

#include "setup.h"
#include "tidepool/params.h"
#include "tidepool/scenes.h"

using namespace tidepool;
using namespace tidepool::app;

namespace {

bool same_body(const BodyDef& a, const BodyDef& b) {
  return a.shape.kind == b.shape.kind && a.shape.radius == b.shape.radius && a.shape.points == b.shape.points &&
         a.density == b.density && a.position == b.position && a.angle == b.angle && a.velocity == b.velocity &&
         a.omega == b.omega && a.friction == b.friction && a.restitution == b.restitution;
}

bool same_obstacle(const Obstacle& a, const Obstacle& b) {
  return a.kind == b.kind && a.a == b.a && a.b == b.b && a.radius == b.radius;
}

template <class T, class Same>
bool same_list(const std::optional<std::vector<T>>& a, const std::optional<std::vector<T>>& b, Same same) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->size() != b->size()) return false;
  for (size_t k = 0; k < a->size(); ++k)
    if (!same((*a)[k], (*b)[k])) return false;
  return true;
}

// What a link carries: the simulation and the show.
bool same_link(const Setup& a, const Setup& b) {
  return a.scene == b.scene && a.particles == b.particles && a.aspect == b.aspect && a.color == b.color &&
         a.look.palette == b.look.palette && a.look.water == b.look.water && a.look.splats == b.look.splats &&
         a.look.seed == b.look.seed && a.params == b.params && same_list(a.obstacles, b.obstacles, same_obstacle) &&
         same_list(a.bodies, b.bodies, same_body);
}

// A Setup a share link could carry, every field drawn at random.
Setup random_setup(std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * unit(rng); };
  auto chance = [&](float p) { return unit(rng) < p; };
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  Setup s;
  s.scene = scenes()[pick(static_cast<int>(scenes().size()))].name;
  if (chance(0.7f)) s.particles = kMinParticles + pick(20000);
  if (chance(0.7f)) s.aspect = uniform(kMinAspect, kMaxAspect);
  s.color = static_cast<ColorMode>(pick(static_cast<int>(ColorMode::Count)));
  auto colour = [&] { return glm::vec3(pick(256), pick(256), pick(256)) / 255.0f; };
  if (chance(0.5f))
    for (int k = 1 + pick(Look::kMaxPalette); k > 0; --k) s.look.palette.push_back(colour());
  if (chance(0.5f)) s.look.water = colour();
  if (chance(0.5f)) s.look.splats = uniform(0.0f, Look::kMaxSplats);
  if (chance(0.5f)) s.look.seed = static_cast<uint32_t>(pick(999999999));
  for (int k = pick(5); k > 0; --k) {
    const ParamInfo& info = param_table()[pick(static_cast<int>(param_table().size()))];
    const float v = info.type == ParamInfo::Type::Real ? uniform(info.min, info.max)
                                                        : static_cast<float>(info.min + pick(static_cast<int>(info.max - info.min) + 1));
    s.params.emplace_back(info.name, v);
  }
  if (chance(0.5f)) {
    s.obstacles.emplace();
    for (int k = pick(4); k > 0; --k) {
      Obstacle o;
      o.kind = chance(0.5f) ? Obstacle::Kind::Circle : Obstacle::Kind::Capsule;
      o.a = {uniform(-1.0f, 5.0f), uniform(-1.0f, 3.0f)};
      o.b = o.kind == Obstacle::Kind::Circle ? o.a : glm::vec2(uniform(-1.0f, 5.0f), uniform(-1.0f, 3.0f));
      o.radius = uniform(0.01f, 0.5f);
      s.obstacles->push_back(o);
    }
  }
  if (chance(0.7f)) {
    s.bodies.emplace();
    for (int k = pick(5); k > 0; --k) {
      BodyDef d;
      switch (pick(4)) {
        case 0: d.shape = BodyShape::box(uniform(0.05f, 1.0f), uniform(0.05f, 1.0f)); break;
        case 1: d.shape = BodyShape::disc(uniform(0.05f, 0.5f)); break;
        case 2: d.shape = BodyShape::boat(uniform(0.2f, 1.5f)); break;
        default: {
          // A convex polygon: corners on an ellipse, counter-clockwise.
          std::vector<glm::vec2> corners;
          const int n = 3 + pick(Obstacle::kMaxPoints - 2);
          const float rx = uniform(0.05f, 0.5f), ry = uniform(0.05f, 0.5f);
          for (int c = 0; c < n; ++c) {
            const float a = 6.2831853f * (static_cast<float>(c) + 0.4f * unit(rng)) / static_cast<float>(n);
            corners.emplace_back(rx * std::cos(a), ry * std::sin(a));
          }
          d.shape = BodyShape::polygon(corners);
        }
      }
      d.density = uniform(kMinBodyDensity, kMaxBodyDensity);
      d.position = {uniform(0.0f, 4.0f), uniform(0.0f, 2.0f)};
      if (chance(0.7f)) {
        d.angle = uniform(-3.2f, 3.2f);
        d.velocity = {uniform(-5.0f, 5.0f), uniform(-5.0f, 5.0f)};
        d.omega = uniform(-10.0f, 10.0f);
        d.friction = uniform(0.0f, 1.0f);
        d.restitution = uniform(0.0f, 1.0f);
      }
      s.bodies->push_back(d);
    }
  }
  return s;
}

}  // namespace

TEST_CASE("a share link reads back to the Setup it was written from, bodies included", "[setup]") {
  std::mt19937 rng(20261129);
  int bodies = 0, polygons = 0, moving = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Setup s = random_setup(rng);
    const std::string link = format_link(s);
    Setup back;
    std::vector<std::string> warnings;
    INFO(link);
    REQUIRE(read_link(link, &back, &warnings));
    CHECK(warnings.empty());
    CHECK(same_link(back, s));
    CHECK(format_link(back) == link);
    if (s.bodies)
      for (const BodyDef& d : *s.bodies) {
        ++bodies;
        polygons += d.shape.kind == BodyShape::Kind::Polygon;
        moving += d.velocity != glm::vec2(0.0f);
      }
  }
  // The trials reach every kind of body, at rest and in flight.
  CHECK(bodies > 500);
  CHECK(polygons > 100);
  CHECK(moving > 300);
}

TEST_CASE("a body's text carries its pose, velocities and material, and a polygon's corners", "[setup]") {
  BodyDef def;
  std::string why;
  REQUIRE(parse_body("box,0.4,0.2,700,1.5,1.25,0.5,1,-2,3,0.6,0.25", &def, &why));
  CHECK(def.shape.kind == BodyShape::Kind::Box);
  CHECK(def.angle == 0.5f);
  CHECK(def.velocity == glm::vec2(1.0f, -2.0f));
  CHECK(def.omega == 3.0f);
  CHECK(def.friction == 0.6f);
  CHECK(def.restitution == 0.25f);
  CHECK(format_body(def) == "box,0.4,0.2,700,1.5,1.25,0.5,1,-2,3,0.6,0.25");
  // At rest with the default material: the short form.
  REQUIRE(parse_body("disc,0.1,300,2,1", &def, &why));
  CHECK(format_body(def) == "disc,0.1,300,2,1");
  REQUIRE(parse_body("polygon,500,2,1,0,0,0,0,0.3,0.1,-0.1,-0.1,0.1,-0.1,0,0.2", &def, &why));
  CHECK(def.shape.kind == BodyShape::Kind::Polygon);
  CHECK(def.shape.points.size() == 3);
  // A state cut short, a polygon of two corners or of an odd number, an
  // unknown shape: each refused, naming the body.
  for (const char* bad : {"box,0.4,0.2,700,1.5,1.25,0.5", "polygon,500,2,1,0,0,0,0,0.3,0.1,0,0.2,0.1,0",
                          "polygon,500,2,1,0,0,0,0,0.3,0.1,0,0.2,0.1,0,0", "cone,1,2,3,4"}) {
    INFO(bad);
    CHECK_FALSE(parse_body(bad, &def, &why));
    CHECK(why.find("body '") == 0);
  }
}

TEST_CASE("the query's values at their boundaries: a bad one is named and the default kept", "[setup]") {
  struct Case {
    const char* query;
    bool warned;
  };
  const Case cases[] = {
      {"splats=600", false},       {"splats=600.1", true},     {"splats=1e-30", false},    {"splats=-1", true},
      {"splats=nan", true},        {"splats=", true},          {"seed=999999999", false},  {"seed=1000000000", true},
      {"seed=-3", true},           {"particles=16", false},    {"particles=15", true},     {"aspect=0x1", true},
      {"palette=" "ff0000,00ff00,0000ff,ffff00,00ffff,ff00ff,ffffff,000000", false},
      {"palette=" "ff0000,00ff00,0000ff,ffff00,00ffff,ff00ff,ffffff,000000,808080", true},
      {"palette=", true},          {"water=", true},           {"scene=", true},           {"paused", false},
      {"paused=maybe", true},      {"bogus=1", true},          {"tilt=1&dpr=2", false},
  };
  for (const Case& c : cases) {
    INFO(c.query);
    Setup s;
    std::vector<std::string> warnings;
    read_query(c.query, &s, &warnings);
    CHECK(warnings.empty() != c.warned);
    if (c.warned) CHECK(same_link(s, Setup{}));
  }
  Setup s;
  std::vector<std::string> warnings;
  read_query("splats=1e-30&seed=999999999&palette=ff0000,00ff00,0000ff,ffff00,00ffff,ff00ff,ffffff,000000", &s, &warnings);
  CHECK(s.look.splats == 1e-30f);
  CHECK(s.look.seed == 999999999u);
  CHECK(s.look.palette.size() == 8);
  // A key given twice keeps its first value, and says so.
  s = Setup{};
  warnings.clear();
  read_query("scene=drop&scene=stir&particles=900", &s, &warnings);
  CHECK(s.scene == "drop");
  CHECK(s.particles == 900);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("scene given twice") == 0);
  // Percent-encoded, as a browser writes a query.
  s = Setup{};
  warnings.clear();
  read_query("palette=ff0000%2C00ff00&bg=transparent", &s, &warnings);
  CHECK(warnings.empty());
  CHECK(s.look.palette.size() == 2);
  CHECK(s.transparent);
}

TEST_CASE("a link that does not parse is ignored whole, and an older link still opens", "[setup]") {
  const char* bad[] = {"tp=3&scene=drop", "tp=2&scene=drop&scene=stir", "tp=2&scene=drop&onload=x",
                       "tp=2&scene=drop&palette=ff00", "tp=2&scene=drop&bodies=box,1,2", "tp=2&scene=drop&set=viscosity:lots",
                       "tp=2&scene=drop&obstacles=c:1:2"};
  for (const char* hash : bad) {
    INFO(hash);
    Setup s;
    s.scene = "pool";
    std::vector<std::string> warnings;
    CHECK_FALSE(read_link(hash, &s, &warnings));
    CHECK(s.scene == "pool");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("link hash ignored: ") == 0);
  }
  // tp=1 wrote each body's fields joined by ':' and the bodies by ','.
  Setup s;
  std::vector<std::string> warnings;
  REQUIRE(read_link("tp=1&scene=pool&bodies=disc:0.1:300:1:1,box:0.3:0.2:500:2:1.5", &s, &warnings));
  REQUIRE(s.bodies);
  REQUIRE(s.bodies->size() == 2);
  CHECK((*s.bodies)[1].shape.kind == BodyShape::Kind::Box);
  CHECK((*s.bodies)[1].position == glm::vec2(2.0f, 1.5f));
  // The command line reads the same keys, and a link after the query wins.
  const char* argv[] = {"tidepool_app", "--scene", "drop", "--query=scene=stir&paused=1", "--link=tp=2&scene=pool", "--embed"};
  Setup c;
  warnings.clear();
  REQUIRE(read_args(6, argv, &c, &warnings));
  CHECK(warnings.empty());
  CHECK(c.scene == "pool");
  CHECK(c.paused);
  CHECK(c.embed);
}
