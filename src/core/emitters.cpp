#include "emitters.h"

#include <algorithm>
#include <cmath>

#include "state.h"
#include "tidepool/geometry.h"
#include "tidepool/world.h"

namespace tidepool {

int Sources::add_emitter(const Emitter& e, int* next_id) {
  if (!finite2(e.position) || !finite2(e.velocity) || !std::isfinite(e.width) || e.width <= 0.0f)
    return -1;
  emitters.push_back(e);
  emitters.back().id = (*next_id)++;
  rows_owed.push_back(0.0f);
  row_slot.push_back(0);
  return emitters.back().id;
}

int Sources::add_sink(const Sink& s, int* next_id) {
  if (!finite2(s.position) || !std::isfinite(s.radius) || s.radius <= 0.0f) return -1;
  sinks.push_back(s);
  sinks.back().id = (*next_id)++;
  return sinks.back().id;
}

bool Sources::remove_emitter(int id) {
  for (size_t k = 0; k < emitters.size(); ++k) {
    if (emitters[k].id != id) continue;
    emitters.erase(emitters.begin() + static_cast<long>(k));
    rows_owed.erase(rows_owed.begin() + static_cast<long>(k));
    row_slot.erase(row_slot.begin() + static_cast<long>(k));
    return true;
  }
  return false;
}

bool Sources::remove_sink(int id) { return remove_by_id(sinks, id); }

void emit_and_sink(WorldState& s, float dt) {
  Particles& p = s.particles;
  Sources& src = s.sources;
  if (!src.sinks.empty() && p.size() > 0) {
    src.keep.assign(static_cast<size_t>(p.size()), 1);
    bool any = false;
    for (int i = 0; i < p.size(); ++i) {
      for (const Sink& sink : src.sinks) {
        const float dx = p.x[i] - sink.position.x, dy = p.y[i] - sink.position.y;
        if (dx * dx + dy * dy < sink.radius * sink.radius) {
          src.keep[i] = 0;
          any = true;
        }
      }
    }
    if (any) s.compact(src.keep);
  }
  const float spacing = s.spacing();
  // A full tank takes no more water (fit_problems): its particles would be
  // laid over one another.
  const int full = tank_capacity(s.params, s.box);
  for (size_t k = 0; k < src.emitters.size(); ++k) {
    const Emitter& em = src.emitters[k];
    const float asked = std::sqrt(em.velocity.x * em.velocity.x + em.velocity.y * em.velocity.y);
    if (asked <= 0.0f || p.size() >= std::min(em.limit, full)) continue;
    // No faster than the safety net lets any particle go (safety.cpp).
    const float speed = std::min(asked, s.params.max_speed);
    const glm::vec2 dir = em.velocity / asked, side(-dir.y, dir.x), velocity = speed * dir;
    const int per_row = std::max(1, static_cast<int>(em.width / spacing));
    src.rows_owed[k] += speed * dt / spacing;
    while (src.rows_owed[k] >= 1.0f) {
      src.rows_owed[k] -= 1.0f;
      // The row left the nozzle rows_owed * spacing ago; alternate rows
      // are offset by half a spacing so the jet packs like a lattice.
      const float ahead = src.rows_owed[k] * spacing;
      const float shift = (src.row_slot[k]++ % 2) ? 0.25f * spacing : -0.25f * spacing;
      for (int j = 0; j < per_row; ++j) {
        const float t = (static_cast<float>(j) - 0.5f * static_cast<float>(per_row - 1)) * spacing + shift;
        // A particle whose row has already flown out of the tank is not
        // made: the walls would stack the jet's rows on one another.
        const glm::vec2 at = em.position + t * side + ahead * dir;
        if (at.x >= s.box.min.x && at.x <= s.box.max.x && at.y >= s.box.min.y && at.y <= s.box.max.y &&
            p.size() < full)
          s.add_particle(at, velocity);
      }
    }
  }
}

}  // namespace tidepool
