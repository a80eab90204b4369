// tidepool — headless runner of the Tidepool SPH core.
//
//   tidepool scenes
//   tidepool params
//   tidepool run --scene NAME [--particles N] [--time S] [--preset P]
//                [--set key=value ...] [--dump FILE.csv] [--dump-every S]
//                [--stats FILE.jsonl] [--lanes 1|4|8] [--body SPEC]... [--dump-bodies FILE.csv]
//   tidepool bench [--json] [--quick] [--sizes 1000,4000,...]
//   tidepool soak [--seconds S] [--seed N] ... | tidepool soak --replay FILE
//
// Exit status: 0 done, 1 an output file could not be written, 2 bad
// arguments or parameters (one line per problem on stderr).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "soak.h"
#include "tidepool/params.h"
#include "tidepool/scenes.h"
#include "tidepool/world.h"

using namespace tidepool;

namespace {

const char* kUsage =
    "usage: tidepool scenes\n"
    "       tidepool params\n"
    "       tidepool run --scene NAME [--particles N] [--time SECONDS] [--preset NAME]\n"
    "                    [--set key=value ...] [--dump FILE.csv] [--dump-every SECONDS]\n"
    "                    [--stats FILE.jsonl] [--lanes 1|4|8] [--dump-bodies FILE.csv]\n"
    "                    [--body box,W,H,DENSITY,X,Y | disc,R,DENSITY,X,Y | boat,LENGTH,DENSITY,X,Y]...\n"
    "       tidepool bench [--json] [--quick] [--sizes N,N,...] [--solver NAME]...\n"
    "                      [--threads N] [--lanes 1|4|8] [--scalar] [--no-capacity] [--body SPEC]...\n"
    "       tidepool soak [--seconds S] [--seed N]... [--seeds A-B] [--max-particles N]\n"
    "                     [--out DIR] [--max-rss-mb MB] [--plant-violation FRAME] [--quiet]\n"
    "       tidepool soak --replay FILE\n";

int list_scenes() {
  for (const SceneInfo& s : scenes())
    std::printf("%-14s %6d  %s\n", s.name, s.default_particles, s.description);
  return 0;
}

int list_params() {
  const Params defaults;
  std::printf("%-18s %-12s %-24s %s\n", "name", "default", "range", "meaning");
  for (const ParamInfo& p : param_table()) {
    std::string range;
    if (p.type == ParamInfo::Type::Choice) {
      range = p.choices;
    } else {
      char buf[64];
      std::snprintf(buf, sizeof buf, "[%g, %g]", static_cast<double>(p.min),
                    static_cast<double>(p.max));
      range = buf;
    }
    std::printf("%-18s %-12s %-24s %s\n", p.name, format_param_value(p, p.get(defaults)).c_str(),
                range.c_str(), p.help);
  }
  std::printf("\npresets (--preset NAME):\n");
  for (const PresetInfo& p : presets()) std::printf("  %-10s %s\n", p.name, p.description);
  std::printf("\nh, mass and surface_threshold are derived by each scene from its particle spacing unless set.\n");
  return 0;
}

// Parses a whole non-negative number of seconds or count; false on junk.
bool parse_number(const char* text, double* out) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

double steady_ms(void*) {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// A file written under a temporary name and renamed only when complete, so a
// failed run never leaves a file that looks finished.
struct AtomicFile {
  std::string path, tmp;
  FILE* f = nullptr;
  bool open(const std::string& p) {
    path = p;
    tmp = p + ".partial";
    f = std::fopen(tmp.c_str(), "w");
    return f != nullptr;
  }
  bool commit() {
    if (!f) return true;
    const bool ok = std::fflush(f) == 0 && !std::ferror(f);
    std::fclose(f);
    f = nullptr;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::remove(tmp.c_str());
      return false;
    }
    return true;
  }
  ~AtomicFile() {
    if (f) {
      std::fclose(f);
      std::remove(tmp.c_str());
    }
  }
};

// A grid solver's frame: a row per cell centre, u and v interpolated there.
void dump_cells(FILE* f, const World& w) {
  const FieldView& g = *w.field();
  const double t = w.time();
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      const int c = j * g.nx + i;
      const float x = g.origin.x + (static_cast<float>(i) + 0.5f) * g.cell;
      const float y = g.origin.y + (static_cast<float>(j) + 0.5f) * g.cell;
      std::fprintf(f, "%.6f,%d,%d,%.7g,%.7g,%.7g,%.7g,%.7g,%.7g,%.7g,%.7g\n", t, i, j, static_cast<double>(x),
                   static_cast<double>(y), static_cast<double>(g.u[c]), static_cast<double>(g.v[c]),
                   static_cast<double>(g.pressure[c]), static_cast<double>(g.dye[0][c]),
                   static_cast<double>(g.dye[1][c]), static_cast<double>(g.dye[2][c]));
    }
}

// A row per body: its pose and velocity (--dump-bodies).
void dump_bodies(FILE* f, const World& w) {
  for (const Body& b : w.bodies())
    std::fprintf(f, "%.6f,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", w.time(), b.id, body_kind_name(b.def.shape.kind),
                 static_cast<double>(b.position.x), static_cast<double>(b.position.y), static_cast<double>(b.angle),
                 static_cast<double>(b.velocity.x), static_cast<double>(b.velocity.y), static_cast<double>(b.omega));
}

void dump_frame(FILE* f, const World& w) {
  if (w.field()) return dump_cells(f, w);
  const Particles& p = w.particles();
  const double t = w.time();
  for (int i = 0; i < p.size(); ++i) {
    std::fprintf(f, "%.6f,%u,%.7g,%.7g,%.7g,%.7g,%.7g,%.7g\n", t, p.id[i],
                 static_cast<double>(p.x[i]), static_cast<double>(p.y[i]),
                 static_cast<double>(p.vx[i]), static_cast<double>(p.vy[i]),
                 static_cast<double>(p.density[i]), static_cast<double>(p.pressure[i]));
  }
}

void write_stats(FILE* f, long frame, const FrameStats& s) {
  std::fprintf(f, "{\"frame\":%ld", frame);
  for (const FrameStatField& field : frame_stat_fields()) {
    const double v = field.get(s);
    if (field.type == FrameStatField::Type::Bool) std::fprintf(f, ",\"%s\":%s", field.name, v != 0.0 ? "true" : "false");
    else if (field.type == FrameStatField::Type::Int) std::fprintf(f, ",\"%s\":%.0f", field.name, v);
    else if (std::isfinite(v)) std::fprintf(f, ",\"%s\":%.6g", field.name, v);
    else std::fprintf(f, ",\"%s\":null", field.name);  // no bound yet: JSON has no infinity
  }
  std::fprintf(f, ",\"stage_ms\":{");
  for (int k = 0; k < kStageCount; ++k)
    std::fprintf(f, "%s\"%s\":%.4f", k ? "," : "", stage_name(k), s.stage_ms[k]);
  std::fprintf(f, "},\"stage_work\":{");
  for (int k = 0; k < kStageCount; ++k)
    std::fprintf(f, "%s\"%s\":%.6g", k ? "," : "", stage_name(k), s.stage_work[k]);
  std::fprintf(f, "}}\n");
}

// What `tidepool run` was asked for.
struct RunArgs {
  std::string scene, dump_path, stats_path, bodies_path;
  SceneSetup setup;
  double seconds = 5.0, dump_every = 0.1;
  int lanes = World::simd_width();
};

// --set key=value: adds the override to *setup, or the problem to *problems.
void parse_set(const std::string& kv, SceneSetup* setup, std::vector<std::string>* problems) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos) {
    problems->push_back("--set " + kv + ": expected key=value");
    return;
  }
  const std::string key = kv.substr(0, eq);
  const ParamInfo* info = find_param(key);
  if (!info) {
    problems->push_back("--set " + kv + ": unknown parameter '" + key + "' (see `tidepool params`)");
    return;
  }
  float value = 0.0f;
  std::string err;
  if (!parse_param_value(*info, kv.substr(eq + 1), &value, &err)) {
    problems->push_back("--set " + err);
    return;
  }
  setup->overrides.emplace_back(key, value);
}

// The arguments after `run`. Every problem goes to *problems, and the
// parsing goes on, so that one run reports them all.
RunArgs parse_run_args(int argc, char** argv, std::vector<std::string>* problems) {
  RunArgs r;
  auto need_value = [&](int& k) -> const char* {
    if (k + 1 >= argc) {
      problems->push_back(std::string(argv[k]) + ": missing value");
      return nullptr;
    }
    return argv[++k];
  };
  for (int k = 0; k < argc; ++k) {
    const std::string a = argv[k];
    double v = 0.0;
    if (a == "--scene") {
      if (const char* s = need_value(k)) r.scene = s;
    } else if (a == "--particles") {
      if (const char* s = need_value(k)) {
        if (!parse_number(s, &v) || v != std::floor(v) || v < 1 || v > kMaxParticles)
          problems->push_back("--particles " + std::string(s) + ": must be a whole number in [1, " +
                              std::to_string(kMaxParticles) + "]");
        else
          r.setup.particles = static_cast<int>(v);
      }
    } else if (a == "--time") {
      if (const char* s = need_value(k)) {
        if (!parse_number(s, &v) || v < 0 || v > 1e5)
          problems->push_back("--time " + std::string(s) + ": must be seconds in [0, 100000]");
        else
          r.seconds = v;
      }
    } else if (a == "--dump-every") {
      if (const char* s = need_value(k)) {
        if (!parse_number(s, &v) || v <= 0 || v > 1e5)
          problems->push_back("--dump-every " + std::string(s) + ": must be seconds in (0, 100000]");
        else
          r.dump_every = v;
      }
    } else if (a == "--lanes") {
      if (const char* s = need_value(k)) {
        if (!parse_number(s, &v) || (v != 1 && v != 4 && v != 8))
          problems->push_back("--lanes " + std::string(s) + ": must be 1, 4 or 8");
        else
          r.lanes = static_cast<int>(v);
      }
    } else if (a == "--preset") {
      if (const char* s = need_value(k)) r.setup.preset = s;
    } else if (a == "--dump") {
      if (const char* s = need_value(k)) r.dump_path = s;
    } else if (a == "--stats") {
      if (const char* s = need_value(k)) r.stats_path = s;
    } else if (a == "--body") {
      if (const char* s = need_value(k)) {
        BodyDef def;
        std::string err;
        if (parse_body(s, &def, &err)) r.setup.bodies.push_back(def);
        else problems->push_back("--body " + err);
      }
    } else if (a == "--dump-bodies") {
      if (const char* s = need_value(k)) r.bodies_path = s;
    } else if (a == "--set") {
      if (const char* s = need_value(k)) parse_set(s, &r.setup, problems);
    } else {
      problems->push_back("'" + a + "': unknown argument");
    }
  }
  return r;
}

// Loads the scene into `world`. The scene checks its name, the particle
// count and every --set value; each line of its error joins *problems.
void load_run_scene(World& world, const RunArgs& args, std::vector<std::string>* problems) {
  std::string err;
  if (load_scene(world, args.scene, args.setup, &err)) return;
  size_t start = 0;
  while (start <= err.size()) {
    const size_t nl = err.find('\n', start);
    problems->push_back(err.substr(start, nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
}

// Advances the loaded world by args.seconds in 1/60 s frames, writing the
// dump and the stats as it goes, and prints the final state's line. The
// exit status: 0, or 1 if an output file could not be written.
int simulate(World& world, const RunArgs& args) {
  AtomicFile dump, stats, bodies;
  if (!args.bodies_path.empty() && !bodies.open(args.bodies_path)) {
    std::fprintf(stderr, "tidepool: --dump-bodies %s: cannot write\n", args.bodies_path.c_str());
    return 1;
  }
  if (!args.dump_path.empty() && !dump.open(args.dump_path)) {
    std::fprintf(stderr, "tidepool: --dump %s: cannot write\n", args.dump_path.c_str());
    return 1;
  }
  if (!args.stats_path.empty() && !stats.open(args.stats_path)) {
    std::fprintf(stderr, "tidepool: --stats %s: cannot write\n", args.stats_path.c_str());
    return 1;
  }
  if (dump.f) {
    std::fprintf(dump.f, world.field() ? "t,i,j,x,y,u,v,pressure,dye_r,dye_g,dye_b\n"
                                       : "t,id,x,y,vx,vy,density,pressure\n");
    dump_frame(dump.f, world);
  }
  if (bodies.f) {
    std::fprintf(bodies.f, "t,id,shape,x,y,angle,vx,vy,omega\n");
    dump_bodies(bodies.f, world);
  }
  const double frame = 1.0 / 60.0;
  const long frames = static_cast<long>(std::ceil(args.seconds / frame - 1e-9));
  double next_dump = args.dump_every;
  const Clock clock{&steady_ms, nullptr};
  FrameStats last;
  int contained_frames = 0;
  for (long f = 1; f <= frames; ++f) {
    last = world.advance(static_cast<float>(frame), clock);
    contained_frames += last.contained ? 1 : 0;
    if (stats.f) write_stats(stats.f, f, last);
    if (world.time() + 1e-9 >= next_dump) {
      if (dump.f) dump_frame(dump.f, world);
      if (bodies.f) dump_bodies(bodies.f, world);
      next_dump += args.dump_every;
    }
  }
  if (!dump.commit()) {
    std::fprintf(stderr, "tidepool: --dump %s: write failed\n", args.dump_path.c_str());
    return 1;
  }
  if (!bodies.commit()) {
    std::fprintf(stderr, "tidepool: --dump-bodies %s: write failed\n", args.bodies_path.c_str());
    return 1;
  }
  if (!stats.commit()) {
    std::fprintf(stderr, "tidepool: --stats %s: write failed\n", args.stats_path.c_str());
    return 1;
  }
  if (world.field()) {
    std::printf("%s: %d cells, t = %.3f s, max speed %.2f m/s, max |div u| %.3g 1/s, %d projection iterations "
                "in the last frame, %d substeps, %d lanes, hash %016llx\n",
                args.scene.c_str(), last.cells, world.time(), static_cast<double>(last.max_speed),
                static_cast<double>(last.max_divergence), last.solver_iterations, last.substeps, world.lanes(),
                static_cast<unsigned long long>(world.state_hash()));
    return 0;
  }
  std::printf(
      "%s: %d particles, t = %.3f s, mean density error %.3f %%, max speed %.2f m/s, "
      "%d substeps in the last frame, %d frames contained by the safety net, %d lanes, hash %016llx\n",
      args.scene.c_str(), last.particles, world.time(), 100.0 * last.mean_density_error,
      static_cast<double>(last.max_speed), last.substeps, contained_frames, world.lanes(),
      static_cast<unsigned long long>(world.state_hash()));
  return 0;
}

int run(int argc, char** argv) {
  std::vector<std::string> problems;
  const RunArgs args = parse_run_args(argc, argv, &problems);
  if (args.scene.empty()) problems.push_back("--scene: required (see `tidepool scenes`)");
  World world;
  // The scene is loaded even when the arguments already had problems, so
  // that all of them are reported at once.
  if (!args.scene.empty()) load_run_scene(world, args, &problems);
  if (!problems.empty()) {
    for (const std::string& p : problems) std::fprintf(stderr, "tidepool: %s\n", p.c_str());
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  // Lanes the build lacks round down (World::set_lanes): the state hash
  // names the width that ran.
  world.set_lanes(args.lanes);
  return simulate(world, args);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "scenes") return list_scenes();
  if (cmd == "params") return list_params();
  if (cmd == "run") return run(argc - 2, argv + 2);
  if (cmd == "bench") return tidepool_cli::bench(argc - 2, argv + 2);
  if (cmd == "soak") return tidepool_cli::soak(argc - 2, argv + 2);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::printf("%s", kUsage);
    return 0;
  }
  std::fprintf(stderr, "tidepool: '%s': unknown command\n%s", cmd.c_str(), kUsage);
  return 2;
}
