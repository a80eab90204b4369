// A fixed pool of threads behind the core's ParallelFor hook
// (tidepool/hooks.h): the core owns no threads, the program that wants them
// brings them.
//
// Each parallel loop is cut into kChunksPerThread contiguous chunks per
// thread (some empty when the loop is shorter). Thread t (the caller is 0)
// owns the t-th run of kChunksPerThread chunks and claims them in order,
// then claims what is left of the others', so a thread whose chunks were
// cheap takes over more of them. Owning the same share of every loop keeps
// a thread on the same particles from loop to loop, in its own core's
// cache: at a few thousand particles the whole state fits in one core's L2,
// and chunks dealt from one shared counter move it between the cores, which
// costs more than the finer balancing gains (docs/design.md, "Threads").
// The core's stages write only their own indices, so the result is the
// same for any thread count and whoever runs a chunk
// (tests/test_scenes.cpp); that every index of every loop runs exactly once
// is tests/test_threads.cpp.
//
// Claiming matters when the cores are busy with other programs: a worker
// that wakes late finds its chunk already done by the caller, instead of
// the caller waiting a scheduler time slice for it.
//
// What a loop costs beyond its chunks is the cache lines the threads hand
// each other: a line's round trip between two cores costs more than the
// work of many light elements, and more still on a virtual machine whose
// host is busy. So a loop is announced in one line (the loop's fields and
// its generation), a thread's cursor is reset by no one (it counts chunks
// over all loops), and a worker reports the chunks it ran in a line of its
// own, once for its own chunks and once for any it took, instead of adding
// to a shared count after every chunk. The generation is published with a
// release store: a sequentially consistent one would cost the caller a full
// fence every loop.
//
// Workers spin, then yield, while they wait: a step runs a dozen loops of
// well under a millisecond each, too short to pay for a sleep and wake-up.
// Past that they park on a condition variable until the next loop, so that
// an idle pool (between frames, between simulations) leaves the cores to
// others; in WebAssembly yield and short sleeps are busy loops, so parking
// is the only way a worker gives its core back.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "tidepool/hooks.h"

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
  // Claims and runs chunks of loop `generation` until none is left, thread
  // `self`'s own first, then the others', counting them in *ran.
  void help(int self, int64_t generation, int64_t* ran);
  void work(int self);

  std::vector<std::thread> workers_;
  // The current loop, in one cache line: a worker that sees the generation
  // change finds the loop's fields in the line it has just fetched. The
  // fields are atomics only because a worker late for one loop may read
  // them while the caller writes the next one's (help() then claims
  // nothing).
  struct alignas(64) Loop {
    std::atomic<int64_t> generation{0};  // loops begun so far
    std::atomic<int> n{0};
    std::atomic<ParallelFor::Body> body{nullptr};
    std::atomic<void*> ctx{nullptr};
  };
  Loop loop_;
  // Per thread, in lines of their own: the next of its chunks to claim,
  // counted over all loops (loop g's are (g - 1) K .. g K - 1, K =
  // kChunksPerThread), and the chunks it has run, over all loops, which a
  // worker publishes as it finishes a thread's share (help()) and the
  // caller sums.
  struct alignas(64) Counter {
    std::atomic<int64_t> value{0};
  };
  std::vector<Counter> next_, done_;
  int64_t caller_done_ = 0;  // the caller's (thread 0's) chunks run
  std::atomic<bool> stop_{false};
  std::atomic<int> parked_{0};  // workers asleep on wake_
  std::mutex park_mutex_;
  std::condition_variable wake_;
};

}  // namespace tidepool
