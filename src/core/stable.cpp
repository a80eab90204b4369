// Stable fluids: the step, the grid, forces and the fields' view (the
// transport and the solves are in stable_solve.cpp).
#include "stable.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "boundary.h"
#include "pointers.h"
#include "state.h"

namespace tidepool {

// --- The step -----------------------------------------------------------------

void StableFluids::step(WorldState& s, float dt, StageClock& clock, FrameStats& st) {
  const Params& P = s.params;
  fit(s);
  // Work: each advection a pass over the cells per field it carries (two
  // with MacCormack's correction), the viscous and Poisson solves their
  // own (diffuse_faces, project).
  const double cells = static_cast<double>(g_.nx) * g_.ny;
  const double carry = P.advection == Advection::MacCormack ? 2.0 : 1.0;
  advect_velocity(P, dt, s.loops);
  st.work += 2.0 * carry * cells;
  clock.lap(kStageIntegrate);
  diffuse(s, dt, st);
  // The forces last before the projection: a force that is a gradient (a
  // uniform lift, the hydrostatic part of any body force) then leaves no
  // trace at all, where the viscous step would have turned it into a
  // current along the no-slip walls.
  add_forces(s, dt);
  if (P.vorticity > 0.0f) confine_vorticity(P.vorticity, dt, s.loops);
  close_solid_faces(s.loops);
  clock.lap(kStageForces);
  project(s, st);
  clock.lap(kStagePressure);
  advect_dye(P, dt, s.loops);
  update_view(P, dt, s.loops);
  st.work += (3.0 * carry + 1.0) * cells;
  st.cells = g_.nx * g_.ny;
  clock.lap(kStageIntegrate);
}

// --- Forces -------------------------------------------------------------------

// Pointers (the particle solvers' law, pointers.h, on each face: a push
// with a linear fall-off and a stir toward the drag velocity) and their dye,
// each pointer its own colour; emitters set the velocity of the cells along
// their line and pour dye there; sinks drain dye; buoyancy lifts dye
// against gravity. Each loop runs by rows: a row's task writes that row's
// faces or cells only, and reads nothing another row's task writes in the
// same loop.
void StableFluids::add_forces(const WorldState& s, float dt) {
  const Params& P = s.params;
  const Loops& loops = s.loops;
  const int nx = g_.nx, ny = g_.ny;
  auto face_force = [&](glm::vec2 at, float vel, glm::vec2 axis) { return pointer_accel(s.pointers, at, vel, axis, dt); };
  // Buoyancy: along -g (straight up without gravity), per unit of mean dye.
  const float g_len = std::sqrt(P.gravity_x * P.gravity_x + P.gravity_y * P.gravity_y);
  const glm::vec2 up = g_len > 0.0f ? glm::vec2(-P.gravity_x, -P.gravity_y) / g_len : glm::vec2(0.0f, 1.0f);
  auto dye_at = [&](int c) { return (dye_[0][c] + dye_[1][c] + dye_[2][c]) / 3.0f; };
  // The faces (these read the dye, which the pointers' loop below then
  // writes): u row j, and v row j for j >= 1, from row j's task.
  loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j) {
      for (int i = 1; i < nx; ++i) {
        float& u = g_.u[g_.u_index(i, j)];
        const glm::vec2 at = g_.u_face(i, j);
        const float lift = P.buoyancy * up.x * 0.5f * (dye_at(g_.cell(i - 1, j)) + dye_at(g_.cell(i, j)));
        u += dt * (face_force(at, u, {1.0f, 0.0f}) + lift);
      }
      if (j == 0) continue;
      for (int i = 0; i < nx; ++i) {
        float& v = g_.v[g_.v_index(i, j)];
        const glm::vec2 at = g_.v_face(i, j);
        const float lift = P.buoyancy * up.y * 0.5f * (dye_at(g_.cell(i, j - 1)) + dye_at(g_.cell(i, j)));
        v += dt * (face_force(at, v, {0.0f, 1.0f}) + lift);
      }
    }
  });
  const float dye = P.dye_rate * dt;
  loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = g_.cell(i, j);
        const glm::vec2 at = g_.centre(i, j);
        for (size_t k = 0; k < s.pointers.size(); ++k) {
          const PointerForce& f = s.pointers[k];
          const glm::vec2 d = at - f.position;
          const float r2 = d.x * d.x + d.y * d.y;
          if (r2 >= f.radius * f.radius) continue;
          const float fall = 1.0f - std::sqrt(r2) / f.radius;
          const glm::vec3 colour = pointer_dye(f, k);
          for (int ch = 0; ch < 3; ++ch) dye_[ch][c] += dye * fall * colour[ch];
        }
        for (const Sink& sink : s.sources.sinks) {
          const glm::vec2 d = at - sink.position;
          if (d.x * d.x + d.y * d.y < sink.radius * sink.radius)
            for (auto& ch : dye_) ch[c] = 0.0f;
        }
      }
  });
  // Emitters: a strip one cell deep (at least) across the jet, one emitter
  // after another (a later one's velocity wins where strips overlap). A
  // cell inside sets the u faces on both its sides and the v faces below
  // and above it. By rows: row j's task adds the dye of its cells and sets
  // the u faces of its row, which only its cells touch, and sets v face
  // (i, j) if cell (i, j) or the cell below it is inside, which is where
  // the jet's cells set it; every face set gets the emitter's velocity, so
  // who sets it does not matter.
  for (size_t k = 0; k < s.sources.emitters.size(); ++k) {
    const Emitter& e = s.sources.emitters[k];
    const float speed = std::sqrt(e.velocity.x * e.velocity.x + e.velocity.y * e.velocity.y);
    if (speed <= 0.0f) continue;
    const glm::vec2 dir = e.velocity / speed, side(-dir.y, dir.x);
    const float depth = std::max(g_.dx, 0.25f * e.width);
    auto inside = [&](glm::vec2 p) {
      const glm::vec2 d = p - e.position;
      return std::fabs(d.x * side.x + d.y * side.y) <= 0.5f * e.width && std::fabs(d.x * dir.x + d.y * dir.y) <= depth;
    };
    const glm::vec3 colour = kDyeColours[(k + 1) % kDyeColours.size()];
    loops.rows(ny, nx, [&](int j0, int j1) {
      for (int j = j0; j < j1; ++j)
        for (int i = 0; i < nx; ++i) {
          const bool here = inside(g_.centre(i, j));
          if (j > 0 && (here || inside(g_.centre(i, j - 1)))) g_.v[g_.v_index(i, j)] = e.velocity.y;
          if (!here) continue;
          const int c = g_.cell(i, j);
          for (int ch = 0; ch < 3; ++ch) dye_[ch][c] += dye * colour[ch];
          if (i > 0) g_.u[g_.u_index(i, j)] = e.velocity.x;
          if (i + 1 < nx) g_.u[g_.u_index(i + 1, j)] = e.velocity.x;
        }
    });
  }
}

// Vorticity confinement (Fedkiw, Stam & Jensen 2001, eq. 9-11): the curl
// w = dv/dx - du/dy at the cell centres, N = grad|w| / |grad|w||, and the
// force epsilon dx (N x w) = epsilon dx (N_y w, -N_x w), which spins up the
// small eddies that the advection's interpolation smears out. Three passes
// by rows, each reading only what an earlier one wrote (the curl, then the
// force from the curl of the rows around, then the faces from the force
// of the cells on either side); a row's task writes its own row's entries.
void StableFluids::confine_vorticity(float epsilon, float dt, const Loops& loops) {
  const int nx = g_.nx, ny = g_.ny;
  loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) {
        const int ip = std::min(i + 1, nx - 1), im = std::max(i - 1, 0);
        const int jp = std::min(j + 1, ny - 1), jm = std::max(j - 1, 0);
        const float dvdx = (cv_[g_.cell(ip, j)] - cv_[g_.cell(im, j)]) / (float(ip - im) * g_.dx);
        const float dudy = (cu_[g_.cell(i, jp)] - cu_[g_.cell(i, jm)]) / (float(jp - jm) * g_.dx);
        vort_[g_.cell(i, j)] = (ip > im ? dvdx : 0.0f) - (jp > jm ? dudy : 0.0f);
      }
  });
  // The force at the centres, zero in the outer ring of cells. resize
  // keeps scratch_'s storage (a step allocates nothing once it has grown),
  // and the pass writes every entry, the ring's zeros included.
  scratch_.resize(2 * static_cast<size_t>(nx) * ny);
  loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j) {
      float* row = scratch_.data() + 2 * static_cast<size_t>(g_.cell(0, j));
      if (j == 0 || j + 1 >= ny) {
        std::fill(row, row + 2 * nx, 0.0f);
        continue;
      }
      row[0] = row[1] = row[2 * nx - 2] = row[2 * nx - 1] = 0.0f;
      for (int i = 1; i + 1 < nx; ++i) {
        const int c = g_.cell(i, j);
        const float gx = std::fabs(vort_[c + 1]) - std::fabs(vort_[c - 1]);
        const float gy = std::fabs(vort_[c + nx]) - std::fabs(vort_[c - nx]);
        const float len = std::sqrt(gx * gx + gy * gy) + 1e-20f;
        scratch_[2 * c] = epsilon * g_.dx * (gy / len) * vort_[c];
        scratch_[2 * c + 1] = -epsilon * g_.dx * (gx / len) * vort_[c];
      }
    }
  });
  // u row j and (j >= 1) v row j from row j's task.
  loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j) {
      for (int i = 1; i < nx; ++i)
        g_.u[g_.u_index(i, j)] += dt * 0.5f * (scratch_[2 * g_.cell(i - 1, j)] + scratch_[2 * g_.cell(i, j)]);
      if (j == 0) continue;
      for (int i = 0; i < nx; ++i)
        g_.v[g_.v_index(i, j)] += dt * 0.5f * (scratch_[2 * g_.cell(i, j - 1) + 1] + scratch_[2 * g_.cell(i, j) + 1]);
    }
  });
}

// The fields at the cell centres, for drawing, output and the next step's
// vorticity: u and v averaged from the faces, the pressure p = rho0 phi / dt.
// The largest squared speed, at a centre or a face, sets the next step's dt
// limit: maxima over loops.max_over's fixed blocks, the cells' block
// writing its cells' fields as it goes. A maximum does not depend on the
// order it is taken in, and NaN counts as 0 (std::max keeps its first
// argument against NaN; order_bits maps NaN to 0's bits), so max_speed_ is
// the serial loop's for any split.
void StableFluids::update_view(const Params& P, float dt, const Loops& loops) {
  const int nx = g_.nx;
  const double cells_max = loops.max_over(g_.nx * g_.ny, [&](int begin, int end) {
    float v2max = 0.0f;
    for (int j = begin / nx; j * nx < end; ++j)
      for (int i = std::max(begin - j * nx, 0), i1 = std::min(end - j * nx, nx); i < i1; ++i) {
        const int c = g_.cell(i, j);
        cu_[c] = 0.5f * (g_.u[g_.u_index(i, j)] + g_.u[g_.u_index(i + 1, j)]);
        cv_[c] = 0.5f * (g_.v[g_.v_index(i, j)] + g_.v[g_.v_index(i, j + 1)]);
        pressure_[c] = finite_float(double(P.rest_density) * phi_[c] / dt);
        v2max = std::max(v2max, cu_[c] * cu_[c] + cv_[c] * cv_[c]);
      }
    return double(v2max);
  });
  auto faces_max = [&](const std::vector<float>& f) {
    return loops.max_over(static_cast<int>(f.size()), [&](int begin, int end) {
      uint32_t bits = 0;
      for (int k = begin; k < end; ++k) bits = std::max(bits, order_bits(f[k] * f[k]));
      return double(from_order_bits(bits));
    });
  };
  const double u_max = faces_max(g_.u), v_max = faces_max(g_.v);
  // Each a float's square widened exactly, so the narrowing is exact too.
  const float v2max = static_cast<float>(std::max(cells_max, std::max(u_max, v_max)));
  max_speed_ = std::max(std::sqrt(v2max), std::fabs(lid_));
}

const FieldView* StableFluids::field() const {
  if (g_.nx == 0) return nullptr;
  view_.nx = g_.nx;
  view_.ny = g_.ny;
  view_.cell = g_.dx;
  view_.origin = g_.origin;
  view_.u = cu_.data();
  view_.v = cv_.data();
  view_.u_faces = g_.u.data();
  view_.v_faces = g_.v.data();
  view_.pressure = pressure_.data();
  for (int k = 0; k < 3; ++k) view_.dye[k] = dye_[k].data();
  view_.solid = solid_.data();
  return &view_;
}

// --- The grid -----------------------------------------------------------------

// Sizes the grid to the box (grid cells along its longer side, square
// cells) and marks the cells inside an obstacle solid. A new size keeps the
// flow: the old grid's velocity and dye are sampled onto the new one. The
// first grid of a world that holds particles (a switch from a particle
// solver) takes them up: their velocity onto the faces, and water-coloured
// dye where they are.
// The grid fit() lays over the box: `grid` cells along its longer side.
StableFluids::Shape StableFluids::shape(const WorldState& s) {
  const glm::vec2 size = s.box.max - s.box.min;
  Shape g;
  g.dx = std::max(size.x, size.y) / static_cast<float>(s.params.grid);
  g.nx = std::max(1, static_cast<int>(std::lround(size.x / g.dx)));
  g.ny = std::max(1, static_cast<int>(std::lround(size.y / g.dx)));
  return g;
}

// The advections (both fields, with MacCormack's correction), and the
// least of each viscous solve and of the projection: an iteration and the
// two passes around it (diffuse_faces, project).
double StableFluids::least_work(const WorldState& s) const {
  const Shape g = shape(s);
  const double carry = s.params.advection == Advection::MacCormack ? 2.0 : 1.0;
  return (5.0 * carry + 1.0 + 3.0 * 3.0) * g.nx * g.ny;
}

double StableFluids::ordinary_work(const WorldState& s) const {
  constexpr double kOrdinaryPasses = 24.0;
  const Shape g = shape(s);
  return kOrdinaryPasses * g.nx * g.ny;
}

void StableFluids::fit(const WorldState& s) {
  const Params& P = s.params;
  if (grid_ != P.grid || box_.min != s.box.min || box_.max != s.box.max) {
    const MacGrid old = g_;
    const std::array<std::vector<float>, 3> old_dye = dye_;
    grid_ = P.grid;
    box_ = s.box;
    const Shape shaped = shape(s);
    const float dx = shaped.dx;
    const int nx = shaped.nx, ny = shaped.ny;
    g_.resize(nx, ny, dx, s.box.min);
    const size_t cells = static_cast<size_t>(nx) * ny;
    for (auto& d : dye_) d.assign(cells, 0.0f);
    for (auto* f : {&phi_, &rhs_, &pressure_, &cu_, &cv_, &vort_}) f->assign(cells, 0.0f);
    solid_.assign(cells, 0);
    type_.assign(cells, kFluidCell);
    max_speed_ = 0.0f;
    if (old.nx > 0) resample(old, old_dye);
    else if (s.particles.size() > 0) take_up(s.particles);
  }
  lid_ = P.lid_speed;
  const std::vector<uint8_t>& inside = solids_.update(g_, s.solids);
  for (size_t c = 0; c < type_.size(); ++c) {
    solid_[c] = inside[c];
    type_[c] = inside[c] ? kSolidCell : kFluidCell;
    if (solid_[c])
      for (auto& d : dye_) d[c] = 0.0f;
  }
  // The bodies' cells (a body moves, so the mask above has them afresh).
  body_cell_.assign(type_.size(), -1);
  bodies_.clear();
  for (const Obstacle& o : s.solids) {
    if (o.body < 0) continue;
    for_cells_inside(g_, o, [&](int c) { body_cell_[c] = static_cast<int>(bodies_.size()); });
    bodies_.push_back(o);
  }
}

namespace {

// A field of w x h samples, entry (i, j) at origin + dx (i + ox, j + oy),
// sampled bilinearly at p (clamped to the samples).
float sample_at(const std::vector<float>& f, int w, int h, glm::vec2 origin, float dx, float ox, float oy, glm::vec2 p) {
  const float fx = std::clamp((p.x - origin.x) / dx - ox, 0.0f, float(w - 1));
  const float fy = std::clamp((p.y - origin.y) / dx - oy, 0.0f, float(h - 1));
  const int i = std::min(static_cast<int>(fx), std::max(w - 2, 0)), j = std::min(static_cast<int>(fy), std::max(h - 2, 0));
  const int i1 = std::min(i + 1, w - 1), j1 = std::min(j + 1, h - 1);
  const float tx = fx - float(i), ty = fy - float(j);
  return (1.0f - ty) * ((1.0f - tx) * f[j * w + i] + tx * f[j * w + i1]) +
         ty * ((1.0f - tx) * f[j1 * w + i] + tx * f[j1 * w + i1]);
}

}  // namespace

void StableFluids::resample(const MacGrid& old, const std::array<std::vector<float>, 3>& old_dye) {
  for (int j = 0; j < g_.ny; ++j)
    for (int i = 0; i <= g_.nx; ++i)
      g_.u[g_.u_index(i, j)] = sample_at(old.u, old.nx + 1, old.ny, old.origin, old.dx, 0.0f, 0.5f, g_.u_face(i, j));
  for (int j = 0; j <= g_.ny; ++j)
    for (int i = 0; i < g_.nx; ++i)
      g_.v[g_.v_index(i, j)] = sample_at(old.v, old.nx, old.ny + 1, old.origin, old.dx, 0.5f, 0.0f, g_.v_face(i, j));
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < g_.ny; ++j)
      for (int i = 0; i < g_.nx; ++i)
        dye_[k][g_.cell(i, j)] = sample_at(old_dye[k], old.nx, old.ny, old.origin, old.dx, 0.5f, 0.5f, g_.centre(i, j));
}

void StableFluids::take_up(const Particles& p) {
  const glm::vec3 water(0.15f, 0.45f, 0.9f);
  std::vector<float> weight_u(g_.u.size(), 0.0f), weight_v(g_.v.size(), 0.0f);
  for (int k = 0; k < p.size(); ++k) {
    const float fx = (p.x[k] - g_.origin.x) / g_.dx, fy = (p.y[k] - g_.origin.y) / g_.dx;
    const int i = std::clamp(static_cast<int>(fx), 0, g_.nx - 1), j = std::clamp(static_cast<int>(fy), 0, g_.ny - 1);
    for (int ch = 0; ch < 3; ++ch) dye_[ch][g_.cell(i, j)] = water[ch];
    const int iu = std::clamp(static_cast<int>(std::lround(fx)), 0, g_.nx), jv = std::clamp(static_cast<int>(std::lround(fy)), 0, g_.ny);
    g_.u[g_.u_index(iu, j)] += p.vx[k];
    weight_u[g_.u_index(iu, j)] += 1.0f;
    g_.v[g_.v_index(i, jv)] += p.vy[k];
    weight_v[g_.v_index(i, jv)] += 1.0f;
  }
  for (size_t f = 0; f < g_.u.size(); ++f) g_.u[f] = weight_u[f] > 0.0f ? g_.u[f] / weight_u[f] : 0.0f;
  for (size_t f = 0; f < g_.v.size(); ++f) g_.v[f] = weight_v[f] > 0.0f ? g_.v[f] / weight_v[f] : 0.0f;
}

// No flow through the box's walls or into a still solid cell; the faces
// of a body's cells take its velocity there, so a moving body stirs the
// dye (the projection holds them as it holds the walls'). By rows: row j's
// task sets u row j (j < ny) and v row j (u has ny rows of faces, v ny + 1),
// from the solid and body masks, which nothing here writes.
void StableFluids::close_solid_faces(const Loops& loops) {
  const int nx = g_.nx, ny = g_.ny;
  auto body = [&](int i, int j) { return bodies_.empty() ? -1 : body_cell_[g_.cell(i, j)]; };
  loops.rows(ny + 1, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j) {
      if (j < ny)
        for (int i = 0; i <= nx; ++i) {
          const bool open = i > 0 && i < nx && !solid_[g_.cell(i - 1, j)] && !solid_[g_.cell(i, j)];
          if (open) continue;
          const int k = i > 0 && i < nx ? std::max(body(i - 1, j), body(i, j)) : -1;
          g_.u[g_.u_index(i, j)] = k >= 0 ? bodies_[static_cast<size_t>(k)].velocity_at(g_.u_face(i, j)).x : 0.0f;
        }
      for (int i = 0; i < nx; ++i) {
        const bool open = j > 0 && j < ny && !solid_[g_.cell(i, j - 1)] && !solid_[g_.cell(i, j)];
        if (open) continue;
        const int k = j > 0 && j < ny ? std::max(body(i, j - 1), body(i, j)) : -1;
        g_.v[g_.v_index(i, j)] = k >= 0 ? bodies_[static_cast<size_t>(k)].velocity_at(g_.v_face(i, j)).y : 0.0f;
      }
    }
  });
}

bool StableFluids::fill_dye(const WorldState& s, const Box& region, glm::vec3 colour) {
  fit(s);
  for (int j = 0; j < g_.ny; ++j)
    for (int i = 0; i < g_.nx; ++i) {
      const glm::vec2 c = g_.centre(i, j);
      if (c.x < region.min.x || c.x > region.max.x || c.y < region.min.y || c.y > region.max.y) continue;
      for (int k = 0; k < 3; ++k) dye_[k][g_.cell(i, j)] += colour[k];
    }
  return true;
}

size_t StableFluids::bytes() const {
  size_t floats = g_.u.size() + g_.v.size() + u0_.size() + v0_.size() + scratch_.size() + phi_.size() + rhs_.size() +
                  pressure_.size() + cu_.size() + cv_.size() + vort_.size();
  for (int k = 0; k < 3; ++k) floats += dye_[k].size() + dye0_[k].size();
  return floats * sizeof(float) + type_.size() + solid_.size();
}

std::unique_ptr<FluidSolver> make_stable(const Params&) { return std::make_unique<StableFluids>(); }

}  // namespace tidepool
