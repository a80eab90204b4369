// Loops over particles through the caller's ParallelFor hook, and
// reductions whose result does not depend on the thread count.
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

  // Runs body(begin, end) over [0, n) through the caller's hook, or inline.
  template <class Body>
  void parallel(int n, const Body& body) const {
    if (!hook_.run) {
      body(0, n);
      return;
    }
    hook_.run(
        n, [](int begin, int end, void* ctx) { (*static_cast<const Body*>(ctx))(begin, end); },
        const_cast<Body*>(&body), hook_.user);
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
};

}  // namespace tidepool
