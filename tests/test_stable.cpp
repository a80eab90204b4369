// Stable fluids (Stam 1999): the projection, advection and viscosity
// stages against what they must conserve or reproduce, and the lid-driven
// cavity against Ghia, Ghia & Shin 1982.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "mac_grid.h"
#include "poisson.h"
#include "stable.h"
#include "state.h"
#include "tidepool/scenes.h"
#include "tidepool/world.h"

using namespace tidepool;

namespace {

constexpr float kPi = 3.14159265f;

// A world state with the stable-fluids solver over `box`, its grid fitted.
struct GridWorld {
  WorldState s;
  StableFluids* f = nullptr;
  GridWorld(Box box, int cells, float reynolds) {
    s.params.solver = Solver::Stable;
    s.params.grid = cells;
    s.params.reynolds = reynolds;
    s.box = box;
    s.start_solver();
    f = static_cast<StableFluids*>(&*s.solver);
    f->fit(s);
  }
};

// The cells of an nx x ny grid over [0, nx dx] x [0, ny dx], solid inside
// a disc and a bar.
std::vector<uint8_t> cells_with_obstacles(const MacGrid& g) {
  std::vector<uint8_t> type(static_cast<size_t>(g.nx) * g.ny, kFluidCell);
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i) {
      const glm::vec2 c = g.centre(i, j);
      const glm::vec2 d = c - glm::vec2(0.35f, 0.3f);
      const bool disc = d.x * d.x + d.y * d.y < 0.12f * 0.12f;
      const bool bar = c.x > 0.6f && c.x < 0.66f && c.y > 0.2f && c.y < 0.6f;
      if (disc || bar) type[g.cell(i, j)] = kSolidCell;
    }
  return type;
}

// Random face velocities in [-1, 1], none through the walls or into a solid.
void random_flow(MacGrid* g, const std::vector<uint8_t>& type, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> r(-1.0f, 1.0f);
  for (int j = 0; j < g->ny; ++j)
    for (int i = 0; i <= g->nx; ++i) {
      const bool open = i > 0 && i < g->nx && type[g->cell(i - 1, j)] != kSolidCell && type[g->cell(i, j)] != kSolidCell;
      g->u[g->u_index(i, j)] = open ? r(rng) : 0.0f;
    }
  for (int j = 0; j <= g->ny; ++j)
    for (int i = 0; i < g->nx; ++i) {
      const bool open = j > 0 && j < g->ny && type[g->cell(i, j - 1)] != kSolidCell && type[g->cell(i, j)] != kSolidCell;
      g->v[g->v_index(i, j)] = open ? r(rng) : 0.0f;
    }
}

float max_divergence(const MacGrid& g, const std::vector<uint8_t>& type) {
  float most = 0.0f;
  for (int j = 0; j < g.ny; ++j)
    for (int i = 0; i < g.nx; ++i)
      if (type[g.cell(i, j)] == kFluidCell) most = std::max(most, std::fabs(g.divergence(i, j)));
  return most;
}

}  // namespace

TEST_CASE("projection leaves |div u| below its tolerance around obstacles", "[stable][projection]") {
  for (int n : {32, 96}) {
    MacGrid g;
    g.resize(n, n * 3 / 4, 1.0f / static_cast<float>(n), {0.0f, 0.0f});
    const std::vector<uint8_t> type = cells_with_obstacles(g);
    random_flow(&g, type, 7u + static_cast<unsigned>(n));
    const float before = max_divergence(g, type);
    PoissonSolver solver;
    std::vector<float> phi, rhs;
    const float tolerance = 1e-5f;
    const ProjectionResult r = project(&g, type, tolerance, 500, Loops{}, &solver, &phi, &rhs);
    INFO(n << " cells across: " << r.iterations << " iterations, |div u| " << before << " -> " << r.max_divergence);
    CHECK(r.residual <= tolerance);
    CHECK(r.max_divergence == Approx(max_divergence(g, type)));
    // The residual is dx^2 div relative to the largest dx^2 div before.
    CHECK(r.max_divergence <= 2.0f * tolerance * before);
    // Multigrid: the iterations hardly grow with the grid.
    CHECK(r.iterations <= 30);
  }
}

TEST_CASE("projecting a divergence-free field leaves it unchanged", "[stable][projection]") {
  MacGrid g;
  g.resize(64, 48, 1.0f / 64.0f, {0.0f, 0.0f});
  const std::vector<uint8_t> type = cells_with_obstacles(g);
  random_flow(&g, type, 3u);
  PoissonSolver solver;
  std::vector<float> phi, rhs;
  project(&g, type, 1e-6f, 500, Loops{}, &solver, &phi, &rhs);
  const std::vector<float> u = g.u, v = g.v;
  std::fill(phi.begin(), phi.end(), 0.0f);
  project(&g, type, 1e-6f, 500, Loops{}, &solver, &phi, &rhs);
  float change = 0.0f;
  for (size_t k = 0; k < u.size(); ++k) change = std::max(change, std::fabs(g.u[k] - u[k]));
  for (size_t k = 0; k < v.size(); ++k) change = std::max(change, std::fabs(g.v[k] - v[k]));
  CHECK(change < 1e-4f);
}

TEST_CASE("a liquid projected in its window moves as projected over the whole grid", "[stable][projection][flip]") {
  // A liquid blob (fluid cells inside a disc, with a solid bar through it)
  // in air, with fills that place its surface by the ghost fluid method:
  // projected once over the whole grid and once in the window of its cells
  // and a band of two, the two flows and potentials are the same equations'
  // solutions. A window one cell too small (cutting the blob) changes them.
  MacGrid full;
  full.resize(64, 48, 1.0f / 64.0f, {0.0f, 0.0f});
  std::vector<uint8_t> type(static_cast<size_t>(full.nx) * full.ny, kAirCell);
  std::vector<float> fill(type.size(), 0.0f);
  CellWindow blob{full.nx, full.ny, 0, 0};
  for (int j = 0; j < full.ny; ++j)
    for (int i = 0; i < full.nx; ++i) {
      const glm::vec2 d = full.centre(i, j) - glm::vec2(0.55f, 0.35f);
      const float r = std::sqrt(d.x * d.x + d.y * d.y);
      if (r >= 0.2f) continue;
      const int c = full.cell(i, j);
      type[c] = std::fabs(d.x) < 0.02f && d.y > 0.0f ? kSolidCell : kFluidCell;
      fill[c] = std::min(1.0f, (0.2f - r) * 64.0f);
      blob = {std::min(blob.i0, i), std::min(blob.j0, j), std::max(blob.i1, i + 1), std::max(blob.j1, j + 1)};
    }
  random_flow(&full, type, 11u);
  MacGrid part = full, cut = full;
  std::vector<float> phi_full, phi_part, phi_cut, rhs, scratch;
  PoissonSolver a, b, c;
  const float tolerance = 1e-6f;
  const ProjectionResult rf = project(&full, type, tolerance, 500, Loops{}, &a, &phi_full, &rhs, nullptr,
                                      std::numeric_limits<float>::infinity(), FreeSurface{&fill, nullptr, &scratch});
  const CellWindow window{blob.i0 - 2, blob.j0 - 2, blob.i1 + 2, blob.j1 + 2};
  const ProjectionResult rp = project(&part, type, tolerance, 500, Loops{}, &b, &phi_part, &rhs, nullptr,
                                      std::numeric_limits<float>::infinity(), FreeSurface{&fill, nullptr, &scratch},
                                      window);
  const CellWindow too_small{blob.i0 + 1, blob.j0, blob.i1, blob.j1};
  project(&cut, type, tolerance, 500, Loops{}, &c, &phi_cut, &rhs, nullptr, std::numeric_limits<float>::infinity(),
          FreeSurface{&fill, nullptr, &scratch}, too_small);
  auto largest_difference = [](const std::vector<float>& x, const std::vector<float>& y) {
    float most = 0.0f;
    for (size_t k = 0; k < x.size(); ++k) most = std::max(most, std::fabs(x[k] - y[k]));
    return most;
  };
  const float du = std::max(largest_difference(full.u, part.u), largest_difference(full.v, part.v));
  const float du_cut = std::max(largest_difference(full.u, cut.u), largest_difference(full.v, cut.v));
  INFO("window " << window.nx() << " x " << window.ny() << " of " << full.nx << " x " << full.ny << ": "
                 << rp.iterations << " iterations (whole grid " << rf.iterations << "), largest velocity difference "
                 << du << "; cut window " << du_cut);
  CHECK(rf.residual <= tolerance);
  CHECK(rp.residual <= tolerance);
  CHECK(rp.max_divergence == Approx(rf.max_divergence).margin(1e-4));
  CHECK(du < 1e-4f);
  CHECK(largest_difference(phi_full, phi_part) < 1e-6f);
  CHECK(du_cut > 1e-2f);
}

TEST_CASE("a closed tank of buoyant dye at rest stays at rest", "[stable][projection]") {
  // Uniform dye under buoyancy is a uniform force: a gradient, which the
  // projection must cancel exactly, obstacles or not (no spurious currents).
  World w;
  Params p = w.params();
  p.solver = Solver::Stable;
  p.grid = 48;
  p.buoyancy = 5.0f;
  REQUIRE(w.set_params(p).empty());
  w.set_box(Box{{0.0f, 0.0f}, {2.0f, 1.5f}});
  w.add_circle({0.8f, 0.7f}, 0.25f);
  w.add_capsule({1.3f, 0.3f}, {1.7f, 1.0f}, 0.06f);
  REQUIRE(w.fill_dye(Box{{0.0f, 0.0f}, {2.0f, 1.5f}}, {1.0f, 1.0f, 1.0f}));
  FrameStats st;
  for (int k = 0; k < 120; ++k) st = w.advance(1.0f / 60.0f);
  CHECK(st.cells == 48 * 36);
  CHECK(st.max_speed < 1e-4f);
}

TEST_CASE("advection carries a smooth dye blob and keeps its dye", "[stable][advection]") {
  // A Gaussian blob (sigma 0.15 m) carried 1 m, the tank's height, along a
  // uniform flow of 1 m/s in a 3 m x 1 m tank, far from its walls.
  float total[2], peak[2];
  for (Advection scheme : {Advection::SemiLagrangian, Advection::MacCormack}) {
    GridWorld w(Box{{0.0f, 0.0f}, {3.0f, 1.0f}}, 192, 1e7f);
    w.s.params.advection = scheme;
    MacGrid& g = w.f->grid();
    for (int j = 0; j < g.ny; ++j)
      for (int i = 1; i < g.nx; ++i) g.u[g.u_index(i, j)] = 1.0f;
    std::vector<float>& dye = w.f->dye(0);
    double start = 0.0;
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const glm::vec2 d = g.centre(i, j) - glm::vec2(0.8f, 0.5f);
        dye[g.cell(i, j)] = std::exp(-(d.x * d.x + d.y * d.y) / (2.0f * 0.15f * 0.15f));
        start += dye[g.cell(i, j)];
      }
    const float dt = 1.0f / 120.0f;
    for (int k = 0; k < 120; ++k) w.f->advect_dye(w.s.params, dt, w.s.loops);
    double sum = 0.0, centre = 0.0;
    float top = 0.0f;
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const float d = dye[g.cell(i, j)];
        sum += d;
        centre += d * g.centre(i, j).x;
        top = std::max(top, d);
      }
    const int s = scheme == Advection::MacCormack;
    total[s] = static_cast<float>(sum / start);
    peak[s] = top;
    INFO((s ? "MacCormack" : "semi-Lagrangian") << ": dye kept " << total[s] << ", peak " << top);
    CHECK(centre / sum == Approx(1.8).margin(0.01));  // carried 1 m
  }
  INFO("dye kept: semi-Lagrangian " << total[0] << ", MacCormack " << total[1] << "; peak " << peak[0] << ", "
                                    << peak[1]);
  CHECK(std::fabs(total[1] - 1.0f) < 0.01f);
  // The sharper scheme smears less: its peak stays higher.
  CHECK(peak[1] > peak[0] + 0.05f);
}

TEST_CASE("a pointer pours its own dye, or the palette's, at dye_rate over its cone", "[stable][pointers]") {
  // A still pointer (no push, no stir) pours dye_rate dt (1 - r/R) of its
  // colour per cell and tick: over T seconds, dye_rate T pi R^2 / 3 of
  // it in all (the cone's volume), and nothing of the other channels.
  World w;
  Params p = w.params();
  p.solver = Solver::Stable;
  p.grid = 96;
  p.dye_rate = 2.0f;
  REQUIRE(w.set_params(p).empty());
  w.set_box(Box{{0.0f, 0.0f}, {2.0f, 2.0f}});
  REQUIRE(w.fill_dye(Box{{0.0f, 0.0f}, {0.5f, 0.5f}}, {0.0f, 1.0f, 0.0f}));
  REQUIRE(w.dye_fills().size() == 1);
  CHECK(w.dye_fills()[0].colour == glm::vec3(0.0f, 1.0f, 0.0f));
  CHECK(!w.fill_dye(Box{{0.0f, 0.0f}, {0.5f, 0.5f}}, {-1.0f, 0.0f, 0.0f}));
  CHECK(w.dye_fills().size() == 1);  // a refused fill is not recorded
  PointerForce blue, plain;
  blue.position = {0.6f, 1.4f};
  plain.position = {1.4f, 0.6f};
  blue.radius = plain.radius = 0.3f;
  blue.strength = plain.strength = 0.0f;
  blue.dye = {0.0f, 0.0f, 1.0f};
  w.set_pointers({blue, plain});
  const int ticks = 60;
  for (int k = 0; k < ticks; ++k) w.advance(1.0f / 60.0f);
  const FieldView* f = w.field();
  REQUIRE(f != nullptr);
  const double cone = 2.0 * 1.0 * 3.14159265 * 0.3 * 0.3 / 3.0;  // dye_rate T pi R^2 / 3
  double sums[2][3] = {};  // the blue pointer's half (x < 1), the plain one's
  for (int j = 0; j < f->ny; ++j)
    for (int i = 0; i < f->nx; ++i) {
      const int c = j * f->nx + i;
      const bool left = (i + 0.5f) * f->cell < 1.0f;
      if (left && (j + 0.5f) * f->cell < 1.0f) continue;  // the green fill
      for (int k = 0; k < 3; ++k) sums[left ? 0 : 1][k] += f->dye[k][c] * f->cell * f->cell;
    }
  INFO("blue pointer " << sums[0][0] << ", " << sums[0][1] << ", " << sums[0][2] << "; plain " << sums[1][0] << ", "
                       << sums[1][1] << ", " << sums[1][2] << "; cone " << cone);
  CHECK(sums[0][2] == Approx(cone).epsilon(0.05));
  CHECK(sums[0][0] + sums[0][1] < 1e-3 * cone);
  // The second pointer, without a colour of its own, pours kDyeColours[1].
  for (int k = 0; k < 3; ++k) CHECK(sums[1][k] == Approx(cone * kDyeColours[1][k]).epsilon(0.05));
}

TEST_CASE("viscosity: a mode decays at exp(-2 nu k^2 t), by explicit and implicit steps", "[stable][viscosity]") {
  // u = v = sin(pi x) sin(pi y) in the unit square: zero on every wall, and
  // an eigenmode of the Laplacian, lap u = -2 pi^2 u (k = pi). nu = U L / Re
  // with U = 1 m/s (no lid) and L = 1 m. On the grid the 5-point Laplacian's
  // eigenvalue is -2 k_h^2, k_h^2 = (2 / dx sin(k dx / 2))^2, so n steps
  // of dt leave (1 - 2 nu k_h^2 dt)^n of the mode by explicit (forward
  // Euler) steps, which diffuse_faces takes at a = nu dt / dx^2 = 0.10, and
  // (1 + 2 nu k_h^2 dt)^-n by implicit ones (backward Euler), at a = 0.51.
  const float nu = 0.01f, t = 1.0f;
  for (const float dt : {0.01f, 0.05f}) {
    GridWorld w(Box{{0.0f, 0.0f}, {1.0f, 1.0f}}, 32, 1.0f / nu);
    MacGrid& g = w.f->grid();
    auto mode = [](glm::vec2 p) { return std::sin(kPi * p.x) * std::sin(kPi * p.y); };
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i <= g.nx; ++i) g.u[g.u_index(i, j)] = mode(g.u_face(i, j));
    for (int j = 0; j <= g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) g.v[g.v_index(i, j)] = mode(g.v_face(i, j));
    auto amplitude = [&](const std::vector<float>& f, bool is_u) {
      double fm = 0.0, mm = 0.0;
      for (size_t k = 0; k < f.size(); ++k) {
        const int w_ = is_u ? g.nx + 1 : g.nx;
        const glm::vec2 p = is_u ? g.u_face(static_cast<int>(k) % w_, static_cast<int>(k) / w_)
                                 : g.v_face(static_cast<int>(k) % w_, static_cast<int>(k) / w_);
        fm += f[k] * mode(p);
        mm += mode(p) * mode(p);
      }
      return fm / mm;
    };
    const int n = static_cast<int>(std::lround(t / dt));
    FrameStats st;  // no work bound
    for (int k = 0; k < n; ++k) w.f->diffuse(w.s, dt, st);
    const double a = nu * dt / (double(g.dx) * g.dx);
    const double kh2 = std::pow(2.0 / g.dx * std::sin(kPi * g.dx / 2.0), 2.0);
    const bool explicit_step = a <= kExplicitViscosityLimit;
    const double discrete = explicit_step ? std::pow(1.0 - 2.0 * nu * kh2 * dt, n)
                                          : std::pow(1.0 + 2.0 * nu * kh2 * dt, -n);
    const double exact = std::exp(-2.0 * nu * kPi * kPi * t);
    INFO("dt " << dt << ", a " << a << (explicit_step ? " (explicit)" : " (implicit)") << ": amplitude u "
               << amplitude(g.u, true) << ", v " << amplitude(g.v, false) << "; the scheme's "
               << discrete << ", exp(-2 nu k^2 t) " << exact);
    CHECK(explicit_step == (dt < 0.02f));
    // The scheme's decay to round-off (the implicit solve stops at 10^-5 of
    // |b| a step), and the exact one within what the scheme's error allows:
    // 0.04 % at dt = 0.01, 0.15 % at 0.05.
    CHECK(amplitude(g.u, true) == Approx(discrete).epsilon(2e-5));
    CHECK(amplitude(g.v, false) == Approx(discrete).epsilon(2e-5));
    CHECK(amplitude(g.u, true) == Approx(exact).epsilon(dt < 0.02f ? 4e-4 : 1.5e-3));
  }
}

TEST_CASE("the lid-driven cavity at Re 100 matches Ghia, Ghia & Shin 1982 within 0.02 U", "[stable][cavity]") {
  // Table I of Ghia et al. 1982: u on the vertical centreline, Re = 100.
  const float ys[] = {0.9766f, 0.9688f, 0.9609f, 0.9531f, 0.8516f, 0.7344f, 0.6172f, 0.5f,
                      0.4531f, 0.2813f, 0.1719f, 0.1016f, 0.0703f, 0.0625f, 0.0547f};
  const float us[] = {0.84123f,  0.78871f,  0.73722f,  0.68717f,  0.23151f,  0.00332f,  -0.13641f, -0.20581f,
                      -0.21090f, -0.15662f, -0.10150f, -0.06434f, -0.04775f, -0.04192f, -0.03717f};
  World w;
  SceneSetup setup;
  setup.overrides = {{"reynolds", 100.0f}, {"grid", 64.0f}};
  std::string err;
  REQUIRE(load_scene(w, "cavity", setup, &err));
  for (int k = 0; k < 15 * 60; ++k) w.advance(1.0f / 60.0f);  // steady by t = 15 (L / U = 1 s)
  const FieldView& g = *w.field();
  REQUIRE(g.nx == 64);
  // u at x = 1/2 from the two centre columns, linear in y between cell
  // centres, and toward the walls' values (0 below, U above) past the last.
  auto centreline = [&](int j) {
    if (j < 0) return 0.0f;
    if (j >= g.ny) return 1.0f;
    return 0.5f * (g.u[j * g.nx + g.nx / 2 - 1] + g.u[j * g.nx + g.nx / 2]);
  };
  float worst = 0.0f;
  for (size_t k = 0; k < sizeof ys / sizeof ys[0]; ++k) {
    const float fy = ys[k] / g.cell - 0.5f;
    const int j = static_cast<int>(std::floor(fy));
    const float t = fy - static_cast<float>(j);
    float u;
    if (j < 0) u = centreline(0) * ys[k] / (0.5f * g.cell);
    else if (j >= g.ny - 1) u = centreline(g.ny - 1) + (1.0f - centreline(g.ny - 1)) * t / 0.5f;
    else u = (1.0f - t) * centreline(j) + t * centreline(j + 1);
    INFO("y " << ys[k] << ": u " << u << ", Ghia " << us[k]);
    CHECK(std::fabs(u - us[k]) <= 0.02f);
    worst = std::max(worst, std::fabs(u - us[k]));
  }
  WARN("cavity, Re 100, 64 x 64: largest difference from Ghia et al. " << worst << " U");
}

TEST_CASE("grid parameters and dye out of range are refused by name, the state kept", "[stable][params]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "stir", SceneSetup{}, &err));
  w.advance(1.0f / 60.0f);
  const uint64_t before = w.state_hash();
  const Params good = w.params();
  const std::pair<const char*, float> bad[] = {
      {"grid", 4.0f}, {"grid", 5000.0f}, {"reynolds", 0.0f}, {"dye_rate", -1.0f}, {"lid_speed", 1e9f}, {"advection", 7.0f}};
  for (const auto& [name, value] : bad) {
    Params p = good;
    find_param(name)->set(p, value);
    const std::vector<std::string> problems = w.set_params(p);
    INFO(name << " = " << value);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].rfind(name, 0) == 0);
    CHECK(w.params().grid == good.grid);
  }
  CHECK_FALSE(w.fill_dye(Box{{0.0f, 0.0f}, {1.0f, 1.0f}}, {-1.0f, 0.0f, 0.0f}));
  CHECK_FALSE(w.fill_dye(Box{{0.0f, 0.0f}, {1.0f, 1.0f}}, {NAN, 0.0f, 0.0f}));
  CHECK(w.state_hash() == before);
  SceneSetup with_particles;
  with_particles.particles = 100;
  CHECK_FALSE(load_scene(w, "cavity", with_particles, &err));
  CHECK(err.find("grid scene") != std::string::npos);
  CHECK(w.state_hash() == before);
}

TEST_CASE("a new grid size keeps the flow, and a switch from particles takes the water up", "[stable]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "stir", SceneSetup{}, &err));
  PointerForce f;
  f.position = {2.0f, 1.5f};
  f.velocity = {1.0f, 0.0f};
  f.radius = 0.5f;
  f.stir = 10.0f;
  for (int k = 0; k < 30; ++k) {
    w.set_pointers({f});
    w.advance(1.0f / 60.0f);
  }
  auto dye_area = [&] {
    const FieldView& g = *w.field();
    double sum = 0.0;
    for (int c = 0; c < g.nx * g.ny; ++c) sum += g.dye[0][c] + g.dye[1][c] + g.dye[2][c];
    return sum * g.cell * g.cell;
  };
  const double before = dye_area();
  const float speed = w.last_stats().max_speed;
  Params p = w.params();
  p.grid = 96;
  REQUIRE(w.set_params(p).empty());
  w.set_pointers({});
  w.step(1e-4f);  // a step refits the grid
  CHECK(w.field()->nx == 96);
  CHECK(dye_area() == Approx(before).epsilon(0.03));
  CHECK(w.last_stats().max_speed == Approx(speed).epsilon(0.2));

  // From a particle scene: the grid starts with the water's dye where the
  // particles are, and the particles wait, unmoved, for a particle solver.
  World d;
  REQUIRE(load_scene(d, "dam-break", SceneSetup{1000}, &err));
  const Particles particles = d.particles();
  p = d.params();
  p.solver = Solver::Stable;
  p.grid = 64;
  REQUIRE(d.set_params(p).empty());
  for (int k = 0; k < 10; ++k) d.advance(1.0f / 60.0f);
  const FieldView& g = *d.field();
  auto blue_at = [&](float x, float y) {
    const int i = static_cast<int>((x - g.origin.x) / g.cell), j = static_cast<int>((y - g.origin.y) / g.cell);
    return g.dye[2][j * g.nx + i];
  };
  CHECK(blue_at(0.5f, 1.0f) > 0.5f);   // inside the column
  CHECK(blue_at(3.5f, 2.5f) == 0.0f);  // far from it
  REQUIRE(d.count() == particles.size());
  CHECK(d.particles().x[0] == particles.x[0]);
}

TEST_CASE("a storm of pointer forces leaves a grid finite and within max_speed", "[stable][flip][safety]") {
  // Strengths near float's limit: without the faces' safety net
  // (MacGrid::contain) the forces overflow to inf, the projection to NaN,
  // and a NaN trace indexes outside the grid.
  for (const char* scene : {"stir", "dam-break"}) {
    World w;
    std::string err;
    SceneSetup setup;
    if (std::string(scene) == "dam-break") setup.particles = 800;
    REQUIRE(load_scene(w, scene, setup, &err));
    Params p = w.params();
    if (std::string(scene) == "dam-break") p.solver = Solver::Flip;
    REQUIRE(w.set_params(p).empty());
    INFO(scene);
    bool contained = false;
    for (int k = 0; k < 20; ++k) {
      PointerForce f;
      f.position = {1.0f + 0.05f * k, 1.0f};
      f.velocity = {3e37f, -3e37f};
      f.radius = 1.0f;
      f.strength = k % 2 ? 3e38f : -3e38f;
      f.stir = 3e38f;
      w.set_pointers({f});
      const FrameStats st = w.advance(1.0f / 60.0f);
      contained = contained || st.contained;
      REQUIRE(std::isfinite(st.max_speed));
      REQUIRE(std::isfinite(st.kinetic_energy));
    }
    CHECK(contained);
    const float vmax = w.params().max_speed;
    if (const FieldView* g = w.field()) {
      for (int c = 0; c < g->nx * g->ny; ++c) {
        REQUIRE(std::isfinite(g->pressure[c]));
        // Cell-centre velocities are means of two faces, each within max_speed.
        REQUIRE(std::hypot(g->u[c], g->v[c]) <= vmax * 1.4143f);
      }
    }
    // Every face of the grid the solver steps on (stable fluids' and
    // FLIP's alike) holds a finite velocity within max_speed.
    const FieldView* g = w.faces();
    REQUIRE(g != nullptr);
    for (int k = 0; k < (g->nx + 1) * g->ny; ++k) REQUIRE(std::fabs(g->u_faces[k]) <= vmax);
    for (int k = 0; k < g->nx * (g->ny + 1); ++k) REQUIRE(std::fabs(g->v_faces[k]) <= vmax);
    const Particles& q = w.particles();
    for (int i = 0; i < q.size(); ++i) {
      REQUIRE(std::isfinite(q.x[i]));
      REQUIRE(std::isfinite(q.vx[i]));
      REQUIRE(std::hypot(q.vx[i], q.vy[i]) <= vmax * 1.001f);
    }
  }
}
