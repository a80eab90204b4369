#include "thread_pool.h"

#include <algorithm>
#include <chrono>

namespace tidepool {

namespace {

// Spin a little, then let the other thread have the core: with as many
// threads as cores a waiter wakes within a few microseconds. A long wait
// (the program is between simulations) sleeps instead of burning a core.
// (The caller waiting for chunks in progress; workers park, see work().)
template <class Ready>
void wait_until(const Ready& ready) {
  for (int spins = 0; !ready(); ++spins) {
    if (spins > 100000) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    } else if (spins > 256) {
      std::this_thread::yield();
    }
  }
}

// Spins a worker makes before it parks: natively a yield takes about a
// microsecond, so this is tens of milliseconds; in WebAssembly a yield
// returns at once and it is well under a millisecond, so a worker in a
// browser parks soon after the frame's simulation ends.
constexpr int kSpinsBeforePark = 100000;
// Spins before a waiting worker starts to yield: enough to span the
// caller's serial stretches between a step's loops (the counting sort's
// histogram, the bands), which last microseconds, because a worker inside
// a yield answers the next loop late.
constexpr int kSpinsBeforeYield = 20000;

// A parked worker looks at the generation again this often. The caller
// wakes parked workers without a full fence between its generation store
// and its look at parked_ (run()), which would cost it a line's round trip
// every loop, so a worker that parks within a few hundred nanoseconds of a
// loop's start can miss that loop's wake-up. It then wakes this much later,
// and the caller has meanwhile run that worker's chunks itself.
constexpr auto kParkedRecheck = std::chrono::milliseconds(20);

}  // namespace

ThreadPool::ThreadPool(int threads)
    : next_(static_cast<size_t>(threads < 1 ? 1 : threads)), done_(next_.size()) {
  for (int k = 1; k < threads; ++k) workers_.emplace_back([this, k] { work(k); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lock(park_mutex_);
    loop_.generation.fetch_add(1);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ParallelFor ThreadPool::hook() {
  if (workers_.empty()) return ParallelFor{};
  return ParallelFor{&ThreadPool::run, this};
}

// A thread that reads a generation whose loop has ended (it was late)
// claims nothing: every cursor is past that loop's chunks. So whatever n,
// body and ctx it read, it runs only chunks of the loop it claims in.
void ThreadPool::help(int self, int64_t generation, int64_t* ran) {
  const int threads = static_cast<int>(next_.size());
  const int64_t n = loop_.n.load(std::memory_order_relaxed);
  const ParallelFor::Body body = loop_.body.load(std::memory_order_relaxed);
  void* const ctx = loop_.ctx.load(std::memory_order_relaxed);
  const int64_t count = chunks(), first = (generation - 1) * kChunksPerThread;
  int64_t reported = *ran;
  for (int t = 0; t < threads; ++t) {
    const int owner = (self + t) % threads;
    std::atomic<int64_t>& next = next_[static_cast<size_t>(owner)].value;
    int64_t seen = next.load(std::memory_order_relaxed);
    while (true) {
      const int64_t k = std::max(seen, first);  // below `first`: the cursor's owner has not begun this loop
      if (k >= first + kChunksPerThread) break;
      if (!next.compare_exchange_weak(seen, k + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) continue;
      const int64_t c = owner * kChunksPerThread + (k - first);
      const int begin = static_cast<int>(n * c / count), end = static_cast<int>(n * (c + 1) / count);
      if (begin < end) body(begin, end, ctx);
      ++*ran;
      seen = k + 1;
    }
    // A worker reports after each thread's chunks, its own first: a
    // waiting caller learns of them without waiting on the worker's look
    // at the others' cursors too (a line's round trip).
    if (self > 0 && *ran != reported) {
      done_[static_cast<size_t>(self)].value.store(*ran, std::memory_order_release);
      reported = *ran;
    }
  }
}

void ThreadPool::run(int n, ParallelFor::Body body, void* ctx, void* user) {
  ThreadPool& pool = *static_cast<ThreadPool*>(user);
  Loop& loop = pool.loop_;
  loop.n.store(n, std::memory_order_relaxed);
  loop.body.store(body, std::memory_order_relaxed);
  loop.ctx.store(ctx, std::memory_order_relaxed);
  const int64_t generation = loop.generation.load(std::memory_order_relaxed) + 1;
  loop.generation.store(generation, std::memory_order_release);
  if (pool.parked_.load(std::memory_order_relaxed) > 0) {
    { std::lock_guard<std::mutex> lock(pool.park_mutex_); }  // one between its check and its wait has waited
    pool.wake_.notify_all();
  }
  pool.help(0, generation, &pool.caller_done_);
  const int64_t all = generation * pool.chunks();
  wait_until([&] {
    int64_t done = pool.caller_done_;
    for (size_t t = 1; t < pool.done_.size(); ++t) done += pool.done_[t].value.load(std::memory_order_acquire);
    return done == all;
  });
}

void ThreadPool::work(int self) {
  int64_t seen = 0, ran = 0;
  while (true) {
    for (int spins = 0; loop_.generation.load(std::memory_order_acquire) == seen; ++spins) {
      if (spins > kSpinsBeforePark) {
        std::unique_lock<std::mutex> lock(park_mutex_);
        parked_.fetch_add(1);
        while (loop_.generation.load(std::memory_order_acquire) == seen) wake_.wait_for(lock, kParkedRecheck);
        parked_.fetch_sub(1);
      } else if (spins > kSpinsBeforeYield) {
        std::this_thread::yield();
      }
    }
    if (stop_.load()) return;
    seen = loop_.generation.load(std::memory_order_acquire);
    help(self, seen, &ran);
  }
}

}  // namespace tidepool
