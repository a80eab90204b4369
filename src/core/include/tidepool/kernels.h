// Tidepool — SPH smoothing kernels in 2D.
//
// Müller, Charypar & Gross 2003 (section 3.5) print the 3D constants. In 2D
// each kernel is renormalised so that it integrates to one over the disc of
// radius h (kernels.cpp derives every constant). Gradients are returned as a
// scalar g with grad W(r_vec) = g * r_vec, which makes grad W(-r) = -grad W(r)
// exact in floating point.
#pragma once

#include <cmath>

namespace tidepool {

constexpr float kPi = 3.14159265358979323846f;

// Scalar form of the lane select the kernels' lane versions use.
inline float select(bool m, float a, float b) { return m ? a : b; }

// Müller 2003 kernels with 2D constants, for support radius h.
struct MullerKernels {
  explicit MullerKernels(float h);

  float h, h2;
  float poly6_c;       // W_poly6 = 4/(pi h^8) (h^2 - r^2)^3
  float poly6_grad_c;  // grad W_poly6 = -24/(pi h^8) (h^2 - r^2)^2 r_vec
  float poly6_lap_c;   // lap W_poly6 = -48/(pi h^8) (h^2 - r^2)(h^2 - 3 r^2)
  float spiky_c;       // W_spiky = 10/(pi h^5) (h - r)^3
  float spiky_grad_c;  // grad W_spiky = -30/(pi h^5) (h - r)^2 r_vec / r
  float visc_c;        // W_visc = 10/(3 pi h^2) (-r^3/2h^3 + r^2/h^2 + h/2r - 1)
  float visc_lap_c;    // lap W_visc = 40/(pi h^5) (h - r)

  // Density and colour field (eq. 20).
  float poly6(float r2) const {
    const float d = h2 - r2;
    return r2 < h2 ? poly6_c * d * d * d : 0.0f;
  }
  float poly6_grad(float r2) const {
    const float d = h2 - r2;
    return r2 < h2 ? poly6_grad_c * d * d : 0.0f;
  }
  float poly6_laplacian(float r2) const {
    return r2 < h2 ? poly6_lap_c * (h2 - r2) * (h2 - 3.0f * r2) : 0.0f;
  }
  // Pressure (eq. 21); r > 0.
  float spiky(float r) const {
    const float d = h - r;
    return r < h ? spiky_c * d * d * d : 0.0f;
  }
  float spiky_grad(float r) const {
    const float d = h - r;
    return (r > 0.0f && r < h) ? spiky_grad_c * d * d / r : 0.0f;
  }
  // Viscosity (eq. 22).
  float viscosity(float r) const {
    if (r <= 0.0f || r >= h) return 0.0f;
    const float q = r / h;
    return visc_c * (-0.5f * q * q * q + q * q + 0.5f / q - 1.0f);
  }
  float viscosity_laplacian(float r) const { return r < h ? visc_lap_c * (h - r) : 0.0f; }

  // Lane versions for the pair loops (V = float or a SIMD pack, see
  // src/core/simd.h): the same formulas without the range tests; the caller
  // masks out pairs at r >= h (and r = 0 for spiky_grad).
  template <class V> V poly6_lanes(V r2) const {
    const V d = V(h2) - r2;
    return V(poly6_c) * d * d * d;
  }
  // Both from d = h^2 - r^2 (a lane masked to d = 0 gets zeros), sharing d^2.
  template <class V> void poly6_and_grad_lanes(V d, V* w, V* g) const {
    const V d2 = d * d;
    *w = V(poly6_c) * d2 * d;
    *g = V(poly6_grad_c) * d2;
  }
  // (The forces pass evaluates spiky's gradient, the viscosity Laplacian
  // and the colour field's poly6 gradient and Laplacian inline, with their
  // constants folded into its own factors.)
};

// Cubic spline (Monaghan 1992) in 2D with support radius h, the kernel of
// the DFSPH solver: smooth second derivative, no clustering at rest.
//   W(q) = 40/(7 pi h^2) * { 6(q^3 - q^2) + 1   0 <= q <= 1/2
//                          { 2(1 - q)^3         1/2 < q <= 1
struct CubicKernel {
  explicit CubicKernel(float h);

  float h, h2, inv_h;
  float c;       // 40/(7 pi h^2)
  float grad_c;  // 6 c / h

  float value(float r) const { return r * inv_h < 1.0f ? value_lanes(r) : 0.0f; }
  // grad W(r_vec) = grad(r) * r_vec, finite at r = 0 (where r_vec = 0).
  float grad(float r) const { return r * inv_h < 1.0f ? grad_lanes(r) : 0.0f; }

  // Lane versions (see MullerKernels): both branches, then a select.
  template <class V> V value_lanes(V r) const {
    const V q = r * V(inv_h);
    const V d = V(1.0f) - q;
    return select(q <= V(0.5f), V(c) * (V(6.0f) * (q * q * q - q * q) + V(1.0f)),
                  V(2.0f * c) * d * d * d);
  }
  // dW/dr / r: the inner branch (3q - 2) q / r is (3q - 2) / h, which keeps
  // r = 0 finite (the self pair) with no division.
  template <class V> V grad_lanes(V r) const {
    const V q = r * V(inv_h);
    const V d = V(1.0f) - q;
    return select(q <= V(0.5f), V(grad_c * inv_h) * (V(3.0f) * q - V(2.0f)),
                  V(0.0f) - V(grad_c) * d * d / r);
  }
};


// Cohesion kernel of Akinci, Akinci & Teschner 2013 (eq. 2): attracts
// between h/2 and h, repels slightly at short range, zero at 0 and h.
//   C(r) = c * { (h - r)^3 r^3                 h/2 < r < h
//              { 2 (h - r)^3 r^3 - h^6 / 64    0 < r <= h/2
// The paper's 3D constant is 32/(pi h^9); in 2D we take 32/(pi h^8), one
// power of h fewer, so C has a 2D kernel's units [1/m^2] like W.
struct CohesionKernel {
  explicit CohesionKernel(float support)
      : h(support), c(32.0f / (kPi * std::pow(support, 8.0f))), h6_64(std::pow(support, 6.0f) / 64.0f) {}
  float h, c, h6_64;
  float value(float r) const { return r > 0.0f && r < h ? value_lanes(r) : 0.0f; }
  template <class V> V value_lanes(V r) const {
    const V d = V(h) - r;
    const V outer = d * d * d * r * r * r;
    return V(c) * select(r <= V(0.5f * h), V(2.0f) * outer - V(h6_64), outer);
  }
};

}  // namespace tidepool
