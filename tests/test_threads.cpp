// The thread pool behind the ParallelFor hook (src/threads): every index of
// every loop runs exactly once, whoever runs it, however late a worker is.
// And ThreadChoice, which picks the pool or one thread from frame timings.
// The determinism test (test_scenes.cpp) checks that the core gives the same
// state on the pool; this checks the pool's own contract, on the paths a
// step rarely takes: loops shorter than the chunk count, a chunk that stalls
// so the others take over its owner's rest, workers parked between loops.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "thread_choice.h"
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
    // Workers parked between loops (natively a worker parks after
    // kSpinsBeforePark spins, a fraction of the wait below; thread_pool.cpp),
    // then woken by the next loop.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ok = true;
    for (int round = 0; round < 100 && ok; ++round) ok = each_once(hook, 4097);
    CHECK(ok);
  }
}

namespace {

// Runs `frames` frames through `choice`, each timed as the pool or one
// thread costs at that frame (ms per substep); returns the frames that ran
// on one thread.
template <class Cost>
int run_frames(ThreadChoice& choice, int frames, const Cost& cost) {
  int alone = 0;
  for (int f = 0; f < frames; ++f) {
    const bool pooled = choice.next_frame_pooled();
    alone += pooled ? 0 : 1;
    choice.record(cost(pooled, f));
  }
  return alone;
}

}  // namespace

TEST_CASE("the thread choice keeps the faster of the pool and one thread", "[threads]") {
  constexpr int kEvery = ThreadChoice::kEvery, kSamples = ThreadChoice::kSamples;
  // Enough frames for kSamples probes, and a few to spare.
  constexpr int kDecide = (kSamples + 2) * kEvery;
  ThreadChoice choice;
  REQUIRE(choice.pooled());
  SECTION("threads faster: it stays on the pool, one frame in kEvery on one thread") {
    const int alone = run_frames(choice, 10 * kDecide, [](bool pooled, int) { return pooled ? 1.0 : 1.7; });
    CHECK(choice.pooled());
    CHECK(alone == 10 * kDecide / kEvery - 1);  // no probe before the first timed frame
    CHECK(choice.other_over_current() == Approx(1.7));
  }
  SECTION("threads slower: it moves to one thread, and back when they pay again") {
    run_frames(choice, kDecide, [](bool pooled, int) { return pooled ? 1.3 : 1.0; });
    CHECK_FALSE(choice.pooled());
    // Now the pool is the probe: one frame in kEvery.
    const int alone = run_frames(choice, 5 * kEvery, [](bool pooled, int) { return pooled ? 1.3 : 1.0; });
    CHECK(alone == 5 * kEvery - 5);
    run_frames(choice, kDecide, [](bool pooled, int) { return pooled ? 0.6 : 1.0; });
    CHECK(choice.pooled());
  }
  SECTION("within the margin, or one odd frame, it stays") {
    run_frames(choice, 3 * kDecide, [](bool pooled, int) { return pooled ? 1.03 : 1.0; });
    CHECK(choice.pooled());
    // A probe that lands on a hiccup of the machine: the median ignores it
    // (a mean of the ratios would switch).
    bool hiccup = false;
    run_frames(choice, 3 * kDecide, [&](bool pooled, int f) {
      if (pooled) return 1.0;
      if (f < 5 * kEvery || hiccup) return 1.03;
      hiccup = true;
      return 0.01;
    });
    CHECK(hiccup);
    CHECK(choice.pooled());
  }
  SECTION("a restart forgets the samples of the work before") {
    run_frames(choice, (kSamples - 1) * kEvery + 2, [](bool pooled, int) { return pooled ? 1.3 : 1.0; });
    REQUIRE(choice.pooled());  // one sample short
    choice.restart();
    run_frames(choice, 3 * kEvery, [](bool pooled, int) { return pooled ? 1.3 : 1.0; });
    CHECK(choice.pooled());  // three samples since the restart are not enough
    run_frames(choice, kDecide, [](bool pooled, int) { return pooled ? 1.3 : 1.0; });
    CHECK_FALSE(choice.pooled());
  }
  SECTION("frames that simulated nothing are not counted") {
    for (int f = 0; f < 10 * kEvery; ++f) {
      choice.next_frame_pooled();
      choice.record(0.0);
    }
    CHECK(choice.other_over_current() == 0.0);
    CHECK(choice.pooled());
  }
}
