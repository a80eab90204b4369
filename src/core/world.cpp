// The step, its Müller 2003 stages, and the statistics.
//
// One substep:
//   neighbours   counting sort of all particles by grid cell (grid.h)
//   density      rho_i = sum_j m_j W(r_ij), self included (Müller eq. 3);
//                Müller: pressure from the EOS; DFSPH: factors alpha_i and
//                the neighbour lists of its solves (dfsph.cpp)
//   forces       viscosity, surface tension, XSPH, gravity, pointers;
//                Müller: the pressure force too, in the same pass
//   pressure     DFSPH: divergence + density solves
//
// Pair stages run on the SIMD lanes of simd.h over the grid's cell ranges
// (neighbours.h), 4 or 8 candidates at a time: DFSPH's density pass tests
// all of a particle's ~50 candidates (its solves need whole neighbour
// lists); the other pair passes visit each pair once, from the particle
// that comes first in sorted order, and add its term to both particles.
//   integrate    symplectic Euler or leapfrog
//   boundaries   container, obstacles, emitters, sinks, safety net
#include "tidepool/world.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "neighbours.h"
#include "tidepool/kernels.h"

namespace tidepool {
namespace {

// Calls f(std::integral_constant<int, v>{}) for a run-time v in [0, N): turns
// a set of switches into a compile-time one, one instance of f per value.
template <int N, class F>
void with_constant(int v, F&& f) {
  if constexpr (N > 0) {
    if (v == N - 1) return f(std::integral_constant<int, N - 1>{});
    with_constant<N - 1>(v, f);
  }
}

// The bits of v >= 0 (or +inf; 0 for NaN): they order as the values do, so
// the largest of many values is an integer maximum, which the compiler
// vectorises where a float one (std::max, which skips NaN) does not. NaN's
// bits (above infinity's) are masked to 0 with a mask, not a select: GCC
// vectorises no select inside a maximum.
inline uint32_t order_bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits & (0u - static_cast<uint32_t>(bits <= 0x7f800000u));
}
inline float from_order_bits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Fewest particles in a band of for_bands: at least a lane group, so a
// group shifted back from a band's limit stays within the band after it;
// more keeps a band worth a task.
constexpr int kMinBand = 64;
static_assert(kMinBand >= Lanes::kWidth, "a band holds at least a lane group");

}  // namespace

const char* stage_name(int stage) {
  static const char* names[kStageCount] = {"neighbours", "density",   "forces",
                                           "pressure",   "integrate", "boundaries"};
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
// World: set-up

World::World(const Params& params) {
  if (validate(params).empty()) params_ = params;
  build_wall_tables();
}

std::vector<std::string> World::set_params(const Params& params) {
  std::vector<std::string> problems = validate(params);
  if (!problems.empty()) return problems;
  const bool solver_state_changed =
      params.solver != params_.solver || params.integrator != params_.integrator;
  const bool h_changed = params.h != params_.h || params.mass != params_.mass ||
                         params.rest_density != params_.rest_density ||
                         params.solver != params_.solver;
  params_ = params;
  if (h_changed) build_wall_tables();
  if (solver_state_changed) reset_solver_state();
  return problems;
}

// aux0/aux1 mean different things per solver: leapfrog keeps the half-step
// velocity, DFSPH the warm-start stiffness of its two solves. Switching
// solvers keeps positions and velocities and restarts these.
void World::reset_solver_state() {
  Particles& p = particles_;
  const bool leapfrog =
      params_.solver == Solver::Muller2003 && params_.integrator == Integrator::Leapfrog;
  for (int i = 0; i < p.size(); ++i) {
    p.aux0[i] = leapfrog ? p.vx[i] : 0.0f;
    p.aux1[i] = leapfrog ? p.vy[i] : 0.0f;
  }
}

int World::simd_width() { return Lanes::kWidth; }

void World::set_lanes(int lanes) {
  lanes_ = lanes >= Lanes::kWidth ? Lanes::kWidth : lanes >= F4::kWidth ? F4::kWidth : 1;
}

float World::spacing() const { return std::sqrt(params_.mass / params_.rest_density); }

void World::set_box(const Box& box) {
  const bool ok = std::isfinite(box.min.x) && std::isfinite(box.min.y) &&
                  std::isfinite(box.max.x) && std::isfinite(box.max.y) &&
                  box.max.x > box.min.x && box.max.y > box.min.y;
  if (ok) box_ = box;
}

int World::add_particle(glm::vec2 position, glm::vec2 velocity) {
  if (count() >= kMaxParticles) return -1;
  if (!std::isfinite(position.x) || !std::isfinite(position.y) || !std::isfinite(velocity.x) ||
      !std::isfinite(velocity.y))
    return -1;
  Particles& p = particles_;
  const int i = p.size();
  p.resize(i + 1);
  p.x[i] = position.x;
  p.y[i] = position.y;
  p.vx[i] = velocity.x;
  p.vy[i] = velocity.y;
  p.x_prev[i] = position.x;
  p.y_prev[i] = position.y;
  p.density[i] = params_.rest_density;
  const bool leapfrog =
      params_.solver == Solver::Muller2003 && params_.integrator == Integrator::Leapfrog;
  p.aux0[i] = leapfrog ? velocity.x : 0.0f;
  p.aux1[i] = leapfrog ? velocity.y : 0.0f;
  p.id[i] = next_id_++;
  return static_cast<int>(p.id[i]);
}

void World::clear_particles() {
  particles_.resize(0);
  next_id_ = 0;
  time_ = 0.0;
  carry_ = 0.0;
  max_accel_ = 0.0f;
  stats_ = FrameStats{};
}

void World::set_pointers(const std::vector<PointerForce>& pointers) {
  pointers_.clear();
  for (const PointerForce& f : pointers) {
    const bool ok = std::isfinite(f.position.x) && std::isfinite(f.position.y) &&
                    std::isfinite(f.radius) && f.radius > 0.0f && std::isfinite(f.strength) &&
                    std::isfinite(f.velocity.x) && std::isfinite(f.velocity.y) &&
                    std::isfinite(f.stir) && f.stir >= 0.0f;
    if (ok) pointers_.push_back(f);
  }
}

// ---------------------------------------------------------------------------
// Time stepping

float World::stable_dt() const {
  const Params& P = params_;
  if (!P.adaptive_dt) return P.dt;
  const Particles& p = particles_;
  const double v2max = max_over(p.size(), [&](int begin, int end) {
    const float *vx = p.vx.data(), *vy = p.vy.data();
    uint32_t most = 0;
    for (int i = begin; i < end; ++i)
      most = std::max(most, order_bits(vx[i] * vx[i] + vy[i] * vy[i]));
    return static_cast<double>(from_order_bits(most));
  });
  const float vmax = std::sqrt(static_cast<float>(v2max));
  float dt = P.dt;
  // CFL (seed 002): no particle moves more than lambda h in one step.
  if (vmax > 0.0f) dt = std::min(dt, P.cfl * P.h / vmax);
  // Force bound (Monaghan 1992): dt <= 0.25 sqrt(h / a_max).
  if (max_accel_ > 0.0f) dt = std::min(dt, 0.25f * std::sqrt(P.h / max_accel_));
  if (P.solver == Solver::Muller2003) {
    // Explicit pressure travels at the EOS sound speed c = sqrt(k).
    dt = std::min(dt, P.cfl * P.h / (std::sqrt(P.stiffness) + vmax));
  }
  // Explicit viscosity is a diffusion with nu = mu / rho0: dt <= 0.125 h^2 / nu.
  if (P.viscosity > 0.0f) dt = std::min(dt, 0.125f * P.h * P.h * P.rest_density / P.viscosity);
  return std::max(dt, 1e-6f);
}

FrameStats World::advance(float frame_time, const Clock& clock) {
  FrameStats st;
  if (!std::isfinite(frame_time) || frame_time < 0.0f) frame_time = 0.0f;
  const Params& P = params_;
  if (P.adaptive_dt) {
    double remaining = frame_time;
    while (remaining > 1e-9) {
      if (st.substeps >= P.max_substeps) {
        st.substep_cap_hit = true;  // drop the rest: simulated time lags real time
        break;
      }
      float dt = stable_dt();
      // Split the tail evenly rather than finishing with a sliver of a step.
      if (dt < remaining && remaining < 2.0 * dt) dt = static_cast<float>(remaining * 0.5);
      dt = static_cast<float>(std::min<double>(dt, remaining));
      substep(dt, clock, st);
      remaining -= dt;
    }
  } else {
    carry_ += frame_time;
    long n = static_cast<long>(std::floor(carry_ / P.dt + 1e-6));
    if (n > P.max_substeps) {
      st.substep_cap_hit = true;
      n = P.max_substeps;
      carry_ = static_cast<double>(n) * P.dt;
    }
    carry_ -= static_cast<double>(n) * P.dt;
    for (long k = 0; k < n; ++k) substep(P.dt, clock, st);
  }
  compute_stats(st);
  stats_ = st;
  return st;
}

FrameStats World::step(float dt, const Clock& clock) {
  FrameStats st;
  if (std::isfinite(dt) && dt > 0.0f) substep(std::min(dt, 0.1f), clock, st);
  compute_stats(st);
  stats_ = st;
  return st;
}

void World::substep(float dt, const Clock& clock, FrameStats& st) {
  double t0 = clock ? clock() : 0.0;
  auto lap = [&](int stage) {
    if (!clock) return;
    const double t1 = clock();
    st.stage_ms[stage] += t1 - t0;
    t0 = t1;
  };
  st.timed = static_cast<bool>(clock);
  ++st.substeps;
  st.dt = dt;

  if (count() > 0) {
    sort_and_bin();
    lap(kStageNeighbours);
    compute_density();
    lap(kStageDensity);
    if (params_.solver == Solver::DFSPH) {
      // Bender & Koschier 2015, Alg. 1: the divergence solve ends the
      // previous step in the paper; it runs first here, on fresh neighbours.
      if (params_.divergence_solver) st.divergence_iterations += dfsph_divergence_solve(dt, &st.solver_passes);
      lap(kStagePressure);
      compute_forces(dt);  // all but pressure, which the solves add
      lap(kStageForces);
      float error = 0.0f;
      st.solver_iterations += dfsph_density_solve(dt, &error, &st.solver_passes);
      // A non-finite error means the step blew up; contain() repairs the
      // particles, and the stats stay printable.
      st.solver_error = std::isfinite(error) ? error : -1.0f;
      lap(kStagePressure);
      integrate(dt);
      lap(kStageIntegrate);
    } else {
      compute_forces(dt);  // pressure included: one pass over the pairs
      lap(kStageForces);
      integrate(dt);
      lap(kStageIntegrate);
    }
    collide(dt);
  }
  emit_and_sink(dt);
  const int contained = contain();
  if (contained > 0) {
    st.contained = true;
    st.contained_particles += contained;
  }
  lap(kStageBoundaries);
  time_ += dt;
}

// ---------------------------------------------------------------------------
// Stages

void World::sort_and_bin() {
  Particles& p = particles_;
  const int n = p.size();
  // Grid::build, on the thread pool where it can be: the bounding box,
  // every particle's cell (min and max are exact, so any split gives the
  // same grid) and the sort, all of it but its histogram.
  const float* x = p.x.data();
  const float* y = p.y.data();
  const Grid::Bounds box = reduce(
      n, Grid::bounds(x, y, 0, std::min(n, 1)),  // particle 0's box: merging it changes nothing
      [&](int begin, int end) { return Grid::bounds(x, y, begin, end); },
      [](const Grid::Bounds& a, const Grid::Bounds& b) { return a.merge(b); }, block_bounds_);
  grid_.reserve(n, params_.h, {box_.min.x, box_.max.x, box_.min.y, box_.max.y});
  grid_.shape(n, params_.h, box);
  parallel(n, [&](int begin, int end) { grid_.bin(x, y, begin, end); });
  // The ranks in tmp_id_, which the reorder below fills only after the sort.
  tmp_id_.resize(static_cast<size_t>(n));
  grid_.sort(tmp_id_.data(), [&](int count, auto&& body) { parallel(count, body); });
  grid_.bands(kMinBand, &bands_);
  if (band_offset_.capacity() < bands_.capacity()) band_offset_.reserve(bands_.capacity());  // as bands_
  band_offset_.resize(bands_.size() - 1);
  int round_points[2] = {0, 0};
  for (size_t b = 0; b < band_offset_.size(); ++b) {
    band_offset_[b] = round_points[b % 2];
    round_points[b % 2] += bands_[b + 1] - bands_[b];
  }
  // Reorders the state that lives across steps (x, y, vx, vy, aux0, aux1,
  // id) so that entry order[k] moves to position k, in one parallel loop
  // that reads order[k] once for all seven. The other fields are rewritten
  // later in every step before anything reads them (x_prev, y_prev by
  // integrate; ax, ay by forces; density and pressure by density and the
  // pressure stages), so until then they are free to receive the
  // reordered fields, which are then swapped in.
  Array<float>* moved[] = {&p.x, &p.y, &p.vx, &p.vy, &p.aux0, &p.aux1};
  Array<float>* spare[] = {&p.x_prev, &p.y_prev, &p.ax, &p.ay, &p.density, &p.pressure};
  constexpr int kMoved = 6;
  const int* order = grid_.order().data();
  parallel(n, [&](int begin, int end) {
    const float* src[kMoved];
    float* dst[kMoved];
    for (int f = 0; f < kMoved; ++f) {
      src[f] = moved[f]->data();
      dst[f] = spare[f]->data();
    }
    const uint32_t* const id = p.id.data();
    uint32_t* const id_out = tmp_id_.data();
    for (int k = begin; k < end; ++k) {
      const int from = order[k];
      for (int f = 0; f < kMoved; ++f) dst[f][k] = src[f][from];
      id_out[k] = id[from];
    }
  });
  for (int f = 0; f < kMoved; ++f) moved[f]->swap(*spare[f]);
  p.id.swap(tmp_id_);
  // From the sorted positions, in one parallel loop: the cells, which the
  // grid's queries read, and which particles are near a wall, for the
  // density pass: wall_density adds a wall only within h of it (the same
  // d >= h tests), and any particle may be near an obstacle. As bytes, with
  // `&` for `&&`, in a loop that vectorises: the loops over them test a
  // byte instead of the four distances (callgrind, 4 000 particles: 8
  // instructions a particle for Müller's loops, against about 25 for one
  // loop of scalar tests).
  const float h = params_.h, x0 = box_.min.x, x1 = box_.max.x, y0 = box_.min.y, y1 = box_.max.y;
  const bool obstacles = !obstacles_.empty();
  near_wall_.resize(static_cast<size_t>(n));
  auto away = [=](float xi, float yi) {
    return !obstacles & (xi - x0 >= h) & (x1 - xi >= h) & (yi - y0 >= h) & (y1 - yi >= h);
  };
  parallel(n, [&](int begin, int end) {
    // Copies in locals: the byte stores could alias anything the loop
    // reached through a pointer, which would reload it every particle.
    const auto away_from_walls = away;
    const float* const xs = p.x.data();
    const float* const ys = p.y.data();
    grid_.bin(xs, ys, begin, end);
    uint8_t* const near = near_wall_.data();
    for (int i = begin; i < end; ++i) near[i] = !away_from_walls(xs[i], ys[i]);
  });
}

void World::compute_density() {
  Particles& p = particles_;
  const int n = p.size();
  const Params& P = params_;
  const float m = P.mass, h = P.h, h2 = h * h, rho0 = P.rest_density;
  const float normal_scale = h * m / rho0;
  const bool dfsph = P.solver == Solver::DFSPH;
  // The wall's gradient and viscosity sum per particle only for DFSPH, whose
  // solves read them for every particle; Müller's forces pass finds them
  // again for the particles near a wall (12 bytes a particle fewer).
  if (dfsph) {
    for (auto* v : {&neighbours_, &wall_gx_, &wall_gy_, &wall_lap_, &factor_}) v->resize(static_cast<size_t>(n));
  }
  inv_rho_.resize(static_cast<size_t>(n));
  const float* x = p.x.data();
  const float* y = p.y.data();
  normal_x_.resize(static_cast<size_t>(n));
  normal_y_.resize(static_cast<size_t>(n));
  p.surface.resize(static_cast<size_t>(n));
  const float flag2 = h2 * P.surface_threshold * P.surface_threshold;
  // rho_i = sum_j m W_ij (self included) + rho_b(d_i); Müller 2003 uses
  // poly6 (eq. 20), DFSPH the cubic spline and, in the same pass, its factor
  //   alpha_i = rho_i / (|sum_j m grad W_ij + grad rho_b,i|^2 + sum_j |m grad W_ij|^2)
  // (Bender & Koschier 2015, eq. 11; the self pair adds nothing, r_ii = 0).
  //
  // Surface normals come from the same sum of gradients (DFSPH's factor
  // needs it anyway; poly6's gradient needs no square root):
  //   n_i = (h / rho0) sum_j m grad W_ij,
  // Akinci et al. 2013's n_i = h sum_j m_j / rho_j grad W_ij (eq. 4) with
  // rho_j ~ rho0: the solvers hold rho_j within about 1 % of rho0 in the
  // bulk, where n is noise anyway; at the surface 1/rho0 makes n a little
  // shorter than 1/rho_j would. It feeds the cohesion model's curvature
  // term and the surface flag (|n| / h is the colour-field gradient |grad c|
  // of Müller eq. 15-16), and saves a pass over the pairs. Müller's pass
  // with the colour field leaves both to the forces pass (muller_density).
  //
  // The wall terms only for the particles sort_and_bin flagged near a wall
  // (near_wall_); the others get zeros without the lookup.
  const bool obstacles = !obstacles_.empty();
  // What the pass leaves per particle, once its sums are complete, in
  // pieces: Müller's pass runs them over whole blocks (muller_density).
  // DFSPH's prediction of the obstacles' contacts needs the particles near
  // one (dfsph_density_solve); without obstacles there are none to flag.
  const bool flag_obstacles = dfsph && obstacles;
  if (flag_obstacles) near_obstacle_.resize(static_cast<size_t>(n));
  auto wall_terms = [&](int i) {
    float wr = 0.0f, gx = 0.0f, gy = 0.0f, lap = 0.0f;
    bool near_obstacle = false;
    if (near_wall_[i]) {
      near_obstacle = wall_density(x[i], y[i], &wr, &gx, &gy, &lap);
      // The flag narrowed to the particles a wall or an obstacle reaches
      // (with obstacles the box test flags every particle), for the forces
      // pass's wall terms.
      near_wall_[i] = gx != 0.0f || gy != 0.0f || lap != 0.0f;
    }
    if (flag_obstacles) near_obstacle_[i] = near_obstacle;
    if (dfsph) {
      wall_gx_[i] = gx;
      wall_gy_[i] = gy;
      wall_lap_[i] = lap;
    }
    return wr;
  };
  // By value: raw pointers and constants, which a copy in a loop keeps in
  // registers (the surface flag's byte stores could alias anything else).
  float* const density_out = p.density.data();
  float* const inv_rho_out = inv_rho_.data();
  float* const nx_out = normal_x_.data();
  float* const ny_out = normal_y_.data();
  uint8_t* const surface_out = p.surface.data();
  auto set_density = [=](int i, float density) {
    density_out[i] = density;
    inv_rho_out[i] = 1.0f / density;
  };
  auto set_normal = [=](int i, float sx, float sy) {
    nx_out[i] = normal_scale * sx;
    ny_out[i] = normal_scale * sy;
  };
  auto set_surface = [=](int i) {
    surface_out[i] = nx_out[i] * nx_out[i] + ny_out[i] * ny_out[i] > flag2;
  };
  auto finish = [&](int i, float rho_sum, float sx, float sy) {
    const float density = m * rho_sum + wall_terms(i);
    set_density(i, density);
    set_normal(i, sx, sy);
    set_surface(i);
    return density;
  };
  if (dfsph) {
    dfsph_density(finish);
  } else {
    muller_density(wall_terms, set_density, set_normal, set_surface);
  }
}

// Müller 2003's density pass visits each pair once (for_forward_pairs) and
// adds W_ij and grad W_ij to both ends: half the candidates of a full scan.
// Sums go to density and normal_x_/y_ (their own sums from i's scan, the
// others from the earlier particles whose forward ranges hold i); the
// particle's own W(0) and the rest are added once every band is done.
template <class WallTerms, class SetDensity, class SetNormal, class SetSurface>
void World::muller_density(const WallTerms& wall_terms, const SetDensity& set_density,
                           const SetNormal& set_normal, const SetSurface& set_surface) {
  Particles& p = particles_;
  const int n = p.size();
  const Params& P = params_;
  const float* x = p.x.data();
  const float* y = p.y.data();
  const float h2 = P.h * P.h, rho0 = P.rest_density;
  const MullerKernels K(P.h);
  float* rho = p.density.data();
  float* sx = normal_x_.data();
  float* sy = normal_y_.data();
  // Pairs found, per band (bands run in parallel), for the mean neighbour
  // count: a count per particle would cost 4 bytes a particle.
  if (band_pairs_.capacity() < bands_.capacity()) band_pairs_.reserve(bands_.capacity());  // as bands_
  band_pairs_.assign(bands_.size() - 1, 0);
  // With the colour field the forces pass sums its own gradient (with
  // 1/rho_j, Müller eq. 17) into the normal arrays and sets the surface
  // flags from it, so this pass sums the density alone: a third of the
  // loads and stores, and no gradient (Müller's step 0.915x the time
  // natively, 0.902x in wasm, scripts/ab.sh).
  const bool normals = !colour_field_on();
  if (!normals) sx = sy = nullptr;  // not summed (for_bands)
  with_lanes(lanes_, n, [&](auto lanes) {
   with_constant<2>(normals, [&](auto with_normals) {
    using V = decltype(lanes);
    constexpr bool kNormals = decltype(with_normals)::value;
    for_bands({rho, sx, sy}, [&](int begin, int end, int limit) {
      // Local copies: the stores below could alias K's fields for all the
      // compiler knows, which would reload them in every lane group.
      const MullerKernels k = K;
      float* const rho_all = rho;
      float* const sx_all = sx;
      float* const sy_all = sy;
      int pairs = 0;
      // C = 1 or 2 particles i .. i + C - 1 (for_forward_pairs).
      auto scan = [&](int i, auto count) {
        constexpr int C = decltype(count)::value;
        V rho_i[C], sx_i[C], sy_i[C];
        for (int s = 0; s < C; ++s) rho_i[s] = sx_i[s] = sy_i[s] = V(0.0f);
        for_forward_pairs<V, C>(grid_, limit, x, y, i, h2, [&](int j, const Near<V>* near) {
          V rho_j = V::load(rho_all + j), sx_j, sy_j;
          if constexpr (kNormals) {
            sx_j = V::load(sx_all + j);
            sy_j = V::load(sy_all + j);
          }
          for (int s = 0; s < C; ++s) {
            const Near<V>& q = near[s];
            pairs += lane_count(q.in);
            V w, g;  // g unused (and not computed) without normals
            k.poly6_and_grad_lanes(select(q.in, V(k.h2) - q.r2), &w, &g);
            rho_i[s] += w;
            rho_j += w;
            if constexpr (kNormals) {
              const V gx = g * q.dx, gy = g * q.dy;  // grad W_ij; grad W_ji = -grad W_ij
              sx_i[s] += gx;
              sy_i[s] += gy;
              sx_j = sx_j - gx;
              sy_j = sy_j - gy;
            }
          }
          store(rho_j, rho_all + j);
          if constexpr (kNormals) {
            store(sx_j, sx_all + j);
            store(sy_j, sy_all + j);
          }
        });
        for (int s = 0; s < C; ++s) {
          rho_all[i + s] += sum(rho_i[s]);
          if constexpr (kNormals) {
            sx_all[i + s] += sum(sx_i[s]);
            sy_all[i + s] += sum(sy_i[s]);
          }
        }
      };
      for (int i = begin; i < end;) {
        if (grid_.shares_ranges_with_next(i, end)) {
          scan(i, std::integral_constant<int, 2>{});
          i += 2;
        } else {
          scan(i, std::integral_constant<int, 1>{});
          ++i;
        }
      }
      const auto band = std::lower_bound(bands_.begin(), bands_.end(), begin) - bands_.begin();
      band_pairs_[static_cast<size_t>(band)] = pairs;
    });
   });
  });
  // Müller 2003: the equation of state, per particle as its density is known.
  const float k_eos = P.stiffness, neg = P.negative_pressure;
  const bool tait = P.eos == Eos::Tait;
  pressure_rho_.resize(static_cast<size_t>(n));
  float* const pr_out = p.pressure.data();
  float* const pr_rho_out = pressure_rho_.data();
  const float* const inv_rho = inv_rho_.data();
  // Both forms, then selects, not branches: the loop below vectorises.
  auto set_pressure = [=](int i, float density) {
    // Tait (Becker & Teschner 2007): B = k rho0 / gamma, gamma = 7, so that
    // dp/drho at rho0 is k, as for the ideal-gas form.
    const float r = density / rho0;
    const float r2 = r * r, r4 = r2 * r2;
    const float tait_pr = k_eos * rho0 / 7.0f * (r4 * r2 * r - 1.0f);
    const float ideal_pr = k_eos * (density - rho0);  // Müller eq. 12
    float pr = tait ? tait_pr : ideal_pr;
    pr = pr < 0.0f ? pr * neg : pr;
    pr_out[i] = pr;
    pr_rho_out[i] = pr * inv_rho[i];  // for the pressure force's pair terms
  };
  const float m = P.mass, w0 = K.poly6(0.0f);
  parallel(n, [&](int begin, int end) {
    // Every particle as if no wall were near, in a loop without calls or
    // branches, which the compiler vectorises (its arrays are distinct:
    // ivdep); then the few near a wall get their wall terms. Both give
    // density = m (sum_j W_ij + W(0)) + rho_b, bit for bit.
    const auto density_to = set_density;
    const auto normal_to = set_normal;
    const auto pressure_to = set_pressure;
    const float* const sums = rho;
    const float mass = m, self = w0;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      const float density = mass * (sums[i] + self);
      density_to(i, density);
      pressure_to(i, density);
    }
    if (normals) {
      const float* const gx = sx;
      const float* const gy = sy;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) normal_to(i, gx[i], gy[i]);
      const auto surface_to = set_surface;  // bytes: a loop of their own vectorises
      for (int i = begin; i < end; ++i) surface_to(i);
    }
    const uint8_t* const near = near_wall_.data();
    for (int i = begin; i < end; ++i) {
      if (!near[i]) continue;
      const float density = rho[i] + wall_terms(i);
      set_density(i, density);
      set_pressure(i, density);
    }
  });
}

// DFSPH's density pass scans every candidate of every particle: its solves
// need each particle's whole list, m grad W_ij for every neighbour, which
// the pass has in hand: pack() moves a lane group's pairs to the list's end
// at once (a lane permutation with AVX2 or wasm SIMD), i itself left out.
// Each block of particles fills its own buffer, grown to hold the worst
// case of the next particle (all its candidates) before it is scanned.
template <class Finish>
void World::dfsph_density(const Finish& finish) {
  Particles& p = particles_;
  const int n = p.size();
  const float* x = p.x.data();
  const float* y = p.y.data();
  const float m = params_.mass, h2 = params_.h * params_.h;
  const CubicKernel C(params_.h);
  const int blocks = (n + kListBlock - 1) / kListBlock;
  list_end_.resize(static_cast<size_t>(n));
  if (list_blocks_.size() < static_cast<size_t>(blocks)) list_blocks_.resize(static_cast<size_t>(blocks));
  with_lanes(lanes_, n, [&](auto lanes) {
    using V = decltype(lanes);
    constexpr int W = V::kWidth;
    parallel(blocks, [&](int b0, int b1) {
      // Local copies: the lists' stores could alias the pass's floats for
      // all the compiler knows, which would reload them in every lane group.
      const CubicKernel kernel = C;
      const float* const x_all = x;
      const float* const y_all = y;
      const float radius2 = h2;
      const V mass(m);
      for (int b = b0; b < b1; ++b) {
        ListBlock& list = list_blocks_[static_cast<size_t>(b)];
        int k = 0;  // the block's list cursor
        const int last = std::min(n, (b + 1) * kListBlock);
        for (int i = b * kListBlock; i < last; ++i) {
          int candidates = 0;
          grid_.for_each_range(i, [&](int begin, int end) { candidates += end - begin; });
          // Room for a pack's whole lane group past the last pair, and for
          // the padding to whole groups of the widest lanes (kListGroup),
          // which may be wider than this pass's.
          const size_t need = static_cast<size_t>(k + candidates + kListGroup);
          if (list.j.size() < need) {
            const size_t grown = need + need / 4;
            list.j.resize(grown);
            list.gx.resize(grown);
            list.gy.resize(grown);
          }
          int* lj = list.j.data();
          float* lgx = list.gx.data();
          float* lgy = list.gy.data();
          V rho(0.0f), sx(0.0f), sy(0.0f), sum2(0.0f);
          const int first = k;
          for_pairs<V>(grid_, n, x_all, y_all, i, radius2, [&](int j, V dx, V dy, V r2, typename V::Mask in) {
            const V r = sqrt(r2);
            const V g = select(in, kernel.grad_lanes(r));
            rho += select(in, kernel.value_lanes(r));
            sx += g * dx;
            sy += g * dy;
            sum2 += g * g * r2;
            const unsigned self = static_cast<unsigned>(i - j);  // i's lane, if in this group
            const int bits = lane_bits(in) & ~(self < unsigned{W} ? 1 << self : 0);
            k += V::pack(bits, j, mass * g * dx, mass * g * dy, lj + k, lgx + k, lgy + k);
          });
          // The neighbours within h are the list: i itself is left out.
          neighbours_[i] = static_cast<float>(k - first);
          // The padding (for_list): i itself with a zero gradient, whose
          // terms in the solves are zero (finite times zero), so their lane
          // groups need no mask (the lanes' counter and a select each, about
          // a fifth of a group's operations).
          for (; k % kListGroup != 0; ++k) {
            lj[k] = i;
            lgx[k] = 0.0f;
            lgy[k] = 0.0f;
          }
          list_end_[i] = k;
          const float sxi = sum(sx), syi = sum(sy);
          const float density = finish(i, sum(rho), sxi, syi);
          const float ax = m * sxi + wall_gx_[i], ay = m * syi + wall_gy_[i];
          const float denom = ax * ax + ay * ay + m * m * sum(sum2);
          // A particle with no neighbours and no wall cannot be compressed.
          factor_[i] = denom > 1e-12f ? density / denom : 0.0f;
        }
      }
    });
  });
}

bool World::cohesion_on() const {
  return params_.tension == Tension::Cohesion && params_.surface_tension > 0.0f;
}

bool World::colour_field_on() const {
  return params_.tension == Tension::ColourField && params_.surface_tension > 0.0f;
}

// Viscosity (Müller eq. 14), surface tension (colour field, Müller eq. 15-19,
// or cohesion, Akinci 2013), XSPH (Monaghan 1989), gravity and pointer forces, as accelerations; for
// Müller 2003 also the pressure force (eq. 10), in the same pass over the
// pairs. DFSPH's solves add pressure afterwards.
//
// Every pair term is a coefficient symmetric in i and j times a vector that
// changes sign (r_ij, v_j - v_i, n_i - n_j), so the pass visits each pair
// once (for_forward_pairs, for_bands) and adds the term to i and subtracts
// it from j. The colour field's sums are not antisymmetric (m / rho_j for
// i, m / rho_i for j) and get their own arrays.
void World::compute_forces(float dt) {
  Particles& p = particles_;
  const int n = p.size();
  const Params& P = params_;
  const MullerKernels K(P.h);
  const float m = P.mass, h2 = P.h * P.h;
  const float mu = P.viscosity, sigma = P.surface_tension, thresh = P.surface_threshold;
  const float xsph = P.xsph / dt;
  const float gx = P.gravity_x, gy = P.gravity_y, wall_mu = P.wall_viscosity;
  const float gravity_len = std::sqrt(gx * gx + gy * gy);
  p.ax.resize(static_cast<size_t>(n));
  p.ay.resize(static_cast<size_t>(n));
  const float* x = p.x.data();
  const float* y = p.y.data();
  const float* vx = p.vx.data();
  const float* vy = p.vy.data();
  const float* rho = p.density.data();
  const float* pr = p.pressure.data();
  const bool cubic = P.solver == Solver::DFSPH;
  const bool pressure = !cubic, symmetric = P.pressure_force == PressureForce::Symmetric;
  const float* inv_rho = inv_rho_.data();
  const float* pr_rho = pressure_rho_.data();
  const CubicKernel C(P.h);
  const bool colour = colour_field_on();
  const bool cohesion = cohesion_on();
  const CohesionKernel Coh(P.h);
  const float two_rho0 = 2.0f * P.rest_density;
  float* ax = p.ax.data();
  float* ay = p.ay.data();
  if (colour) colour_lap_.resize(static_cast<size_t>(n));
  // The colour field's gradient n = grad c (Müller 2003 eq. 17, the surface
  // normal) is summed into the normal arrays, which the density pass then
  // leaves alone (only the cohesion model reads them here, never with the
  // colour field), and sets the surface flags. 8 bytes a particle fewer.
  float* cx = colour ? normal_x_.data() : nullptr;  // null: not summed (for_bands)
  float* cy = colour ? normal_y_.data() : nullptr;
  float* clap = colour ? colour_lap_.data() : nullptr;
  // One instance of the pair loop per lane type and set of terms (if
  // constexpr below): a loop that carries only the terms it uses keeps more
  // of its sums and constants in registers (callgrind: 22 % fewer
  // instructions than one loop with run-time switches), and skips the
  // divisions of the terms that are off (XSPH's, in the seeds' presets).
  enum : int {
    kTermPressure = 1,
    kTermXsph = 2,
    kTermColour = 4,
    kTermCohesion = 8,
    kTermSymmetric = 16,  // the pressure force's form
  };
  auto run = [&](auto lanes, auto terms) {
    using V = decltype(lanes);
    using Mask = typename V::Mask;
    constexpr int kTerms = decltype(terms)::value;
    constexpr bool kPressure = kTerms & kTermPressure, kXsph = kTerms & kTermXsph;
    constexpr bool kSymmetric = kTerms & kTermSymmetric;
    constexpr bool kColour = kTerms & kTermColour, kCohesion = kTerms & kTermCohesion;
    for_bands({ax, ay, cx, cy, clap}, [&](int begin, int end, int limit) {
      // Local copies of everything the pair loop reads: the stores to j's
      // sums could alias the pass's floats for all the compiler knows, and
      // it reached the rest through the pass's frame, so each lane group
      // reloaded them (callgrind: the loop reloaded mu, m, the pressure
      // switch and four array pointers per group).
      const MullerKernels k_muller = K;
      const CubicKernel k_cubic = C;
      const CohesionKernel k_cohesion = Coh;
      const float* const x_all = x;
      const float* const y_all = y;
      const float* const vx_all = vx;
      const float* const vy_all = vy;
      const float* const rho_all = rho;
      const float* const inv_rho_all = inv_rho;
      const float* const pr_all = pr;
      const float* const pr_rho_all = pr_rho;
      const float* const nx_all = normal_x_.data();
      const float* const ny_all = normal_y_.data();
      float* const ax_all = ax;
      float* const ay_all = ay;
      float* const cx_all = cx;
      float* const cy_all = cy;
      float* const clap_all = clap;
      const float mu_m = mu * m, xsph_2m = xsph * 2.0f * m, cohesion_k = two_rho0 * sigma;
      const V mass(m), m_spiky(m * K.spiky_grad_c);
      const float radius2 = h2, colour_lap_q = 2.0f / 3.0f * h2;
      for (int i = begin; i < end; ++i) {
        V ax_i(0.0f), ay_i(0.0f), cx_i(0.0f), cy_i(0.0f), lap_i(0.0f);
        const float rhoi = rho_all[i], inv_rhoi = inv_rho_all[i];
        const float pi = pr_all[i], pi_rho2 = pi / (rhoi * rhoi), half_inv_rhoi = 0.5f / rhoi;
        const V vxi(vx_all[i]), vyi(vy_all[i]), rho_i(rhoi);
        // The kernels' constants are folded into per-particle and per-pass
        // factors (visc_i, m_spiky), leaving each pair (h - r) and its
        // powers: two multiplies and two live vectors fewer in the lane
        // loop (wasm: the pass 4 % faster against the density pass).
        const V visc_i(mu_m * inv_rhoi * k_muller.visc_lap_c);
        // The normals only for cohesion: with the colour field these arrays
        // are the pass's own sums.
        const V nxi(kCohesion ? nx_all[i] : 0.0f), nyi(kCohesion ? ny_all[i] : 0.0f);
        const V inv_rho_i(inv_rhoi);
        // Divisions are per particle where they can be (1/rho_j, p_j/rho_j:
        // density pass); 1/r and 1/(rho_i + rho_j) are shared by the terms
        // that need them.
        for_forward_pairs<V, 1>(grid_, limit, x_all, y_all, i, radius2, [&](int j, const Near<V>* near) {
          const V dx = near->dx, dy = near->dy, r2 = near->r2;
          const Mask in = near->in;
          const V r = sqrt(r2);
          const V inv_rhoj = V::load(inv_rho_all + j);
          const V dvx = V::load(vx_all + j) - vxi, dvy = V::load(vy_all + j) - vyi;
          // Viscosity, mu m / (rho_i rho_j) lap W (v_j - v_i): eq. 14 over
          // rho_i, with lap W_visc = visc_lap_c (h - r) (eq. 22).
          // (h - r) is zero in the lanes outside the particle's reach, and
          // so is every term it multiplies (every array holds finite
          // values: contain()), so the viscosity and pressure forces need
          // no mask of their own.
          const V d = select(in, V(k_muller.h) - r);
          V dv_coef = visc_i * inv_rhoj * d;
          V inv_sum(0.0f);
          if constexpr (kXsph || kCohesion) inv_sum = V(1.0f) / (rho_i + V::load(rho_all + j));
          if constexpr (kXsph) {
            dv_coef += V(xsph_2m) * inv_sum *
                       (kPressure ? k_muller.poly6_lanes(r2) : k_cubic.value_lanes(r));
          }
          V fx = dv_coef * dvx, fy = dv_coef * dvy;
          // 1/r of a pair with a direction: spiky's gradient and the
          // cohesion pull are singular at r = 0 (a coincident particle),
          // where the pair pushes nowhere.
          V inv_r(0.0f);
          if constexpr (kPressure || kCohesion) inv_r = select(r2 > V(0.0f), V(1.0f) / r);
          if constexpr (kPressure) {
            const V prj = V::load(pr_rho_all + j);  // p_j / rho_j
            // Symmetric: p_i/rho_i^2 + p_j/rho_j^2 (Monaghan 1992). Müller
            // eq. 10 over rho_i: (p_i + p_j) / (2 rho_i rho_j), the
            // arithmetic mean of the two pressures. Both are symmetric.
            const V s = kSymmetric ? V(pi_rho2) + prj * inv_rhoj
                                   : (V(pi) * inv_rhoj + prj) * V(half_inv_rhoi);
            // m grad W_spiky = m spiky_grad_c (h - r)^2 / r r_ij (eq. 21).
            const V gp = m_spiky * s * d * d * inv_r;
            fx = fx - gp * dx;
            fy = fy - gp * dy;
          }
          if constexpr (kCohesion) {
            // Akinci et al. 2013, eq. 1-5, per unit mass:
            //   -gamma K_ij [m_j C(r) r_ij / r + (n_i - n_j)],  K_ij = 2 rho0 / (rho_i + rho_j);
            // K_ij > 1 where the neighbourhood is thin, which strengthens
            // the surface.
            const V k = V(cohesion_k) * inv_sum;
            const V pull = k * mass * k_cohesion.value_lanes(r) * inv_r;
            fx = fx - (pull * dx + k * (nxi - V::load(nx_all + j)));
            fy = fy - (pull * dy + k * (nyi - V::load(ny_all + j)));
          }
          if constexpr (kXsph || kCohesion) {  // terms without (h - r)
            fx = select(in, fx);
            fy = select(in, fy);
          }
          ax_i += fx;
          ay_i += fy;
          store(V::load(ax_all + j) - fx, ax_all + j);
          store(V::load(ay_all + j) - fy, ay_all + j);
          if constexpr (kColour) {
            // Colour field c = sum_j m_j / rho_j W_poly6 (eq. 15): its
            // gradient and Laplacian, for i with 1 / rho_j, for j with
            // 1 / rho_i. With q = h^2 - r^2 both kernels are polynomials
            // in q (derivatives of eq. 20): grad W = poly6_grad_c q^2 r_ij, and
            // lap W = poly6_lap_c q (h^2 - 3 r^2) = 3 poly6_lap_c (q^2 - 2/3 h^2 q).
            // The sums leave out m and those constants, which the
            // per-particle end applies once: fewer multiplies and live
            // constants in the lane loop.
            // q is zero outside the reach, and so is every term.
            const V q = select(in, V(radius2) - r2), q2 = q * q;
            const V lap = q2 - V(colour_lap_q) * q;
            const V gx_ij = q2 * dx, gy_ij = q2 * dy;
            lap_i += inv_rhoj * lap;
            cx_i += inv_rhoj * gx_ij;
            cy_i += inv_rhoj * gy_ij;
            store(V::load(clap_all + j) + inv_rho_i * lap, clap_all + j);
            store(V::load(cx_all + j) - inv_rho_i * gx_ij, cx_all + j);
            store(V::load(cy_all + j) - inv_rho_i * gy_ij, cy_all + j);
          }
        });
        ax_all[i] += sum(ax_i);
        ay_all[i] += sum(ay_i);
        if constexpr (kColour) {
          cx_all[i] += sum(cx_i);
          cy_all[i] += sum(cy_i);
          clap_all[i] += sum(lap_i);
        }
      }
    });
  };
  const int terms = (pressure ? kTermPressure | (symmetric ? kTermSymmetric : 0) : 0) |
                    (xsph > 0.0f ? kTermXsph : 0) |
                    (colour ? kTermColour : cohesion ? kTermCohesion : 0);
  with_lanes(lanes_, n, [&](auto lanes) {
    with_constant<kTermSymmetric * 2>(terms, [&](auto t) {
      // Colour and cohesion never together, a pressure form only with
      // pressure: no loops for those.
      constexpr int kTerms = decltype(t)::value;
      if constexpr (!((kTerms & kTermColour) && (kTerms & kTermCohesion)) &&
                    !((kTerms & kTermSymmetric) && !(kTerms & kTermPressure)))
        run(lanes, t);
    });
  });
  // The terms of each particle alone, once its pair sums are complete: loops
  // without calls or branches that the compiler vectorises (gravity; the
  // colour field's force, as a select), then pointers and the walls only
  // where they apply.
  const float self_lap = m * K.poly6_laplacian(0.0f);
  // The colour sums' factors (the pair loop above leaves them out).
  const float colour_grad = m * K.poly6_grad_c, colour_lap = 3.0f * m * K.poly6_lap_c;
  const bool wall_friction = wall_mu > 0.0f && gravity_len > 0.0f;
  uint8_t* const surface = p.surface.data();
  parallel(n, [&](int begin, int end) {
    const float* const rho_in = rho;
    float* const n_x = cx;
    float* const n_y = cy;
    const float* const clap_in = clap;
    float* const ax_out = ax;
    float* const ay_out = ay;
    const float grav_x = gx, grav_y = gy, lap0 = self_lap, sig = sigma, threshold = thresh;
    const float grad_c = colour_grad, lap_c = colour_lap;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      ax_out[i] = grav_x + ax_out[i];
      ay_out[i] = grav_y + ay_out[i];
    }
    if (colour) {
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        // f = -sigma lap(c) n / |n| (eq. 19), as an acceleration f / rho_i,
        // where |n| passes the threshold. The Laplacian includes the
        // particle itself (seed 000 leaves it out): without it the force on
        // a surface particle has the wrong size, and square drops spread
        // instead of rounding up (measured).
        const float rhoi = rho_in[i];
        const float nx = grad_c * n_x[i], ny = grad_c * n_y[i], nlen = std::sqrt(nx * nx + ny * ny);
        n_x[i] = nx;  // the normal arrays hold n itself
        n_y[i] = ny;
        const bool on = nlen > threshold && nlen > 0.0f;
        const float s = -sig * (lap_c * clap_in[i] + lap0 / rhoi) / (nlen * rhoi);
        ax_out[i] = on ? ax_out[i] + s * nx : ax_out[i];
        ay_out[i] = on ? ay_out[i] + s * ny : ay_out[i];
      }
      // The surface flags from this n (the density pass leaves them to this
      // pass with the colour field): where the force acts, by the same test
      // on the same |n| (threshold >= 0, so |n| > 0 too). Bytes: a loop of
      // their own vectorises.
      uint8_t* const flag = surface;
      for (int i = begin; i < end; ++i) flag[i] = std::sqrt(n_x[i] * n_x[i] + n_y[i] * n_y[i]) > threshold;
    }
    for (const PointerForce& f : pointers_) {
      for (int i = begin; i < end; ++i) {
        const float dx = x[i] - f.position.x, dy = y[i] - f.position.y;
        const float d2 = dx * dx + dy * dy;
        if (d2 >= f.radius * f.radius) continue;
        const float d = std::sqrt(d2);
        const float fall = 1.0f - d / f.radius;  // 1 at the centre, 0 at the rim
        if (d > 1e-6f) {
          ax[i] += f.strength * fall * dx / d;
          ay[i] += f.strength * fall * dy / d;
        }
        // Stirring: relax the particle velocity toward the pointer's.
        const float rate = std::min(f.stir * fall, 1.0f / dt);
        ax[i] += rate * (f.velocity.x - vx[i]);
        ay[i] += rate * (f.velocity.y - vy[i]);
      }
    }
    if (!pressure && !wall_friction) return;
    // The walls, on the particles within h of one (the density pass's
    // flags): their gradient grad rho_b and viscosity sum Psi are DFSPH's
    // stored ones, or for Müller found again (wall_density), which costs
    // less than keeping three arrays of mostly zeros.
    const uint8_t* const near = near_wall_.data();
    for (int i = begin; i < end; ++i) {
      if (!near[i]) continue;
      float wgx, wgy, wlap;
      if (cubic) {
        wgx = wall_gx_[i];
        wgy = wall_gy_[i];
        wlap = wall_lap_[i];
      } else {
        float wr;
        wall_density(x[i], y[i], &wr, &wgx, &wgy, &wlap);
      }
      const float rhoi = rho[i];
      if (pressure) {
        // The wall as mirrored fluid at the particle's own pressure
        // (Akinci et al. 2012): -(p_i / rho_i^2) grad rho_b.
        const float pi_rho2 = pr[i] / (rhoi * rhoi);
        ax[i] -= pi_rho2 * wgx;
        ay[i] -= pi_rho2 * wgy;
      }
      // Wall viscosity: eq. 14 against wall "particles" at rest,
      // mu_w / rho_i sum_b rho0 V_b (0 - v_i) lap W_ib = -(mu_w / rho_i) rho0 Psi v_i,
      // on the tangential velocity only (the normal one is the pressure's
      // job), and only on walls the fluid rests on (weighted by how much
      // the wall faces up against gravity): it plays the part of the bed
      // friction that slows a real surge, without gluing a film of fluid to
      // vertical walls. Integrated implicitly, v_t / (1 + rate dt), so any
      // strength is stable.
      const float g2 = wgx * wgx + wgy * wgy;
      if (!wall_friction || !(g2 > 0.0f)) continue;
      // The wall gradient points into the wall: facing = -g_hat . n_hat.
      const float facing = (gx * wgx + gy * wgy) / (gravity_len * std::sqrt(g2));
      if (!(facing > 0.0f)) continue;
      const float vn = (vx[i] * wgx + vy[i] * wgy) / g2;
      const float rate = facing * wall_mu * wlap / rhoi;
      const float damp = rate / (1.0f + rate * dt);  // implicit Euler
      ax[i] -= damp * (vx[i] - vn * wgx);
      ay[i] -= damp * (vy[i] - vn * wgy);
    }
  });
}

// Müller 2003: symplectic Euler or leapfrog. DFSPH has already turned its
// velocities into v(t + dt) in the solves, so only positions move.
void World::integrate(float dt) {
  Particles& p = particles_;
  const int n = p.size();
  const bool dfsph = params_.solver == Solver::DFSPH;
  const bool leapfrog = !dfsph && params_.integrator == Integrator::Leapfrog;
  const double a2max = max_over(n, [&](int begin, int end) {
    // One loop per scheme over raw pointers to distinct arrays (ivdep), which
    // the compiler vectorises, the largest |a|^2 kept as its order_bits.
    float *x = p.x.data(), *y = p.y.data(), *vx = p.vx.data(), *vy = p.vy.data();
    float *x_prev = p.x_prev.data(), *y_prev = p.y_prev.data();
    float *hx = p.aux0.data(), *hy = p.aux1.data();
    const float *ax = p.ax.data(), *ay = p.ay.data();
    auto a2_bits = [](float ax_i, float ay_i) { return order_bits(ax_i * ax_i + ay_i * ay_i); };
    uint32_t most = 0;
    if (leapfrog) {
      // Seed 000: v(t+dt/2) = v(t-dt/2) + a dt; x += v(t+dt/2) dt; the
      // time-centred v(t) = average of the two halves feeds viscosity.
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        most = std::max(most, a2_bits(ax[i], ay[i]));
        x_prev[i] = x[i];
        y_prev[i] = y[i];
        const float half_x = hx[i] + ax[i] * dt, half_y = hy[i] + ay[i] * dt;
        vx[i] = 0.5f * (hx[i] + half_x);
        vy[i] = 0.5f * (hy[i] + half_y);
        hx[i] = half_x;
        hy[i] = half_y;
        x[i] += half_x * dt;
        y[i] += half_y * dt;
      }
    } else {
      // Symplectic Euler; DFSPH's solves have already updated v.
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        most = std::max(most, a2_bits(ax[i], ay[i]));
        x_prev[i] = x[i];
        y_prev[i] = y[i];
        if (!dfsph) {
          vx[i] += ax[i] * dt;
          vy[i] += ay[i] * dt;
        }
        x[i] += vx[i] * dt;
        y[i] += vy[i] * dt;
      }
    }
    return static_cast<double>(from_order_bits(most));
  });
  max_accel_ = std::sqrt(static_cast<float>(a2max));
}

// ---------------------------------------------------------------------------
// Safety net: nothing non-finite leaves the core, no speed runs away.

int World::contain() {
  Particles& p = particles_;
  const float vmax = params_.max_speed;
  const float cx = 0.5f * (box_.min.x + box_.max.x), cy = 0.5f * (box_.min.y + box_.max.y);
  // True when none of [begin, end) needs a repair below (the usual case):
  // one branch-free pass the compiler vectorises, instead of the repair
  // loop's tests and branches for every particle.
  auto sound = [&](int begin, int end) {
    const Box b = box_;
    const float v2max = vmax * vmax;
    auto finite = [](float v) -> int { return std::fabs(v) <= std::numeric_limits<float>::max(); };
    const float *px = p.x.data(), *py = p.y.data(), *pvx = p.vx.data(), *pvy = p.vy.data();
    const float *a0 = p.aux0.data(), *a1 = p.aux1.data(), *rho = p.density.data(),
                *pr = p.pressure.data();
    int sound_count = 0;  // an int, not a bool: GCC vectorises this sum
    for (int i = begin; i < end; ++i) {
      const float x = px[i], y = py[i], vx = pvx[i], vy = pvy[i];
      sound_count += finite(x) & finite(y) & finite(vx) & finite(vy) & finite(a0[i]) &
                     finite(a1[i]) & finite(rho[i]) & finite(pr[i]) &
                     (vx * vx + vy * vy <= v2max) & (x >= b.min.x) & (x <= b.max.x) &
                     (y >= b.min.y) & (y <= b.max.y);
    }
    return sound_count == end - begin;
  };
  const int touched = static_cast<int>(sum_over(p.size(), [&](int begin, int end) {
    if (sound(begin, end)) return 0.0;
    int hits = 0;
    for (int i = begin; i < end; ++i) {
      bool hit = false;
      if (!std::isfinite(p.x[i]) || !std::isfinite(p.y[i]) || !std::isfinite(p.vx[i]) ||
          !std::isfinite(p.vy[i]) || !std::isfinite(p.aux0[i]) || !std::isfinite(p.aux1[i])) {
        const bool prev_ok = std::isfinite(p.x_prev[i]) && std::isfinite(p.y_prev[i]);
        p.x[i] = prev_ok ? p.x_prev[i] : cx;
        p.y[i] = prev_ok ? p.y_prev[i] : cy;
        p.vx[i] = p.vy[i] = p.aux0[i] = p.aux1[i] = 0.0f;
        hit = true;
      }
      if (!std::isfinite(p.density[i]) || !std::isfinite(p.pressure[i])) {
        p.density[i] = params_.rest_density;
        p.pressure[i] = 0.0f;
        hit = true;
      }
      const float v2 = p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i];
      if (v2 > vmax * vmax) {
        const float s = vmax / std::sqrt(v2);
        p.vx[i] *= s;
        p.vy[i] *= s;
        if (params_.solver == Solver::Muller2003 && params_.integrator == Integrator::Leapfrog) {
          p.aux0[i] = p.vx[i];
          p.aux1[i] = p.vy[i];
        }
        hit = true;
      }
      // The box is the last word: projection keeps everything inside.
      p.x[i] = std::min(std::max(p.x[i], box_.min.x), box_.max.x);
      p.y[i] = std::min(std::max(p.y[i], box_.min.y), box_.max.y);
      hits += hit ? 1 : 0;
    }
    return static_cast<double>(hits);
  }));
  if (!std::isfinite(max_accel_)) max_accel_ = 0.0f;
  return touched;
}

// ---------------------------------------------------------------------------
// Statistics and hash

void World::compute_stats(FrameStats& st) const {
  const Particles& p = particles_;
  const int n = p.size();
  st.particles = n;
  st.time = time_;
  const float rho0 = params_.rest_density;
  double err_sum = 0.0, nb_sum = 0.0, ke = 0.0;
  float err_max = 0.0f, v2max = 0.0f;
  // DFSPH counts each particle's neighbours; Müller's pass each pair once.
  const bool muller = params_.solver == Solver::Muller2003;
  const bool have_nb = muller ? !band_pairs_.empty() : neighbours_.size() == static_cast<size_t>(n);
  for (int i = 0; i < n; ++i) {
    const float e = std::fabs(p.density[i] / rho0 - 1.0f);
    err_sum += e;
    err_max = std::max(err_max, e);
    const float v2 = p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i];
    v2max = std::max(v2max, v2);
    ke += 0.5 * params_.mass * v2;
    if (have_nb && !muller) nb_sum += neighbours_[i];
  }
  st.max_density_error = err_max;
  st.mean_density_error = n ? static_cast<float>(err_sum / n) : 0.0f;
  st.max_speed = std::sqrt(v2max);
  st.kinetic_energy = ke;
  if (muller && have_nb) {
    for (int pairs : band_pairs_) nb_sum += pairs;
    nb_sum *= 2.0;
  }
  st.mean_neighbours = n && have_nb ? static_cast<float>(nb_sum / n) : 0.0f;
}

uint64_t World::state_hash() const {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a 64
  auto mix = [&](const void* data, size_t bytes) {
    const unsigned char* b = static_cast<const unsigned char*>(data);
    for (size_t k = 0; k < bytes; ++k) {
      hash ^= b[k];
      hash *= 1099511628211ull;
    }
  };
  const Particles& p = particles_;
  const size_t n = static_cast<size_t>(p.size());
  mix(p.x.data(), n * sizeof(float));
  mix(p.y.data(), n * sizeof(float));
  mix(p.vx.data(), n * sizeof(float));
  mix(p.vy.data(), n * sizeof(float));
  mix(p.id.data(), n * sizeof(uint32_t));
  mix(&time_, sizeof time_);
  return hash;
}

size_t World::bytes_per_particle() const {
  const Particles& p = particles_;
  if (p.size() == 0) return 0;
  size_t bytes = 0;
  for (const auto* v : p.floats()) bytes += bytes_of(*v);
  for (const auto* v : {&neighbours_, &wall_gx_, &wall_gy_, &wall_lap_, &normal_x_, &normal_y_, &factor_,
                        &rho_adv_, &v_pred_, &inv_rho_, &pressure_rho_, &colour_lap_})
    bytes += bytes_of(*v);
  bytes += bytes_of(p.id) + bytes_of(tmp_id_);
  bytes += p.surface.capacity() + keep_.capacity() + near_wall_.capacity() + near_obstacle_.capacity();
  bytes += obstacle_contacts_.capacity() * sizeof(int);
  bytes += grid_.bytes();
  bytes += (list_end_.capacity() + bands_.capacity() + band_offset_.capacity()) * sizeof(int);
  for (const ListBlock& b : list_blocks_)
    bytes += b.j.capacity() * sizeof(int) + (b.gx.capacity() + b.gy.capacity()) * sizeof(float);
  return bytes / static_cast<size_t>(p.size());
}

}  // namespace tidepool
