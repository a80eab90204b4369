#include "thread_pool.h"

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

}  // namespace

ThreadPool::ThreadPool(int threads) : cursors_(static_cast<size_t>(threads < 1 ? 1 : threads)) {
  for (int k = 1; k < threads; ++k) workers_.emplace_back([this, k] { work(k); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lock(park_mutex_);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ParallelFor ThreadPool::hook() {
  if (workers_.empty()) return ParallelFor{};
  return ParallelFor{&ThreadPool::run, this};
}

void ThreadPool::chunk(int k) const {
  const int64_t c = chunks();
  const int begin = static_cast<int>(n_ * k / c), end = static_cast<int>(n_ * (k + 1) / c);
  if (begin < end) body_(begin, end, ctx_);
}

// Runs chunks of the current loop until all are claimed: thread `self`'s
// own first, then the others'. A worker that still acts on an earlier
// generation can only claim chunks of the current loop here, which it then
// runs correctly: the loop's fields are written before the cursors are
// reset (release), and read after a claim (acquire).
void ThreadPool::help(int self) {
  const int threads = static_cast<int>(cursors_.size());
  for (int t = 0; t < threads; ++t) {
    const int owner = (self + t) % threads;
    std::atomic<int>& next = cursors_[static_cast<size_t>(owner)].next;
    for (int k; (k = next.fetch_add(1, std::memory_order_acq_rel)) < kChunksPerThread;) {
      chunk(owner * kChunksPerThread + k);
      done_.fetch_add(1, std::memory_order_release);
    }
  }
}

void ThreadPool::run(int n, ParallelFor::Body body, void* ctx, void* user) {
  ThreadPool& pool = *static_cast<ThreadPool*>(user);
  pool.n_ = n;
  pool.body_ = body;
  pool.ctx_ = ctx;
  pool.done_.store(0, std::memory_order_relaxed);
  for (Cursor& c : pool.cursors_) c.next.store(0, std::memory_order_release);
  // Wakes the workers. Sequentially consistent with the parked_ load after
  // it, against a worker's parked_ increment and generation check (work()):
  // either the worker sees this generation or this sees it parked.
  pool.generation_.fetch_add(1);
  if (pool.parked_.load() > 0) {
    { std::lock_guard<std::mutex> lock(pool.park_mutex_); }  // a worker between check and wait has waited
    pool.wake_.notify_all();
  }
  pool.help(0);
  const int c = pool.chunks();
  wait_until([&] { return pool.done_.load(std::memory_order_acquire) == c; });
}

void ThreadPool::work(int self) {
  uint64_t seen = 0;
  while (true) {
    for (int spins = 0; generation_.load(std::memory_order_acquire) == seen; ++spins) {
      if (spins > kSpinsBeforePark) {
        std::unique_lock<std::mutex> lock(park_mutex_);
        parked_.fetch_add(1);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        parked_.fetch_sub(1);
      } else if (spins > 256) {
        std::this_thread::yield();
      }
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    help(self);
  }
}

}  // namespace tidepool
