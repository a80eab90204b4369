// tidepool soak: the player, which decides the actions (soak_session.h
// describes them) from a seeded random sequence and the world's state.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "soak.h"
#include "soak_session.h"

namespace tidepool_cli {
namespace soak_detail {

class Rng {
 public:
  explicit Rng(uint32_t seed) : g_(seed) {}
  double u01() { return g_() * (1.0 / 4294967296.0); }
  double uniform(double a, double b) { return a + (b - a) * u01(); }
  double log_uniform(double a, double b) { return a * std::pow(b / a, u01()); }
  int below(int n) { return n > 0 ? std::min(n - 1, static_cast<int>(u01() * n)) : 0; }
  int between(int a, int b) { return a + below(b - a + 1); }
  bool chance(double p) { return u01() < p; }
  float sign() { return chance(0.5) ? 1.0f : -1.0f; }
  glm::vec2 direction() {
    const double a = uniform(0.0, 2.0 * 3.14159265358979);
    return {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
  }

 private:
  std::mt19937 g_;
};

class Player {
 public:
  Player(uint32_t seed, const SoakOptions& o) : rng_(seed), o_(o) {}

  // Plays the session's current frame: its actions, then the frame.
  bool play(Session& s);

 private:
  struct Finger {
    glm::vec2 pos, vel;
    float radius, strength, stir;
  };

  const tidepool::World& world() const { return s_->world(); }
  const tidepool::Params& v0() const { return s_->v0(); }
  bool act(const std::string& line) { return s_->apply(line) == Outcome::Ok; }
  bool act(const Line& l) { return act(l.s); }

  // play()'s steps.
  bool run_due(long f);
  bool reset_big(long f);
  void pace();

  glm::vec2 point_in_box(float margin = 0.0f);
  glm::vec2 anchor();
  float box_size() const;

  // Loads
  int particle_count();
  bool load(bool first, bool small = false);
  bool bad_load();

  // Parameters
  const tidepool::ParamInfo& random_param(bool with_solver);
  float draw(const tidepool::ParamInfo& p, float lo, float hi);
  bool nudge();
  bool sweep();
  bool bad_param();
  bool switch_solver();

  // Pointers
  bool start_gesture(bool storm);
  bool move_fingers();
  bool bad_pointers();

  // Obstacles
  bool capsule();
  bool circle();
  bool polyline();
  bool start_stroke();
  bool draw_stroke();
  template <class List>
  bool remove(const char* verb, const List& list);
  bool bad_shape();

  // Emitters, sinks, dye
  bool emitter();
  bool sink();
  bool dye();
  bool tank();

  // Bodies
  bool body();
  bool drag();

  bool random_action();

  Rng rng_;
  const SoakOptions& o_;
  Session* s_ = nullptr;
  std::vector<std::pair<long, std::string>> due_;  // lines to apply at a frame
  std::vector<Finger> fingers_;
  long gesture_end_ = 0;
  bool storm_ = false;
  std::vector<glm::vec2> stroke_;
  glm::vec2 stroke_angle_{1.0f, 0.0f};
  int stroke_left_ = 0;
  float stroke_radius_ = 0.02f;
  std::vector<int> drawn_;
  long big_since_ = -1, sweeping_until_ = -1, calm_until_ = -1;
  int costly_frames_ = 0;
};

}  // namespace soak_detail
}  // namespace tidepool_cli
