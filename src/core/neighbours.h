// Internal: the neighbour loop shared by every pair stage.
#pragma once

#include "simd.h"
#include "neighbour_grid.h"

namespace tidepool {

// What one particle sees of a lane group: r_ij = x_i - x_j for the group's
// lanes j, its squared length, and `in` = the lanes that belong to the
// particle's ranges and lie within h (possibly none, so a pass masks every
// term with it).
template <class V>
struct Near {
  V dx, dy, r2;
  typename V::Mask in;
};

// How scan_ranges walks a particle's ranges: natively as one loop over all
// their lane groups, which saves the mispredicted exits of a loop per
// range; in wasm a loop per range, for which V8 makes faster code than for
// the one loop. Both visit the same pairs in the same order (same hashes).
#if defined(__wasm__)
constexpr bool kFlatWalk = false;
#else
constexpr bool kFlatWalk = true;
#endif

// Visits the candidates in the index ranges that ranges(visit) hands to
// visit(begin, end), V::kWidth at a time, for the C particles i .. i + C - 1
// at once, and calls
//   f(j, near)   near[s]: what particle i + s sees of lanes j .. j + kWidth - 1
// (particle i + s > i sees only the lanes after it: C > 1 is for forward
// ranges, which start at i + 1). Positions are in grid order, so each range
// is contiguous and a load of kWidth neighbours is one vector load: no
// gather, no neighbour list; with C = 2 one load, and one update of j's sums,
// serves two particles. A group that would run past `limit` (the arrays'
// end, or the end of the entries a pass may write) is shifted back, its
// lanes before `j` switched off; needs limit >= kWidth.
template <class V, int C, class Ranges, class F>
TIDEPOOL_INLINE void scan_ranges(const Ranges& ranges, int limit, const float* x, const float* y,
                                 int i, float h2, F&& f) {
  V vxi[C], vyi[C];
  for (int s = 0; s < C; ++s) {
    vxi[s] = V(x[i + s]);
    vyi[s] = V(y[i + s]);
  }
  const V vh2(h2);
  // The lane group at j of the range that ends at `end`.
  auto group = [&](int j, int end) {
    const int first = j + V::kWidth <= limit ? j : limit - V::kWidth;
    const V xj = V::load(x + first), yj = V::load(y + first);
    // Only a group at `limit` is shifted; any other starts at j.
    const typename V::Mask live = first == j ? V::first_lanes(end - j) : V::lanes(first, j, end);
    Near<V> near[C];
    bool any_in = false;
    for (int s = 0; s < C; ++s) {
      near[s].dx = vxi[s] - xj;
      near[s].dy = vyi[s] - yj;
      near[s].r2 = near[s].dx * near[s].dx + near[s].dy * near[s].dy;
      near[s].in = live & (near[s].r2 < vh2);  // F1: bools, and `&` keeps it branch-free
      if (s > 0) near[s].in = near[s].in & V::after(first, i + s);
      if (V::kWidth == 1) any_in = any_in || any(near[s].in);
    }
    // Vector groups run the body even with no lane within h: a branch on
    // that mispredicts often enough to cost more than the masked work it
    // saves. With one lane the test is the whole pair.
    if (V::kWidth > 1 || any_in) f(first, near);
  };
  if constexpr (kFlatWalk) {
    // The ranges' groups in one loop: moving on to the next range is a
    // select, not the exit of a loop per range, whose trip count (one to
    // three groups) varies from particle to particle and mispredicts.
    int begins[Grid::kMaxRanges], ends[Grid::kMaxRanges], count = 0;
    ranges([&](int begin, int end) {
      begins[count] = begin;
      ends[count] = end;
      ++count;
    });
    if (count == 0) return;
    int r = 0, j = begins[0], end = ends[0];
    while (true) {
      group(j, end);
      j += V::kWidth;
      const bool next = j >= end;
      r += next;
      if (r == count) break;
      j = next ? begins[r] : j;
      end = next ? ends[r] : end;
    }
  } else {
    ranges([&](int begin, int end) {
      for (int j = begin; j < end; j += V::kWidth) group(j, end);
    });
  }
}

// Every candidate of i: the five ranges of its cell block (neighbour_grid.h), i
// itself included; f(j, dx, dy, r2, in).
template <class V, class F>
TIDEPOOL_INLINE void for_pairs(const Grid& grid, int n, const float* x, const float* y, int i,
                               float h2, F&& f) {
  scan_ranges<V, 1>([&](const auto& visit) { grid.for_each_range(i, visit); }, n, x, y, i, h2,
                    [&](int j, const Near<V>* near) { f(j, near->dx, near->dy, near->r2, near->in); });
}

// The candidates after particle i in sorted order (Grid::for_each_forward_range),
// for C particles i .. i + C - 1 (C = 2 where Grid::shares_ranges_with_next(i)):
// each pair once, i itself never. A pass that adds a pair's term to both
// ends runs on half the candidates of for_pairs; it writes to j, so it runs
// in bands (World::for_bands). The lanes of a group outside its range are
// loaded and stored back unchanged, none at or past `limit` (the end of the
// band after i's, where i's forward ranges end).
template <class V, int C, class F>
TIDEPOOL_INLINE void for_forward_pairs(const Grid& grid, int limit, const float* x,
                                       const float* y, int i, float h2, F&& f) {
  scan_ranges<V, C>(
      [&](const auto& visit) { grid.for_each_forward_range(i, i + C - 1, visit); }, limit, x, y, i,
      h2, f);
}

// Walks entries [begin, end) of a neighbour list V::kWidth at a time:
// f(k) for entries k .. k + kWidth - 1. A list is padded to whole groups of
// the widest lanes (kListGroup) with entries that add nothing (the particle
// itself, a zero gradient), so no lane needs a mask.
constexpr int kListGroup = Lanes::kWidth;
template <class V, class F>
inline void for_list(int begin, int end, F&& f) {
  static_assert(kListGroup % V::kWidth == 0, "a list's padding must hold whole groups");
  for (int k = begin; k < end; k += V::kWidth) f(k);
}

// Runs body(V{}) with the widest lane type the build has of at most `lanes`
// lanes and at most n (F1 for the scalar path).
template <class Body>
inline void with_lanes(int lanes, int n, Body&& body) {
#if TIDEPOOL_LANES_AVX2
  if (lanes >= F8::kWidth && n >= F8::kWidth) return body(F8{});
#endif
  if (lanes >= F4::kWidth && n >= F4::kWidth) return body(F4{});
  body(F1{});
}

}  // namespace tidepool
