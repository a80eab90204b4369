// The physical terms of the forces pass (forces.cpp), one function each.
//
// Every pair term is a coefficient symmetric in i and j times a vector that
// changes sign (r_ij = x_i - x_j, v_j - v_i, n_i - n_j), so the pass visits
// each pair once and adds the term to i and subtracts it from j. They work
// on SIMD lanes V (simd.h: a lane per neighbour j) and are inlined into the
// pass's one fused loop; the factors that do not depend on j are folded
// into per-particle and per-pass constants by the caller, as each comment
// says. The per-particle terms (gravity, the colour-field force, the walls)
// follow them.
#pragma once

#include <cmath>

#include "neighbour_grid.h"  // TIDEPOOL_INLINE

namespace tidepool {

// --- Pair terms -------------------------------------------------------------

// Viscosity, Müller 2003 eq. 14 over rho_i: mu m / (rho_i rho_j) lap W_ij
// (v_j - v_i), with lap W_visc = visc_lap_c (h - r) (eq. 22). Returns the
// coefficient of v_j - v_i from visc_i = mu m visc_lap_c / rho_i, 1 / rho_j
// and d = h - r (zero outside the support).
template <class V>
TIDEPOOL_INLINE V viscosity_term(V visc_i, V inv_rho_j, V d) {
  return visc_i * inv_rho_j * d;
}

// XSPH velocity smoothing, Monaghan 1989, as an acceleration over the step:
// (xsph / dt) 2 m W_ij / (rho_i + rho_j) (v_j - v_i). Returns the
// coefficient of v_j - v_i from xsph_2m = 2 m xsph / dt, 1 / (rho_i + rho_j)
// and W_ij.
template <class V>
TIDEPOOL_INLINE V xsph_term(V xsph_2m, V inv_rho_sum, V w) {
  return xsph_2m * inv_rho_sum * w;
}

// Pressure per unit density squared, symmetric in i and j.
// kSymmetric: p_i / rho_i^2 + p_j / rho_j^2 (Monaghan 1992; conserves
// momentum exactly). Otherwise Müller 2003 eq. 10 over rho_i:
// (p_i + p_j) / (2 rho_i rho_j), the arithmetic mean of the two pressures.
// From p_i / rho_i^2, p_i, 1 / (2 rho_i), p_j / rho_j and 1 / rho_j.
template <bool kSymmetric, class V>
TIDEPOOL_INLINE V pressure_over_rho2(V pi_rho2, V pi, V half_inv_rho_i, V pj_rho_j, V inv_rho_j) {
  if constexpr (kSymmetric) return pi_rho2 + pj_rho_j * inv_rho_j;
  else return (pi * inv_rho_j + pj_rho_j) * half_inv_rho_i;
}

// Pressure force, Müller 2003 eq. 10 with the spiky kernel's gradient
// (eq. 21): -m s grad W_spiky = -m spiky_grad_c s (h - r)^2 / r r_ij, for
// s from pressure_over_rho2. Returns the coefficient of -r_ij from
// m_spiky = m spiky_grad_c, d = h - r and 1 / r (0 at r = 0, where the pair
// pushes nowhere).
template <class V>
TIDEPOOL_INLINE V pressure_term(V m_spiky, V s, V d, V inv_r) {
  return m_spiky * s * d * d * inv_r;
}

// Cohesion and curvature, Akinci, Akinci & Teschner 2013, eq. 1-5, per unit
// mass: -gamma K_ij [m_j C(r) r_ij / r + (n_i - n_j)], with
// K_ij = 2 rho0 / (rho_i + rho_j) > 1 where the neighbourhood is thin,
// which strengthens the surface. From k = gamma K_ij, m, C(r), 1 / r, r_ij
// and n_i - n_j; subtracts it from (fx, fy).
template <class V>
TIDEPOOL_INLINE void cohesion_term(V k, V mass, V c, V inv_r, V dx, V dy, V dnx, V dny, V* fx, V* fy) {
  const V pull = k * mass * c * inv_r;
  *fx = *fx - (pull * dx + k * dnx);
  *fy = *fy - (pull * dy + k * dny);
}

// Colour field c = sum_j m_j / rho_j W_poly6 (Müller 2003 eq. 15): its
// gradient and Laplacian terms. With q = h^2 - r^2 both kernels are
// polynomials in q (derivatives of eq. 20): grad W = poly6_grad_c q^2 r_ij
// and lap W = poly6_lap_c q (h^2 - 3 r^2) = 3 poly6_lap_c (q^2 - 2/3 h^2 q).
// These leave out m and the kernels' constants, which the per-particle end
// applies once (colour_field_force). q is zero outside the support.
template <class V>
struct ColourTerms {
  V lap, gx, gy;
};
template <class V>
TIDEPOOL_INLINE ColourTerms<V> colour_terms(V q, V two_thirds_h2, V dx, V dy) {
  const V q2 = q * q;
  return {q2 - two_thirds_h2 * q, q2 * dx, q2 * dy};
}

// --- Per-particle terms -------------------------------------------------------

// Surface tension of the colour field, Müller 2003 eq. 19, as an
// acceleration: f / rho_i = -sigma lap(c) n / (|n| rho_i) where |n| passes
// the threshold. lap(c) includes the particle itself (seed 000 leaves it
// out): without it the force on a surface particle has the wrong size, and
// square drops spread instead of rounding up. Returns the factor of n, or
// 0 where the force is off.
inline float colour_field_force(float sigma, float lap_c_sum, float self_lap, float rho_i, float n_len,
                                float threshold, bool* on) {
  *on = n_len > threshold && n_len > 0.0f;
  return -sigma * (lap_c_sum + self_lap / rho_i) / (n_len * rho_i);
}

// The wall as mirrored fluid at the particle's own pressure (Akinci et al.
// 2012): -(p_i / rho_i^2) grad rho_b.
inline void wall_pressure(float p_i, float rho_i, float wgx, float wgy, float* ax, float* ay) {
  const float pi_rho2 = p_i / (rho_i * rho_i);
  *ax -= pi_rho2 * wgx;
  *ay -= pi_rho2 * wgy;
}

// Wall viscosity: Müller 2003 eq. 14 against wall "particles" at rest,
// mu_w / rho_i sum_b rho0 V_b (0 - v_i) lap W_ib = -(mu_w / rho_i) rho0 Psi v_i,
// on the tangential velocity only (the normal one is the pressure's job),
// and only on walls the fluid rests on (weighted by how much the wall faces
// up against gravity): it plays the part of the bed friction that slows a
// real surge, without gluing a film of fluid to vertical walls. Integrated
// implicitly, v_t / (1 + rate dt), so any strength is stable. (wgx, wgy) is
// grad rho_b (pointing into the wall), wlap = rho0 Psi, (gx, gy) gravity.
inline void wall_friction(float wall_mu, float gx, float gy, float gravity_len, float wgx, float wgy,
                          float wlap, float rho_i, float vx, float vy, float dt, float* ax, float* ay) {
  const float g2 = wgx * wgx + wgy * wgy;
  if (!(g2 > 0.0f)) return;
  // The wall gradient points into the wall: facing = -g_hat . n_hat.
  const float facing = (gx * wgx + gy * wgy) / (gravity_len * std::sqrt(g2));
  if (!(facing > 0.0f)) return;
  const float vn = (vx * wgx + vy * wgy) / g2;
  const float rate = facing * wall_mu * wlap / rho_i;
  const float damp = rate / (1.0f + rate * dt);  // implicit Euler
  *ax -= damp * (vx - vn * wgx);
  *ay -= damp * (vy - vn * wgy);
}

}  // namespace tidepool
