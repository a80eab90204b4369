#include "thread_pool.h"

#include <chrono>

namespace tidepool {

namespace {

// Spin a little, then let the other thread have the core: with as many
// threads as cores a waiter wakes within a few microseconds. A long wait
// (the program is between simulations) sleeps instead of burning a core.
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

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int k = 1; k < threads; ++k) workers_.emplace_back([this, k] { work(k); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1, std::memory_order_release);
  for (std::thread& t : workers_) t.join();
}

ParallelFor ThreadPool::hook() {
  if (workers_.empty()) return ParallelFor{};
  return ParallelFor{&ThreadPool::run, this};
}

void ThreadPool::chunk(int k) const {
  const int64_t t = threads();
  const int begin = static_cast<int>(n_ * k / t), end = static_cast<int>(n_ * (k + 1) / t);
  if (begin < end) body_(begin, end, ctx_);
}

void ThreadPool::run(int n, ParallelFor::Body body, void* ctx, void* user) {
  ThreadPool& pool = *static_cast<ThreadPool*>(user);
  pool.n_ = n;
  pool.body_ = body;
  pool.ctx_ = ctx;
  pool.pending_.store(static_cast<int>(pool.workers_.size()), std::memory_order_relaxed);
  pool.generation_.fetch_add(1, std::memory_order_release);  // publishes the job
  pool.chunk(0);
  wait_until([&] { return pool.pending_.load(std::memory_order_acquire) == 0; });
}

void ThreadPool::work(int k) {
  uint64_t seen = 0;
  while (true) {
    wait_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load()) return;
    chunk(k);
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace tidepool
