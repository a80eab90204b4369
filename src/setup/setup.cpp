// Tidepool app — the Setup's one reader and its link writer (setup.h says
// what they guarantee).
#include "setup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "tidepool/params.h"
#include "tidepool/scenes.h"

namespace tidepool::app {

namespace {

constexpr size_t kMaxLink = 8000;  // characters of a link's hash
constexpr size_t kMaxItems = 64;   // parameters or bodies in one setting
constexpr size_t kMaxObstacles = 256;

// Quoted and cut short for messages: values come from URLs.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out + (s.size() > 40 ? "...\"" : "\"");
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool parse_bool(std::string_view s, bool* out) {
  if (s == "1" || s == "true" || s == "yes" || s == "on") return *out = true, true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return *out = false, true;
  return false;
}

bool parse_int(std::string_view s, long lo, long hi, int* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  const long v = std::strtol(std::string(s).c_str(), nullptr, 10);
  if (v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

// A finite number in [lo, hi]; "1e-30" is one, "nan", "0x10" and "1,5" are not.
bool parse_float(std::string_view s, float lo, float hi, float* out) {
  if (s.empty() || s.size() > 24) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
  const std::string text(s);
  char* end = nullptr;
  const float v = std::strtof(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v) || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 40) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

// %XX decoded, and in a query '+' as a space, as a browser's
// URLSearchParams does (a link's numbers keep their "1e+06"); a '%' without
// two hex digits stays as it is.
std::string decode(std::string_view s, bool plus_is_space) {
  std::string out;
  auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '+' && plus_is_space) out += ' ';
    else if (s[k] == '%' && k + 2 < s.size() && hex(s[k + 1]) >= 0 && hex(s[k + 2]) >= 0) {
      out += static_cast<char>(16 * hex(s[k + 1]) + hex(s[k + 2]));
      k += 2;
    } else {
      out += s[k];
    }
  }
  return out;
}

// set=name:value,... : each a known parameter and a value its table reads.
bool read_params(std::string_view text, std::vector<std::pair<std::string, float>>* out, std::string* why) {
  std::vector<std::pair<std::string, float>> params;
  const std::vector<std::string_view> items = text.empty() ? std::vector<std::string_view>{} : split(text, ',');
  if (items.size() > kMaxItems) return *why = "too many parameters", false;
  for (std::string_view item : items) {
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == item.size())
      return *why = "a parameter is not name:value", false;
    const std::string name(item.substr(0, colon));
    const tidepool::ParamInfo* info = tidepool::find_param(name);
    if (!info) return *why = "unknown parameter " + quoted(name), false;
    float value = 0.0f;
    std::string error;
    if (!tidepool::parse_param_value(*info, std::string(item.substr(colon + 1, 40)), &value, &error))
      return *why = error, false;
    params.emplace_back(name, value);
  }
  *out = params;
  return true;
}

// obstacles=c:X:Y:R,k:AX:AY:BX:BY:R,... : discs and capsules.
bool read_obstacles(std::string_view text, std::vector<Obstacle>* out, std::string* why) {
  std::vector<Obstacle> list;
  const std::vector<std::string_view> items = text.empty() ? std::vector<std::string_view>{} : split(text, ',');
  if (items.size() > kMaxObstacles) return *why = "too many obstacles", false;
  for (std::string_view item : items) {
    std::vector<std::string_view> f = split(item, ':');
    const std::string_view kind = f.front();
    f.erase(f.begin());
    if (!((kind == "c" && f.size() == 3) || (kind == "k" && f.size() == 5))) return *why = "an obstacle is malformed", false;
    float v[5];
    for (size_t k = 0; k < f.size(); ++k)
      if (!parse_float(f[k], -1e30f, 1e30f, &v[k])) return *why = "an obstacle has a bad number", false;
    Obstacle o;
    o.kind = kind == "c" ? Obstacle::Kind::Circle : Obstacle::Kind::Capsule;
    o.a = {v[0], v[1]};
    o.b = kind == "c" ? o.a : glm::vec2(v[2], v[3]);
    o.radius = kind == "c" ? v[2] : v[4];
    list.push_back(o);
  }
  *out = list;
  return true;
}

// bodies=TEXT;TEXT;... : each parse_body's text. A link of tp=1 joined
// each body's fields with ':' and the bodies with ','.
bool read_bodies(std::string_view text, bool legacy, std::vector<BodyDef>* out, std::string* why) {
  std::vector<BodyDef> list;
  const std::vector<std::string_view> items = text.empty() ? std::vector<std::string_view>{} : split(text, legacy ? ',' : ';');
  if (items.size() > kMaxItems) return *why = "too many bodies", false;
  for (std::string_view item : items) {
    std::string spec(item);
    if (legacy) std::replace(spec.begin(), spec.end(), ':', ',');
    BodyDef def;
    std::string error;
    if (!tidepool::parse_body(spec, &def, &error))
      return *why = std::string(error.find("not a number") != std::string::npos ? "a body has a bad number: "
                                                                                 : "a body is malformed: ") + error,
             false;
    list.push_back(def);
  }
  *out = list;
  return true;
}

// The options, for --help natively. The page passes only its query and
// hash, never --help, so the page carries none of this text.
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
  std::printf("  --set NAME:VALUE,...  parameters;  --obstacles c:X:Y:R,k:AX:AY:BX:BY:R,...\n");
  std::printf("  --bodies BODY;BODY;...  each as box,W,H,DENSITY,X,Y[,ANGLE,VX,VY,OMEGA,FRICTION,RESTITUTION]\n");
  std::printf("  --link HASH  a share link's hash (what follows its #);  --query QUERY  a page's query\n");
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
  for (std::string_view item : split(text, ',')) {
    glm::vec3 c;
    if (out.size() == Look::kMaxPalette || !parse_hex_colour(std::string(item), &c)) return false;
    out.push_back(c);
  }
  *palette = out;
  return true;
}

bool read_setting(std::string_view key, std::string_view value, bool has_value, Setup* s, std::string* warning) {
  const std::string q = quoted(value);
  const std::string k(key);
  auto bad = [&](const std::string& why) {
    *warning = k + " " + q + " ignored: " + why;
    return false;
  };
  if (key == "scene") {
    if (!is_name(value)) return bad("scene is not a name");
    if (!tidepool::find_scene(value)) return *warning = "unknown scene " + q + " ignored (using " + s->scene + ")", false;
    s->scene = std::string(value);
  } else if (key == "particles") {
    if (!parse_int(value, kMinParticles, tidepool::kMaxParticles, &s->particles))
      return bad("expected a whole number in " + std::to_string(kMinParticles) + ".." + std::to_string(tidepool::kMaxParticles));
  } else if (key == "color") {
    if (!parse_color_mode(value, &s->color)) return bad("expected " + color_mode_list());
  } else if (key == "paused" || key == "embed" || key == "ui" || key == "walls" || key == "hover") {
    bool& flag = key == "paused" ? s->paused : key == "embed" ? s->embed : key == "ui" ? s->ui : key == "walls" ? s->walls : s->hover;
    if (!has_value) flag = true;
    else if (!parse_bool(value, &flag)) return bad("expected 1 or 0");
  } else if (key == "bg") {
    if (value != "transparent") return bad("expected transparent");
    s->transparent = true;
  } else if (key == "dye") {
    if (value != "core" && value != "gpu") return bad("expected core or gpu");
    s->gpu_dye = value == "gpu";
  } else if (key == "palette") {
    if (split(value, ',').size() > static_cast<size_t>(Look::kMaxPalette))
      return bad("too many palette colours (at most " + std::to_string(Look::kMaxPalette) + ")");
    if (!parse_palette(std::string(value), &s->look.palette))
      return bad("a palette colour is not RRGGBB (hex colours separated by commas, as ff3366,33ccff)");
  } else if (key == "water") {
    if (!parse_hex_colour(std::string(value), &s->look.water)) return bad("water is not RRGGBB (a hex colour, as 3399ff)");
  } else if (key == "splats") {
    if (!parse_float(value, 0.0f, Look::kMaxSplats, &s->look.splats))
      return bad("splats is not a number of seconds from 0 to " + std::to_string(static_cast<int>(Look::kMaxSplats)));
  } else if (key == "seed") {
    int seed = 0;
    if (!parse_int(value, 0, 999999999, &seed)) return bad("seed is not a whole number from 0 to 999999999");
    s->look.seed = static_cast<uint32_t>(seed);
  } else if (key == "threads") {
    if (!parse_int(value, 1, kMaxThreads, &s->threads)) return bad("expected 1.." + std::to_string(kMaxThreads));
  } else if (key == "aspect") {
    if (!parse_float(value, tidepool::kMinAspect, tidepool::kMaxAspect, &s->aspect))
      return bad("aspect is not a number in [" + tidepool::float_text(tidepool::kMinAspect) + ", " +
                 tidepool::float_text(tidepool::kMaxAspect) + "]");
  } else if (key == "solver") {
    const tidepool::ParamInfo* info = tidepool::find_param("solver");
    float v = 0.0f;
    std::string error;
    if (!tidepool::parse_param_value(*info, std::string(value.substr(0, 40)), &v, &error) ||
        v == static_cast<float>(tidepool::Solver::Stable))
      return bad("expected flip, dfsph or muller2003");
    s->solver = v;
  } else if (key == "set") {
    std::string why;
    if (!read_params(value, &s->params, &why)) return bad(why);
  } else if (key == "obstacles") {
    std::vector<Obstacle> list;
    std::string why;
    if (!read_obstacles(value, &list, &why)) return bad(why);
    s->obstacles = list;
  } else if (key == "bodies") {
    std::vector<BodyDef> list;
    std::string why;
    if (!read_bodies(value, false, &list, &why)) return bad(why);
    s->bodies = list;
  } else if (key == "frames") {
    if (!parse_int(value, 1, 1000000000, &s->frames)) return bad("expected a whole number of frames");
  } else if (key == "screenshot") {
    if (value.empty()) return bad("expected a file name");
    s->screenshot = std::string(value);
  } else {
    *warning = "unknown option " + quoted(key) + " ignored";
    return false;
  }
  return true;
}

void read_query(std::string_view query, Setup* setup, std::vector<std::string>* warnings) {
  std::set<std::string> seen;
  for (std::string_view part : split(query.substr(0, kMaxLink), '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string key = decode(part.substr(0, eq), true);
    const std::string value = eq == std::string_view::npos ? "" : decode(part.substr(eq + 1), true);
    if (key == "tilt" || key == "dpr") continue;  // the page's own
    if (!seen.insert(key).second) {
      warnings->push_back(key.substr(0, 40) + " given twice: the first kept");
      continue;
    }
    std::string warning;
    if (!read_setting(key, value.substr(0, 400), eq != std::string_view::npos, setup, &warning))
      warnings->push_back(warning.rfind("unknown option", 0) == 0
                              ? "unknown query parameter " + quoted(key) + " ignored"
                              : warning);
  }
}

bool read_link(std::string_view hash, Setup* setup, std::vector<std::string>* warnings) {
  auto reject = [&](const std::string& why) {
    warnings->push_back("link hash ignored: " + why);
    return false;
  };
  if (hash.empty()) return false;
  if (hash.size() > kMaxLink) return reject("too long");
  const std::vector<std::string_view> parts = split(hash, '&');
  if (parts[0] != "tp=1" && parts[0] != "tp=2") return reject("not a Tidepool share link");
  const bool legacy = parts[0] == "tp=1";
  static const std::set<std::string_view> keys = {"scene",   "color", "particles", "aspect", "palette", "water",
                                                  "splats",  "seed",  "set",       "obstacles", "bodies"};
  Setup s = *setup;
  std::set<std::string> seen;
  for (size_t k = 1; k < parts.size(); ++k) {
    const size_t eq = parts[k].find('=');
    const std::string key = decode(parts[k].substr(0, eq), false);
    const std::string value = eq == std::string_view::npos ? "" : decode(parts[k].substr(eq + 1), false);
    if (!seen.insert(key).second) return reject(quoted(key) + " given twice");
    if (!keys.count(key)) return reject("unknown field " + quoted(key));
    std::string warning;
    if (key == "bodies" && legacy) {
      std::vector<BodyDef> list;
      if (!read_bodies(value, true, &list, &warning)) return reject(warning);
      s.bodies = list;
    } else if (!read_setting(key, value, true, &s, &warning)) {
      return reject(warning);
    }
  }
  *setup = s;
  return true;
}

bool read_args(int argc, const char* const* argv, Setup* setup, std::vector<std::string>* warnings) {
  std::string link;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    if (key == "-h" || key == "--help") {
      usage();
      return false;
    }
    // --key=value (what the page passes), --key value, or a bare flag (--paused).
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
    if (key.rfind("--", 0) != 0) {
      warnings->push_back("unknown option " + quoted(key) + " ignored");
      continue;
    }
    key = key.substr(2);
    std::string warning;
    if (key == "query") read_query(value, setup, warnings);
    else if (key == "link") link = value;
    else if (!read_setting(key, value, has_value, setup, &warning)) warnings->push_back(warning);
  }
  if (!link.empty()) read_link(link, setup, warnings);  // a link's setup wins over the query's
  return true;
}

std::string format_link(const Setup& s) {
  using tidepool::float_text;
  std::string h = "tp=2&scene=" + s.scene + "&color=" + color_mode_name(s.color);
  if (s.particles > 0) h += "&particles=" + std::to_string(s.particles);
  if (s.aspect > 0.0f) h += "&aspect=" + float_text(s.aspect);
  if (!s.params.empty()) {
    h += "&set=";
    for (size_t k = 0; k < s.params.size(); ++k) {
      const tidepool::ParamInfo* info = tidepool::find_param(s.params[k].first);
      const float v = s.params[k].second;
      h += (k ? "," : "") + s.params[k].first + ":" +
           (info && info->type == tidepool::ParamInfo::Type::Choice ? tidepool::format_param_value(*info, v) : float_text(v));
    }
  }
  if (s.obstacles) {
    h += "&obstacles=";
    for (size_t k = 0; k < s.obstacles->size(); ++k) {
      const Obstacle& o = (*s.obstacles)[k];
      h += k ? "," : "";
      if (o.kind == Obstacle::Kind::Circle)
        h += "c:" + float_text(o.a.x) + ":" + float_text(o.a.y) + ":" + float_text(o.radius);
      else
        h += "k:" + float_text(o.a.x) + ":" + float_text(o.a.y) + ":" + float_text(o.b.x) + ":" + float_text(o.b.y) + ":" +
             float_text(o.radius);
    }
  }
  if (s.bodies) {
    h += "&bodies=";
    for (size_t k = 0; k < s.bodies->size(); ++k) h += (k ? ";" : "") + tidepool::format_body((*s.bodies)[k]);
  }
  // The show: the dye's colours, the water's, and the random splats.
  if (!s.look.palette.empty()) {
    h += "&palette=";
    for (size_t k = 0; k < s.look.palette.size(); ++k) h += (k ? "," : "") + hex_colour(s.look.palette[k]);
  }
  if (s.look.water.x >= 0.0f) h += "&water=" + hex_colour(s.look.water);
  if (s.look.splats > 0.0f) h += "&splats=" + float_text(s.look.splats);
  if (s.look.seed != Look().seed) h += "&seed=" + std::to_string(s.look.seed);
  return h;
}

}  // namespace tidepool::app
