// tidepool soak: the player. Every decision draws from rng_ in a fixed
// order, so that a seed plays the same game every time.
#include "soak_player.h"

#include <cstdio>
#include <limits>

#include <cstring>
#include <iterator>
#include <limits>

#include "tidepool/params.h"
#include "tidepool/scenes.h"

using namespace tidepool;

namespace tidepool_cli {
namespace soak_detail {

bool Player::play(Session& s) {
  s_ = &s;
  const long f = s.frame();
  if (f == 0 && !load(true)) return false;
  if (!run_due(f) || !reset_big(f)) return false;
  if (!fingers_.empty() && !move_fingers()) return false;
  if (!stroke_.empty() && !draw_stroke()) return false;
  if (rng_.chance(0.3)) {
    for (int k = rng_.between(1, 3); k > 0; --k)
      if (!random_action()) return false;
  }
  if (!s.advance()) return false;
  pace();
  return true;
}

// What was scheduled for frame f or before, in order.
bool Player::run_due(long f) {
  for (size_t k = 0; k < due_.size();) {
    if (due_[k].first > f) {
      ++k;
      continue;
    }
    const std::string line = due_[k].second;
    due_.erase(due_.begin() + static_cast<long>(k));
    if (line == "reset") return load(false, true);  // the load clears the schedule
    if (!act(line)) return false;
  }
  return true;
}

// Big worlds are for a moment: a user who asks for the limit, and emitters
// left pouring, are reset to a playable size soon.
bool Player::reset_big(long f) {
  const int n = world().count();
  if (n > 20000) {
    if (big_since_ < 0) big_since_ = f;
    if (f - big_since_ >= (n > 60000 ? 3 : 30) && !load(false, true)) return false;
  } else {
    big_since_ = -1;
  }
  return true;
}

// Work, in particle and cell updates per substep and per solver iteration
// (a particle counts once per 24 neighbours, a pile-up costing n^2, and
// once more per 16 obstacles, which it is tested against one by one): a sweep that makes frames costly (tiny
// steps, many iterations, a fine grid) is set back at once, and a world
// that stays costly (a grid solver on a fine grid) is reset after a second,
// or after two frames when very costly: the soak plays many worlds rather
// than one slowly.
void Player::pace() {
  const FrameStats& st = s_->last();
  const double per_particle = std::max(1.0, static_cast<double>(st.mean_neighbours) / 24.0) +
                              static_cast<double>(world().obstacles().size()) / 16.0;
  const double passes = std::max(st.substeps + st.solver_iterations, 1);
  const double work = passes * (world().count() * per_particle + st.cells);
  if (work > 1e6) {
    for (auto& d : due_) d.first = s_->frame();
  }
  costly_frames_ = work > 6e6 ? costly_frames_ + 30 : work > 2e6 ? costly_frames_ + 1 : 0;
  if (costly_frames_ > 60) {
    costly_frames_ = 0;
    due_.emplace_back(s_->frame(), "reset");
  }
}

glm::vec2 Player::point_in_box(float margin) {
  const Box& b = world().box();
  const glm::vec2 size = b.max - b.min;
  return {static_cast<float>(b.min.x - margin * size.x + rng_.u01() * (1 + 2 * margin) * size.x),
          static_cast<float>(b.min.y - margin * size.y + rng_.u01() * (1 + 2 * margin) * size.y)};
}

// Somewhere in the water (a particle's position), or anywhere in the box.
glm::vec2 Player::anchor() {
  const Particles& p = world().particles();
  if (p.size() > 0 && rng_.chance(0.8)) {
    const int i = rng_.below(p.size());
    return {p.x[i], p.y[i]};
  }
  return point_in_box();
}

float Player::box_size() const {
  const Box& b = world().box();
  return std::min(b.max.x - b.min.x, b.max.y - b.min.y);
}

// More bodies than this and adding one gives way to removing one.
constexpr size_t kMaxPlayedBodies = 12;

// --- Loads -----------------------------------------------------------------------

int Player::particle_count() {
  const double r = rng_.u01();
  int n;
  if (r < 0.05) n = rng_.between(1, 64);
  else if (r < 0.35) n = 0;  // the scene's default
  else if (r < 0.75) n = static_cast<int>(rng_.log_uniform(64, 4000));
  else if (r < 0.96) n = static_cast<int>(rng_.log_uniform(4000, 20000));
  else if (r < 0.995) n = rng_.between(20000, 60000);
  else n = kMaxParticles;
  return std::min(n, o_.max_particles);
}

bool Player::load(bool first, bool small) {
  const std::vector<SceneInfo>& all = scenes();
  const SceneInfo& sc = all[static_cast<size_t>(rng_.below(static_cast<int>(all.size())))];
  int n = sc.default_particles == 0 ? 0 : particle_count();
  if (small && n > 20000) n = 0;
  std::string preset = "-";
  if (rng_.chance(0.25)) preset = presets()[static_cast<size_t>(rng_.below(static_cast<int>(presets().size())))].name;
  if (!act(Line("load").w(sc.name).i(n).w(preset))) return false;
  due_.clear();
  fingers_.clear();
  stroke_.clear();
  drawn_.clear();
  big_since_ = -1;
  costly_frames_ = 0;
  // Half the worlds start with a spell of calm play (checked as steady
  // play: see Session::steadiness), the way most visitors play.
  calm_until_ = rng_.chance(0.5) ? s_->frame() + rng_.between(300, 900) : -1;
  if (!first && rng_.chance(0.25)) return switch_solver();
  return true;
}

bool Player::bad_load() {
  const std::vector<SceneInfo>& all = scenes();
  const SceneInfo& sc = all[static_cast<size_t>(rng_.below(static_cast<int>(all.size())))];
  switch (rng_.below(4)) {
    case 0: return act(Line("load").w("no-such-scene").i(0).w("-"));
    case 1: return act(Line("load").w(sc.name).i(sc.default_particles == 0 ? rng_.between(1, 5000) : kMaxParticles + 1).w("-"));
    case 2: return act(Line("load").w(sc.name).i(-rng_.between(1, 100)).w("-"));
    default: return act(Line("load").w(sc.name).i(0).w("no-such-preset"));
  }
}

// --- Parameters ------------------------------------------------------------------

const ParamInfo& Player::random_param(bool with_solver) {
  const std::vector<ParamInfo>& table = param_table();
  for (;;) {
    const ParamInfo& p = table[static_cast<size_t>(rng_.below(static_cast<int>(table.size())))];
    if (with_solver || std::strcmp(p.name, "solver") != 0) return p;
  }
}

float Player::draw(const ParamInfo& p, float lo, float hi) {
  if (whole_type(p)) return static_cast<float>(rng_.between(static_cast<int>(lo), static_cast<int>(hi)));
  if (lo > 0.0f && hi / lo > 4.0f) return static_cast<float>(rng_.log_uniform(lo, hi));
  return static_cast<float>(rng_.uniform(lo, hi));
}

// A value within the play band around the scene's value.
bool Player::nudge() {
  const ParamInfo& p = random_param(false);
  const Band b = play_band(p, p.get(v0()));
  return act(Line("set").w(p.name).f(draw(p, b.lo, b.hi)));
}

// Anywhere in the range (its ends three times in ten), set back later.
bool Player::sweep() {
  const ParamInfo& p = random_param(false);
  const std::string name = p.name;
  const float now = p.get(world().params());
  float lo = p.min, hi = p.max;
  const int n = world().count();
  // Sizes that multiply the work or the memory by the neighbour count
  // (DFSPH keeps 12 bytes per neighbour pair: h = 10 m holds n^2 pairs)
  // or that make an emitter pour width * speed / spacing^2 particles a
  // second, are swept only where that stays affordable: h up to twice
  // the scene's in worlds over 2 000 particles or with emitters; mass
  // and rest density not at all with emitters.
  const bool emitting = !world().emitters().empty();
  if (name == "h" && (n > 2000 || emitting)) hi = 2.0f * p.get(v0());
  if ((name == "mass" || name == "rest_density") && emitting) return nudge();
  float v;
  if (rng_.chance(0.3)) v = rng_.chance(0.5) ? lo : hi;
  else v = draw(p, lo, hi);
  if (!act(Line("set").w(name).f(v))) return false;
  const int hold = n <= 1000 ? rng_.between(1, 60) : n <= 6000 ? rng_.between(1, 10) : rng_.between(1, 3);
  due_.emplace_back(s_->frame() + hold, Line("set").w(name).f(now).s);
  sweeping_until_ = std::max(sweeping_until_, s_->frame() + hold);
  return true;
}

// Out of range: must be refused.
bool Player::bad_param() {
  for (;;) {
    const ParamInfo& p = random_param(true);
    // set() turns any number into a bool (v != 0), so no bool is out of range.
    if (p.type == ParamInfo::Type::Bool) continue;
    const float inf = std::numeric_limits<float>::infinity();
    float v = 0.0f;
    switch (rng_.below(6)) {
      case 0:
        v = whole_type(p) ? p.min - static_cast<float>(rng_.between(1, 1000)) : std::nextafter(p.min, -inf);
        break;
      case 1:
        v = whole_type(p) ? p.max + static_cast<float>(rng_.between(1, 1000)) : std::nextafter(p.max, inf);
        break;
      case 2: v = p.min - static_cast<float>(rng_.log_uniform(1e-3, 1e6)); break;
      case 3: v = p.max + static_cast<float>(rng_.log_uniform(1e-3, 1e30)); break;
      case 4: v = std::numeric_limits<float>::quiet_NaN(); break;
      default: v = rng_.sign() * inf; break;
    }
    // A float far below a tiny min, or a whole value that the set()
    // rounds into range, is not out of range: draw again.
    Params q = world().params();
    p.set(q, v);
    const float stored = p.get(q);
    if (std::isfinite(stored) && stored >= p.min && stored <= p.max) continue;
    return act(Line("set").w(p.name).f(v));
  }
}

bool Player::switch_solver() {
  const ParamInfo& solver = *find_param("solver");
  const int solvers = static_cast<int>(solver.max) + 1;
  const int now = static_cast<int>(world().params().solver);
  int to = (now + rng_.between(1, solvers - 1)) % solvers;
  // FLIP's grid has cells flip_cell spacings wide over the whole box: a
  // grid scene keeps the spacing of the scene before it, which can make
  // that grid millions of cells, seconds a frame. Such a switch goes to
  // the next solver instead (the cost is reported, not played).
  const ParamInfo* cell = find_param("flip_cell");
  if (cell && format_param_value(solver, static_cast<float>(to)) == "flip") {
    const Box& b = world().box();
    const double dx = static_cast<double>(cell->get(world().params())) * world().spacing();
    const double cells = (b.max.x - b.min.x) / dx * ((b.max.y - b.min.y) / dx);
    if (!(cells <= 1e5)) {
      to = (to + 1) % solvers;
      if (to == now) to = (to + 1) % solvers;
    }
  }
  return act(Line("set").w("solver").i(to));
}

// --- Pointers --------------------------------------------------------------------

bool Player::start_gesture(bool storm) {
  fingers_.clear();
  const int k = storm ? rng_.between(1, 10) : rng_.chance(0.1) ? rng_.between(4, 10) : rng_.between(1, 3);
  for (int j = 0; j < k; ++j) {
    Finger g;
    g.pos = anchor();
    if (storm) {
      g.vel = rng_.direction() * static_cast<float>(rng_.log_uniform(0.1, 60.0));
      g.radius = static_cast<float>(rng_.log_uniform(0.02, 3.0));
      g.strength = rng_.sign() * static_cast<float>(rng_.log_uniform(10.0, 1e6));
      g.stir = rng_.chance(0.5) ? static_cast<float>(rng_.log_uniform(0.1, 1e4)) : 0.0f;
    } else {
      // A finger: a drag of up to 4 m/s, a push or a pull of up to 60
      // m/s^2, stirring at up to 8 per second.
      g.vel = rng_.direction() * static_cast<float>(rng_.uniform(0.0, 4.0));
      g.radius = static_cast<float>(rng_.uniform(0.05, 0.5));
      g.strength = static_cast<float>(rng_.uniform(-60.0, 60.0));
      g.stir = static_cast<float>(rng_.uniform(0.0, 8.0));
    }
    fingers_.push_back(g);
  }
  gesture_end_ = s_->frame() + (storm ? rng_.between(1, 90) : rng_.between(10, 240));
  storm_ = storm;
  return move_fingers();
}

bool Player::move_fingers() {
  if (s_->frame() >= gesture_end_) {
    fingers_.clear();
    return act("pointers 0");
  }
  const Box& b = world().box();
  Line l("pointers");
  l.i(static_cast<long>(fingers_.size()));
  for (Finger& g : fingers_) {
    // Drags wander and bounce off the box's sides.
    g.vel += rng_.direction() * static_cast<float>(rng_.uniform(0.0, storm_ ? 5.0 : 0.3));
    g.pos += g.vel * kFrame;
    if (g.pos.x < b.min.x || g.pos.x > b.max.x) g.vel.x = -g.vel.x;
    if (g.pos.y < b.min.y || g.pos.y > b.max.y) g.vel.y = -g.vel.y;
    g.pos = glm::clamp(g.pos, b.min, b.max);
    if (!storm_ && std::hypot(g.vel.x, g.vel.y) > 4.0f) g.vel *= 0.9f;
    l.v(g.pos).f(g.radius).f(g.strength).v(g.vel).f(g.stir);
  }
  return act(l);
}

bool Player::bad_pointers() {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const glm::vec2 at = anchor();
  Line l("pointers");
  l.i(3);
  l.v(at).f(rng_.chance(0.5) ? 0.0f : -0.2f).f(30.0f).f(0.0f).f(0.0f).f(1.0f);
  l.v({nan, at.y}).f(0.2f).f(30.0f).f(0.0f).f(0.0f).f(1.0f);
  l.v(at).f(0.2f).f(rng_.chance(0.5) ? inf : nan).f(0.0f).f(0.0f).f(-1.0f);
  fingers_.clear();
  return act(l);
}

// --- Obstacles -------------------------------------------------------------------

// A capsule through the water, up to most of the tank across.
bool Player::capsule() {
  const glm::vec2 c = anchor(), d = rng_.direction();
  const float half = static_cast<float>(rng_.uniform(0.05, 0.45)) * box_size() * 2.0f;
  const float r = static_cast<float>(rng_.log_uniform(0.01, 0.12));
  return act(Line("capsule").v(c - half * d).v(c + half * d).f(r));
}

bool Player::circle() {
  const float r = static_cast<float>(rng_.uniform(0.02, 0.25)) * box_size();
  return act(Line("circle").v(anchor()).f(r));
}

bool Player::polyline() {
  const int k = rng_.between(2, 6);
  glm::vec2 at = anchor();
  const float r = static_cast<float>(rng_.log_uniform(0.01, 0.08));
  Line l("polyline");
  l.f(r).i(k);
  for (int j = 0; j < k; ++j) {
    l.v(at);
    at += rng_.direction() * static_cast<float>(rng_.uniform(0.05, 0.4));
  }
  return act(l);
}

// A finger drawing a wall across the water, a segment a frame, erased a few
// seconds later.
bool Player::start_stroke() {
  stroke_.assign(1, anchor());
  stroke_angle_ = rng_.direction();
  stroke_left_ = rng_.between(3, 20);
  stroke_radius_ = static_cast<float>(rng_.log_uniform(0.01, 0.06));
  return draw_stroke();
}

bool Player::draw_stroke() {
  const glm::vec2 from = stroke_.back();
  stroke_angle_ = glm::normalize(stroke_angle_ + rng_.direction() * 0.3f);
  const glm::vec2 to = from + stroke_angle_ * static_cast<float>(rng_.uniform(0.03, 0.15));
  if (!act(Line("capsule").v(from).v(to).f(stroke_radius_))) return false;
  drawn_.push_back(world().obstacles().back().id);
  stroke_.push_back(to);
  if (--stroke_left_ <= 0) {
    stroke_.clear();
    const long at = s_->frame() + rng_.between(30, 400);
    for (int id : drawn_) due_.emplace_back(at, Line("remove-obstacle").i(id).s);
    drawn_.clear();
  }
  return true;
}

// One of the list's shapes, or (one time in ten, or with none) an id that
// names none.
template <class List>
bool Player::remove(const char* verb, const List& list) {
  if (list.empty() || rng_.chance(0.1)) return act(Line(verb).i(rng_.chance(0.5) ? -1 : 1000000 + rng_.below(1000)));
  return act(Line(verb).i(list[static_cast<size_t>(rng_.below(static_cast<int>(list.size())))].id));
}

bool Player::bad_shape() {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const glm::vec2 at = anchor();
  switch (rng_.below(6)) {
    case 0: return act(Line("circle").v(at).f(rng_.chance(0.5) ? 0.0f : -0.1f));
    case 1: return act(Line("circle").f(nan).f(at.y).f(0.1f));
    case 2: return act(Line("capsule").v(at).f(inf).f(at.y).f(0.05f));
    case 3: return act(Line("polyline").f(0.03f).i(3).v(at).f(nan).f(0.0f).v(at + glm::vec2(0.2f, 0.0f)));
    case 4: return act(Line("emitter").v(at).f(0.0f).f(-1.0f).f(rng_.chance(0.5) ? 0.0f : nan).i(1000));
    default: return act(Line("sink").v(at).f(rng_.chance(0.5) ? -0.1f : inf));
  }
}

// --- Emitters, sinks, dye --------------------------------------------------------

bool Player::emitter() {
  // A nozzle that pours tiny particles would fill the world in a frame.
  if (sweeping_until_ >= s_->frame()) return nudge();
  const bool storm = rng_.chance(0.1);
  const glm::vec2 at = rng_.chance(0.5) ? anchor() : point_in_box();
  const float speed = storm ? static_cast<float>(rng_.log_uniform(10.0, 1000.0))
                            : static_cast<float>(rng_.uniform(0.2, 4.0));
  const int n = world().count();
  int limit;
  const double r = rng_.u01();
  if (r < 0.1) limit = rng_.between(-10, 0);
  else if (r < 0.2 && !storm) limit = kMaxParticles;
  else limit = n + rng_.between(100, storm ? 2000 : 6000);
  limit = std::min(limit, o_.max_particles);
  return act(Line("emitter").v(at).v(rng_.direction() * speed).f(static_cast<float>(rng_.uniform(0.03, 0.4))).i(limit));
}

bool Player::sink() {
  return act(Line("sink").v(rng_.chance(0.5) ? anchor() : point_in_box()).f(static_cast<float>(rng_.uniform(0.03, 0.3))));
}

bool Player::dye() {
  const glm::vec2 a = point_in_box(), b = point_in_box();
  Line l("dye");
  l.v(glm::min(a, b)).v(glm::max(a, b));
  const bool bad = rng_.chance(0.1);
  for (int k = 0; k < 3; ++k) l.f(bad && k == 1 ? -0.5f : static_cast<float>(rng_.uniform(0.0, 1.0)));
  return act(l);
}

// --- The screen's shape -------------------------------------------------------

// A phone turned or a window resized: the tank takes a new shape with the
// water in it (fit_tank). Now and then an aspect no screen has.
bool Player::tank() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float wild[] = {0.0f, 0.1f, 5.0f, nan};
  const float aspect = rng_.chance(0.1) ? wild[rng_.below(4)] : static_cast<float>(rng_.log_uniform(0.3, 3.5));
  return act(Line("tank").f(aspect));
}

// --- The menu --------------------------------------------------------------------

// A box, a disc or a boat of a random size and density, mostly valid;
// now and then one the world must refuse.
bool Player::body() {
  const float size = static_cast<float>(rng_.uniform(0.03, 0.3)) * box_size();
  float density = static_cast<float>(rng_.log_uniform(tidepool::kMinBodyDensity, tidepool::kMaxBodyDensity));
  glm::vec2 at = point_in_box();
  if (rng_.chance(0.1)) {
    switch (rng_.below(3)) {
      case 0: density = rng_.chance(0.5) ? 0.1f : 1e6f; break;
      case 1: at = point_in_box(0.5f); break;
      default: at.x = std::numeric_limits<float>::quiet_NaN(); break;
    }
  }
  Line l("body");
  char spec[160];
  switch (rng_.below(3)) {
    case 0:
      std::snprintf(spec, sizeof spec, "box,%.9g,%.9g,%.9g,%.9g,%.9g", size, size * rng_.uniform(0.2, 1.0), density, at.x, at.y);
      break;
    case 1: std::snprintf(spec, sizeof spec, "disc,%.9g,%.9g,%.9g,%.9g", 0.5f * size, density, at.x, at.y); break;
    default: std::snprintf(spec, sizeof spec, "boat,%.9g,%.9g,%.9g,%.9g", size, density, at.x, at.y); break;
  }
  return act(l.w(spec));
}

// A drag toward a point of the tank, let go of some frames later.
bool Player::drag() {
  const std::vector<tidepool::Body>& bodies = world().bodies();
  if (bodies.empty() || rng_.chance(0.1)) return act(Line("drag").i(rng_.chance(0.5) ? -1 : 1000000).v(point_in_box()));
  const int id = bodies[static_cast<size_t>(rng_.below(static_cast<int>(bodies.size())))].id;
  due_.emplace_back(s_->frame() + rng_.between(20, 120), Line("release").i(id).s);
  return act(Line("drag").i(id).v(point_in_box()));
}

bool Player::random_action() {
  struct Choice {
    double weight;
    int id;
  };
  static const Choice menu[] = {
      {8, 0},   {3, 1},   {10, 2}, {4, 3},  {6, 4},  {3, 5},  {4, 6},  {3, 7},  {1, 8},   {2, 9},
      {4, 10},  {0.5, 11}, {3, 12}, {3, 13}, {3, 14}, {3, 15}, {2, 16}, {1, 17}, {0.3, 18}, {0.5, 19},
      {2, 20}, {1, 21}, {0.5, 22},
  };
  double total = 0.0;
  for (const Choice& c : menu) total += c.weight;
  double r = rng_.uniform(0.0, total);
  int id = 0;
  for (const Choice& c : menu) {
    if (r < c.weight) {
      id = c.id;
      break;
    }
    r -= c.weight;
  }
  // Every obstacle costs every particle a test each step: past
  // kMaxObstacles, drawing gives way to erasing.
  if (id >= 6 && id <= 9 && world().obstacles().size() >= kMaxObstacles) id = 10;
  // In every scene, drawing a shape is as often adding, dragging or
  // removing a body instead: a scene without one gets its first.
  if (id >= 6 && id <= 8 && rng_.chance(0.5)) {
    id = world().bodies().empty() ? 23 : 23 + rng_.below(3);
    if (id == 23 && world().bodies().size() >= kMaxPlayedBodies) id = 25;
  }
  // Calm play: fingers, sinks, dye, lanes and erasing, and nothing that
  // leaves the scene's settings, switches its solver or storms.
  static const int calm[] = {0, 10, 13, 14, 15, 16, 17};
  if (s_->frame() < calm_until_ && std::find(std::begin(calm), std::end(calm), id) == std::end(calm)) id = 0;
  switch (id) {
    case 0: return start_gesture(false);
    case 1: return start_gesture(true);
    case 2: return nudge();
    case 3: return sweep();
    case 4: return bad_param();
    case 5: return switch_solver();
    case 6: return capsule();
    case 7: return circle();
    case 8: return polyline();
    case 9: return stroke_.empty() ? start_stroke() : true;
    case 10: return remove("remove-obstacle", world().obstacles());
    case 11: return act("clear-obstacles");
    case 12: return emitter();
    case 13: return remove("remove-emitter", world().emitters());
    case 14: return sink();
    case 15: return remove("remove-sink", world().sinks());
    case 16: return dye();
    case 17: return act(Line("lanes").i(std::vector<int>{1, 4, 8, 0, 3, 16}[static_cast<size_t>(rng_.below(6))]));
    case 18: return act("clear");
    case 19: return load(false);
    case 20: return bad_shape();
    case 22: return tank();
    case 23: return body();
    case 24: return drag();
    case 25: return remove("remove-body", world().bodies());
    default: return rng_.chance(0.5) ? bad_load() : bad_pointers();
  }
}

}  // namespace soak_detail
}  // namespace tidepool_cli
