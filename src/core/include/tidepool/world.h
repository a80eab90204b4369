// Tidepool — the 2D fluid world: what a user of the library calls.
//
// Data flows one way: Params + state -> advance()/step() -> state + stats.
// The core reads no clock and owns no threads: stage timings come from a
// clock the caller passes in, parallel loops go through a hook whose default
// runs inline (hooks.h). Invalid input never changes the state: a setter
// refuses it and says so (a problem list, -1, or false).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/mat2x2.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "tidepool/hooks.h"
#include "tidepool/params.h"
#include "tidepool/types.h"

namespace tidepool {

struct WorldState;  // src/core/state.h

// Every reason water of `particles` particles at p's spacing
// (sqrt(mass / rest_density)) cannot fit the tank `box`, one line each,
// naming the field: a spacing over a quarter of the tank's short side (the
// walls' contact band, half a spacing on each side, would leave the water
// no room to move), or particles x spacing^2 over the tank's area. Empty
// when it fits. World::set_params, fit_tank, resample and scene loads
// refuse what does not.
std::vector<std::string> fit_problems(const Params& p, const Box& box, int particles);
// The most particles the tank holds at p's spacing: its area over the
// spacing squared (emitters stop there).
int tank_capacity(const Params& p, const Box& box);

class World {
 public:
  /// A world with these parameters (the defaults if they are invalid), no particles, a unit box.
  explicit World(const Params& params = Params{});
  /// An independent copy: the same state, stepping to the same hashes.
  World(const World& other);
  World& operator=(const World& other);
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  ~World();

  // --- Parameters -----------------------------------------------------------
  /// Replaces the parameters if valid and the water fits the tank at them; otherwise keeps them and
  /// returns every problem (validate(), fit_problems()).
  std::vector<std::string> set_params(const Params& params);
  /// The parameters in force.
  const Params& params() const;
  /// Rest spacing of the particles: mass = rest_density * spacing^2 (2D).
  float spacing() const;

  // --- Container and particles ----------------------------------------------
  /// Sets the container if finite and non-empty; particles outside come back in at the next step.
  void set_box(const Box& box);
  /// The container.
  const Box& box() const;
  /// Carries the container and everything in it through p -> m p + offset onto `box`: particles
  /// (velocities and accelerations by m alone), obstacles, emitters (their jets by m) and sinks,
  /// radii and widths kept. A quarter turn, or a stretch with det m = 1, keeps the water's volume.
  /// False, and nothing changed, for a grid solver (its fields are sized to the box) or a
  /// non-finite map or box.
  bool transform(const glm::mat2& m, glm::vec2 offset, const Box& box);
  /// Fills the water's region again with about `particles` particles at the spacing that keeps its
  /// area (spacing^2 = count() spacing()^2 / particles), on a square lattice, each with the water's
  /// velocity there; h, mass and surface_threshold follow the spacing (resample.cpp). Time, ids,
  /// obstacles, emitters and sinks go on. False, and nothing changed, for a grid solver, no water,
  /// a count outside [1, kMaxParticles], or parameters the new spacing would make invalid.
  bool resample(int particles);
  /// Adds a particle; returns its id, or -1 when full or when position or velocity is not finite.
  int add_particle(glm::vec2 position, glm::vec2 velocity = glm::vec2(0.0f));
  /// Removes every particle and restarts time, ids and stats.
  void clear_particles();
  /// Room for n particles, so adding them one at a time does not reallocate.
  void reserve(int n);
  /// Number of particles.
  int count() const;
  /// The particles, in the order of the last sort.
  const Particles& particles() const;
  /// A grid solver's fields (velocity, pressure, dye); null for the particle solvers.
  const FieldView* field() const;
  /// The MAC grid the solver steps on: field() for a grid solver, FLIP's transfer grid (only
  /// nx, ny, cell, origin and the faces set); null for the SPH solvers. For tests and tools.
  const FieldView* faces() const;
  /// Adds dye of `colour` (each channel >= 0) to the cells inside `region`; false without a grid solver.
  bool fill_dye(const Box& region, glm::vec3 colour);
  /// The regions fill_dye filled since the world was made, in order: the scene's starting
  /// pattern, for a renderer that draws the dye at a resolution of its own.
  const std::vector<DyeFill>& dye_fills() const;

  // --- Obstacles, emitters, sinks -------------------------------------------
  /// Adds a solid disc; returns its id, or -1 if not finite or radius <= 0.
  int add_circle(glm::vec2 centre, float radius);
  /// Adds a capsule (segment ab with a radius); returns its id, or -1 if invalid.
  int add_capsule(glm::vec2 a, glm::vec2 b, float radius);
  /// Adds a capsule per segment of the polyline; returns the ids of those that were valid.
  std::vector<int> add_polyline(const std::vector<glm::vec2>& points, float radius);
  /// Removes obstacle `id`; false if there is none.
  bool remove_obstacle(int id);
  /// Removes every obstacle.
  void clear_obstacles();
  /// The obstacles.
  const std::vector<Obstacle>& obstacles() const;
  /// Adds an emitter; returns its id, or -1 if not finite or width <= 0.
  int add_emitter(const Emitter& e);
  /// Adds a sink; returns its id, or -1 if not finite or radius <= 0.
  int add_sink(const Sink& s);
  /// Removes emitter `id`; false if there is none.
  bool remove_emitter(int id);
  /// Removes sink `id`; false if there is none.
  bool remove_sink(int id);
  /// The emitters.
  const std::vector<Emitter>& emitters() const;
  /// The sinks.
  const std::vector<Sink>& sinks() const;

  // --- Rigid bodies (Box2D, coupled both ways with the water) ---------------
  /// Adds a rigid body; returns its id, or -1 with the reason in *why (a value not finite, a
  /// polygon not convex or without area, a density outside [kMinBodyDensity, kMaxBodyDensity],
  /// a body outside the tank or too large for it, or kMaxBodies already), and nothing changed.
  int add_body(const BodyDef& def, std::string* why = nullptr);
  /// The same, at rest, with the default friction and restitution.
  int add_body(const BodyShape& shape, float density, glm::vec2 position, float angle = 0.0f,
               std::string* why = nullptr);
  /// Removes body `id`; false if there is none.
  bool remove_body(int id);
  /// Removes every body.
  void clear_bodies();
  /// The bodies: pose, velocity, mass, and the water's force on them in the last substep.
  const std::vector<Body>& bodies() const;
  /// Pulls body `id` toward `target` with a stiff damped spring of bounded force (5 Hz, as a mouse
  /// joint), held at the point of the body under the first target; later calls move the target.
  /// False if there is no such body or the target is not finite.
  bool drag_body(int id, glm::vec2 target);
  /// Lets go of body `id`; false if there is none.
  bool release_body(int id);

  // --- Input ----------------------------------------------------------------
  /// Pointer forces for the next advance()/step(), replacing the last ones; invalid ones are dropped.
  void set_pointers(const std::vector<PointerForce>& pointers);

  // --- Engine ---------------------------------------------------------------
  /// Runs the step's loops through this hook (hooks.h); results do not depend on it.
  void set_parallel_for(const ParallelFor& pf);
  /// The parallel-loop hook in use.
  const ParallelFor& parallel_for() const;
  /// SIMD lanes of the pair loops: 1 scalar, 4, or 8; rounds down to a width the build has.
  void set_lanes(int lanes);
  /// SIMD lanes in use.
  int lanes() const;
  /// The widest lanes the build has: 8 (AVX2), 4 (SSE2, wasm SIMD) or 1.
  static int simd_width();

  // --- Time -----------------------------------------------------------------
  /// Advances by frame_time seconds in substeps of the time-step rule (at most max_substeps; past that time lags).
  FrameStats advance(float frame_time, const Clock& clock = Clock{});
  /// One substep of exactly dt seconds (at most 0.1 s; none if dt is not positive and finite).
  FrameStats step(float dt, const Clock& clock = Clock{});
  /// The substep the adaptive rule would take now.
  float stable_dt() const;
  /// Simulated time [s].
  double time() const;
  /// The stats of the last advance() or step().
  const FrameStats& last_stats() const;

  // --- Checks ---------------------------------------------------------------
  /// FNV-1a over positions, velocities, ids and time: equal inputs give equal hashes, whatever the thread count.
  uint64_t state_hash() const;
  /// The promises the state keeps after any step, whatever the input:
  /// every particle's position, velocity, density and pressure finite, its
  /// position inside the box, its id its own; a grid's velocities and
  /// pressures finite, its dye finite and not negative (and a grid there
  /// once stable fluids have stepped); every body's pose and velocities
  /// finite, its centroid inside the box. "" while they hold, else the
  /// first one broken, in words (the soak and the page's check() read it).
  std::string problem() const;
  /// Bytes held per particle by the world's arrays (benchmark).
  size_t bytes_per_particle() const;

 private:
  // The water laid on a lattice of `step` with parameters p (resample.cpp);
  // without arguments, on its own spacing with the parameters it has.
  bool relay(glm::vec2 step, const Params& p);
  bool relay();
  std::unique_ptr<WorldState> s_;
};

}  // namespace tidepool
