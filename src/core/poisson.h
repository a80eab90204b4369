// The pressure Poisson equation on a grid of cells, solved by conjugate
// gradients preconditioned with a geometric multigrid V-cycle (McAdams,
// Sifakis & Teran 2010, "A parallel multigrid Poisson solver for fluids
// simulation on large grids"): its cost grows about linearly with the
// number of cells, and it converges with solid obstacles of any shape,
// where plain multigrid cycles can stall.
//
// Each cell is fluid (an unknown), solid (a Neumann wall: no flux through
// its faces), or air (a Dirichlet cell, p = 0: the free surface of a
// liquid). For fluid cell c the equation is the 5-point Laplacian in units
// of cells,
//   sum over neighbours n that are fluid or air of (p_c - p_n) = b_c,
// with p_n = 0 for air. Every grid solver (stable.cpp, and a liquid's
// free surface) projects through this one solver.
//
// A liquid may place its surface between a fluid cell and an air cell, at
// a fraction theta of the way (the ghost fluid method: Gibou et al. 2002,
// Enright et al. 2003). The air neighbour's term becomes p_c / theta: the
// caller passes, per fluid cell, the sum over its air neighbours of
// 1 / theta - 1 (times the face's open share, below), added to the
// diagonal. Only the finest level takes it; the coarser levels, a
// preconditioner, keep theta = 1.
//
// Solids may cut the finest level's faces (Batty, Bertails & Bridson 2007,
// "A fast variational framework for accurate solid-fluid coupling"; Ng,
// Min & Gibou 2009): the term of the face between c and n is then a_f
// (p_c - p_n), a_f the face's open share in [0, 1]. The coarser levels
// keep whole faces: a symmetric preconditioner all the same.
//
// Rigid bodies whose velocity is solved with the pressure add, per body
// b, the term s J_b M_b^-1 J_b^T p (Batty et al. 2007): J_b's row
// for cell c is the flux the body's unit velocities (x, y, spin) push
// into c, M_b its mass and moment of inertia, s a scale the caller
// gives. It is symmetric and positive semi-definite, so the system stays
// symmetric positive definite; it is applied without a matrix, and the
// V-cycle, which leaves it out, still preconditions the sum: it has rank
// 3 a body, and conjugate gradients take a few more iterations for it.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "loops.h"

namespace tidepool {

enum CellType : uint8_t { kFluidCell = 0, kSolidCell = 1, kAirCell = 2 };

// A rectangle of cells, [i0, i1) x [j0, j1): where a liquid's grid work
// runs (its cells and a band around them). Its u faces are [i0, i1] x
// [j0, j1), its v faces [i0, i1) x [j0, j1]. Empty (the default) means the
// whole grid.
struct CellWindow {
  int i0 = 0, j0 = 0, i1 = 0, j1 = 0;
  int nx() const { return i1 - i0; }
  int ny() const { return j1 - j0; }
  bool empty() const { return i1 <= i0 || j1 <= j0; }
  size_t cells() const { return empty() ? 0 : static_cast<size_t>(nx()) * ny(); }
  // Itself, or the whole nx x ny grid where it is empty (no window given).
  CellWindow or_whole(int grid_nx, int grid_ny) const { return empty() ? CellWindow{0, 0, grid_nx, grid_ny} : *this; }
};

// The finest level's face shares: u (nx + 1) x ny, v nx x (ny + 1), as a
// MacGrid's faces.
struct FaceShares {
  const std::vector<float>* u = nullptr;
  const std::vector<float>* v = nullptr;
};

// One body's columns of J (above): the cells it pushes flux into, each
// with the flux of its unit x velocity, y velocity and spin [m^2/s per
// m/s, and per rad/s], and its inverse mass and moment of inertia (0 for a
// rotation it does not take).
struct RigidColumns {
  std::vector<int> cells;  // grid cells (the solver takes its window's)
  std::vector<glm::vec3> j;
  float inverse_mass = 0.0f, inverse_inertia = 0.0f;
  // J^T p: the body's momentum change (x, y, spin) per unit of scale, from p.
  glm::vec3 gather(const std::vector<float>& p) const;
};

struct PoissonResult {
  int iterations = 0;
  float residual = 0.0f;  // final max |b - A p| over max |b| (0 for b = 0)
};

class PoissonSolver {
 public:
  // Sets the cells (nx * ny types, row-major from the bottom row) and
  // builds the coarser levels; cheap when the types did not change.
  // surface (optional, nx * ny): the ghost fluid's extra diagonal above.
  // window (optional): the equations are those of its cells alone, its
  // edges walls; the caller keeps every fluid cell at least a cell inside
  // it (or at the grid's edge), so the equations are the grid's.
  // shares (optional): the faces' open shares, else every face between
  // two open cells is whole.
  void set_cells(int nx, int ny, const std::vector<uint8_t>& types, const std::vector<float>* surface = nullptr,
                 CellWindow window = {}, const FaceShares& shares = {}, const Loops& loops = Loops());
  // The bodies' term s J M^-1 J^T of the next solves (none by default);
  // each body's cells must be fluid cells of the window.
  void set_rigid(const std::vector<RigidColumns>* bodies, float scale);

  // Solves A p = b on the fluid cells, starting from p (a warm start),
  // until the residual is below `tolerance` relative to b or after
  // max_iterations. b and p have nx * ny entries (the grid's); the
  // window's non-fluid entries of p are set to 0, those outside it left.
  // Where no air cell bounds the fluid (a closed box) A is singular: b's
  // mean is removed first, and p's mean is 0.
  PoissonResult solve(const std::vector<float>& b, std::vector<float>* p, float tolerance, int max_iterations,
                      const Loops& loops);

 private:
  // A level's operator as coefficients, so that its loops have no
  // branches: per cell, 1 toward each fluid neighbour (0 otherwise), the
  // diagonal (the open neighbours) and its inverse (0 off the fluid). The
  // vectors x and r are padded by a row and a cell at each end (kPad), so a
  // cell's neighbours are always in bounds; their coefficient is 0 there.
  struct Level {
    int nx = 0, ny = 0;
    std::vector<uint8_t> type;
    std::vector<float> west, east, south, north, diag, inv_diag;
    // The correction (padded), the right-hand side (a coarse level's: the
    // finest's is v_cycle's argument), the residual (padded).
    std::vector<float> x, b, r;
    // The transfer to the next coarser level: per cell of this one, up to
    // four coarse cells and their weights (an unused link: weight 0, on the
    // cell's parent).
    std::vector<int> link_cell;
    std::vector<float> link_weight;
    int pad() const { return nx + 1; }
  };
  void build_levels(int nx, int ny, const std::vector<uint8_t>& types, const Loops& loops);
  static void build_operator(Level* l, const Loops& loops);
  void share_faces(const FaceShares& shares, const Loops& loops);
  static void build_links(Level* fine, const Level& coarse, const Loops& loops);
  static void jacobi(Level* l, const float* b, bool from_zero, const Loops& loops);
  static void apply(const Level& l, const float* x_padded, float* y, const Loops& loops);
  // y = A x on the finest level, the bodies' term included.
  void apply_top(const float* x_padded, float* y, const Loops& loops);
  void v_cycle(int level, const float* b, const Loops& loops);
  const float* precondition(const std::vector<float>& r, const Loops& loops);
  void remove_mean(float* v) const;  // over the finest level's cells
  // r = b - A p over the fluid cells (0 elsewhere), on the window's
  // vectors; returns max |r|.
  float residual(const std::vector<float>& b, const std::vector<float>& p, std::vector<float>* r,
                 const Loops& loops);
  PoissonResult solve_window(std::vector<float>* p, float tolerance, int max_iterations, const Loops& loops);

  std::vector<Level> levels_;
  std::vector<float> open_;  // the finest level's diagonal without a surface: its open neighbours
  bool surface_ = false;     // the finest diagonal holds a surface's terms
  bool shared_ = false;      // the finest level holds face shares
  // The bodies' term, in the window's cells.
  std::vector<RigidColumns> rigid_;
  float rigid_scale_ = 0.0f;
  bool singular_ = false;  // no air cell: the constant lies in A's null space
  int fluid_ = 0;
  std::vector<float> r_, d_, q_;  // CG's vectors (d_ padded as a level's x)
  CellWindow window_;                 // the cells solved, of a grid grid_nx_ wide
  int grid_nx_ = 0;
  std::vector<uint8_t> window_types_;
  std::vector<float> window_surface_, b_, p_;  // the window's b and p
};

}  // namespace tidepool
