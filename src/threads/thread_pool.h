// A fixed pool of threads behind the core's ParallelFor hook (world.h): the
// core owns no threads, the program that wants them brings them.
//
// Each parallel loop is cut into kChunksPerThread contiguous chunks per
// thread (some empty when the loop is shorter); every thread, the caller
// first, claims chunks from a shared counter until none is left, so a
// thread whose chunks were cheap takes over more of them. The core's
// stages write only their own indices, so the result is the same for any
// thread count and whoever runs a chunk (tests/test_scenes.cpp). Claiming matters when the cores are busy with
// other programs: a worker that wakes late finds its chunk already done by
// the caller, instead of the caller waiting a scheduler time slice for it.
// Workers spin briefly, then yield, while they wait: a step runs a dozen
// loops of well under a millisecond each, too short to pay for a sleep and
// wake-up. Past that they park on a condition variable until the next loop,
// so that an idle pool (between frames, between simulations) leaves the
// cores to others; in WebAssembly yield and short sleeps are busy loops, so
// parking is the only way a worker gives its core back.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
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
  // A constant, so a worker still looking at an earlier loop's counter can
  // never claim a chunk of the next one.
  int chunks() const { return kChunksPerThread * threads(); }
  static constexpr int kChunksPerThread = 4;
  // The hook to hand to World::set_parallel_for (inline when threads == 1).
  ParallelFor hook();

 private:
  static void run(int n, ParallelFor::Body body, void* ctx, void* user);
  void chunk(int k) const;
  void help();
  void work();

  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};  // bumped once per loop
  std::atomic<int> next_{0};             // next chunk to claim in this loop
  std::atomic<int> done_{0};             // chunks finished in this loop
  std::atomic<bool> stop_{false};
  std::atomic<int> parked_{0};  // workers asleep on wake_
  std::mutex park_mutex_;
  std::condition_variable wake_;
  int n_ = 0;
  ParallelFor::Body body_ = nullptr;
  void* ctx_ = nullptr;
};

}  // namespace tidepool
