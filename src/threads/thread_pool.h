// A fixed pool of threads behind the core's ParallelFor hook (world.h): the
// core owns no threads, the program that wants them brings them.
//
// Each parallel loop is cut into one contiguous chunk per thread, the caller
// running the first; the core's stages write only their own indices, so the
// result is the same for any thread count (tests/test_scenes.cpp). Workers
// spin briefly, then yield, while they wait: a step runs a dozen loops of
// well under a millisecond each, too short to pay for a sleep and wake-up.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "tidepool/world.h"

namespace tidepool {

// WebAssembly has threads only in a -pthread build.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kThreadsAvailable = false;
#else
constexpr bool kThreadsAvailable = true;
#endif

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // threads >= 1; 1 = no workers
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // The hook to hand to World::set_parallel_for (inline when threads == 1).
  ParallelFor hook();

 private:
  static void run(int n, ParallelFor::Body body, void* ctx, void* user);
  void chunk(int k) const;
  void work(int k);

  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};  // bumped once per loop
  std::atomic<int> pending_{0};          // workers still running this loop
  std::atomic<bool> stop_{false};
  int n_ = 0;
  ParallelFor::Body body_ = nullptr;
  void* ctx_ = nullptr;
};

}  // namespace tidepool
