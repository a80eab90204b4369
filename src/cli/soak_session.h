// tidepool soak: random play from a seed, with the World's promises checked
// after every action and every frame.
//
// The player (class Player, soak_player.h) acts like many users at once,
// through the public API only: scene loads with particle counts from one
// to the limit (and requests load_scene must refuse), every solver switched
// in and out mid-flight, parameter changes within their ranges (nudges
// around the scene's value, and sweeps to anywhere in the range, ends
// included, set back after a while) and out of them (which must be
// refused, the state kept), pointer gestures and storms (up to ten
// fingers, fast drags, huge strengths), obstacles drawn across the water
// and erased, emitters and sinks, dye, SIMD lane changes, particle clears,
// and invalid shapes and pointers. Every decision comes from a
// std::mt19937 seeded with the seed and from the world's state, never from
// a clock, so a seed plays the same game every time.
//
// Each action is a line of text ("set viscosity 4.5", "circle 1.2 0.4
// 0.15"), and the session (class Session, below) executes the line, not the
// decision behind it: the log of lines is the game, and a reproducer is the
// log since the last scene load (a load replaces the whole world, so what
// came before cannot matter; what a load may keep, the lanes and the
// parameters, is logged ahead of it, every parameter in one "params"
// action). Floats are written with 9 significant digits, which read back
// to the same float.
//
// Checked after each action: valid input is taken, invalid input is refused
// and changes nothing (parameters and state hash compared bit for bit).
// Checked after every frame:
//   - the state's own promises (World::problem): every particle's
//     position, velocity, density and pressure is finite, and every grid
//     field value is (dye also >= 0); every particle is inside the box
//     (bounds included: the safety net projects onto them); ids are
//     unique; every body is finite, its centroid inside the box;
//   - no particle stays inside an obstacle (see
//     Session::check_obstacles for what the step can promise) or a sink;
//   - particles disappear only with a sink present, appear
//     only with an emitter present, and no faster than the emitters pour;
//   - memory: the world's arrays stay within 4 KiB a particle (of the
//     largest count since the load) plus 256 MiB, and the process's
//     resident set within a bound (Linux: /proc/self/statm);
//   - the safety net does not fire in steady play (see Session::steadiness);
//   - the frame's work (FrameStats::work) is within its bound, work_limit.
#pragma once

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "soak.h"
#include "tidepool/geometry.h"
#include "tidepool/params.h"
#include "tidepool/world.h"

// The resident set is read from /proc/self/statm, and crashes are caught
// with POSIX signal handlers, on Linux only.
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#define TIDEPOOL_SOAK_STATM 1
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TIDEPOOL_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIDEPOOL_SOAK_ASAN 1
#endif
#endif

namespace tidepool_cli {
namespace soak_detail {

constexpr float kFrame = 1.0f / 60.0f;
// Steady play begins this many frames after the last storm or extreme.
constexpr long kSettleFrames = 120;
// The world's arrays: at most kBytesPerParticle plus kBytesPerNeighbour
// for each of its mean neighbours, a particle (the largest count and
// neighbour count since the last load: arrays keep their capacity when
// either drops), plus kWorldSlack. Worlds take 500-900 bytes a particle at
// about 24 neighbours, DFSPH's pair lists 12 bytes a neighbour; the slack
// covers a small world's lists at a swept h.
constexpr double kBytesPerParticle = 4096.0;
constexpr double kBytesPerNeighbour = 64.0;
constexpr double kWorldSlack = 256.0 * 1024 * 1024;
#ifdef TIDEPOOL_SOAK_ASAN
constexpr double kDefaultRssMb = 6144.0;  // ASan's shadow and quarantine
#else
constexpr double kDefaultRssMb = 2048.0;
#endif

// Play pointers stay within these; a pointer past any of them is a storm.
constexpr float kPlayStrength = 100.0f, kPlayRadius = 1.0f, kPlaySpeed = 10.0f, kPlayStir = 20.0f;
// The most obstacles the player keeps (it erases instead of drawing more).
constexpr size_t kMaxObstacles = 40;
// Emitters faster than this are storms (they meet the speed clamp sooner).
constexpr float kPlayEmitterSpeed = 10.0f;

// --- Text -----------------------------------------------------------------------

// 9 significant digits: reads back to the same float.
std::string fmt(double v);

// An action line, built word by word.
struct Line {
  std::string s;
  explicit Line(const char* verb) : s(verb) {}
  Line& f(float v) {
    s += ' ' + fmt(v);
    return *this;
  }
  Line& v(glm::vec2 p) { return f(p.x).f(p.y); }
  Line& i(long v) {
    s += ' ' + std::to_string(v);
    return *this;
  }
  Line& w(const std::string& word) {
    s += ' ' + word;
    return *this;
  }
};

std::vector<std::string> split(const std::string& line);
bool parse_float(const std::string& t, float* out);
bool parse_long(const std::string& t, long* out);
// The process's resident set [bytes]; 0 where unknown.
double rss_bytes();

// --- Parameters -------------------------------------------------------------------

std::vector<uint32_t> param_bits(const tidepool::Params& p);
bool same_bits(float a, float b);
bool whole_type(const tidepool::ParamInfo& p);

struct Band {
  float lo, hi;
};

// The values a player sets a parameter to in steady play, around the
// scene's value v0: choices and switches anywhere; fractions (restitution,
// friction, XSPH, negative pressure) anywhere in [0, 1]; gravity anywhere
// within 2 g (a tilted or upturned tank); a few zero defaults within a
// modest span; any other positive value within [v0 / 2, 2 v0]. Outside its
// band a parameter is "extreme": in range and accepted, but the safety net
// may fire (a 1e-6 s step, a 10 m kernel).
Band play_band(const tidepool::ParamInfo& p, float v0);

// --- Geometry -------------------------------------------------------------------

// A pointer World::set_pointers keeps (the rest it drops).
bool valid_pointer(const tidepool::PointerForce& f);
bool storm_pointer(const tidepool::PointerForce& f);
bool known_preset(const std::string& name);

// --- The session: actions and checks ----------------------------------------------

enum class Outcome { Ok, Violation, Malformed };

struct Rules {
  FILE* trace = nullptr;  // every action and frame, as they happen
  long plant_frame = -1;
  bool only_planted = false;
  double max_rss_bytes = kDefaultRssMb * 1024 * 1024;
};

class Session {
 public:
  explicit Session(const Rules& rules) : rules_(rules) {}

  const tidepool::World& world() const { return world_; }
  long frame() const { return frame_; }
  void set_frame(long f) { frame_ = f; }
  const std::string& violation() const { return violation_; }
  const std::vector<std::string>& log() const { return log_; }
  const tidepool::FrameStats& last() const { return last_; }
  const tidepool::Params& v0() const { return v0_; }

  long actions = 0, loads = 0, switches = 0, refusals = 0, contained_frames = 0, steady_frames = 0;
  long capped_frames = 0, capped_steady_frames = 0;  // frames the work bound's backstop took (FrameStats::cap_hits)
  int peak_particles = 0;
  int peak_bodies = 0;
  long body_frames = 0;  // frames with a body in the water
  double peak_rss = 0.0;
  float closest_obstacle = std::numeric_limits<float>::infinity();
  long wedged = 0;    // particle-frames inside an obstacle where the walls win
  long creviced = 0;  // ... where another obstacle blocks the way out
  SlowestFrame slowest;
  double most_work_share = 0.0;  // the largest work / work_limit of a frame

  // Executes one action line and checks what the API promises for it.
  Outcome apply(const std::string& line);

  // Advances one frame of 1/60 s and checks every invariant.
  bool advance();

 private:
  // What advance() compares the frame's outcome with.
  struct Before {
    int count;
    std::vector<uint32_t> ids;  // sorted
    long max_id;
    double time;
    float spacing;
    bool sinks, emitters;
    std::vector<tidepool::Emitter> pouring;
  };
  // The world as an action found it (parameters, state hash, count, shapes).
  struct Snapshot {
    std::vector<uint32_t> params;
    uint64_t hash;
    int count;
    size_t obstacles, emitters, sinks, bodies;
  };
  // An action line: its words, and the words after the verb as floats
  // (NaN where not a number).
  struct Action {
    const std::vector<std::string>& t;
    std::vector<float> f;
    const std::string& line;
    bool need(size_t n) const { return t.size() == n + 1; }
  };

  // Violations: false from advance()'s checks, Outcome::Violation from an
  // action's, Outcome::Malformed for a line that is not an action.
  bool bad(const std::string& what);
  Outcome fail(const std::string& what);
  Outcome malformed(const std::string& line, const char* why);
  std::string particle(int i) const;
  std::string state_of(int i) const;

  // advance()'s steps and checks, in the order it runs them.
  bool steadiness();
  Before before_frame() const;
  void trace_frame(bool steady, double ms) const;
  bool check_stats(double time_before);
  bool check_state();
  bool check_count(const Before& b, const std::vector<uint32_t>& ids);
  bool check_pour(long fresh, const Before& b);
  bool check_obstacles(const tidepool::FrameStats& st, long max_id_before, float spacing);
  bool check_sinks(const tidepool::FrameStats& st, long max_id_before);
  bool check_safety_net(bool steady);
  bool check_memory();
  bool check_work();

  void note_drawn(size_t added);
  Snapshot snapshot() const;
  std::string changed(const Snapshot& a) const;
  // A refused action: counted, and it must have changed nothing.
  Outcome refused(const std::string& line, const Snapshot& before);

  // The actions, one member per verb or family of verbs.
  Outcome dispatch(const std::vector<std::string>& t, const std::string& line, size_t log_mark);
  Outcome do_load(Action& a, size_t log_mark);
  void start_after_load(size_t log_mark, int lanes, const tidepool::Params& params);
  Outcome do_params(Action& a);
  Outcome do_set(Action& a);
  Outcome do_pointers(Action& a);
  Outcome do_shape(Action& a);
  Outcome do_polyline(Action& a);
  Outcome do_remove(Action& a);
  Outcome do_body(Action& a);
  Outcome do_drag(Action& a);
  Outcome do_emitter(Action& a);
  Outcome do_sink(Action& a);
  Outcome do_dye(Action& a);
  Outcome do_lanes(Action& a);
  Outcome do_tank(Action& a);

  tidepool::World world_;
  Rules rules_;
  long frame_ = 0;
  std::string violation_;
  std::vector<std::string> log_;
  tidepool::FrameStats last_;
  tidepool::Params v0_;  // the parameters as the last load set them: the play bands' centre
  bool have_v0_ = false;
  bool pointer_storm_ = false;
  bool disturbed_ = false;
  long last_unsteady_ = LONG_MIN / 2, last_load_ = 0;
  int peak_since_load_ = 0;
  float peak_neighbours_ = 0.0f;  // the largest mean neighbour count since the load
  std::vector<int> seen_;  // obstacle ids a particle step has seen
  std::vector<uint64_t> inside_;  // (particle id, obstacle id) found inside at the last frame, sorted
};

}  // namespace soak_detail
}  // namespace tidepool_cli
