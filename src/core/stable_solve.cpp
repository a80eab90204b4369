// Stable fluids' transport and solves: semi-Lagrangian and MacCormack
// advection, implicit viscosity, and the pressure projection.
#include <algorithm>
#include <cmath>

#include "neighbour_grid.h"  // TIDEPOOL_INLINE
#include "stable.h"
#include "state.h"

namespace tidepool {

// --- Sampling -----------------------------------------------------------------

namespace {

// *to = from, the copy split over the threads.
void copy_over(const std::vector<float>& from, std::vector<float>* to, const Loops& loops) {
  to->resize(from.size());
  loops.copy(from.data(), static_cast<int>(from.size()), to->data());
}

// The bilinear blend of the four samples a (i, j), b (i + 1, j), c (i, j + 1),
// d (i + 1, j + 1) at fractions (tx, ty), and their range (MacCormack's
// limiter) when lo is given.
inline float blend(float a, float b, float c, float d, float tx, float ty, float* lo, float* hi) {
  if (lo) {
    *lo = std::min(std::min(a, b), std::min(c, d));
    *hi = std::max(std::max(a, b), std::max(c, d));
  }
  return (1.0f - ty) * ((1.0f - tx) * a + tx * b) + ty * ((1.0f - tx) * c + tx * d);
}

}  // namespace

// u's rows lie half a cell inside the floor and the lid: beyond them the
// no-slip ghost row is 2 u_wall - u of the last row (u_wall 0 at the
// floor, the lid's speed at the top).
TIDEPOOL_INLINE float StableFluids::sample_u(const std::vector<float>& u, glm::vec2 p, float* lo, float* hi) const {
  const int nx = g_.nx, ny = g_.ny, w = nx + 1;
  const float fx = std::clamp((p.x - g_.origin.x) / g_.dx, 0.0f, static_cast<float>(nx));
  const float fy = std::clamp((p.y - g_.origin.y) / g_.dx - 0.5f, -0.5f, float(ny) - 0.5f);
  const int i = std::min(static_cast<int>(fx), nx - 1);
  const int j = static_cast<int>(std::floor(fy));
  const float* r0 = u.data() + std::max(j, 0) * w + i;
  const float* r1 = u.data() + std::min(j + 1, ny - 1) * w + i;
  const float s0 = j < 0 ? -1.0f : 1.0f, s1 = j + 1 >= ny ? -1.0f : 1.0f;
  const float o1 = j + 1 >= ny ? 2.0f * lid_ : 0.0f;
  return blend(s0 * r0[0], s0 * r0[1], o1 + s1 * r1[0], o1 + s1 * r1[1], fx - float(i), fy - float(j), lo, hi);
}

// v's columns lie half a cell inside the side walls: beyond them the
// no-slip ghost column is -v of the last one.
TIDEPOOL_INLINE float StableFluids::sample_v(const std::vector<float>& v, glm::vec2 p, float* lo, float* hi) const {
  const int nx = g_.nx, ny = g_.ny;
  const float fx = std::clamp((p.x - g_.origin.x) / g_.dx - 0.5f, -0.5f, float(nx) - 0.5f);
  const float fy = std::clamp((p.y - g_.origin.y) / g_.dx, 0.0f, static_cast<float>(ny));
  const int i = static_cast<int>(std::floor(fx));
  const int j = std::min(static_cast<int>(fy), ny - 1);
  const int i0 = std::max(i, 0), i1 = std::min(i + 1, nx - 1);
  const float s0 = i < 0 ? -1.0f : 1.0f, s1 = i + 1 >= nx ? -1.0f : 1.0f;
  const float* r0 = v.data() + j * nx;
  const float* r1 = r0 + nx;
  return blend(s0 * r0[i0], s1 * r0[i1], s0 * r1[i0], s1 * r1[i1], fx - float(i), fy - float(j), lo, hi);
}

// Cell values beyond the outer centres repeat the last ones.
TIDEPOOL_INLINE float StableFluids::sample_cell(const std::vector<float>& f, glm::vec2 p, float* lo, float* hi) const {
  const int nx = g_.nx, ny = g_.ny;
  const float fx = std::clamp((p.x - g_.origin.x) / g_.dx - 0.5f, 0.0f, float(nx - 1));
  const float fy = std::clamp((p.y - g_.origin.y) / g_.dx - 0.5f, 0.0f, float(ny - 1));
  const int i = static_cast<int>(fx), j = static_cast<int>(fy);
  const int i1 = std::min(i + 1, nx - 1), j1 = std::min(j + 1, ny - 1);
  const float* r0 = f.data() + j * nx;
  const float* r1 = f.data() + j1 * nx;
  return blend(r0[i], r0[i1], r1[i], r1[i1], fx - float(i), fy - float(j), lo, hi);
}

TIDEPOOL_INLINE glm::vec2 StableFluids::trace(glm::vec2 p, glm::vec2 here, float dt) const {
  const glm::vec2 mid = p - 0.5f * dt * here;
  return p - dt * velocity_at(mid);
}

// --- Advection ----------------------------------------------------------------

// The entries an advection moves: columns [i0, i1) of rows [j0, j1) of a
// w-wide array, less those where mask (if given) is nonzero; entry (i, j)
// sits at (i + ox, j + oy) cells from the grid's origin.
struct Span {
  int w, i0, i1, j0, j1;
  float ox, oy;
  const uint8_t* mask;
  bool moves(int k) const { return !mask || !mask[k]; }
};

// The departure points of a span's entries: from = where the backtrace
// lands, and for MacCormack to = where the forward trace lands, taken as
// the backtrace mirrored through the entry: for a smooth flow the two
// differ by dt^2 (u . grad) u, within MacCormack's second-order error, at
// half the cost of a second trace.
template <class Here>
void trace_all(const StableFluids& f, const MacGrid& g, const Span& s, const Here& here, float dt, bool maccormack,
               std::vector<glm::vec2>* from, std::vector<glm::vec2>* to, const Loops& loops) {
  const size_t n = static_cast<size_t>(s.w) * static_cast<size_t>(s.j1 + 1);
  from->resize(n);
  to->resize(n);
  loops.rows(s.j1 - s.j0, s.i1 - s.i0, [&](int r0, int r1) {
    for (int j = s.j0 + r0; j < s.j0 + r1; ++j)
      for (int i = s.i0; i < s.i1; ++i) {
        const int k = j * s.w + i;
        if (!s.moves(k)) continue;
        const glm::vec2 p = g.origin + g.dx * glm::vec2(float(i) + s.ox, float(j) + s.oy);
        (*from)[k] = f.trace(p, here(i, j), dt);
        if (maccormack) (*to)[k] = 2.0f * p - (*from)[k];
      }
  });
}

// Advects `old` into *out through the departure points of trace_all,
// sampling with sample(field, p, lo, hi); the entries outside the span
// keep their values. Semi-Lagrangian: the value where the backtrace lands
// (Stam 1999). MacCormack (Selle et al. 2008): that forward value
// corrected by half the error a backward pass finds, phi + (phi_n -
// back) / 2, and reverted to the forward value where the correction leaves
// the range of the samples it came from, which keeps it free of new
// extrema.
template <class Sample>
void advect(const Span& s, const Sample& sample, const std::vector<float>& old, std::vector<float>* out,
            bool maccormack, const std::vector<glm::vec2>& from, const std::vector<glm::vec2>& to,
            std::vector<float>* forward, std::vector<float>* lo, std::vector<float>* hi, const Loops& loops) {
  copy_over(old, out, loops);
  forward->resize(old.size());
  lo->resize(old.size());
  hi->resize(old.size());
  loops.rows(s.j1 - s.j0, s.i1 - s.i0, [&](int r0, int r1) {
    for (int j = s.j0 + r0; j < s.j0 + r1; ++j)
      for (int k = j * s.w + s.i0; k < j * s.w + s.i1; ++k)
        if (s.moves(k)) (*out)[k] = (*forward)[k] = sample(old, from[k], &(*lo)[k], &(*hi)[k]);
  });
  if (!maccormack) return;
  loops.rows(s.j1 - s.j0, s.i1 - s.i0, [&](int r0, int r1) {
    for (int j = s.j0 + r0; j < s.j0 + r1; ++j)
      for (int k = j * s.w + s.i0; k < j * s.w + s.i1; ++k) {
        if (!s.moves(k)) continue;
        const float back = sample(*forward, to[k], nullptr, nullptr);
        const float corrected = (*forward)[k] + 0.5f * (old[k] - back);
        (*out)[k] = corrected < (*lo)[k] || corrected > (*hi)[k] ? (*forward)[k] : corrected;
      }
  });
}

void StableFluids::advect_velocity(const Params& P, float dt, const Loops& loops) {
  copy_over(g_.u, &u0_, loops);
  copy_over(g_.v, &v0_, loops);
  const bool mc = P.advection == Advection::MacCormack;
  const int nx = g_.nx, ny = g_.ny;
  // The walls' faces (u's first and last columns, v's first and last rows) stay put.
  const Span u_span{nx + 1, 1, nx, 0, ny, 0.0f, 0.5f, nullptr};
  const Span v_span{nx, 0, nx, 1, ny, 0.5f, 0.0f, nullptr};
  auto su = [&](const std::vector<float>& f, glm::vec2 p, float* lo, float* hi) { return sample_u(f, p, lo, hi); };
  auto sv = [&](const std::vector<float>& f, glm::vec2 p, float* lo, float* hi) { return sample_v(f, p, lo, hi); };
  // The velocity at a face from its own component and the average of the
  // four nearest of the other (the walls' faces lie outside the spans).
  auto at_u = [&](int i, int j) {
    const float* v = v0_.data();
    return glm::vec2(u0_[g_.u_index(i, j)], 0.25f * (v[g_.v_index(i - 1, j)] + v[g_.v_index(i, j)] +
                                                   v[g_.v_index(i - 1, j + 1)] + v[g_.v_index(i, j + 1)]));
  };
  auto at_v = [&](int i, int j) {
    const float* u = u0_.data();
    return glm::vec2(0.25f * (u[g_.u_index(i, j - 1)] + u[g_.u_index(i + 1, j - 1)] + u[g_.u_index(i, j)] +
                              u[g_.u_index(i + 1, j)]),
                     v0_[g_.v_index(i, j)]);
  };
  trace_all(*this, g_, u_span, at_u, dt, mc, &from_, &to_, loops);
  advect(u_span, su, u0_, &g_.u, mc, from_, to_, &scratch_, &lo_, &hi_, loops);
  trace_all(*this, g_, v_span, at_v, dt, mc, &from_, &to_, loops);
  advect(v_span, sv, v0_, &g_.v, mc, from_, to_, &scratch_, &lo_, &hi_, loops);
  close_solid_faces(loops);
}

// The dye, through the divergence-free velocity of this step (the three
// channels share their departure points); solid cells hold none, and no
// scheme leaves a negative amount.
void StableFluids::advect_dye(const Params& P, float dt, const Loops& loops) {
  copy_over(g_.u, &u0_, loops);
  copy_over(g_.v, &v0_, loops);
  const bool mc = P.advection == Advection::MacCormack;
  const Span span{g_.nx, 0, g_.nx, 0, g_.ny, 0.5f, 0.5f, solid_.data()};
  auto sc = [&](const std::vector<float>& f, glm::vec2 p, float* lo, float* hi) { return sample_cell(f, p, lo, hi); };
  auto at_cell = [&](int i, int j) {
    return 0.5f * glm::vec2(u0_[g_.u_index(i, j)] + u0_[g_.u_index(i + 1, j)],
                            v0_[g_.v_index(i, j)] + v0_[g_.v_index(i, j + 1)]);
  };
  trace_all(*this, g_, span, at_cell, dt, mc, &from_, &to_, loops);
  for (int ch = 0; ch < 3; ++ch) {
    copy_over(dye_[ch], &dye0_[ch], loops);
    advect(span, sc, dye0_[ch], &dye_[ch], mc, from_, to_, &scratch_, &lo_, &hi_, loops);
    float* d = dye_[ch].data();
    loops.parallel(
        static_cast<int>(dye_[ch].size()),
        [&](int begin, int end) {
          for (int k = begin; k < end; ++k) d[k] = std::max(d[k], 0.0f);
        },
        1);
  }
}

// --- Viscosity ----------------------------------------------------------------

// nu = U L / Re, with U the lid's speed (1 m/s without a lid) and L the
// box's height.
void StableFluids::diffuse(const WorldState& s, float dt, FrameStats& st) {
  const Params& P = s.params;
  const float speed = lid_ != 0.0f ? std::fabs(lid_) : 1.0f;
  const float nu = speed * g_.height() / P.reynolds;
  const float a = nu * dt / (g_.dx * g_.dx);
  if (!(a > 1e-7f)) return;
  const int nx = g_.nx, ny = g_.ny;
  auto open_u = [&](int i, int j) { return i > 0 && i < nx && !solid_[g_.cell(i - 1, j)] && !solid_[g_.cell(i, j)]; };
  auto open_v = [&](int i, int j) { return j > 0 && j < ny && !solid_[g_.cell(i, j - 1)] && !solid_[g_.cell(i, j)]; };
  // The masks by rows, each row's task its own row's entries.
  free_.resize(g_.u.size());
  s.loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i <= nx; ++i) free_[g_.u_index(i, j)] = open_u(i, j);
  });
  // Walls by side: left, right, bottom, top. u meets only the floor and
  // the lid beyond its ends, v only the side walls.
  const float u_walls[4] = {0.0f, 0.0f, 0.0f, lid_};
  const float v_walls[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const FaceRect fu{0, 0, nx + 1, ny}, fv{0, 0, nx, ny + 1};
  const double reserve = shared_least(s);
  st.work += diffuse_faces(&g_.u, nx + 1, ny, free_, u_walls, a, passes_within(st, double(fu.cells()), kViscousIterations, reserve), fu,
                           &scratch_, s.loops);
  free_.resize(g_.v.size());
  s.loops.rows(ny + 1, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) free_[g_.v_index(i, j)] = open_v(i, j);
  });
  st.work += diffuse_faces(&g_.v, nx, ny + 1, free_, v_walls, a, passes_within(st, double(fv.cells()), kViscousIterations, reserve), fv,
                           &scratch_, s.loops);
}

// --- Projection ---------------------------------------------------------------

void StableFluids::project(const WorldState& s, FrameStats& st) {
  const Params& P = s.params;
  const int cap = passes_within(st, static_cast<double>(g_.nx) * g_.ny, P.pressure_iterations, shared_least(s));
  tidepool::project(&g_, type_, P.pressure_tolerance, cap, s.loops, &poisson_, &phi_, &rhs_, nullptr, P.max_speed)
      .record(st);
}

}  // namespace tidepool
