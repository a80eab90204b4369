// World::problem: the promises the state keeps after any step, in words
// where one is broken. The soak checks them after every frame of its play,
// the page's tidepool.check() after every action of its fuzz.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tidepool/world.h"

namespace tidepool {

namespace {

// 9 significant digits: the float itself.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool inside(const Box& box, glm::vec2 p) {
  return p.x >= box.min.x && p.x <= box.max.x && p.y >= box.min.y && p.y <= box.max.y;
}

std::string box_text(const Box& box) {
  return "[" + num(box.min.x) + ", " + num(box.max.x) + "] x [" + num(box.min.y) + ", " + num(box.max.y) + "]";
}

}  // namespace

std::string World::problem() const {
  const Particles& p = particles();
  const Box& b = box();
  auto particle = [&](int i) {
    return "particle " + std::to_string(i) + " (id " + std::to_string(p.id[i]) + ", x " + num(p.x[i]) + ", y " +
           num(p.y[i]) + ", v (" + num(p.vx[i]) + ", " + num(p.vy[i]) + "), rho " + num(p.density[i]) + ", p " +
           num(p.pressure[i]) + ")";
  };
  for (int i = 0; i < count(); ++i) {
    for (float v : {p.x[i], p.y[i], p.vx[i], p.vy[i], p.density[i], p.pressure[i]})
      if (!std::isfinite(v)) return particle(i) + " is not finite";
    if (!inside(b, {p.x[i], p.y[i]})) return particle(i) + " is outside the box " + box_text(b);
  }
  std::vector<uint32_t> ids(p.id.begin(), p.id.end());
  std::sort(ids.begin(), ids.end());
  const auto twin = std::adjacent_find(ids.begin(), ids.end());
  if (twin != ids.end()) return "two particles share id " + std::to_string(*twin);

  // (A frame may take no substep: time left over from the last one.)
  const FieldView* g = field();
  if (params().solver == Solver::Stable && last_stats().substeps > 0 && !g) return "no grid after a stable fluids step";
  if (g) {
    if (g->nx <= 0 || g->ny <= 0) return "a grid of " + std::to_string(g->nx) + " x " + std::to_string(g->ny);
    for (int c = 0; c < g->nx * g->ny; ++c) {
      if (!std::isfinite(g->u[c]) || !std::isfinite(g->v[c]) || !std::isfinite(g->pressure[c]))
        return "cell " + std::to_string(c) + " is not finite: u " + num(g->u[c]) + ", v " + num(g->v[c]) + ", p " +
               num(g->pressure[c]);
      for (int k = 0; k < 3; ++k)
        if (!(g->dye[k][c] >= 0.0f) || !std::isfinite(g->dye[k][c]))
          return "cell " + std::to_string(c) + " has dye " + std::to_string(k) + " = " + num(g->dye[k][c]);
    }
  }

  // Box2D keeps a body's outline a spacing off the walls: its centroid is
  // well inside.
  for (const Body& body : bodies()) {
    for (float v : {body.position.x, body.position.y, body.angle, body.velocity.x, body.velocity.y, body.omega})
      if (!std::isfinite(v)) return "body " + std::to_string(body.id) + " is not finite";
    if (!inside(b, body.position))
      return "body " + std::to_string(body.id) + " left the box " + box_text(b) + ": at " + num(body.position.x) +
             " " + num(body.position.y);
  }
  return "";
}

}  // namespace tidepool
