// The rigid bodies: Box2D's world behind Tidepool's types. bodies.cpp is
// the only file of the core that includes Box2D; everything else sees
// Body, BodyDef and Obstacle (types.h). Box2D does what a rigid-body engine
// does (body on body and on the walls: contact, stacking, friction); the
// water's forces come from coupling.cpp, applied at the centroid as a force
// and a torque each substep, and a pointer's drag is a spring force (no
// Box2D joint is made, so the page carries none of their code).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <glm/mat2x2.hpp>

#include "tidepool/types.h"

namespace tidepool {

class BodySet {
 public:
  BodySet();
  ~BodySet();
  // A copy rebuilds Box2D's world from the bodies' poses and velocities:
  // the same bodies, but Box2D's contact caches start afresh.
  BodySet(const BodySet& other);
  BodySet& operator=(const BodySet& other);
  BodySet(BodySet&&) noexcept;
  BodySet& operator=(BodySet&&) noexcept;

  // Empty when `def` can be added to a tank `box` holding `count` bodies,
  // else what is wrong with it, naming the field and the allowed range.
  static std::string check(const BodyDef& def, const Box& box, int count);
  // Adds a body that check() accepted, with this id.
  void add(const BodyDef& def, int id);
  bool remove(int id);
  void clear();
  bool empty() const { return bodies_.empty(); }
  const std::vector<Body>& bodies() const { return bodies_; }

  // What the bodies collide with besides each other: the tank's walls and
  // the static obstacles, kept `gap` off them (a particle spacing: room for
  // the row of water a body resting there cannot squeeze out, whose
  // particles would otherwise be pushed from the body into the wall and
  // back at every step). Box2D's static body is rebuilt when they change.
  void set_scenery(const Box& box, const std::vector<Obstacle>& obstacles, float gap);
  // The water's force and torque (about the centroid) on body k, an index
  // into bodies(), for the next step.
  void set_fluid_force(int k, glm::vec2 force, float torque);
  // An impulse on body k at once: its velocity changes by impulse / m,
  // its spin by angular / I.
  void apply_impulse(int k, glm::vec2 impulse, float angular);
  // One step of dt under gravity, with the water's forces; then bodies()
  // holds the new poses and velocities, each centroid inside the walls and
  // each speed at most max_speed.
  void step(float dt, glm::vec2 gravity, float max_speed);
  // A drag: a stiff, damped spring of bounded force pulling body `id`, at
  // its point under the first target, toward `target`; false if there is
  // no such body.
  bool drag(int id, glm::vec2 target);
  bool release(int id);
  // Carries every body through p -> m p + offset (World::transform): the
  // centroid mapped, velocities by m, the angle turned by m's rotation.
  void transform(const glm::mat2& m, glm::vec2 offset);

 private:
  struct Impl;
  void rebuild();
  std::unique_ptr<Impl> impl_;
  std::vector<Body> bodies_;
};

}  // namespace tidepool
