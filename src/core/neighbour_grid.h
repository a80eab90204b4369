// Tidepool — uniform grid for the neighbour search.
//
// Cells are (at least) half a support radius h high and an eighth of it
// wide. A point's neighbours lie in the two rows either side of its own,
// and in each row within a run of columns around its own: 17 columns
// (2.125 h) in its own row and the next ones, 15 (1.875 h) two rows away,
// which are more than h/2 above or below, so that a neighbour there is less
// than sqrt(3)/2 h to the side. That is 5.06 h^2 of candidates, against the
// 6.25 h^2 of a 5x5 block of square half-h cells and the 9 h^2 of a 3x3
// block of h-wide ones. Points are binned by a counting sort (Green 2008,
// "Particle Simulation using CUDA"): the caller reorders its arrays by
// order(), and each cell's points are then one contiguous range.
// Row-major cells make a row's run of cells one contiguous range too, so a
// neighbour query is five index ranges.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tidepool/array.h"

// The pair passes need their neighbour loops inlined whole: a loop left out
// of line reaches the pass's constants through a pointer, and reloads them
// after every store the pass makes.
#if defined(__GNUC__) || defined(__clang__)
#define TIDEPOOL_INLINE inline __attribute__((always_inline))
#else
#define TIDEPOOL_INLINE inline
#endif

namespace tidepool {

namespace grid_detail {
// The least r with (r / columns)^2 >= 3/4 (Grid::kReach).
constexpr int least_reach(int columns, int r = 0) {
  return 4 * r * r >= 3 * columns * columns ? r : least_reach(columns, r + 1);
}
}  // namespace grid_detail

class Grid {
 public:
  // Bins n points. Cells (radius / 2 high, radius / 8 wide) cover the
  // points' bounding box (any size, any sign of coordinates) plus empty rings
  // as wide as a query reaches, so queries never test bounds. When the box
  // would need more than ~16n + 16384 cells they grow (still correct, only
  // slower). order()[k] is the index of the point that goes to sorted
  // position k. For callers that do not reorder their own arrays (tests):
  // build() bins the sorted points too (bin() below).
  void build(const float* x, const float* y, int n, float radius);

  // build() in steps, for a caller that runs the per-point ones in
  // parallel (any split gives the same grid): the bounding box of points
  // [begin, end), merged over the splits; shape() sizes the cells for n
  // points in that box; bin() finds the cells of points [begin, end);
  // count() counts them per cell and gives each its rank within its cell
  // (serial), and place() puts points [begin, end) at their sorted
  // positions. Then the caller reorders its arrays by
  // order() and bins the sorted points again, which the queries read: one
  // array of cells serves both (4 bytes a point fewer than a second array,
  // for a vectorised pass).
  struct Bounds {
    float xmin, xmax, ymin, ymax;
    Bounds merge(const Bounds& o) const;
  };
  static Bounds bounds(const float* x, const float* y, int begin, int end);
  void shape(int n, float radius, const Bounds& box);
  // Room for the cells of n points in any box within `box` (a container the
  // points stay in), so that the cells never outgrow it: the cell starts
  // are most of the grid's memory, and growing as the points spread would
  // leave up to a quarter of slack (begin_sort()).
  void reserve(int n, float radius, const Bounds& box);
  void bin(const float* x, const float* y, int begin, int end);
  // Sorts the binned points by cell: a stable counting sort (Green 2008)
  // that fills order() and the cell starts, in passes of which all but
  // the histogram run over a split of their own range: parallel(n, body)
  // calls body(begin, end) for pieces that cover [0, n) once, in any
  // order or at once. rank: n entries of the caller's scratch.
  template <class Parallel>
  void sort(uint32_t* rank, Parallel&& parallel) {
    begin_sort();
    parallel(cell_blocks_, [&](int b0, int b1) { clear_cells(b0, b1); });
    count(rank);
    parallel(cell_blocks_, [&](int b0, int b1) { sum_cells(b0, b1); });
    offset_blocks();
    parallel(cell_blocks_, [&](int b0, int b1) { scan_cells(b0, b1); });
    parallel(n_, [&](int begin, int end) { place(rank, begin, end); });
  }

  const Array<int>& order() const { return order_; }
  // The blocks of cells sort() splits its cell passes into (the last one's
  // cells may be fewer than kCellBlock).
  static constexpr int kCellBlock = 4096;
  int cell_blocks() const { return cell_blocks_; }

  // Calls f(begin, end) for the five sorted-index ranges, one per cell row,
  // that hold every point within the radius of the point at sorted position i.
  template <class F>
  TIDEPOOL_INLINE void for_each_range(int i, F&& f) const {
    const int c = cell_[i];
    block_rows(c, c, -kRows, f);
  }

  // Calls f(begin, end) for the ranges of sorted point i's block that come
  // after i: the rest of its own block row from i + 1, and the kRows rows
  // above. Every pair within the radius is in exactly one of i's and j's
  // forward ranges (for_each_pair is built on this).
  template <class F>
  TIDEPOOL_INLINE void for_each_forward_range(int i, F&& f) const {
    for_each_forward_range(i, i, f);
  }

  // The sorted-index range [*begin, *end) of the cell of sorted point i.
  void cell_range(int i, int* begin, int* end) const {
    *begin = start_[cell_[i]];
    *end = start_[cell_[i] + 1];
  }

  // Whether sorted points i and i + 1 < end share a cell row, at most
  // kPairColumns columns apart (half a radius): then both their forward
  // ranges are covered by the ranges of for_each_forward_range(i, i + 1),
  // which hold only those columns more per row. A point in the last column
  // is never followed by one in the next row's first column: the empty
  // rings lie between.
  TIDEPOOL_INLINE bool shares_ranges_with_next(int i, int end) const {
    return i + 1 < end && cell_[i + 1] - cell_[i] <= kPairColumns;
  }

  // The forward ranges of the consecutive sorted points first .. last (one
  // cell row, as shares_ranges_with_next), as one set: from first + 1 to
  // the end of last's block row, and the rows above from first's block to
  // last's.
  template <class F>
  TIDEPOOL_INLINE void for_each_forward_range(int first, int last, F&& f) const {
    const int c0 = cell_[first], c1 = cell_[last];
    const int end0 = start_[c1 + kReach[0] + 1];
    if (first + 1 < end0) f(first + 1, end0);
    // The rows above, unrolled: the forward passes (Müller's) then keep
    // the row offsets in registers instead of a spilled row counter and a
    // multiply by nx_. The five rows of for_each_range stay a loop:
    // unrolled, DFSPH's density pass, which builds its lists there, grows
    // by more than it saves.
    block_rows<true>(c0, c1, 1, f);
  }

  // Cuts the sorted points into bands of whole cell rows, each at least
  // kRows rows and min_points points (but the only one), for passes that
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
    return (start_.capacity() + block_start_.capacity()) * sizeof(int) + bytes_of(order_) + bytes_of(cell_);
  }

 private:
  // Rows are (at least) half a radius high, so a point's neighbours lie in
  // the kRows rows either side of its own, and there are kRows empty rows at
  // the top and bottom.
  static constexpr int kRows = 2;
  // Columns are (at least) radius / kColumns wide. kReach[d] columns either
  // side of a point's can hold a neighbour d rows away: kColumns for d <= 1;
  // for d = 2 the rows are more than radius / 2 apart, so the columns within
  // sqrt(1 - 1/4) radius, the least R with (R / kColumns)^2 >= 3/4.
  static constexpr int kColumns = 8;
  static constexpr int kReach[kRows + 1] = {kColumns, kColumns, grid_detail::least_reach(kColumns)};
  // Sorted neighbours at most this many columns apart share their ranges
  // (shares_ranges_with_next): half a radius.
  static constexpr int kPairColumns = kColumns / 2;
  static_assert(kPairColumns <= 2 * kReach[0], "two rows' cells are 2 kReach[0] + 1 apart or more");

 public:
  // The most ranges a query hands to its visitor (one per block row).
  static constexpr int kMaxRanges = 2 * kRows + 1;

 private:
  struct Shape {
    float cw, ch;  // cell width and height
    int nx, ny;    // cells across and up, the empty rings included
  };
  static Shape shape_for(int n, float radius, const Bounds& box);

  // sort()'s passes. The cells are cut into blocks of kCellBlock: each
  // block's counts are zeroed (clear_cells) and, after the histogram
  // (count: each point's rank among the earlier points of its cell),
  // summed (sum_cells); the sums become the blocks' first indices
  // (offset_blocks, serial over the blocks), and each block turns its
  // counts into starts from there (scan_cells). place() puts points
  // [begin, end) at their sorted positions.
  int block_end(int b) const { return std::min(nx_ * ny_, (b + 1) * kCellBlock); }  // its cells' end
  void begin_sort();
  void clear_cells(int first_block, int end_block);
  void count(uint32_t* rank);
  void sum_cells(int first_block, int end_block);
  void offset_blocks();
  void scan_cells(int first_block, int end_block);
  void place(const uint32_t* rank, int begin, int end);

  // The cell of a point (clamped into the grid, inside the empty rings), the
  // grid's fields passed in: bin() keeps them in locals.
  static TIDEPOOL_INLINE int cell_of(float x, float y, float x0, float y0, float inv_w, float inv_h,
                                     int nx, int ny) {
    constexpr int ring = kReach[0];
    int cx = static_cast<int>((x - x0) * inv_w) + ring;
    int cy = static_cast<int>((y - y0) * inv_h) + kRows;
    cx = cx < ring ? ring : (cx > nx - 1 - ring ? nx - 1 - ring : cx);
    cy = cy < kRows ? kRows : (cy > ny - 1 - kRows ? ny - 1 - kRows : cy);
    return cy * nx + cx;
  }

  // f(begin, end) for rows row0 .. kRows of the blocks of cells c0 .. c1
  // (one row): each row's cells from c0 - reach to c1 + reach are one
  // sorted-index range (skipped when empty); kUnrolled: the loop unrolled.
  template <bool kUnrolled = false, class F>
  TIDEPOOL_INLINE void block_rows(int c0, int c1, int row0, F& f) const {
    if constexpr (kUnrolled) {
#pragma GCC unroll 4
      for (int row = row0; row <= kRows; ++row) block_row(c0, c1, row, f);
    } else {
      for (int row = row0; row <= kRows; ++row) block_row(c0, c1, row, f);
    }
  }
  template <class F>
  TIDEPOOL_INLINE void block_row(int c0, int c1, int row, F& f) const {
    const int reach = kReach[row < 0 ? -row : row];
    const int begin = start_[c0 + row * nx_ - reach];
    const int end = start_[c1 + row * nx_ + reach + 1];
    if (begin < end) f(begin, end);
  }
  int n_ = 0;
  int nx_ = 0, ny_ = 0;
  float x0_ = 0.0f, y0_ = 0.0f, inv_w_ = 1.0f, inv_h_ = 1.0f;
  std::vector<int> start_;       // nx*ny + 1 prefix sums
  int cell_blocks_ = 0;          // sort(): blocks of kCellBlock cells
  std::vector<int> block_start_; // sort(): each block's points, then its first index
  Array<int> order_;             // sorted position -> original index
  // Per point, its cell: by original index for count() and place(), then by sorted index
  // (the caller's second bin()), so that a query costs two loads instead of
  // cell_of's arithmetic and clamping.
  Array<int> cell_;
};

}  // namespace tidepool
