// tidepool bench: throughput, per-stage cost, memory, and the 60-fps
// capacity of every solver on the benchmark dam break (a 1.6 m x 2 m column
// in a 4 m x 3 m tank, g = 10 m/s^2), plus the seed-000 reference measured
// in the same run. Wall-clock numbers are noisy on a shared machine: compare
// the ratios printed by one run, never numbers across runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_scene.h"
#include "cli.h"
#include "reference.h"
#include "thread_pool.h"
#include "tidepool/scenes.h"

using namespace tidepool;

namespace tidepool_cli {
namespace {

double now_ms(void* = nullptr) {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The most threads --threads takes: a WebAssembly threads build has only
// the workers it made before main() (src/cli/CMakeLists.txt), one without
// threads has one.
#ifndef TIDEPOOL_MAX_THREADS
#define TIDEPOOL_MAX_THREADS 64
#endif
constexpr int kMaxThreads = kThreadsAvailable ? TIDEPOOL_MAX_THREADS : 1;

constexpr float kFrame = 1.0f / 60.0f;
constexpr double kBudgetMs = 1000.0 / 60.0;
// Every size is measured over the same window of simulated time, from the
// same moment of the dam break (kWarmup): the solver's work per step depends
// on the flow (DFSPH's iterations), so rows of different sizes compare only
// when they see the same flow. A measurement repeats its window until
// kMinWallMs of wall time are spent, at most kMaxRuns times (measure()).
constexpr double kWarmup = 0.25;
constexpr double kWindow = 0.1;
constexpr double kMinWallMs = 500.0;
constexpr int kMaxRuns = 25;

// How the engine runs: threads (through the ParallelFor hook) and SIMD lanes.
struct Engine {
  ParallelFor parallel;
  int lanes = World::simd_width();
  int threads = 1;  // the pool's, when `parallel` is one
  std::vector<BodyDef> bodies;  // --body: added to every world measured
};

bool bench_world(World& w, int particles, const char* solver, const Engine& e, float tank = 1.0f) {
  w.set_parallel_for(e.parallel);
  w.set_lanes(e.lanes);
  std::string err;
  if (!load_bench_scene(w, particles, solver, &err, tank)) {
    std::fprintf(stderr, "tidepool bench: %s\n", err.c_str());
    return false;
  }
  for (const BodyDef& def : e.bodies)
    if (w.add_body(def, &err) < 0) {
      std::fprintf(stderr, "tidepool bench: --body: %s\n", err.c_str());
      return false;
    }
  return true;
}

// Pool height from the mean particle height (a flat pool of height H has
// mean y = H/2), over the height that conserves the initial area.
double height_ratio(const World& w) {
  double sum = 0.0;
  for (float y : w.particles().y) sum += y;
  const double mean = w.count() ? sum / w.count() : 0.0;
  const float s2 = w.params().mass / w.params().rest_density;
  const double area = w.count() * static_cast<double>(s2);
  return 2.0 * mean / (area / (w.box().max.x - w.box().min.x));
}

struct Measurement {
  const char* solver;
  int particles;
  double neighbours, particle_steps_per_s, ms_per_step, bytes_per_particle, iterations;
  double passes;  // DFSPH's passes over its lists a step (solver_passes)
  std::array<double, kStageCount> stage_ms;
  double speedup;  // over the same frames on one thread (threads > 1), else 0
  double copies;   // what the machine gives that many threads (time_window), else 0
  double wall_ms;  // the measured frames' wall time
  int runs;        // runs of the window, this one their median
};

// Times `seconds` of simulated time from the state `start`. With threads, a
// copy of the world runs the same frames inline, in turn with the threaded
// one frame by frame: the results do not depend on the thread count, so
// both do exactly the same work, and whatever else slows the machine slows
// both alike. Then as many single-threaded copies as the pool has threads
// run the frame at once, one on each thread (a loop of that many entries on
// the pool): their speed over the one copy's is what the machine gives that
// many threads of independent work at that moment. On a shared or virtual
// host that moves from second to second, and the threaded step, which hands
// data between the cores a dozen times a step, falls further than
// independent work when it does (docs/performance.md, "Targets"). At small
// and middle sizes the copies bound the threaded speedup; at the largest
// the copies, one world's data per thread, compete for the caches and
// memory, and the threaded world, each core on its share of one world's
// data, can beat them.
Measurement time_window(const World& start, const char* solver, double seconds, const Engine& e) {
  World w = start;
  const bool twin = e.parallel.run != nullptr;
  World solo;
  std::vector<World> copies;
  if (twin) {
    solo = start;
    solo.set_parallel_for(ParallelFor{});
    copies.assign(static_cast<size_t>(e.threads), solo);
  }
  const Clock clock{&now_ms, nullptr};
  long substeps = 0, iterations = 0, passes = 0;
  double nb = 0.0, ms = 0.0, solo_ms = 0.0, copies_ms = 0.0;
  std::array<double, kStageCount> stages{};
  int frames = 0;
  for (double t = 0; t < seconds; t += kFrame) {
    const double t0 = now_ms();
    const FrameStats st = w.advance(kFrame, clock);
    const double t1 = now_ms();
    ms += t1 - t0;
    if (twin) {
      solo.advance(kFrame);
      const double t2 = now_ms();
      solo_ms += t2 - t1;
      // The pool cuts a loop of `threads` entries so that entry k is in
      // thread k's own chunks (thread_pool.h): one copy per thread, unless
      // a thread is late and another takes its copy over.
      e.parallel.run(
          e.threads,
          [](int begin, int end, void* ctx) {
            for (int k = begin; k < end; ++k) static_cast<World*>(ctx)[k].advance(kFrame);
          },
          copies.data(), e.parallel.user);
      copies_ms += now_ms() - t2;
    }
    substeps += st.substeps;
    iterations += st.solver_iterations + st.divergence_iterations;
    passes += st.solver_passes;
    nb += st.mean_neighbours;
    for (int k = 0; k < kStageCount; ++k) stages[k] += st.stage_ms[k];
    ++frames;
  }
  Measurement m{};
  m.solver = solver;
  m.particles = w.count();
  m.neighbours = nb / frames;
  m.ms_per_step = ms / static_cast<double>(substeps);
  m.particle_steps_per_s = static_cast<double>(w.count()) * substeps / (ms / 1000.0);
  m.bytes_per_particle = static_cast<double>(w.bytes_per_particle());
  m.iterations = static_cast<double>(iterations) / static_cast<double>(substeps);
  m.passes = static_cast<double>(passes) / static_cast<double>(substeps);
  for (int k = 0; k < kStageCount; ++k) m.stage_ms[k] = stages[k] / static_cast<double>(substeps);
  m.speedup = twin ? solo_ms / ms : 0.0;
  m.copies = twin ? e.threads * solo_ms / copies_ms : 0.0;
  m.wall_ms = ms;
  return m;
}

// Measures what a step costs over `seconds` of simulated time after kWarmup
// of warm-up. A window that takes little wall time is at the mercy of the
// machine's other tenants (one short window can read far faster or slower
// than the next), so the window is run again from the same warmed-up
// state, doing the same work each time, until kMinWallMs are spent (at
// most kMaxRuns runs), and the median run is kept.
bool measure(const char* solver, int particles, double seconds, const Engine& e, Measurement* out,
             float tank = 1.0f) {
  World start;
  if (!bench_world(start, particles, solver, e, tank)) return false;
  for (double t = 0; t < kWarmup; t += kFrame) start.advance(kFrame);
  std::vector<Measurement> runs;
  double spent = 0.0;
  do {
    runs.push_back(time_window(start, solver, seconds, e));
    spent += runs.back().wall_ms;
  } while (spent < kMinWallMs && static_cast<int>(runs.size()) < kMaxRuns);
  std::sort(runs.begin(), runs.end(), [](const Measurement& a, const Measurement& b) {
    return a.particle_steps_per_s < b.particle_steps_per_s;
  });
  *out = runs[(runs.size() - 1) / 2];  // of an even count, the slower middle one
  out->runs = static_cast<int>(runs.size());
  return true;
}

// The pressure stage's time per particle and pass over DFSPH's lists: its
// cost with the iteration count taken out. The count follows the flow and
// the step (fewer iterations where the CFL step is shorter, at more
// particles), so ms per step alone does not tell whether the engine's cost
// stays flat from 1 000 to 256 000 particles. 0 for Müller (no passes).
double ns_per_pass(const Measurement& m) {
  if (m.passes <= 0.0) return 0.0;
  return m.stage_ms[kStagePressure] * 1e6 / (m.passes * m.particles);
}

struct Capacity {
  int particles = 0;
  double median_ms = 0.0, height_ratio = 0.0;
  // Memory at its peak: the largest bytes_per_particle() of the run's
  // frames. The rows' B/part is the window's, early in the dam break; what
  // grows after it is DFSPH's neighbour lists in the densest spots (the
  // grid reserves the tank's cells from the first step).
  size_t peak_bytes = 0;
};

// Median wall time of the 1/60 s frames over simulated seconds 1 to 6, or a
// number over budget as soon as the median is known to be over it; *peak:
// the most bytes a particle over the frames run.
double median_frame_ms(const char* solver, int particles, const Engine& e, double* ratio,
                       size_t* peak) {
  World w;
  if (!bench_world(w, particles, solver, e)) return 1e9;
  std::vector<double> times;
  const int total = 300;  // frames in [1, 6] s
  int over = 0;
  double ratio_sum = 0.0;
  int ratio_n = 0;
  for (int f = 0; f < 360; ++f) {
    const double t0 = now_ms();
    w.advance(kFrame);
    const double dt = now_ms() - t0;
    *peak = std::max(*peak, w.bytes_per_particle());
    if (f < 60) {
      if (dt > 20 * kBudgetMs) return 1e9;  // hopeless, skip the rest
      continue;
    }
    times.push_back(dt);
    over += dt > kBudgetMs ? 1 : 0;
    if (over > total / 2) return 2 * kBudgetMs;  // the median is over budget
    if (f >= 330) {
      ratio_sum += height_ratio(w);
      ++ratio_n;
    }
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  *ratio = ratio_sum / std::max(ratio_n, 1);
  return times[times.size() / 2];
}

Capacity capacity(const char* solver, int start, const Engine& e) {
  Capacity best;
  int lo = 0, hi = 0, n = start;
  // Grow by doubling until over budget, then bisect to ~5 %.
  while (true) {
    double ratio = 0.0;
    size_t peak = 0;
    const double ms = median_frame_ms(solver, n, e, &ratio, &peak);
    if (ms < kBudgetMs) {
      best = Capacity{n, ms, ratio, peak};
      lo = n;
      if (hi == 0) {
        n *= 2;
        if (n > kMaxParticles) break;
        continue;
      }
    } else {
      hi = n;
      if (lo == 0) {
        if (n <= 250) break;
        n /= 2;
        continue;
      }
    }
    if (hi - lo <= std::max(lo / 20, 100)) break;
    n = (lo + hi) / 2;
  }
  return best;
}

double reference_throughput(int particles, double seconds, double* neighbours) {
  World w;
  if (!bench_world(w, particles, "muller2003", Engine{})) return 0.0;
  for (double t = 0; t < kWarmup; t += kFrame) w.advance(kFrame);
  Reference ref(w);
  const float dt = w.stable_dt();
  const int steps = std::max(1, static_cast<int>(seconds / dt));
  const double start = now_ms();
  for (int k = 0; k < steps; ++k) ref.step(dt);
  const double ms = now_ms() - start;
  *neighbours = ref.mean_neighbours();
  return static_cast<double>(w.count()) * steps / (ms / 1000.0);
}

// What `tidepool bench` was asked to run.
struct BenchArgs {
  bool json = false, quick = false, do_capacity = true;
  int lanes = World::simd_width();
  int threads = 1;
  std::vector<int> sizes = {1000, 4000, 16000, 64000, 256000};
  std::vector<const char*> solvers = {"dfsph", "muller2003"};
  std::vector<BodyDef> bodies;
};

// --sizes N,N,...: each in [1, kMaxParticles]; false, with the problem on
// stderr, otherwise.
bool parse_sizes(const std::string& list, std::vector<int>* sizes) {
  sizes->clear();
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = list.find(',', pos);
    const int v = std::atoi(list.substr(pos, comma - pos).c_str());
    if (v < 1 || v > kMaxParticles) {
      std::fprintf(stderr, "tidepool bench: --sizes: each must be in [1, %d]\n", kMaxParticles);
      return false;
    }
    sizes->push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

// The arguments after `bench`; false, with the problem on stderr, at the
// first bad one.
bool parse_bench_args(int argc, char** argv, BenchArgs* out) {
  BenchArgs& b = *out;
  bool solver_given = false;
  for (int k = 0; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--json") {
      b.json = true;
    } else if (a == "--quick") {
      b.quick = true;
    } else if (a == "--no-capacity") {
      b.do_capacity = false;
    } else if (a == "--scalar") {
      b.lanes = 1;
    } else if (a == "--lanes" && k + 1 < argc) {
      b.lanes = std::atoi(argv[++k]);
      if (b.lanes != 1 && b.lanes != 4 && b.lanes != 8) {
        std::fprintf(stderr, "tidepool bench: --lanes %s: must be 1, 4 or 8\n", argv[k]);
        return false;
      }
    } else if (a == "--threads" && k + 1 < argc) {
      b.threads = std::atoi(argv[++k]);
      if (b.threads < 1 || b.threads > kMaxThreads) {
        std::fprintf(stderr, "tidepool bench: --threads %s: must be in [1, %d]%s\n", argv[k], kMaxThreads,
                     kThreadsAvailable ? "" : " (this build has no threads)");
        return false;
      }
    } else if (a == "--solver" && k + 1 < argc) {
      const std::string s = argv[++k];
      const char* const known[] = {"dfsph", "muller2003", "flip", "stable"};
      const auto it = std::find_if(std::begin(known), std::end(known), [&](const char* k) { return s == k; });
      if (it != std::end(known)) {
        if (!solver_given) b.solvers.clear();  // the first --solver replaces the defaults, more add to it
        solver_given = true;
        if (std::find(b.solvers.begin(), b.solvers.end(), *it) == b.solvers.end()) b.solvers.push_back(*it);
      } else {
        std::fprintf(stderr, "tidepool bench: --solver %s: must be dfsph, muller2003, flip or stable\n", s.c_str());
        return false;
      }
    } else if (a == "--sizes" && k + 1 < argc) {
      if (!parse_sizes(argv[++k], &b.sizes)) return false;
    } else if (a == "--body" && k + 1 < argc) {
      BodyDef def;
      std::string err;
      if (!parse_body(argv[++k], &def, &err)) {
        std::fprintf(stderr, "tidepool bench: --body %s\n", err.c_str());
        return false;
      }
      b.bodies.push_back(def);
    } else {
      std::fprintf(stderr, "tidepool bench: '%s': unknown argument\n", a.c_str());
      return false;
    }
  }
  return true;
}

// The text table's title lines and column heads.
void print_header(const Engine& e) {
  std::printf("dam break 1.6 x 2 m column in a 4 x 3 m tank, g = 10 m/s^2, %d thread%s, ", e.threads,
              e.threads > 1 ? "s" : "");
  if (!e.bodies.empty()) std::printf("%zu bodies, ", e.bodies.size());
  if (e.lanes > 1) {
    std::printf("SIMD (%d lanes)\n", e.lanes);
  } else {
    std::printf("scalar\n");
  }
  std::printf("muller2003: wcsph preset (Tait, k 400, rho0 1000) with colour-field surface tension, sigma %.4g; dfsph: the defaults\n",
              kWaterSigma);
  std::printf("each row: the median of up to %d runs of its window from one state, until %.1f s of wall time\n",
              kMaxRuns, kMinWallMs / 1000.0);
  std::printf("%-11s %8s %6s %12s %9s %6s %6s %7s  %s\n", "solver", "particles", "nbrs", "p-steps/s",
              "ms/step", "B/part", "iters", "ns/pass", "ms/step per stage");
}

void print_json_row(const Measurement& m, const Engine& e) {
  std::printf("{\"solver\":\"%s\",\"threads\":%d,\"lanes\":%d,\"particles\":%d,\"neighbours\":%.2f,\"particle_steps_per_s\":%.0f,"
              "\"ms_per_step\":%.4f,\"bytes_per_particle\":%.0f,\"iterations_per_step\":%.2f,"
              "\"solver_passes_per_step\":%.2f,\"pressure_ns_per_particle_pass\":%.2f,\"runs\":%d,\"stage_ms\":{",
              m.solver, e.threads, e.lanes,
              m.particles, m.neighbours, m.particle_steps_per_s, m.ms_per_step,
              m.bytes_per_particle, m.iterations, m.passes, ns_per_pass(m), m.runs);
  for (int k = 0; k < kStageCount; ++k)
    std::printf("%s\"%s\":%.4f", k ? "," : "", stage_name(k), m.stage_ms[k]);
  std::printf("}");
  if (m.speedup > 0.0) {
    std::printf(",\"speedup_vs_1_thread\":%.3f,\"copies_at_once_vs_1_thread\":%.3f", m.speedup,
                m.copies);
  }
  std::printf("}\n");
}

void print_text_row(const Measurement& m, const Engine& e) {
  std::printf("%-11s %8d %6.1f %12.3g %9.3f %6.0f %6.1f ", m.solver, m.particles, m.neighbours,
              m.particle_steps_per_s, m.ms_per_step, m.bytes_per_particle, m.iterations);
  if (m.passes > 0.0) {
    std::printf("%7.1f ", ns_per_pass(m));
  } else {
    std::printf("%7s ", "-");
  }
  for (int k = 0; k < kStageCount; ++k) std::printf(" %s %.3f", stage_name(k), m.stage_ms[k]);
  if (m.speedup > 0.0) std::printf("  %.2fx vs 1 thread (%d copies at once %.2fx)", m.speedup, e.threads, m.copies);
  std::printf("\n");
}

// Per solver, the spread of the cost over the sizes: slowest over fastest,
// per particle-step and (DFSPH) per particle-pass of its solves.
struct Spread {
  const char* solver = nullptr;
  double step = 0.0, pass = 0.0;
};

// Measures and prints one row per size of `solver`, as it comes; false if
// a world could not be built.
bool bench_solver(const char* solver, const BenchArgs& args, double window, const Engine& e, Spread* spread) {
  double step_lo = 1e300, step_hi = 0.0, pass_lo = 1e300, pass_hi = 0.0;
  for (int n : args.sizes) {
    Measurement m{};
    if (!measure(solver, n, window, e, &m)) return false;
    step_lo = std::min(step_lo, m.particle_steps_per_s);
    step_hi = std::max(step_hi, m.particle_steps_per_s);
    if (m.passes > 0.0) {
      pass_lo = std::min(pass_lo, ns_per_pass(m));
      pass_hi = std::max(pass_hi, ns_per_pass(m));
    }
    if (args.json) {
      print_json_row(m, e);
    } else {
      print_text_row(m, e);
    }
    std::fflush(stdout);
  }
  *spread = {solver, step_hi / step_lo, pass_hi > 0.0 ? pass_hi / pass_lo : 0.0};
  return true;
}

// What follows the rows: the spreads, the reference against Müller's step
// at one size, and each solver's 60-fps capacity.
struct Summary {
  std::vector<Spread> spreads;
  int ref_size = 0;
  double ref_best = 0.0, ref_nb = 0.0, ours = 0.0, ratio = 0.0;
  std::vector<std::pair<const char*, Capacity>> caps;
  // FLIP's step in a tank of kTankScale^2 times the area, the same water,
  // over its step in the bench's tank (0 when FLIP is not benched).
  double flip_tank_ratio = 0.0;
};

// The sides of the larger tank the FLIP row compares with: 4x the area.
constexpr float kTankScale = 2.0f;
constexpr int kTankParticles = 16000;

void print_json_summary(const Summary& s) {
  const auto& caps = s.caps;
  std::printf("{\"capacity_60fps\":{");
  for (size_t k = 0; k < caps.size(); ++k)
    std::printf("%s\"%s\":%d", k ? "," : "", caps[k].first, caps[k].second.particles);
  std::printf("},\"capacity_height_ratio\":{");
  for (size_t k = 0; k < caps.size(); ++k)
    std::printf("%s\"%s\":%.4f", k ? "," : "", caps[k].first, caps[k].second.height_ratio);
  std::printf("},\"capacity_peak_bytes_per_particle\":{");
  for (size_t k = 0; k < caps.size(); ++k)
    std::printf("%s\"%s\":%zu", k ? "," : "", caps[k].first, caps[k].second.peak_bytes);
  std::printf("},\"cost_spread\":{");
  for (size_t k = 0; k < s.spreads.size(); ++k)
    std::printf("%s\"%s\":%.3f", k ? "," : "", s.spreads[k].solver, s.spreads[k].step);
  std::printf("},\"pass_cost_spread\":{");
  bool first = true;
  for (const Spread& sp : s.spreads) {
    if (sp.pass <= 0.0) continue;
    std::printf("%s\"%s\":%.3f", first ? "" : ",", sp.solver, sp.pass);
    first = false;
  }
  std::printf("},\"reference_particles\":%d,\"reference_neighbours\":%.2f,"
              "\"reference_particle_steps_per_s\":%.0f,\"ratio\":%.2f",
              s.ref_size, s.ref_nb, s.ref_best, s.ratio);
  if (s.flip_tank_ratio > 0.0) std::printf(",\"flip_tank_4x_step_ratio\":%.3f", s.flip_tank_ratio);
  std::printf("}\n");
}

void print_text_summary(const Summary& s) {
  std::printf("\n");
  for (const Spread& sp : s.spreads) {
    std::printf("cost spread %-11s %.2fx per particle-step, slowest size over fastest", sp.solver, sp.step);
    if (sp.pass > 0.0) std::printf("; %.2fx per particle-pass of the solves", sp.pass);
    std::printf("\n");
  }
  std::printf("reference (seed 000 algorithm, hash map + neighbour lists) at %d particles: "
              "%.3g particle-steps/s; muller2003 here: %.3g; ratio %.2f\n",
              s.ref_size, s.ref_best, s.ours, s.ratio);
  if (s.flip_tank_ratio > 0.0)
    std::printf("flip in a tank of 4x the area, the same water (%d particles): %.2fx the step's cost\n",
                kTankParticles, s.flip_tank_ratio);
  for (const auto& [solver, c] : s.caps)
    std::printf("60-fps capacity %-11s %7d particles (median frame %.1f ms, pool height %.1f %% "
                "of the area-conserving height at t = 5.5-6 s; peak %zu bytes a particle)\n",
                solver, c.particles, c.median_ms, 100.0 * c.height_ratio, c.peak_bytes);
}

}  // namespace

int bench(int argc, char** argv) {
  BenchArgs args;
  if (!parse_bench_args(argc, argv, &args)) return 2;
  ThreadPool pool(args.threads);
  args.lanes = std::min(args.lanes, World::simd_width());  // what the build has (widths 1 < 4 < 8)
  const Engine engine{pool.hook(), args.lanes, args.threads, args.bodies};
  if (args.quick) {
    args.sizes = {1000, 4000};
    args.do_capacity = false;
  }
  const double window = args.quick ? 0.05 : kWindow;
  auto benched = [&](const std::string& name) {
    return std::any_of(args.solvers.begin(), args.solvers.end(), [&](const char* s) { return name == s; });
  };
  if (benched("stable")) {
    if (args.solvers.size() > 1) {
      std::fprintf(stderr, "tidepool bench: --solver stable has a bench of its own: give it alone\n");
      return 2;
    }
    return bench_stable(args.json, args.quick, args.threads, engine.parallel);
  }

  if (!args.json) print_header(engine);
  Summary sum;
  for (const char* solver : args.solvers) {
    Spread spread;
    if (!bench_solver(solver, args, window, engine, &spread)) return 2;
    sum.spreads.push_back(spread);
  }
  // The reference, at the sizes it can manage in reasonable time.
  sum.ref_size = args.quick ? 1000 : 16000;
  sum.ref_best = reference_throughput(sum.ref_size, args.quick ? 0.02 : 0.05, &sum.ref_nb);
  {
    Measurement m{};
    if (!measure("muller2003", sum.ref_size, args.quick ? 0.02 : 0.05, engine, &m)) return 2;
    sum.ours = m.particle_steps_per_s;
  }
  sum.ratio = sum.ref_best > 0 ? sum.ours / sum.ref_best : 0.0;
  // FLIP's cost should follow the water, not the tank: the same column in
  // the bench's tank and in one of 4x its area, over the same early window
  // (the collapse, before the front meets the nearer wall).
  if (benched("flip")) {
    Measurement small{}, large{};
    if (!measure("flip", kTankParticles, window, engine, &small) ||
        !measure("flip", kTankParticles, window, engine, &large, kTankScale))
      return 2;
    sum.flip_tank_ratio = large.ms_per_step / small.ms_per_step;
  }
  if (args.do_capacity)
    for (const char* solver : args.solvers) sum.caps.emplace_back(solver, capacity(solver, 2000, engine));
  if (args.json) {
    print_json_summary(sum);
  } else {
    print_text_summary(sum);
  }
  return 0;
}

}  // namespace tidepool_cli
