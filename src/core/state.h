// What the stages of a step share: the scene (parameters, container,
// particles, obstacles, emitters, sinks, pointers), the engine (loops,
// lanes), the neighbour search, the walls, the per-particle values one
// stage hands the next, and the solver. World (world.cpp) is its facade.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "bodies.h"
#include "boundary.h"
#include "emitters.h"
#include "loops.h"
#include "solver.h"
#include "sort.h"
#include "tidepool/types.h"

namespace tidepool {

struct WorldState {
  // The scene.
  Params params;
  Box box;
  Particles particles;
  std::vector<Obstacle> obstacles;  // the static ones
  BodySet bodies;                  // rigid bodies (bodies.h)
  Sources sources;  // emitters and sinks
  std::vector<DyeFill> dye_fills;  // World::fill_dye's regions, in order
  std::vector<PointerForce> pointers;

  // The engine.
  Loops loops;
  int lanes = 1;
  NeighbourSearch search;
  Walls walls;
  SolverSlot solver;

  // Handed from one stage to the next within a step. The density pass
  // leaves 1 / rho_i and the surface normal n_i (Akinci et al. 2013, eq. 4;
  // or the colour field's gradient, Müller 2003 eq. 17, after a
  // colour-field forces pass); near_wall is 1 within h of a wall or any
  // obstacle (the sort), narrowed by the density pass to the particles a
  // wall or an obstacle reaches.
  Array<float> inv_rho;
  Array<float> normal_x, normal_y;
  std::vector<uint8_t> near_wall;
  Array<float> colour_lap;  // the colour field's Laplacian (forces pass)
  Array<float> apart_x, apart_y, apart_vx, apart_vy, apart_count;  // keep_apart's (separation.cpp)
  // Each particle's candidates (the particles in its five cell ranges,
  // itself included: what a scan of it visits), counted after the sort,
  // and their sum (count_candidates, world.cpp).
  Array<int> candidates;
  double candidate_sum = 0.0;
  // What the stages collide with: the static obstacles, then the bodies as
  // moving ones (gather_solids, coupling.cpp); and the coupling's scratch:
  // collide()'s contacts with bodies, the forces summed for Box2D.
  std::vector<Obstacle> solids;
  std::vector<int> body_hit;
  Array<float> hit_nx, hit_ny;
  std::vector<glm::dvec2> body_force;
  std::vector<double> body_torque;
  std::vector<float> body_wet;  // the share of each body's outline in the water (set_wet)
  // The bodies' velocity change (x, y, spin) a grid solver's projection
  // solved this substep (solved_bodies); empty where none did.
  std::vector<glm::vec3> body_solved;
  std::vector<int> beside;      // the particles beside a body (coupling.cpp)

  float max_accel = 0.0f;  // largest |a| of the last substep
  double time = 0.0;
  double carry = 0.0;  // fixed-step remainder carried between frames
  uint32_t next_id = 0;
  int next_shape_id = 1;
  FrameStats stats;

  // Rest spacing of the particles, from mass = rho0 spacing^2 (2D).
  float spacing() const;
  // Appends a particle (its carried fields start as Carried says); -1 when
  // full or not finite.
  int add_particle(glm::vec2 position, glm::vec2 velocity);
  // Keeps the particles with keep[i] != 0, with their carried fields.
  void compact(const std::vector<uint8_t>& keep);
  // Makes the solver that params.solver names, its carried state sized
  // and started from the particles as they are; rebuilds the walls' tables.
  void start_solver();
  void build_walls();
};

}  // namespace tidepool
