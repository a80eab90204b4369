// Internal: the neighbour loop shared by every stage.
#pragma once

#include "tidepool/grid.h"

namespace tidepool {

// Visits every particle j within h of particle i (i itself included), passing
// r_ij = x_i - x_j and its squared length. Positions are in grid order, so
// the three ranges of a query are contiguous in memory.
template <class F>
inline void for_neighbours(const Grid& grid, const float* x, const float* y, int i, float h2,
                           F&& f) {
  const float xi = x[i], yi = y[i];
  grid.for_each_range(xi, yi, [&](int begin, int end) {
    for (int j = begin; j < end; ++j) {
      const float dx = xi - x[j], dy = yi - y[j];
      const float r2 = dx * dx + dy * dy;
      if (r2 < h2) f(j, dx, dy, r2);
    }
  });
}

}  // namespace tidepool
