// Stable fluids (Stam 1999, seed 004): velocity and dye on a staggered grid
// over the tank, no particles. One step, in Stam's stages:
//   integrate    self-advection of the velocity: a semi-Lagrangian
//                backtrace (Stam 1999) or MacCormack (Selle et al. 2008)
//   forces       viscosity, (I - nu dt lap) u = u* (mac_grid.h's
//                diffuse_faces: one explicit step where that is stable,
//                else by conjugate gradients); then pointers,
//                emitters, sinks, buoyancy and vorticity confinement
//                (Fedkiw, Stam & Jensen 2001) add velocity and dye
//   pressure     projection onto a divergence-free field (the Helmholtz-Hodge
//                decomposition): lap phi = div u*, u = u* - grad phi, by the
//                multigrid-preconditioned CG of poisson.cpp (mac_grid.cpp)
//   integrate    the dye advected by the divergence-free velocity
// Stam adds the forces first; any order of the split stages is first-order
// accurate, and forces just before the projection leave a body force's
// gradient part nothing to act on but the pressure.
// Walls are no-slip; the box's top wall moves at lid_speed (the lid-driven
// cavity of Ghia, Ghia & Shin 1982). Obstacles are the cells whose centre
// lies inside one: their faces carry no flow.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include <glm/vec3.hpp>

#include "loops.h"
#include "mac_grid.h"
#include "poisson.h"
#include "solver.h"

namespace tidepool {

class StableFluids final : public SolverBase<StableFluids> {
 public:
  void step(WorldState& s, float dt, StageClock& clock, FrameStats& st) override;
  Carried carried() override { return {}; }
  DensityKernel density_kernel() const override { return DensityKernel::Cubic; }
  // The flow crosses at most grid_cfl cells a step: the backtrace stays
  // accurate; stability needs no bound (Stam 1999). Never longer than dt.
  float dt_limit(const Params& P, float) const override {
    return max_speed_ > 0.0f ? std::min(P.dt, P.grid_cfl * g_.dx / max_speed_) : P.dt;
  }
  float mean_neighbours(int) const override { return 0.0f; }
  // An ordinary frame: kOrdinaryPasses over the cells params.grid gives
  // the box. Stir's and smoke's frames do 15-20, the cavity's 70 (its
  // viscous solve at Re 100 takes some 30 iterations a step): 3 ordinary
  // frames, under half the work bound.
  double ordinary_work(const WorldState& s) const override;
  double least_work(const WorldState& s) const override;
  struct Shape {
    int nx = 0, ny = 0;
    float dx = 0.0f;
  };
  static Shape shape(const WorldState& s);
  size_t bytes() const override;
  bool moves_particles() const override { return false; }
  const FieldView* field() const override;
  bool fill_dye(const WorldState& s, const Box& region, glm::vec3 colour) override;

  // The stages, in step()'s order; public for the tests, which run them
  // one at a time on fields they set. Their own loops over the cells and
  // faces (fit's aside; the solves are mac_grid's and poisson's) run
  // through `loops` (s.loops), by rows: each entry is written by one row's
  // task, with its arithmetic as a serial loop's, so the fields are
  // bit-identical for any split.
  void fit(const WorldState& s);
  void add_forces(const WorldState& s, float dt);
  void confine_vorticity(float epsilon, float dt, const Loops& loops);
  void advect_velocity(const Params& P, float dt, const Loops& loops);
  void diffuse(const WorldState& s, float dt, FrameStats& st);
  void project(const WorldState& s, FrameStats& st);
  void advect_dye(const Params& P, float dt, const Loops& loops);
  void update_view(const Params& P, float dt, const Loops& loops);
  MacGrid& grid() { return g_; }
  std::vector<float>& dye(int channel) { return dye_[static_cast<size_t>(channel)]; }

 private:
  // No flow through the walls or the obstacles; a body's faces move with it.
  void close_solid_faces(const Loops& loops);
  void resample(const MacGrid& old, const std::array<std::vector<float>, 3>& old_dye);
  void take_up(const Particles& p);

  // Samples of the velocity at a point, with the walls' ghosts: no-slip
  // (the wall's velocity at the wall) along the box's sides.
  float sample_u(const std::vector<float>& u, glm::vec2 p, float* lo = nullptr, float* hi = nullptr) const;
  float sample_v(const std::vector<float>& v, glm::vec2 p, float* lo = nullptr, float* hi = nullptr) const;
  float sample_cell(const std::vector<float>& f, glm::vec2 p, float* lo = nullptr, float* hi = nullptr) const;
  glm::vec2 velocity_at(glm::vec2 p) const { return {sample_u(u0_, p), sample_v(v0_, p)}; }

 public:
  // Where the fluid at p, moving at `here`, was dt ago: the midpoint rule
  // (RK2) through the velocity before advection.
  glm::vec2 trace(glm::vec2 p, glm::vec2 here, float dt) const;

 private:
  MacGrid g_;
  Box box_;
  int grid_ = 0;
  float lid_ = 0.0f;
  std::vector<uint8_t> type_;          // per cell: kFluidCell or kSolidCell
  std::vector<float> u0_, v0_;         // the velocity before advection
  std::vector<float> scratch_;         // MacCormack's forward pass, CG vectors
  std::vector<float> lo_, hi_;         // MacCormack's limits per entry
  std::vector<glm::vec2> from_, to_;   // per entry: where the backtrace lands, and the forward trace
  std::array<std::vector<float>, 3> dye_, dye0_;
  std::vector<float> phi_, rhs_;       // the projection's potential and divergence
  std::vector<float> pressure_, cu_, cv_, vort_;
  std::vector<uint8_t> solid_;
  // The bodies among the solids: each cell's (an index into bodies_), or -1.
  std::vector<int> body_cell_;
  std::vector<Obstacle> bodies_;
  std::vector<uint8_t> free_;          // the viscosity solve's unknown faces
  PoissonSolver poisson_;
  SolidMask solids_;
  mutable FieldView view_;  // its pointers set by field(): a copy's point at the copy
  float max_speed_ = 0.0f;
};

}  // namespace tidepool
