// A uniform staggered (MAC) grid over the tank (Harlow & Welch 1965): square
// cells of side dx, row-major from the bottom-left; the x velocity u on the
// vertical faces, the y velocity v on the horizontal ones, scalars (pressure,
// dye) at the cell centres. Face (i, j) of u lies at (i dx, (j + 1/2) dx),
// left of cell (i, j); face (i, j) of v at ((i + 1/2) dx, j dx), below it.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "boundary.h"  // obstacle_bounds, obstacle_distance
#include "loops.h"
#include "poisson.h"
#include "tidepool/types.h"

namespace tidepool {

struct MacGrid {
  int nx = 0, ny = 0;
  float dx = 1.0f;
  glm::vec2 origin{0.0f};
  std::vector<float> u;  // (nx + 1) * ny
  std::vector<float> v;  // nx * (ny + 1)

  int u_index(int i, int j) const { return j * (nx + 1) + i; }
  int v_index(int i, int j) const { return j * nx + i; }
  int cell(int i, int j) const { return j * nx + i; }
  glm::vec2 u_face(int i, int j) const { return origin + dx * glm::vec2(float(i), float(j) + 0.5f); }
  glm::vec2 v_face(int i, int j) const { return origin + dx * glm::vec2(float(i) + 0.5f, float(j)); }
  glm::vec2 centre(int i, int j) const { return origin + dx * glm::vec2(float(i) + 0.5f, float(j) + 0.5f); }
  // The cell (*i, *j) that holds point x, clamped into the grid.
  void cell_at(glm::vec2 x, int* i, int* j) const {
    *i = std::clamp(static_cast<int>((x.x - origin.x) / dx), 0, nx - 1);
    *j = std::clamp(static_cast<int>((x.y - origin.y) / dx), 0, ny - 1);
  }
  float height() const { return dx * float(ny); }
  // (u_right - u_left + v_top - v_bottom) / dx at cell (i, j).
  float divergence(int i, int j) const;
  // The grid solvers' safety net, as contain() is the particles': every
  // face velocity of the window's faces (the whole grid's if it is empty)
  // becomes finite and at most vmax in size (a NaN becomes 0). Returns how
  // many faces needed it.
  int contain(float vmax, CellWindow window = {}, const Loops& loops = Loops());

  void resize(int cells_x, int cells_y, float cell_size, glm::vec2 at) {
    nx = cells_x;
    ny = cells_y;
    dx = cell_size;
    origin = at;
    u.assign(static_cast<size_t>(nx + 1) * ny, 0.0f);
    v.assign(static_cast<size_t>(nx) * (ny + 1), 0.0f);
  }
};

// x as a float, saturated at the largest finite ones (NaN becomes 0): for
// the fields a grid solver reports (the pressure rho0 phi / dt), which a
// storm in a tiny step can carry past float's range.
inline float finite_float(double x) {
  constexpr double kMax = 3.4028234663852886e38;
  return x > 0.0 ? static_cast<float>(std::min(x, kMax)) : x < 0.0 ? static_cast<float>(std::max(x, -kMax)) : 0.0f;
}

struct ProjectionResult {
  int iterations = 0;
  float residual = 0.0f;        // the Poisson solve's, relative to its right-hand side
  float max_divergence = 0.0f;  // largest |div u| left on a fluid cell [1/s]
  int contained = 0;            // faces held to max_speed, before or after
  double work = 0.0;            // the window's cells times its passes (FrameStats::work)

  // Adds this projection to a substep's stats.
  void record(FrameStats& st) const {
    st.work += work;
    st.solver_iterations += iterations;
    st.solver_error = residual;
    st.max_divergence = max_divergence;
    if (contained > 0) st.contained = true;
  }
};
// A liquid's free surface, for project(): fill, per cell, the share of it
// the liquid fills; the surface's p = 0 then lies between a fluid and an
// air cell where their liquid, stacked from the fluid cell's far face,
// ends (the ghost fluid method, poisson.h), instead of at the air cell's
// centre. value (optional), per fluid cell: the potential the surface
// holds beside it instead of 0 (surface tension's sigma kappa, in phi's
// units). scratch: the ghost fluid's terms.
struct FreeSurface {
  const std::vector<float>* fill = nullptr;
  const std::vector<float>* value = nullptr;
  std::vector<float>* scratch = nullptr;
};

// The ghost fluid places the surface between fluid cell f and air cell a
// no nearer f's centre than half a cell and no farther than a's centre
// (mac_grid.cpp), where the fills put the liquid's end anywhere in the two
// cells. Under a surface placed above the liquid's end the projection's
// potential is too high by the hydrostatic potential between the two: this
// returns that difference, the potential at the placed surface, dx (theta
// placed - theta) along, with along = dt g.d, d the unit step from f to a
// (negative where the surface is placed above the liquid's end).
float surface_offset(const std::vector<float>& fill, int fluid, int air, float dx, float along);

class CutFaces;  // cut_faces.h

// Rigid bodies whose velocity the projection solves with the pressure
// (Batty, Bertails & Bridson 2007; poisson.h): in, each body's columns of
// J (CutFaces::columns), its velocity (x, y, spin) before the solve, and
// the step's solids, indexed as Obstacle::body; out, each body's velocity
// change from the water's pressure. The bodies' faces carry their flux
// through J alone.
struct RigidSolve {
  std::vector<RigidColumns> columns;
  std::vector<glm::vec3> start;
  const std::vector<Obstacle>* solids = nullptr;
  std::vector<glm::vec3> change;
};

// Calls f(cell) for each cell of g whose centre lies inside obstacle o.
template <class F>
void for_cells_inside(const MacGrid& g, const Obstacle& o, F&& f) {
  // Only the cells within the obstacle's bounding box can lie inside it.
  glm::vec2 lo, hi;
  obstacle_bounds(o, &lo, &hi);
  const int i0 = std::max(0, static_cast<int>(std::floor((lo.x - g.origin.x) / g.dx)));
  const int j0 = std::max(0, static_cast<int>(std::floor((lo.y - g.origin.y) / g.dx)));
  const int i1 = std::min(g.nx - 1, static_cast<int>(std::floor((hi.x - g.origin.x) / g.dx)));
  const int j1 = std::min(g.ny - 1, static_cast<int>(std::floor((hi.y - g.origin.y) / g.dx)));
  for (int j = j0; j <= j1; ++j)
    for (int i = i0; i <= i1; ++i) {
      glm::vec2 normal;
      if (obstacle_distance(o, g.centre(i, j), &normal) < 0.0f) f(g.cell(i, j));
    }
}

// Which cells of a grid lie inside an obstacle (their centre does), kept
// between steps: the test costs every cell times every obstacle, so the
// mask is rebuilt only when the grid or the obstacles change.
class SolidMask {
 public:
  // 1 for a solid cell, per cell of g.
  const std::vector<uint8_t>& update(const MacGrid& g, const std::vector<Obstacle>& obstacles);

 private:
  std::vector<uint8_t> mask_;
  std::vector<Obstacle> obstacles_;
  int nx_ = -1, ny_ = -1;
  float dx_ = 0.0f;
  glm::vec2 origin_{0.0f};
};

// Makes the grid's velocity divergence-free on its fluid cells (mac_grid.cpp):
// the pressure projection every grid solver shares. type: a CellType per
// cell; the solids' faces are the caller's to close. phi: the potential
// (a warm start in, the solution out); rhs: scratch. source (optional):
// per cell, the divergence to leave instead of 0 [1/s] (a volume
// correction); max_divergence then measures the difference from it.
// max_speed: the faces are held to it (MacGrid::contain) before and after
// the solve, so that a storm of pointer forces cannot overflow the Poisson
// solve or the next step's advection traces. surface (optional): a
// liquid's, placed by the ghost fluid method. window (optional): the cells
// the work covers, all of the fluid and a band of at least one non-fluid
// cell around it where it does not reach the grid's edge; the rest of the
// grid is left as it is. cut (optional): the faces' open shares and the
// solids' velocities (cut_faces.h); each face's flux and pressure term is
// then weighed by its share, the solid's part of it carries the solid's
// velocity, a cell's source acts on its open share, and the faces with
// no share are left for the caller. rigid (optional, with cut): the bodies
// whose velocities are unknowns of the same solve, with density the
// water's rho0; their faces in cut take their new velocity.
ProjectionResult project(MacGrid* grid, const std::vector<uint8_t>& type, float tolerance, int max_iterations,
                         const Loops& loops, PoissonSolver* solver, std::vector<float>* phi, std::vector<float>* rhs,
                         const std::vector<float>* source = nullptr,
                         float max_speed = std::numeric_limits<float>::infinity(),
                         const FreeSurface& surface = {}, CellWindow window = {}, CutFaces* cut = nullptr,
                         RigidSolve* rigid = nullptr, float density = 0.0f);


// Viscosity for one velocity component on its w x h faces, in place
// (mac_grid.cpp): (I - a lap) f = f* with a = nu dt / dx^2, over the faces
// of the rectangle [i0, i1) x [j0, j1) (the rest are left as they are).
// free: the faces that are unknowns (the others, and every face outside the
// rectangle, are fixed: the walls' normal flow, the solids' faces, the air
// beyond a liquid; they count as 0); wall: the no-slip walls' velocity
// along this component, by side (left, right, bottom, top), for the ghosts
// 2 wall - f beyond the grid's edge. work: scratch.
// Where a <= kExplicitViscosityLimit one explicit step f += a lap f does it
// (stable for a <= 1/4: the 5-point Laplacian's largest eigenvalue is 8),
// else backward Euler by conjugate gradients with a Jacobi preconditioner,
// unconditionally stable.
// A rectangle [i0, i1) x [j0, j1) of faces: the same indices as a window
// of cells.
using FaceRect = CellWindow;
// Calls f(k0, k1) for each row of rectangle r of a w-wide array: that
// row's entries are [k0, k1).
template <class F>
void for_rows(FaceRect r, int w, F&& f) {
  for (int j = r.j0; j < r.j1; ++j) f(j * w + r.i0, j * w + r.i1);
}
// The same with the rows split over the loops' threads: f(k0, k1) writes
// only its own row's entries.
template <class F>
void for_rows(const Loops& loops, FaceRect r, int w, const F& f) {
  loops.rows(std::max(0, r.ny()), std::max(0, r.nx()), [&](int a, int b) {
    for (int j = r.j0 + a; j < r.j0 + b; ++j) f(j * w + r.i0, j * w + r.i1);
  });
}
// f(i, j) over the rectangle, its rows split over the loops' threads: f
// writes only (i, j)'s own entries, and reads none that another writes.
template <class F>
void for_cells(const Loops& loops, FaceRect r, const F& f) {
  loops.rows(std::max(0, r.ny()), std::max(0, r.nx()), [&](int a, int b) {
    for (int j = r.j0 + a; j < r.j0 + b; ++j)
      for (int i = r.i0; i < r.i1; ++i) f(i, j);
  });
}
constexpr float kExplicitViscosityLimit = 0.2f;
constexpr int kViscousIterations = 100;  // the most an implicit viscous step takes
// Implicit steps take at most max_iterations of conjugate gradients.
// Returns its work (FrameStats::work): the rectangle's faces times its passes.
double diffuse_faces(std::vector<float>* field, int w, int h, const std::vector<uint8_t>& free, const float wall[4],
                     float a, int max_iterations, FaceRect rect, std::vector<float>* work, const Loops& loops = Loops());

}  // namespace tidepool
