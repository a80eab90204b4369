// 2D normalisation of the Müller 2003 kernels and the cubic spline.
//
// A radial kernel W(r) = C f(r) integrates to one in 2D when
//   C * 2 pi * int_0^h f(r) r dr = 1.
//  poly6:  int (h^2 - r^2)^3 r dr = h^8 / 8              -> C = 4 / (pi h^8)
//  spiky:  int (h - r)^3 r dr = h^5 / 20                 -> C = 10 / (pi h^5)
//  visc:   int (-r^3/2h^3 + r^2/h^2 + h/2r - 1) r dr = 3h^2/20 -> C = 10/(3 pi h^2)
//  cubic:  Monaghan's 2D factor                          -> C = 40 / (7 pi h^2)
//
// Derivatives in 2D: lap W = W'' + W'/r (3D has 2W'/r).
//  poly6: W' = -6 C r (h^2-r^2)^2, so grad W = -6 C (h^2-r^2)^2 r_vec and
//         lap W = -12 C (h^2 - r^2)(h^2 - 3 r^2).
//  spiky: W' = -3 C (h - r)^2, grad W = -3 C (h - r)^2 r_vec / r.
//  visc:  the true 2D Laplacian of Müller's viscosity kernel keeps a h/(2 r^3)
//         term (that kernel was built so that its *3D* Laplacian is linear).
//         We keep the linear form lap W = C'(h - r) that eq. 22 relies on
//         (positive everywhere, so viscosity only damps) and fix C' the same
//         way 45/(pi h^6) is fixed in 3D: the SPH Laplacian must be exact for
//         a quadratic field, int r^2 lap W dA = 2d = 4 in 2D:
//         C' 2 pi int_0^h r^3 (h - r) dr = C' pi h^5 / 10 = 4 -> C' = 40/(pi h^5).
//         (In 3D the same condition, = 6, gives 45/(pi h^6).)
#include "tidepool/kernels.h"

namespace tidepool {

MullerKernels::MullerKernels(float support) : h(support), h2(support * support) {
  const float h5 = h2 * h2 * h;
  const float h8 = h2 * h2 * h2 * h2;
  poly6_c = 4.0f / (kPi * h8);
  poly6_grad_c = -6.0f * poly6_c;
  poly6_lap_c = -12.0f * poly6_c;
  spiky_c = 10.0f / (kPi * h5);
  spiky_grad_c = -3.0f * spiky_c;
  visc_c = 10.0f / (3.0f * kPi * h2);
  visc_lap_c = 40.0f / (kPi * h5);
}

CubicKernel::CubicKernel(float support)
    : h(support), h2(support * support), inv_h(1.0f / support) {
  c = 40.0f / (7.0f * kPi * h2);
  // dW/dr = (c/h) dW/dq with dW/dq = 6 q (3q - 2) or -6 (1 - q)^2; grad()
  // multiplies q (3q - 2) or -(1 - q)^2 by 6c/h.
  grad_c = 6.0f * c * inv_h;
}

}  // namespace tidepool
