// World: the library's facade over WorldState, and the substep's order.
//
// One substep:
//   neighbours   counting sort of all particles by grid cell (sort.cpp)
//   density      rho_i = sum_j m_j W(r_ij), self included (Müller eq. 3),
//   forces       viscosity, surface tension, XSPH, gravity, pointers,
//   pressure     and the pressure, each as the solver does them
//   integrate    (solver.h: muller.cpp, dfsph.cpp; forces.cpp)
//   boundaries   container and obstacles (boundary.cpp), emitters and
//                sinks (emitters.cpp), the safety net (safety.cpp)
// Pair stages run on the SIMD lanes of simd.h over the grid's cell ranges
// (neighbours.h), 4 or 8 candidates at a time.
#include "tidepool/world.h"

#include <algorithm>
#include <cmath>

#include "coupling.h"
#include "integrate.h"
#include "pointers.h"
#include "safety.h"
#include "simd.h"
#include "state.h"
#include "stats.h"

namespace tidepool {

const char* stage_name(int stage) {
  static const char* names[kStageCount] = {"neighbours", "density",    "forces",   "pressure",
                                           "integrate",  "boundaries", "transfer", "bodies"};
  return stage >= 0 && stage < kStageCount ? names[stage] : "?";
}

// ---------------------------------------------------------------------------
// Particles

void Particles::resize(int n) {
  const size_t m = static_cast<size_t>(n);
  for (auto* v : floats()) v->resize(m, 0.0f);
  id.resize(m, 0);
  surface.resize(m, 0);
}

void Particles::reserve(int n) {
  const size_t m = static_cast<size_t>(n);
  for (auto* v : floats()) v->reserve(m);
  id.reserve(m);
  surface.reserve(m);
}

int Particles::compact(const std::vector<uint8_t>& keep) {
  const int n = size();
  int out = 0;
  for (int i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    for (auto* v : floats()) (*v)[out] = (*v)[i];
    id[out] = id[i];
    surface[out] = surface[i];
    ++out;
  }
  resize(out);
  return n - out;
}

// ---------------------------------------------------------------------------
// WorldState

float WorldState::spacing() const { return std::sqrt(params.mass / params.rest_density); }

int WorldState::add_particle(glm::vec2 position, glm::vec2 velocity) {
  Particles& p = particles;
  if (p.size() >= kMaxParticles) return -1;
  if (!std::isfinite(position.x) || !std::isfinite(position.y) || !std::isfinite(velocity.x) ||
      !std::isfinite(velocity.y))
    return -1;
  const int i = p.size();
  p.resize(i + 1);
  p.x[i] = position.x;
  p.y[i] = position.y;
  p.vx[i] = velocity.x;
  p.vy[i] = velocity.y;
  p.x_prev[i] = position.x;
  p.y_prev[i] = position.y;
  p.density[i] = params.rest_density;
  const Carried carried = solver->carried();
  for (Array<float>* field : carried) field->resize(static_cast<size_t>(i + 1), 0.0f);
  if (carried.half_vx) {
    (*carried.half_vx)[i] = velocity.x;
    (*carried.half_vy)[i] = velocity.y;
  }
  p.id[i] = next_id++;
  return static_cast<int>(p.id[i]);
}

void WorldState::compact(const std::vector<uint8_t>& keep) {
  const int n = particles.size();
  for (Array<float>* field : solver->carried()) {
    int out = 0;
    for (int i = 0; i < n; ++i)
      if (keep[i]) (*field)[out++] = (*field)[i];
    field->resize(static_cast<size_t>(out));
  }
  particles.compact(keep);
}

// Switching solvers keeps positions and velocities; the new solver's
// carried state starts as a new particle's would.
void WorldState::start_solver() {
  solver.reset(solver_registry()[static_cast<size_t>(params.solver)].make(params));
  const Carried carried = solver->carried();
  const size_t n = static_cast<size_t>(particles.size());
  for (Array<float>* field : carried) field->assign(n, 0.0f);
  if (carried.half_vx) {
    std::copy(particles.vx.begin(), particles.vx.end(), carried.half_vx->begin());
    std::copy(particles.vy.begin(), particles.vy.end(), carried.half_vy->begin());
  }
}

void WorldState::build_walls() { walls.build(params, solver->density_kernel()); }

// ---------------------------------------------------------------------------
// World: set-up

World::World(const Params& params) : s_(std::make_unique<WorldState>()) {
  if (validate(params).empty()) s_->params = params;
  s_->lanes = simd_width();
  s_->start_solver();
  s_->build_walls();
}

World::World(const World& other) : s_(std::make_unique<WorldState>(*other.s_)) {}
World& World::operator=(const World& other) {
  if (this != &other) *s_ = *other.s_;
  return *this;
}
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

std::vector<std::string> World::set_params(const Params& params) {
  std::vector<std::string> problems = validate(params);
  if (problems.empty()) problems = fit_problems(params, s_->box, count());
  if (!problems.empty()) return problems;
  const Params& old = s_->params;
  const bool new_solver = params.solver != old.solver || params.integrator != old.integrator;
  const bool new_walls = params.h != old.h || params.mass != old.mass ||
                         params.rest_density != old.rest_density || params.solver != old.solver;
  // A particle-in-cell solver's particles sample the liquid's volume, not a
  // lattice: they bunch within cells (in a running dam break a third stand
  // within 0.4 spacings of another), which SPH's density sums read as
  // several times rest density and its pressure throws apart. An SPH solver
  // taking over from one gets the same water laid on a lattice again, its
  // motion carried, and the parameters as given (relay, resample.cpp).
  const bool lattice_before = s_->solver->sorts_particles();
  s_->params = params;
  if (new_solver) s_->start_solver();
  if (new_walls) s_->build_walls();
  if (new_solver && !lattice_before && s_->solver->sorts_particles()) relay();
  return problems;
}

const Params& World::params() const { return s_->params; }
float World::spacing() const { return s_->spacing(); }

namespace {
// A container: finite corners, and not empty.
bool valid_box(const Box& box) {
  return std::isfinite(box.min.x) && std::isfinite(box.min.y) && std::isfinite(box.max.x) &&
         std::isfinite(box.max.y) && box.max.x > box.min.x && box.max.y > box.min.y;
}
}  // namespace

void World::set_box(const Box& box) {
  if (valid_box(box)) s_->box = box;
}
const Box& World::box() const { return s_->box; }

bool World::transform(const glm::mat2& m, glm::vec2 offset, const Box& box) {
  WorldState& s = *s_;
  const bool finite = std::isfinite(m[0][0]) && std::isfinite(m[0][1]) && std::isfinite(m[1][0]) &&
                      std::isfinite(m[1][1]) && std::isfinite(offset.x) && std::isfinite(offset.y);
  if (!finite || !valid_box(box) || s.solver->field()) return false;
  auto place = [&](glm::vec2 q) {
    const glm::vec2 r = m * q + offset;
    return glm::clamp(r, box.min, box.max);  // rounding must not leave a particle outside
  };
  auto turn = [&](Array<float>& x, Array<float>& y, bool point) {
    for (size_t i = 0; i < x.size(); ++i) {
      const glm::vec2 r = point ? place({x[i], y[i]}) : m * glm::vec2(x[i], y[i]);
      x[i] = r.x;
      y[i] = r.y;
    }
  };
  Particles& p = s.particles;
  turn(p.x, p.y, true);
  turn(p.x_prev, p.y_prev, true);
  turn(p.vx, p.vy, false);
  turn(p.ax, p.ay, false);
  for (Obstacle& o : s.obstacles) {
    o.a = m * o.a + offset;
    o.b = m * o.b + offset;
  }
  for (Emitter& e : s.sources.emitters) {
    e.position = m * e.position + offset;
    e.velocity = m * e.velocity;
  }
  for (Sink& k : s.sources.sinks) k.position = m * k.position + offset;
  s.bodies.transform(m, offset);
  s.box = box;
  return true;
}

int World::add_particle(glm::vec2 position, glm::vec2 velocity) { return s_->add_particle(position, velocity); }

void World::clear_particles() {
  WorldState& s = *s_;
  s.particles.resize(0);
  for (Array<float>* field : s.solver->carried()) field->resize(0);
  s.next_id = 0;
  s.time = 0.0;
  s.carry = 0.0;
  s.max_accel = 0.0f;
  s.stats = FrameStats{};
}

void World::reserve(int n) { s_->particles.reserve(n); }
int World::count() const { return s_->particles.size(); }
const Particles& World::particles() const { return s_->particles; }
const FieldView* World::field() const { return s_->solver->field(); }
const FieldView* World::faces() const { return s_->solver->faces(); }

bool World::fill_dye(const Box& region, glm::vec3 colour) {
  const bool ok = std::isfinite(region.min.x) && std::isfinite(region.min.y) && std::isfinite(region.max.x) &&
                  std::isfinite(region.max.y) && std::isfinite(colour.x) && std::isfinite(colour.y) &&
                  std::isfinite(colour.z) && colour.x >= 0.0f && colour.y >= 0.0f && colour.z >= 0.0f;
  if (!ok || !s_->solver->fill_dye(*s_, region, colour)) return false;
  s_->dye_fills.push_back({region, colour});
  return true;
}

const std::vector<DyeFill>& World::dye_fills() const { return s_->dye_fills; }

// ---------------------------------------------------------------------------
// Shapes, emitters, sinks, pointers

int World::add_circle(glm::vec2 centre, float radius) {
  Obstacle o;
  o.kind = Obstacle::Kind::Circle;
  o.a = o.b = centre;
  o.radius = radius;
  return add_obstacle(s_->obstacles, o, &s_->next_shape_id);
}

int World::add_capsule(glm::vec2 a, glm::vec2 b, float radius) {
  Obstacle o;
  o.kind = Obstacle::Kind::Capsule;
  o.a = a;
  o.b = b;
  o.radius = radius;
  return add_obstacle(s_->obstacles, o, &s_->next_shape_id);
}

std::vector<int> World::add_polyline(const std::vector<glm::vec2>& points, float radius) {
  std::vector<int> ids;
  for (size_t k = 1; k < points.size(); ++k) {
    const int id = add_capsule(points[k - 1], points[k], radius);
    if (id >= 0) ids.push_back(id);
  }
  return ids;
}

bool World::remove_obstacle(int id) { return remove_by_id(s_->obstacles, id); }
void World::clear_obstacles() { s_->obstacles.clear(); }
const std::vector<Obstacle>& World::obstacles() const { return s_->obstacles; }

int World::add_body(const BodyDef& def, std::string* why) {
  WorldState& s = *s_;
  const std::string problem = BodySet::check(def, s.box, static_cast<int>(s.bodies.bodies().size()));
  if (!problem.empty()) {
    if (why) *why = problem;
    return -1;
  }
  const int id = s.next_shape_id++;
  s.bodies.set_scenery(s.box, s.obstacles, s.spacing());
  s.bodies.add(def, id);
  return id;
}

int World::add_body(const BodyShape& shape, float density, glm::vec2 position, float angle, std::string* why) {
  BodyDef def;
  def.shape = shape;
  def.density = density;
  def.position = position;
  def.angle = angle;
  return add_body(def, why);
}

bool World::remove_body(int id) { return s_->bodies.remove(id); }
void World::clear_bodies() { s_->bodies.clear(); }
const std::vector<Body>& World::bodies() const { return s_->bodies.bodies(); }
bool World::drag_body(int id, glm::vec2 target) { return s_->bodies.drag(id, target); }
bool World::release_body(int id) { return s_->bodies.release(id); }

int World::add_emitter(const Emitter& e) { return s_->sources.add_emitter(e, &s_->next_shape_id); }
int World::add_sink(const Sink& s) { return s_->sources.add_sink(s, &s_->next_shape_id); }
bool World::remove_emitter(int id) { return s_->sources.remove_emitter(id); }
bool World::remove_sink(int id) { return s_->sources.remove_sink(id); }
const std::vector<Emitter>& World::emitters() const { return s_->sources.emitters; }
const std::vector<Sink>& World::sinks() const { return s_->sources.sinks; }

void World::set_pointers(const std::vector<PointerForce>& pointers) {
  s_->pointers.clear();
  for (const PointerForce& f : pointers)
    if (valid_pointer(f)) s_->pointers.push_back(f);
}

// ---------------------------------------------------------------------------
// Engine

void World::set_parallel_for(const ParallelFor& pf) { s_->loops.set_hook(pf); }
const ParallelFor& World::parallel_for() const { return s_->loops.hook(); }

int World::simd_width() { return Lanes::kWidth; }

void World::set_lanes(int lanes) {
  s_->lanes = lanes >= Lanes::kWidth ? Lanes::kWidth : lanes >= F4::kWidth ? F4::kWidth : 1;
}
int World::lanes() const { return s_->lanes; }

// ---------------------------------------------------------------------------
// Time stepping

namespace {

// Counts each particle's candidates from the sorted grid's cell starts:
// five ranges a particle, so O(n) whatever the crowding.
void count_candidates(WorldState& s) {
  const int n = s.particles.size();
  const Grid& grid = s.search.grid();
  s.candidates.resize(static_cast<size_t>(n));
  int* const count = s.candidates.data();
  s.candidate_sum = s.loops.sum_over(n, [&](int begin, int end) {
    double sum = 0.0;
    for (int i = begin; i < end; ++i) {
      int c = 0;
      grid.for_each_range(i, [&](int b, int e) { c += e - b; });
      count[i] = c;
      sum += c;
    }
    return sum;
  });
}

// The backstop of the work bound: the frame's first step, where even its
// least work does not fit (a pile, every particle a candidate of every
// other), moves the particles by gravity and parts the closest pairs
// (keep_apart), each particle scanning at most the candidates that fit:
// no pressure, so no pair term is lost at one end only. Returns the cap.
int relieve(WorldState& s, float dt, FrameStats& st) {
  Particles& p = s.particles;
  const int n = p.size();
  const Params& P = s.params;
  const Carried carried = s.solver->carried();
  s.loops.parallel(n, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      p.ax[i] = P.gravity_x;
      p.ay[i] = P.gravity_y;
    }
  });
  if (carried.half_vx) integrate(s, dt, Integration::Leapfrog, carried.half_vx, carried.half_vy);
  else integrate(s, dt, Integration::SymplecticEuler);
  st.work += n;
  const double room = (st.work_limit - st.work - shared_least(s) + 2.0 * s.candidate_sum) / (2.0 * n);
  return room >= 1e9 ? 1000000000 : room > 3.0 ? static_cast<int>(room) - 1 : 2;
}

// One step; false, with nothing moved, where it is not the frame's first
// and its least work at the sort's counts does not fit the frame's bound.
bool substep(WorldState& s, float dt, const Clock& clock, FrameStats& st) {
  StageClock stages(clock, st);
  st.timed = static_cast<bool>(clock);
  // The bodies (coupling.cpp): the water's step sees them where they are,
  // and sums its forces on them; Box2D moves them; the particles then
  // leave them where they have moved to.
  start_sums(s);
  gather_solids(s);
  const bool particles = s.solver->moves_particles() && s.particles.size() > 0;
  const bool sorted = particles && s.solver->sorts_particles();
  bool relief = false;
  if (sorted) {
    if (st.substeps > 0 && !within_bound(st, 2.0 * s.particles.size())) return false;
    s.search.sort(s.particles, s.solver->carried(), s.params.h, s.box, !s.solids.empty(), s.loops,
                  &s.near_wall);
    count_candidates(s);
    st.work += 2.0 * s.particles.size();
    stages.lap(kStageNeighbours);
  } else {
    s.candidate_sum = 0.0;
  }
  if (!within_bound(st, s.solver->least_work(s) + shared_least(s))) {
    if (st.substeps > 0) return false;
    relief = sorted;
  }
  ++st.substeps;
  st.dt = dt;
  int cap = 0;
  if (!s.solver->moves_particles()) {
    s.solver->step(s, dt, stages, st);
  } else if (relief) {
    cap = relieve(s, dt, st);
  } else if (particles) {
    s.solver->step(s, dt, stages, st);
    if (sorted) st.work += body_pressure(s);
  }
  if (!s.bodies.empty()) {
    step_bodies(s, dt);
    gather_solids(s);
    stages.lap(kStageBodies);
  }
  const double n = s.particles.size();
  if (particles) {
    int capped = 0;
    st.work += keep_apart(s, cap, &capped);
    st.cap_hits += capped;
    collide(s);
    body_contacts(s);
    st.work += n * (1.0 + static_cast<double>(s.solids.size()));
  }
  st.work += n * static_cast<double>(s.sources.sinks.size());
  emit_and_sink(s, dt);
  const int contained = contain(s);
  if (contained > 0) {
    st.contained = true;
    st.contained_particles += contained;
  }
  st.work += s.particles.size();
  stages.lap(kStageBoundaries);
  s.time += dt;
  return true;
}

}  // namespace

double shared_least(const WorldState& s) {
  const double n = s.particles.size();
  return 2.0 * s.candidate_sum +
         n * (6.0 + static_cast<double>(s.solids.size()) + static_cast<double>(s.sources.sinks.size()));
}

float World::stable_dt() const {
  const WorldState& s = *s_;
  const Params& P = s.params;
  if (!P.adaptive_dt) return P.dt;
  const Particles& p = s.particles;
  const double v2max = s.loops.max_over(p.size(), [&](int begin, int end) {
    const float *vx = p.vx.data(), *vy = p.vy.data();
    uint32_t most = 0;
    for (int i = begin; i < end; ++i) most = std::max(most, order_bits(vx[i] * vx[i] + vy[i] * vy[i]));
    return static_cast<double>(from_order_bits(most));
  });
  float vmax = std::sqrt(static_cast<float>(v2max));
  float dt = P.dt;
  if (!s.solver->sph_bounds()) {
    // A grid solver's bodies cross its cells too: their fastest points.
    for (const Body& b : s.bodies.bodies())
      vmax = std::max(vmax, glm::length(b.velocity) + std::fabs(b.omega) * b.def.shape.reach());
    return std::max(s.solver->dt_limit(P, vmax), 1e-6f);
  }
  // CFL (seed 002): no particle moves more than lambda h in one step.
  if (vmax > 0.0f) dt = std::min(dt, P.cfl * P.h / vmax);
  // Force bound (Monaghan 1992): dt <= 0.25 sqrt(h / a_max), a_max the
  // last substep's; before any has measured it, the solver's estimate.
  const float a_max = s.max_accel > 0.0f ? s.max_accel : s.solver->first_accel(P);
  if (a_max > 0.0f) dt = std::min(dt, 0.25f * std::sqrt(P.h / a_max));
  dt = std::min(dt, s.solver->dt_limit(P, vmax));
  // Explicit viscosity is a diffusion with nu = mu / rho0: dt <= 0.125 h^2 / nu.
  if (P.viscosity > 0.0f) dt = std::min(dt, 0.125f * P.h * P.h * P.rest_density / P.viscosity);
  return std::max(dt, 1e-6f);
}

namespace {
// The work bound (Params::work_bound): the frame's limit is work_bound
// ordinary frames of the largest size the world has had in it during the
// frame (an emitter may fill an empty tank). A substep is admitted where
// its least work (a particle solver's at the candidates its sort counted)
// fits with the shared stages' (substep); a frame always takes one, so time
// always moves, and a particle solver's first that does not fit is the
// backstop's (relieve). Within a substep the iterative solves stop where
// the limit leaves no room for another pass and the rest of the step
// (within_bound, passes_within).
void raise_limit(const WorldState& s, FrameStats& st) {
  // An ordinary frame's contacts too: each of its particles tested against
  // every obstacle, body and sink in each of kOrdinaryContactPasses steps.
  constexpr double kOrdinaryContactPasses = 4.0;
  const double contacts = static_cast<double>(s.obstacles.size() + s.bodies.bodies().size() + s.sources.sinks.size());
  const double ordinary = s.solver->ordinary_work(s) + kOrdinaryContactPasses * s.particles.size() * contacts;
  const double limit = static_cast<double>(s.params.work_bound) * ordinary;
  st.work_limit = st.substeps == 0 ? limit : std::max(st.work_limit, limit);
}
}  // namespace

FrameStats World::advance(float frame_time, const Clock& clock) {
  WorldState& s = *s_;
  FrameStats st;
  if (!std::isfinite(frame_time) || frame_time < 0.0f) frame_time = 0.0f;
  const Params& P = s.params;
  // One more substep; false, the frame ended early, where the caps allow none.
  auto next_substep = [&](float dt) {
    if (st.substeps >= P.max_substeps) {
      st.substep_cap_hit = true;  // drop the rest: simulated time lags real time
      return false;
    }
    raise_limit(s, st);
    if (!substep(s, dt, clock, st)) {
      st.work_cap_hit = true;  // the same
      return false;
    }
    return true;
  };
  if (P.adaptive_dt) {
    double remaining = frame_time;
    while (remaining > 1e-9) {
      float dt = stable_dt();
      // Split the tail evenly rather than finishing with a sliver of a step.
      if (dt < remaining && remaining < 2.0 * dt) dt = static_cast<float>(remaining * 0.5);
      dt = static_cast<float>(std::min<double>(dt, remaining));
      if (!next_substep(dt)) break;
      remaining -= dt;
    }
  } else {
    s.carry += frame_time;
    const long n = static_cast<long>(std::floor(s.carry / P.dt + 1e-6));
    long k = 0;
    while (k < n && next_substep(P.dt)) ++k;
    // Steps owed past a cap are dropped, not carried into the next frame.
    s.carry = k < n ? 0.0 : s.carry - static_cast<double>(n) * P.dt;
  }
  raise_limit(s, st);  // at the frame's end size
  compute_stats(s, st);
  s.stats = st;
  return st;
}

FrameStats World::step(float dt, const Clock& clock) {
  FrameStats st;
  raise_limit(*s_, st);
  if (std::isfinite(dt) && dt > 0.0f) substep(*s_, std::min(dt, 0.1f), clock, st);
  raise_limit(*s_, st);
  compute_stats(*s_, st);
  s_->stats = st;
  return st;
}

double World::time() const { return s_->time; }
const FrameStats& World::last_stats() const { return s_->stats; }
uint64_t World::state_hash() const { return tidepool::state_hash(*s_); }
size_t World::bytes_per_particle() const { return tidepool::bytes_per_particle(*s_); }

}  // namespace tidepool
