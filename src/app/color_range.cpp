// Tidepool app — the per-frame colour values and ranges. See color_range.h.
#include "color_range.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tidepool::app {

void particle_values(const tidepool::World& world, ColorMode mode, std::vector<float>& values) {
  const tidepool::Particles& p = world.particles();
  const int n = p.size();
  values.resize(n);
  const float rho0 = world.params().rest_density;
  switch (mode) {
    case ColorMode::Water:
    case ColorMode::Liquid:
    case ColorMode::Speed:
      for (int i = 0; i < n; ++i) values[i] = std::sqrt(p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i]);
      break;
    case ColorMode::Density:
      for (int i = 0; i < n; ++i) values[i] = p.density[i] / rho0 - 1.0f;
      break;
    case ColorMode::Pressure:
      for (int i = 0; i < n; ++i) values[i] = p.pressure[i];
      break;
    case ColorMode::Surface:
      for (int i = 0; i < n; ++i) values[i] = p.surface[i] ? 1.0f : 0.0f;
      break;
    case ColorMode::Dye:
    case ColorMode::Vorticity:
    case ColorMode::Count:
      break;
  }
}

void particle_range(const std::vector<float>& values, ColorMode mode, float& range_hi, float* lo, float* hi) {
  const int n = static_cast<int>(values.size());
  float target = 0.0f;  // the scale's upper end this frame
  // Auto-ranged modes scale to the 98th percentile (one wild particle must
  // not wash everyone else out), rising at once and falling slowly.
  if (mode == ColorMode::Speed || mode == ColorMode::Density || mode == ColorMode::Pressure) {
    std::vector<float> tmp(values);
    if (mode == ColorMode::Density)
      for (float& v : tmp) v = std::fabs(v);
    const size_t k = static_cast<size_t>(0.98 * (n - 1));
    std::nth_element(tmp.begin(), tmp.begin() + k, tmp.end());
    target = tmp[k];
    const float floor = mode == ColorMode::Speed ? 0.5f : (mode == ColorMode::Density ? 0.002f : 1e-6f);
    target = std::max(target, floor);
    range_hi = follow_range(range_hi, target);
  }
  switch (mode) {
    case ColorMode::Water: *lo = 1.5f; *hi = 6.0f; break;
    case ColorMode::Liquid: *lo = 2.0f; *hi = 6.0f; break;
    case ColorMode::Speed:
    case ColorMode::Pressure: *lo = 0.0f; *hi = range_hi; break;
    case ColorMode::Density: *lo = -range_hi; *hi = range_hi; break;
    default: *lo = 0.0f; *hi = 1.0f; break;
  }
}

// ---------------------------------------------------------------------------
// Grids
// ---------------------------------------------------------------------------
namespace {

bool is_fluid(const tidepool::FieldView& f, int c) { return !(f.solid && f.solid[c]); }

// The largest |x| but for the top 2 % (one eddy or one wall corner must not
// wash out the rest), at least `floor`.
float robust_magnitude(std::vector<float>& magnitudes, float floor) {
  if (magnitudes.empty()) return floor;
  const size_t k = static_cast<size_t>(0.98 * static_cast<double>(magnitudes.size() - 1));
  std::nth_element(magnitudes.begin(), magnitudes.begin() + static_cast<std::ptrdiff_t>(k), magnitudes.end());
  const float m = magnitudes[k];
  return std::isfinite(m) ? std::max(m, floor) : floor;
}

}  // namespace

float grid_values(const tidepool::FieldView& f, ColorMode mode, std::vector<float>& values) {
  const int nx = f.nx, ny = f.ny, cells = nx * ny;
  values.resize(static_cast<size_t>(cells));
  float floor = 1e-6f, offset = 0.0f;
  if (mode == ColorMode::Speed) {
    for (int c = 0; c < cells; ++c) values[c] = std::sqrt(f.u[c] * f.u[c] + f.v[c] * f.v[c]);
    floor = 0.05f;
  } else if (mode == ColorMode::Pressure) {
    // The projection fixes the pressure up to a constant: shown about
    // its mean over the fluid.
    double sum = 0.0;
    int fluid_cells = 0;
    for (int c = 0; c < cells; ++c)
      if (is_fluid(f, c)) {
        sum += f.pressure[c];
        ++fluid_cells;
      }
    offset = fluid_cells ? static_cast<float>(sum / fluid_cells) : 0.0f;
    for (int c = 0; c < cells; ++c) values[c] = f.pressure[c] - offset;
    floor = 1e-3f;
  } else {
    // Vorticity dv/dx - du/dy, central differences (one-sided at the walls).
    const float inv = 1.0f / std::max(f.cell, 1e-12f);
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int ip = std::min(i + 1, nx - 1), im = std::max(i - 1, 0);
        const int jp = std::min(j + 1, ny - 1), jm = std::max(j - 1, 0);
        const float dvdx = ip > im ? (f.v[j * nx + ip] - f.v[j * nx + im]) * inv / float(ip - im) : 0.0f;
        const float dudy = jp > jm ? (f.u[jp * nx + i] - f.u[jm * nx + i]) * inv / float(jp - jm) : 0.0f;
        values[j * nx + i] = dvdx - dudy;
      }
    floor = 0.05f;
  }
  return floor;
}

float grid_magnitude(const tidepool::FieldView& f, const std::vector<float>& values, float floor,
                     std::vector<float>& magnitudes) {
  const int cells = f.nx * f.ny;
  magnitudes.clear();
  for (int c = 0; c < cells; ++c)
    if (is_fluid(f, c) && std::isfinite(values[c])) magnitudes.push_back(std::fabs(values[c]));
  return robust_magnitude(magnitudes, floor);
}

}  // namespace tidepool::app
