// DFSPH's neighbour lists: every particle's neighbours within h with
// m grad W_ij already evaluated, filled by its density pass and read by
// every pass of its solves while positions stay put, so that a solve's
// iteration is a few multiply-adds per pair instead of a cell scan with a
// square root and a division per candidate (at 12 bytes a pair).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tidepool {

class NeighbourLists {
 public:
  // One buffer per block of kBlock particles, so blocks fill theirs in
  // parallel without knowing each other's sizes.
  static constexpr int kBlock = 512;
  struct Block {
    std::vector<int> j;         // neighbour index
    std::vector<float> gx, gy;  // m grad W_ij
  };
  // One particle's list: entries [begin, end) of its block's buffers.
  struct List {
    const int* j;
    const float* gx;
    const float* gy;
    int begin, end;
  };

  // Room for the lists of n particles in blocks().
  void resize(int n) {
    const int blocks = (n + kBlock - 1) / kBlock;
    end_.resize(static_cast<size_t>(n));
    if (blocks_.size() < static_cast<size_t>(blocks)) blocks_.resize(static_cast<size_t>(blocks));
  }
  Block& block(int b) { return blocks_[static_cast<size_t>(b)]; }
  // Particle i's list ends at entry `end` of its block's buffers.
  void set_end(int i, int end) { end_[i] = end; }

  // Calls f(i, list) for particles begin .. end - 1 in order: each block's
  // buffers are looked up once and each list starts where the one before
  // ended, rather than a lookup per particle.
  template <class F>
  void for_each(int begin, int end, F&& f) const {
    const unsigned first = static_cast<unsigned>(begin);  // shifts, not signed division
    List l{nullptr, nullptr, nullptr, first % kBlock ? end_[begin - 1] : 0, 0};
    for (int i = begin; i < end;) {
      const Block& b = blocks_[static_cast<unsigned>(i) / kBlock];
      l.j = b.j.data();
      l.gx = b.gx.data();
      l.gy = b.gy.data();
      const int block_end = std::min(end, (i / kBlock + 1) * kBlock);
      for (; i < block_end; ++i) {
        l.end = end_[i];
        f(i, l);
        l.begin = l.end;
      }
      l.begin = 0;  // the next block's first list
    }
  }

  size_t bytes() const {
    size_t bytes = end_.capacity() * sizeof(int);
    for (const Block& b : blocks_)
      bytes += b.j.capacity() * sizeof(int) + (b.gx.capacity() + b.gy.capacity()) * sizeof(float);
    return bytes;
  }

 private:
  std::vector<Block> blocks_;
  std::vector<int> end_;  // per particle: end of its list in its block's buffer
};

}  // namespace tidepool
