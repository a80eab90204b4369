// The thread pool behind the ParallelFor hook (src/threads): every index of
// every loop runs exactly once, whoever runs it, however late a worker is.
// The determinism test (test_scenes.cpp) checks that the core gives the same
// state on the pool; this checks the pool's own contract, on the paths a
// step rarely takes: loops shorter than the chunk count, a chunk that stalls
// so the others take over its owner's rest, workers parked between loops.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "thread_pool.h"

using namespace tidepool;

namespace {

struct Loop {
  std::vector<std::atomic<int>> runs;  // per index, how often it ran
  int stall_at = -1;                   // the chunk that starts here sleeps first
  explicit Loop(int n) : runs(static_cast<size_t>(n)) {}
};

void count(int begin, int end, void* ctx) {
  Loop& loop = *static_cast<Loop*>(ctx);
  if (begin == loop.stall_at) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (int i = begin; i < end; ++i) loop.runs[static_cast<size_t>(i)].fetch_add(1);
}

// Runs a loop of n indices through the hook; true if each ran exactly once.
bool each_once(const ParallelFor& hook, int n, int stall_at = -1) {
  Loop loop(n);
  loop.stall_at = stall_at;
  hook.run(n, &count, &loop, hook.user);
  for (const std::atomic<int>& r : loop.runs)
    if (r.load() != 1) return false;
  return true;
}

}  // namespace

TEST_CASE("the thread pool runs every index of every loop exactly once", "[threads]") {
  if (!kThreadsAvailable) return;  // single-threaded wasm: the hook is inline
  for (int threads : {2, 3}) {
    INFO(threads << " threads");
    ThreadPool pool(threads);
    const ParallelFor hook = pool.hook();
    REQUIRE(hook.run != nullptr);
    const int chunks = pool.chunks();
    // Loops of every length a step makes, and shorter than the chunks.
    bool ok = true;
    for (int round = 0; round < 300 && ok; ++round) {
      for (int n : {0, 1, 2, chunks - 1, chunks, chunks + 1, 1000, 4097}) ok = ok && each_once(hook, n);
    }
    CHECK(ok);
    // A stalled chunk, the caller's first and then a worker's first: the
    // other threads take over the rest of the stalled thread's chunks.
    const int n = 64 * chunks;
    for (int owner = 0; owner < threads; ++owner) {
      INFO("stalled: thread " << owner << "'s first chunk");
      CHECK(each_once(hook, n, owner * n / threads));
    }
    // Workers parked between loops (they park after about 0.1 s of waiting
    // natively), then woken by the next loop.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ok = true;
    for (int round = 0; round < 100 && ok; ++round) ok = each_once(hook, 4097);
    CHECK(ok);
  }
}
