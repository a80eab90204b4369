// Tidepool app — the show: the dye's colours taken in turn, and a random
// splat every few seconds (?splats=S&seed=N), for a page that uses the toy
// as its background or a screen that nobody touches.
//
// A splat is a pointer that lives a moment: it stirs the water toward a
// random direction and, in a grid scene, pours the palette's next colour.
// Which splat plays, where and which way, follows from the seed and the
// simulated time alone, so two pages given the same link and the same
// ticks hold the same state (the state hash covers the grid's dye).
#include <algorithm>
#include <cmath>

#include "app.h"

namespace tidepool::app {

namespace {

constexpr float kSplatLife = 0.25f;  // [s] a splat's pointer lasts this long, at most half the period

// SplitMix32-style mixing of (seed, splat, draw) to a uniform in [0, 1).
float draw(uint32_t seed, uint32_t splat, uint32_t k) {
  uint32_t z = seed * 0x9E3779B9u + splat * 0x85EBCA6Bu + k * 0xC2B2AE35u + 0x27D4EB2Fu;
  z = (z ^ (z >> 16)) * 0x7FEB352Du;
  z = (z ^ (z >> 15)) * 0x846CA68Bu;
  z ^= z >> 16;
  return static_cast<float>(z >> 8) * (1.0f / 16777216.0f);
}

glm::vec3 palette_colour(const Look& look, size_t k) {
  return look.palette.empty() ? tidepool::kDyeColours[k % tidepool::kDyeColours.size()]
                              : look.palette[k % look.palette.size()];
}

// The splat playing at simulated time t [s] (false between splats).
bool splat_at(const Look& look, const tidepool::Box& box, double t, tidepool::PointerForce* f) {
  if (!(look.splats > 0.0f) || t < look.splats) return false;
  const double index = std::floor(t / look.splats);
  const float life = std::min(kSplatLife, 0.5f * look.splats);
  if (t - index * look.splats >= life || index > 4.0e9) return false;
  const uint32_t j = static_cast<uint32_t>(index);
  const glm::vec2 size = box.max - box.min;
  const float reach = std::min(size.x, size.y);
  // Anywhere a fifth of the tank in from its walls, any way, about a
  // tank's short side a second.
  f->position = box.min + size * glm::vec2(0.2f + 0.6f * draw(look.seed, j, 0), 0.2f + 0.6f * draw(look.seed, j, 1));
  const float angle = 6.2831853f * draw(look.seed, j, 2);
  f->velocity = (0.6f + 0.6f * draw(look.seed, j, 3)) * reach * glm::vec2(std::cos(angle), std::sin(angle));
  f->radius = 0.08f * reach;
  f->strength = 0.0f;
  f->stir = 20.0f;
  f->dye = palette_colour(look, j - 1);
  return true;
}

}  // namespace

std::vector<tidepool::PointerForce> tick_forces(const App& app, double t) {
  std::vector<tidepool::PointerForce> out = app.forces;
  size_t k = 0;
  for (tidepool::PointerForce& f : out)
    if (f.dye.x < 0.0f) f.dye = palette_colour(app.look, k++);
  tidepool::PointerForce idle;
  if (idle_force(app, t, &idle)) out.push_back(idle);
  tidepool::PointerForce splat;
  if (splat_at(app.look, app.world.box(), t, &splat)) out.push_back(splat);
  return out;
}

}  // namespace tidepool::app
