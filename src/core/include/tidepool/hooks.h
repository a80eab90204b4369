// Tidepool — the two hooks through which a caller lends the core what it
// does not own: a clock (to time the step's stages) and a parallel loop (to
// run them on threads). Both default to nothing: no timings, every loop
// inline on the calling thread.
#pragma once

namespace tidepool {

// Caller-supplied clock in milliseconds. Empty = stages are not timed.
struct Clock {
  double (*now_ms)(void* user) = nullptr;
  void* user = nullptr;
  double operator()() const { return now_ms ? now_ms(user) : 0.0; }
  explicit operator bool() const { return now_ms != nullptr; }
};

// Caller-supplied parallel loop: run body(begin, end, ctx) over [0, n) in
// chunks. The default runs everything inline on the calling thread. Results
// never depend on how the range is split (no two indices of a loop write the
// same output). A loop over light elements (a grid's cells, a particle's
// transfer) hands each chunk at least `grain` of them, and runs inline when
// it has fewer than two chunks' worth: a hand-off to another core costs
// about as much as a couple of thousand such elements. 0 takes the core's
// own grain (Loops::kGrain); 1 splits every loop, as a test of the splits
// does.
struct ParallelFor {
  using Body = void (*)(int begin, int end, void* ctx);
  void (*run)(int n, Body body, void* ctx, void* user) = nullptr;
  void* user = nullptr;
  int grain = 0;
};

}  // namespace tidepool
