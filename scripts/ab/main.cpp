// scripts/ab.sh's program: two builds of the core (side.cpp, once for each)
// step copies of one state in turn, the order swapped every pair, and the
// median of the pairs' time ratios is printed with its quartiles.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "thread_pool.h"

// ParallelFor's run, as side.cpp takes it (the sides' ParallelFor types
// live in namespaces of their own, with this same layout).
using RunFn = decltype(tidepool::ParallelFor::run);
bool base_setup(int particles, const char* solver, RunFn run, void* user);
bool work_setup(int particles, const char* solver, RunFn run, void* user);
double base_step(uint64_t* hash, double* stages);
double work_step(uint64_t* hash, double* stages);
int base_stages();
const char* base_stage_name(int stage);

static double at(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: ab PARTICLES|GRID muller2003|dfsph|flip|stable PAIRS THREADS\n");
    return 2;
  }
  const int particles = std::atoi(argv[1]), pairs = std::atoi(argv[3]), threads = std::atoi(argv[4]);
  bool known = false;
  for (const char* solver : {"muller2003", "dfsph", "flip", "stable"}) known = known || std::strcmp(argv[2], solver) == 0;
  if (particles < 1 || pairs < 1 || threads < 1 || !known) {
    std::fprintf(stderr, "ab: PARTICLES, PAIRS and THREADS must be positive, the solver muller2003, dfsph, flip or stable\n");
    return 2;
  }
  // One pool for both sides: a pool each would leave one's workers spinning
  // while the other steps.
  tidepool::ThreadPool pool(threads);
  const tidepool::ParallelFor hook = pool.hook();
  if (!base_setup(particles, argv[2], hook.run, hook.user) || !work_setup(particles, argv[2], hook.run, hook.user))
    return 1;
  uint64_t hash_base = 0, hash_work = 0;
  const int stages = base_stages();
  std::vector<double> sb(stages), sw(stages);
  base_step(&hash_base, sb.data());  // a first step each, untimed
  work_step(&hash_work, sw.data());
  std::vector<double> base, work, ratio;
  std::vector<std::vector<double>> stage_ratio(stages);  // per stage, the pairs' work / base
  for (int k = 0; k < pairs; ++k) {
    double b, w;
    if (k % 2) {
      w = work_step(&hash_work, sw.data());
      b = base_step(&hash_base, sb.data());
    } else {
      b = base_step(&hash_base, sb.data());
      w = work_step(&hash_work, sw.data());
    }
    base.push_back(b);
    work.push_back(w);
    ratio.push_back(w / b);
    for (int s = 0; s < stages; ++s)
      if (sb[s] > 0.0) stage_ratio[s].push_back(sw[s] / sb[s]);
  }
  std::printf("%s, %d %s, %d pairs of steps from one state, %d thread%s\n", argv[2], particles, std::strcmp(argv[2], "stable") == 0 ? "cells a side" : "particles", pairs,
              threads, threads > 1 ? "s" : "");
  std::printf("base %.1f us, work %.1f us a step (medians)\n", at(base, 0.5), at(work, 0.5));
  std::printf("work / base: median %.3f (quartiles %.3f-%.3f)\n", at(ratio, 0.5), at(ratio, 0.25),
              at(ratio, 0.75));
  std::printf("by stage (median of the pairs' ratios):");
  for (int s = 0; s < stages; ++s)
    if (stage_ratio[s].size() * 2 > ratio.size()) std::printf(" %s %.3f", base_stage_name(s), at(stage_ratio[s], 0.5));
  std::printf("\n");
  std::printf("state hash after the step: %s (%016llx, %016llx)\n",
              hash_base == hash_work ? "same" : "different", static_cast<unsigned long long>(hash_base),
              static_cast<unsigned long long>(hash_work));
  return 0;
}
