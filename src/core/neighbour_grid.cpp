#include "neighbour_grid.h"

#include <algorithm>
#include <cmath>

#include "simd.h"

namespace tidepool {

void Grid::build(const float* x, const float* y, int n, float radius) {
  shape(n, radius, bounds(x, y, 0, n));
  bin(x, y, 0, n);
  std::vector<uint32_t> rank(static_cast<size_t>(n));
  sort(rank.data(), [](int count, auto&& body) { body(0, count); });
  std::vector<float> sx(static_cast<size_t>(n)), sy(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    sx[k] = x[order_[k]];
    sy[k] = y[order_[k]];
  }
  bin(sx.data(), sy.data(), 0, n);
}

Grid::Bounds Grid::Bounds::merge(const Bounds& o) const {
  return {std::min(xmin, o.xmin), std::max(xmax, o.xmax), std::min(ymin, o.ymin),
          std::max(ymax, o.ymax)};
}

Grid::Bounds Grid::bounds(const float* x, const float* y, int begin, int end) {
  if (begin >= end) return {0.0f, 0.0f, 0.0f, 0.0f};
  // A running box per lane, merged at the end: minima and maxima are
  // exact, so this is the same box as one running box's, whose chain of
  // compares and selects no compiler vectorises.
  using V = Lanes;
  Bounds box{x[begin], x[begin], y[begin], y[begin]};
  int i = begin;
  if (end - begin >= V::kWidth) {
    V x_lo = V::load(x + begin), x_hi = x_lo, y_lo = V::load(y + begin), y_hi = y_lo;
    for (i = begin + V::kWidth; i + V::kWidth <= end; i += V::kWidth) {
      const V xs = V::load(x + i), ys = V::load(y + i);
      x_lo = select(xs < x_lo, xs, x_lo);
      x_hi = select(x_hi < xs, xs, x_hi);
      y_lo = select(ys < y_lo, ys, y_lo);
      y_hi = select(y_hi < ys, ys, y_hi);
    }
    float lanes[4][V::kWidth];
    store(x_lo, lanes[0]);
    store(x_hi, lanes[1]);
    store(y_lo, lanes[2]);
    store(y_hi, lanes[3]);
    for (int l = 0; l < V::kWidth; ++l) box = box.merge({lanes[0][l], lanes[1][l], lanes[2][l], lanes[3][l]});
  }
  for (; i < end; ++i) box = box.merge({x[i], x[i], y[i], y[i]});
  return box;
}

Grid::Shape Grid::shape_for(int n, float radius, const Bounds& box) {
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
  // Empty rings on every side: a block never leaves the grid.
  return {cw, ch, static_cast<int>(w / cw) + 2 * kReach[0] + 1, static_cast<int>(hgt / ch) + 2 * kRows + 1};
}

void Grid::shape(int n, float radius, const Bounds& box) {
  n_ = n;
  const Shape s = shape_for(n, radius, box);
  inv_w_ = 1.0f / s.cw;
  inv_h_ = 1.0f / s.ch;
  x0_ = box.xmin;
  y0_ = box.ymin;
  nx_ = s.nx;
  ny_ = s.ny;
  cell_.resize(static_cast<size_t>(n));
}

void Grid::reserve(int n, float radius, const Bounds& box) {
  const Shape s = shape_for(n, radius, box);
  const size_t cells = static_cast<size_t>(s.nx) * s.ny;
  start_.reserve(cells + 1);
  block_start_.reserve((cells + kCellBlock - 1) / kCellBlock);
}

void Grid::bin(const float* x, const float* y, int begin, int end) {
  // Local copies: the stores to cell_ could alias the members for
  // all the compiler knows, which would keep the loop from vectorising.
  const float x0 = x0_, y0 = y0_, inv_w = inv_w_, inv_h = inv_h_;
  const int nx = nx_, ny = ny_;
  int* const cells = cell_.data();
  for (int i = begin; i < end; ++i) cells[i] = cell_of(x[i], y[i], x0, y0, inv_w, inv_h, nx, ny);
}

void Grid::begin_sort() {
  const int cells = nx_ * ny_;
  // A quarter more than asked when it grows past reserve(): a splash
  // widens the box a little at a time, and each exact growth would be a
  // reallocation.
  const size_t slots = static_cast<size_t>(cells) + 1;
  if (start_.capacity() < slots) start_.reserve(slots + slots / 4);
  start_.resize(slots);
  start_[static_cast<size_t>(cells)] = n_;
  order_.resize(static_cast<size_t>(n_));
  cell_blocks_ = (cells + kCellBlock - 1) / kCellBlock;
  const size_t blocks = static_cast<size_t>(cell_blocks_);
  if (block_start_.capacity() < blocks) block_start_.reserve(blocks + blocks / 4);  // as start_
  block_start_.resize(blocks);
}

void Grid::clear_cells(int first_block, int end_block) {
  int* const start = start_.data();
  std::fill(start + first_block * kCellBlock, start + block_end(end_block - 1), 0);
}

void Grid::count(uint32_t* rank) {
  // The histogram also gives each point its rank among the earlier points
  // of its cell. Stable: equal cells keep their points' order
  // (determinism). With the ranks, place() needs no cursor per cell, so it
  // runs in parallel, and no point waits on the previous one's update of
  // a shared count (a cursor moving down each cell made the scatter a
  // chain of dependent loads and stores).
  int* const start = start_.data();
  const int* const cell = cell_.data();
  for (int i = 0; i < n_; ++i) rank[i] = static_cast<uint32_t>(start[cell[i]]++);
}

void Grid::sum_cells(int first_block, int end_block) {
  const int* const counts = start_.data();
  for (int b = first_block; b < end_block; ++b) {
    int points = 0;
    for (int c = b * kCellBlock, end = block_end(b); c < end; ++c) points += counts[c];
    block_start_[static_cast<size_t>(b)] = points;
  }
}

void Grid::offset_blocks() {
  int run = 0;
  for (int& b : block_start_) {
    const int points = b;
    b = run;
    run += points;
  }
}

void Grid::scan_cells(int first_block, int end_block) {
  int* const start = start_.data();
  for (int b = first_block; b < end_block; ++b) {
    // A running sum in a register: summing in place (start[c] += start[c -
    // 1]) waited on each store's reload.
    int run = block_start_[static_cast<size_t>(b)];
    for (int c = b * kCellBlock, end = block_end(b); c < end; ++c) {
      const int points = start[c];
      start[c] = run;
      run += points;
    }
  }
}

void Grid::place(const uint32_t* rank, int begin, int end) {
  const int* const start = start_.data();
  const int* const cell = cell_.data();
  int* const order = order_.data();
  for (int i = begin; i < end; ++i) order[start[cell[i]] + static_cast<int>(rank[i])] = i;
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
