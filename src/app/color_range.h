// Tidepool app — the values the renderer colours by and their ranges,
// computed from the data each frame (color_range.cpp). Free of GL: the
// renderer uploads what these fill.
#pragma once

#include <vector>

#include "renderer.h"
#include "tidepool/world.h"

namespace tidepool::app {

// One value per particle for `mode` (speed, density less one, pressure, the
// surface flag); `values` is resized to the count, and left as it was for
// modes particles do not show.
void particle_values(const tidepool::World& world, ColorMode mode, std::vector<float>& values);
// The range [lo, hi] `mode` maps onto its colours. The auto-ranged modes
// (speed, density, pressure) move `range_hi`, their smoothed upper end,
// toward this frame's 98th percentile of `values` (at least a floor).
void particle_range(const std::vector<float>& values, ColorMode mode, float& range_hi, float* lo, float* hi);
// One value per cell of a grid for `mode` (speed, pressure about its mean
// over the fluid, or vorticity) into `values`; returns the least upper end
// its range may have.
float grid_values(const tidepool::FieldView& f, ColorMode mode, std::vector<float>& values);
// The upper end of a grid's range this frame: the robust magnitude of
// `values` over its fluid cells (finite ones), at least `floor`.
// `magnitudes` is scratch.
float grid_magnitude(const tidepool::FieldView& f, const std::vector<float>& values, float floor,
                     std::vector<float>& magnitudes);
// A range's upper end after a frame whose own is `target`: it rises at once
// and falls slowly, so the colours do not flicker.
inline float follow_range(float range, float target) {
  return target > range ? target : 0.97f * range + 0.03f * target;
}

}  // namespace tidepool::app
