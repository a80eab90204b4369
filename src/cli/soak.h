// `tidepool soak`: plays the engine like many users at once, from a seed,
// and checks the World's promises after every action and every frame. On a
// violation it writes a reproducer (the actions since the last scene load,
// one a line) that `tidepool soak --replay FILE` runs again.
// soak_session.h describes the actions and the invariants.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tidepool_cli {

struct SoakOptions {
  std::vector<uint32_t> seeds{1};
  double seconds = 60.0;        // simulated play per seed [s], in 1/60 s frames
  int max_particles = 262144;   // the largest count a scene load asks for
  long plant_frame = -1;        // test hook: a violation reported at this frame
  // Test hook: the frame checks report only the planted violation (the
  // actions' checks stay), so that a test of the reproducers does not
  // depend on the engine being free of the bugs the soak exists to find.
  bool only_planted = false;
  double max_rss_mb = 0.0;      // resident memory bound; 0: the default
  std::string out_dir = ".";    // where reproducers go
  FILE* log = stdout;           // per-seed lines and the summary; null: silent
  FILE* trace = nullptr;        // every action and frame as it happens (--trace)
};

// The frame of a seed's longest wall time, with its work, the frame's
// bound on it, and the particles.
struct SlowestFrame {
  long frame = -1;
  double ms = 0.0, work = 0.0, limit = 0.0;
  int particles = 0;
};

struct SeedReport {
  uint32_t seed = 0;
  long frames = 0, actions = 0;
  long loads = 0, switches = 0, refusals = 0;  // scene loads, solver switches, inputs refused as invalid
  long contained_frames = 0;   // frames the safety net fired (storms, extremes)
  long steady_frames = 0;      // frames of steady play (Session::steadiness), where it must not
  long capped_frames = 0;      // frames the work bound's backstop took (a pile), and of them in steady play
  long capped_steady_frames = 0;
  int peak_particles = 0;
  int peak_bodies = 0;
  long body_frames = 0;  // frames with a body in the water
  double peak_rss_mb = 0.0;
  float closest_obstacle = 0.0f;  // smallest particle-centre distance outside an obstacle [spacings]
  long wedged = 0;                // particle-frames inside an obstacle, held there by a wall
  long creviced = 0;              // ... pushed there out of another obstacle
  double wall_seconds = 0.0;
  SlowestFrame slowest;
  double most_work_share = 0.0;  // the largest share of its bound a frame's work took
  bool violated = false;
  long violation_frame = -1;
  std::string violation, repro_path;
};

struct SoakReport {
  std::vector<SeedReport> seeds;
  long frames = 0, actions = 0;
  int violations = 0;
};

// Plays every seed in options.seeds for options.seconds; a seed stops at its
// first violation, after writing its reproducer.
SoakReport run_soak(const SoakOptions& options);

struct ReplayReport {
  bool loaded = false;
  std::string error;            // why the file could not be read
  uint32_t seed = 0;
  long frames = 0, actions = 0;
  bool violated = false;
  long violation_frame = -1;
  std::string violation;
  long recorded_frame = -1;     // what the file says happened
  std::string recorded_violation;
  uint64_t hash = 0, recorded_hash = 0;  // state hash at the violation
};

// Runs a reproducer's actions again, with the same checks.
ReplayReport replay_soak(const std::string& path, FILE* log, FILE* trace = nullptr);

// `tidepool soak ...`: exit 0 with no violation, 1 on a violation (a
// reproducer written, or one replayed), 2 on bad arguments.
int soak(int argc, char** argv);

}  // namespace tidepool_cli
