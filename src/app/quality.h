// Tidepool app — auto quality: the particle count, or a grid scene's grid,
// that holds 60 fps on the device at hand.
//
// What it judges is the simulation's cost per tick (1/60 s of simulated
// time) for water in motion: the cost per substep, which follows the count
// and hardly the flow, times the substeps a tick takes, at least
// kLiveSubsteps. A settled pool takes fewer substeps than a splash (the
// CFL condition, Monaghan 1992), and a count sized for the pool would run
// late at the first splash. Each window of wall time is judged by its
// medians, so one slow frame (a garbage collection, a tab switch) moves
// nothing:
//   - over the budget: fewer particles at once;
//   - under half of it for three windows in a row, with no finger on the
//     water: more, at most 1.5x at a time, and never again above a count
//     that ran late within the last half minute.
// Between half and all of the budget nothing moves: that gap, and the
// ceiling, keep it from see-sawing. The first frames after a change, which
// carry the reload, are not judged.
//
// The cost of a tick grows faster than the count: a finer spacing also
// means shorter substeps, so about N^1.5 in motion. The next count is
// sized by that law. A grid's tick costs about its cell count (the
// multigrid-preconditioned projection is linear in it), judged as it is.
//
// The methods differ in both: SPH takes at least kLiveSubsteps substeps a
// tick in motion and holds up to kMaxParticles; FLIP's steps follow its
// grid's CFL condition, kLiveFlipSteps a tick in a splash, and it holds
// kMaxFlipParticles. A change of method between them carries the cost, not
// the count: FLIP holds kFlipPerSph times SPH's particles on the same
// budget (the bench's dam break: docs/performance.md), so the count is
// scaled by it at once and the judging starts over.
#pragma once

#include <string>
#include <vector>

namespace tidepool::app {

class AutoQuality {
 public:
  // Simulation per tick [ms]: half a 60 fps frame; the other half draws.
  static constexpr double kBudgetMs = 8.0;
  static constexpr double kWindowMs = 1000.0;  // a judged window of wall time
  static constexpr double kFirstWindowMs = 500.0;  // the first, for a quick first guess
  static constexpr double kLiveSubsteps = 4.0;  // an SPH tick's substeps for water in motion, at least
  static constexpr double kLiveFlipSteps = 3.0;  // FLIP's: the dam break's and the drops' 9 in 10 ticks
  static constexpr int kMinParticles = 300;
  static constexpr int kMaxParticles = 16000;
  static constexpr int kMaxFlipParticles = 48000;
  static constexpr double kFlipPerSph = 8.0;
  static constexpr int kMinCells = 48 * 48;
  static constexpr int kMaxCells = 384 * 384;

  // What a frame simulated: SPH's or FLIP's particles, or a grid's cells.
  enum class Method { Sph, Flip, Grid };
  struct Load {
    int count = 0;
    Method method = Method::Sph;
  };

  // Off: the count is the user's (?particles=N, the panel) or the scene's.
  bool on = false;
  // The counts chosen (0: none yet, the scene's own).
  int particles = 0;
  int grid = 0;  // cells along the tank's longer side
  // What was chosen and why, for stats() and the panel.
  std::string reason = "the scene's count, until the first second is measured";
  // The last judged window: its median cost per tick [ms], and the cost
  // per tick for water in motion it was judged by.
  double median_ms = 0.0;
  double cost_ms = 0.0;

  // One frame's simulation: `sim_ms` over `ticks` ticks and `substeps`
  // substeps of `load`. Returns the count (particles or cells) to size
  // the scene to, or 0.
  int record(double now_ms, double sim_ms, int ticks, int substeps, Load load, bool touching);
  // After any load: the next window is a warm-up.
  void restart();

 private:
  std::vector<double> per_tick_, per_substep_, substeps_;
  double window_start_ = -1.0;
  bool started_ = false;      // the first window has been judged
  int skip_ = 0;              // frames not to judge after a change
  int quiet_windows_ = 0;     // in a row, under half the budget
  Method method_ = Method::Sph;  // what the windows and the ceiling count
  bool have_method_ = false;     // method_ is the last frame's
  int ceiling_ = 0;           // a count that ran late, lowered a little (0: none)
  double ceiling_since_ = -1.0;
};

}  // namespace tidepool::app
