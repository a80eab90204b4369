#include "cut_faces.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "boundary.h"  // obstacle_bounds, obstacle_distance

namespace tidepool {
namespace {

// The share of a face inside a solid, from the signed distance at its two
// ends (negative inside), the distance taken as linear along it (Batty
// et al. 2007, sec. 4). Shares below kSliver are taken as none: a face
// open to a sliver of water would give its cell a near-zero diagonal.
constexpr float kSliver = 1e-3f;
float inside_share(float d0, float d1) {
  float s;
  if (d0 < 0.0f && d1 < 0.0f) s = 1.0f;
  else if (d0 >= 0.0f && d1 >= 0.0f) s = 0.0f;
  else s = d0 < 0.0f ? d0 / (d0 - d1) : d1 / (d1 - d0);
  return s < kSliver ? 0.0f : s > 1.0f - kSliver ? 1.0f : s;
}

constexpr int kNone = -1, kWall = -2;

// The velocity solid o has at p, along axis (1, 0) or (0, 1): a body's
// after dt under gravity alone.
float solid_velocity(const Obstacle& o, glm::vec2 p, int axis, float dt, glm::vec2 gravity) {
  if (o.body < 0) return 0.0f;
  const glm::vec2 v = o.velocity_at(p) + dt * gravity;
  return axis == 0 ? v.x : v.y;
}

}  // namespace

void CutFaces::ensure(const MacGrid& g) {
  const size_t nodes = static_cast<size_t>(g.nx + 1) * (g.ny + 1);
  if (node_.size() == nodes && u_share_.size() == g.u.size() && v_share_.size() == g.v.size()) return;
  node_.assign(nodes, std::numeric_limits<float>::infinity());
  node_owner_.assign(nodes, kNone);
  for (auto* f : {&u_share_, &u_solid_}) f->assign(g.u.size(), 0.0f);
  for (auto* f : {&v_share_, &v_solid_}) f->assign(g.v.size(), 0.0f);
  u_owner_.assign(g.u.size(), kNone);
  v_owner_.assign(g.v.size(), kNone);
  open_.assign(static_cast<size_t>(g.nx) * g.ny, 0.0f);
  window_ = {};
}

void CutFaces::update(const MacGrid& g, const std::vector<Obstacle>& solids, CellWindow window, float dt,
                      glm::vec2 gravity) {
  ensure(g);
  const CellWindow w = window.or_whole(g.nx, g.ny);
  window_ = w;
  const int nodes_x = g.nx + 1;
  auto node = [&](int i, int j) { return j * nodes_x + i; };
  // The window's nodes: the nearest solid's distance, those of the solids
  // whose bounds (grown by a cell) hold them.
  for (int j = w.j0; j <= w.j1; ++j)
    for (int i = w.i0; i <= w.i1; ++i) {
      node_[static_cast<size_t>(node(i, j))] = std::numeric_limits<float>::infinity();
      node_owner_[static_cast<size_t>(node(i, j))] = kNone;
    }
  any_ = false;
  for (size_t k = 0; k < solids.size(); ++k) {
    const Obstacle& o = solids[k];
    glm::vec2 lo, hi;
    obstacle_bounds(o, &lo, &hi);
    const int i0 = std::max(w.i0, static_cast<int>(std::floor((lo.x - g.origin.x) / g.dx)) - 1);
    const int j0 = std::max(w.j0, static_cast<int>(std::floor((lo.y - g.origin.y) / g.dx)) - 1);
    const int i1 = std::min(w.i1, static_cast<int>(std::ceil((hi.x - g.origin.x) / g.dx)) + 1);
    const int j1 = std::min(w.j1, static_cast<int>(std::ceil((hi.y - g.origin.y) / g.dx)) + 1);
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i) {
        glm::vec2 normal;
        const float d = obstacle_distance(o, g.origin + g.dx * glm::vec2(float(i), float(j)), &normal);
        const size_t n = static_cast<size_t>(node(i, j));
        if (d < node_[n]) node_[n] = d, node_owner_[n] = static_cast<int>(k);
      }
  }
  // A face's share and owner: the nearer solid of its two ends.
  auto face = [&](int n0, int n1, glm::vec2 at, int axis, float* share, float* velocity, int* owner) {
    const float d0 = node_[static_cast<size_t>(n0)], d1 = node_[static_cast<size_t>(n1)];
    const float inside = inside_share(d0, d1);
    *share = 1.0f - inside;
    *owner = inside > 0.0f ? node_owner_[static_cast<size_t>(d0 <= d1 ? n0 : n1)] : kNone;
    *velocity = *owner >= 0 ? solid_velocity(solids[static_cast<size_t>(*owner)], at, axis, dt, gravity) : 0.0f;
    any_ = any_ || inside > 0.0f;
  };
  for (int j = w.j0; j < w.j1; ++j)
    for (int i = w.i0; i <= w.i1; ++i) {
      const int k = g.u_index(i, j);
      if (i == 0 || i == g.nx) {
        u_share_[k] = 0.0f, u_solid_[k] = 0.0f, u_owner_[k] = kWall;
        continue;
      }
      face(node(i, j), node(i, j + 1), g.u_face(i, j), 0, &u_share_[k], &u_solid_[k], &u_owner_[k]);
    }
  for (int j = w.j0; j <= w.j1; ++j)
    for (int i = w.i0; i < w.i1; ++i) {
      const int k = g.v_index(i, j);
      if (j == 0 || j == g.ny) {
        v_share_[k] = 0.0f, v_solid_[k] = 0.0f, v_owner_[k] = kWall;
        continue;
      }
      face(node(i, j), node(i + 1, j), g.v_face(i, j), 1, &v_share_[k], &v_solid_[k], &v_owner_[k]);
    }
  for (int j = w.j0; j < w.j1; ++j)
    for (int i = w.i0; i < w.i1; ++i)
      open_[static_cast<size_t>(g.cell(i, j))] = 0.25f * (u_share_[g.u_index(i, j)] + u_share_[g.u_index(i + 1, j)] +
                                                          v_share_[g.v_index(i, j)] + v_share_[g.v_index(i, j + 1)]);
}

// The pressure a cut face's solid part feels is the water's at the solid,
// not at the cell's centre: a floating body whose bottom crosses a cell
// would otherwise feel that cell's centre pressure wherever in it the
// bottom lies, and float by cells, not by its own displacement. So each
// face's column is taken at the solid, extrapolated linearly from the cell
// and the fluid cell on its other side: at theta = e - 1/2 cells from the
// centre, e the cell's open extent along the face's axis (the mean open
// share of its two faces across that axis), so J_c gets (1 + theta) of it
// and that neighbour -theta. The same J carries the body's flux into the
// cells, so the system stays symmetric.
void CutFaces::columns(const MacGrid& g, const std::vector<Obstacle>& solids, const std::vector<uint8_t>& type,
                       const std::vector<float>& inverse_mass, const std::vector<float>& inverse_inertia,
                       std::vector<RigidColumns>* out) const {
  out->assign(inverse_mass.size(), RigidColumns{});
  for (size_t b = 0; b < inverse_mass.size(); ++b) {
    (*out)[b].inverse_mass = inverse_mass[b];
    (*out)[b].inverse_inertia = inverse_inertia[b];
  }
  if (!any_) return;
  const CellWindow w = window_;
  const int nx = g.nx, ny = g.ny;
  auto fluid = [&](int i, int j) {
    return i >= 0 && i < nx && j >= 0 && j < ny && type[static_cast<size_t>(g.cell(i, j))] == kFluidCell;
  };
  auto add = [&](int body, int c, glm::vec3 j3) {
    RigidColumns& col = (*out)[static_cast<size_t>(body)];
    col.cells.push_back(c);
    col.j.push_back(j3);
  };
  for (int j = w.j0; j < w.j1; ++j)
    for (int i = w.i0; i < w.i1; ++i) {
      if (!fluid(i, j)) continue;
      const int c = g.cell(i, j);
      const int ul = g.u_index(i, j), ur = g.u_index(i + 1, j), vb = g.v_index(i, j), vt = g.v_index(i, j + 1);
      const float across_u = 0.5f * (v_share_[vb] + v_share_[vt]);  // the extent along x
      const float across_v = 0.5f * (u_share_[ul] + u_share_[ur]);  // along y
      // The cell's faces: owner, closed share, outward sign, axis, centre,
      // the open extent along the axis and the cell on the far side.
      struct Side {
        int owner;
        float closed, sign;
        int axis;
        glm::vec2 at;
        float extent;
        int far_i, far_j;
      };
      const Side sides[4] = {{u_owner_[ul], 1.0f - u_share_[ul], -1.0f, 0, g.u_face(i, j), across_u, i + 1, j},
                             {u_owner_[ur], 1.0f - u_share_[ur], 1.0f, 0, g.u_face(i + 1, j), across_u, i - 1, j},
                             {v_owner_[vb], 1.0f - v_share_[vb], -1.0f, 1, g.v_face(i, j), across_v, i, j + 1},
                             {v_owner_[vt], 1.0f - v_share_[vt], 1.0f, 1, g.v_face(i, j + 1), across_v, i, j - 1}};
      for (const Side& s : sides) {
        if (s.owner < 0 || s.closed <= 0.0f) continue;
        const Obstacle& o = solids[static_cast<size_t>(s.owner)];
        if (o.body < 0 || static_cast<size_t>(o.body) >= out->size()) continue;
        const glm::vec2 n = s.axis == 0 ? glm::vec2(1.0f, 0.0f) : glm::vec2(0.0f, 1.0f);
        const glm::vec2 r = s.at - o.a;
        const glm::vec3 j3 = s.sign * s.closed * g.dx * glm::vec3(n.x, n.y, r.x * n.y - r.y * n.x);
        const float theta = std::clamp(s.extent, 0.0f, 1.0f) - 0.5f;
        if (!fluid(s.far_i, s.far_j)) {
          add(o.body, c, j3);
          continue;
        }
        add(o.body, c, (1.0f + theta) * j3);
        add(o.body, g.cell(s.far_i, s.far_j), -theta * j3);
      }
    }
}

void CutFaces::move_bodies(const MacGrid& g, const std::vector<Obstacle>& solids,
                           const std::vector<glm::vec3>& velocity) {
  if (!any_) return;
  const CellWindow w = window_;
  auto moved = [&](int owner, glm::vec2 at, int axis, float* v) {
    if (owner < 0) return;
    const Obstacle& o = solids[static_cast<size_t>(owner)];
    if (o.body < 0 || static_cast<size_t>(o.body) >= velocity.size()) return;
    const glm::vec3 u = velocity[static_cast<size_t>(o.body)];
    const glm::vec2 at_p = glm::vec2(u.x, u.y) + u.z * glm::vec2(o.a.y - at.y, at.x - o.a.x);
    *v = axis == 0 ? at_p.x : at_p.y;
  };
  for (int j = w.j0; j < w.j1; ++j)
    for (int i = w.i0; i <= w.i1; ++i) moved(u_owner_[g.u_index(i, j)], g.u_face(i, j), 0, &u_solid_[g.u_index(i, j)]);
  for (int j = w.j0; j <= w.j1; ++j)
    for (int i = w.i0; i < w.i1; ++i) moved(v_owner_[g.v_index(i, j)], g.v_face(i, j), 1, &v_solid_[g.v_index(i, j)]);
}

}  // namespace tidepool
