// A fixed pool of threads behind the core's ParallelFor hook (world.h): the
// core owns no threads, the program that wants them brings them.
//
// Each parallel loop is cut into kChunksPerThread contiguous chunks per
// thread (some empty when the loop is shorter). Thread t (the caller is 0)
// owns the t-th run of kChunksPerThread chunks and claims them in order,
// then claims what is left of the others', so a thread whose chunks were
// cheap takes over more of them. Owning the same share of every loop keeps
// a thread on the same particles from loop to loop, in its own core's
// cache: at 4 000 particles the whole state fits in one core's L2, and
// chunks dealt from one shared counter moved it between the cores. Two
// threads over one, 4 000 particles, medians of alternated runs: Müller
// 1.47-1.57x with owned chunks against 1.28-1.46x with the shared counter,
// DFSPH 1.66-1.84x against 1.45-1.65x. The core's
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
  void help(int self);
  void work(int self);

  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};  // bumped once per loop
  // Per thread: the next of its own chunks to claim in this loop, one cache
  // line each.
  struct alignas(64) Cursor {
    std::atomic<int> next{0};
  };
  std::vector<Cursor> cursors_;
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
