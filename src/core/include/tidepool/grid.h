// Tidepool — uniform grid for the neighbour search.
//
// Cells are (at least) half a support radius wide, so every neighbour of a
// point lies in the 5x5 block of cells around it: 6.25 h^2 of candidates
// instead of the 9 h^2 of a 3x3 block of h-wide cells (measured 30 % fewer
// distance tests). Points are binned by a counting sort (Green 2008,
// "Particle Simulation using CUDA"): after build() the caller reorders its
// arrays by order(), and each cell's points are then one contiguous range.
// Row-major cells make the five cells of a block row one contiguous range
// too, so a neighbour query is five index ranges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

// The pair passes need their neighbour loops inlined whole: a loop left out
// of line reaches the pass's constants through a pointer, and reloads them
// after every store the pass makes (measured in the forward passes).
#if defined(__GNUC__) || defined(__clang__)
#define TIDEPOOL_INLINE inline __attribute__((always_inline))
#else
#define TIDEPOOL_INLINE inline
#endif

namespace tidepool {

class Grid {
 public:
  // Bins n points. Cells have side >= radius / 2 and cover the points'
  // bounding box (any size, any sign of coordinates) plus two empty rings, so
  // queries never test bounds. When the box would need more than ~4n + 4096
  // cells the side grows (still correct, only slower). order()[k] is the
  // index of the point that goes to sorted position k.
  void build(const float* x, const float* y, int n, float radius);

  // build() in steps, for a caller that runs the per-point ones in
  // parallel (any split gives the same grid): the bounding box of points
  // [begin, end), merged over the splits; shape() sizes the cells for n
  // points in that box; bin() finds the cells of points [begin, end); sort()
  // counts and orders them (serial).
  struct Bounds {
    float xmin, xmax, ymin, ymax;
    Bounds merge(const Bounds& o) const;
  };
  static Bounds bounds(const float* x, const float* y, int begin, int end);
  void shape(int n, float radius, const Bounds& box);
  void bin(const float* x, const float* y, int begin, int end);
  void sort();

  const std::vector<int>& order() const { return order_; }
  float cell_size() const { return cell_; }
  int columns() const { return nx_; }
  int rows() const { return ny_; }

  // Calls f(begin, end) for the five sorted-index ranges that cover the 5x5
  // block of cells around the point at sorted position i.
  template <class F>
  TIDEPOOL_INLINE void for_each_range(int i, F&& f) const {
    const int c = sorted_cell_[i];
    block_rows(c, c, -kRing, f);
  }

  // Calls f(begin, end) for the ranges of sorted point i's block that come
  // after i: the rest of its own block row from i + 1, and the kRing rows
  // above. Every pair within the radius is in exactly one of i's and j's
  // forward ranges (for_each_pair is built on this).
  template <class F>
  TIDEPOOL_INLINE void for_each_forward_range(int i, F&& f) const {
    for_each_forward_range(i, i, f);
  }

  // Whether sorted points i and i + 1 < end share a cell row, at most one
  // cell apart: then both their forward ranges are covered by the ranges of
  // for_each_forward_range(i, i + 1), which hold only one more cell per
  // row, too far from the other point to be within the radius (cells are
  // >= radius / 2 wide). A point in the last column is never followed by
  // one in the next row's first column: the empty rings lie between.
  TIDEPOOL_INLINE bool shares_ranges_with_next(int i, int end) const {
    return i + 1 < end && sorted_cell_[i + 1] - sorted_cell_[i] <= 1;
  }

  // The forward ranges of the consecutive sorted points first .. last (one
  // cell row, as shares_ranges_with_next), as one set: from first + 1 to
  // the end of last's block row, and the rows above from first's block to
  // last's.
  template <class F>
  TIDEPOOL_INLINE void for_each_forward_range(int first, int last, F&& f) const {
    const int c0 = sorted_cell_[first], c1 = sorted_cell_[last];
    const int end0 = start_[c1 + kRing + 1];
    if (first + 1 < end0) f(first + 1, end0);
    block_rows(c0, c1, 1, f);
  }

  // Cuts the sorted points into bands of whole cell rows, each at least
  // kRing rows and min_points points (but the only one), for passes that
  // write to forward neighbours (World::for_bands): the forward ranges of a
  // band's points lie in it and the next band. cuts gets bands + 1 sorted
  // indices, from 0 to n.
  void bands(int min_points, std::vector<int>* cuts) const;

  // Visits every unordered pair (i, j), i < j in sorted order, with squared
  // distance <= radius^2, exactly once. Positions are the sorted arrays.
  template <class F>
  void for_each_pair(const float* x, const float* y, float radius, F&& f) const {
    const float r2 = radius * radius;
    for (int i = 0; i < n_; ++i) {
      for_each_forward_range(i, [&](int begin, int end) {
        for (int j = begin; j < end; ++j) {
          const float dx = x[i] - x[j], dy = y[i] - y[j];
          if (dx * dx + dy * dy <= r2) f(i, j);
        }
      });
    }
  }

  size_t bytes() const {
    return (start_.capacity() + order_.capacity() + cell_index_.capacity() +
            sorted_cell_.capacity()) *
           sizeof(int);
  }

 private:
  static constexpr int kRing = 2;  // cells per support radius, and empty rings

  // The cell of a point (clamped into the grid, inside the empty rings), the
  // grid's fields passed in: bin() keeps them in locals.
  static TIDEPOOL_INLINE int cell_of(float x, float y, float x0, float y0, float inv_cell, int nx,
                                     int ny) {
    int cx = static_cast<int>((x - x0) * inv_cell) + kRing;
    int cy = static_cast<int>((y - y0) * inv_cell) + kRing;
    cx = cx < kRing ? kRing : (cx > nx - 1 - kRing ? nx - 1 - kRing : cx);
    cy = cy < kRing ? kRing : (cy > ny - 1 - kRing ? ny - 1 - kRing : cy);
    return cy * nx + cx;
  }

  // f(begin, end) for rows row0 .. kRing of the blocks of cells c0 .. c1
  // (one row): each row's cells from c0 - kRing to c1 + kRing are one
  // sorted-index range (skipped when empty).
  template <class F>
  TIDEPOOL_INLINE void block_rows(int c0, int c1, int row0, F& f) const {
    for (int row = row0; row <= kRing; ++row) {
      const int begin = start_[c0 + row * nx_ - kRing];
      const int end = start_[c1 + row * nx_ + kRing + 1];
      if (begin < end) f(begin, end);
    }
  }
  int n_ = 0;
  int nx_ = 0, ny_ = 0;
  float x0_ = 0.0f, y0_ = 0.0f, cell_ = 1.0f, inv_cell_ = 1.0f;
  std::vector<int> start_;       // nx*ny + 1 prefix sums
  std::vector<int> order_;       // sorted position -> original index
  std::vector<int> cell_index_;  // per original point
  // Per sorted point: its cell, so that a query by sorted index costs two
  // loads instead of cell_of's arithmetic and clamping (about 40 of the
  // ~400 instructions a particle costs a pair pass, callgrind).
  std::vector<int> sorted_cell_;
};

}  // namespace tidepool
