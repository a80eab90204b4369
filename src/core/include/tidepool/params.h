// Tidepool — simulation parameters, their metadata and their validation.
//
// One table (param_table()) describes every tunable field: its short name,
// meaning, unit and allowed range. The CLI (`tidepool params`, `--set`), the
// ImGui panel and validate() are all generated from it, so a range or a
// tooltip is written exactly once (the SPlisHSPlasH way).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidepool {

// Largest particle count a World holds.
constexpr int kMaxParticles = 262144;

// Largest kernel support h that validate() accepts, in particle spacings
// sqrt(mass / rest_density): about pi 6^2 = 113 neighbours, four times the
// scenes' 2.8. The neighbour lists' memory and a step's work grow as h^2
// per particle, and past this a kernel smooths the flow over more than a
// toy's tank can show.
constexpr float kMaxSupportPerSpacing = 6.0f;

// The method that moves the fluid (solver_registry() in src/core/solver.cpp).
enum class Solver : int {
  // Weakly compressible SPH of Müller, Charypar & Gross 2003 (the seeds):
  // explicit pressure from an equation of state, tiny time steps.
  Muller2003 = 0,
  // Divergence-free SPH, Bender & Koschier 2015: iterative pressure that holds
  // the density within a tolerance at large time steps. The default.
  DFSPH = 1,
  // Stam 1999, stable fluids: velocity and dye on a grid, semi-Lagrangian
  // advection, implicit viscosity, pressure projection. No particles.
  Stable = 2,
  // FLIP blended with PIC (Zhu & Bridson 2005): particles carry the
  // liquid, a grid with a free surface solves its pressure.
  Flip = 3,
};

// Advection scheme of the grid solvers.
enum class Advection : int {
  SemiLagrangian = 0,  // Stam 1999: a backtrace and a bilinear sample
  MacCormack = 1,      // Selle et al. 2008: second order, with a limiter
};

// Equation of state for the Müller 2003 solver.
enum class Eos : int {
  IdealGas = 0,  // p = k (rho - rho0)                       (seeds 001-004)
  Tait = 1,      // p = (k rho0 / 7) ((rho / rho0)^7 - 1)    (seeds 000, 004)
};

// Discretisation of the pressure force for the Müller 2003 solver.
enum class PressureForce : int {
  // -m_i sum_j m_j (p_i/rho_i^2 + p_j/rho_j^2) grad W: pairwise antisymmetric,
  // conserves linear momentum exactly (seed 002, Monaghan 1992). Default.
  Symmetric = 0,
  // -sum_j m_j (p_i + p_j) / (2 rho_j) grad W, Müller 2003 eq. 10.
  Muller = 1,
};

// Time integrator for the Müller 2003 solver (DFSPH always uses symplectic
// Euler, which its derivation assumes).
enum class Integrator : int {
  SymplecticEuler = 0,  // v += a dt; x += v dt                      (seed 002)
  Leapfrog = 1,         // half-step velocities, averaged for output (seed 000)
};

// Surface tension model.
enum class Tension : int {
  // Colour field of Müller 2003 (eq. 15-19): f = -sigma lap(c) n/|n| where
  // |n| exceeds a threshold (seeds). Needs strong viscosity under DFSPH.
  ColourField = 0,
  // Cohesion + curvature between pairs, Akinci, Akinci & Teschner 2013:
  // momentum-conserving, no threshold, works at DFSPH's large steps. Default.
  Cohesion = 1,
};

struct Params {
  Solver solver = Solver::DFSPH;

  // Discretisation. Scenes derive h and mass from the particle count.
  float h = 0.05f;               // kernel support radius [m]
  float mass = 0.64f;            // particle mass [kg] (2D: rho0 * spacing^2)
  float rest_density = 1000.0f;  // rho0 [kg/m^2]

  // Müller 2003 solver.
  float stiffness = 400.0f;  // k [m^2/s^2] = squared speed of sound of the EOS
  Eos eos = Eos::Tait;
  PressureForce pressure_force = PressureForce::Symmetric;
  Integrator integrator = Integrator::SymplecticEuler;
  // Scale applied to negative pressures (0 = clamp to zero, 1 = seeds).
  float negative_pressure = 0.0f;

  // DFSPH solver.
  float tolerance = 0.001f;        // mean density error to stop at (0.1 %)
  // ... and the largest one particle's to stop at (5 %): the mean alone
  // can hide a few particles compressed far more (the corners of a large
  // pool), whose correction in one step would throw them out.
  float max_compression = 0.05f;
  int max_iterations = 100;        // cap on density-solver iterations
  bool divergence_solver = true;   // also make the velocity divergence-free
  float xsph = 0.05f;              // XSPH velocity smoothing factor

  // Forces shared by both solvers.
  float viscosity = 3.0f;           // mu, Müller 2003 eq. 14 [kg/s]
  Tension tension = Tension::Cohesion;
  float surface_tension = 0.0f;     // sigma (colour field) or gamma (cohesion)
  float surface_threshold = 5.0f;   // colour field: |n| above which it acts [1/m]
  float gravity_x = 0.0f;           // [m/s^2]
  float gravity_y = -9.81f;         // [m/s^2]

  // Container and obstacles.
  float restitution = 0.0f;  // normal velocity kept (reversed) at a wall
  float friction = 0.0f;     // tangential velocity removed at a wall
  // Viscosity between the fluid and walls/obstacles [kg/s]: Müller's eq. 14
  // with the wall as fluid at rest (no-slip). 0 = free slip.
  float wall_viscosity = 80.0f;

  // Time step.
  // Half a 60 Hz frame: DFSPH at rest takes two steps a frame, and moving
  // fluid is limited by the CFL bound; a whole frame's step lets a resting
  // column jitter visibly.
  float dt = 0.0084f;         // fixed step, or the largest adaptive step of SPH and stable fluids [s]
  bool adaptive_dt = true;    // CFL + force bound on top of dt
  float cfl = 0.4f;           // lambda in dt <= lambda h / v_max (seed 002)
  int max_substeps = 32;      // cap per advance(); time slows past it
  // The most work a frame may do, in ordinary frames of the solver at the
  // same size (FrameStats::work, World::advance): past it the frame ends
  // early and time slows. At most 8, the default: it leaves the busiest
  // frames of the scenes at least twice below it (docs/physics.md, "Work"),
  // and holds a frame of 20 000 particles under a second natively.
  float work_bound = 8.0f;
  // Particle solvers: the closest two particles may come, in rest
  // spacings. Closer pairs are pushed apart after each step (boundary
  // stage), which bounds the density, and with it the neighbours a
  // particle may have, at about (1 / min_separation)^2 times the rest.
  float min_separation = 0.3f;

  // Safety net: speeds above this are clamped and flagged in stats [m/s].
  float max_speed = 50.0f;

  // Grid solvers.
  // Cells along the box's longer side; at most 512, where an ordinary
  // frame takes a tenth of a second natively and the work bound's eight
  // of them most of a second.
  int grid = 128;
  // U L / nu with U the lid speed (1 m/s without a lid) and L the box's
  // height: sets the kinematic viscosity nu.
  float reynolds = 10000.0f;
  float lid_speed = 0.0f;         // the top wall's speed to the right [m/s]
  Advection advection = Advection::MacCormack;
  // The largest move of the flow in cells per step. At 3 FLIP takes one
  // step a frame in a sloshing tank at the toy's resolutions, and its
  // particles' midpoints stay inside the flow it extrapolates (flip.cpp);
  // stable fluids' backtraces are stable at any step.
  float grid_cfl = 3.0f;
  float vorticity = 0.0f;         // confinement epsilon (Fedkiw, Stam & Jensen 2001)
  float buoyancy = 0.0f;          // upward acceleration per unit of dye [m/s^2]
  float dye_rate = 4.0f;          // dye a pointer or emitter adds per second
  float pressure_tolerance = 1e-4f;  // projection residual, relative to the divergence
  int pressure_iterations = 100;     // cap on the projection's iterations

  // FLIP.
  float flip_ratio = 0.95f;         // FLIP's share of the velocity update over 1/120 s (the rest PIC)
  float flip_cell = 2.0f;           // grid cell size in particle spacings
  float volume_correction = 0.5f;   // share of a cell's excess density spread over 1/120 s
};

// Metadata for one field of Params.
struct ParamInfo {
  enum class Type { Real, Integer, Bool, Choice };
  const char* name;     // short name for --set and the panel: "viscosity"
  const char* help;     // one line: meaning and unit
  Type type;
  float min, max;       // allowed range, inclusive
  const char* choices;  // Choice only: names separated by '|', index = value
  float (*get)(const Params&);
  void (*set)(Params&, float);
};

// Every tunable field, in display order.
const std::vector<ParamInfo>& param_table();
const ParamInfo* find_param(std::string_view name);

// Parses "0.5", "true", or a choice name ("tait") into the stored value.
// Returns false with a message when the text fits none of them.
bool parse_param_value(const ParamInfo& info, std::string_view text, float* value,
                       std::string* error);
// Formats a value the way parse_param_value reads it back.
std::string format_param_value(const ParamInfo& info, float value);

// Every problem with p, one line each: field name, value, allowed range.
// A particle count >= 0 is checked against kMaxParticles too ("particles"),
// and h against one and kMaxSupportPerSpacing spacings.
// Empty when everything is valid.
std::vector<std::string> validate(const Params& p, int particle_count = -1);

// Named parameter sets (everything except h and mass, which the scene derives
// from its particle spacing).
struct PresetInfo {
  const char* name;
  const char* description;
};
const std::vector<PresetInfo>& presets();
// Applies preset `name` to p; false if unknown. h and the particle spacing are
// kept (mass follows the preset's rest density).
bool apply_preset(Params& p, std::string_view name);

}  // namespace tidepool
