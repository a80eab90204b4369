#include "tidepool/params.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "solver.h"
#include "tidepool/world.h"

namespace tidepool {
namespace {

// Accessors generated per field, so the table needs no hand-written casts.
template <auto Member>
float get_field(const Params& p) {
  const auto v = p.*Member;
  using T = std::decay_t<decltype(v)>;
  if constexpr (std::is_enum_v<T>) {
    return static_cast<float>(static_cast<int>(v));
  } else {
    return static_cast<float>(v);
  }
}

template <auto Member>
void set_field(Params& p, float v) {
  using T = std::decay_t<decltype(p.*Member)>;
  // Converting NaN or a huge float to int is undefined: store a value that
  // validate() rejects instead.
  constexpr float kIntLimit = 2e9f;
  const int whole = std::isfinite(v) && std::fabs(v) < kIntLimit ? static_cast<int>(v) : -1000000;
  if constexpr (std::is_enum_v<T>) {
    p.*Member = static_cast<T>(whole);
  } else if constexpr (std::is_same_v<T, bool>) {
    p.*Member = v != 0.0f;
  } else if constexpr (std::is_integral_v<T>) {
    p.*Member = whole;
  } else {
    p.*Member = static_cast<T>(v);
  }
}

using T = ParamInfo::Type;

template <auto Member>
ParamInfo entry(const char* name, const char* help, T type, float min, float max,
                const char* choices = nullptr) {
  return ParamInfo{name, help, type, min, max, choices, &get_field<Member>, &set_field<Member>};
}

std::string format_number(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

// Name of choice `index` in "a|b|c", or empty.
std::string choice_name(const char* choices, int index) {
  std::string_view all(choices);
  for (int k = 0; k < index; ++k) {
    const size_t bar = all.find('|');
    if (bar == std::string_view::npos) return {};
    all.remove_prefix(bar + 1);
  }
  return std::string(all.substr(0, all.find('|')));
}

// The solver parameter's choice names ("a|b") and help, from the registry.
const std::string& solver_choices() {
  static const std::string names = [] {
    std::string all;
    for (const SolverEntry& e : solver_registry()) all += (all.empty() ? "" : "|") + std::string(e.name);
    return all;
  }();
  return names;
}
const std::string& solver_help() {
  static const std::string help = [] {
    std::string all = "solver:";
    for (const SolverEntry& e : solver_registry())
      all += std::string(all.back() == ':' ? " " : ", ") + e.name + " (" + e.description + ")";
    return all;
  }();
  return help;
}

}  // namespace

const std::vector<ParamInfo>& param_table() {
  const float last_solver = static_cast<float>(solver_registry().size() - 1);
  static const std::vector<ParamInfo> table = {
      entry<&Params::solver>("solver", solver_help().c_str(), T::Choice, 0, last_solver, solver_choices().c_str()),
      entry<&Params::h>("h", "kernel support radius [m]", T::Real, 1e-4f, 10.0f),
      entry<&Params::mass>("mass", "particle mass [kg] (2D: rest_density * spacing^2)", T::Real, 1e-9f, 1e6f),
      entry<&Params::rest_density>("rest_density", "rest density rho0 [kg/m^2]", T::Real, 1e-3f, 1e5f),
      entry<&Params::stiffness>("stiffness", "EOS stiffness k [m^2/s^2] (muller2003; squared speed of sound)", T::Real, 0.0f, 1e7f),
      entry<&Params::eos>("eos", "equation of state (muller2003): ideal p=k(rho-rho0) or tait (gamma 7)", T::Choice, 0, 1, "ideal|tait"),
      entry<&Params::pressure_force>("pressure_force", "pressure force (muller2003): symmetric (momentum-conserving) or muller (eq. 10)", T::Choice, 0, 1, "symmetric|muller"),
      entry<&Params::integrator>("integrator", "time integrator (muller2003): symplectic Euler (seed 002) or leapfrog (seed 000)", T::Choice, 0, 1, "euler|leapfrog"),
      entry<&Params::negative_pressure>("negative_pressure", "scale on negative EOS pressure (0 clamps, 1 keeps as the seeds)", T::Real, 0.0f, 1.0f),
      entry<&Params::tolerance>("tolerance", "DFSPH: mean density error to stop at (0.001 = 0.1 %)", T::Real, 1e-5f, 0.1f),
      entry<&Params::max_compression>("max_compression", "DFSPH: largest density error of one particle to stop at (0.05 = 5 %)", T::Real, 1e-4f, 1.0f),
      entry<&Params::max_iterations>("max_iterations", "DFSPH: cap on density-solver iterations per step", T::Integer, 1, 1000),
      entry<&Params::divergence_solver>("divergence_solver", "DFSPH: also solve for a divergence-free velocity (0/1)", T::Bool, 0, 1),
      entry<&Params::xsph>("xsph", "XSPH velocity smoothing (Monaghan 1989), 0 = off", T::Real, 0.0f, 1.0f),
      entry<&Params::viscosity>("viscosity", "viscosity mu (Muller eq. 14) [kg/s]", T::Real, 0.0f, 1e4f),
      entry<&Params::tension>("tension", "surface tension model: colour (Muller eq. 15-19) or cohesion (Akinci 2013)", T::Choice, 0, 1, "colour|cohesion"),
      entry<&Params::surface_tension>("surface_tension", "surface tension: sigma [N] (colour; flip) or gamma (cohesion), 0 = off", T::Real, 0.0f, 1e4f),
      entry<&Params::surface_threshold>("surface_threshold", "colour model: |n| above which surface tension acts [1/m] (scenes derive 0.5/h)", T::Real, 0.0f, 1e6f),
      entry<&Params::gravity_x>("gravity_x", "gravity, x component [m/s^2]", T::Real, -1000.0f, 1000.0f),
      entry<&Params::gravity_y>("gravity_y", "gravity, y component [m/s^2] (y up)", T::Real, -1000.0f, 1000.0f),
      entry<&Params::restitution>("restitution", "normal velocity kept (reversed) at walls and obstacles", T::Real, 0.0f, 1.0f),
      entry<&Params::friction>("friction", "tangential velocity removed at walls and obstacles", T::Real, 0.0f, 1.0f),
      entry<&Params::wall_viscosity>("wall_viscosity", "viscosity between fluid and walls/obstacles (no-slip) [kg/s]", T::Real, 0.0f, 1e4f),
      entry<&Params::dt>("dt", "time step, fixed or the adaptive maximum (FLIP takes its own) [s]", T::Real, 1e-6f, 0.1f),
      entry<&Params::adaptive_dt>("adaptive_dt", "adapt dt by CFL and force bound (0/1)", T::Bool, 0, 1),
      entry<&Params::cfl>("cfl", "CFL factor lambda in dt <= lambda h / v_max", T::Real, 0.01f, 1.0f),
      entry<&Params::max_substeps>("max_substeps", "most substeps per frame (simulation slows beyond)", T::Integer, 1, 1000),
      entry<&Params::work_bound>("work_bound", "most work per frame, in ordinary frames at the same size (simulation slows beyond)", T::Real, 1.0f, 8.0f),
      entry<&Params::min_separation>("min_separation", "particle solvers: closest two particles may come, in rest spacings", T::Real, 0.1f, 0.5f),
      entry<&Params::max_speed>("max_speed", "safety net: speeds above are clamped and flagged [m/s]", T::Real, 0.1f, 1e5f),
      entry<&Params::grid>("grid", "grid solvers: cells along the box's longer side", T::Integer, 8, 512),
      entry<&Params::reynolds>("reynolds", "grid solvers: Reynolds number U L / nu (U the lid speed or 1 m/s, L the box height); sets the viscosity", T::Real, 1.0f, 1e7f),
      entry<&Params::lid_speed>("lid_speed", "grid solvers: speed of the top wall to the right [m/s] (the cavity's lid)", T::Real, -100.0f, 100.0f),
      entry<&Params::advection>("advection", "grid solvers: semi-lagrangian (Stam 1999) or maccormack (Selle et al. 2008)", T::Choice, 0, 1, "semi-lagrangian|maccormack"),
      entry<&Params::grid_cfl>("grid_cfl", "grid solvers: largest move of the flow in cells per step", T::Real, 0.1f, 10.0f),
      entry<&Params::vorticity>("vorticity", "grid solvers: vorticity confinement epsilon (Fedkiw et al. 2001), 0 = off", T::Real, 0.0f, 10.0f),
      entry<&Params::buoyancy>("buoyancy", "grid solvers: upward acceleration per unit of dye [m/s^2] (smoke)", T::Real, 0.0f, 100.0f),
      entry<&Params::dye_rate>("dye_rate", "grid solvers: dye a pointer or emitter adds per second", T::Real, 0.0f, 100.0f),
      entry<&Params::pressure_tolerance>("pressure_tolerance", "grid solvers: projection residual relative to the divergence", T::Real, 1e-7f, 0.1f),
      entry<&Params::pressure_iterations>("pressure_iterations", "grid solvers: cap on the projection's iterations", T::Integer, 1, 1000),
      entry<&Params::flip_ratio>("flip_ratio", "flip: FLIP's share of the velocity update over 1/120 s, the rest PIC (Zhu & Bridson 2005)", T::Real, 0.0f, 1.0f),
      entry<&Params::flip_cell>("flip_cell", "flip: grid cell size in particle spacings", T::Real, 1.0f, 4.0f),
      entry<&Params::volume_correction>("volume_correction", "flip: share of a cell's excess density spread over 1/120 s", T::Real, 0.0f, 1.0f),
  };
  return table;
}

const ParamInfo* find_param(std::string_view name) {
  for (const ParamInfo& info : param_table()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

bool parse_param_value(const ParamInfo& info, std::string_view text, float* value,
                       std::string* error) {
  const std::string s(text);
  if (info.type == T::Choice) {
    for (int k = 0;; ++k) {
      const std::string name = choice_name(info.choices, k);
      if (name.empty()) break;
      if (name == s) {
        *value = static_cast<float>(k);
        return true;
      }
    }
  }
  if (info.type == T::Bool) {
    if (s == "true" || s == "on") return *value = 1.0f, true;
    if (s == "false" || s == "off") return *value = 0.0f, true;
  }
  char* end = nullptr;
  const float v = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) {
    if (error) {
      *error = std::string(info.name) + " = '" + s + "': not a number";
      if (info.type == T::Choice) *error += std::string(" or one of ") + info.choices;
    }
    return false;
  }
  *value = v;
  return true;
}

std::string format_param_value(const ParamInfo& info, float value) {
  if (info.type == T::Choice) {
    const std::string name = choice_name(info.choices, static_cast<int>(value));
    if (!name.empty()) return name;
  }
  return format_number(value);
}

std::vector<std::string> validate(const Params& p, int particle_count) {
  std::vector<std::string> problems;
  bool spacing_known = true;  // h, mass and rest_density each in range
  for (const ParamInfo& info : param_table()) {
    const float v = info.get(p);
    const bool whole = info.type != T::Real;
    const bool bad = !std::isfinite(v) || v < info.min || v > info.max ||
                     (whole && v != std::floor(v));
    if (!bad) continue;
    const std::string name = info.name;
    spacing_known = spacing_known && name != "h" && name != "mass" && name != "rest_density";
    std::string line = std::string(info.name) + " = " + format_number(v) + ": must be ";
    if (info.type == T::Choice) {
      line += std::string("one of ") + info.choices;
    } else {
      line += std::string(whole ? "an integer " : "") + "in [" + format_number(info.min) + ", " +
              format_number(info.max) + "]";
    }
    problems.push_back(line);
  }
  const float spacing = std::sqrt(p.mass / p.rest_density);
  if (spacing_known && p.h > kMaxSupportPerSpacing * spacing) {
    problems.push_back("h = " + format_number(p.h) + ": must be at most " + format_number(kMaxSupportPerSpacing) +
                       " particle spacings, " + format_number(kMaxSupportPerSpacing * spacing) +
                       " m (spacing = sqrt(mass / rest_density) = " + format_number(spacing) + " m)");
  }
  if (spacing_known && p.h < spacing) {
    problems.push_back("h = " + format_number(p.h) + ": must be at least one particle spacing, " +
                       format_number(spacing) + " m (spacing = sqrt(mass / rest_density)): a kernel narrower " +
                       "than the spacing finds no neighbours, and its density sums no water");
  }
  if (particle_count > kMaxParticles || particle_count == 0) {
    problems.push_back("particles = " + std::to_string(particle_count) + ": must be in [1, " +
                       std::to_string(kMaxParticles) + "]");
  }
  return problems;
}

std::vector<std::string> fit_problems(const Params& p, const Box& box, int particles) {
  std::vector<std::string> problems;
  const float spacing = std::sqrt(p.mass / p.rest_density);
  const glm::vec2 size = box.max - box.min;
  const float short_side = std::min(size.x, size.y);
  const std::string fields = "mass = " + format_number(p.mass) + ", rest_density = " + format_number(p.rest_density) + ": ";
  const std::string at = "the particle spacing sqrt(mass / rest_density) = " + format_number(spacing) + " m";
  if (!(spacing <= 0.25f * short_side)) {
    problems.push_back(fields + at + " must be at most a quarter of the tank's short side, " +
                       format_number(0.25f * short_side) + " m");
  } else if (particles > tank_capacity(p, box)) {
    problems.push_back(fields + std::to_string(particles) + " particles at " + at + " cover " +
                       format_number(static_cast<float>(particles) * spacing * spacing) + " m^2, more than the tank's " +
                       format_number(size.x * size.y) + " m^2");
  }
  return problems;
}

int tank_capacity(const Params& p, const Box& box) {
  const glm::vec2 size = box.max - box.min;
  const double most = static_cast<double>(size.x) * size.y * p.rest_density / p.mass;
  return most >= kMaxParticles ? kMaxParticles : most > 0.0 ? static_cast<int>(most) : 0;
}

// ---------------------------------------------------------------------------
// Presets. h and mass come from the scene's spacing, so only the rest is set.

const std::vector<PresetInfo>& presets() {
  static const std::vector<PresetInfo> list = {
      {"flip", "the liquid scenes' own: FLIP (Zhu & Bridson 2005) with the water preset's settings"},
      {"water", "the parameters' defaults: DFSPH, rho0 1000, large steps, holds volume within 0.1 %"},
      {"seed000", "seed 000 (Java blog): Tait, leapfrog, k 200, rho0 80, mu 1.4, sigma 0.05, e 0.95"},
      {"seed001", "seed 001 (game physics project): ideal gas, k 1000, rho0 20, mu 3, sigma 0.01, g -10"},
      {"seed002", "seed 002 (Jow's notes): ideal gas, k 3, rho0 998.29, mu 3.5, symplectic Euler, CFL 0.4"},
      {"wcsph", "Muller 2003 with the water preset's settings: Tait, k 400 (c = 20 m/s), rho0 1000"},
  };
  return list;
}

namespace {

// What the seeds share: Müller 2003 as they wrote it, negative pressures
// kept, no XSPH and free-slip walls.
void seed_method(Params& q) {
  q.solver = Solver::Muller2003;
  q.tension = Tension::ColourField;
  q.negative_pressure = 1.0f;
  q.xsph = 0.0f;
  q.wall_viscosity = 0.0f;
}

}  // namespace

bool apply_preset(Params& p, std::string_view name) {
  const float h = p.h, spacing2 = p.mass / p.rest_density;
  Params q;  // start from the defaults (the "water" preset)
  if (name == "water") {
    // The defaults as declared in Params. Viscosity and wall viscosity are
    // what a 2D SPH resolution needs to reproduce Koshizuka & Oka's surge
    // front (the experiment's floor is not frictionless; the real water's
    // 1e-6 m^2/s is far below what ~40 particles across a column resolve).
  } else if (name == "flip") {
    // The same water through FLIP: its grid resolves the flow with
    // particles at cell size, and its pressure is the projection's, so it
    // holds several times DFSPH's particles at the same cost (docs/performance.md).
    q.solver = Solver::Flip;
  } else if (name == "seed000") {
    seed_method(q);
    q.eos = Eos::Tait;
    q.integrator = Integrator::Leapfrog;
    q.pressure_force = PressureForce::Muller;
    q.stiffness = 200.0f;
    q.rest_density = 80.0f;
    q.viscosity = 1.4f;
    q.surface_tension = 0.05f;
    q.surface_threshold = std::sqrt(55.0f);  // seed's thresholdsqr = 55
    q.restitution = 0.95f;
    q.dt = 0.003f;
    q.gravity_y = -9.82f;
  } else if (name == "seed001") {
    seed_method(q);
    q.eos = Eos::IdealGas;
    q.pressure_force = PressureForce::Muller;
    q.stiffness = 1000.0f;
    q.rest_density = 20.0f;
    q.viscosity = 3.0f;
    q.surface_tension = 0.01f;
    q.surface_threshold = 1.0f;
    q.gravity_y = -10.0f;
    q.restitution = 0.0f;
    q.dt = 0.01f;
  } else if (name == "seed002") {
    seed_method(q);
    q.eos = Eos::IdealGas;
    q.pressure_force = PressureForce::Symmetric;
    q.stiffness = 3.0f;
    q.rest_density = 998.29f;
    q.viscosity = 3.5f;
    q.gravity_y = -9.8f;
    q.dt = 0.006f;
  } else if (name == "wcsph") {
    q.solver = Solver::Muller2003;
    q.eos = Eos::Tait;
    q.stiffness = 400.0f;
    q.xsph = 0.0f;
    q.dt = 0.002f;
  } else {
    return false;
  }
  // Explicit pressure needs many small steps (CFL on the sound speed): let
  // the seeds' solver take them rather than fall behind real time.
  if (q.solver == Solver::Muller2003) q.max_substeps = 400;
  // The same particles, h and spacing kept: their mass follows the
  // preset's rest density (mass = rest_density spacing^2), so the water
  // stays at rest on its lattice.
  q.h = h;
  q.mass = q.rest_density * spacing2;
  p = q;
  return true;
}

}  // namespace tidepool
