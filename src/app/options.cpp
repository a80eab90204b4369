// Tidepool app — options from the command line, or from the page's query
// string (the shell passes ?scene=drop as --scene drop). Every value is
// checked here, once for both: a bad one is reported and ignored, never fatal.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

#include "app.h"

namespace tidepool::app {

void warn(const std::string& text) {
#ifdef __EMSCRIPTEN__
  // console.warn: visible in the browser console, and not an error.
  emscripten_log(EM_LOG_CONSOLE | EM_LOG_WARN, "tidepool: %s", text.c_str());
#else
  std::fprintf(stderr, "tidepool: %s\n", text.c_str());
#endif
}

namespace {

// Quoted and cut short for messages: values come from URLs.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out + (s.size() > 40 ? "...\"" : "\"");
}

bool parse_bool(const std::string& s, bool* out) {
  if (s == "1" || s == "true" || s == "yes" || s == "on") return *out = true, true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return *out = false, true;
  return false;
}

bool parse_int(const std::string& s, int lo, int hi, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  const long v = std::strtol(s.c_str(), nullptr, 10);
  if (v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

bool parse_float(const std::string& s, float lo, float hi, float* out) {
  char* end = nullptr;
  const float v = std::strtof(s.c_str(), &end);
  if (s.empty() || s.size() > 20 || *end != '\0' || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

// The options, for --help natively. The page passes only the query
// parameters it knows (shell/index.html), never --help, so the page carries
// none of this text.
void usage() {
#ifdef __EMSCRIPTEN__
  std::printf("usage: see README.md\n");
#else
  std::printf(
      "usage: tidepool_app [--scene NAME] [--particles N] [--solver NAME] [--color MODE] [--paused] [--embed]\n"
      "                    [--threads N] [--frames N] [--screenshot FILE.png]   (--key=value works too)\n"
      "  --scene      one of:");
  for (const tidepool::SceneInfo& s : tidepool::scenes()) std::printf(" %s", s.name);
  std::printf("\n  --particles  %d..%d (default: the scene's; grid scenes have none)\n", kMinParticles,
              tidepool::kMaxParticles);
  std::printf("  --solver     the liquid's method in the particle scenes: flip (their own), dfsph, muller2003\n");
  std::printf("  --color      %s\n", color_mode_list().c_str());
  std::printf("               (particles: water, speed, density, pressure, surface, liquid;\n"
              "                grids: dye, speed, pressure, vorticity; one that does not fit the scene\n"
              "                gives way to liquid or dye; default liquid)\n");
  std::printf("  --paused     start paused (also --paused 0/1)\n");
  std::printf("  --embed      start with the panel folded behind a button\n");
  std::printf("  --bg transparent  the page shows through where there is no water or dye\n");
  std::printf("  --ui 0       no panel;  --walls 0  no tank drawn;  --hover 1  the mouse stirs without a button\n");
  std::printf("  --palette    dye colours in turn, hex, comma-separated (up to %d);  --water  the water's colour\n",
              Look::kMaxPalette);
  std::printf("  --splats S   a random splat every S seconds (0: none), drawn from --seed N\n");
  std::printf("  --dye core   draw the simulation's own dye (the page's sharp copy is the default)\n");
  std::printf("  --threads    1..%d simulation threads (default: one per core, at most %d)\n", kMaxThreads, kMaxThreads);
  std::printf("  --frames     quit after N frames (smoke tests)\n");
  std::printf("  --screenshot save the last frame (of --frames N) as a PNG\n");
#endif
}

}  // namespace

bool parse_hex_colour(const std::string& text, glm::vec3* colour) {
  const std::string hex = !text.empty() && text[0] == '#' ? text.substr(1) : text;
  if (hex.size() != 6) return false;
  float c[3];
  for (int k = 0; k < 3; ++k) {
    int byte = 0;
    for (int d = 0; d < 2; ++d) {
      const char ch = hex[2 * k + d];
      const int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
      if (v < 0) return false;
      byte = 16 * byte + v;
    }
    c[k] = byte / 255.0f;
  }
  *colour = {c[0], c[1], c[2]};
  return true;
}

std::string hex_colour(glm::vec3 colour) {
  char out[8];
  auto byte = [](float v) { return static_cast<int>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  std::snprintf(out, sizeof out, "%02x%02x%02x", byte(colour.x), byte(colour.y), byte(colour.z));
  return out;
}

bool parse_palette(const std::string& text, std::vector<glm::vec3>* palette) {
  std::vector<glm::vec3> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    glm::vec3 c;
    if (out.size() == Look::kMaxPalette || !parse_hex_colour(text.substr(start, comma - start), &c)) return false;
    out.push_back(c);
    start = comma + 1;
  }
  *palette = out;
  return true;
}

bool parse_options(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    if (key == "-h" || key == "--help") {
      usage();
      return false;
    }
    // --key=value (what the page passes), --key value, or a bare flag
    // (--paused).
    bool has_value = false;
    std::string value;
    const size_t eq = key.find('=');
    if (key.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      has_value = true;
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      value = argv[++i];
      has_value = true;
    }
    if (key == "--scene") {
      if (tidepool::find_scene(value)) o->scene = value;
      else warn("unknown scene " + quoted(value) + " ignored (using " + o->scene + ")");
    } else if (key == "--particles") {
      if (!parse_int(value, kMinParticles, tidepool::kMaxParticles, &o->particles))
        warn("particles " + quoted(value) + " ignored: expected a whole number in " +
             std::to_string(kMinParticles) + ".." + std::to_string(tidepool::kMaxParticles));
    } else if (key == "--color") {
      if (!parse_color_mode(value, &o->color))
        warn("color " + quoted(value) + " ignored: expected " + color_mode_list());
    } else if (key == "--paused" || key == "--embed" || key == "--ui" || key == "--walls" || key == "--hover") {
      bool& flag = key == "--paused" ? o->paused
                   : key == "--embed" ? o->embed
                   : key == "--ui"    ? o->ui
                   : key == "--walls" ? o->walls
                                      : o->hover;
      if (!has_value) flag = true;
      else if (!parse_bool(value, &flag)) warn(key.substr(2) + " " + quoted(value) + " ignored: expected 1 or 0");
    } else if (key == "--bg") {
      if (value == "transparent") o->transparent = true;
      else warn("bg " + quoted(value) + " ignored: expected transparent");
    } else if (key == "--dye") {
      if (value == "core" || value == "gpu") o->gpu_dye = value == "gpu";
      else warn("dye " + quoted(value) + " ignored: expected core or gpu");
    } else if (key == "--palette") {
      if (!parse_palette(value, &o->look.palette))
        warn("palette " + quoted(value) + " ignored: expected 1 to " + std::to_string(Look::kMaxPalette) +
             " hex colours separated by commas, as ff3366,33ccff");
    } else if (key == "--water") {
      if (!parse_hex_colour(value, &o->look.water)) warn("water " + quoted(value) + " ignored: expected a hex colour, as 3399ff");
    } else if (key == "--splats") {
      if (!parse_float(value, 0.0f, Look::kMaxSplats, &o->look.splats))
        warn("splats " + quoted(value) + " ignored: expected seconds from 0 to " +
             std::to_string(static_cast<int>(Look::kMaxSplats)));
    } else if (key == "--seed") {
      int seed = 0;
      if (parse_int(value, 0, 999999999, &seed)) o->look.seed = static_cast<uint32_t>(seed);
      else warn("seed " + quoted(value) + " ignored: expected a whole number from 0 to 999999999");
    } else if (key == "--threads") {
      if (!parse_int(value, 1, kMaxThreads, &o->threads))
        warn("threads " + quoted(value) + " ignored: expected 1.." + std::to_string(kMaxThreads));
      else if (o->threads > 1 && !tidepool::kThreadsAvailable)
        warn("threads " + quoted(value) + ": this build has no threads (the page is not cross-origin isolated), using 1");
    } else if (key == "--aspect") {
      // A share link's tank shape (the page lays it out again for its own).
      if (!parse_float(value, tidepool::kMinAspect, tidepool::kMaxAspect, &o->aspect))
        warn("aspect " + quoted(value) + " ignored: expected a number in [" + std::to_string(tidepool::kMinAspect) +
             ", " + std::to_string(tidepool::kMaxAspect) + "]");
    } else if (key == "--solver") {
      const tidepool::ParamInfo* info = tidepool::find_param("solver");
      float v = 0.0f;
      std::string error;
      if (!tidepool::parse_param_value(*info, value.substr(0, 40), &v, &error) ||
          v == static_cast<float>(tidepool::Solver::Stable))
        warn("solver " + quoted(value) + " ignored: expected flip, dfsph or muller2003");
      else
        o->solver = v;
    } else if (key == "--frames") {
      if (!parse_int(value, 1, 1000000000, &o->frames)) warn("frames " + quoted(value) + " ignored");
    } else if (key == "--screenshot") {
      if (value.empty()) warn("screenshot ignored: expected a file name");
      else o->screenshot = value;
    } else {
      warn("unknown option " + quoted(key) + " ignored");
    }
  }
  return true;
}

}  // namespace tidepool::app
