// Weakly compressible SPH of Müller, Charypar & Gross 2003 (the seeds'
// method): pressure from an equation of state of the density, explicit
// forces, and a time step bounded by the EOS's speed of sound.
//
// One step: the density pass (poly6, eq. 3 and 20) and the EOS (eq. 12, or
// Tait), then the forces pass with the pressure force (eq. 10 or its
// symmetric form; forces.cpp), then symplectic Euler or leapfrog.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "density.h"
#include "forces.h"
#include "integrate.h"
#include "neighbours.h"
#include "solver.h"
#include "state.h"
#include "tidepool/kernels.h"

namespace tidepool {
namespace {

class MullerSolver final : public SolverBase<MullerSolver> {
 public:
  explicit MullerSolver(const Params& params) : leapfrog_(params.integrator == Integrator::Leapfrog) {}

  void step(WorldState& s, float dt, StageClock& clock, FrameStats& st) override {
    const int n = s.particles.size();
    density_pass(s);
    equation_of_state(s);
    st.work += s.candidate_sum;
    clock.lap(kStageDensity);
    ForceOptions forces;
    forces.pressure = true;
    forces.pressure_over_rho = pressure_rho_.data();
    compute_forces(s, dt, forces);  // pressure included: one pass over the pairs
    st.work += s.candidate_sum;
    clock.lap(kStageForces);
    if (leapfrog_) integrate(s, dt, Integration::Leapfrog, &half_vx_, &half_vy_);
    else integrate(s, dt, Integration::SymplecticEuler);
    st.work += n;
    clock.lap(kStageIntegrate);
  }

  Carried carried() override {
    Carried c;
    if (leapfrog_) {
      c.add(&half_vx_);
      c.add(&half_vy_);
      c.half_vx = &half_vx_;
      c.half_vy = &half_vy_;
    }
    return c;
  }

  DensityKernel density_kernel() const override { return DensityKernel::Poly6; }

  // Explicit pressure travels at the EOS sound speed c = sqrt(k).
  float dt_limit(const Params& P, float vmax) const override {
    return P.cfl * P.h / (std::sqrt(P.stiffness) + vmax);
  }

  // Before the first step: the pressure of a density error of order one
  // across h, c^2 / h = k / h. A load's lattice reads a surface particle
  // some 40 % under rho0, and the seeds keep negative pressures: a small
  // drop of seed 001's gas (k = 1000) pulls its surface in at c^2 / h from
  // the first step, which without this bound took twice the step the force
  // bound allows and threw particles past max_speed.
  float first_accel(const Params& P) const override { return P.stiffness / P.h; }

  // Its two scans, and the integration.
  double least_work(const WorldState& s) const override { return 2.0 * s.candidate_sum + s.particles.size(); }

  // The density pass counts each pair once, per band.
  float mean_neighbours(int n) const override {
    if (band_pairs_.empty() || n == 0) return 0.0f;
    double pairs = 0.0;
    for (int b : band_pairs_) pairs += b;
    return static_cast<float>(2.0 * pairs / n);
  }

  size_t bytes() const override {
    return bytes_of(half_vx_) + bytes_of(half_vy_) + bytes_of(pressure_rho_) + band_pairs_.capacity() * sizeof(int);
  }

 private:
  void density_pass(WorldState& s);
  void equation_of_state(WorldState& s);

  bool leapfrog_;
  Array<float> half_vx_, half_vy_;  // leapfrog: v(t + dt/2), carried
  Array<float> pressure_rho_;       // p_i / rho_i, for the pressure force's pair terms
  std::vector<int> band_pairs_;     // pairs found per band, for the mean neighbour count
};

// Visits each pair once (for_forward_pairs) and adds W_ij and grad W_ij to
// both ends: half the candidates of a full scan. Sums go to density and
// the normals (their own sums from i's scan, the others from the earlier
// particles whose forward ranges hold i). With the colour field the forces
// pass sums its own gradient (with 1/rho_j, Müller eq. 17) into the normal
// arrays and sets the surface flags, so this pass sums the density alone.
// The particle's own W(0) and the walls are added once every band is done
// (equation_of_state). A hot loop kept whole: i's and j's sums stay in
// lanes across the scan.
void MullerSolver::density_pass(WorldState& s) {
  Particles& p = s.particles;
  const int n = p.size();
  const float* x = p.x.data();
  const float* y = p.y.data();
  const float h2 = s.params.h * s.params.h;
  const MullerKernels K(s.params.h);
  const DensityOut out = density_outputs(s);
  float* rho = out.density;
  const bool normals = !colour_field_on(s);
  float* sx = normals ? out.nx : nullptr;  // null: not summed (for_bands)
  float* sy = normals ? out.ny : nullptr;
  const std::vector<int>& bands = s.search.bands();
  // Pairs per band (bands run in parallel): a count per particle would
  // cost 4 bytes a particle.
  if (band_pairs_.capacity() < bands.capacity()) band_pairs_.reserve(bands.capacity());  // as bands
  band_pairs_.assign(bands.size() - 1, 0);
  const Grid& grid = s.search.grid();
  with_lanes(s.lanes, n, [&](auto lanes) {
   with_constant<2>(normals, [&](auto with_normals) {
    using V = decltype(lanes);
    constexpr bool kNormals = decltype(with_normals)::value;
    s.search.for_bands(s.loops, {rho, sx, sy}, [&](int begin, int end, int limit) {
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
        for (int c = 0; c < C; ++c) rho_i[c] = sx_i[c] = sy_i[c] = V(0.0f);
        for_forward_pairs<V, C>(grid, limit, x, y, i, h2, [&](int j, const Near<V>* near) {
          V rho_j = V::load(rho_all + j), sx_j, sy_j;
          if constexpr (kNormals) {
            sx_j = V::load(sx_all + j);
            sy_j = V::load(sy_all + j);
          }
          for (int c = 0; c < C; ++c) {
            const Near<V>& q = near[c];
            pairs += lane_count(q.in);
            V w, g;  // g unused (and not computed) without normals
            k.poly6_and_grad_lanes(select(q.in, V(k.h2) - q.r2), &w, &g);
            rho_i[c] += w;
            rho_j += w;
            if constexpr (kNormals) {
              const V gx = g * q.dx, gy = g * q.dy;  // grad W_ij; grad W_ji = -grad W_ij
              sx_i[c] += gx;
              sy_i[c] += gy;
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
        for (int c = 0; c < C; ++c) {
          rho_all[i + c] += sum(rho_i[c]);
          if constexpr (kNormals) {
            sx_all[i + c] += sum(sx_i[c]);
            sy_all[i + c] += sum(sy_i[c]);
          }
        }
      };
      for (int i = begin; i < end;) {
        if (grid.shares_ranges_with_next(i, end)) {
          scan(i, std::integral_constant<int, 2>{});
          i += 2;
        } else {
          scan(i, std::integral_constant<int, 1>{});
          ++i;
        }
      }
      const auto band = std::lower_bound(bands.begin(), bands.end(), begin) - bands.begin();
      band_pairs_[static_cast<size_t>(band)] = pairs;
    });
   });
  });
}

// Completes each particle's density, normal and surface flag from the pass's
// sums, and its pressure from the equation of state: Müller eq. 12, or Tait
// (Becker & Teschner 2007) with B = k rho0 / gamma, gamma = 7, so that
// dp/drho at rho0 is k, as for the ideal-gas form. Negative pressures are
// scaled by negative_pressure.
void MullerSolver::equation_of_state(WorldState& s) {
  Particles& p = s.particles;
  const int n = p.size();
  const Params& P = s.params;
  const float k_eos = P.stiffness, neg = P.negative_pressure, rho0 = P.rest_density;
  const bool tait = P.eos == Eos::Tait;
  pressure_rho_.resize(static_cast<size_t>(n));
  float* const pr_out = p.pressure.data();
  float* const pr_rho_out = pressure_rho_.data();
  const DensityOut out = density_outputs(s);
  const float* const inv_rho = out.inv_rho;
  // Both forms, then selects, not branches: the loop below vectorises.
  auto set_pressure = [=](int i, float density) {
    const float r = density / rho0;
    const float r2 = r * r, r4 = r2 * r2;
    const float tait_pr = k_eos * rho0 / 7.0f * (r4 * r2 * r - 1.0f);
    const float ideal_pr = k_eos * (density - rho0);
    float pr = tait ? tait_pr : ideal_pr;
    pr = pr < 0.0f ? pr * neg : pr;
    pr_out[i] = pr;
    pr_rho_out[i] = pr * inv_rho[i];
  };
  const bool normals = !colour_field_on(s);
  const float m = P.mass, w0 = MullerKernels(P.h).poly6(0.0f);
  s.loops.parallel(n, [&](int begin, int end) {
    // Every particle as if no wall were near, in a loop without calls or
    // branches, which the compiler vectorises (its arrays are distinct:
    // ivdep); then the few near a wall get their wall terms. Both give
    // density = m (sum_j W_ij + W(0)) + rho_b, bit for bit.
    const DensityOut o = out;
    const auto pressure_to = set_pressure;
    const float* const sums = o.density;
    const float mass = m, self = w0;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      const float density = mass * (sums[i] + self);
      o.set_density(i, density);
      pressure_to(i, density);
    }
    if (normals) {
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) o.set_normal(i, o.nx[i], o.ny[i]);
      for (int i = begin; i < end; ++i) o.set_surface(i);  // bytes: a loop of their own vectorises
    }
    const uint8_t* const near = s.near_wall.data();
    for (int i = begin; i < end; ++i) {
      if (!near[i]) continue;
      WallSample wall;
      const float density = o.density[i] + wall_terms(s, i, &wall);
      o.set_density(i, density);
      set_pressure(i, density);
    }
    // An outlet buffer (the open boundaries of Federico et al. 2012, "Simulating
    // 2D open-channel flows through an SPH model", Eur. J. Mech. B 34): within h
    // of a sink's rim a neighbourhood is cut by the water the sink takes, so
    // its deficit is missing water, not a stretch, and kept negative pressure
    // would pull the water after it into the hole. There it is dropped.
    for (const Sink& sink : s.sources.sinks) {
      const float reach = sink.radius + P.h, reach2 = reach * reach;
      for (int i = begin; i < end; ++i) {
        const float dx = p.x[i] - sink.position.x, dy = p.y[i] - sink.position.y;
        if (dx * dx + dy * dy < reach2 && pr_out[i] < 0.0f) {
          pr_out[i] = 0.0f;
          pr_rho_out[i] = 0.0f;
        }
      }
    }
  });
}

}  // namespace

std::unique_ptr<FluidSolver> make_muller(const Params& params) {
  return std::make_unique<MullerSolver>(params);
}

}  // namespace tidepool
