// Loops over particles and over a grid's rows through the caller's
// ParallelFor hook, and reductions whose result does not depend on the
// thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "tidepool/hooks.h"

namespace tidepool {

// Calls f(std::integral_constant<int, v>{}) for a run-time v in [0, N): turns
// a set of switches into a compile-time one, one instance of f per value.
template <int N, class F>
void with_constant(int v, F&& f) {
  if constexpr (N > 0) {
    if (v == N - 1) return f(std::integral_constant<int, N - 1>{});
    with_constant<N - 1>(v, f);
  }
}

// The bits of v >= 0 (or +inf; 0 for NaN): they order as the values do, so
// the largest of many values is an integer maximum, which the compiler
// vectorises where a float one (std::max, which skips NaN) does not. NaN's
// bits (above infinity's) are masked to 0 with a mask, not a select: GCC
// vectorises no select inside a maximum.
inline uint32_t order_bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits & (0u - static_cast<uint32_t>(bits <= 0x7f800000u));
}
inline float from_order_bits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

class Loops {
 public:
  void set_hook(const ParallelFor& pf) { hook_ = pf; }
  const ParallelFor& hook() const { return hook_; }

  // The least elements a chunk of a light loop is given (ParallelFor::grain).
  static constexpr int kGrain = 2048;

  // Runs body(begin, end) over [0, n) through the caller's hook, or inline.
  // Each index stands for `weight` light elements (a row's cells, 1 for a
  // particle's transfer): indices are grouped into runs of at least the
  // grain's elements, and a loop of fewer than two runs, a coarse multigrid
  // level or a small tank, runs inline. The default weight is the grain: an
  // index heavy enough to be a chunk on its own (a block of a reduction, a
  // particle's pair sums), as every loop was before grouping.
  template <class Body>
  void parallel(int n, const Body& body, int weight = kGrain) const {
    const int64_t runs = this->runs(n, weight);
    if (runs < 2) {
      body(0, n);
      return;
    }
    // Run r covers [r n / runs, (r + 1) n / runs).
    struct Grouped {
      const Body* body;
      int64_t n, runs;
    } grouped{&body, n, runs};
    hook_.run(
        static_cast<int>(runs),
        [](int begin, int end, void* ctx) {
          const Grouped& g = *static_cast<const Grouped*>(ctx);
          (*g.body)(static_cast<int>(begin * g.n / g.runs), static_cast<int>(end * g.n / g.runs));
        },
        &grouped, hook_.user);
  }
  // std::copy and std::fill of n floats, split over the threads.
  void copy(const float* from, int n, float* to) const {
    parallel(n, [&](int begin, int end) { std::copy(from + begin, from + end, to + begin); }, 1);
  }
  void fill(float* to, int n, float value) const {
    parallel(n, [&](int begin, int end) { std::fill(to + begin, to + end, value); }, 1);
  }
  // How many runs parallel(n, body, weight) makes: 1 when it runs inline.
  int runs(int n, int weight) const {
    if (!hook_.run) return 1;
    const int grain = hook_.grain > 0 ? hook_.grain : kGrain;
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(n, int64_t(n) * weight / grain)));
  }
  // body(j0, j1) over the rows of a grid w cells (or faces) wide.
  template <class Body>
  void rows(int h, int w, const Body& body) const {
    parallel(h, body, w);
  }

  // Reduces over [0, n): body(begin, end) returns a block's value, and the
  // blocks' values are combined in block order. The blocks depend on n only,
  // so a sum comes out the same for any number of threads. `values` holds
  // the blocks' values between calls, so a step allocates nothing.
  template <class T, class Body, class Combine>
  T reduce(int n, T init, const Body& body, const Combine& combine, std::vector<T>& values) const {
    constexpr int kBlock = 2048;
    const int blocks = (n + kBlock - 1) / kBlock;
    if (blocks <= 1) return n > 0 ? combine(init, body(0, n)) : init;
    values.resize(static_cast<size_t>(blocks));
    parallel(blocks, [&](int b0, int b1) {
      for (int b = b0; b < b1; ++b) values[b] = body(b * kBlock, std::min(n, (b + 1) * kBlock));
    });
    T v = init;
    for (int b = 0; b < blocks; ++b) v = combine(v, values[b]);
    return v;
  }
  // body(j) over the rows j of [0, h) of a grid w wide, a pair of values a
  // row, combined: each row's pair is found on its own (the rows split
  // over the threads) and the rows' are combined in order, so the result
  // does not depend on the split.
  template <class Body, class Combine>
  std::pair<double, double> over_rows(int h, int w, const Body& body, const Combine& combine) const {
    row_values_.resize(static_cast<size_t>(std::max(h, 0)));
    rows(h, w, [&](int j0, int j1) {
      for (int j = j0; j < j1; ++j) row_values_[static_cast<size_t>(j)] = body(j);
    });
    std::pair<double, double> v{0.0, 0.0};
    for (int j = 0; j < h; ++j) v = combine(v, row_values_[static_cast<size_t>(j)]);
    return v;
  }
  // Two sums at once (body(j) returns a row's pair), one sum, a maximum of
  // values >= 0.
  template <class Body>
  std::pair<double, double> sum2_rows(int h, int w, const Body& body) const {
    using Pair = std::pair<double, double>;
    return over_rows(h, w, body, [](Pair a, Pair b) { return Pair{a.first + b.first, a.second + b.second}; });
  }
  template <class Body>
  double sum_rows(int h, int w, const Body& body) const {
    return sum2_rows(h, w, [&](int j) { return std::pair<double, double>{body(j), 0.0}; }).first;
  }
  template <class Body>
  double max_rows(int h, int w, const Body& body) const {
    using Pair = std::pair<double, double>;
    return over_rows(h, w, [&](int j) { return Pair{body(j), 0.0}; },
                     [](Pair a, Pair b) { return Pair{std::max(a.first, b.first), 0.0}; })
        .first;
  }
  template <class Body>
  double sum_over(int n, const Body& body) const {
    return reduce(n, 0.0, body, [](double a, double b) { return a + b; }, block_values_);
  }
  template <class Body>  // for values >= 0
  double max_over(int n, const Body& body) const {
    return reduce(n, 0.0, body, [](double a, double b) { return std::max(a, b); }, block_values_);
  }

 private:
  ParallelFor hook_;
  mutable std::vector<double> block_values_;
  mutable std::vector<std::pair<double, double>> row_values_;
};

}  // namespace tidepool
