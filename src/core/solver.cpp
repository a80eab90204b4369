#include "solver.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "state.h"
#include "tidepool/kernels.h"

namespace tidepool {

std::unique_ptr<FluidSolver> make_muller(const Params& params);  // muller.cpp
std::unique_ptr<FluidSolver> make_dfsph(const Params& params);   // dfsph.cpp
std::unique_ptr<FluidSolver> make_stable(const Params& params);  // stable.cpp
std::unique_ptr<FluidSolver> make_flip(const Params& params);    // flip.cpp

float FluidSolver::dt_limit(const Params&, float) const { return std::numeric_limits<float>::infinity(); }
bool FluidSolver::fill_dye(const WorldState&, const Box&, glm::vec3) { return false; }

// An SPH solver's ordinary frame: kOrdinarySweeps scans of the cells at
// rest density (rest_candidates a particle). Two scans a step, DFSPH's
// solves a few passes over its lists more, and 2 to 40 steps a frame: over
// five seconds of each particle scene, the mean frame of each preset makes
// 20 to 70 passes (docs/physics.md, "Work").
double FluidSolver::ordinary_work(const WorldState& s) const {
  constexpr double kOrdinarySweeps = 48.0;
  return kOrdinarySweeps * s.particles.size() * std::max(1.0, rest_candidates(s.params.h, s.spacing()));
}

const std::vector<SolverEntry>& solver_registry() {
  // One line per solver, in the order of the Solver enum.
  static const std::vector<SolverEntry> registry = {
      {Solver::Muller2003, "muller2003", "the seeds' weakly compressible SPH, Muller et al. 2003", &make_muller},
      {Solver::DFSPH, "dfsph", "divergence-free SPH, Bender & Koschier 2015", &make_dfsph},
      {Solver::Stable, "stable", "stable fluids on a grid, Stam 1999", &make_stable},
      {Solver::Flip, "flip", "FLIP/PIC particles on a grid, Zhu & Bridson 2005", &make_flip},
  };
  return registry;
}

}  // namespace tidepool
