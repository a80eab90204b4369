// tidepool soak: seeds played and reported, reproducers written, replayed
// and minimized, and the command line. The actions and the invariants are
// described in soak_session.h; the player is in soak_player.h.
#include "soak.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "soak_player.h"
#include "soak_session.h"
#include "tidepool/params.h"

#ifdef TIDEPOOL_SOAK_STATM
#include <signal.h>
#endif
#if defined(TIDEPOOL_SOAK_ASAN) && defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define TIDEPOOL_SOAK_SANITIZER_HOOK 1
#endif
#endif

using namespace tidepool;

namespace tidepool_cli {

using namespace soak_detail;

namespace {

// --- Reproducers ---------------------------------------------------------------------

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool write_repro(const std::string& path, uint32_t seed, const Rules& rules, const Session& s, long frame,
                 const std::string& violation) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "# tidepool soak reproducer: tidepool soak --replay %s\n", path.c_str());
  std::fprintf(f, "# %s\n", violation.c_str());
  std::fprintf(f, "seed %u\n", seed);
  std::fprintf(f, "plant %ld\n", rules.plant_frame);
  if (rules.only_planted) std::fprintf(f, "only-planted 1\n");
  std::fprintf(f, "max-rss-mb %s\n", fmt(rules.max_rss_bytes / 1048576.0).c_str());
  std::fprintf(f, "violation %ld %s\n", frame, violation.c_str());
  std::fprintf(f, "hash %s\n", hex(s.world().state_hash()).c_str());
  std::fprintf(f, "end %ld\n", frame);
  for (const std::string& line : s.log()) std::fprintf(f, "%s\n", line.c_str());
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  std::fclose(f);
  return ok;
}

// A crash (a signal, or a sanitizer's report) still leaves a reproducer:
// the handler writes the running seed's log and hands the signal on.
// fopen and fprintf are not async-signal-safe; the process is dying
// anyway, and the file is worth the risk.
struct Crash {
  const Session* session = nullptr;
  uint32_t seed = 0;
  Rules rules;
  std::string path;
  bool written = false;
};
Crash g_crash;

// (Unused in a build with neither hook: the browser's.)
[[maybe_unused]] void write_crash_repro(const char* what) {
  Crash& c = g_crash;
  if (!c.session || c.written) return;
  c.written = true;
  const std::string v = "frame " + std::to_string(c.session->frame()) + ": crashed (" + what + ")";
  if (write_repro(c.path, c.seed, c.rules, *c.session, c.session->frame(), v)) {
    std::fprintf(stderr, "tidepool soak: seed %u %s\ntidepool soak: reproducer: tidepool soak --replay %s\n", c.seed,
                 v.c_str(), c.path.c_str());
  }
}

#ifdef TIDEPOOL_SOAK_STATM
struct sigaction g_old_actions[32];
const int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

void on_crash(int sig) {
  write_crash_repro(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                    : sig == SIGILL ? "SIGILL" : "SIGABRT");
  sigaction(sig, &g_old_actions[sig], nullptr);
  raise(sig);
}
#endif

#ifdef TIDEPOOL_SOAK_SANITIZER_HOOK
void on_sanitizer_death() { write_crash_repro("a sanitizer's report"); }
#endif

void install_crash_handlers() {
  static bool done = false;
  if (done) return;
  done = true;
#ifdef TIDEPOOL_SOAK_STATM
  for (int sig : kCrashSignals) {
    struct sigaction a;
    std::memset(&a, 0, sizeof a);
    a.sa_handler = on_crash;
    sigemptyset(&a.sa_mask);
    sigaction(sig, &a, &g_old_actions[sig]);
  }
#endif
#ifdef TIDEPOOL_SOAK_SANITIZER_HOOK
  __sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

SeedReport run_seed(uint32_t seed, const SoakOptions& o) {
  SeedReport r;
  r.seed = seed;
  const double t0 = now_s();
  Rules rules;
  rules.trace = o.trace;
  rules.plant_frame = o.plant_frame;
  rules.only_planted = o.only_planted;
  if (o.max_rss_mb > 0.0) rules.max_rss_bytes = o.max_rss_mb * 1024 * 1024;
  Session s(rules);
  Player player(seed, o);
  const long frames = static_cast<long>(std::ceil(o.seconds * 60.0 - 1e-9));
  const std::string repro = o.out_dir + "/soak-repro-" + std::to_string(seed) + ".txt";
  install_crash_handlers();
  g_crash.session = &s;
  g_crash.seed = seed;
  g_crash.rules = rules;
  g_crash.path = repro;
  g_crash.written = false;
  bool ok = true;
  while (s.frame() < frames && ok) ok = player.play(s);
  g_crash.session = nullptr;
  r.frames = s.frame() + (ok ? 0 : 1);
  r.actions = s.actions;
  r.loads = s.loads;
  r.switches = s.switches;
  r.refusals = s.refusals;
  r.contained_frames = s.contained_frames;
  r.steady_frames = s.steady_frames;
  r.capped_frames = s.capped_frames;
  r.capped_steady_frames = s.capped_steady_frames;
  r.peak_particles = s.peak_particles;
  r.peak_bodies = s.peak_bodies;
  r.body_frames = s.body_frames;
  r.peak_rss_mb = s.peak_rss / 1048576.0;
  r.closest_obstacle = s.closest_obstacle;
  r.wedged = s.wedged;
  r.creviced = s.creviced;
  r.slowest = s.slowest;
  r.most_work_share = s.most_work_share;
  if (!ok) {
    r.violated = true;
    r.violation_frame = s.frame();
    r.violation = s.violation();
    r.repro_path = repro;
    if (!write_repro(r.repro_path, seed, rules, s, s.frame(), r.violation)) r.repro_path.clear();
  }
  r.wall_seconds = now_s() - t0;
  return r;
}

}  // namespace

SoakReport run_soak(const SoakOptions& o) {
  SoakReport report;
  const double t0 = now_s();
  for (uint32_t seed : o.seeds) {
    SeedReport r = run_seed(seed, o);
    report.frames += r.frames;
    report.actions += r.actions;
    report.violations += r.violated ? 1 : 0;
    if (o.log) {
      std::fprintf(o.log,
                   "seed %u: %ld frames, %ld actions (%ld loads, %ld solver switches, %ld refused), peak %d particles, "
                   "peak %d bodies (in %ld frames), peak RSS %.0f MiB, %ld steady frames, safety net in %ld frames, backstop in %ld (%ld steady), "
                   "closest to an obstacle %.2f spacings (inside: %ld at a "
                   "wall, %ld in a crevice), most work %.0f %% of a frame's bound, slowest frame %ld: %.0f ms, %d particles, "
                   "work %.3g (%.0f %% of its bound), "
                   "%s (%.1f s)\n",
                   r.seed, r.frames, r.actions, r.loads, r.switches, r.refusals, r.peak_particles, r.peak_bodies,
                   r.body_frames, r.peak_rss_mb,
                   r.steady_frames, r.contained_frames, r.capped_frames, r.capped_steady_frames, static_cast<double>(std::isfinite(r.closest_obstacle) ? r.closest_obstacle : 0.0f),
                   r.wedged, r.creviced, 100.0 * r.most_work_share, r.slowest.frame, r.slowest.ms,
                   r.slowest.particles, r.slowest.work, 100.0 * r.slowest.work / r.slowest.limit,
                   r.violated ? "VIOLATION" : "ok", r.wall_seconds);
      if (r.violated) {
        std::fprintf(o.log, "  %s\n", r.violation.c_str());
        if (r.repro_path.empty())
          std::fprintf(o.log, "  (the reproducer could not be written to %s)\n", o.out_dir.c_str());
        else
          std::fprintf(o.log, "  reproducer: tidepool soak --replay %s\n", r.repro_path.c_str());
      }
      std::fflush(o.log);
    }
    report.seeds.push_back(std::move(r));
  }
  if (o.log && !report.seeds.empty()) {
    std::string seeds;
    for (size_t k = 0; k < o.seeds.size(); ++k) seeds += (k ? "," : "") + std::to_string(o.seeds[k]);
    long capped = 0, capped_steady = 0;
    for (const SeedReport& r : report.seeds) {
      capped += r.capped_frames;
      capped_steady += r.capped_steady_frames;
    }
    std::fprintf(o.log, "soak: %ld frames, %ld actions, seeds %s, %d violations, backstop in %ld frames (%ld steady) (%.1f s)\n",
                 report.frames, report.actions, seeds.c_str(), report.violations, capped, capped_steady, now_s() - t0);
    auto most = [&](auto field) {
      return *std::max_element(report.seeds.begin(), report.seeds.end(),
                               [&](const SeedReport& a, const SeedReport& b) { return field(a) < field(b); });
    };
    const SeedReport& longest = most([](const SeedReport& x) { return x.wall_seconds; });
    const SeedReport& slowest = most([](const SeedReport& x) { return x.slowest.ms; });
    std::fprintf(o.log, "soak: longest seed %u (%.1f s); slowest frame: seed %u frame %ld, %.0f ms, %d particles, work %.3g (%.0f %% of its bound)\n",
                 longest.seed, longest.wall_seconds, slowest.seed, slowest.slowest.frame, slowest.slowest.ms,
                 slowest.slowest.particles, slowest.slowest.work, 100.0 * slowest.slowest.work / slowest.slowest.limit);
  }
  return report;
}

namespace {

// A reproducer file: its header and its actions.
struct Repro {
  uint32_t seed = 0;
  Rules rules;
  long end = -1;
  long recorded_frame = -1;
  std::string recorded_violation;
  uint64_t recorded_hash = 0;
  std::vector<std::pair<long, std::string>> actions;
};

bool read_repro(const std::string& path, Repro* r, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read";
    return false;
  }
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    long v = 0;
    if (key == "seed") r->seed = static_cast<uint32_t>(std::strtoul(rest.c_str(), nullptr, 10));
    else if (key == "plant") r->rules.plant_frame = std::strtol(rest.c_str(), nullptr, 10);
    else if (key == "only-planted") r->rules.only_planted = rest == "1";
    else if (key == "max-rss-mb") r->rules.max_rss_bytes = std::strtod(rest.c_str(), nullptr) * 1024 * 1024;
    else if (key == "end") r->end = std::strtol(rest.c_str(), nullptr, 10);
    else if (key == "hash") r->recorded_hash = std::strtoull(rest.c_str(), nullptr, 16);
    else if (key == "violation") {
      const size_t sp2 = rest.find(' ');
      r->recorded_frame = std::strtol(rest.c_str(), nullptr, 10);
      r->recorded_violation = sp2 == std::string::npos ? "" : rest.substr(sp2 + 1);
    } else if (parse_long(key, &v)) {
      r->actions.emplace_back(v, rest);
    } else {
      *error = path + ":" + std::to_string(line_no) + ": unreadable line";
      return false;
    }
  }
  if (r->actions.empty() || r->end < r->actions.front().first) {
    *error = path + ": no actions, or no end frame";
    return false;
  }
  return true;
}

// Runs a reproducer's actions from its first frame through its end.
ReplayReport run_repro(const Repro& repro, FILE* trace) {
  ReplayReport r;
  r.loaded = true;
  r.seed = repro.seed;
  r.recorded_frame = repro.recorded_frame;
  r.recorded_violation = repro.recorded_violation;
  r.recorded_hash = repro.recorded_hash;
  Rules rules = repro.rules;
  rules.trace = trace;
  Session s(rules);
  s.set_frame(repro.actions.front().first);
  size_t next = 0;
  while (s.frame() <= repro.end) {
    bool ok = true;
    while (ok && next < repro.actions.size() && repro.actions[next].first <= s.frame()) {
      const Outcome out = s.apply(repro.actions[next++].second);
      if (out == Outcome::Malformed) {
        r.loaded = false;
        r.error = s.violation();
        return r;
      }
      ok = out == Outcome::Ok;
    }
    if (ok) ok = s.advance();
    if (!ok) {
      r.violated = true;
      r.violation_frame = s.frame();
      r.violation = s.violation();
      r.hash = s.world().state_hash();
      break;
    }
  }
  r.frames = s.frame() - repro.actions.front().first + (r.violated ? 1 : 0);
  r.actions = s.actions;
  return r;
}

// What kind of violation a message names: its words before the first
// colon after the frame, numbers left out ("particle (id) is spacings
// inside obstacle (circle r)", "the safety net fired in steady play").
std::string kind_of(const std::string& violation) {
  std::string v = violation;
  if (v.compare(0, 6, "frame ") == 0) v = v.substr(std::min(v.size(), v.find(':') + 2));
  v = v.substr(0, v.find(':'));
  std::string out;
  for (char c : v)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == 'e')) out += c;
  return out;
}

}  // namespace

ReplayReport replay_soak(const std::string& path, FILE* log, FILE* trace) {
  Repro repro;
  std::string error;
  if (!read_repro(path, &repro, &error)) {
    ReplayReport r;
    r.error = error;
    return r;
  }
  ReplayReport r = run_repro(repro, trace);
  if (!r.loaded) r.error = path + ": " + r.error;
  if (log && r.loaded) {
    if (r.violated) {
      const bool same = r.violation_frame == r.recorded_frame && r.violation == r.recorded_violation;
      std::fprintf(log, "replay %s: %ld frames, %ld actions; %s\n", path.c_str(), r.frames, r.actions,
                   r.violation.c_str());
      std::fprintf(log, "replay: %s (state hash %s, recorded %s)\n",
                   same ? "reproduced the recorded violation" : "a different violation than the recorded one",
                   hex(r.hash).c_str(), hex(r.recorded_hash).c_str());
    } else {
      std::fprintf(log, "replay %s: %ld frames, %ld actions, no violation (recorded: %s)\n", path.c_str(), r.frames,
                   r.actions, r.recorded_violation.c_str());
    }
  }
  return r;
}

int minimize_repro(const std::string& path, FILE* log) {
  Repro repro;
  std::string error;
  if (!read_repro(path, &repro, &error)) {
    std::fprintf(stderr, "tidepool soak: %s\n", error.c_str());
    return 2;
  }
  ReplayReport first = run_repro(repro, nullptr);
  if (!first.loaded || !first.violated) {
    std::fprintf(stderr, "tidepool soak: %s: %s\n", path.c_str(),
                 first.loaded ? "replays with no violation: nothing to minimize" : first.error.c_str());
    return 2;
  }
  const std::string kind = kind_of(first.violation);
  repro.end = first.violation_frame;
  // The preamble and the load stay; chunks of the other lines go while the
  // same kind of violation remains (a greedy ddmin).
  size_t keep = 0;
  while (keep < repro.actions.size() && repro.actions[keep].second.compare(0, 5, "load ") != 0) ++keep;
  ++keep;
  ReplayReport best = first;
  for (size_t chunk = std::max<size_t>(1, (repro.actions.size() - std::min(keep, repro.actions.size())) / 2);
       chunk >= 1; chunk /= 2) {
    for (size_t at = keep; at < repro.actions.size();) {
      Repro trial = repro;
      const size_t to = std::min(trial.actions.size(), at + chunk);
      trial.actions.erase(trial.actions.begin() + static_cast<long>(at), trial.actions.begin() + static_cast<long>(to));
      const ReplayReport r = run_repro(trial, nullptr);
      if (r.loaded && r.violated && kind_of(r.violation) == kind) {
        repro = trial;
        repro.end = r.violation_frame;
        best = r;
      } else {
        at = to;
      }
    }
    if (chunk == 1) break;
  }
  const std::string out = path + ".min.txt";
  FILE* f = std::fopen(out.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "tidepool soak: %s: cannot write\n", out.c_str());
    return 2;
  }
  std::fprintf(f, "# tidepool soak reproducer, minimized from %s: tidepool soak --replay %s\n", path.c_str(),
               out.c_str());
  std::fprintf(f, "# %s\n", best.violation.c_str());
  std::fprintf(f, "seed %u\nplant %ld\nmax-rss-mb %s\n", repro.seed, repro.rules.plant_frame, fmt(repro.rules.max_rss_bytes / 1048576.0).c_str());
  if (repro.rules.only_planted) std::fprintf(f, "only-planted 1\n");
  std::fprintf(f, "violation %ld %s\nhash %s\nend %ld\n", best.violation_frame, best.violation.c_str(),
               hex(best.hash).c_str(), repro.end);
  for (const auto& a : repro.actions) std::fprintf(f, "%ld %s\n", a.first, a.second.c_str());
  std::fclose(f);
  if (log)
    std::fprintf(log, "minimized %s: %zu actions left, %s\nreproducer: tidepool soak --replay %s\n", path.c_str(),
                 repro.actions.size(), best.violation.c_str(), out.c_str());
  return 1;
}

namespace {

const char* kSoakUsage =
    "usage: tidepool soak [--seconds S] [--seed N]... [--seeds A-B] [--max-particles N]\n"
    "                     [--out DIR] [--max-rss-mb MB] [--plant-violation FRAME] [--quiet]\n"
    "                     [--trace]\n"
    "       tidepool soak --replay FILE [--trace]\n"
    "       tidepool soak --minimize FILE       (writes FILE.min.txt: the fewest actions that still fail)\n";

bool parse_seeds(const std::string& s, std::vector<uint32_t>* out) {
  const size_t dash = s.find('-');
  long a = 0, b = 0;
  if (dash == std::string::npos) {
    if (!parse_long(s, &a) || a < 0) return false;
    out->push_back(static_cast<uint32_t>(a));
    return true;
  }
  if (!parse_long(s.substr(0, dash), &a) || !parse_long(s.substr(dash + 1), &b) || a < 0 || b < a || b - a > 100000)
    return false;
  for (long k = a; k <= b; ++k) out->push_back(static_cast<uint32_t>(k));
  return true;
}

// The command line, read: the options, the file to replay or minimize, and
// what was wrong with it.
struct Args {
  SoakOptions o;
  std::string replay, minimize;
  std::vector<std::string> problems;
};

Args parse_args(int argc, char** argv) {
  Args r;
  SoakOptions& o = r.o;
  std::vector<std::string>& problems = r.problems;
  o.seeds.clear();
  for (int k = 0; k < argc; ++k) {
    const std::string a = argv[k];
    const char* v = k + 1 < argc ? argv[k + 1] : nullptr;
    auto number = [&](double lo, double hi, double* out) {
      char* end = nullptr;
      const double x = v ? std::strtod(v, &end) : 0.0;
      if (!v || end == v || *end || !(x >= lo && x <= hi)) {
        problems.push_back(a + ": expects a number in [" + fmt(lo) + ", " + fmt(hi) + "]");
        return false;
      }
      *out = x;
      ++k;
      return true;
    };
    double x = 0.0;
    if (a == "--seconds") {
      number(0.0, 1e7, &o.seconds);
    } else if (a == "--seed" || a == "--seeds") {
      if (!v || !parse_seeds(v, &o.seeds)) problems.push_back(a + ": expects N or A-B");
      ++k;
    } else if (a == "--max-particles") {
      if (number(1, kMaxParticles, &x)) o.max_particles = static_cast<int>(x);
    } else if (a == "--plant-violation") {
      if (number(0, 1e12, &x)) o.plant_frame = static_cast<long>(x);
    } else if (a == "--max-rss-mb") {
      number(1, 1e7, &o.max_rss_mb);
    } else if (a == "--out") {
      if (v) o.out_dir = v;
      else problems.push_back("--out: expects a folder");
      ++k;
    } else if (a == "--replay") {
      if (v) r.replay = v;
      else problems.push_back("--replay: expects a file");
      ++k;
    } else if (a == "--minimize") {
      if (v) r.minimize = v;
      else problems.push_back("--minimize: expects a file");
      ++k;
    } else if (a == "--trace") {
      o.trace = stderr;
    } else if (a == "--quiet") {
      o.log = nullptr;
    } else {
      problems.push_back("'" + a + "': unknown argument");
    }
  }
  return r;
}

}  // namespace

int soak(int argc, char** argv) {
  Args args = parse_args(argc, argv);
  SoakOptions& o = args.o;
  if (!args.problems.empty()) {
    for (const std::string& p : args.problems) std::fprintf(stderr, "tidepool soak: %s\n", p.c_str());
    std::fprintf(stderr, "%s", kSoakUsage);
    return 2;
  }
  if (!args.minimize.empty()) return minimize_repro(args.minimize, stdout);
  if (!args.replay.empty()) {
    const ReplayReport r = replay_soak(args.replay, stdout, o.trace);
    if (!r.loaded) {
      std::fprintf(stderr, "tidepool soak: %s\n", r.error.c_str());
      return 2;
    }
    return r.violated ? 1 : 0;
  }
  if (o.seeds.empty()) o.seeds.push_back(1);
  const SoakReport r = run_soak(o);
  if (!o.log) {
    std::printf("soak: %ld frames, %ld actions, %zu seeds, %d violations\n", r.frames, r.actions, r.seeds.size(),
                r.violations);
    for (const SeedReport& s : r.seeds)
      if (s.violated) std::printf("seed %u: %s; reproducer %s\n", s.seed, s.violation.c_str(), s.repro_path.c_str());
  }
  return r.violations == 0 ? 0 : 1;
}

}  // namespace tidepool_cli
