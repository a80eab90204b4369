// tidepool soak: the session's frame, Session::advance, and the invariants
// it checks after every frame (soak_session.h lists them).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "soak_session.h"

using namespace tidepool;

namespace tidepool_cli {
namespace soak_detail {

bool Session::advance() {
  const bool steady = steadiness();
  const Before b = before_frame();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    last_ = world_.advance(kFrame);
  } catch (const std::exception& e) {
    return bad(std::string("advance threw ") + e.what());
  }
  const FrameStats& st = last_;
  const int n = world_.count();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (ms > slowest.ms) slowest = {frame_, ms, st.work, st.work_limit, n};
  most_work_share = std::max(most_work_share, st.work / st.work_limit);
  trace_frame(steady, ms);
  peak_particles = std::max(peak_particles, n);
  peak_bodies = std::max(peak_bodies, static_cast<int>(world_.bodies().size()));
  if (!world_.bodies().empty()) ++body_frames;
  peak_since_load_ = std::max(peak_since_load_, n);
  peak_neighbours_ = std::max(peak_neighbours_, last_.mean_neighbours);
  if (st.contained) ++contained_frames;
  if (st.cap_hits > 0) {
    ++capped_frames;
    if (steady) ++capped_steady_frames;
  }

  if (frame_ == rules_.plant_frame) return bad("planted violation (--plant-violation)");
  if (rules_.only_planted) {
    ++frame_;
    return true;
  }
  if (!check_stats(b.time) || !check_state()) return false;
  std::vector<uint32_t> ids(world_.particles().id.begin(), world_.particles().id.end());
  std::sort(ids.begin(), ids.end());
  if (!check_count(b, ids)) return false;
  if (!check_obstacles(st, b.max_id, b.spacing)) return false;
  if (!check_sinks(st, b.max_id)) return false;
  if (!check_safety_net(steady) || !check_memory() || !check_work()) return false;
  ++frame_;
  return true;
}

// Whether this frame is steady play, counted. Steady play is what a visitor
// does without the panel: the scene's own parameters, fingers and emitters
// of play strength, no obstacle drawn onto the water and no solver switch
// (the new solver meets a state it did not make), now and in the last
// kSettleFrames. Outside it the safety net may fire: that is what it is for.
bool Session::steadiness() {
  const World& w = world_;
  bool unsteady = pointer_storm_ || disturbed_ || !have_v0_;
  disturbed_ = false;
  for (const Emitter& e : w.emitters())
    unsteady = unsteady || std::hypot(e.velocity.x, e.velocity.y) > kPlayEmitterSpeed;
  for (const ParamInfo& info : param_table())
    unsteady = unsteady || (std::strcmp(info.name, "solver") != 0 && !same_bits(info.get(w.params()), info.get(v0_)));
  if (unsteady) last_unsteady_ = frame_;
  const bool steady = frame_ - last_unsteady_ > kSettleFrames;
  if (steady) ++steady_frames;
  return steady;
}

Session::Before Session::before_frame() const {
  const World& w = world_;
  const Particles& p = w.particles();
  Before b;
  b.count = w.count();
  b.ids.assign(p.id.begin(), p.id.end());
  std::sort(b.ids.begin(), b.ids.end());
  b.max_id = b.ids.empty() ? -1 : static_cast<long>(b.ids.back());
  b.time = w.time();
  b.spacing = w.spacing();
  b.sinks = !w.sinks().empty();
  b.emitters = !w.emitters().empty();
  b.pouring = w.emitters();
  return b;
}

void Session::trace_frame(bool steady, double ms) const {
  if (!rules_.trace) return;
  const FrameStats& st = last_;
  std::string stages;
  for (int k = 0; k < kStageCount; ++k)
    if (st.stage_work[k] > 0.0) stages += std::string(stages.empty() ? "" : " ") + stage_name(k) + " " + fmt(st.stage_work[k]);
  std::fprintf(rules_.trace,
               "%ld: %d particles, %d cells, %d substeps, %.1f neighbours, max speed %s, net %d, work %.3g of %.3g "
               "(%s), %d capped, %s, %.1f ms\n",
               frame_, world_.count(), st.cells, st.substeps, static_cast<double>(st.mean_neighbours),
               fmt(st.max_speed).c_str(), st.contained_particles, st.work, st.work_limit, stages.c_str(), st.cap_hits,
               steady ? "steady" : "unsteady", ms);
}

// The frame's stats are finite, and time moved with the substeps.
bool Session::check_stats(double time_before) {
  const World& w = world_;
  const FrameStats& st = last_;
  if (!std::isfinite(st.time) || !std::isfinite(st.max_speed) || !std::isfinite(st.kinetic_energy))
    return bad("non-finite frame stats: time " + fmt(st.time) + ", max speed " + fmt(st.max_speed) +
               ", kinetic energy " + fmt(st.kinetic_energy));
  const double dt = w.time() - time_before;
  if (st.substeps > 0 ? !(dt > 0.0) : dt != 0.0)
    return bad("time went from " + fmt(time_before) + " to " + fmt(w.time()) + " in " +
               std::to_string(st.substeps) + " substeps");
  return true;
}

// The state's own promises (World::problem): finite, inside the box,
// ids unique, a grid's values and every body too.
bool Session::check_state() {
  const std::string why = world_.problem();
  return why.empty() || bad(why);
}

// The count (ids: the particles' ids now, sorted, each its own, which
// check_state holds): lost only to sinks, new only from emitters.
bool Session::check_count(const Before& b, const std::vector<uint32_t>& ids) {
  const int n = world_.count();
  if (n > kMaxParticles) return bad(std::to_string(n) + " particles, above the limit");
  const std::vector<uint32_t>& ids_before = b.ids;
  long lost = 0, fresh = 0;
  for (size_t i = 0, j = 0; i < ids_before.size() || j < ids.size();) {
    if (j == ids.size() || (i < ids_before.size() && ids_before[i] < ids[j])) {
      ++lost, ++i;
    } else if (i == ids_before.size() || ids[j] < ids_before[i]) {
      if (static_cast<long>(ids[j]) <= b.max_id)
        return bad("particle id " + std::to_string(ids[j]) + " appeared, older than the newest before");
      ++fresh, ++j;
    } else {
      ++i, ++j;
    }
  }
  if (lost > 0 && !b.sinks) return bad(std::to_string(lost) + " particles lost with no sink");
  if (fresh > 0 && !b.emitters) return bad(std::to_string(fresh) + " particles appeared with no emitter");
  if (fresh > 0 && !check_pour(fresh, b)) return false;
  if (n != b.count - lost + fresh) return bad("count bookkeeping");
  return true;
}

// No more new particles than the emitters pour: each pours rows of
// max(1, width / spacing) particles, speed / spacing rows a second,
// carrying under a row between steps.
bool Session::check_pour(long fresh, const Before& b) {
  const double dt = world_.time() - b.time;
  const float spacing = b.spacing;
  double most = 0.0;
  for (const Emitter& e : b.pouring) {
    const double speed = std::hypot(e.velocity.x, e.velocity.y);
    const double per_row = std::max(1.0, std::floor(static_cast<double>(e.width / spacing)));
    most += per_row * (speed * dt / spacing * 1.001 + 2.0);
  }
  if (static_cast<double>(fresh) > most)
    return bad(std::to_string(fresh) + " particles appeared, more than the emitters pour (" + fmt(most) + ") in " +
               fmt(dt) + " s");
  return true;
}

// Outside the obstacles. The step pushes a particle's centre half a
// spacing (contact_radius) off every obstacle, after the solver moves it,
// then keeps it half a spacing inside the box's walls, which come last
// by design (boundary.cpp: no obstacle may push a particle out of the
// box). An obstacle drawn onto particles takes effect at the next step,
// and an emitted particle at the step after its birth. So checked:
// particles older than this frame, against obstacles that a particle
// solver's step has seen (none under stable fluids, which leaves
// particles where they are), except where the walls win: a particle
// whose push out of the obstacle (along the normal, to half a spacing
// off it) would end outside the walls' contact band, in a wedge between
// the obstacle and a wall; or where it would land within half a spacing
// of another obstacle (a crevice where two overlap: the step resolves
// obstacles one at a time, once a step, so a particle pushed out of one
// lands in the other). Both are counted and reported. Tolerance: the
// centre may lie up to kObstacleTolerance spacings inside the surface
// (the push of a later obstacle's contact band, round-off). A particle
// deeper than that is a violation when it is still inside the same
// obstacle a frame later.
constexpr float kObstacleTolerance = 0.5f;
// ... and at least 0.1 mm: a swept mass can make the spacing a micron,
// a few float steps at a position of a metre.
constexpr float kObstacleFloor = 1e-4f;

bool Session::check_obstacles(const FrameStats& st, long max_id_before, float spacing) {
  const World& w = world_;
  // The safety net's repairs (a particle set back to where it was, or
  // to the tank's centre) are not moves the obstacles see: a frame in
  // which it fired is not checked, and starts the two-frame count over.
  if (w.params().solver == Solver::Stable || st.contained) {
    inside_.clear();
    return true;
  }
  // A frame with no step (a fixed dt longer than the frame) moved nothing:
  // no new evidence, and the two-frame count waits for the next step.
  if (st.substeps == 0) return true;
  // The bodies are obstacles here too, where the step left them.
  std::vector<Obstacle> solids = w.obstacles();
  for (size_t k = 0; k < w.bodies().size(); ++k) solids.push_back(body_obstacle(w.bodies()[k], static_cast<int>(k)));
  for (const Obstacle& o : solids)
    if (std::find(seen_.begin(), seen_.end(), o.id) == seen_.end()) seen_.push_back(o.id);
  const Particles& p = w.particles();
  const Box& box = w.box();
  const float contact = 0.5f * spacing;
  std::vector<uint64_t> inside;
  for (const Obstacle& o : solids) {
    if (std::find(seen_.begin(), seen_.end(), o.id) == seen_.end()) continue;
    for (int i = 0; i < p.size(); ++i) {
      if (static_cast<long>(p.id[i]) > max_id_before) continue;
      const glm::vec2 at(p.x[i], p.y[i]);
      glm::vec2 n;
      const float d = obstacle_distance(o, at, &n);
      if (d >= -std::max(kObstacleTolerance * spacing, kObstacleFloor)) {
        closest_obstacle = std::min(closest_obstacle, d / spacing);
        continue;
      }
      // Where the push out of the obstacle would leave the walls' contact
      // band, the walls win (and the particle slides out along them).
      const glm::vec2 out = at + (contact - d) * n;
      const float slack = 1e-3f * spacing;
      if (out.x < box.min.x + contact - slack || out.x > box.max.x - contact + slack ||
          out.y < box.min.y + contact - slack || out.y > box.max.y - contact + slack) {
        ++wedged;
        continue;
      }
      // Likewise where it would land in another obstacle: the step
      // resolves one obstacle at a time, once, so a particle in the
      // crevice where two overlap is pushed from one into the other.
      bool blocked = false;
      for (const Obstacle& other : solids) {
        glm::vec2 unused;
        blocked = blocked || (&other != &o && obstacle_distance(other, out, &unused) < contact - slack);
      }
      if (blocked) {
        ++creviced;
        continue;
      }
      // Inside: a violation when it was inside the same obstacle at the
      // frame before too (one frame inside is a push still under way: the
      // walls' own push, with restitution, can land a fast particle in an
      // obstacle that the next step pushes it out of).
      const uint64_t key = (static_cast<uint64_t>(p.id[i]) << 32) | static_cast<uint32_t>(o.id);
      inside.push_back(key);
      if (std::binary_search(inside_.begin(), inside_.end(), key))
        return bad(particle(i) + " has been inside obstacle " + std::to_string(o.id) + " (" +
                   (o.body >= 0 ? "body" : o.kind == Obstacle::Kind::Circle ? "circle" : "capsule") + " " + fmt(o.a.x) + " " + fmt(o.a.y) +
                   " " + fmt(o.b.x) + " " + fmt(o.b.y) + " r " + fmt(o.radius) + ") for two frames, now " +
                   fmt(-d / spacing) + " spacings deep (spacing " + fmt(spacing) + "): " + state_of(i));
    }
  }
  std::sort(inside.begin(), inside.end());
  inside_.swap(inside);
  return true;
}

// Outside the sinks: a sink removes every particle inside it at each step,
// after the collisions; only the safety net's repairs (a position set back)
// and this frame's new particles come after it.
bool Session::check_sinks(const FrameStats& st, long max_id_before) {
  const World& w = world_;
  if (st.substeps == 0 || st.contained) return true;
  const Particles& p = w.particles();
  for (const Sink& s : w.sinks())
    for (int i = 0; i < p.size(); ++i) {
      if (static_cast<long>(p.id[i]) > max_id_before) continue;
      const float dx = p.x[i] - s.position.x, dy = p.y[i] - s.position.y;
      if (dx * dx + dy * dy < s.radius * s.radius)
        return bad(particle(i) + " is inside sink " + std::to_string(s.id) + ": " + state_of(i));
    }
  return true;
}

// The safety net does not fire in steady play.
bool Session::check_safety_net(bool steady) {
  const FrameStats& st = last_;
  if (st.contained && steady)
    return bad("the safety net fired in steady play: " + std::to_string(st.contained_particles) +
               " particles contained, max speed " + fmt(st.max_speed) + " m/s, " + std::to_string(st.substeps) +
               " substeps, max density error " + fmt(st.max_density_error) +
               (frame_ - last_load_ <= kSettleFrames
                    ? ", " + std::to_string(frame_ - last_load_) + " frames after the load"
                    : std::string()));
  return true;
}

// The frame's work within its bound (World::advance), whatever its
// substeps: a frame whose first step does not fit takes the backstop's.
bool Session::check_work() {
  const FrameStats& st = last_;
  if (!(st.work <= st.work_limit))
    return bad("the frame's work " + fmt(st.work) + " passed its bound " + fmt(st.work_limit) + " (" +
               std::to_string(st.substeps) + " substeps, " + std::to_string(world_.count()) + " particles, " +
               fmt(st.mean_neighbours) + " neighbours, " + std::to_string(st.solver_iterations) + " iterations)");
  return true;
}

// The world's arrays, and the process's resident set, within their bounds.
bool Session::check_memory() {
  const int n = world_.count();
  const double world_bytes = static_cast<double>(world_.bytes_per_particle()) * n;
  const double per_particle = kBytesPerParticle + kBytesPerNeighbour * peak_neighbours_;
  if (world_bytes > per_particle * peak_since_load_ + kWorldSlack)
    return bad("the world holds " + fmt(world_bytes / 1048576.0) + " MiB for " + std::to_string(n) +
               " particles (at most " + std::to_string(peak_since_load_) + " and " + fmt(peak_neighbours_) +
               " neighbours since the load)");
  const double rss = rss_bytes();
  peak_rss = std::max(peak_rss, rss);
  if (rss > rules_.max_rss_bytes)
    return bad("resident memory " + fmt(rss / 1048576.0) + " MiB, above the bound of " +
               fmt(rules_.max_rss_bytes / 1048576.0) + " MiB");
  return true;
}

}  // namespace soak_detail
}  // namespace tidepool_cli
