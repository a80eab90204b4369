// tidepool soak: the session, which executes action lines and checks the
// World's promises (soak_session.h describes the actions and the checks).
#include "soak_session.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "tidepool/scenes.h"

#ifdef TIDEPOOL_SOAK_STATM
#include <unistd.h>
#endif

using namespace tidepool;

namespace tidepool_cli {
namespace soak_detail {

// --- Text -----------------------------------------------------------------------

std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool parse_float(const std::string& t, float* out) {
  char* end = nullptr;
  *out = std::strtof(t.c_str(), &end);
  return !t.empty() && *end == '\0';
}

bool parse_long(const std::string& t, long* out) {
  char* end = nullptr;
  *out = std::strtol(t.c_str(), &end, 10);
  return !t.empty() && *end == '\0';
}

double rss_bytes() {
#ifdef TIDEPOOL_SOAK_STATM
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0.0;
  long size = 0, resident = 0;
  const bool ok = std::fscanf(f, "%ld %ld", &size, &resident) == 2;
  std::fclose(f);
  return ok ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0.0;
#else
  return 0.0;  // unknown here: the bound on the world's arrays still holds
#endif
}

// --- Parameters -------------------------------------------------------------------

std::vector<uint32_t> param_bits(const Params& p) {
  std::vector<uint32_t> bits;
  for (const ParamInfo& info : param_table()) {
    const float v = info.get(p);
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    bits.push_back(b);
  }
  return bits;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool whole_type(const ParamInfo& p) { return p.type != ParamInfo::Type::Real; }

Band play_band(const ParamInfo& p, float v0) {
  if (p.type == ParamInfo::Type::Choice || p.type == ParamInfo::Type::Bool) return {p.min, p.max};
  static const struct {
    const char* name;
    float lo, hi;
  } fixed[] = {
      {"restitution", 0.0f, 1.0f}, {"friction", 0.0f, 1.0f},   {"xsph", 0.0f, 1.0f},
      {"negative_pressure", 0.0f, 1.0f}, {"gravity_x", -20.0f, 20.0f}, {"gravity_y", -20.0f, 20.0f},
      {"lid_speed", -2.0f, 2.0f},
  };
  for (const auto& f : fixed)
    if (std::strcmp(p.name, f.name) == 0) return {std::max(p.min, f.lo), std::min(p.max, f.hi)};
  if (v0 == 0.0f) {
    static const struct {
      const char* name;
      float hi;
    } spans[] = {{"surface_tension", 1.0f}, {"vorticity", 1.0f}, {"buoyancy", 3.0f}, {"viscosity", 10.0f},
                 {"wall_viscosity", 100.0f}};
    for (const auto& s : spans)
      if (std::strcmp(p.name, s.name) == 0) return {0.0f, std::min(p.max, s.hi)};
    return {0.0f, 0.0f};
  }
  Band b = v0 > 0.0f ? Band{0.5f * v0, 2.0f * v0} : Band{2.0f * v0, 0.5f * v0};
  b.lo = std::max(b.lo, p.min);
  b.hi = std::min(b.hi, p.max);
  if (whole_type(p)) {
    b.lo = std::ceil(b.lo);
    b.hi = std::floor(b.hi);
  }
  return b;
}

// --- Geometry -------------------------------------------------------------------

bool valid_pointer(const PointerForce& f) {
  return finite2(f.position) && std::isfinite(f.radius) && f.radius > 0.0f && std::isfinite(f.strength) &&
         finite2(f.velocity) && std::isfinite(f.stir) && f.stir >= 0.0f;
}

bool storm_pointer(const PointerForce& f) {
  return std::fabs(f.strength) > kPlayStrength || f.radius > kPlayRadius ||
         std::hypot(f.velocity.x, f.velocity.y) > kPlaySpeed || f.stir > kPlayStir;
}

bool known_preset(const std::string& name) {
  for (const PresetInfo& p : presets())
    if (name == p.name) return true;
  return false;
}

// --- The session: actions ---------------------------------------------------------

Outcome Session::apply(const std::string& line) {
  const std::vector<std::string> t = split(line);
  if (t.empty()) return malformed(line, "empty");
  ++actions;
  if (rules_.trace) std::fprintf(rules_.trace, "%ld %s\n", frame_, line.c_str());
  const size_t log_mark = log_.size();
  log_.push_back(std::to_string(frame_) + " " + line);
  Outcome out = Outcome::Malformed;
  try {
    out = dispatch(t, line, log_mark);
  } catch (const std::exception& e) {
    return fail(line + ": threw " + e.what());
  }
  return out;
}

bool Session::bad(const std::string& what) {
  violation_ = "frame " + std::to_string(frame_) + ": " + what;
  return false;
}

Outcome Session::fail(const std::string& what) {
  bad(what);
  return Outcome::Violation;
}

Outcome Session::malformed(const std::string& line, const char* why) {
  violation_ = "'" + line + "': " + why;
  return Outcome::Malformed;
}

std::string Session::particle(int i) const {
  return "particle " + std::to_string(i) + " (id " + std::to_string(world_.particles().id[i]) + ")";
}

std::string Session::state_of(int i) const {
  const Particles& p = world_.particles();
  return "x " + fmt(p.x[i]) + ", y " + fmt(p.y[i]) + ", v (" + fmt(p.vx[i]) + ", " + fmt(p.vy[i]) + "), rho " +
         fmt(p.density[i]) + ", p " + fmt(p.pressure[i]);
}

// An obstacle drawn over particles (the last `added` ones) makes the frame
// unsteady, as a storm does: a wall appearing inside the water throws it
// out at speed.
void Session::note_drawn(size_t added) {
  const std::vector<Obstacle>& obs = world_.obstacles();
  const Particles& p = world_.particles();
  const float contact = 0.5f * world_.spacing();
  for (size_t k = obs.size() - added; k < obs.size(); ++k)
    for (int i = 0; i < p.size() && !disturbed_; ++i) {
      glm::vec2 n;
      disturbed_ = disturbed_ || obstacle_distance(obs[k], {p.x[i], p.y[i]}, &n) < contact;
    }
}

Session::Snapshot Session::snapshot() const {
  return {param_bits(world_.params()), world_.state_hash(), world_.count(), world_.obstacles().size(),
          world_.emitters().size(), world_.sinks().size(), world_.bodies().size()};
}

// What differs from `a` now, or nothing.
std::string Session::changed(const Snapshot& a) const {
  const Snapshot b = snapshot();
  if (a.params != b.params) return "the parameters changed";
  if (a.hash != b.hash) return "the state hash changed";
  if (a.count != b.count) return "the count changed";
  if (a.obstacles != b.obstacles || a.emitters != b.emitters || a.sinks != b.sinks || a.bodies != b.bodies)
    return "the shapes changed";
  return {};
}

Outcome Session::refused(const std::string& line, const Snapshot& before) {
  ++refusals;
  const std::string c = changed(before);
  return c.empty() ? Outcome::Ok : fail(line + ": refused, but " + c);
}

Outcome Session::dispatch(const std::vector<std::string>& t, const std::string& line, size_t log_mark) {
  Action a{t, {}, line};
  for (size_t k = 1; k < t.size(); ++k) {
    float v = 0.0f;
    a.f.push_back(parse_float(t[k], &v) ? v : std::numeric_limits<float>::quiet_NaN());
  }
  const std::string& verb = t[0];
  if (verb == "load") return do_load(a, log_mark);
  if (verb == "set") return do_set(a);
  if (verb == "pointers") return do_pointers(a);
  if (verb == "circle" || verb == "capsule") return do_shape(a);
  if (verb == "polyline") return do_polyline(a);
  if (verb == "remove-obstacle" || verb == "remove-emitter" || verb == "remove-sink" || verb == "remove-body")
    return do_remove(a);
  if (verb == "body") return do_body(a);
  if (verb == "drag" || verb == "release") return do_drag(a);
  if (verb == "clear-obstacles") {
    world_.clear_obstacles();
    return world_.obstacles().empty() ? Outcome::Ok : fail(line + ": obstacles left");
  }
  if (verb == "emitter") return do_emitter(a);
  if (verb == "sink") return do_sink(a);
  if (verb == "dye") return do_dye(a);
  if (verb == "lanes") return do_lanes(a);
  if (verb == "params") return do_params(a);
  if (verb == "tank") return do_tank(a);
  if (verb == "clear") {
    world_.clear_particles();
    if (world_.count() != 0 || world_.time() != 0.0) return fail(line + ": particles or time left");
    return Outcome::Ok;
  }
  return malformed(line, "unknown action");
}

Outcome Session::do_load(Action& a, size_t log_mark) {
  const std::vector<std::string>& t = a.t;
  long n = 0;
  if (!a.need(3) || !parse_long(t[2], &n)) return malformed(a.line, "load SCENE PARTICLES PRESET|-");
  const std::string preset = t[3] == "-" ? "" : t[3];
  const SceneInfo* info = find_scene(t[1]);
  const bool expect = info && (preset.empty() || known_preset(preset)) &&
                      (info->default_particles == 0 ? n == 0 : n == 0 || (n >= info->min_particles && n <= kMaxParticles));
  const Snapshot before = snapshot();
  const int lanes = world_.lanes();
  const Params params = world_.params();
  std::string err;
  const bool ok = load_scene(world_, t[1], SceneSetup{static_cast<int>(n), preset, {}, 0.0f, {}}, &err);
  if (ok != expect) return fail(a.line + ": " + (ok ? "loaded, expected a refusal" : "refused: " + err));
  if (!ok) return refused(a.line, before);
  start_after_load(log_mark, lanes, params);
  return Outcome::Ok;
}

// The reproducer starts at a load, with what the load may keep from
// before: the lanes, and every parameter in one action (a load reads h
// and the spacing; a grid scene carries the spacing over).
void Session::start_after_load(size_t log_mark, int lanes, const Params& params) {
  std::string all = std::to_string(frame_) + " params";
  for (const ParamInfo& info : param_table()) all += std::string(" ") + info.name + "=" + fmt(info.get(params));
  log_.erase(log_.begin(), log_.begin() + static_cast<long>(log_mark));
  log_.insert(log_.begin(), {std::to_string(frame_) + " lanes " + std::to_string(lanes), all});
  ++loads;
  v0_ = world_.params();
  have_v0_ = true;
  pointer_storm_ = false;
  last_unsteady_ = LONG_MIN / 2;
  last_load_ = frame_;
  peak_since_load_ = world_.count();
  peak_neighbours_ = 0.0f;
  seen_.clear();
  inside_.clear();
}

Outcome Session::do_set(Action& a) {
  const std::vector<std::string>& t = a.t;
  std::vector<float>& f = a.f;
  const ParamInfo* info = a.need(2) ? find_param(t[1]) : nullptr;
  if (!info || !parse_float(t[2], &f[1])) return malformed(a.line, "set NAME VALUE");
  Params want = world_.params();
  info->set(want, f[1]);
  const float stored = info->get(want);
  // In its range, h within one and kMaxSupportPerSpacing particle spacings
  // (validate()'s rule across fields), and the water fitting the tank at
  // its spacing (fit_problems).
  const float spacing = std::sqrt(want.mass / want.rest_density);
  const bool expect = std::isfinite(stored) && stored >= info->min && stored <= info->max &&
                      want.h >= spacing && want.h <= kMaxSupportPerSpacing * spacing &&
                      fit_problems(want, world_.box(), world_.count()).empty();
  const Snapshot before = snapshot();
  const Solver solver = world_.params().solver;
  const std::vector<std::string> problems = world_.set_params(want);
  if (problems.empty() != expect)
    return fail(a.line + ": " + (expect ? "refused: " + problems[0] : std::string("accepted, expected a refusal")));
  if (!expect) return refused(a.line, before);
  if (param_bits(world_.params()) != param_bits(want)) return fail(a.line + ": accepted, but not stored as given");
  if (world_.params().solver != solver) {
    ++switches;
    disturbed_ = true;
  }
  return Outcome::Ok;
}

Outcome Session::do_pointers(Action& a) {
  const std::vector<std::string>& t = a.t;
  long k = 0;
  if (t.size() < 2 || !parse_long(t[1], &k) || k < 0 || t.size() != static_cast<size_t>(2 + 7 * k))
    return malformed(a.line, "pointers K then x y radius strength vx vy stir per pointer");
  std::vector<PointerForce> ps(static_cast<size_t>(k));
  pointer_storm_ = false;
  for (long j = 0; j < k; ++j) {
    const float* v = &a.f[static_cast<size_t>(1 + 7 * j)];
    PointerForce& q = ps[static_cast<size_t>(j)];
    q.position = {v[0], v[1]};
    q.radius = v[2];
    q.strength = v[3];
    q.velocity = {v[4], v[5]};
    q.stir = v[6];
    if (valid_pointer(q) && storm_pointer(q)) pointer_storm_ = true;
  }
  const uint64_t hash = world_.state_hash();
  world_.set_pointers(ps);
  if (world_.state_hash() != hash) return fail(a.line + ": the state hash changed");
  return Outcome::Ok;
}

// circle X Y R | capsule AX AY BX BY R
Outcome Session::do_shape(Action& a) {
  const std::vector<float>& f = a.f;
  const bool circle = a.t[0] == "circle";
  if (!a.need(circle ? 3 : 5)) return malformed(a.line, "circle X Y R | capsule AX AY BX BY R");
  const float r = f.back();
  const glm::vec2 p(f[0], f[1]), q = circle ? p : glm::vec2(f[2], f[3]);
  const bool expect = finite2(p) && finite2(q) && std::isfinite(r) && r > 0.0f;
  const Snapshot before = snapshot();
  const int id = circle ? world_.add_circle(p, r) : world_.add_capsule(p, q, r);
  if ((id >= 0) != expect) return fail(a.line + ": returned id " + std::to_string(id));
  if (!expect) return refused(a.line, before);
  if (world_.obstacles().size() != before.obstacles + 1 || world_.obstacles().back().id != id)
    return fail(a.line + ": not stored");
  note_drawn(1);
  return Outcome::Ok;
}

Outcome Session::do_polyline(Action& a) {
  const std::vector<std::string>& t = a.t;
  const std::vector<float>& f = a.f;
  long k = 0;
  if (t.size() < 3 || !parse_long(t[2], &k) || k < 0 || t.size() != static_cast<size_t>(3 + 2 * k))
    return malformed(a.line, "polyline R K then x y per point");
  const float r = f[0];
  std::vector<glm::vec2> pts;
  for (long j = 0; j < k; ++j) pts.emplace_back(f[static_cast<size_t>(2 + 2 * j)], f[static_cast<size_t>(3 + 2 * j)]);
  size_t expect = 0;
  for (size_t j = 1; j < pts.size(); ++j)
    expect += finite2(pts[j - 1]) && finite2(pts[j]) && std::isfinite(r) && r > 0.0f;
  const size_t before = world_.obstacles().size();
  const std::vector<int> made = world_.add_polyline(pts, r);
  if (made.size() != expect || world_.obstacles().size() != before + expect)
    return fail(a.line + ": made " + std::to_string(made.size()) + " capsules, expected " + std::to_string(expect));
  if (expect + 1 < pts.size()) ++refusals;
  note_drawn(expect);
  return Outcome::Ok;
}

// body SPEC (parse_body's text): added with a new id, or refused with a
// reason and nothing changed.
Outcome Session::do_body(Action& a) {
  BodyDef def;
  std::string why;
  if (!a.need(1) || !parse_body(a.t[1], &def, &why)) return malformed(a.line, "body SPEC (box,W,H,D,X,Y | disc,R,D,X,Y | boat,L,D,X,Y)");
  const Snapshot before = snapshot();
  const int id = world_.add_body(def, &why);
  if (id < 0) return why.empty() ? fail(a.line + ": refused without a reason") : refused(a.line, before);
  if (world_.bodies().size() != before.bodies + 1 || world_.bodies().back().id != id)
    return fail(a.line + ": not stored");
  return Outcome::Ok;
}

// drag ID X Y | release ID: true exactly when the body exists (and the
// target is finite); the state does not change until the next step.
Outcome Session::do_drag(Action& a) {
  const bool drag = a.t[0] == "drag";
  long id = 0;
  if (!a.need(drag ? 3 : 1) || !parse_long(a.t[1], &id)) return malformed(a.line, "drag ID X Y | release ID");
  const bool exists = std::any_of(world_.bodies().begin(), world_.bodies().end(), [&](const Body& b) { return b.id == id; });
  const glm::vec2 target = drag ? glm::vec2(a.f[1], a.f[2]) : glm::vec2(0.0f);
  const bool expect = exists && finite2(target);
  const uint64_t hash = world_.state_hash();
  const int i = static_cast<int>(id);
  const bool ok = drag ? world_.drag_body(i, target) : world_.release_body(i);
  if (ok != expect) return fail(a.line + ": returned " + (ok ? "true" : "false"));
  if (world_.state_hash() != hash) return fail(a.line + ": the state hash changed");
  if (!ok) ++refusals;
  return Outcome::Ok;
}

// remove-obstacle ID | remove-emitter ID | remove-sink ID | remove-body ID
Outcome Session::do_remove(Action& a) {
  const std::string& verb = a.t[0];
  long id = 0;
  if (!a.need(1) || !parse_long(a.t[1], &id)) return malformed(a.line, "remove-... ID");
  auto has = [&](const auto& list) {
    return std::any_of(list.begin(), list.end(), [&](const auto& s) { return s.id == id; });
  };
  const int which = verb == "remove-obstacle" ? 0 : verb == "remove-emitter" ? 1 : verb == "remove-sink" ? 2 : 3;
  auto present = [&] {
    return which == 0   ? has(world_.obstacles())
           : which == 1 ? has(world_.emitters())
           : which == 2 ? has(world_.sinks())
                        : has(world_.bodies());
  };
  const bool existed = present();
  const int i = static_cast<int>(id);
  const bool removed = which == 0   ? world_.remove_obstacle(i)
                       : which == 1 ? world_.remove_emitter(i)
                       : which == 2 ? world_.remove_sink(i)
                                    : world_.remove_body(i);
  if (removed != existed || present())
    return fail(a.line + ": returned " + (removed ? "true" : "false") + (existed ? ", it existed" : ", none such"));
  if (!existed) ++refusals;
  return Outcome::Ok;
}

Outcome Session::do_emitter(Action& a) {
  const std::vector<float>& f = a.f;
  long limit = 0;
  if (!a.need(6) || !parse_long(a.t[6], &limit)) return malformed(a.line, "emitter X Y VX VY WIDTH LIMIT");
  Emitter e;
  e.position = {f[0], f[1]};
  e.velocity = {f[2], f[3]};
  e.width = f[4];
  e.limit = static_cast<int>(limit);
  const bool expect = finite2(e.position) && finite2(e.velocity) && std::isfinite(e.width) && e.width > 0.0f;
  const Snapshot before = snapshot();
  const int id = world_.add_emitter(e);
  if ((id >= 0) != expect) return fail(a.line + ": returned id " + std::to_string(id));
  if (!expect) return refused(a.line, before);
  return world_.emitters().back().id == id ? Outcome::Ok : fail(a.line + ": not stored");
}

Outcome Session::do_sink(Action& a) {
  const std::vector<float>& f = a.f;
  if (!a.need(3)) return malformed(a.line, "sink X Y R");
  Sink s;
  s.position = {f[0], f[1]};
  s.radius = f[2];
  const bool expect = finite2(s.position) && std::isfinite(s.radius) && s.radius > 0.0f;
  const Snapshot before = snapshot();
  const int id = world_.add_sink(s);
  if ((id >= 0) != expect) return fail(a.line + ": returned id " + std::to_string(id));
  if (!expect) return refused(a.line, before);
  return world_.sinks().back().id == id ? Outcome::Ok : fail(a.line + ": not stored");
}

Outcome Session::do_dye(Action& a) {
  const std::vector<float>& f = a.f;
  if (!a.need(7)) return malformed(a.line, "dye X0 Y0 X1 Y1 R G B");
  const Box region{{f[0], f[1]}, {f[2], f[3]}};
  const glm::vec3 colour(f[4], f[5], f[6]);
  bool valid = finite2(region.min) && finite2(region.max);
  for (int k = 0; k < 3; ++k) valid = valid && std::isfinite(colour[k]) && colour[k] >= 0.0f;
  // Stable fluids hold dye, SPH does not; other solvers may.
  const Solver solver = world_.params().solver;
  const bool sph = solver == Solver::Muller2003 || solver == Solver::DFSPH;
  const bool ok = world_.fill_dye(region, colour);
  if ((ok && (!valid || sph)) || (!ok && valid && solver == Solver::Stable))
    return fail(a.line + ": returned " + (ok ? "true" : "false"));
  if (!valid) ++refusals;
  return Outcome::Ok;
}

Outcome Session::do_lanes(Action& a) {
  long n = 0;
  if (!a.need(1) || !parse_long(a.t[1], &n)) return malformed(a.line, "lanes N");
  world_.set_lanes(static_cast<int>(n));
  const int l = world_.lanes();
  if ((l != 1 && l != 4 && l != 8) || l > World::simd_width() || (n >= 1 && l > n))
    return fail(a.line + ": lanes() = " + std::to_string(l));
  return Outcome::Ok;
}

// A reproducer's first action after the lanes: the world as it stood
// before its load, with every parameter as logged (name=value each).
Outcome Session::do_params(Action& a) {
  Params p;
  for (size_t k = 1; k < a.t.size(); ++k) {
    const std::string& kv = a.t[k];
    const size_t eq = kv.find('=');
    const ParamInfo* info = eq == std::string::npos ? nullptr : find_param(kv.substr(0, eq));
    float v = 0.0f;
    if (!info || !parse_float(kv.substr(eq + 1), &v)) return malformed(a.line, "params NAME=VALUE...");
    info->set(p, v);
  }
  if (!validate(p).empty()) return malformed(a.line, validate(p).front().c_str());
  World fresh(p);
  fresh.set_lanes(world_.lanes());
  fresh.set_parallel_for(world_.parallel_for());
  world_ = std::move(fresh);
  return Outcome::Ok;
}

// The tank takes a new shape (fit_tank): refused, with nothing changed, for
// an aspect out of range, a grid solver, or water that would not fit; else every particle is kept,
// and the tank keeps its area and takes the aspect. A turned tank pours
// the water onto a wall: not steady play.
Outcome Session::do_tank(Action& a) {
  if (!a.need(1)) return malformed(a.line, "tank ASPECT");
  const float aspect = a.f[0];
  const int count = world_.count();
  const glm::vec2 size0 = world_.box().max - world_.box().min;
  // The tank's area kept: its sides at this aspect, which the water must fit.
  const float area = size0.x * size0.y;
  const Box tank{{0.0f, 0.0f}, {std::sqrt(area * aspect), std::sqrt(area / aspect)}};
  const bool expect = aspect >= kMinAspect && aspect <= kMaxAspect && world_.field() == nullptr &&
                      fit_problems(world_.params(), tank, count).empty();
  const Snapshot before = snapshot();
  const bool ok = fit_tank(world_, aspect);
  if (ok != expect) return fail(a.line + (ok ? ": reshaped, expected a refusal" : ": refused"));
  if (!ok) return refused(a.line, before);
  const glm::vec2 size = world_.box().max - world_.box().min;
  if (world_.count() != count) return fail(a.line + ": " + std::to_string(count - world_.count()) + " particles lost");
  if (std::fabs(size.x * size.y / (size0.x * size0.y) - 1.0f) > 1e-4f || std::fabs(size.x / size.y / aspect - 1.0f) > 1e-4f)
    return fail(a.line + ": tank " + fmt(size.x) + " x " + fmt(size.y) + " from " + fmt(size0.x) + " x " + fmt(size0.y));
  disturbed_ = true;
  inside_.clear();  // the obstacles moved with the water, their radii did not
  return Outcome::Ok;
}

}  // namespace soak_detail
}  // namespace tidepool_cli
