// Rigid bodies through Box2D 2.4.1 (bodies.h). Units are Tidepool's and
// Box2D's alike: metres, seconds, and a density in kg/m^2, so a body's
// Box2D mass is its 2D mass per unit depth, the water's unit.
#include "bodies.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <box2d/box2d.h>

#include "boundary.h"  // obstacle_distance
#include "tidepool/kernels.h"

namespace tidepool {

// ---------------------------------------------------------------------------
// Shapes

namespace {

// Signed area and centroid of a polygon (the shoelace formula).
float polygon_area(const std::vector<glm::vec2>& pts, glm::vec2* centroid) {
  double a = 0.0, cx = 0.0, cy = 0.0;
  const size_t n = pts.size();
  for (size_t k = 0; k < n; ++k) {
    const glm::vec2 p = pts[k], q = pts[(k + 1) % n];
    const double c = static_cast<double>(cross(p, q));
    a += c;
    cx += (p.x + q.x) * c;
    cy += (p.y + q.y) * c;
  }
  a *= 0.5;
  if (centroid) *centroid = a != 0.0 ? glm::vec2(float(cx / (6.0 * a)), float(cy / (6.0 * a))) : glm::vec2(0.0f);
  return static_cast<float>(a);
}

// The shortest edge Box2D keeps: it welds corners closer than half its
// linear slop, so edges are held to four times that.
constexpr float kMinEdge = 4.0f * b2_linearSlop;

std::string fmt(const char* format, double a, double b = 0.0, double c = 0.0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

}  // namespace

BodyShape BodyShape::box(float width, float height) {
  BodyShape s;
  s.kind = Kind::Box;
  const float w = 0.5f * width, h = 0.5f * height;
  s.points = {{-w, -h}, {w, -h}, {w, h}, {-w, h}};
  return s;
}

BodyShape BodyShape::disc(float radius) {
  BodyShape s;
  s.kind = Kind::Disc;
  s.radius = radius;
  return s;
}

BodyShape BodyShape::boat(float length) {
  const float deck = 0.5f * length, keel = 0.3f * length, depth = 0.25f * length;
  BodyShape s = polygon({{-keel, 0.0f}, {keel, 0.0f}, {deck, depth}, {-deck, depth}});
  s.kind = Kind::Boat;
  return s;
}

BodyShape BodyShape::polygon(const std::vector<glm::vec2>& points) {
  BodyShape s;
  s.kind = Kind::Polygon;
  s.points = points;
  glm::vec2 c;
  polygon_area(points, &c);
  // Corners already about their centroid, to rounding (a polygon read back
  // from its text, format_body), are kept as given: the text round-trips.
  if (finite2(c) && glm::length(c) > 1e-6f * s.reach())
    for (glm::vec2& p : s.points) p -= c;
  return s;
}

float BodyShape::area() const {
  if (kind == Kind::Disc) return kPi * radius * radius;
  return std::fabs(polygon_area(points, nullptr));
}

float BodyShape::reach() const {
  float r = kind == Kind::Disc ? radius : 0.0f;
  for (const glm::vec2& p : points) r = std::max(r, glm::length(p));
  return r;
}

const char* body_kind_name(BodyShape::Kind kind) {
  switch (kind) {
    case BodyShape::Kind::Box: return "box";
    case BodyShape::Kind::Disc: return "disc";
    case BodyShape::Kind::Boat: return "boat";
    case BodyShape::Kind::Polygon: return "polygon";
  }
  return "?";
}

glm::vec2 Body::to_world(glm::vec2 local) const {
  const float c = std::cos(angle), s = std::sin(angle);
  return position + glm::vec2(c * local.x - s * local.y, s * local.x + c * local.y);
}

Obstacle body_obstacle(const Body& body, int index) {
  Obstacle o;
  o.id = body.id;
  o.body = index;
  o.a = o.b = body.position;
  o.velocity = body.velocity;
  o.omega = body.omega;
  if (body.def.shape.kind == BodyShape::Kind::Disc) {
    o.kind = Obstacle::Kind::Circle;
    o.radius = body.def.shape.radius;
    return o;
  }
  o.kind = Obstacle::Kind::Polygon;
  o.count = static_cast<int>(body.def.shape.points.size());
  for (int k = 0; k < o.count; ++k) o.points[k] = body.to_world(body.def.shape.points[k]);
  o.reach = body.def.shape.reach();
  return o;
}

float body_distance(const Body& body, glm::vec2 p) {
  glm::vec2 normal;
  return obstacle_distance(body_obstacle(body, 0), p, &normal);
}

// ---------------------------------------------------------------------------
// Checks

std::string BodySet::check(const BodyDef& d, const Box& box, int count) {
  if (count >= kMaxBodies) return fmt("bodies: at most %.0f in a world", kMaxBodies);
  if (!finite2(d.position) || !std::isfinite(d.angle)) return "body position and angle must be finite";
  if (!finite2(d.velocity) || !std::isfinite(d.omega)) return "body velocity and spin must be finite";
  if (!(d.density >= kMinBodyDensity && d.density <= kMaxBodyDensity))
    return fmt("body density %g is outside [%g, %g] kg/m^2", d.density, kMinBodyDensity, kMaxBodyDensity);
  if (!(d.friction >= 0.0f && d.friction <= 1.0f)) return fmt("body friction %g is outside [0, 1]", d.friction);
  if (!(d.restitution >= 0.0f && d.restitution <= 1.0f))
    return fmt("body restitution %g is outside [0, 1]", d.restitution);
  const BodyShape& s = d.shape;
  const glm::vec2 size = box.max - box.min;
  const float room = 0.5f * std::min(size.x, size.y);
  float reach = 0.0f;  // the farthest point of the shape from its centroid
  if (s.kind == BodyShape::Kind::Disc) {
    if (!(s.radius >= kMinEdge)) return fmt("disc radius %g must be at least %g m", s.radius, kMinEdge);
    reach = s.radius;
  } else {
    const int n = static_cast<int>(s.points.size());
    if (n < 3 || n > Obstacle::kMaxPoints)
      return fmt("a body polygon has %.0f corners; it takes 3 to %.0f", n, Obstacle::kMaxPoints);
    for (const glm::vec2& p : s.points)
      if (!finite2(p)) return "body polygon corners must be finite";
    if (!(polygon_area(s.points, nullptr) > 0.0f)) return "body polygon has no area (or is clockwise)";
    for (int k = 0; k < n; ++k) {
      const glm::vec2 a = s.points[k], b = s.points[(k + 1) % n], c = s.points[(k + 2) % n];
      const float edge = glm::length(b - a);
      if (edge < kMinEdge) return fmt("body polygon edge %.0f is %g m; edges must be at least %g m", k, edge, kMinEdge);
      if (!(cross(b - a, c - b) > 0.0f)) return fmt("body polygon is not convex at corner %.0f", (k + 1) % n);
      reach = std::max(reach, glm::length(a));
    }
  }
  if (!(reach < room)) return fmt("body is %g m across; this tank takes at most %g m", 2.0 * reach, 2.0 * room);
  if (d.position.x < box.min.x || d.position.x > box.max.x || d.position.y < box.min.y ||
      d.position.y > box.max.y)
    return fmt("body position (%g, %g) is outside the tank", d.position.x, d.position.y);
  return {};
}

// ---------------------------------------------------------------------------
// Box2D's world

// The drag spring (BodySet::step), and the speed it closes in at: a
// finger's drag moves the water no faster (the app's pointer drags).
constexpr float kDragHz = 5.0f, kDragDamping = 0.7f, kDragPull = 200.0f;
constexpr float kDragSpeed = 6.0f;  // [m/s]


struct BodySet::Impl {
  b2World world{b2Vec2(0.0f, -9.81f)};
  b2Body* scenery = nullptr;
  Box box{{0.0f, 0.0f}, {0.0f, 0.0f}};
  std::vector<Obstacle> obstacles;
  float gap = 0.0f;
  std::vector<b2Body*> handles;  // parallel to bodies_

  void build_scenery();
  b2Body* create(const Body& b);
};

void BodySet::Impl::build_scenery() {
  if (scenery) world.DestroyBody(scenery);
  b2BodyDef def;  // static
  scenery = world.CreateBody(&def);
  b2FixtureDef fixture;
  fixture.friction = 0.5f;
  // The tank's walls `gap` inside, but never past its centre.
  const glm::vec2 centre = 0.5f * (box.min + box.max);
  const glm::vec2 lo = glm::min(box.min + gap, centre), hi = glm::max(box.max - gap, centre);
  const b2Vec2 corners[4] = {{lo.x, lo.y}, {hi.x, lo.y}, {hi.x, hi.y}, {lo.x, hi.y}};
  for (int k = 0; k < 4; ++k) {
    b2EdgeShape edge;
    edge.SetTwoSided(corners[k], corners[(k + 1) % 4]);
    fixture.shape = &edge;
    scenery->CreateFixture(&fixture);
  }
  for (const Obstacle& o : obstacles) {
    b2CircleShape end;
    end.m_radius = o.radius + gap;
    end.m_p.Set(o.a.x, o.a.y);
    fixture.shape = &end;
    scenery->CreateFixture(&fixture);
    if (o.kind != Obstacle::Kind::Capsule) continue;
    end.m_p.Set(o.b.x, o.b.y);
    scenery->CreateFixture(&fixture);
    const glm::vec2 ab = o.b - o.a, mid = 0.5f * (o.a + o.b);
    const float len = glm::length(ab);
    if (len < kMinEdge) continue;
    b2PolygonShape core;
    core.SetAsBox(0.5f * len, o.radius + gap, b2Vec2(mid.x, mid.y), std::atan2(ab.y, ab.x));
    fixture.shape = &core;
    scenery->CreateFixture(&fixture);
  }
}

b2Body* BodySet::Impl::create(const Body& b) {
  b2BodyDef def;
  def.type = b2_dynamicBody;
  def.position.Set(b.position.x, b.position.y);
  def.angle = b.angle;
  def.linearVelocity.Set(b.velocity.x, b.velocity.y);
  def.angularVelocity = b.omega;
  def.fixedRotation = b.def.fixed_rotation;
  def.allowSleep = false;  // the water moves it at every step
  b2Body* body = world.CreateBody(&def);
  b2FixtureDef fixture;
  fixture.density = b.def.density;
  fixture.friction = b.def.friction;
  fixture.restitution = b.def.restitution;
  b2CircleShape disc;
  b2PolygonShape polygon;
  if (b.def.shape.kind == BodyShape::Kind::Disc) {
    disc.m_radius = b.def.shape.radius;
    fixture.shape = &disc;
  } else {
    b2Vec2 pts[Obstacle::kMaxPoints];
    const int n = static_cast<int>(b.def.shape.points.size());
    for (int k = 0; k < n; ++k) pts[k].Set(b.def.shape.points[k].x, b.def.shape.points[k].y);
    polygon.Set(pts, n);
    fixture.shape = &polygon;
  }
  body->CreateFixture(&fixture);
  return body;
}

BodySet::BodySet() : impl_(std::make_unique<Impl>()) {}
BodySet::~BodySet() = default;
BodySet::BodySet(BodySet&&) noexcept = default;
BodySet& BodySet::operator=(BodySet&&) noexcept = default;

BodySet::BodySet(const BodySet& other) : impl_(std::make_unique<Impl>()), bodies_(other.bodies_) {
  impl_->box = other.impl_->box;
  impl_->obstacles = other.impl_->obstacles;
  impl_->gap = other.impl_->gap;
  rebuild();
}

BodySet& BodySet::operator=(const BodySet& other) {
  if (this != &other) {
    BodySet copy(other);
    *this = std::move(copy);
  }
  return *this;
}

// Box2D's world from bodies_ and the scenery.
void BodySet::rebuild() {
  Impl& w = *impl_;
  w.handles.clear();
  w.build_scenery();
  for (const Body& b : bodies_) w.handles.push_back(w.create(b));
}

void BodySet::add(const BodyDef& def, int id) {
  Body b;
  b.id = id;
  b.def = def;
  b.position = def.position;
  b.angle = def.angle;
  b.velocity = def.velocity;
  b.omega = def.fixed_rotation ? 0.0f : def.omega;
  Impl& w = *impl_;
  if (!w.scenery) w.build_scenery();
  b2Body* body = w.create(b);
  b.mass = body->GetMass();
  b.inertia = body->GetInertia();
  bodies_.push_back(b);
  w.handles.push_back(body);
}

bool BodySet::remove(int id) {
  for (size_t k = 0; k < bodies_.size(); ++k) {
    if (bodies_[k].id != id) continue;
    Impl& w = *impl_;
    w.world.DestroyBody(w.handles[k]);
    bodies_.erase(bodies_.begin() + static_cast<long>(k));
    w.handles.erase(w.handles.begin() + static_cast<long>(k));
    return true;
  }
  return false;
}

void BodySet::clear() {
  while (!bodies_.empty()) remove(bodies_.back().id);
}

void BodySet::set_scenery(const Box& box, const std::vector<Obstacle>& obstacles, float gap) {
  Impl& w = *impl_;
  bool same = w.scenery && box.min == w.box.min && box.max == w.box.max && gap == w.gap &&
              obstacles.size() == w.obstacles.size();
  for (size_t k = 0; same && k < obstacles.size(); ++k) {
    const Obstacle &a = obstacles[k], &b = w.obstacles[k];
    same = a.kind == b.kind && a.a == b.a && a.b == b.b && a.radius == b.radius;
  }
  if (same) return;
  w.box = box;
  w.obstacles = obstacles;
  w.gap = gap;
  w.build_scenery();
}

void BodySet::set_fluid_force(int k, glm::vec2 force, float torque) {
  bodies_[static_cast<size_t>(k)].fluid_force = force;
  bodies_[static_cast<size_t>(k)].fluid_torque = torque;
}

void BodySet::apply_impulse(int k, glm::vec2 impulse, float angular) {
  b2Body* body = impl_->handles[static_cast<size_t>(k)];
  body->ApplyLinearImpulseToCenter(b2Vec2(impulse.x, impulse.y), true);
  body->ApplyAngularImpulse(angular, true);
  Body& b = bodies_[static_cast<size_t>(k)];
  b.velocity = glm::vec2(body->GetLinearVelocity().x, body->GetLinearVelocity().y);
  b.omega = body->GetAngularVelocity();
}

void BodySet::step(float dt, glm::vec2 gravity, float max_speed) {
  if (bodies_.empty()) return;
  Impl& w = *impl_;
  w.world.SetGravity(b2Vec2(gravity.x, gravity.y));
  for (size_t k = 0; k < bodies_.size(); ++k) {
    const Body& b = bodies_[k];
    b2Body* body = w.handles[k];
    body->ApplyForceToCenter(b2Vec2(b.fluid_force.x, b.fluid_force.y), true);
    body->ApplyTorque(b.fluid_torque, true);
    if (!b.dragged) continue;
    // The drag: a spring of kDragHz, damped at kDragDamping, between the
    // target and the body's point under the first one, as Box2D's mouse
    // joint holds it (a soft constraint of the same frequency), here a
    // force at that point: stable while 2 pi kDragHz dt < 2, for any step
    // under 60 ms. The spring acts on the point's own mass, the inverse of
    // K = 1 / m + r_perp r_perp^T / I (r from the centre of mass to the
    // point, I the central inertia; as Catto's soft constraints and the
    // mouse joint have it), so that it turns the body no faster than it
    // moves it and the turning does not ring. It steers the point's
    // velocity to w d / (2 z) (the spring M (w^2 d - 2 z w v) is
    // 2 z w M (w d / (2 z) - v)), which a far target d would make tens of
    // m/s: that velocity is held to kDragSpeed. At most kDragPull times the
    // body's weight at 1 g.
    const float omega = 2.0f * kPi * kDragHz, m = body->GetMass();
    const b2Vec2 anchor = body->GetWorldPoint(b2Vec2(b.drag_anchor.x, b.drag_anchor.y));
    const b2Vec2 v = body->GetLinearVelocityFromWorldPoint(anchor);
    const b2Vec2 d = b2Vec2(b.drag_target.x, b.drag_target.y) - anchor;
    const float closing = omega / (2.0f * kDragDamping) * d.Length();
    const b2Vec2 want = closing <= kDragSpeed ? omega * omega * d - 2.0f * kDragDamping * omega * v
                                               : 2.0f * kDragDamping * omega * ((kDragSpeed / d.Length()) * d - v);
    const b2Vec2 lc = body->GetLocalCenter(), r = anchor - body->GetWorldCenter();
    const float central = body->GetInertia() - m * b2Dot(lc, lc);
    const float inv_i = body->IsFixedRotation() || !(central > 0.0f) ? 0.0f : 1.0f / central;
    b2Mat22 point_k;
    point_k.ex = b2Vec2(1.0f / m + inv_i * r.y * r.y, -inv_i * r.x * r.y);
    point_k.ey = b2Vec2(-inv_i * r.x * r.y, 1.0f / m + inv_i * r.x * r.x);
    b2Vec2 pull = point_k.Solve(want);
    const float most = kDragPull * 9.81f * m, size = pull.Length();
    if (size > most) pull *= most / size;
    body->ApplyForce(pull, anchor, true);
  }
  // Box2D's recommended iterations (8 velocity, 3 position).
  w.world.Step(dt, 8, 3);
  for (size_t k = 0; k < bodies_.size(); ++k) {
    Body& b = bodies_[k];
    b2Body* body = w.handles[k];
    const b2Vec2 x = body->GetPosition(), v = body->GetLinearVelocity();
    if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(body->GetAngle()) || !std::isfinite(v.x) ||
        !std::isfinite(v.y) || !std::isfinite(body->GetAngularVelocity())) {
      // Forces past what a float holds (from a particle the step threw
      // far, before the safety net repairs it) stop the body where it was.
      body->SetTransform(b2Vec2(b.position.x, b.position.y), b.angle);
      body->SetLinearVelocity(b2Vec2(0.0f, 0.0f));
      body->SetAngularVelocity(0.0f);
    }
    // Box2D resolves an overlap with a wall over several steps, so a body
    // the water drives into one hard enough goes through it: its centroid
    // is held inside the walls, its velocity out of them taken away.
    const glm::vec2 lo = glm::min(w.box.min + w.gap, 0.5f * (w.box.min + w.box.max));
    const glm::vec2 hi = glm::max(w.box.max - w.gap, 0.5f * (w.box.min + w.box.max));
    const b2Vec2 at = body->GetPosition();
    const glm::vec2 held = glm::clamp(glm::vec2(at.x, at.y), lo, hi);
    if (held != glm::vec2(at.x, at.y)) {
      b2Vec2 u = body->GetLinearVelocity();
      if ((held.x > at.x && u.x < 0.0f) || (held.x < at.x && u.x > 0.0f)) u.x = 0.0f;
      if ((held.y > at.y && u.y < 0.0f) || (held.y < at.y && u.y > 0.0f)) u.y = 0.0f;
      body->SetTransform(b2Vec2(held.x, held.y), body->GetAngle());
      body->SetLinearVelocity(u);
    }
    // And no point of it faster than the water may go (the safety net's
    // max_speed), since a grid solver writes its points' velocities to its
    // faces: |v + omega x r| <= |v| + |omega| reach, and where that bound
    // passes max_speed both are scaled down by the same factor.
    const b2Vec2 u = body->GetLinearVelocity();
    const float spin = body->GetAngularVelocity();
    const float fastest = u.Length() + std::abs(spin) * b.def.shape.reach();
    if (fastest > max_speed) {
      const float scale = max_speed / fastest;
      body->SetLinearVelocity(scale * u);
      body->SetAngularVelocity(scale * spin);
    }
    b.position = glm::vec2(body->GetPosition().x, body->GetPosition().y);
    b.angle = body->GetAngle();
    b.velocity = glm::vec2(body->GetLinearVelocity().x, body->GetLinearVelocity().y);
    b.omega = body->GetAngularVelocity();
  }
}

bool BodySet::drag(int id, glm::vec2 target) {
  if (!finite2(target)) return false;
  for (size_t k = 0; k < bodies_.size(); ++k) {
    Body& b = bodies_[k];
    if (b.id != id) continue;
    if (!b.dragged) {
      // Held at the body's point under the first target, in its own frame.
      const b2Vec2 local = impl_->handles[k]->GetLocalPoint(b2Vec2(target.x, target.y));
      b.drag_anchor = glm::vec2(local.x, local.y);
      b.dragged = true;
    }
    b.drag_target = target;
    return true;
  }
  return false;
}

bool BodySet::release(int id) {
  for (Body& b : bodies_) {
    if (b.id != id) continue;
    b.dragged = false;
    return true;
  }
  return false;
}

void BodySet::transform(const glm::mat2& m, glm::vec2 offset) {
  const float turn = std::atan2(m[0][1], m[0][0]);  // the angle of m's first column
  Impl& w = *impl_;
  for (size_t k = 0; k < bodies_.size(); ++k) {
    Body& b = bodies_[k];
    b.position = m * b.position + offset;
    b.velocity = m * b.velocity;
    if (!b.def.fixed_rotation) b.angle += turn;
    w.handles[k]->SetTransform(b2Vec2(b.position.x, b.position.y), b.angle);
    w.handles[k]->SetLinearVelocity(b2Vec2(b.velocity.x, b.velocity.y));
    b.drag_target = m * b.drag_target + offset;
  }
}

}  // namespace tidepool
