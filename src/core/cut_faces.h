// Solids on a MAC grid's faces (Batty, Bertails & Bridson 2007; Ng, Min &
// Gibou 2009): each face's open share, from the solids' signed distance at
// its two ends, and the solid's velocity across it. The projection weighs
// each face's flux and pressure term by its share (poisson.h), so a wall,
// an obstacle or a body bounds the water where it lies, not at the cells
// it covers, and a body's own velocity is an unknown of the same solve
// (its columns of J: cut_faces.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "mac_grid.h"
#include "poisson.h"
#include "tidepool/types.h"

namespace tidepool {

class CutFaces {
 public:
  // The faces of window w (its u faces [i0, i1] x [j0, j1), v faces
  // [i0, i1) x [j0, j1]) against the grid's edges (closed: the tank's
  // walls) and `solids` (the step's obstacles, then its bodies); the
  // grid's other faces are left as they were. dt and gravity: a body's
  // velocity across its faces is the one it would have after dt under
  // gravity alone (the projection's starting guess for it).
  void update(const MacGrid& g, const std::vector<Obstacle>& solids, CellWindow w, float dt, glm::vec2 gravity);

  // Per face: the share of it open to the water, in [0, 1].
  const std::vector<float>& u_share() const { return u_share_; }
  const std::vector<float>& v_share() const { return v_share_; }
  FaceShares shares() const { return {&u_share_, &v_share_}; }
  // Per face: the solid's velocity across it (0 for the walls and still
  // obstacles), and the index into `solids` of the solid that cuts it (-1
  // for none, -2 for the tank's walls).
  float u_solid(int k) const { return u_solid_[static_cast<size_t>(k)]; }
  float v_solid(int k) const { return v_solid_[static_cast<size_t>(k)]; }
  int u_owner(int k) const { return u_owner_[static_cast<size_t>(k)]; }
  int v_owner(int k) const { return v_owner_[static_cast<size_t>(k)]; }
  // Per cell: the share of its area open to the water (the mean of its
  // faces' shares).
  float open(int c) const { return open_[static_cast<size_t>(c)]; }
  // Whether any solid but the walls cuts a face of the window.
  bool any() const { return any_; }

  // The columns of J (poisson.h) of each body in `solids` (indexed as
  // Obstacle::body), over the fluid cells of the window: the flux its
  // unit velocities push into the cell through the solid part of each
  // face it cuts, s (1 - a_f) dx (n_f, (x_f - c) x n_f), s the face's
  // outward sign for the cell and n_f the face's axis, each taken at the
  // solid rather than at the cell's centre (cut_faces.cpp).
  void columns(const MacGrid& g, const std::vector<Obstacle>& solids, const std::vector<uint8_t>& type,
               const std::vector<float>& inverse_mass, const std::vector<float>& inverse_inertia,
               std::vector<RigidColumns>* out) const;
  // Sets each face that a body cuts to the body's new velocity (after the
  // solve): the flux its solid part now carries.
  void move_bodies(const MacGrid& g, const std::vector<Obstacle>& solids, const std::vector<glm::vec3>& velocity);

 private:
  void ensure(const MacGrid& g);
  std::vector<float> node_;      // the solids' signed distance at the grid's nodes
  std::vector<int> node_owner_;  // the nearest solid there
  std::vector<float> u_share_, v_share_, u_solid_, v_solid_, open_;
  std::vector<int> u_owner_, v_owner_;
  CellWindow window_;
  bool any_ = false;
};

}  // namespace tidepool
