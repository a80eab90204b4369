// A body as text (scenes.h gives the grammar): the one reader and writer
// behind the CLI's --body, the page's addBody() and share links.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tidepool/scenes.h"

namespace tidepool {

std::string float_text(float v) {
  if (!std::isfinite(v)) return "0";
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  return buf;
}

bool parse_body(std::string_view text, BodyDef* out, std::string* error) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    parts.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  auto fail = [&](const std::string& why) {
    if (error) *error = "body '" + std::string(text.substr(0, 200)) + "': " + why;
    return false;
  };
  const std::string& kind = parts[0];
  const bool polygon = kind == "polygon";
  // The fields before the state: the shape's size, the density and X, Y.
  const size_t head = kind == "box" ? 5 : (kind == "disc" || kind == "boat") ? 4 : polygon ? 3 : 0;
  constexpr size_t kState = 6;
  if (head == 0) return fail("the shape is box, disc, boat or polygon");
  const size_t fields = parts.size() - 1;
  const size_t corners = polygon && fields >= head + kState ? (fields - head - kState) / 2 : 0;
  const bool shape_ok = polygon ? fields >= head + kState + 6 && (fields - head - kState) % 2 == 0 &&
                                      corners <= static_cast<size_t>(Obstacle::kMaxPoints)
                                : fields == head || fields == head + kState;
  if (!shape_ok) {
    const std::string state = "ANGLE,VX,VY,OMEGA,FRICTION,RESTITUTION";
    if (polygon) return fail("expected polygon,DENSITY,X,Y," + state + " and 3 to " +
                             std::to_string(Obstacle::kMaxPoints) + " corners X,Y");
    const std::string size = kind == "box" ? ",WIDTH,HEIGHT" : kind == "disc" ? ",RADIUS" : ",LENGTH";
    return fail("expected " + kind + size + ",DENSITY,X,Y, with or without ," + state + " after it");
  }
  std::vector<float> v;
  for (size_t k = 1; k < parts.size(); ++k) {
    char* end = nullptr;
    const double x = std::strtod(parts[k].c_str(), &end);
    if (parts[k].empty() || *end != '\0') return fail("'" + parts[k].substr(0, 40) + "' is not a number");
    v.push_back(static_cast<float>(x));
  }
  BodyDef def;
  const size_t d = head - 3;  // where the density is
  if (polygon) {
    std::vector<glm::vec2> points;
    for (size_t k = head + kState; k + 1 < v.size(); k += 2) points.emplace_back(v[k], v[k + 1]);
    def.shape = BodyShape::polygon(points);
  } else {
    def.shape = kind == "box" ? BodyShape::box(v[0], v[1]) : kind == "disc" ? BodyShape::disc(v[0]) : BodyShape::boat(v[0]);
  }
  def.density = v[d];
  def.position = {v[d + 1], v[d + 2]};
  if (v.size() >= head + kState) {
    const float* s = &v[head];
    def.angle = s[0];
    def.velocity = {s[1], s[2]};
    def.omega = s[3];
    def.friction = s[4];
    def.restitution = s[5];
  }
  *out = def;
  return true;
}

std::string format_body(const BodyDef& def) {
  using Kind = BodyShape::Kind;
  const BodyShape& shape = def.shape;
  auto list = [](std::initializer_list<float> values) {
    std::string out;
    for (float x : values) out += "," + float_text(x);
    return out;
  };
  const BodyDef rest;
  const std::string state = list({def.angle, def.velocity.x, def.velocity.y, def.omega, def.friction, def.restitution});
  const bool moved = def.angle != 0.0f || def.velocity != glm::vec2(0.0f) || def.omega != 0.0f ||
                     def.friction != rest.friction || def.restitution != rest.restitution;
  const std::string place = list({def.density, def.position.x, def.position.y});
  glm::vec2 lo(INFINITY), hi(-INFINITY);
  for (const glm::vec2& p : shape.points) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  std::string out = body_kind_name(shape.kind);
  switch (shape.kind) {
    case Kind::Box: out += list({hi.x - lo.x, hi.y - lo.y}); break;
    case Kind::Disc: out += list({shape.radius}); break;
    case Kind::Boat: out += list({hi.x - lo.x}); break;  // the deck is the hull's length
    case Kind::Polygon:
      out += place + state;
      for (const glm::vec2& p : shape.points) out += list({p.x, p.y});
      return out;
  }
  return out + place + (moved ? state : "");
}

BodyDef body_now(const Body& body) {
  BodyDef def = body.def;
  def.position = body.position;
  def.angle = body.angle;
  def.velocity = body.velocity;
  def.omega = body.omega;
  return def;
}

}  // namespace tidepool
