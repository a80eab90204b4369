// Tidepool app — auto quality (quality.h says what it guarantees).
#include "quality.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tidepool::app {

namespace {

constexpr double kCeilingMs = 30000.0;  // how long a count that ran late caps the rises
constexpr int kQuietWindows = 3;
constexpr int kSkipFrames = 3;  // after a change: the reload, the first sort

// The count whose cost per tick would be `target` ms, from `count` costing
// `cost` ms: by the N^1.5 law for particles, linearly for cells.
int count_for(int count, double cost, double target, bool cells) {
  return static_cast<int>(count * std::pow(target / std::max(cost, 1e-3), cells ? 1.0 : 1.0 / 1.5));
}

double median(std::vector<double>& v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

void AutoQuality::restart() {
  per_tick_.clear();
  per_substep_.clear();
  substeps_.clear();
  window_start_ = -1.0;
  skip_ = kSkipFrames;
  quiet_windows_ = 0;
}

int AutoQuality::record(double now_ms, double sim_ms, int ticks, int substeps, Load load, bool touching) {
  const int count = load.count;
  // Paused, asleep, or nothing to size.
  if (!on || ticks <= 0 || substeps <= 0 || count <= 0) return 0;
  if (!have_method_ || load.method != method_) {  // FLIP after SPH, particles after a grid...
    const Method was = method_;
    const bool changed = have_method_;
    method_ = load.method;
    have_method_ = true;
    ceiling_ = 0;
    restart();
    if (!changed) return 0;
    int next = 0;
    if (was == Method::Flip && method_ == Method::Sph)
      next = std::max(kMinParticles, static_cast<int>(count / kFlipPerSph));
    else if (was == Method::Sph && method_ == Method::Flip)
      next = std::min(kMaxFlipParticles, static_cast<int>(count * kFlipPerSph));
    if (next == 0 || next == count) return 0;
    particles = next;
    char why[160];
    std::snprintf(why, sizeof why, "a new method: %d particles for %d, FLIP holding %.0fx SPH's", next, count,
                  kFlipPerSph);
    reason = why;
    return next;
  }
  const bool cells = method_ == Method::Grid;
  if (skip_ > 0) {
    --skip_;
    return 0;
  }
  if (window_start_ < 0.0) window_start_ = now_ms;
  per_tick_.push_back(sim_ms / ticks);
  per_substep_.push_back(sim_ms / substeps);
  substeps_.push_back(static_cast<double>(substeps) / ticks);
  const double window = started_ ? kWindowMs : kFirstWindowMs;
  if (now_ms - window_start_ < window || per_tick_.size() < 3) return 0;
  median_ms = median(per_tick_);
  // A grid's tick is judged as it is: its steps follow the flow, not the cells.
  const double live = method_ == Method::Flip ? kLiveFlipSteps : kLiveSubsteps;
  cost_ms = cells ? median_ms : median(per_substep_) * std::max(median(substeps_), live);
  per_tick_.clear();
  per_substep_.clear();
  substeps_.clear();
  window_start_ = now_ms;
  started_ = true;
  if (ceiling_since_ >= 0.0 && now_ms - ceiling_since_ > kCeilingMs) {
    ceiling_ = 0;
    ceiling_since_ = -1.0;
  }
  const int lowest = cells ? kMinCells : kMinParticles;
  const int highest = cells ? kMaxCells : method_ == Method::Flip ? kMaxFlipParticles : kMaxParticles;
  const char* what = cells ? "cells" : "particles";
  char why[160];
  int next = count;
  const double cost = cost_ms;  // what the window is judged by
  if (cost > kBudgetMs) {
    quiet_windows_ = 0;
    next = std::max(lowest, std::min(count_for(count, cost, 0.8 * kBudgetMs, cells), count * 9 / 10));
    ceiling_ = std::max(lowest, count * 9 / 10);
    ceiling_since_ = now_ms;
    std::snprintf(why, sizeof why, "too slow: %.1f ms a tick%s for %d %s, over the %.0f ms budget", cost,
                  cells ? "" : " in motion", count, what, kBudgetMs);
  } else if (cost < 0.5 * kBudgetMs && !touching && ++quiet_windows_ >= kQuietWindows) {
    quiet_windows_ = 0;
    next = std::min({count_for(count, cost, 0.7 * kBudgetMs, cells), count * 3 / 2, highest});
    if (ceiling_ > 0) next = std::min(next, ceiling_);
    std::snprintf(why, sizeof why, "headroom: %.1f ms a tick%s for %d %s, under half the %.0f ms budget", cost,
                  cells ? "" : " in motion", count, what, kBudgetMs);
  } else {
    if (cost >= 0.5 * kBudgetMs) quiet_windows_ = 0;
    return 0;
  }
  // Changes under a tenth are not worth a reload.
  if (std::abs(next - count) * 10 < count) return 0;
  if (!cells) particles = next;  // a grid's size is the caller's to round (grid)
  reason = why;
  return next;
}

}  // namespace tidepool::app
