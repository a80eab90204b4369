// Particles dealt into bands of a grid's rows, so that a scatter from the
// particles to the grid (FLIP's particles-to-grid transfer) runs on threads
// and still sums each grid entry's terms in the particles' order: band b
// lists, in index order, every particle whose stencil reaches one of its
// rows, and its loop adds only to those rows. Each entry then takes the
// same terms in the same order as one loop over all particles would, for
// any number of bands and threads: the result is bit-identical.
//
// The bands' edges are cut where the particles' first rows divide into
// equal counts, so that water lying in a few rows of a tall tank still
// splits evenly. The dealing is itself parallel, over fixed blocks of
// particles: per block a count of first and last rows, then each block
// writes its particles at offsets the counts give.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "loops.h"

namespace tidepool {

class RowBands {
 public:
  // Deals particles [0, n) into at most `most` bands of rows [0, nrows):
  // rows(k) gives particle k's stencil rows {lo, hi}, 0 <= lo <= hi < nrows.
  template <class Rows>
  void deal(int n, int nrows, int most, const Loops& loops, const Rows& rows);

  int bands() const { return static_cast<int>(edge_.size()) - 1; }
  // Band b's rows: [first_row(b), first_row(b + 1)).
  int first_row(int b) const { return edge_[static_cast<size_t>(b)]; }
  // Band b's particles, in index order (with one band, none are listed:
  // it holds them all).
  const int* begin(int b) const { return list_.data() + start_[static_cast<size_t>(b)]; }
  const int* end(int b) const { return list_.data() + start_[static_cast<size_t>(b) + 1]; }

 private:
  static constexpr int kBlock = 4096;  // particles per block of the dealing
  std::vector<uint32_t> rows_;         // per particle: lo | hi << 16
  std::vector<int> first_, last_;      // per block and row: particles whose stencil begins, ends there
  std::vector<int> edge_;              // bands + 1 row edges
  std::vector<int> band_of_;           // per row
  std::vector<int> cursor_;            // per band and block: where the block's next particle goes
  std::vector<int> start_;             // bands + 1 offsets into list_
  std::vector<int> list_;
};

template <class Rows>
void RowBands::deal(int n, int nrows, int most, const Loops& loops, const Rows& rows) {
  const int bands = std::max(1, std::min({most, nrows, n}));
  if (bands == 1) {  // every particle in order: the caller needs no list
    edge_ = {0, nrows};
    start_ = {0, 0};
    return;
  }
  const int blocks = (n + kBlock - 1) / kBlock;
  const size_t counts = static_cast<size_t>(blocks) * nrows;
  rows_.resize(static_cast<size_t>(n));
  first_.assign(counts, 0);
  last_.assign(counts, 0);
  loops.parallel(blocks, [&](int b0, int b1) {
    for (int b = b0; b < b1; ++b) {
      int* first = &first_[static_cast<size_t>(b) * nrows];
      int* last = &last_[static_cast<size_t>(b) * nrows];
      for (int k = b * kBlock; k < std::min(n, (b + 1) * kBlock); ++k) {
        const std::pair<int, int> r = rows(k);
        rows_[static_cast<size_t>(k)] = static_cast<uint32_t>(r.first) | static_cast<uint32_t>(r.second) << 16;
        ++first[r.first];
        ++last[r.second];
      }
    }
  });
  // The edges: band b begins at the first row by which b n / bands
  // particles have begun.
  edge_.assign(1, 0);
  band_of_.resize(static_cast<size_t>(nrows));
  int64_t begun = 0;
  for (int r = 0; r < nrows; ++r) {
    const int band = static_cast<int>(edge_.size()) - 1;
    band_of_[static_cast<size_t>(r)] = band;
    for (int b = 0; b < blocks; ++b) begun += first_[static_cast<size_t>(b) * nrows + r];
    if (band + 1 < bands && begun * bands >= int64_t(band + 1) * n && r + 1 < nrows) edge_.push_back(r + 1);
  }
  edge_.push_back(nrows);
  const int made = static_cast<int>(edge_.size()) - 1;
  // A block's particles in band c: those that begin in band c or before,
  // less those that end before it.
  cursor_.assign(static_cast<size_t>(made) * blocks, 0);
  for (int b = 0; b < blocks; ++b) {
    int began = 0, ended = 0, r = 0;
    for (int c = 0; c < made; ++c) {
      for (; r < edge_[static_cast<size_t>(c) + 1]; ++r) began += first_[static_cast<size_t>(b) * nrows + r];
      cursor_[static_cast<size_t>(c) * blocks + b] = began - ended;
      for (int q = edge_[static_cast<size_t>(c)]; q < edge_[static_cast<size_t>(c) + 1]; ++q)
        ended += last_[static_cast<size_t>(b) * nrows + q];
    }
  }
  // Counts to offsets, band by band and block by block within a band.
  start_.assign(static_cast<size_t>(made) + 1, 0);
  int offset = 0;
  for (int c = 0; c < made; ++c) {
    start_[static_cast<size_t>(c)] = offset;
    for (int b = 0; b < blocks; ++b) {
      const int count = cursor_[static_cast<size_t>(c) * blocks + b];
      cursor_[static_cast<size_t>(c) * blocks + b] = offset;
      offset += count;
    }
  }
  start_[static_cast<size_t>(made)] = offset;
  list_.resize(static_cast<size_t>(offset));
  loops.parallel(blocks, [&](int b0, int b1) {
    for (int b = b0; b < b1; ++b)
      for (int k = b * kBlock; k < std::min(n, (b + 1) * kBlock); ++k) {
        const uint32_t r = rows_[static_cast<size_t>(k)];
        const int lo = band_of_[r & 0xffffu], hi = band_of_[r >> 16];
        for (int c = lo; c <= hi; ++c) list_[static_cast<size_t>(cursor_[static_cast<size_t>(c) * blocks + b]++)] = k;
      }
  });
}

}  // namespace tidepool
