// Tidepool app — the measurements the tests read: the water's mean
// position and what each pointer reaches, taken once a frame into
// App::stats (stats_json() and the native summary line report them).
#include "app.h"

namespace tidepool::app {

namespace {

// A grid's share of measure(): the fluid cells each pointer reaches, and
// their mean velocity.
void measure_grid(App& app, const tidepool::FieldView& g) {
  app.stats.mean = glm::vec2(0.0f);
  app.stats.pointers.clear();
  for (const tidepool::PointerForce& f : app.forces) {
    int affected = 0;
    glm::vec2 v(0.0f);
    const float r2 = f.radius * f.radius;
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const int c = j * g.nx + i;
        const glm::vec2 d = g.origin + (glm::vec2(i, j) + 0.5f) * g.cell - f.position;
        if (d.x * d.x + d.y * d.y > r2 || (g.solid && g.solid[c])) continue;
        ++affected;
        v += glm::vec2(g.u[c], g.v[c]);
      }
    app.stats.pointers.push_back(
        {f.position, affected, affected > 0 ? v / static_cast<float>(affected) : v, f.velocity});
  }
}

}  // namespace

// Mean position, and how many particles (cells of a grid) each pointer
// reaches (tests use both to see that input acts on the fluid).
void measure(App& app) {
  if (const tidepool::FieldView* g = app.world.field()) {
    measure_grid(app, *g);
    return;
  }
  const tidepool::Particles& p = app.world.particles();
  const int n = p.size();
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < n; ++i) {
    sx += p.x[i];
    sy += p.y[i];
  }
  app.stats.mean = n > 0 ? glm::vec2(static_cast<float>(sx / n), static_cast<float>(sy / n)) : glm::vec2(0.0f);
  app.stats.pointers.clear();
  for (const tidepool::PointerForce& f : app.forces) {
    int affected = 0;
    glm::vec2 v(0.0f);
    const float r2 = f.radius * f.radius;
    for (int i = 0; i < n; ++i) {
      const float dx = p.x[i] - f.position.x, dy = p.y[i] - f.position.y;
      if (dx * dx + dy * dy <= r2) {
        ++affected;
        v += glm::vec2(p.vx[i], p.vy[i]);
      }
    }
    app.stats.pointers.push_back(
        {f.position, affected, affected > 0 ? v / static_cast<float>(affected) : v, f.velocity});
  }
}

}  // namespace tidepool::app
