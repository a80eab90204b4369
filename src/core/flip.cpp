// A particle-in-cell liquid: FLIP blended with PIC (Zhu & Bridson 2005,
// "Animating sand as a fluid"). The particles carry the fluid; a MAC grid
// whose cells are flip_cell particle spacings wide solves its pressure, so
// the step needs no neighbour search for it and can be as long as the CFL
// condition allows. One step, by the stages it is timed under:
//   transfer     particles to grid: each face's velocity is the particles'
//                average, weighted by the bilinear kernel; the walls,
//                obstacles and bodies cut the faces where they lie
//                (cut_faces.h: each face's open share); cells with a
//                particle are fluid, those the solids close all round
//                solid, the rest air; the particles per fluid cell, for
//                the volume.
//                Every grid pass from here on covers only the window of
//                the particles' cells and a band around them
//   forces       viscosity, then gravity and pointer forces on the faces
//   pressure     the projection of mac_grid.cpp with the free surface: p = 0
//                between a fluid and an air cell where the liquid of the
//                two ends (each cell's share of it from the particles per
//                cell), by the ghost fluid method (Gibou et al. 2002;
//                Enright et al. 2003), which holds surface tension's
//                sigma kappa there (Young-Laplace); each face's flux and
//                pressure term weighed by its open share, its solid part
//                carrying the solid's velocity; each body's velocity an
//                unknown of the same solve (Batty, Bertails & Bridson
//                2007), so the water's answer to a body's motion, its
//                added mass, is exact.
//                Cells denser than the rest state get a divergence source
//                that spreads them (a density-based volume correction in the
//                spirit of Kugelstadt et al. 2019), so the particles neither
//                bunch up nor drift apart over time
//   transfer     the flow extrapolated beyond the liquid; grid to
//                particles, v = r v_flip + (1 - r) v_pic with
//                v_flip = v_p + (u_new - u_old)(x_p), v_pic = u_new(x_p), and
//                the particles moved through the new grid velocity by the
//                midpoint rule (RK2)
// The container and obstacles then act on the particles as for the SPH
// solvers (boundary.cpp).
//
// Why the FLIP/PIC blend rather than APIC (Jiang et al. 2015): it carries
// no per-particle matrix (16 bytes a particle fewer, and no extra term in
// either transfer), and a small PIC share damps the noise FLIP alone keeps;
// docs/physics.md gives the figures it reaches.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "boundary.h"
#include "coupling.h"
#include "cut_faces.h"
#include "mac_grid.h"
#include "neighbour_grid.h"  // TIDEPOOL_INLINE
#include "poisson.h"
#include "pointers.h"
#include "row_bands.h"
#include "solver.h"
#include "state.h"
#include "tidepool/kernels.h"  // kPi

namespace tidepool {
namespace {

class FlipSolver final : public SolverBase<FlipSolver> {
 public:
  void step(WorldState& s, float dt, StageClock& clock, FrameStats& st) override;
  Carried carried() override { return {}; }
  DensityKernel density_kernel() const override { return DensityKernel::Cubic; }
  // The flow crosses at most grid_cfl cells a step: the particles' RK2
  // path through the grid stays accurate. The projection and the viscosity
  // are stable at any step (diffuse_faces turns implicit where an explicit
  // step would not be) and no force acts on the particles directly, so the
  // step is as long as that allows, a whole frame in calm water; P.dt, the
  // SPH solvers' bound, does not apply. Surface tension, held explicitly
  // in the surface's pressure jump, adds the capillary bound of Brackbill,
  // Kothe & Zemach 1992 (eq. 61), dt <= sqrt(rho dx^3 / (2 pi sigma)).
  // At most kLongestStep.
  static constexpr float kLongestStep = 1.0f / 60.0f;
  float dt_limit(const Params& P, float vmax) const override {
    float dt = vmax > 0.0f ? std::min(kLongestStep, P.grid_cfl * g_.dx / vmax) : kLongestStep;
    if (P.surface_tension > 0.0f)
      dt = std::min(dt, std::sqrt(P.rest_density * g_.dx * g_.dx * g_.dx / (2.0f * kPi * P.surface_tension)));
    return dt;
  }
  bool sph_bounds() const override { return false; }
  bool sorts_particles() const override { return false; }
  float mean_neighbours(int) const override { return 0.0f; }
  // An ordinary frame: kOrdinaryPerParticle per particle (its two
  // transfers and its share of the cells' passes at about four particles a
  // cell) and kOrdinaryGridPasses over the whole grid, at least a step's
  // least work (least_work) where the particles' window is the whole grid.
  // The liquid scenes' frames do 9 to 21 per particle, 54 at most.
  double ordinary_work(const WorldState& s) const override {
    constexpr double kOrdinaryPerParticle = 16.0, kOrdinaryGridPasses = 12.0;
    const Shape g = shape(s);
    return kOrdinaryPerParticle * s.particles.size() + kOrdinaryGridPasses * g.nx * g.ny;
  }
  // Its two transfers, and the least of each viscous solve and of the
  // projection (an iteration and the two passes around it), over the whole
  // grid.
  double least_work(const WorldState& s) const override {
    const Shape g = shape(s);
    return 2.0 * s.particles.size() + (2.0 + 3.0 * 3.0) * g.nx * g.ny;
  }
  size_t bytes() const override;
  const FieldView* faces() const override {
    if (g_.nx == 0) return nullptr;
    faces_ = FieldView{};
    faces_.nx = g_.nx;
    faces_.ny = g_.ny;
    faces_.cell = g_.dx;
    faces_.origin = g_.origin;
    faces_.u_faces = g_.u.data();
    faces_.v_faces = g_.v.data();
    return &faces_;
  }

 private:
  mutable FieldView faces_;  // its pointers set by faces(): a copy's point at the copy
  // What its step does after a solve besides its passes over the cells:
  // the transfer back's per particle, and the shared stages.
  static double tail(const WorldState& s) { return s.particles.size() + shared_least(s); }
  // The grid fit() lays over the box: cells of flip_cell spacings (or more,
  // where the box would hold more than kMaxCells along a side), at least 4
  // along each side.
  struct Shape {
    float cell = 0.0f;  // the cell's side asked for
    int nx = 0, ny = 0;
    float dx = 0.0f;    // the side that fits the box's width
  };
  static Shape shape(const WorldState& s);
  void fit(const WorldState& s);
  void clear_window(const Loops& loops);
  void particles_to_grid(const WorldState& s);
  void add_forces(const WorldState& s, float dt);
  void viscosity(const WorldState& s, float dt, FrameStats& st);
  void surface_tension(const WorldState& s, float dt);
  void mark_known(const Loops& loops);
  void extrapolate(std::vector<float>* f, std::vector<uint8_t>* known, int w, FaceRect rect, int layers, const Loops& loops);
  void grid_to_particles(WorldState& s, float dt);
  void cut_cells(const WorldState& s, float dt);
  void liquid_cells();
  void rigid_columns(const WorldState& s, float dt);
  void surface_correction(const WorldState& s, float dt);
  void velocity(glm::vec2 p, glm::vec2* now, glm::vec2* change = nullptr) const;
  // The window's cells, and its u and v faces.
  FaceRect cells() const { return window_; }
  FaceRect u_faces() const { return {window_.i0, window_.j0, window_.i1 + 1, window_.j1}; }
  FaceRect v_faces() const { return {window_.i0, window_.j0, window_.i1, window_.j1 + 1}; }

  MacGrid g_;
  Box box_;
  float cell_ = 0.0f;
  // The top row's share inside the box (fit()): a cell there holds that
  // share of a full cell's particles at rest.
  float top_share_ = 1.0f;
  // The cells the step works on: those the particles are in and a band
  // around them (particles_to_grid). Outside it every array holds 0 (air,
  // no velocity), so a large tank with little water costs little more than
  // a small one.
  CellWindow window_;
  int layers_ = 2;  // of extrapolated faces beyond the liquid's
  std::vector<float> u_old_, v_old_, wu_, wv_;
  std::vector<uint8_t> type_, known_u_, known_v_;
  std::vector<float> count_;  // particles per cell (kernel-weighted)
  std::vector<float> phi_, rhs_, source_, work_;
  std::vector<float> fill_, surface_;  // each cell's share of liquid, the ghost fluid's terms
  std::vector<float> smooth_, normal_x_, normal_y_, held_;  // surface tension's curvature and potential
  std::vector<uint8_t> free_;
  // Particles to grid on threads: the particles dealt into bands of rows,
  // and each band's extent of particle cells.
  static constexpr int kMostBands = 8;
  RowBands bands_;
  struct Extent {
    int i_lo, j_lo, i_hi, j_hi;  // inclusive; empty with hi < lo
  };
  std::vector<Extent> band_extent_;
  PoissonSolver poisson_;
  // The solids on the faces (cut_faces.h), used while the step has any;
  // without them every face inside the grid is whole.
  CutFaces cut_;
  bool cutting_ = false;
  RigidSolve rigid_;
  std::vector<int> wetted_;  // cut cells liquid_cells() wets
  std::vector<float> inverse_mass_, inverse_inertia_;
  std::vector<glm::vec3> fallen_;  // each body's velocity after dt of gravity alone
  // The open share under which an empty cut cell beside the water is wet.
  static constexpr float kWetShare = 0.5f;
  // A face's open share, and whether it is open at all.
  float u_share(int k) const { return cutting_ ? cut_.u_share()[static_cast<size_t>(k)] : 1.0f; }
  float v_share(int k) const { return cutting_ ? cut_.v_share()[static_cast<size_t>(k)] : 1.0f; }
  // A cell's open share (1 without solids).
  float open(int c) const { return cutting_ ? cut_.open(c) : 1.0f; }
  void close_faces(const Loops& loops);
};

// The layers of faces the flow is extrapolated to beyond the liquid's: a
// particle's midpoint (RK2) lies up to grid_cfl / 2 cells out, and its
// bilinear sample reaches a face further.
int extrapolation_layers(const Params& P) { return static_cast<int>(std::ceil(0.5f * P.grid_cfl)) + 1; }

// The grid: cells of flip_cell spacings over the box, at least 4 and at
// most kMaxCells a side (the largest `grid` the stable solver takes): a
// tiny particle mass makes a tiny spacing, and the grid must not grow with
// it past what memory holds; the cells then hold more particles each.
// Square cells fit the box's width exactly and may overrun its ceiling by
// part of a cell. Cells past a side wall would read as air beside water at
// rest against it, and the projection would keep drawing the water into a
// strip the wall keeps it out of, a slosh that never dies; water rarely
// rests against the ceiling.
constexpr int kMaxCells = 512;
FlipSolver::Shape FlipSolver::shape(const WorldState& s) {
  const glm::vec2 size = s.box.max - s.box.min;
  Shape g;
  g.cell = std::max(s.params.flip_cell * s.spacing(), std::max(size.x, size.y) / float(kMaxCells));
  g.nx = std::max(4, static_cast<int>(std::ceil(size.x / g.cell)));
  g.dx = size.x / float(g.nx);
  g.ny = std::max(4, static_cast<int>(std::ceil(size.y / g.dx - 1e-4f)));
  return g;
}

void FlipSolver::fit(const WorldState& s) {
  const Shape shaped = shape(s);
  if (shaped.cell != cell_ || s.box.min != box_.min || s.box.max != box_.max) {
    cell_ = shaped.cell;
    box_ = s.box;
    const glm::vec2 size = s.box.max - s.box.min;
    const int nx = shaped.nx, ny = shaped.ny;
    const float dx = shaped.dx;
    g_.resize(nx, ny, dx, s.box.min);
    top_share_ = std::clamp(size.y / dx - float(ny - 1), 1e-3f, 1.0f);
    const size_t cells = static_cast<size_t>(nx) * ny;
    for (auto* f : {&count_, &phi_, &rhs_, &source_, &fill_, &surface_, &smooth_, &normal_x_, &normal_y_, &held_})
      f->assign(cells, 0.0f);
    type_.assign(cells, kAirCell);
    for (auto* f : {&u_old_, &wu_}) f->assign(g_.u.size(), 0.0f);
    for (auto* f : {&v_old_, &wv_}) f->assign(g_.v.size(), 0.0f);
    known_u_.assign(g_.u.size(), 0);
    known_v_.assign(g_.v.size(), 0);
    window_ = {};
  }
}

// Back to air, with no velocity, over the last step's window.
void FlipSolver::clear_window(const Loops& loops) {
  for_rows(loops, cells(), g_.nx, [&](int c0, int c1) {
    for (auto* f : {&count_, &source_, &fill_, &smooth_, &normal_x_, &normal_y_, &held_})
      std::fill(f->begin() + c0, f->begin() + c1, 0.0f);
    std::fill(type_.begin() + c0, type_.begin() + c1, uint8_t(kAirCell));
  });
  for_rows(loops, u_faces(), g_.nx + 1, [&](int k0, int k1) {
    for (auto* f : {&g_.u, &wu_}) std::fill(f->begin() + k0, f->begin() + k1, 0.0f);
  });
  for_rows(loops, v_faces(), g_.nx, [&](int k0, int k1) {
    for (auto* f : {&g_.v, &wv_}) std::fill(f->begin() + k0, f->begin() + k1, 0.0f);
  });
}

// A face coordinate clamped into [0, n - 1]; NaN becomes 0, so that an
// index made from it is always in the grid.
TIDEPOOL_INLINE float clamp_coordinate(float f, int n) { return f > 0.0f ? std::min(f, float(n - 1)) : 0.0f; }

// The bilinear stencil at (fx, fy), in face units of a w x h face grid
// (clamped into it): faces k, k + 1, k + w and k + w + 1, with their
// weights. Both transfers use it: particles to grid and grid to particles.
struct Bilinear {
  int k;
  float w00, w10, w01, w11;
};
// The stencil's first face along an axis of n faces, at f clamped.
TIDEPOOL_INLINE int first_face(float clamped, int n) { return std::min(static_cast<int>(clamped), n - 2); }
TIDEPOOL_INLINE Bilinear bilinear(int w, int h, float fx, float fy) {
  fx = clamp_coordinate(fx, w);
  fy = clamp_coordinate(fy, h);
  const int i = first_face(fx, w), j = first_face(fy, h);
  const float tx = fx - float(i), ty = fy - float(j);
  return {j * w + i, (1.0f - tx) * (1.0f - ty), tx * (1.0f - ty), (1.0f - tx) * ty, tx * ty};
}

// Bilinear weights of particle p on the faces of one component: the face
// grid is w x h, its entry (i, j) at origin + dx (i + ox, j + oy).
template <class F>
TIDEPOOL_INLINE void for_weights(const MacGrid& g, glm::vec2 p, int w, int h, float ox, float oy, F&& f) {
  const Bilinear b = bilinear(w, h, (p.x - g.origin.x) / g.dx - ox, (p.y - g.origin.y) / g.dx - oy);
  f(b.k, b.w00);
  f(b.k + 1, b.w10);
  f(b.k + w, b.w01);
  f(b.k + w + 1, b.w11);
}

// Particles to grid (on arrays that are 0 outside the last window, cleared
// over it): the faces' weighted velocities and the cells' counts, then the
// new window around the particles' cells and their types.
void FlipSolver::particles_to_grid(const WorldState& s) {
  const Particles& p = s.particles;
  const int nx = g_.nx, ny = g_.ny, n = p.size();
  // The rows a particle's stencils reach: u's and the counts' (at y -
  // dx / 2, ny rows), v's (at y, ny + 1 rows) and its own cell's.
  auto stencil_rows = [&](int k) {
    const float fy = (p.y[k] - g_.origin.y) / g_.dx;
    const int ju = first_face(clamp_coordinate(fy - 0.5f, ny), ny), jv = first_face(clamp_coordinate(fy, ny + 1), ny + 1);
    int i, j;
    g_.cell_at({p.x[k], p.y[k]}, &i, &j);
    return std::make_pair(std::min({ju, jv, j}), std::max({ju + 1, jv + 1, j}));
  };
  bands_.deal(n, ny + 1, std::min(kMostBands, s.loops.runs(n, 1)), s.loops, stencil_rows);
  // Each band adds the terms that fall on its rows, its particles in index
  // order (row_bands.h), and finds the extent of the cells whose row it
  // holds. One band (a loop run inline) holds every row and particle.
  const int bands = bands_.bands();
  band_extent_.resize(static_cast<size_t>(bands));
  auto scatter = [&](int b, auto all) {
    constexpr bool kAll = decltype(all)::value;
    const int r0 = bands_.first_row(b), r1 = bands_.first_row(b + 1);
    const int u0 = r0 * (nx + 1), u1 = r1 * (nx + 1), c0 = r0 * nx, c1 = r1 * nx;
    Extent e = {nx, ny, -1, -1};
    const int count = kAll ? n : static_cast<int>(bands_.end(b) - bands_.begin(b));
    const int* list = bands_.begin(b);
    for (int m = 0; m < count; ++m) {
      const int k = kAll ? m : list[m];
      const glm::vec2 x(p.x[k], p.y[k]);
      for_weights(g_, x, nx + 1, ny, 0.0f, 0.5f, [&](int f, float w) {
        if (!kAll && (f < u0 || f >= u1)) return;
        g_.u[f] += w * p.vx[k];
        wu_[f] += w;
      });
      for_weights(g_, x, nx, ny + 1, 0.5f, 0.0f, [&](int f, float w) {
        if (!kAll && (f < c0 || f >= c1)) return;
        g_.v[f] += w * p.vy[k];
        wv_[f] += w;
      });
      for_weights(g_, x, nx, ny, 0.5f, 0.5f, [&](int c, float w) {
        if (kAll || (c >= c0 && c < c1)) count_[c] += w;
      });
      int i, j;
      g_.cell_at(x, &i, &j);
      if (!kAll && (j < r0 || j >= r1)) continue;
      type_[g_.cell(i, j)] = kFluidCell;
      e.i_lo = std::min(e.i_lo, i), e.i_hi = std::max(e.i_hi, i);
      e.j_lo = std::min(e.j_lo, j), e.j_hi = std::max(e.j_hi, j);
    }
    band_extent_[static_cast<size_t>(b)] = e;
  };
  if (bands == 1) {
    scatter(0, std::true_type{});
  } else {
    s.loops.parallel(bands, [&](int b0, int b1) {
      for (int b = b0; b < b1; ++b) scatter(b, std::false_type{});
    });
  }
  int i_lo = nx, i_hi = -1, j_lo = ny, j_hi = -1;
  for (const Extent& e : band_extent_) {
    i_lo = std::min(i_lo, e.i_lo), i_hi = std::max(i_hi, e.i_hi);
    j_lo = std::min(j_lo, e.j_lo), j_hi = std::max(j_hi, e.j_hi);
  }
  // The band: the particles' weights reach a cell beyond their own, the
  // extrapolated layers beyond those, and the projection wants an air cell
  // between the liquid and the window's edge.
  layers_ = extrapolation_layers(s.params);
  const int band = layers_ + 2;
  window_ = n > 0 ? CellWindow{std::max(0, i_lo - band), std::max(0, j_lo - band), std::min(nx, i_hi + 1 + band),
                               std::min(ny, j_hi + 1 + band)}
                  : CellWindow{};
  for_rows(s.loops, u_faces(), nx + 1, [&](int k0, int k1) {
    for (int f = k0; f < k1; ++f)
      if (wu_[f] > 0.0f) g_.u[f] /= wu_[f];
  });
  for_rows(s.loops, v_faces(), nx, [&](int k0, int k1) {
    for (int f = k0; f < k1; ++f)
      if (wv_[f] > 0.0f) g_.v[f] /= wv_[f];
  });
}

// The solids on the window's faces (cut_faces.h): a cell all of whose
// faces they close is solid.
void FlipSolver::cut_cells(const WorldState& s, float dt) {
  cutting_ = !s.solids.empty();
  if (!cutting_) return;
  cut_.update(g_, s.solids, window_, dt, {s.params.gravity_x, s.params.gravity_y});
  for_rows(s.loops, cells(), g_.nx, [&](int c0, int c1) {
    for (int c = c0; c < c1; ++c)
      if (cut_.open(c) <= 0.0f) type_[c] = kSolidCell;
  });
}

// A cell a solid cuts is liquid where it holds a particle. One that holds
// less than half a cell of open area and no particle, and opens onto a
// liquid cell, is liquid too: the particles keep half a spacing off a
// solid (collide()), so the water under a body may leave its thin cut
// cells empty, and an air cell there would put the surface's p = 0 against
// the body.
void FlipSolver::liquid_cells() {
  if (!cutting_) return;
  const int nx = g_.nx, ny = g_.ny;
  const CellWindow w = window_;
  wetted_.clear();
  for (int j = w.j0; j < w.j1; ++j)
    for (int i = w.i0; i < w.i1; ++i) {
      const int c = g_.cell(i, j);
      if (type_[c] != kAirCell || open(c) >= kWetShare) continue;
      const bool wet = (i > 0 && type_[c - 1] == kFluidCell && u_share(g_.u_index(i, j)) > 0.0f) ||
                       (i + 1 < nx && type_[c + 1] == kFluidCell && u_share(g_.u_index(i + 1, j)) > 0.0f) ||
                       (j > 0 && type_[c - nx] == kFluidCell && v_share(g_.v_index(i, j)) > 0.0f) ||
                       (j + 1 < ny && type_[c + nx] == kFluidCell && v_share(g_.v_index(i, j + 1)) > 0.0f);
      if (wet) wetted_.push_back(c);
    }
  for (const int c : wetted_) type_[c] = kFluidCell;
}

void FlipSolver::rigid_columns(const WorldState& s, float dt) {
  const std::vector<Body>& bodies = s.bodies.bodies();
  inverse_mass_.resize(bodies.size());
  inverse_inertia_.resize(bodies.size());
  rigid_.start.resize(bodies.size());
  fallen_.resize(bodies.size());
  const glm::vec2 gravity(s.params.gravity_x, s.params.gravity_y);
  for (size_t k = 0; k < bodies.size(); ++k) {
    const Body& b = bodies[k];
    // Before the solve, the body has fallen for dt (as CutFaces::update
    // takes its faces' velocities).
    rigid_.start[k] = glm::vec3(b.velocity + dt * gravity, b.def.fixed_rotation ? 0.0f : b.omega);
    fallen_[k] = rigid_.start[k];
    inverse_mass_[k] = b.inverse_mass();
    inverse_inertia_[k] = b.inverse_inertia();
  }
  cut_.columns(g_, s.solids, type_, inverse_mass_, inverse_inertia_, &rigid_.columns);
  rigid_.solids = &s.solids;
  surface_correction(s, dt);
}

// The ghost fluid places the free surface on a cell's face where the
// liquid ends below it (mac_grid.h, surface_offset): the projection's
// potential is then that of water up to half a cell deeper than the
// particles stand, the same all the way down a column. The water flows
// the same under a uniform offset, but a floating body would float by it,
// up to half a cell high. So each body in the water takes, before the
// solve, the impulse that offset puts on it, rho0 J^T (d 1), its share of
// a uniform potential d over its wetted faces: d the mean offset over the
// surface's whole cells (a liquid cell under an air cell along gravity,
// neither cut by a solid), the same for every body, so that the body
// feels the level the water's own volume gives.
void FlipSolver::surface_correction(const WorldState& s, float dt) {
  const Params& P = s.params;
  const bool vertical = std::fabs(P.gravity_y) >= std::fabs(P.gravity_x);
  const int ui = vertical ? 0 : (P.gravity_x < 0.0f ? 1 : -1), uj = vertical ? (P.gravity_y < 0.0f ? 1 : -1) : 0;
  const float along = dt * (P.gravity_x * float(ui) + P.gravity_y * float(uj));
  const int nx = g_.nx, ny = g_.ny;
  const CellWindow w = window_;
  double sum = 0.0;
  int n = 0;
  for (int j = w.j0; j < w.j1; ++j)
    for (int i = w.i0; i < w.i1; ++i) {
      const int c = g_.cell(i, j), ai = i + ui, aj = j + uj;
      if (type_[c] != kFluidCell || ai < 0 || ai >= nx || aj < 0 || aj >= ny) continue;
      const int a = g_.cell(ai, aj);
      if (type_[a] != kAirCell || open(c) < 1.0f || open(a) < 1.0f) continue;
      sum += surface_offset(fill_, c, a, g_.dx, along);
      ++n;
    }
  if (n == 0) return;
  const float d = P.rest_density * static_cast<float>(sum / n);
  for (size_t k = 0; k < rigid_.columns.size(); ++k) {
    const RigidColumns& col = rigid_.columns[k];
    glm::vec3 total(0.0f);
    for (const glm::vec3& j3 : col.j) total += j3;
    rigid_.start[k] += d * glm::vec3(col.inverse_mass * total.x, col.inverse_mass * total.y, col.inverse_inertia * total.z);
  }
}

// Copies into each unknown face of the rectangle the mean of its known
// neighbours, layer by layer: the particles near the surface sample faces
// that no particle reached.
// known holds 1 on the faces known before the first layer and layer + 2
// on those layer `layer` adds: a layer reads only the faces known before
// it, so its faces are independent of each other, and a face it adds is
// one no other face of the layer reads.
void FlipSolver::extrapolate(std::vector<float>* f, std::vector<uint8_t>* known, int w, FaceRect r, int layers,
                             const Loops& loops) {
  std::vector<uint8_t>& on = *known;
  for (int layer = 0; layer < layers; ++layer) {
    const uint8_t before = static_cast<uint8_t>(layer + 1), added = static_cast<uint8_t>(layer + 2);
    auto was = [&](int k) { return on[k] != 0 && on[k] <= before; };
    for_cells(loops, r, [&](int i, int j) {
      const int k = j * w + i;
      if (on[k]) return;
      float sum = 0.0f;
      int m = 0;
      if (i > r.i0 && was(k - 1)) sum += (*f)[k - 1], ++m;
      if (i + 1 < r.i1 && was(k + 1)) sum += (*f)[k + 1], ++m;
      if (j > r.j0 && was(k - w)) sum += (*f)[k - w], ++m;
      if (j + 1 < r.j1 && was(k + w)) sum += (*f)[k + w], ++m;
      if (m > 0) (*f)[k] = sum / float(m), on[k] = added;
    });
  }
}

// Gravity and the pointers' pushes on the window's open faces; a face the
// walls or a solid close takes the solid's velocity (0 but for a body's).
void FlipSolver::add_forces(const WorldState& s, float dt) {
  const Params& P = s.params;
  const int nx = g_.nx, ny = g_.ny;
  const FaceRect fu = u_faces(), fv = v_faces();
  for_cells(s.loops, fu, [&](int i, int j) {
    const int k = g_.u_index(i, j);
    float& u = g_.u[k];
    const bool open = i > 0 && i < nx && type_[g_.cell(i - 1, j)] != kSolidCell && type_[g_.cell(i, j)] != kSolidCell &&
                      u_share(k) > 0.0f;
    u = open ? u + dt * (P.gravity_x + pointer_accel(s.pointers, g_.u_face(i, j), u, {1.0f, 0.0f}, dt))
             : cutting_ ? cut_.u_solid(k) : 0.0f;
  });
  for_cells(s.loops, fv, [&](int i, int j) {
    const int k = g_.v_index(i, j);
    float& v = g_.v[k];
    const bool open = j > 0 && j < ny && type_[g_.cell(i, j - 1)] != kSolidCell && type_[g_.cell(i, j)] != kSolidCell &&
                      v_share(k) > 0.0f;
    v = open ? v + dt * (P.gravity_y + pointer_accel(s.pointers, g_.v_face(i, j), v, {0.0f, 1.0f}, dt))
             : cutting_ ? cut_.v_solid(k) : 0.0f;
  });
}

// After the projection, the faces the solids close carry the solids'
// velocities (a body's new one): the flow the particles beside a solid
// sample there.
void FlipSolver::close_faces(const Loops& loops) {
  if (!cutting_) return;
  const FaceRect fu = u_faces(), fv = v_faces();
  for_cells(loops, fu, [&](int i, int j) {
    const int k = g_.u_index(i, j);
    if (u_share(k) <= 0.0f) g_.u[k] = cut_.u_solid(k);
  });
  for_cells(loops, fv, [&](int i, int j) {
    const int k = g_.v_index(i, j);
    if (v_share(k) <= 0.0f) g_.v[k] = cut_.v_solid(k);
  });
}

// Viscosity on the faces that carry fluid (mac_grid.cpp), with nu = mu /
// rho0 and no-slip walls: the bed friction that slows a real surge. A face
// a solid closes holds still.
void FlipSolver::viscosity(const WorldState& s, float dt, FrameStats& st) {
  const float nu = s.params.viscosity / s.params.rest_density;
  const float a = nu * dt / (g_.dx * g_.dx);
  if (!(a > 1e-7f)) return;
  const int nx = g_.nx, ny = g_.ny;
  auto carries = [&](int c0, int c1) {
    return type_[c0] != kSolidCell && type_[c1] != kSolidCell && (type_[c0] == kFluidCell || type_[c1] == kFluidCell);
  };
  const float walls[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const FaceRect fu = u_faces(), fv = v_faces();
  const double reserve = tail(s);
  free_.resize(std::max(g_.u.size(), g_.v.size()));
  for_cells(s.loops, fu, [&](int i, int j) {
    const int k = g_.u_index(i, j);
    free_[k] = i > 0 && i < nx && carries(g_.cell(i - 1, j), g_.cell(i, j)) && u_share(k) > 0.0f;
  });
  st.work += diffuse_faces(&g_.u, nx + 1, ny, free_, walls, a, passes_within(st, double(fu.cells()), kViscousIterations, reserve), fu,
                           &work_, s.loops);
  for_cells(s.loops, fv, [&](int i, int j) {
    const int k = g_.v_index(i, j);
    free_[k] = j > 0 && j < ny && carries(g_.cell(i, j - 1), g_.cell(i, j)) && v_share(k) > 0.0f;
  });
  st.work += diffuse_faces(&g_.v, nx, ny + 1, free_, walls, a, passes_within(st, double(fv.cells()), kViscousIterations, reserve), fv,
                           &work_, s.loops);
}

// Surface tension as the pressure jump sigma kappa across the surface
// (Young-Laplace; in 2D sigma is a force, N), which the ghost fluid holds
// where p = 0 would lie. kappa = div n, with n = -grad F / |grad F| the
// outward normal of the fill F smoothed by a 3 x 3 binomial filter
// (Brackbill et al. 1992 take the same normal from a colour function), by
// central differences; |kappa| is held to 1 / dx, the sharpest corner the
// grid resolves. held_ gets sigma kappa dt / rho0 on the fluid cells
// (phi's units). The fields are 0 outside the window.
void FlipSolver::surface_tension(const WorldState& s, float dt) {
  const int nx = g_.nx, ny = g_.ny;
  const CellWindow w = window_;
  auto at = [&](const std::vector<float>& f, int i, int j) {
    return f[g_.cell(std::clamp(i, 0, nx - 1), std::clamp(j, 0, ny - 1))];
  };
  for_cells(s.loops, w, [&](int i, int j) {
    float sum = 0.0f;
    for (int b = -1; b <= 1; ++b)
      for (int a = -1; a <= 1; ++a) sum += float((2 - std::abs(a)) * (2 - std::abs(b))) * at(fill_, i + a, j + b);
    smooth_[g_.cell(i, j)] = sum / 16.0f;
  });
  for_cells(s.loops, w, [&](int i, int j) {
    const float gx = at(smooth_, i + 1, j) - at(smooth_, i - 1, j);
    const float gy = at(smooth_, i, j + 1) - at(smooth_, i, j - 1);
    const float len = std::sqrt(gx * gx + gy * gy);
    const bool defined = len > 1e-3f;
    normal_x_[g_.cell(i, j)] = defined ? -gx / len : 0.0f;
    normal_y_[g_.cell(i, j)] = defined ? -gy / len : 0.0f;
  });
  const float scale = s.params.surface_tension * dt / s.params.rest_density;
  for_cells(s.loops, w, [&](int i, int j) {
    float& held = held_[g_.cell(i, j)];
    held = 0.0f;
    if (type_[g_.cell(i, j)] != kFluidCell) return;
    const float div = (at(normal_x_, i + 1, j) - at(normal_x_, i - 1, j) + at(normal_y_, i, j + 1) -
                       at(normal_y_, i, j - 1)) / (2.0f * g_.dx);
    held = scale * std::clamp(div, -1.0f / g_.dx, 1.0f / g_.dx);
  });
}

// Bilinear samples of two fields on the same w x h faces at (fx, fy) in
// face units, with one set of weights: *a from f, and *b from g unless b
// is null.
TIDEPOOL_INLINE void sample2(const float* f, const float* g, int w, int h, float fx, float fy, float* a, float* b) {
  const Bilinear s = bilinear(w, h, fx, fy);
  const int k = s.k;
  *a = s.w00 * f[k] + s.w10 * f[k + 1] + s.w01 * f[k + w] + s.w11 * f[k + w + 1];
  if (b) *b = s.w00 * g[k] + s.w10 * g[k + 1] + s.w01 * g[k + w] + s.w11 * g[k + w + 1];
}

// The grid velocity at p, and the step's change of it unless change is null.
TIDEPOOL_INLINE void FlipSolver::velocity(glm::vec2 p, glm::vec2* now, glm::vec2* change) const {
  const float fx = (p.x - g_.origin.x) / g_.dx, fy = (p.y - g_.origin.y) / g_.dx;
  sample2(g_.u.data(), u_old_.data(), g_.nx + 1, g_.ny, fx, fy - 0.5f, &now->x, change ? &change->x : nullptr);
  sample2(g_.v.data(), v_old_.data(), g_.nx, g_.ny + 1, fx - 0.5f, fy, &now->y, change ? &change->y : nullptr);
}

// The faces the projection left with fluid on a side are known; the rest
// of the window's take the extrapolated flow.
void FlipSolver::mark_known(const Loops& loops) {
  const int nx = g_.nx, ny = g_.ny;
  const FaceRect fu = u_faces(), fv = v_faces();
  for_cells(loops, fu, [&](int i, int j) {
    known_u_[g_.u_index(i, j)] = (i > 0 && type_[g_.cell(i - 1, j)] == kFluidCell) ||
                                 (i < nx && type_[g_.cell(i, j)] == kFluidCell);
  });
  for_cells(loops, fv, [&](int i, int j) {
    known_v_[g_.v_index(i, j)] = (j > 0 && type_[g_.cell(i, j - 1)] == kFluidCell) ||
                                 (j < ny && type_[g_.cell(i, j)] == kFluidCell);
  });
  extrapolate(&g_.u, &known_u_, nx + 1, fu, layers_, loops);
  extrapolate(&g_.v, &known_v_, nx, fv, layers_, loops);
}

// Grid to particles. The FLIP share is a rate in time: flip_ratio over
// 1/120 s, so r = flip_ratio^(120 dt) for a step of dt, and the PIC share's
// damping does not depend on how many steps a frame takes.
void FlipSolver::grid_to_particles(WorldState& s, float dt) {
  Particles& p = s.particles;
  const float r = std::pow(s.params.flip_ratio, 120.0f * dt);
  // u_old_ becomes the change the step made on the window's faces.
  for_rows(s.loops, u_faces(), g_.nx + 1, [&](int k0, int k1) {
    for (int f = k0; f < k1; ++f) u_old_[f] = g_.u[f] - u_old_[f];
  });
  for_rows(s.loops, v_faces(), g_.nx, [&](int k0, int k1) {
    for (int f = k0; f < k1; ++f) v_old_[f] = g_.v[f] - v_old_[f];
  });
  const float inv_dt = 1.0f / dt;
  const double a2max = s.loops.max_over(p.size(), [&](int begin, int end) {
    float most = 0.0f;
    for (int k = begin; k < end; ++k) {
      const glm::vec2 x(p.x[k], p.y[k]);
      glm::vec2 pic, change, at_mid;
      velocity(x, &pic, &change);
      const glm::vec2 flip = glm::vec2(p.vx[k], p.vy[k]) + change;
      const glm::vec2 v = r * flip + (1.0f - r) * pic;
      p.ax[k] = (v.x - p.vx[k]) * inv_dt;
      p.ay[k] = (v.y - p.vy[k]) * inv_dt;
      most = std::max(most, p.ax[k] * p.ax[k] + p.ay[k] * p.ay[k]);
      p.vx[k] = v.x;
      p.vy[k] = v.y;
      // RK2 through the new grid velocity.
      velocity(x + 0.5f * dt * pic, &at_mid, nullptr);
      const glm::vec2 to = x + dt * at_mid;
      p.x_prev[k] = x.x;
      p.y_prev[k] = x.y;
      p.x[k] = to.x;
      p.y[k] = to.y;
    }
    return static_cast<double>(most);
  });
  s.max_accel = std::sqrt(static_cast<float>(a2max));
}

void FlipSolver::step(WorldState& s, float dt, StageClock& clock, FrameStats& st) {
  const Params& P = s.params;
  Particles& p = s.particles;
  p.ax.resize(static_cast<size_t>(p.size()));
  p.ay.resize(static_cast<size_t>(p.size()));
  fit(s);
  clear_window(s.loops);
  particles_to_grid(s);
  cut_cells(s, dt);
  st.work += p.size() + static_cast<double>(window_.cells());
  // Every face of a fluid cell has a particle's weight, so the projection,
  // the viscous faces and the change FLIP reads at the particles need no
  // extrapolation: only the flow the particles' paths cross beside the
  // liquid does, after the projection (mark_known).
  const int nx = g_.nx, ny = g_.ny;
  for_rows(s.loops, u_faces(), nx + 1, [&](int k0, int k1) { std::copy(g_.u.begin() + k0, g_.u.begin() + k1, u_old_.begin() + k0); });
  for_rows(s.loops, v_faces(), nx, [&](int k0, int k1) { std::copy(g_.v.begin() + k0, g_.v.begin() + k1, v_old_.begin() + k0); });
  clock.lap(kStageTransfer);
  // Viscosity before the forces: gravity's hydrostatic part is a gradient
  // that the projection removes whole, where a viscous step after it would
  // turn it into currents along the no-slip walls.
  viscosity(s, dt, st);
  add_forces(s, dt);
  clock.lap(kStageForces);
  // The volume: a fluid cell holds (cell / spacing)^2 particles at rest
  // (flip_cell^2 but on the largest grids); one denser is spread by a
  // divergence source through the same projection. Like the FLIP share, the
  // correction is a rate in time: volume_correction of the excess over
  // 1/120 s, so a step of dt spreads 1 - (1 - volume_correction)^(120 dt)
  // of it, the same a second whatever the steps a frame takes. A cell a
  // solid cuts holds its open share of that, and is never drawn full: its
  // particles keep half a spacing off the solid.
  const float per_side = cell_ / s.spacing();
  const float rest = per_side * per_side;
  auto full = [&](int j) { return j + 1 == g_.ny ? rest * top_share_ : rest; };  // a row's cell at rest
  const float spread = 1.0f - std::pow(1.0f - P.volume_correction, 120.0f * dt);
  const CellWindow w = window_;
  for_cells(s.loops, w, [&](int i, int j) {
    const int c = g_.cell(i, j);
    fill_[c] = std::min(count_[c] / (full(j) * std::max(open(c), 1e-3f)), 1.0f);
  });
  liquid_cells();
  for_cells(s.loops, w, [&](int i, int j) {
    const int c = g_.cell(i, j);
    source_[c] = 0.0f;
    if (type_[c] != kFluidCell) return;
    // Below the surface (no air beside it) a whole cell is full at rest:
    // one emptier draws its neighbours in. Surface cells are partly full.
    const float a = open(c);
    const bool inside = a >= 1.0f && (i == 0 || type_[c - 1] != kAirCell) && (i + 1 == nx || type_[c + 1] != kAirCell) &&
                        (j == 0 || type_[c - nx] != kAirCell) && (j + 1 == ny || type_[c + nx] != kAirCell);
    const float excess = count_[c] / (full(j) * std::max(a, 1e-3f)) - 1.0f;
    if (excess > 0.0f || inside) source_[c] = spread * excess / dt;
  });
  const bool tension = P.surface_tension > 0.0f;
  if (tension) surface_tension(s, dt);
  const bool bodies = cutting_ && !s.bodies.empty();
  if (bodies) rigid_columns(s, dt);
  project(&g_, type_, P.pressure_tolerance, passes_within(st, static_cast<double>(w.cells()), P.pressure_iterations, tail(s)),
          s.loops, &poisson_, &phi_, &rhs_, &source_, P.max_speed, FreeSurface{&fill_, tension ? &held_ : nullptr, &surface_}, w,
          cutting_ ? &cut_ : nullptr, bodies ? &rigid_ : nullptr, P.rest_density)
      .record(st);
  st.cells = nx * ny;
  if (bodies) {
    // Each body's change from the water: the solve's and the surface's.
    for (size_t k = 0; k < rigid_.change.size(); ++k) rigid_.change[k] += rigid_.start[k] - fallen_[k];
    solved_bodies(s, rigid_.change);
  }
  close_faces(s.loops);
  // The pressure at the particles: p = rho0 phi / dt in their cell.
  s.loops.parallel(
      p.size(),
      [&](int begin, int end) {
        for (int k = begin; k < end; ++k) {
          int i, j;
          g_.cell_at({p.x[k], p.y[k]}, &i, &j);
          const int c = g_.cell(i, j);
          p.pressure[k] = finite_float(double(P.rest_density) * phi_[c] / dt);
          p.density[k] = P.rest_density * count_[c] / (full(j) * std::max(open(c), 1e-3f));
        }
      },
      1);
  clock.lap(kStagePressure);
  mark_known(s.loops);
  grid_to_particles(s, dt);
  st.work += p.size() + static_cast<double>(window_.cells());
  clock.lap(kStageTransfer);
}

size_t FlipSolver::bytes() const {
  const size_t floats = g_.u.size() + g_.v.size() + u_old_.size() + v_old_.size() + wu_.size() + wv_.size() +
                        count_.size() + phi_.size() + rhs_.size() + fill_.size() + surface_.size() + smooth_.size() +
                        normal_x_.size() + normal_y_.size() + held_.size();
  return floats * sizeof(float) + type_.size() + known_u_.size() + known_v_.size();
}

}  // namespace

std::unique_ptr<FluidSolver> make_flip(const Params&) { return std::make_unique<FlipSolver>(); }

}  // namespace tidepool
