#include "tidepool/grid.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

void Grid::build(const float* x, const float* y, int n, float radius) {
  shape(n, radius, bounds(x, y, 0, n));
  bin(x, y, 0, n);
  sort();
}

Grid::Bounds Grid::Bounds::merge(const Bounds& o) const {
  return {std::min(xmin, o.xmin), std::max(xmax, o.xmax), std::min(ymin, o.ymin),
          std::max(ymax, o.ymax)};
}

Grid::Bounds Grid::bounds(const float* x, const float* y, int begin, int end) {
  if (begin >= end) return {0.0f, 0.0f, 0.0f, 0.0f};
  float xmin = x[begin], xmax = x[begin], ymin = y[begin], ymax = y[begin];
  for (int i = begin + 1; i < end; ++i) {
    xmin = std::min(xmin, x[i]);
    xmax = std::max(xmax, x[i]);
    ymin = std::min(ymin, y[i]);
    ymax = std::max(ymax, y[i]);
  }
  return {xmin, xmax, ymin, ymax};
}

void Grid::shape(int n, float radius, const Bounds& box) {
  n_ = n;
  // A hair more than radius / kRows high and radius / kColumns wide: a pair
  // at distance exactly `radius` whose cell coordinates round apart still
  // lands within reach. Cells grow in both directions alike when the box
  // would need too many (a block then covers more than the radius).
  float cw = radius / kColumns * 1.0001f, ch = radius / kRows * 1.0001f;
  const double max_cells = 16.0 * n + 16384.0;
  const double w = static_cast<double>(box.xmax) - box.xmin;
  const double hgt = static_cast<double>(box.ymax) - box.ymin;
  while ((w / cw + 2 * kReach[0] + 1.0) * (hgt / ch + 2 * kRows + 1.0) > max_cells) {
    cw *= 2.0f;
    ch *= 2.0f;
  }
  inv_w_ = 1.0f / cw;
  inv_h_ = 1.0f / ch;
  x0_ = box.xmin;
  y0_ = box.ymin;
  // Empty rings on every side: a block never leaves the grid.
  nx_ = static_cast<int>(w / cw) + 2 * kReach[0] + 1;
  ny_ = static_cast<int>(hgt / ch) + 2 * kRows + 1;
  cell_index_.resize(static_cast<size_t>(n));
}

void Grid::bin(const float* x, const float* y, int begin, int end) {
  // Local copies: the stores to cell_index_ could alias the members for
  // all the compiler knows, which would keep the loop from vectorising.
  const float x0 = x0_, y0 = y0_, inv_w = inv_w_, inv_h = inv_h_;
  const int nx = nx_, ny = ny_;
  int* const cells = cell_index_.data();
  for (int i = begin; i < end; ++i) cells[i] = cell_of(x[i], y[i], x0, y0, inv_w, inv_h, nx, ny);
}

void Grid::sort() {
  const int n = n_, cells = nx_ * ny_;
  // Counting sort: histogram, prefix sum, scatter. Stable, so equal
  // cells keep their previous relative order (determinism).
  // A quarter more than asked when it grows: a splash widens the box a
  // little at a time, and each exact growth would be a reallocation.
  const size_t slots = static_cast<size_t>(cells) + 1;
  if (start_.capacity() < slots) start_.reserve(slots + slots / 4);
  start_.assign(slots, 0);
  for (int i = 0; i < n; ++i) ++start_[cell_index_[i]];
  for (int c = 1; c < cells; ++c) start_[c] += start_[c - 1];
  // start_[c] is now the end of cell c. Scattering from the last point
  // back, with a cursor moving down, keeps each cell's points in order and
  // leaves start_[c] at the cell's start.
  order_.resize(static_cast<size_t>(n));
  sorted_cell_.resize(static_cast<size_t>(n));
  for (int i = n - 1; i >= 0; --i) {
    const int c = cell_index_[i];
    const int k = --start_[c];
    order_[k] = i;
    sorted_cell_[k] = c;
  }
  start_[cells] = n;
}

void Grid::bands(int min_points, std::vector<int>* cuts) const {
  // Reserved with slack like start_: the row count creeps up in a splash.
  const size_t most = static_cast<size_t>(ny_ / kRows + 2);
  if (cuts->capacity() < most) cuts->reserve(most + most / 4);
  cuts->assign(1, 0);
  int rows = 0;
  for (int row = 0; row < ny_ && cuts->back() < n_; ++row) {
    const int end = start_[static_cast<size_t>(row + 1) * nx_];
    if (++rows >= kRows && end - cuts->back() >= min_points) {
      cuts->push_back(end);
      rows = 0;
    }
  }
  // A short remainder joins the last band.
  if (cuts->back() < n_) {
    if (cuts->size() > 1) cuts->back() = n_;
    else cuts->push_back(n_);
  }
}

}  // namespace tidepool
