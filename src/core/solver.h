// A solver: the stages of a step that differ between methods.
//
// For a particle solver, World's substep (world.cpp) runs the shared
// stages around it:
//   neighbours   the sort by cell (sort.cpp)
//   solver       density, forces, pressure, integrate (this interface)
//   boundaries   collisions (boundary.cpp), emitters and sinks
//                (emitters.cpp), the safety net (safety.cpp)
// A grid solver (moves_particles() false, stable.cpp) owns its fields and
// runs its whole step itself, reading the same box, obstacles, emitters,
// sinks and pointers; the particle stages do nothing without particles.
// Each solver lives in its own files with its own scratch arrays, and
// registers once in solver_registry() (solver.cpp) under the Params::solver
// value and name it answers to.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "boundary.h"
#include "carried.h"
#include <glm/vec3.hpp>

#include "tidepool/hooks.h"
#include "tidepool/types.h"

namespace tidepool {

struct WorldState;

// Times the step's stages into FrameStats from the caller's clock, and
// books their work: lap(s) adds the time and the work since the last lap
// to stage s.
class StageClock {
 public:
  StageClock(const Clock& clock, FrameStats& stats) : clock_(clock), stats_(stats), w0_(stats.work) {
    t0_ = clock_ ? clock_() : 0.0;
  }
  void lap(int stage) {
    stats_.stage_work[stage] += stats_.work - w0_;
    w0_ = stats_.work;
    if (!clock_) return;
    const double t1 = clock_();
    stats_.stage_ms[stage] += t1 - t0_;
    t0_ = t1;
  }

 private:
  const Clock& clock_;
  FrameStats& stats_;
  double t0_ = 0.0;
  double w0_ = 0.0;
};

// The work of one pass over the neighbourhoods of n particles with
// `neighbours` each on average (FrameStats::work): a term per particle and
// neighbour, itself included. A pass over the neighbour lists costs this;
// a scan of the cells costs every candidate in them (WorldState::candidate_sum).
inline double sweep_work(int n, float neighbours) { return n * (1.0 + static_cast<double>(neighbours)); }

// A particle's candidates at rest density: its five cell ranges cover
// 81/16 h^2 (neighbour_grid.h) at a particle per spacing^2.
inline double rest_candidates(float h, float spacing) { return 81.0 / 16.0 * (h / spacing) * (h / spacing); }

// Whether work of `next` more fits in the frame's work bound.
inline bool within_bound(const FrameStats& st, double next) { return st.work + next <= st.work_limit; }

// The passes over its cells a grid step may still make after an
// iterative solve (the other solves' least, advection, the transfer back):
// the room its solves leave.
constexpr double kGridStepTail = 24.0;
// What an SPH step may still do after an iteration of its solves, besides
// the shared stages (shared_least): passes over the lists (the other
// solve's warm start and first prediction, with room to spare), a scan
// (the forces) and passes over the particles (the integration, the solves').
constexpr double kSphListTail = 4.0, kSphScanTail = 1.0, kSphParticleTail = 8.0;

// The least work of a particle step's shared stages at the sort's counts
// (world.cpp): the minimum distance's two scans and passes over the
// particles, the boundaries' over every obstacle, body and sink, the
// safety net's.
double shared_least(const WorldState& s);

// How many more passes of `cost` each the frame's work bound leaves room
// for with kGridStepTail more after them and `reserve` (the work of the
// step's other stages: its transfers back, the shared stages): at least 1,
// so that a step always makes progress, and at most cap.
inline int passes_within(const FrameStats& st, double cost, int cap, double reserve) {
  if (!(cost > 0.0)) return cap;
  const double room = (st.work_limit - st.work - reserve) / cost - kGridStepTail;
  return room >= cap ? cap : room < 1.0 ? 1 : static_cast<int>(room);
}

class FluidSolver {
 public:
  virtual ~FluidSolver() = default;
  virtual std::unique_ptr<FluidSolver> clone() const = 0;

  // Density, forces, pressure and integration over the sorted particles
  // (s.search), lapping each stage; adds its counts to st.
  virtual void step(WorldState& s, float dt, StageClock& clock, FrameStats& st) = 0;
  // The per-particle state it keeps across steps.
  virtual Carried carried() = 0;
  // The kernel of its density sums, for the walls' density map.
  virtual DensityKernel density_kernel() const = 0;
  // Its own bound on the time step, for the largest speed vmax: beyond the
  // particle bounds and params.dt (World::stable_dt) where sph_bounds(),
  // else the only one (a frame's remainder bounds it too).
  virtual float dt_limit(const Params& params, float vmax) const;
  // The largest acceleration its forces may give before a step has
  // measured one (after a load), for the force bound (World::stable_dt).
  virtual float first_accel(const Params&) const { return 0.0f; }
  // Whether the SPH bounds on the step apply (the CFL condition in h, the
  // force bound, explicit viscosity's): they keep explicit particle forces
  // stable, so a solver whose pressure and viscosity are implicit on a grid
  // has none of them.
  virtual bool sph_bounds() const { return moves_particles(); }
  // Whether its step reads the neighbour sort (s.search, and the order it
  // leaves the particles in): the SPH solvers' sums do; a particle-in-cell
  // solver finds each particle's cell itself.
  virtual bool sorts_particles() const { return sph_bounds(); }
  // Mean neighbours within h per particle, self excluded, from its last
  // density pass (0 before the first).
  virtual float mean_neighbours(int particles) const = 0;
  // The work of an ordinary frame (FrameStats::work) of this solver in
  // this state's size: its particles, or its cells. The frame's bound is
  // params.work_bound times it (World::advance).
  virtual double ordinary_work(const WorldState& s) const;
  // Its least work in a step (a particle solver's at the sort's counts,
  // s.candidate_sum): its passes that no bound may skip. World's substep
  // admits a step by it.
  virtual double least_work(const WorldState& s) const = 0;
  // Bytes of its per-particle arrays and scratch.
  virtual size_t bytes() const = 0;

  // Grid solvers.
  virtual bool moves_particles() const { return true; }
  // Its fields, or null for a particle solver.
  virtual const FieldView* field() const { return nullptr; }
  // The MAC grid the solver steps on, if any: a grid solver's field, or
  // FLIP's transfer grid (its size, place and faces alone).
  virtual const FieldView* faces() const { return field(); }
  // Adds dye of `colour` to the cells inside `region`; false without dye.
  virtual bool fill_dye(const WorldState& s, const Box& region, glm::vec3 colour);
};

// Gives FluidSolver::clone to a solver class S.
template <class S>
class SolverBase : public FluidSolver {
 public:
  std::unique_ptr<FluidSolver> clone() const override {
    return std::make_unique<S>(static_cast<const S&>(*this));
  }
};

// Owns the world's solver; a copy clones it.
class SolverSlot {
 public:
  SolverSlot() = default;
  SolverSlot(const SolverSlot& o) : p_(o.p_ ? o.p_->clone() : nullptr) {}
  SolverSlot& operator=(const SolverSlot& o) {
    p_ = o.p_ ? o.p_->clone() : nullptr;
    return *this;
  }
  SolverSlot(SolverSlot&&) noexcept = default;
  SolverSlot& operator=(SolverSlot&&) noexcept = default;
  void reset(std::unique_ptr<FluidSolver> p) { p_ = std::move(p); }
  FluidSolver* operator->() const { return p_.get(); }
  FluidSolver& operator*() const { return *p_; }

 private:
  std::unique_ptr<FluidSolver> p_;
};

struct SolverEntry {
  Solver id;
  const char* name;         // the "solver" parameter's choice name
  const char* description;  // one line, for `tidepool params` and the panel
  std::unique_ptr<FluidSolver> (*make)(const Params& params);
};
// Every solver, in Params::solver order.
const std::vector<SolverEntry>& solver_registry();

}  // namespace tidepool
