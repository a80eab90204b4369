// Tidepool app — the measurements the page's stats() and the native summary
// line report, taken when asked: the water's mean position and what each
// pointer reaches (tests use both to see that input acts on the fluid).
#include "app.h"

namespace tidepool::app {

glm::vec2 water_mean(const tidepool::World& world) {
  if (world.field()) return glm::vec2(0.0f);
  const tidepool::Particles& p = world.particles();
  const int n = p.size();
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < n; ++i) {
    sx += p.x[i];
    sy += p.y[i];
  }
  return n > 0 ? glm::vec2(static_cast<float>(sx / n), static_cast<float>(sy / n)) : glm::vec2(0.0f);
}

std::vector<PointerReport> pointer_reports(const App& app) {
  std::vector<PointerReport> out;
  const tidepool::FieldView* g = app.world.field();
  const tidepool::Particles& p = app.world.particles();
  for (const tidepool::PointerForce& f : app.forces) {
    int affected = 0;
    glm::vec2 v(0.0f);
    const float r2 = f.radius * f.radius;
    auto reach = [&](glm::vec2 at, glm::vec2 velocity) {
      const glm::vec2 d = at - f.position;
      if (d.x * d.x + d.y * d.y > r2) return;
      ++affected;
      v += velocity;
    };
    if (g) {
      // A grid's fluid cells.
      for (int j = 0; j < g->ny; ++j)
        for (int i = 0; i < g->nx; ++i) {
          const int c = j * g->nx + i;
          if (!(g->solid && g->solid[c])) reach(g->origin + (glm::vec2(i, j) + 0.5f) * g->cell, {g->u[c], g->v[c]});
        }
    } else {
      for (int i = 0; i < p.size(); ++i) reach({p.x[i], p.y[i]}, {p.vx[i], p.vy[i]});
    }
    out.push_back({f.position, affected, affected > 0 ? v / static_cast<float>(affected) : v, f.velocity});
  }
  return out;
}

}  // namespace tidepool::app
