// Tidepool app — the Setup: the toy as a user asks for it, in one value.
//
// The page's query (?scene=drop&bg=transparent), a share link's hash
// (#tp=2&scene=drop&bodies=...) and the native app's command line
// (--scene drop) all say the same things, and one reader takes all three:
// each key=value goes through read_setting. A share link is written by
// format_link, from the Setup of the running toy (share.cpp), and
// read_link(format_link(s)) gives s back. The app builds its world from a
// Setup once (main.cpp).
//
// Bad input never stops the toy: in the query and on the command line a bad
// value is named in a warning and the default kept; a link that does not
// parse is ignored whole, with a warning naming what was wrong. Values are
// checked for shape here; whether they fit the scene (a parameter's range,
// a body inside the tank) is checked when the world is built from them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "look.h"
#include "tidepool/types.h"

namespace tidepool::app {

// Fewer particles than this is not a fluid.
constexpr int kMinParticles = 16;
// Most simulation threads (the caller included): the toy's particle counts
// gain little beyond, and the page needs a core too. The threads web build
// pre-starts min(cores, this) - 1 workers (the top CMakeLists.txt gives the
// same number to both), and a thread beyond its pool could never start.
#ifndef TIDEPOOL_APP_MAX_THREADS
#define TIDEPOOL_APP_MAX_THREADS 4
#endif
constexpr int kMaxThreads = TIDEPOOL_APP_MAX_THREADS;

struct Setup {
  // The simulation, as a share link carries it.
  std::string scene = "dam-break";
  int particles = 0;     // 0: the scene's default (or auto quality's)
  float aspect = 0.0f;   // the tank's width / height to start with (a link's); 0: the screen's
  ColorMode color = ColorMode::Liquid;  // the water's surface; particles one tap away
  Look look;             // palette, water, splats, seed
  // Parameters changed from the scene's own, by name (set=name:value,...).
  std::vector<std::pair<std::string, float>> params;
  // In place of the scene's own, with their whole state; unset: the scene's.
  std::optional<std::vector<Obstacle>> obstacles;  // discs and capsules
  std::optional<std::vector<BodyDef>> bodies;
  // The page and the app around it.
  float solver = -1.0f;  // the liquid scenes' method (a tidepool::Solver); -1: each scene's own (FLIP)
  bool paused = false;
  bool embed = false;        // the panel starts folded behind a small button
  bool transparent = false;  // bg=transparent: the page shows through where there is no water or dye
  bool ui = true;            // ui=0: no panel, no room kept for one (the page drops its own controls too)
  bool walls = true;         // walls=0: no tank drawn, and the water reaches the canvas's edges
  bool hover = false;        // hover=1: the mouse stirs without a button
  bool gpu_dye = true;       // dye=core: draw the core's dye, not the page's sharp copy
  int threads = 0;           // 0: min(cores, kMaxThreads); a build without threads has 1
  int frames = 0;            // native: quit after this many frames (smoke tests)
  std::string screenshot;    // native: a PNG of the last frame, written here
};

// One setting, `key` without dashes. `has_value` false: a bare flag
// (--paused). False, the Setup unchanged and the problem in *warning, for a
// bad value or an unknown key.
bool read_setting(std::string_view key, std::string_view value, bool has_value, Setup* setup, std::string* warning);
// A page's query string (without '?'): key=value pairs joined by '&',
// percent-decoded. The page's own keys (tilt, dpr) are skipped; a bad value
// or an unknown key is warned about and skipped, a key given twice keeps
// its first value.
void read_query(std::string_view query, Setup* setup, std::vector<std::string>* warnings);
// A share link's hash (without '#'): tp=2&key=value&..., or the older
// tp=1, whose bodies join their fields with ':'. False, the Setup
// unchanged and one warning, for a hash that does not parse.
bool read_link(std::string_view hash, Setup* setup, std::vector<std::string>* warnings);
// The command line: --key=value, --key value or a bare --flag;
// --query=QUERY and --link=HASH are read as above, the link last. False
// for --help, after printing the usage.
bool read_args(int argc, const char* const* argv, Setup* setup, std::vector<std::string>* warnings);
// The share link's hash (without '#') for the simulation part of a Setup:
// the scene, count, aspect, colour, look, parameters, obstacles and bodies.
std::string format_link(const Setup& setup);

}  // namespace tidepool::app
