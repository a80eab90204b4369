// Tidepool — the values the World API takes and gives: stats, pointer
// forces, shapes, emitters, sinks, the container and the particles.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "tidepool/array.h"
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
  kStageTransfer,        // particles to grid and back (FLIP's P2G and G2P)
  kStageBodies,          // rigid bodies: the water's forces on them, and Box2D's step
  kStageCount
};
const char* stage_name(int stage);

struct FrameStats {
  int particles = 0;
  int substeps = 0;
  float dt = 0.0f;                   // last substep's dt [s]
  double time = 0.0;                 // simulated time after the frame [s]
  // The bulk's density error: over the particles at least half as dense as
  // rho0. Sparser ones have less than half a neighbourhood, spray that has
  // left the water, whose kernel sum reads far under rho0 for no fault of
  // the solver: they are counted in `spray` instead.
  float max_density_error = 0.0f;    // max |rho/rho0 - 1| over the bulk
  float mean_density_error = 0.0f;   // mean |rho/rho0 - 1| over the bulk
  int spray = 0;                     // particles under rho0 / 2
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
  // Work, in units that do not depend on the machine. Particle solvers:
  // one term per particle and neighbour (itself included) in each pass
  // over the neighbourhoods, and one per particle in each pass over the
  // particles. Grid solvers: one per cell in each pass over the cells (a
  // Poisson iteration counts as one), one per particle in each transfer.
  // work_limit is the frame's bound: work_bound times an ordinary frame of
  // the solver at this size (ordinary_work, World::advance). The frame
  // ends early rather than pass it (work_cap_hit), and time slows.
  double work = 0.0;
  std::array<double, kStageCount> stage_work{};  // work by stage
  double work_limit = std::numeric_limits<double>::infinity();  // none until a frame sets it
  bool work_cap_hit = false;
  // Particles whose scans the work bound's backstop cut (World::advance: a
  // pile whose least step does not fit the frame), summed over substeps.
  int cap_hits = 0;
  bool contained = false;            // safety net clamped speeds or removed NaNs
  int contained_particles = 0;
  // Grid solvers: cells, and the largest |div u| [1/s] the last projection
  // left (solver_iterations counts its iterations, solver_error its final
  // residual relative to the divergence it started from).
  int cells = 0;
  float max_divergence = 0.0f;
  int bodies = 0;                    // rigid bodies in the world (their coupling: stage_ms[kStageBodies])
};

// FrameStats's scalar fields, written once: their names (snake_case; the
// CLI's --stats writes them so, the page's stats() in camelCase) and how
// the frames or ticks of a longer span add up. stage_ms and stage_work add
// up by stage.
struct FrameStatField {
  enum class Type { Int, Real, Bool };
  enum class Over { Last, Sum, Max, Any };  // the span's last value, sum, largest, or any set
  const char* name;
  Type type;
  Over over;
  double (*get)(const FrameStats&);
  void (*set)(FrameStats&, double);
};
const std::vector<FrameStatField>& frame_stat_fields();
// `next` (a later tick or frame) added onto `sum` by each field's rule; an
// empty sum (no substep, no work) becomes `next`.
void add_frame_stats(FrameStats& sum, const FrameStats& next);

// Circular force region for a pointer (mouse button or finger).
struct PointerForce {
  glm::vec2 position{0.0f};
  float radius = 0.2f;           // [m]
  float strength = 30.0f;        // [m/s^2] at the centre; > 0 pushes out, < 0 pulls in
  glm::vec2 velocity{0.0f};      // drag velocity [m/s]: particles are stirred toward it
  float stir = 0.0f;             // [1/s] rate at which particle velocity follows `velocity`
  // The dye it pours in a grid solver (each channel >= 0). Unset (a
  // negative channel): the k-th of kDyeColours for the k-th pointer.
  glm::vec3 dye{-1.0f};
};

// Dye colours of pointers and emitters, by index: distinct, saturated hues.
inline constexpr std::array<glm::vec3, 6> kDyeColours = {{{1.0f, 0.25f, 0.3f},
                                                        {0.2f, 0.6f, 1.0f},
                                                        {1.0f, 0.8f, 0.15f},
                                                        {0.3f, 1.0f, 0.45f},
                                                        {0.8f, 0.35f, 1.0f},
                                                        {1.0f, 0.5f, 0.1f}}};
// The dye the k-th pointer pours: its own, or the k-th of kDyeColours.
inline glm::vec3 pointer_dye(const PointerForce& f, size_t k) {
  return f.dye.x >= 0.0f && f.dye.y >= 0.0f && f.dye.z >= 0.0f ? f.dye : kDyeColours[k % kDyeColours.size()];
}

// Static obstacles: a solid disc, or a capsule (segment with a radius) —
// the 2D form of seed 001's mesh collisions. Polylines are chains of capsules.
// The step also sees each rigid body as one, a disc or a convex polygon
// moving with the body's velocity (body >= 0); World::obstacles() lists the
// static ones only.
struct Obstacle {
  enum class Kind { Circle, Capsule, Polygon };
  static constexpr int kMaxPoints = 8;  // Box2D's b2_maxPolygonVertices
  Kind kind = Kind::Circle;
  glm::vec2 a{0.0f};   // centre (circle, polygon's centroid) or first end (capsule)
  glm::vec2 b{0.0f};   // second end (capsule)
  float radius = 0.0f;
  int id = 0;
  // A polygon's corners, counter-clockwise, in the world frame, and the
  // farthest of them from a (0: not known).
  std::array<glm::vec2, kMaxPoints> points{};
  int count = 0;
  float reach = 0.0f;
  // A body's motion: the velocity at p is velocity + omega x (p - a).
  int body = -1;  // the body's index in the step's list, -1 for a static obstacle
  glm::vec2 velocity{0.0f};
  float omega = 0.0f;
  glm::vec2 velocity_at(glm::vec2 p) const { return velocity + omega * glm::vec2(a.y - p.y, p.x - a.x); }
};

// A rigid body's shape in its own frame, its centroid at the origin: a
// disc, or a convex polygon of 3 to Obstacle::kMaxPoints corners,
// counter-clockwise. The kind names it (a box and a boat are polygons).
struct BodyShape {
  enum class Kind { Box, Disc, Boat, Polygon };
  Kind kind = Kind::Box;
  float radius = 0.0f;              // a disc's
  std::vector<glm::vec2> points;    // a polygon's corners
  static BodyShape box(float width, float height);
  static BodyShape disc(float radius);
  // A hull `length` long: a trapezoid with a flat bottom 0.6 of its deck,
  // 0.25 of its length deep.
  static BodyShape boat(float length);
  static BodyShape polygon(const std::vector<glm::vec2>& points);
  float area() const;
  // The farthest point of the shape from its centroid.
  float reach() const;
};
const char* body_kind_name(BodyShape::Kind kind);

// What add_body() takes. Density in the water's 2D units [kg/m^2].
struct BodyDef {
  BodyShape shape;
  float density = 500.0f;
  glm::vec2 position{0.0f};  // the centroid [m]
  float angle = 0.0f;        // [rad], counter-clockwise
  glm::vec2 velocity{0.0f};
  float omega = 0.0f;        // [rad/s]
  float friction = 0.3f;     // Coulomb, body on body and on walls
  float restitution = 0.1f;
  bool fixed_rotation = false;
};
constexpr float kMinBodyDensity = 1.0f, kMaxBodyDensity = 20000.0f;  // [kg/m^2]
constexpr int kMaxBodies = 64;

// A body as the last step left it (World::bodies()).
struct Body {
  int id = 0;
  BodyDef def;            // its shape and material; position, angle and velocities below
  glm::vec2 position{0.0f};
  float angle = 0.0f;
  glm::vec2 velocity{0.0f};
  float omega = 0.0f;
  float mass = 0.0f;      // [kg/m]
  float inertia = 0.0f;   // about the centroid
  glm::vec2 fluid_force{0.0f};  // the water's force [N/m] and torque over the last substep
  float fluid_torque = 0.0f;
  bool dragged = false;
  glm::vec2 drag_target{0.0f};  // where a drag pulls (World::drag_body)
  glm::vec2 drag_anchor{0.0f};  // the point it pulls, in the body's frame
  // A point of the body's own frame in the world's.
  glm::vec2 to_world(glm::vec2 local) const;
  // 1 / mass and 1 / inertia, each 0 where the body does not move that
  // way (fixed rotation): an impulse j at lever r changes its velocity by
  // j / mass and its spin by (r x j) / inertia.
  float inverse_mass() const { return mass > 0.0f ? 1.0f / mass : 0.0f; }
  float inverse_inertia() const { return def.fixed_rotation || !(inertia > 0.0f) ? 0.0f : 1.0f / inertia; }
};

// A body as the step sees it: a moving obstacle, a disc or a convex
// polygon in the world frame with the body's velocity; `index` is its
// place in World::bodies().
Obstacle body_obstacle(const Body& body, int index);
// Signed distance from p to the body's outline (negative inside).
float body_distance(const Body& body, glm::vec2 p);

// Pours particles: rows of particles across a line of `width` centred at
// `position`, shot along `velocity`. The row rate follows from the flux:
// |velocity| / spacing rows per second, so the jet enters at rest density.
// The speed is held to max_speed, and rows that would already lie outside
// the tank are not made.
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

// A grid solver's fields (World::field()), for drawing and output: nx x ny
// square cells of side `cell` from `origin` (the box's bottom-left corner),
// row-major from the bottom row, every value at a cell's centre.
struct FieldView {
  int nx = 0, ny = 0;
  float cell = 0.0f;
  glm::vec2 origin{0.0f};
  const float* u = nullptr;         // velocity [m/s], interpolated from the faces
  const float* v = nullptr;
  // The faces' own: u on the (nx + 1) x ny vertical faces, v on the
  // nx x (ny + 1) horizontal ones, row by row from the bottom (a MAC grid).
  const float* u_faces = nullptr;
  const float* v_faces = nullptr;
  const float* pressure = nullptr;  // [Pa]
  const float* dye[3] = {nullptr, nullptr, nullptr};  // red, green, blue; >= 0
  const uint8_t* solid = nullptr;   // 1 inside an obstacle
};

struct Box {
  glm::vec2 min{0.0f};
  glm::vec2 max{1.0f};
};

// A region World::fill_dye filled, and with what: a renderer that draws the
// dye at its own resolution draws the scene's starting pattern from these.
struct DyeFill {
  Box region;
  glm::vec3 colour{0.0f};
};

// Particle state, structure of arrays. Every array has size() entries and
// is reordered together when the step sorts the particles by grid cell, so
// an index names a particle only until the next step; `id` follows it.
// A solver's own per-particle state (the leapfrog's half-step velocity,
// DFSPH's stiffnesses) lives in the solver and moves with these arrays.
struct Particles {
  Array<float> x, y;            // position [m]
  Array<float> vx, vy;          // velocity [m/s]
  Array<float> ax, ay;          // acceleration of the last step [m/s^2]
  Array<float> density;         // [kg/m^2]
  Array<float> pressure;        // [N/m]
  Array<float> x_prev, y_prev;  // positions before the last integration
  Array<uint32_t> id;           // stable id, survives reordering
  std::vector<uint8_t> surface;  // 1 where the colour-field |n| exceeds the threshold

  int size() const { return static_cast<int>(x.size()); }
  // Every float field, for the loops over all of them (writable or not).
  template <class P>
  static auto floats_of(P& p) {
    return std::array{&p.x, &p.y, &p.vx, &p.vy, &p.ax, &p.ay, &p.density, &p.pressure, &p.x_prev, &p.y_prev};
  }
  auto floats() { return floats_of(*this); }
  auto floats() const { return floats_of(*this); }
  void resize(int n);
  void reserve(int n);
  // Keeps entries with keep[i] != 0, in order; returns how many were removed.
  int compact(const std::vector<uint8_t>& keep);
};

}  // namespace tidepool
