// Named scenes. Every scene describes its fluid as rectangles and discs; the
// particle spacing follows from their total area and the requested count
// (resolution_for), particles sit on a square lattice at (i + 1/2) spacing,
// and h and mass are derived from the spacing.
#include "tidepool/scenes.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <vector>

#include "boundary.h"

namespace tidepool {
namespace {

struct Region {
  enum class Kind { Rect, Disc } kind;
  glm::vec2 a, b;  // rect: min, max; disc: centre, (radius, 0)
  glm::vec2 velocity{0.0f};
  float area() const {
    return kind == Kind::Rect ? (b.x - a.x) * (b.y - a.y) : kPiScene * b.x * b.x;
  }
  static constexpr float kPiScene = 3.14159265f;
};

Region rect(float x0, float y0, float x1, float y1, glm::vec2 v = glm::vec2(0.0f)) {
  return Region{Region::Kind::Rect, {x0, y0}, {x1, y1}, v};
}
Region disc(float cx, float cy, float r, glm::vec2 v = glm::vec2(0.0f)) {
  return Region{Region::Kind::Disc, {cx, cy}, {r, 0.0f}, v};
}

// Where a scene's point lands in its tank: scenes are written for their
// own box, from the origin, and a tank of another shape stretches them,
// x by s.x and y by s.y with s.x s.y = 1, so every area (and the water's
// volume) is kept. Radii and widths are not stretched: discs stay round.
struct Place {
  glm::vec2 s{1.0f};
  glm::vec2 operator()(float x, float y) const { return {x * s.x, y * s.y}; }
  Box operator()(const Box& b) const { return {b.min * s, b.max * s}; }
};

// What a scene builder fills in; load_scene turns it into a World.
struct Layout {
  Box box;
  std::vector<Region> fluid;
  float area_for_spacing = 0.0f;  // when the fluid arrives later (emitters)
  std::function<void(World&, const Resolution&, int particles, const Place&)> extras;
  bool fixed_shape = false;  // a benchmark's tank, which must keep its shape
};

struct SceneDef {
  SceneInfo info;  // default_particles 0: a grid scene (no particles; its tune always applies)
  const char* preset;
  std::function<void(Params&)> tune;  // on top of the preset
  std::function<Layout()> layout;
};

// The area a layout's particles fill, which sets their spacing.
float fluid_area(const Layout& l) {
  float area = l.area_for_spacing;
  for (const Region& r : l.fluid) area += r.area();
  return area;
}

// The fewest particles that space the layout's water within a quarter of
// its tank's short side (fit_problems).
int least_particles(const Layout& l) {
  const glm::vec2 size = l.box.max - l.box.min;
  const float most_spacing = 0.25f * std::min(size.x, size.y), area = fluid_area(l);
  int n = 1;
  while (!(std::sqrt(area / static_cast<float>(n)) <= most_spacing)) ++n;
  return n;
}

// Calls f(position) for each particle of region r at spacing s.
template <class F>
void for_each_point(const Region& r, float s, F&& f) {
  if (r.kind == Region::Kind::Rect) {
    const int nx = static_cast<int>(std::lround((r.b.x - r.a.x) / s));
    const int ny = static_cast<int>(std::lround((r.b.y - r.a.y) / s));
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) f(glm::vec2(r.a.x + (float(i) + 0.5f) * s, r.a.y + (float(j) + 0.5f) * s));
    return;
  }
  const float rad = r.b.x;
  const int n = static_cast<int>(std::ceil(rad / s));
  for (int j = -n; j <= n; ++j)
    for (int i = -n; i <= n; ++i) {
      const glm::vec2 q((float(i) + 0.5f) * s, (float(j) + 0.5f) * s);
      if (q.x * q.x + q.y * q.y <= rad * rad) f(r.a + q);
    }
}

Layout dam_break_layout(float cw, float ch, float tw, float th) {
  Layout l;
  l.box = Box{{0.0f, 0.0f}, {tw, th}};
  l.fluid = {rect(0.0f, 0.0f, cw, ch)};
  return l;
}

// The grid scenes' common settings: stable fluids, low viscosity, sharp
// advection, and a step a frame: the method is stable at any step (Stam
// 1999); grid_cfl bounds it where the flow is fast.
void grid_solver(Params& p) {
  p.solver = Solver::Stable;
  p.dt = 1.0f / 60.0f;
  p.reynolds = 10000.0f;
  p.advection = Advection::MacCormack;
}

Layout drop_layout() {
  Layout l;
  l.box = Box{{0.0f, 0.0f}, {3.0f, 2.0f}};
  l.fluid = {rect(0.0f, 0.0f, 3.0f, 0.5f), disc(1.5f, 1.3f, 0.25f, {0.0f, -1.0f})};
  return l;
}

// The grid scenes (stable fluids, no particles): their tunes apply whatever
// the preset.
void cavity_tune(Params& p) {
  grid_solver(p);
  p.lid_speed = 1.0f;
  p.reynolds = 100.0f;
  p.grid = 64;
  p.grid_cfl = 1.0f;
}

Layout cavity_layout() {
  Layout l;
  l.box = Box{{0.0f, 0.0f}, {1.0f, 1.0f}};
  l.fixed_shape = true;  // Ghia, Ghia & Shin's unit square
  l.extras = [](World& w, const Resolution&, int, const Place&) {
    w.fill_dye(Box{{0.0f, 0.5f}, {1.0f, 1.0f}}, {0.9f, 0.3f, 0.2f});
    w.fill_dye(Box{{0.0f, 0.0f}, {1.0f, 0.5f}}, {0.15f, 0.45f, 0.9f});
  };
  return l;
}

void stir_tune(Params& p) {
  grid_solver(p);
  p.vorticity = 0.3f;
}

Layout stir_layout() {
  Layout l;
  l.box = Box{{0.0f, 0.0f}, {4.0f, 3.0f}};
  l.extras = [](World& w, const Resolution&, int, const Place& at) {
    const glm::vec3 bands[4] = {{0.95f, 0.3f, 0.35f}, {0.98f, 0.8f, 0.2f}, {0.25f, 0.85f, 0.5f}, {0.25f, 0.5f, 1.0f}};
    for (int k = 0; k < 4; ++k) w.fill_dye(at(Box{{float(k), 0.0f}, {float(k + 1), 3.0f}}), 0.8f * bands[k]);
  };
  return l;
}

void smoke_tune(Params& p) {
  grid_solver(p);
  p.buoyancy = 1.5f;
  p.vorticity = 0.6f;
}

Layout smoke_layout() {
  Layout l;
  l.box = Box{{0.0f, 0.0f}, {3.0f, 4.0f}};
  l.extras = [](World& w, const Resolution&, int, const Place& at) {
    w.add_circle(at(1.5f, 2.2f), 0.35f);
    Emitter e;
    e.position = at(1.5f, 0.25f);
    e.velocity = {0.0f, 1.0f};
    e.width = 0.5f;
    w.add_emitter(e);
    // A vent in the ceiling lets the smoke out, so the tank never fills.
    Sink vent;
    vent.position = at(1.5f, 4.0f);
    vent.radius = 0.7f;
    w.add_sink(vent);
  };
  return l;
}

// Still water 1 m deep in a 4 x 3 m tank: the rigid bodies' pool.
Layout pool_layout() {
  Layout l;
  l.box = Box{{0.0f, 0.0f}, {4.0f, 3.0f}};
  l.fluid = {rect(0.0f, 0.0f, 4.0f, 1.0f)};
  return l;
}

const std::vector<SceneDef>& scene_defs() {
  static const std::vector<SceneDef> defs = {
      {{"dam-break", "water column 1 m wide, 2 m high collapses in a 4 m tank (Koshizuka & Oka 1996)", 2000},
       "flip", nullptr, [] { return dam_break_layout(1.0f, 2.0f, 4.0f, 3.0f); }},
      {{"drop", "a drop falls into a pool and splashes (seed 000's splash test)", 2000},
       "flip", [](Params& p) { p.surface_tension = 0.5f; }, drop_layout},
      {{"viscous-drop", "the same drop in a fluid 20 times more viscous (seed 000)", 2000},
       "flip", [](Params& p) { p.viscosity = 60.0f; p.surface_tension = 0.5f; }, drop_layout},
      {{"zero-g", "square droplets without gravity round up and coalesce under surface tension (seed 000)", 1500},
       "flip",
       [](Params& p) {
         p.gravity_y = 0.0f;
         // FLIP's surface pressure jump, sigma = 0.5 N, or under DFSPH
         // Akinci 2013 cohesion: either rounds a square drop within a few
         // seconds at water's viscosity (tests/test_experiments.cpp).
         p.surface_tension = 0.5f;
       },
       [] {
         Layout l;
         l.box = Box{{0.0f, 0.0f}, {2.0f, 2.0f}};
         l.fluid = {rect(0.35f, 0.75f, 0.75f, 1.15f, {0.15f, 0.0f}),
                    rect(1.25f, 0.8f, 1.65f, 1.2f, {-0.15f, 0.0f}),
                    rect(0.8f, 1.45f, 1.1f, 1.75f, {0.0f, -0.1f})};
         return l;
       }},
      {{"pour", "a jet pours into a glass-shaped obstacle until the particle budget is used (seed 001)", 1500},
       "flip", nullptr,
       [] {
         Layout l;
         l.box = Box{{0.0f, 0.0f}, {2.0f, 2.0f}};
         l.area_for_spacing = 0.45f;
         l.extras = [](World& w, const Resolution& res, int particles, const Place& at) {
           const float wall = std::max(0.02f, res.spacing);
           // A glass: a U of capsules, slightly flared.
           w.add_polyline({at(0.55f, 1.1f), at(0.65f, 0.25f), at(1.35f, 0.25f), at(1.45f, 1.1f)}, wall);
           Emitter e;
           e.position = at(0.9f, 1.8f);
           e.velocity = {0.0f, -2.0f};
           e.width = std::max(0.12f, 4.0f * res.spacing);
           e.limit = particles;
           w.add_emitter(e);
         };
         return l;
       }},
      {{"pool", "still water 1 m deep in a 4 x 3 m tank, for rigid bodies (--body)", 4000},
       "water", nullptr, pool_layout},
      {{"float", "a light box, a disc at 0.8 of the water's density and a heavy box dropped into the pool", 4000},
       "water", nullptr,
       [] {
         Layout l = pool_layout();
         l.extras = [](World& w, const Resolution&, int, const Place& at) {
           w.add_body(BodyShape::box(0.6f, 0.3f), 500.0f, at(0.9f, 1.5f), 0.1f);
           w.add_body(BodyShape::disc(0.2f), 800.0f, at(2.0f, 1.6f));
           w.add_body(BodyShape::box(0.35f, 0.25f), 2000.0f, at(3.1f, 1.5f), -0.2f);
         };
         return l;
       }},
      {{"cavity", "lid-driven cavity: the unit square's top wall slides right at 1 m/s (Ghia, Ghia & Shin 1982)", 0},
       "water", cavity_tune, cavity_layout},
      {{"stir", "a tank of coloured dye to stir with the fingers (stable fluids, Stam 1999)", 0},
       "water", stir_tune, stir_layout},
      {{"smoke", "buoyant smoke rises from a vent past a round obstacle (stable fluids, Stam 1999)", 0},
       "water", smoke_tune, smoke_layout},
      {{"drops", "several drops fall into an empty tank (seed 002's multiple drops)", 2000},
       "flip", [](Params& p) { p.surface_tension = 0.5f; },
       [] {
         Layout l;
         l.box = Box{{0.0f, 0.0f}, {3.0f, 2.0f}};
         l.fluid = {disc(0.6f, 1.2f, 0.22f), disc(1.5f, 1.6f, 0.22f), disc(2.4f, 1.0f, 0.22f),
                    disc(1.1f, 0.5f, 0.22f, {0.5f, 0.0f})};
         return l;
       }},
  };
  return defs;
}

// The stretch that gives a scene's tank the aspect (width / height) and
// keeps its area; none for aspect 0 or a tank of fixed shape.
// How much a tank of this size stretches along x (and shrinks along y) to
// take the aspect with its area kept: the new width over the old.
float stretch_for(glm::vec2 size, float aspect) { return std::sqrt(aspect * size.y / size.x); }

Place place_for(const Layout& l, float aspect) {
  Place at;
  if (l.fixed_shape || aspect == 0.0f) return at;
  const float k = stretch_for(l.box.max - l.box.min, aspect);
  at.s = {k, 1.0f / k};
  return at;
}

// The layout in a tank stretched by `at`: the box and the fluid's rectangles
// stretch, discs of fluid move with their centres and stay round.
Layout placed(Layout l, const Place& at) {
  l.box = at(l.box);
  for (Region& r : l.fluid) {
    r.a = at(r.a.x, r.a.y);
    if (r.kind == Region::Kind::Rect) r.b = at(r.b.x, r.b.y);
  }
  return l;
}

bool build(World& world, const Layout& native, const char* preset, const std::function<void(Params&)>& tune,
           const SceneSetup& setup, std::string* error) {
  std::vector<std::string> problems;
  if (setup.aspect != 0.0f && !(setup.aspect >= kMinAspect && setup.aspect <= kMaxAspect)) {
    problems.push_back("aspect = " + std::to_string(setup.aspect) + ": must be 0 (the scene's own) or in [" +
                       std::to_string(kMinAspect) + ", " + std::to_string(kMaxAspect) + "]");
  }
  const Place at = problems.empty() ? place_for(native, setup.aspect) : Place{};
  const Layout layout = placed(native, at);
  Params params = world.params();
  const std::string preset_name = setup.preset.empty() ? preset : setup.preset;
  if (!apply_preset(params, preset_name)) problems.push_back("preset '" + preset_name + "': unknown");
  const bool grid = setup.particles == 0;  // load_scene: a grid scene's default
  if (tune && (setup.preset.empty() || grid)) tune(params);
  bool h_set = false, mass_set = false, threshold_set = false;
  for (const auto& [name, value] : setup.overrides) {
    const ParamInfo* info = find_param(name);
    if (!info) {
      problems.push_back("'" + name + "': unknown parameter (see `tidepool params`)");
      continue;
    }
    info->set(params, value);
    // set() converts; a value it cannot hold exactly must not sneak through.
    if (info->type != ParamInfo::Type::Real && !(info->get(params) == value)) {
        problems.push_back(name + " = " + format_param_value(*info, value) +
                         ": must be a whole value (see `tidepool params`)");
    }
    h_set |= name == "h";
    mass_set |= name == "mass";
    threshold_set |= name == "surface_threshold";
  }
  const float area = fluid_area(layout);
  const int particles = setup.particles;
  const int least = grid || mass_set ? 0 : least_particles(layout);
  if (!grid && (particles < 1 || particles > kMaxParticles)) {
    problems.push_back("particles = " + std::to_string(particles) + ": must be in [1, " +
                       std::to_string(kMaxParticles) + "]");
  } else if (particles < least) {
    problems.push_back("particles = " + std::to_string(particles) + ": too few for this tank: they would lie over a " +
                       "quarter of its short side apart; at least " + std::to_string(least));
  }
  Resolution res{0.0f, params.h, params.mass};
  if (problems.empty() && !grid) {
    res = resolution_for(area, particles, params.rest_density);
    if (!h_set) params.h = res.h;
    if (!mass_set) params.mass = res.mass;
    // |n| = |grad c| is about 1/h at a free surface and noise inside; a
    // fixed threshold (the seeds' values belong to their h and their 3D
    // constants) either misses the surface or lets interior noise drive the
    // force, which feeds energy in. Half the surface value separates them.
    if (!threshold_set) params.surface_threshold = kSurfaceThresholdTimesH / params.h;
    // A user-chosen mass sets the spacing: spacing^2 = mass / rho0.
    if (mass_set) res.spacing = std::sqrt(params.mass / params.rest_density);
  } else if (problems.empty() && !mass_set) {
    // A grid scene has no particles to size: the world's particle spacing
    // and h carry over (apply_preset: the mass follows this scene's rest
    // density), so that particles a switch of solver brings keep their
    // measure. Where they would not hold here (a mass out of its range, a
    // spacing over a quarter of this tank), the defaults' spacing and h do.
    if (!validate(params).empty() || !fit_problems(params, layout.box, 0).empty()) {
      const Params defaults;
      if (!h_set) params.h = defaults.h;
      params.mass = params.rest_density * defaults.mass / defaults.rest_density;
    }
  }
  for (const std::string& p : validate(params)) problems.push_back(p);
  if (problems.empty())
    for (const std::string& p : fit_problems(params, layout.box, grid ? 0 : particles)) problems.push_back(p);
  // The setup's bodies that fit this tank (World::add_body's checks, on the
  // tank alone).
  std::vector<BodyDef> bodies;
  {
    World probe;
    probe.set_box(layout.box);
    for (const BodyDef& def : setup.bodies) {
      std::string why;
      if (probe.add_body(def, &why) >= 0) bodies.push_back(def);
      else if (setup.refused_bodies) setup.refused_bodies->push_back(why);
      else problems.push_back(why);
    }
  }
  if (!problems.empty()) {
    if (error) {
      error->clear();
      for (size_t k = 0; k < problems.size(); ++k) *error += (k ? "\n" : "") + problems[k];
    }
    return false;
  }
  World fresh(params);
  fresh.set_parallel_for(world.parallel_for());
  fresh.set_lanes(world.lanes());
  fresh.set_box(layout.box);
  // Room for exactly the scene's particles: added one at a time, the arrays
  // would grow by doubling, up to 2x the memory (bytes at the peak).
  // A body of the setup displaces the water it stands in: no particle
  // starts closer to it than collide() keeps them, where the first step
  // would throw it out of the body at once and the water beside it with it.
  std::vector<Obstacle> displacing;
  for (const BodyDef& def : bodies) {
    Body b;
    b.def = def;
    b.position = def.position;
    b.angle = def.angle;
    displacing.push_back(body_obstacle(b, 0));
  }
  const float reach = contact_radius(res.spacing);
  auto water = [&](glm::vec2 q) {
    glm::vec2 normal;
    for (const Obstacle& o : displacing)
      if (obstacle_distance(o, q, &normal) < reach) return false;
    return true;
  };
  int points = 0;
  for (const Region& r : layout.fluid) for_each_point(r, res.spacing, [&](glm::vec2 q) { points += water(q); });
  fresh.reserve(points);
  for (const Region& r : layout.fluid)
    for_each_point(r, res.spacing, [&](glm::vec2 q) {
      if (water(q)) fresh.add_particle(q, r.velocity);
    });
  if (layout.extras) layout.extras(fresh, res, particles, at);
  for (const BodyDef& def : bodies) {
    std::string why;
    if (fresh.add_body(def, &why) < 0) problems.push_back(why);
  }
  if (!problems.empty()) {
    if (error) {
      error->clear();
      for (size_t k = 0; k < problems.size(); ++k) *error += (k ? "\n" : "") + problems[k];
    }
    return false;
  }
  world = std::move(fresh);
  return true;
}

}  // namespace

const std::vector<SceneInfo>& scenes() {
  static const std::vector<SceneInfo> list = [] {
    std::vector<SceneInfo> l;
    for (const SceneDef& d : scene_defs()) {
      SceneInfo info = d.info;
      if (info.default_particles > 0) info.min_particles = least_particles(d.layout());
      l.push_back(info);
    }
    return l;
  }();
  return list;
}

const SceneInfo* find_scene(std::string_view name) {
  for (const SceneInfo& s : scenes())
    if (name == s.name) return &s;
  return nullptr;
}

Resolution resolution_for(float area, int particles, float rest_density) {
  Resolution r;
  r.spacing = std::sqrt(area / static_cast<float>(std::max(particles, 1)));
  r.h = kSupportPerSpacing * r.spacing;
  r.mass = rest_density * r.spacing * r.spacing;
  return r;
}

bool load_scene(World& world, std::string_view name, const SceneSetup& setup, std::string* error) {
  for (const SceneDef& d : scene_defs()) {
    if (name != d.info.name) continue;
    SceneSetup s = setup;
    if (d.info.default_particles == 0 && s.particles != 0) {
      if (error) *error = "--particles: scene '" + std::string(name) + "' is a grid scene, without particles";
      return false;
    }
    if (s.particles == 0) s.particles = d.info.default_particles;
    return build(world, d.layout(), d.preset, d.tune, s, error);
  }
  if (error) *error = "scene '" + std::string(name) + "': unknown (see `tidepool scenes`)";
  return false;
}

// A change of the tank's shape across the square by more than this ratio
// is a phone turned on its side, not a window resized.
constexpr float kTurnRatio = 1.5f;

bool fit_tank(World& world, float aspect, std::string* error) {
  auto refuse = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (!(aspect >= kMinAspect && aspect <= kMaxAspect))
    return refuse("aspect = " + std::to_string(aspect) + ": must be in [" + std::to_string(kMinAspect) + ", " +
                  std::to_string(kMaxAspect) + "]");
  if (world.field()) return refuse("aspect: a grid solver's fields are sized to its tank");
  const Box& b = world.box();
  glm::vec2 size = b.max - b.min;
  // A quarter turn counterclockwise when the tank would change between
  // portrait and landscape: the floor becomes the right wall, as for a
  // phone turned that way, and the water falls to the new floor.
  glm::mat2 m(1.0f);
  glm::vec2 offset = -b.min;
  const float now = size.x / size.y;
  if ((now < 1.0f) != (aspect < 1.0f) && std::fabs(std::log(aspect / now)) > std::log(kTurnRatio)) {
    m = glm::mat2(0.0f, 1.0f, -1.0f, 0.0f);  // columns: x -> (0, 1), y -> (-1, 0)
    offset = glm::vec2(b.max.y, -b.min.x);   // (x, y) -> (max.y - y, x - min.x)
    size = {size.y, size.x};
  }
  // Then the stretch to the aspect, keeping the area.
  const float k = stretch_for(size, aspect);
  const glm::mat2 stretch(k, 0.0f, 0.0f, 1.0f / k);
  const Box tank{{0.0f, 0.0f}, {size.x * k, size.y / k}};
  const std::vector<std::string> problems = fit_problems(world.params(), tank, world.count());
  if (!problems.empty()) return refuse("aspect = " + std::to_string(aspect) + ": " + problems.front());
  return world.transform(stretch * m, stretch * offset, tank) || refuse("aspect: the map is not finite");
}

bool build_dam_break(World& world, float column_w, float column_h, float tank_w, float tank_h,
                     const SceneSetup& setup, std::string* error) {
  SceneSetup s = setup;
  if (s.particles == 0) s.particles = 4000;
  return build(world, dam_break_layout(column_w, column_h, tank_w, tank_h), "water", nullptr, s,
               error);
}

}  // namespace tidepool
