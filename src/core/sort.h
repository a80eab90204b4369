// The neighbour search's sort: every step, particles are binned into the
// grid's cells by a counting sort and every per-particle array is reordered
// by cell, so that a cell's particles are one contiguous range (neighbour_grid.h) and
// the pair passes walk memory in order. The sorted particles are then cut
// into bands of cell rows for the pair passes that add to both ends of a
// pair (for_bands).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "carried.h"
#include "neighbour_grid.h"
#include "loops.h"
#include "tidepool/types.h"

namespace tidepool {

class NeighbourSearch {
 public:
  // Sorts the particles by cell: the grid's cells, and every array that
  // lives across steps reordered (x, y, vx, vy, id and the solver's
  // `carried` fields). The other Particles fields are
  // rewritten in every step before anything reads them, so they receive
  // the reordered arrays and are swapped in. near_wall gets 1 for the
  // particles within h of a wall of `box`, or all of them when `obstacles`.
  void sort(Particles& p, const Carried& carried, float h, const Box& box,
            bool obstacles, const Loops& loops, std::vector<uint8_t>* near_wall);

  const Grid& grid() const { return grid_; }
  // Sorted index where each band starts, then n.
  const std::vector<int>& bands() const { return bands_; }
  size_t bytes() const;

  // Runs body(begin, end, limit) over the sorted particles band by band
  // (Grid::bands), for the pair passes that visit each pair once and add to
  // both ends (neighbours.h, for_forward_pairs): a band's forward ranges lie
  // in it and the next band, which ends at `limit`, and its lane groups stay
  // below `limit` too (they are shifted back there, as at the arrays' end).
  // So bands two apart never touch the same entry: the even bands run at
  // once, then the odd ones, and each entry receives its sums in one order,
  // whatever the thread count.
  // The arrays in `sums` (null ones skipped) are the pass's sums: an even
  // band is the first to write to its entries and to the odd band's after
  // it, so it zeroes both just before its body runs, while they are in its
  // core's cache, instead of a loop of its own over all of them first.
  // A round's pieces are cut by its particles, not by its bands: a band
  // goes to the piece its first particle falls in (band_offset_), so that
  // the dense bands at the bottom of a pool do not leave one thread with
  // most of the work.
  template <class Body>
  void for_bands(const Loops& loops, std::initializer_list<float*> sums, const Body& body) const {
    const int bands = static_cast<int>(bands_.size()) - 1;
    for (int round = 0; round < 2; ++round) {
      const int count = (bands - round + 1) / 2;  // this round's bands, b = 2k + round
      if (count == 0) continue;
      const int last = 2 * (count - 1) + round;
      const int points = band_offset_[last] + bands_[last + 1] - bands_[last];
      // The first of this round's bands whose first particle is at or after `at`.
      auto first_band = [&](int at) {
        int lo = 0, hi = count;
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          if (band_offset_[2 * mid + round] < at) lo = mid + 1;
          else hi = mid;
        }
        return lo;
      };
      loops.parallel(points, [&](int begin, int end) {
        const int k0 = first_band(begin), k1 = first_band(end);
        for (int k = k0; k < k1; ++k) {
          const int b = 2 * k + round;
          const int limit = bands_[std::min(b + 2, bands)];
          if (round == 0) {
            for (float* a : sums)
              if (a) std::fill(a + bands_[b], a + limit, 0.0f);
          }
          body(bands_[b], bands_[b + 1], limit);
        }
      });
    }
  }

 private:
  void cut_bands();
  void reorder(Particles& p, const Carried& carried, const Loops& loops);

  Grid grid_;
  Array<uint32_t> tmp_id_;          // the reordered ids
  std::vector<int> bands_;          // for_bands: sorted indices where bands start, then n
  std::vector<int> band_offset_;    // for_bands: per band, its round's particles before it
  std::vector<Grid::Bounds> block_bounds_;  // the bounding box's per-block values
};

}  // namespace tidepool
