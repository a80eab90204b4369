// Kernels: 2D normalisation, gradient symmetry and consistency, Laplacians.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "tidepool/kernels.h"

using namespace tidepool;

namespace {

// Integral over the disc of radius h of f(r), in polar coordinates with the
// midpoint rule (the viscosity kernel's h/2r singularity is integrable).
template <class F>
double integrate_disc(double h, F f, int steps = 20000) {
  double sum = 0.0;
  const double dr = h / steps;
  for (int k = 0; k < steps; ++k) {
    const double r = (k + 0.5) * dr;
    sum += f(r) * 2.0 * 3.14159265358979323846 * r * dr;
  }
  return sum;
}

}  // namespace

TEST_CASE("every kernel integrates to one over its 2D support", "[kernels]") {
  for (float h : {0.01f, 0.1f, 1.0f, 2.5f}) {
    const MullerKernels K(h);
    const CubicKernel C(h);
    CHECK(integrate_disc(h, [&](double r) { return K.poly6(float(r * r)); }) ==
          Approx(1.0).epsilon(1e-4));
    CHECK(integrate_disc(h, [&](double r) { return K.spiky(float(r)); }) ==
          Approx(1.0).epsilon(1e-4));
    CHECK(integrate_disc(h, [&](double r) { return K.viscosity(float(r)); }) ==
          Approx(1.0).epsilon(1e-3));
    CHECK(integrate_disc(h, [&](double r) { return C.value(float(r)); }) ==
          Approx(1.0).epsilon(1e-4));
    // The 3D constants the seeds print would be off by orders of magnitude.
    CHECK(std::fabs(315.0 / (64.0 * 3.14159265 * std::pow(h, 9)) * std::pow(h, 6) -
                    K.poly6(0.0f)) > 0.1 * K.poly6(0.0f));
  }
}

TEST_CASE("kernel gradients are antisymmetric and match finite differences", "[kernels]") {
  const float h = 0.2f;
  const MullerKernels K(h);
  const CubicKernel C(h);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-h, h);
  int tested = 0;
  for (int k = 0; k < 2000; ++k) {
    const float x = u(rng), y = u(rng);
    const float r2 = x * x + y * y, r = std::sqrt(r2);
    if (r >= 0.98f * h || r < 0.02f * h) continue;
    ++tested;
    // grad W(r_vec) = g r_vec with g depending on |r| only: exactly antisymmetric.
    const float gs = K.spiky_grad(r), gp = K.poly6_grad(r2), gc = C.grad(r);
    CHECK(-(gs * x) == gs * -x);
    CHECK(K.spiky_grad(std::sqrt((-x) * (-x) + (-y) * (-y))) == gs);
    // Radial derivative against central differences of W.
    const double e = 1e-4 * h;
    const double dspiky = (K.spiky(float(r + e)) - K.spiky(float(r - e))) / (2 * e);
    const double dpoly = (K.poly6(float((r + e) * (r + e))) - K.poly6(float((r - e) * (r - e)))) / (2 * e);
    const double dcubic = (C.value(float(r + e)) - C.value(float(r - e))) / (2 * e);
    CHECK(gs * r == Approx(dspiky).epsilon(2e-2).margin(1e-2 * std::fabs(K.spiky_grad_c) * h));
    CHECK(gp * r == Approx(dpoly).epsilon(2e-2).margin(1e-3 * std::fabs(K.poly6_grad_c) * h * h * h * h * h));
    CHECK(gc * r == Approx(dcubic).epsilon(2e-2).margin(1e-2 * C.grad_c));
  }
  CHECK(tested > 1000);
}

TEST_CASE("poly6 Laplacian is the 2D Laplacian of poly6", "[kernels]") {
  const float h = 1.0f;
  const MullerKernels K(h);
  for (float r : {0.1f, 0.3f, 0.5f, 0.7f, 0.9f}) {
    // lap W = W'' + W'/r in 2D.
    const double e = 1e-2;  // float kernel: a wider stencil keeps round-off small
    auto W = [&](double s) { return double(K.poly6(float(s * s))); };
    const double d1 = (W(r + e) - W(r - e)) / (2 * e);
    const double d2 = (W(r + e) - 2 * W(r) + W(r - e)) / (e * e);
    CHECK(K.poly6_laplacian(r * r) == Approx(d2 + d1 / r).epsilon(2e-2).margin(2e-2));
  }
}

TEST_CASE("viscosity Laplacian is positive and exact for quadratic fields in 2D", "[kernels]") {
  for (float h : {0.05f, 1.0f}) {
    const MullerKernels K(h);
    // int r^2 lap W dA = 4 = lap(|x|^2) in 2D: the SPH Laplacian of a quadratic
    // field is exact (the same condition gives Müller's 45/(pi h^6) in 3D).
    const double moment = integrate_disc(h, [&](double r) { return r * r * K.viscosity_laplacian(float(r)); });
    CHECK(moment == Approx(4.0).epsilon(1e-3));
    CHECK(K.viscosity_laplacian(0.5f * h) > 0.0f);
    CHECK(K.viscosity_laplacian(h) == 0.0f);
  }
}
