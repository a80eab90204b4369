// Tidepool — the 2D SPH world: particles, container, obstacles, emitters,
// pointer forces, and the step.
//
// Data flows one way: Params + state -> advance()/step() -> state + stats.
// The core reads no clock and owns no threads: stage timings come from a
// clock the caller passes in, parallel loops go through a hook whose default
// runs inline.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>

#include "tidepool/array.h"
#include "tidepool/grid.h"
#include "tidepool/params.h"

namespace tidepool {

// Named stages of one step, each timed into stats when a clock is given.
enum Stage : int {
  kStageNeighbours = 0,  // counting sort by grid cell
  kStageDensity,         // density (and pressure for Müller 2003)
  kStageForces,          // viscosity, surface tension, gravity, pointers
  kStagePressure,        // pressure force or DFSPH density/divergence solves
  kStageIntegrate,       // velocities and positions
  kStageBoundaries,      // container, obstacles, emitters, sinks, safety net
  kStageCount
};
const char* stage_name(int stage);

// Caller-supplied clock in milliseconds. Empty = stages are not timed.
struct Clock {
  double (*now_ms)(void* user) = nullptr;
  void* user = nullptr;
  double operator()() const { return now_ms ? now_ms(user) : 0.0; }
  explicit operator bool() const { return now_ms != nullptr; }
};

// Caller-supplied parallel loop: run body(begin, end, worker) over [0, n) in
// chunks. The default runs everything inline on the calling thread. Results
// never depend on how the range is split (no two indices of a loop write the
// same output).
struct ParallelFor {
  using Body = void (*)(int begin, int end, void* ctx);
  void (*run)(int n, Body body, void* ctx, void* user) = nullptr;
  void* user = nullptr;
};

struct FrameStats {
  int particles = 0;
  int substeps = 0;
  float dt = 0.0f;                   // last substep's dt [s]
  double time = 0.0;                 // simulated time after the frame [s]
  float max_density_error = 0.0f;    // max |rho/rho0 - 1|
  float mean_density_error = 0.0f;   // mean |rho/rho0 - 1|
  float max_speed = 0.0f;            // [m/s]
  double kinetic_energy = 0.0;       // sum 1/2 m v^2 [J]
  float mean_neighbours = 0.0f;      // neighbours within h, self excluded
  int solver_iterations = 0;         // DFSPH density iterations, summed over substeps
  int divergence_iterations = 0;     // DFSPH divergence iterations, summed
  // DFSPH: passes over the neighbour lists in both solves (predictions and
  // velocity updates, warm starts included), summed: the pressure stage's
  // work, whatever the iteration counts.
  int solver_passes = 0;
  float solver_error = 0.0f;         // DFSPH final mean density error (last substep), -1 if non-finite
  bool timed = false;                // stage_ms filled from the caller's clock
  std::array<double, kStageCount> stage_ms{};  // summed over substeps
  bool substep_cap_hit = false;      // frame needed more than max_substeps
  bool contained = false;            // safety net clamped speeds or removed NaNs
  int contained_particles = 0;
};

// Circular force region for a pointer (mouse button or finger).
struct PointerForce {
  glm::vec2 position{0.0f};
  float radius = 0.2f;           // [m]
  float strength = 30.0f;        // [m/s^2] at the centre; > 0 pushes out, < 0 pulls in
  glm::vec2 velocity{0.0f};      // drag velocity [m/s]: particles are stirred toward it
  float stir = 0.0f;             // [1/s] rate at which particle velocity follows `velocity`
};

// Static obstacles: a solid disc, or a capsule (segment with a radius) —
// the 2D form of seed 001's mesh collisions. Polylines are chains of capsules.
struct Obstacle {
  enum class Kind { Circle, Capsule };
  Kind kind = Kind::Circle;
  glm::vec2 a{0.0f};   // centre (circle) or first end (capsule)
  glm::vec2 b{0.0f};   // second end (capsule)
  float radius = 0.0f;
  int id = 0;
};

// Pours particles: rows of particles across a line of `width` centred at
// `position`, shot along `velocity`. The row rate follows from the flux:
// |velocity| / spacing rows per second, so the jet enters at rest density.
struct Emitter {
  glm::vec2 position{0.0f};
  glm::vec2 velocity{0.0f, -1.0f};
  float width = 0.1f;
  int limit = kMaxParticles;  // stops while the world holds this many
  int id = 0;
};

// Removes every particle entering the disc.
struct Sink {
  glm::vec2 position{0.0f};
  float radius = 0.1f;
  int id = 0;
};

struct Box {
  glm::vec2 min{0.0f};
  glm::vec2 max{1.0f};
};

// Particle state, structure of arrays. Every array has count() entries and
// is reordered together when particles are sorted by grid cell.
struct Particles {
  Array<float> x, y;            // position [m]
  Array<float> vx, vy;          // velocity [m/s] (leapfrog: time-centred)
  Array<float> ax, ay;          // acceleration of the last step [m/s^2]
  Array<float> density;         // [kg/m^2]
  Array<float> pressure;        // [N/m]
  Array<float> aux0, aux1;      // solver state carried across steps:
                                // leapfrog half-step velocity, DFSPH kappas
  Array<float> x_prev, y_prev;  // positions before the last integration
  Array<uint32_t> id;           // stable id, survives reordering
  std::vector<uint8_t> surface;  // 1 where the colour-field |n| exceeds the threshold

  int size() const { return static_cast<int>(x.size()); }
  // Every float field, for the loops over all of them (writable or not).
  template <class P>
  static auto floats_of(P& p) {
    return std::array{&p.x, &p.y, &p.vx, &p.vy, &p.ax, &p.ay, &p.density, &p.pressure,
                      &p.aux0, &p.aux1, &p.x_prev, &p.y_prev};
  }
  auto floats() { return floats_of(*this); }
  auto floats() const { return floats_of(*this); }
  void resize(int n);
  void reserve(int n);
  // Keeps entries with keep[i] != 0, in order; returns how many were removed.
  int compact(const std::vector<uint8_t>& keep);
};

class World {
 public:
  explicit World(const Params& params = Params{});

  // Replaces the parameters if valid; otherwise keeps the current ones and
  // returns every problem (see validate()).
  std::vector<std::string> set_params(const Params& params);
  const Params& params() const { return params_; }
  // Rest spacing of the particles, from mass = rho0 spacing^2 (2D).
  float spacing() const;

  // Container; particles outside are projected in at the next step.
  void set_box(const Box& box);
  const Box& box() const { return box_; }

  // Particles. add_particle returns the new id, or -1 when full or when the
  // position/velocity is not finite.
  int add_particle(glm::vec2 position, glm::vec2 velocity = glm::vec2(0.0f));
  void clear_particles();
  // Room for n particles in the particle arrays (they grow by doubling as
  // particles are added one at a time).
  void reserve(int n) { particles_.reserve(n); }
  int count() const { return particles_.size(); }
  const Particles& particles() const { return particles_; }

  // Obstacles, emitters, sinks: add returns an id for remove (or -1 if the
  // shape is invalid: non-finite or radius <= 0).
  int add_circle(glm::vec2 centre, float radius);
  int add_capsule(glm::vec2 a, glm::vec2 b, float radius);
  // Adds a capsule per segment of the polyline; returns the ids.
  std::vector<int> add_polyline(const std::vector<glm::vec2>& points, float radius);
  bool remove_obstacle(int id);
  void clear_obstacles();
  const std::vector<Obstacle>& obstacles() const { return obstacles_; }

  int add_emitter(const Emitter& e);
  int add_sink(const Sink& s);
  bool remove_emitter(int id);
  bool remove_sink(int id);
  const std::vector<Emitter>& emitters() const { return emitters_; }
  const std::vector<Sink>& sinks() const { return sinks_; }

  // Pointer forces for the next advance()/step(); replaced, not accumulated.
  void set_pointers(const std::vector<PointerForce>& pointers);

  // Optional hooks; see Clock and ParallelFor.
  void set_parallel_for(const ParallelFor& pf) { parallel_ = pf; }
  const ParallelFor& parallel_for() const { return parallel_; }
  // Lanes of the vectorised pair loops (src/core/simd.h): the widest the
  // build has by default; 1 runs the scalar path, 4 the SSE2 (or wasm) one.
  // Other values round down to a width the build has. Tests and the bench
  // compare them.
  void set_lanes(int lanes);
  int lanes() const { return lanes_; }
  static int simd_width();  // widest lanes the build has: 8 (AVX2), 4, or 1 without SIMD

  // Advances by frame_time seconds in as many substeps as the time-step rule
  // needs (at most params.max_substeps; beyond that simulated time lags).
  FrameStats advance(float frame_time, const Clock& clock = Clock{});
  // One substep of exactly dt seconds (single-stepping, tests).
  FrameStats step(float dt, const Clock& clock = Clock{});

  // The time step the adaptive rule would take now.
  float stable_dt() const;

  double time() const { return time_; }
  const FrameStats& last_stats() const { return stats_; }

  // FNV-1a over positions, velocities, ids and time: equal inputs give equal
  // hashes (determinism), whatever the thread count.
  uint64_t state_hash() const;

  // Number of bytes held per particle by the world's arrays (benchmark).
  size_t bytes_per_particle() const;

 private:
  void substep(float dt, const Clock& clock, FrameStats& st);
  void reset_solver_state();
  void build_wall_tables();
  // Stages (world.cpp, dfsph.cpp, boundary.cpp).
  void sort_and_bin();
  void compute_density();
  template <class WallTerms, class SetDensity, class SetNormal, class SetSurface>
  void muller_density(const WallTerms& wall_terms, const SetDensity& set_density,
                      const SetNormal& set_normal, const SetSurface& set_surface);
  template <class Finish>
  void dfsph_density(const Finish& finish);
  bool cohesion_on() const;
  bool colour_field_on() const;
  void compute_forces(float dt);
  void integrate(float dt);
  int dfsph_divergence_solve(float dt, int* passes);
  int dfsph_density_solve(float dt, float* error, int* passes);
  double dfsph_predict(float dt, bool divergence, float* largest);
  int dfsph_solve(float dt, bool divergence, float* error, int* passes);
  void dfsph_apply_kappa(float dt);
  // Returns whether an obstacle lies within h of (x, y).
  bool wall_density(float x, float y, float* rho, float* gx, float* gy, float* lap) const;
  void collide(float dt);
  // How far collide() keeps particle centres off every wall and obstacle:
  // half a spacing (boundary.cpp says why).
  float contact_radius() const;
  // The box the container keeps particle centres in: contact_radius()
  // inside its walls.
  Box contact_box() const;
  // Where collide() puts one coordinate c of a particle: inside [lo, hi]
  // it stays; past a side it comes back by e (the restitution) times its
  // overshoot, at most hi - lo.
  static float keep_inside(float c, float lo, float hi, float e) {
    return c < lo ? lo + std::min(e * (lo - c), hi - lo) : (c > hi ? hi - std::min(e * (c - hi), hi - lo) : c);
  }
  // collide()'s rule for one obstacle: *pos, reached from prev in this
  // step, leaves obstacle o to `radius` off its surface plus e times its
  // penetration; returns whether it was in contact, with the outward normal.
  static bool push_out(const Obstacle& o, glm::vec2 prev, float radius, float e, glm::vec2* pos,
                       glm::vec2* normal);
  void emit_and_sink(float dt);
  int contain();
  void compute_stats(FrameStats& st) const;
  // Runs body(begin, end) over [0, n) through the caller's hook, or inline.
  template <class Body>
  void parallel(int n, const Body& body) const {
    if (!parallel_.run) {
      body(0, n);
      return;
    }
    parallel_.run(
        n, [](int begin, int end, void* ctx) { (*static_cast<const Body*>(ctx))(begin, end); },
        const_cast<Body*>(&body), parallel_.user);
  }
  // Runs body(begin, end, limit) over the sorted particles band by band
  // (Grid::bands), for the pair passes that visit each pair once and add to
  // both ends (neighbours.h, for_forward_pairs): a band's forward ranges lie
  // in it and the next band, which ends at `limit`, and its lane groups stay
  // below `limit` too (they are shifted back there, as at the arrays' end).
  // So bands two apart never touch the same entry: the even bands run at
  // once, then the odd ones, and each entry receives its sums in one order,
  // whatever the thread count.
  // The arrays in `sums` (null ones skipped) are the pass's sums: an even
  // band is the first to write to its entries and to the odd band's after
  // it, so it zeroes both just before its body runs, while they are in its
  // core's cache, instead of a loop of its own over all of them first.
  // A round's pieces are cut by its particles, not by its bands: a band
  // goes to the piece its first particle falls in (band_offset_), so that
  // the dense bands at the bottom of a pool do not leave one thread with
  // most of the work.
  template <class Body>
  void for_bands(std::initializer_list<float*> sums, const Body& body) const {
    const int bands = static_cast<int>(bands_.size()) - 1;
    for (int round = 0; round < 2; ++round) {
      const int count = (bands - round + 1) / 2;  // this round's bands, b = 2k + round
      if (count == 0) continue;
      const int last = 2 * (count - 1) + round;
      const int points = band_offset_[last] + bands_[last + 1] - bands_[last];
      // The first of this round's bands whose first particle is at or after `at`.
      auto first_band = [&](int at) {
        int lo = 0, hi = count;
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          if (band_offset_[2 * mid + round] < at) lo = mid + 1;
          else hi = mid;
        }
        return lo;
      };
      parallel(points, [&](int begin, int end) {
        const int k0 = first_band(begin), k1 = first_band(end);
        for (int k = k0; k < k1; ++k) {
          const int b = 2 * k + round;
          const int limit = bands_[std::min(b + 2, bands)];
          if (round == 0) {
            for (float* a : sums)
              if (a) std::fill(a + bands_[b], a + limit, 0.0f);
          }
          body(bands_[b], bands_[b + 1], limit);
        }
      });
    }
  }
  // Reduces over [0, n): body(begin, end) returns a block's value, and the
  // blocks' values are combined in block order. The blocks depend on n only,
  // so a sum comes out the same for any number of threads.
  template <class Body>
  double sum_over(int n, const Body& body) const {
    return reduce(n, 0.0, body, [](double a, double b) { return a + b; }, block_values_);
  }
  template <class Body>  // for values >= 0
  double max_over(int n, const Body& body) const {
    return reduce(n, 0.0, body, [](double a, double b) { return std::max(a, b); }, block_values_);
  }
  // `values` holds the blocks' values.
  template <class T, class Body, class Combine>
  T reduce(int n, T init, const Body& body, const Combine& combine, std::vector<T>& values) const {
    constexpr int kBlock = 2048;
    const int blocks = (n + kBlock - 1) / kBlock;
    if (blocks <= 1) return n > 0 ? combine(init, body(0, n)) : init;
    values.resize(static_cast<size_t>(blocks));
    parallel(blocks, [&](int b0, int b1) {
      for (int b = b0; b < b1; ++b) values[b] = body(b * kBlock, std::min(n, (b + 1) * kBlock));
    });
    T v = init;
    for (int b = 0; b < blocks; ++b) v = combine(v, values[b]);
    return v;
  }

  Params params_;
  Box box_;
  Particles particles_;
  Array<uint32_t> tmp_id_;  // sort_and_bin's reordered ids
  Grid grid_;
  std::vector<int> bands_;  // for_bands: sorted indices where bands start, then n
  std::vector<int> band_offset_;  // for_bands: per band, its round's particles before it
  std::vector<Obstacle> obstacles_;
  std::vector<Emitter> emitters_;
  std::vector<float> emitter_rows_;  // fractional rows owed per emitter
  std::vector<uint32_t> emitter_slot_;
  std::vector<Sink> sinks_;
  std::vector<PointerForce> pointers_;
  ParallelFor parallel_;
  mutable std::vector<double> block_values_;  // reduce()'s per-block values
  mutable std::vector<std::pair<double, double>> block_sum_max_;  // dfsph_predict's
  mutable std::vector<Grid::Bounds> block_bounds_;  // and sort_and_bin's
  int lanes_ = simd_width();
  Array<float> neighbours_;         // DFSPH: per particle, self excluded
  std::vector<int> band_pairs_;     // Müller: pairs per band of the density pass
  Array<float> wall_gx_, wall_gy_;  // gradient of the boundary density
  Array<float> wall_lap_;           // boundary viscosity Laplacian sum
  // Surface normals: Akinci 2013's from the density pass; the colour
  // field's gradient (Müller 2003 eq. 17) after a colour-field forces pass.
  Array<float> normal_x_, normal_y_;
  Array<float> inv_rho_, pressure_rho_;  // 1 / rho_i, p_i / rho_i (density pass)
  Array<float> colour_lap_;              // colour field's Laplacian (forces pass)
  Array<float> factor_, rho_adv_;        // DFSPH scratch
  // DFSPH: the velocities dfsph_predict gathers, (vx, vy) pairs (after the
  // contacts, in the density solve).
  Array<float> v_pred_;
  std::vector<uint8_t> near_obstacle_;  // DFSPH's density pass: 1 within h of an obstacle
  std::vector<int> obstacle_contacts_;  // ... those particles, for dfsph_predict
  // DFSPH neighbour lists (dfsph.cpp), filled by the density pass: one
  // buffer per block of kListBlock particles, so blocks fill theirs in
  // parallel without knowing each other's sizes.
  static constexpr int kListBlock = 512;
  struct ListBlock {
    std::vector<int> j;          // neighbour index
    std::vector<float> gx, gy;   // m grad W_ij
  };
  struct List {
    const int* j;
    const float* gx;
    const float* gy;
    int begin, end;
  };
  // Calls f(i, list) for particles begin .. end - 1 in order: each block's
  // buffers are looked up once and each list starts where the one before
  // ended (callgrind: a lookup per particle cost about 10 of the ~100
  // instructions a particle-pass of the solves).
  template <class F>
  void for_each_list(int begin, int end, F&& f) const {
    const unsigned first = static_cast<unsigned>(begin);  // shifts, not signed division
    List l{nullptr, nullptr, nullptr, first % kListBlock ? list_end_[begin - 1] : 0, 0};
    for (int i = begin; i < end;) {
      const ListBlock& b = list_blocks_[static_cast<unsigned>(i) / kListBlock];
      l.j = b.j.data();
      l.gx = b.gx.data();
      l.gy = b.gy.data();
      const int block_end = std::min(end, (i / kListBlock + 1) * kListBlock);
      for (; i < block_end; ++i) {
        l.end = list_end_[i];
        f(i, l);
        l.begin = l.end;
      }
      l.begin = 0;  // the next block's first list
    }
  }
  std::vector<ListBlock> list_blocks_;
  std::vector<int> list_end_;  // per particle: end of its list in its block's buffer
  std::vector<uint8_t> keep_;
  // 1 within h of a wall, or any obstacles (sort_and_bin); the density pass
  // keeps it only where a wall or an obstacle reaches.
  std::vector<uint8_t> near_wall_;
  std::vector<float> wall_phi_, wall_line_, wall_visc_;  // Phi(d), dPhi/dd, Psi(d) (boundary.cpp)
  float max_accel_ = 0.0f;                   // largest |a| of the last substep
  double time_ = 0.0;
  double carry_ = 0.0;  // fixed-step remainder carried between frames
  uint32_t next_id_ = 0;
  int next_shape_id_ = 1;
  FrameStats stats_;
};

}  // namespace tidepool
