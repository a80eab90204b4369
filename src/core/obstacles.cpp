// Obstacles: the signed distance to a disc, a capsule or a convex polygon,
// their bounds, and their ids.
#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/geometric.hpp>

#include "boundary.h"

namespace tidepool {
namespace {

// A convex polygon's signed distance: inside, the nearest side's (the
// largest of the distances to the sides' lines, all negative); outside,
// the distance to the nearest point of the outline.
float polygon_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal) {
  float inside = -std::numeric_limits<float>::infinity(), outside = std::numeric_limits<float>::infinity();
  glm::vec2 side_normal(0.0f, 1.0f), nearest = o.points[0];
  for (int k = 0; k < o.count; ++k) {
    const glm::vec2 a = o.points[k], b = o.points[k + 1 < o.count ? k + 1 : 0];
    const glm::vec2 ab = b - a;
    const float len = std::sqrt(ab.x * ab.x + ab.y * ab.y);
    const glm::vec2 n(ab.y / len, -ab.x / len);  // outward: the corners run counter-clockwise
    const float line = glm::dot(p - a, n);
    if (line > inside) {
      inside = line;
      side_normal = n;
    }
    const glm::vec2 c = closest_on_segment(p, a, b);
    const glm::vec2 pc = p - c;
    const float dist = pc.x * pc.x + pc.y * pc.y;
    if (dist < outside) {
      outside = dist;
      nearest = c;
    }
  }
  if (inside <= 0.0f) {
    *normal = side_normal;
    return inside;
  }
  const glm::vec2 d = p - nearest;
  const float len = std::sqrt(d.x * d.x + d.y * d.y);
  *normal = len > 0.0f ? d / len : side_normal;
  return len;
}

}  // namespace

float obstacle_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal) {
  if (o.kind == Obstacle::Kind::Polygon) return polygon_distance(o, p, normal);
  const glm::vec2 c = o.kind == Obstacle::Kind::Circle ? o.a : closest_on_segment(p, o.a, o.b);
  glm::vec2 d = p - c;
  float len = std::sqrt(d.x * d.x + d.y * d.y);
  if (len < 1e-12f) {
    // On the axis: any normal will do; pick the segment's left normal.
    const glm::vec2 ab = o.b - o.a;
    const float l = std::sqrt(ab.x * ab.x + ab.y * ab.y);
    d = l > 0.0f ? glm::vec2(-ab.y / l, ab.x / l) : glm::vec2(0.0f, 1.0f);
    len = 0.0f;
  } else {
    d /= len;
  }
  *normal = d;
  return len - o.radius;
}

void obstacle_bounds(const Obstacle& o, glm::vec2* lo, glm::vec2* hi) {
  if (o.kind == Obstacle::Kind::Polygon) {
    *lo = *hi = o.points[0];
    for (int k = 1; k < o.count; ++k) {
      *lo = glm::min(*lo, o.points[k]);
      *hi = glm::max(*hi, o.points[k]);
    }
    return;
  }
  *lo = glm::min(o.a, o.b) - o.radius;
  *hi = glm::max(o.a, o.b) + o.radius;
}

int add_obstacle(std::vector<Obstacle>& obstacles, Obstacle o, int* next_id) {
  if (!finite2(o.a) || !finite2(o.b) || !std::isfinite(o.radius) || o.radius <= 0.0f) return -1;
  o.id = (*next_id)++;
  obstacles.push_back(o);
  return o.id;
}

}  // namespace tidepool
