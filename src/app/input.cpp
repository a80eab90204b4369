// Tidepool app — input. The mouse and every finger are "contacts"; each
// contact that is down becomes one PointerForce (push, or pull with the
// right button or a modifier), all at the same time, or draws or erases
// obstacles when the obstacle tool is picked in the panel, or with the body
// tool drops rigid bodies (a tap) and drags them (a drag that starts on one).
//
// The platform (platform.h) also gives Dear ImGui the first finger as its
// mouse, so the panel works by touch; here each finger is its own contact.
#include <algorithm>
#include <cmath>

#include "imgui.h"

#include "app.h"
#include "tidepool/geometry.h"

namespace tidepool::app {

namespace {

constexpr float kMaxDragSpeed = 6.0f;  // [m/s] a flick must not blow the fluid apart
constexpr double kDragWindow = 0.12;   // [s of simulation] drag velocity averaging window

// Events come in window units; the view is in framebuffer pixels.
glm::vec2 window_to_pixel(const App& app, glm::vec2 at) { return at * app.pixel_ratio; }

bool over_panel(const App& app, glm::vec2 at) {
  for (const auto& r : app.ui_rects)
    if (at.x >= r[0] && at.y >= r[1] && at.x < r[0] + r[2] && at.y < r[1] + r[3]) return true;
  return false;
}

// A contact starts "fresh" (last_world NaN): its world position is only
// known once the frame has its view, in update_forces().
void begin(App& app, int64_t id, glm::vec2 pixel, bool pull, bool captured) {
  Contact c;
  c.pixel = pixel;
  c.pull = pull;
  c.captured = captured;
  c.stroke_drew = false;
  c.last_world = glm::vec2(NAN);  // marks it fresh
  app.contacts[id] = c;
}

void move(App& app, int64_t id, glm::vec2 pixel) {
  auto it = app.contacts.find(id);
  if (it != app.contacts.end()) it->second.pixel = pixel;
}

// A contact's world position this frame, and its velocity: the
// displacement across the last kDragWindow of input time, at most
// kMaxDragSpeed. True on its first frame (it starts at rest).
bool follow(App& app, Contact& c, double now) {
  c.world = app.view.to_world(c.pixel);
  const bool fresh = std::isnan(c.last_world.x);
  if (fresh) {
    c.last_world = c.world;
    c.stroke_end = c.world;
    c.velocity = glm::vec2(0.0f);
    c.trail.clear();
  }
  // One entry an instant of input time: while paused the clock stands
  // still, and a held finger's frames only move its latest point.
  if (!c.trail.empty() && c.trail.back().first == now) c.trail.back().second = c.world;
  else c.trail.emplace_back(now, c.world);
  while (c.trail.size() > 2 && now - c.trail[1].first >= kDragWindow) c.trail.erase(c.trail.begin());
  const double span = now - c.trail.front().first;
  glm::vec2 v(0.0f);
  if (span > 1e-6) v = (c.world - c.trail.front().second) / static_cast<float>(span);
  const float speed = std::sqrt(v.x * v.x + v.y * v.y);
  if (speed > kMaxDragSpeed) v *= kMaxDragSpeed / speed;
  c.velocity = v;
  c.last_world = c.world;
  return fresh;
}

// --hover: a mouse move with no button held, off the panel.
void hover(App& app, glm::vec2 pixel, bool over_ui) {
  if (!app.setup.hover || app.contacts.count(kMouse) || over_ui) {
    app.hovering = false;
    return;
  }
  if (!app.hovering) {
    app.hover = Contact{};
    app.hover.last_world = glm::vec2(NAN);  // starts fresh, at rest
    app.hovering = true;
  }
  app.hover.pixel = pixel;
  app.hover_moved = app.input_clock;
}

float distance_to_obstacle(const tidepool::Obstacle& ob, glm::vec2 p) {
  glm::vec2 normal;
  return tidepool::obstacle_distance(ob, p, &normal);
}

// Obstacle tool, on release: a tap without a stroke leaves a disc.
void finish_stroke(App& app, Contact& c) {
  if (app.tool == Tool::Draw && !c.captured && !std::isnan(c.last_world.x) && !c.stroke_drew)
    app.world.add_circle(c.stroke_end, 1.5f * app.obstacle_radius);
}

// ---------------------------------------------------------------------------
// The body tool
// ---------------------------------------------------------------------------

// How far a finger may move and still tap, and how far off a body's edge it
// may land and still take hold of it [window units: CSS pixels on the web].
constexpr float kTapSlop = 16.0f;
constexpr float kGrabSlop = 10.0f;

float window_to_world(const App& app, float length) { return length * app.pixel_ratio / app.view.scale; }

// The body under p (the nearest, within `slop` of its edge), or -1.
int body_under(const App& app, glm::vec2 p, float slop) {
  int best = -1;
  float best_d = slop;
  for (const tidepool::Body& b : app.world.bodies()) {
    const float d = tidepool::body_distance(b, p);
    if (d <= best_d) {
      best = b.id;
      best_d = d;
    }
  }
  return best;
}

// Whether another contact than `self` holds body `id`.
bool held_by_another(const App& app, const Contact* self, int id) {
  for (const auto& [key, c] : app.contacts)
    if (&c != self && c.body == id) return true;
  return false;
}

// The first frame of a body-tool contact: a contact that lands on a body
// takes hold of it at that point (World::drag_body anchors there).
void grab(App& app, Contact& c) {
  c.start = c.world;
  const int id = body_under(app, c.world, window_to_world(app, kGrabSlop));
  c.on_body = id >= 0;
  if (c.on_body && app.world.drag_body(id, c.world)) c.body = id;
}

// Body tool, on release: the held body is let go (unless another finger
// holds it too); a tap that did not land on a body drops the next shape
// where it came down.
void finish_body(App& app, Contact& c) {
  if (app.tool != Tool::Body || c.captured) return;
  if (c.body >= 0 && !held_by_another(app, &c, c.body)) app.world.release_body(c.body);
  c.body = -1;
  const glm::vec2 moved = c.world - c.start;
  const float slop = window_to_world(app, kTapSlop);
  if (!c.on_body && moved.x * moved.x + moved.y * moved.y <= slop * slop) drop_body(app, c.start);
}

void end(App& app, int64_t id) {
  auto it = app.contacts.find(id);
  if (it == app.contacts.end()) return;
  if (std::isnan(it->second.last_world.x)) {
    // Pressed and released within one frame: place it first.
    it->second.world = app.view.to_world(it->second.pixel);
    it->second.last_world = it->second.world;
    it->second.stroke_end = it->second.world;
    if (app.tool == Tool::Body && !it->second.captured) {
      it->second.start = it->second.world;
      it->second.on_body = body_under(app, it->second.world, window_to_world(app, kGrabSlop)) >= 0;
    }
  }
  finish_stroke(app, it->second);
  finish_body(app, it->second);
  app.contacts.erase(it);
}

}  // namespace

const char* tool_name(Tool tool) {
  switch (tool) {
    case Tool::Push: return "push";
    case Tool::Pull: return "pull";
    case Tool::Draw: return "draw";
    case Tool::Erase: return "erase";
    case Tool::Body: return "body";
  }
  return "?";
}


const char* body_tool_shape(int next) {
  static const char* const names[kBodyToolShapes] = {"box", "disc", "boat"};
  return names[((next % kBodyToolShapes) + kBodyToolShapes) % kBodyToolShapes];
}

int drop_body(App& app, glm::vec2 at) {
  // The pool's sizes (a 4 x 3 m tank), scaled with the tank's linear size;
  // densities as fractions of the water's, so each floats at its own depth
  // (a half, four fifths, two fifths under).
  const tidepool::Box& box = app.world.box();
  const glm::vec2 size = box.max - box.min;
  const float k = std::sqrt(std::max(size.x * size.y, 0.0f) / 12.0f);
  const float rho0 = app.world.params().rest_density;
  tidepool::BodyDef def;
  switch (((app.next_body % kBodyToolShapes) + kBodyToolShapes) % kBodyToolShapes) {
    case 0:
      def.shape = tidepool::BodyShape::box(0.3f * k, 0.2f * k);
      def.density = 0.5f * rho0;
      break;
    case 1:
      def.shape = tidepool::BodyShape::disc(0.12f * k);
      def.density = 0.8f * rho0;
      break;
    default:
      def.shape = tidepool::BodyShape::boat(0.5f * k);
      def.density = 0.4f * rho0;
      break;
  }
  def.density = std::clamp(def.density, tidepool::kMinBodyDensity, tidepool::kMaxBodyDensity);
  // Wholly inside the tank, a particle spacing off its walls.
  const float margin = def.shape.reach() + app.world.spacing();
  const glm::vec2 lo = box.min + margin, hi = box.max - margin;
  def.position = {lo.x <= hi.x ? std::clamp(at.x, lo.x, hi.x) : 0.5f * (box.min.x + box.max.x),
                  lo.y <= hi.y ? std::clamp(at.y, lo.y, hi.y) : 0.5f * (box.min.y + box.max.y)};
  std::string why;
  const int id = app.world.add_body(def, &why);
  if (id < 0) {
    warn("body tool: " + why);
    return -1;
  }
  app.next_body = (app.next_body + 1) % kBodyToolShapes;
  return id;
}

void release_held_bodies(App& app) {
  for (auto& [id, c] : app.contacts) {
    if (c.body >= 0) app.world.release_body(c.body);
    c.body = -1;
  }
}

float eraser_radius(const App& app) { return std::max(0.5f * app.pointer_radius, 2.0f * app.obstacle_radius); }

void release_all_contacts(App& app) {
  release_held_bodies(app);
  app.contacts.clear();
  app.forces.clear();
}

void end_idle(App& app) {
  if (!app.idle) return;
  app.idle = false;
  app.world.set_pointers(app.forces);  // the contacts' alone
}

namespace {

// The idle motion: a soft paddle that sweeps to and fro along the tank at
// the water's surface (twice its mean height; mid-tank for a grid) every
// 12 s of simulated time, pressing a little and dragging the water along,
// so waves run slowly. It starts once the scene has played its first
// seconds by itself (a grid scene, still until stirred, at once); not in a
// lid-driven cavity, whose flow is the benchmark's.
constexpr double kIdlePeriod = 12.0;  // [s]
constexpr double kIdleAfter = 3.0;    // [s] particle scenes
constexpr double kIdleAfterGrid = 0.5;  // [s]

}  // namespace

bool idle_force(const App& app, double time, tidepool::PointerForce* out) {
  if (!app.idle || app.world.params().lid_speed != 0.0f) return false;
  const tidepool::Box& b = app.world.box();
  const glm::vec2 size = b.max - b.min;
  const bool particles = app.world.field() == nullptr;
  if (particles && app.world.count() == 0) return false;
  const double t = time - (particles ? kIdleAfter : kIdleAfterGrid);
  if (t < 0.0) return false;
  const double w = 2.0 * 3.14159265358979 / kIdlePeriod;
  tidepool::PointerForce f;
  f.position = {b.min.x + size.x * static_cast<float>(0.5 + 0.3 * std::sin(w * t)),
                particles ? b.min.y + 2.0f * (water_mean(app.world).y - b.min.y) : b.min.y + 0.5f * size.y};
  f.velocity = {size.x * static_cast<float>(0.3 * w * std::cos(w * t)), 0.0f};
  f.radius = 0.15f * std::min(size.x, size.y);
  const float ease = static_cast<float>(std::min(t / 2.0, 1.0));  // in over 2 s
  f.strength = 15.0f * ease;
  f.stir = 5.0f * ease;
  f.dye = glm::vec3(0.0f);  // moves the dye that is there, adds none
  *out = f;
  return true;
}

void handle_input(App& app, const InputEvent& e, bool ui_wants_mouse) {
  if (e.kind == InputEvent::Kind::Down || e.kind == InputEvent::Kind::Key) end_idle(app);
  const bool mouse = e.id == kMouse;
  switch (e.kind) {
    case InputEvent::Kind::Down:
      if (mouse) {
        if (ui_wants_mouse || app.contacts.count(kMouse)) break;
        begin(app, kMouse, window_to_pixel(app, e.at), e.pull, false);
      } else {
        // A finger that lands on the panel belongs to it for good.
        begin(app, e.id, window_to_pixel(app, e.at), false, over_panel(app, e.at));
      }
      break;
    case InputEvent::Kind::Move:
      move(app, e.id, window_to_pixel(app, e.at));
      if (mouse) hover(app, window_to_pixel(app, e.at), ui_wants_mouse);
      break;
    case InputEvent::Kind::Leave:
      app.hovering = false;
      break;
    case InputEvent::Kind::Up:
      end(app, e.id);
      break;
    case InputEvent::Kind::Key:
      if (app.gl_ready && ImGui::GetIO().WantCaptureKeyboard) break;
      if (e.key == ' ') app.paused = !app.paused;
      else if (e.key == 'r') load(app, app.scene, app.particles_requested);
      else if (e.key == 's' && app.paused) app.step_once = true;
      break;
    case InputEvent::Kind::FocusLost:
      release_all_contacts(app);
      break;
    case InputEvent::Kind::Quit:
      app.quit = true;
      break;
  }
}

void update_forces(App& app, float frame_dt) {
  app.forces.clear();
  // Drag velocities are taken in simulated time (see App::time_scale):
  // in slow motion a paddle moves the water as far as it moved itself, and
  // while paused the clock moves only with the steps taken
  // (advance_frames(), a single step).
  if (!app.paused) app.input_clock += frame_dt * std::max(app.time_scale, 0.05f);
  const double now = app.input_clock;
  for (auto& [id, c] : app.contacts) {
    if (c.captured) continue;
    const bool fresh = follow(app, c, now);

    switch (app.tool) {
      case Tool::Push:
      case Tool::Pull: {
        tidepool::PointerForce f;
        f.position = c.world;
        f.radius = app.pointer_radius;
        f.strength = pulls(app, c) ? -app.pointer_strength : app.pointer_strength;
        f.velocity = c.velocity;
        f.stir = app.pointer_stir;
        app.forces.push_back(f);
        break;
      }
      case Tool::Draw: {
        // Capsules along the drag, each about as long as it is wide.
        const glm::vec2 d = c.world - c.stroke_end;
        const float step = std::max(2.0f * app.obstacle_radius, 0.01f);
        if (d.x * d.x + d.y * d.y >= step * step) {
          if (app.world.add_capsule(c.stroke_end, c.world, app.obstacle_radius) >= 0) c.stroke_drew = true;
          c.stroke_end = c.world;
        }
        break;
      }
      case Tool::Erase: {
        const float r = eraser_radius(app);
        std::vector<int> doomed;
        for (const tidepool::Obstacle& ob : app.world.obstacles())
          if (distance_to_obstacle(ob, c.world) < r) doomed.push_back(ob.id);
        for (int oid : doomed) app.world.remove_obstacle(oid);
        break;
      }
      case Tool::Body: {
        // The held body's drag target follows the contact; a body removed
        // meanwhile is simply no longer held.
        if (fresh) grab(app, c);
        else if (c.body >= 0 && !app.world.drag_body(c.body, c.world)) c.body = -1;
        break;
      }
    }
  }
  // Hover: the moving mouse stirs the water its way, without pushing; at
  // rest for a drag window it lets go, and its next move starts from rest.
  if (app.hovering && !app.contacts.count(kMouse) && now - app.hover_moved <= kDragWindow) {
    follow(app, app.hover, now);
    tidepool::PointerForce f;
    f.position = app.hover.world;
    f.radius = app.pointer_radius;
    f.strength = 0.0f;
    f.velocity = app.hover.velocity;
    f.stir = app.pointer_stir;
    app.forces.push_back(f);
  } else {
    app.hovering = false;
  }
}

}  // namespace tidepool::app
