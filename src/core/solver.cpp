#include "solver.h"

#include <limits>

namespace tidepool {

std::unique_ptr<FluidSolver> make_muller(const Params& params);  // muller.cpp
std::unique_ptr<FluidSolver> make_dfsph(const Params& params);   // dfsph.cpp
std::unique_ptr<FluidSolver> make_stable(const Params& params);  // stable.cpp
std::unique_ptr<FluidSolver> make_flip(const Params& params);    // flip.cpp

float FluidSolver::dt_limit(const Params&, float) const { return std::numeric_limits<float>::infinity(); }
bool FluidSolver::fill_dye(const WorldState&, const Box&, glm::vec3) { return false; }

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
