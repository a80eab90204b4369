#include "forces.h"

#include <cmath>

#include "neighbours.h"
#include "pair_terms.h"
#include "pointers.h"
#include "state.h"
#include "tidepool/kernels.h"

namespace tidepool {
namespace {

// The terms a pair loop carries, as bits of its compile-time instance: a
// loop that carries only the terms it uses keeps more of its sums and
// constants in registers, and skips the divisions of the terms that are off.
enum : int {
  kTermPressure = 1,
  kTermXsph = 2,
  kTermColour = 4,
  kTermCohesion = 8,
  kTermSymmetric = 16,  // the pressure force's form
  kTermSets = 32,
};

// Colour and cohesion never together, a pressure form only with pressure:
// no loops for those.
constexpr bool valid_terms(int t) {
  return !((t & kTermColour) && (t & kTermCohesion)) && !((t & kTermSymmetric) && !(t & kTermPressure));
}

// What the pair loop reads and writes: raw pointers and constants, copied
// into the band's frame (pair_forces), since the stores to j's sums could
// alias anything the loop reached through a pointer, which would reload it
// in every lane group. Null sums are not summed.
struct PairPass {
  MullerKernels muller;
  CubicKernel cubic;
  CohesionKernel cohesion;
  const float *x, *y, *vx, *vy, *rho, *inv_rho, *pr, *pr_rho, *nx, *ny;
  float *ax, *ay, *cx, *cy, *clap;
  float mu_m;           // mu m
  float xsph_2m;        // 2 m xsph / dt
  float cohesion_k;     // 2 rho0 gamma
  float radius2;        // h^2
  float colour_lap_q;   // 2/3 h^2
  float mass, m_spiky;  // m, m spiky_grad_c
};

// The pair terms of particles [begin, end) of a band (pair_terms.h), to
// both ends of each pair: i's sums in lanes, j's stored back per lane
// group. One fused loop, because every term reads the same pair's
// distance, velocities and densities, which a loop per term would load again.
template <class V, int kTerms>
void pair_forces(const PairPass& pass, const Grid& grid, int begin, int end, int limit) {
  using Mask = typename V::Mask;
  constexpr bool kPressure = kTerms & kTermPressure, kXsph = kTerms & kTermXsph;
  [[maybe_unused]] constexpr bool kSymmetric = kTerms & kTermSymmetric;
  constexpr bool kColour = kTerms & kTermColour, kCohesion = kTerms & kTermCohesion;
  const PairPass P = pass;
  const V mass(P.mass), m_spiky(P.m_spiky), xsph_2m(P.xsph_2m), colour_lap_q(P.colour_lap_q);
  for (int i = begin; i < end; ++i) {
    V ax_i(0.0f), ay_i(0.0f), cx_i(0.0f), cy_i(0.0f), lap_i(0.0f);
    const float rhoi = P.rho[i], inv_rhoi = P.inv_rho[i];
    const float pi = P.pr[i], pi_rho2 = pi / (rhoi * rhoi), half_inv_rhoi = 0.5f / rhoi;
    const V vxi(P.vx[i]), vyi(P.vy[i]), rho_i(rhoi);
    const V visc_i(P.mu_m * inv_rhoi * P.muller.visc_lap_c);
    // The normals only for cohesion: with the colour field these arrays
    // are the pass's own sums.
    const V nxi(kCohesion ? P.nx[i] : 0.0f), nyi(kCohesion ? P.ny[i] : 0.0f);
    const V inv_rho_i(inv_rhoi);
    for_forward_pairs<V, 1>(grid, limit, P.x, P.y, i, P.radius2, [&](int j, const Near<V>* near) {
      const V dx = near->dx, dy = near->dy, r2 = near->r2;
      const Mask in = near->in;
      const V r = sqrt(r2);
      const V inv_rhoj = V::load(P.inv_rho + j);
      const V dvx = V::load(P.vx + j) - vxi, dvy = V::load(P.vy + j) - vyi;
      // (h - r) is zero in the lanes outside the particle's reach, and so
      // is every term it multiplies (every array holds finite values: the
      // safety net), so viscosity and pressure need no mask of their own.
      const V d = select(in, V(P.muller.h) - r);
      V dv_coef = viscosity_term(visc_i, inv_rhoj, d);
      V inv_sum(0.0f);
      if constexpr (kXsph || kCohesion) inv_sum = V(1.0f) / (rho_i + V::load(P.rho + j));
      // XSPH weighs by the density kernel: poly6 with Müller's pressure,
      // the cubic spline without (DFSPH's).
      if constexpr (kXsph)
        dv_coef += xsph_term(xsph_2m, inv_sum, kPressure ? P.muller.poly6_lanes(r2) : P.cubic.value_lanes(r));
      V fx = dv_coef * dvx, fy = dv_coef * dvy;
      V inv_r(0.0f);
      if constexpr (kPressure || kCohesion) inv_r = select(r2 > V(0.0f), V(1.0f) / r);
      if constexpr (kPressure) {
        const V s = pressure_over_rho2<kSymmetric>(V(pi_rho2), V(pi), V(half_inv_rhoi),
                                                   V::load(P.pr_rho + j), inv_rhoj);
        const V gp = pressure_term(m_spiky, s, d, inv_r);
        fx = fx - gp * dx;
        fy = fy - gp * dy;
      }
      if constexpr (kCohesion) {
        const V k = V(P.cohesion_k) * inv_sum;
        cohesion_term(k, mass, P.cohesion.value_lanes(r), inv_r, dx, dy, nxi - V::load(P.nx + j),
                      nyi - V::load(P.ny + j), &fx, &fy);
      }
      if constexpr (kXsph || kCohesion) {  // terms without (h - r)
        fx = select(in, fx);
        fy = select(in, fy);
      }
      ax_i += fx;
      ay_i += fy;
      store(V::load(P.ax + j) - fx, P.ax + j);
      store(V::load(P.ay + j) - fy, P.ay + j);
      if constexpr (kColour) {
        // i's sums take 1 / rho_j, j's 1 / rho_i: not antisymmetric, so
        // they have arrays of their own.
        const ColourTerms<V> c = colour_terms(select(in, V(P.radius2) - r2), colour_lap_q, dx, dy);
        lap_i += inv_rhoj * c.lap;
        cx_i += inv_rhoj * c.gx;
        cy_i += inv_rhoj * c.gy;
        store(V::load(P.clap + j) + inv_rho_i * c.lap, P.clap + j);
        store(V::load(P.cx + j) - inv_rho_i * c.gx, P.cx + j);
        store(V::load(P.cy + j) - inv_rho_i * c.gy, P.cy + j);
      }
    });
    P.ax[i] += sum(ax_i);
    P.ay[i] += sum(ay_i);
    if constexpr (kColour) {
      P.cx[i] += sum(cx_i);
      P.cy[i] += sum(cy_i);
      P.clap[i] += sum(lap_i);
    }
  }
}

// Gravity and the colour field's force (Müller 2003 eq. 19) on particles
// [begin, end), once their pair sums are complete: loops without calls or
// branches that the compiler vectorises (the force as a select). With the
// colour field, the normal arrays hold the colour gradient's sums; they
// are scaled to n itself and set the surface flags.
void gravity_and_colour(WorldState& s, bool colour, int begin, int end) {
  Particles& p = s.particles;
  const Params& P = s.params;
  const MullerKernels K(P.h);
  const float m = P.mass;
  const float* const rho_in = p.density.data();
  float* const n_x = s.normal_x.data();
  float* const n_y = s.normal_y.data();
  const float* const clap_in = s.colour_lap.data();
  float* const ax_out = p.ax.data();
  float* const ay_out = p.ay.data();
  const float grav_x = P.gravity_x, grav_y = P.gravity_y, sig = P.surface_tension;
  const float threshold = P.surface_threshold, lap0 = m * K.poly6_laplacian(0.0f);
  // The colour sums' factors (the pair loop leaves them out).
  const float grad_c = m * K.poly6_grad_c, lap_c = 3.0f * m * K.poly6_lap_c;
  TIDEPOOL_IVDEP
  for (int i = begin; i < end; ++i) {
    ax_out[i] = grav_x + ax_out[i];
    ay_out[i] = grav_y + ay_out[i];
  }
  if (!colour) return;
  TIDEPOOL_IVDEP
  for (int i = begin; i < end; ++i) {
    const float nx = grad_c * n_x[i], ny = grad_c * n_y[i], nlen = std::sqrt(nx * nx + ny * ny);
    n_x[i] = nx;  // the normal arrays hold n itself
    n_y[i] = ny;
    bool on;
    const float f = colour_field_force(sig, lap_c * clap_in[i], lap0, rho_in[i], nlen, threshold, &on);
    ax_out[i] = on ? ax_out[i] + f * nx : ax_out[i];
    ay_out[i] = on ? ay_out[i] + f * ny : ay_out[i];
  }
  // The surface flags where the force acts, by the same test on the same
  // |n| (threshold >= 0, so |n| > 0 too). Bytes: a loop of their own
  // vectorises.
  uint8_t* const flag = p.surface.data();
  for (int i = begin; i < end; ++i) flag[i] = std::sqrt(n_x[i] * n_x[i] + n_y[i] * n_y[i]) > threshold;
}

// The walls' pressure and friction (pair_terms.h) on the particles of
// [begin, end) within h of one (the density pass's flags).
void wall_forces(WorldState& s, float dt, const ForceOptions& o, bool friction, int begin, int end) {
  Particles& p = s.particles;
  const Params& P = s.params;
  const float gx = P.gravity_x, gy = P.gravity_y, gravity_len = std::sqrt(gx * gx + gy * gy);
  const uint8_t* const near = s.near_wall.data();
  for (int i = begin; i < end; ++i) {
    if (!near[i]) continue;
    float wgx, wgy, wlap;
    if (o.wall_gx) {
      wgx = o.wall_gx[i];
      wgy = o.wall_gy[i];
      wlap = o.wall_lap[i];
    } else {
      float wr;
      s.walls.density(p.x[i], p.y[i], P, s.box, s.solids, &wr, &wgx, &wgy, &wlap);
    }
    const float rhoi = p.density[i];
    if (o.pressure) wall_pressure(p.pressure[i], rhoi, wgx, wgy, &p.ax[i], &p.ay[i]);
    if (friction)
      wall_friction(P.wall_viscosity, gx, gy, gravity_len, wgx, wgy, wlap, rhoi, p.vx[i], p.vy[i], dt, &p.ax[i],
                    &p.ay[i]);
  }
}

}  // namespace

bool cohesion_on(const WorldState& s) {
  return s.params.tension == Tension::Cohesion && s.params.surface_tension > 0.0f;
}

bool colour_field_on(const WorldState& s) {
  return s.params.tension == Tension::ColourField && s.params.surface_tension > 0.0f;
}

void compute_forces(WorldState& s, float dt, const ForceOptions& o) {
  Particles& p = s.particles;
  const int n = p.size();
  const Params& P = s.params;
  const float m = P.mass, h2 = P.h * P.h, xsph = P.xsph / dt;
  p.ax.resize(static_cast<size_t>(n));
  p.ay.resize(static_cast<size_t>(n));
  const bool colour = colour_field_on(s), cohesion = cohesion_on(s);
  if (colour) s.colour_lap.resize(static_cast<size_t>(n));
  const MullerKernels K(P.h);
  PairPass pass{K, CubicKernel(P.h), CohesionKernel(P.h),
                p.x.data(), p.y.data(), p.vx.data(), p.vy.data(), p.density.data(), s.inv_rho.data(),
                p.pressure.data(), o.pressure_over_rho, s.normal_x.data(), s.normal_y.data(),
                p.ax.data(), p.ay.data(), nullptr, nullptr, nullptr,
                P.viscosity * m, xsph * 2.0f * m, 2.0f * P.rest_density * P.surface_tension,
                h2, 2.0f / 3.0f * h2, m, m * K.spiky_grad_c};
  // The colour field's gradient n = grad c (Müller 2003 eq. 17, the
  // surface normal) is summed into the normal arrays, which the density
  // pass then leaves alone (only cohesion reads them here, never with the
  // colour field).
  if (colour) {
    pass.cx = s.normal_x.data();
    pass.cy = s.normal_y.data();
    pass.clap = s.colour_lap.data();
  }
  const int terms = (o.pressure ? kTermPressure | (P.pressure_force == PressureForce::Symmetric ? kTermSymmetric : 0) : 0) |
                    (xsph > 0.0f ? kTermXsph : 0) | (colour ? kTermColour : cohesion ? kTermCohesion : 0);
  with_lanes(s.lanes, n, [&](auto lanes) {
    using V = decltype(lanes);
    with_constant<kTermSets>(terms, [&](auto t) {
      constexpr int kTerms = decltype(t)::value;
      if constexpr (valid_terms(kTerms)) {
        s.search.for_bands(s.loops, {pass.ax, pass.ay, pass.cx, pass.cy, pass.clap}, [&](int b, int e, int limit) {
          pair_forces<V, kTerms>(pass, s.search.grid(), b, e, limit);
        });
      }
    });
  });
  const float gravity_len = std::sqrt(P.gravity_x * P.gravity_x + P.gravity_y * P.gravity_y);
  const bool friction = P.wall_viscosity > 0.0f && gravity_len > 0.0f;
  s.loops.parallel(n, [&](int begin, int end) {
    gravity_and_colour(s, colour, begin, end);
    apply_pointers(s.pointers, p, dt, begin, end);
    if (o.pressure || friction) wall_forces(s, dt, o, friction, begin, end);
  });
}

}  // namespace tidepool
