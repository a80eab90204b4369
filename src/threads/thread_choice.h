// Whether a program's frames should run on its thread pool or on one thread,
// from the frames' own timings.
//
// Threads do not always pay. On a host that gives two virtual CPUs one core,
// a device whose second thread lands on a slow or busy core, or one where
// handing data between the cores is slow, the two-thread step can take
// longer than one thread's, even while two independent one-thread copies
// of the work still run faster than one: it is the handoffs between the
// cores that slow, not the cores (docs/design.md, "Threads"). Such
// phases come and go within seconds or minutes, so no choice made once at
// start-up holds. Instead, one frame in kEvery runs on the other choice,
// and is timed against the mean of the frames either side of it (the flow,
// and the host, barely change across three frames). When the median of the
// last kSamples such ratios says the other choice is faster by kMargin, the
// program switches, and goes on sampling the one it left. The median, not
// the mean, so that one probe landing on a hiccup cannot switch it. The
// cost is one frame in kEvery on the slower choice: when that choice takes
// r times as long, (r - 1) / kEvery more simulation time, and at the 60-fps
// limit at most one late frame in kEvery. Results never depend on the
// choice (the core's loops write only their own indices), only the time
// does.
#pragma once

#include <algorithm>
#include <array>

namespace tidepool {

class ThreadChoice {
 public:
  static constexpr int kEvery = 60;         // frames between two on the other choice
  static constexpr int kSamples = 9;        // ratios behind a switch
  static constexpr double kMargin = 1.05;   // the other choice this much faster to switch

  // Whether the next frame runs on the pool. The same answer until record()
  // or restart() (a frame that simulated nothing is not recorded).
  bool next_frame_pooled() {
    probing_ = state_ == State::Steady && since_probe_ >= kEvery;
    return probing_ ? !pooled_ : pooled_;
  }
  // The frame that next_frame_pooled() announced took ms_per_substep.
  void record(double ms_per_substep) {
    if (!(ms_per_substep > 0.0)) return;
    if (probing_) {
      probe_ms_ = ms_per_substep;
      state_ = State::AfterProbe;
      since_probe_ = 1;  // the probe is one of the kEvery
      probing_ = false;
      return;
    }
    if (state_ == State::AfterProbe) add(probe_ms_ / (0.5 * (before_ms_ + ms_per_substep)));
    state_ = State::Steady;
    before_ms_ = ms_per_substep;
    ++since_probe_;
  }
  // The work changed (another scene, another particle count): the samples
  // so far say nothing about it. The current choice stays.
  void restart() {
    count_ = 0;
    state_ = State::Fresh;
    since_probe_ = 0;
    probing_ = false;
  }
  // The current choice, and the median ratio of the other's frames to its
  // own over the last samples (0 before any): < 1 means the other was faster.
  bool pooled() const { return pooled_; }
  double other_over_current() const { return count_ ? median(std::min(count_, kSamples)) : 0.0; }

 private:
  // Fresh: no frame of the current choice timed yet, so nothing to pair a
  // probe with; Steady: one timed; AfterProbe: a probe waits for the frame
  // after it.
  enum class State { Fresh, Steady, AfterProbe };

  void add(double ratio) {
    ratios_[static_cast<size_t>(count_ % kSamples)] = ratio;
    ++count_;
    if (count_ >= kSamples && median(kSamples) * kMargin < 1.0) {
      pooled_ = !pooled_;
      restart();
    }
  }
  double median(int n) const {
    std::array<double, kSamples> sorted = ratios_;
    std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
    return sorted[static_cast<size_t>(n / 2)];
  }

  bool pooled_ = true;
  bool probing_ = false;
  State state_ = State::Fresh;
  int since_probe_ = 0;
  double before_ms_ = 0.0, probe_ms_ = 0.0;
  std::array<double, kSamples> ratios_{};
  int count_ = 0;  // ratios added since the last restart
};

}  // namespace tidepool
