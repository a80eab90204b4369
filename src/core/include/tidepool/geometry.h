// Tidepool — the small geometry the core, the app and the CLI share: finite
// checks, the nearest point of a segment, an obstacle's signed distance,
// written once.
#pragma once

#include <algorithm>
#include <cmath>

#include <glm/vec2.hpp>

#include "tidepool/types.h"

namespace tidepool {

inline bool finite2(glm::vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

// The z of a x b.
inline float cross(glm::vec2 a, glm::vec2 b) { return a.x * b.y - a.y * b.x; }

// The point of segment ab nearest to p.
inline glm::vec2 closest_on_segment(glm::vec2 p, glm::vec2 a, glm::vec2 b) {
  const glm::vec2 ab = b - a;
  const float len2 = ab.x * ab.x + ab.y * ab.y;
  const float t = len2 > 0.0f ? std::clamp(((p.x - a.x) * ab.x + (p.y - a.y) * ab.y) / len2, 0.0f, 1.0f) : 0.0f;
  return a + t * ab;
}

// Signed distance from p to obstacle o's surface (negative inside: a disc,
// a capsule or a convex polygon), and the outward unit normal at the
// nearest point of it (boundary.cpp).
float obstacle_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal);

}  // namespace tidepool
