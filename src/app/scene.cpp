// Tidepool app — the scene and parameter API: loading a scene (with the
// user's overrides, a link's bodies and the chosen particle count), editing
// its parameters, tilt, the page's controls, and the threads in use.
#include <algorithm>
#include <cmath>

#include "app.h"
#include "tidepool/geometry.h"

namespace tidepool::app {

// ---------------------------------------------------------------------------
// Scene and parameters
// ---------------------------------------------------------------------------
std::vector<std::pair<std::string, float>> override_list(const App& app) {
  return {app.overrides.begin(), app.overrides.end()};
}

namespace {

// The world's gravity: the scene's, or under tilt its magnitude along the
// device's down.
void apply_gravity(App& app) {
  const float g = std::sqrt(app.gravity.x * app.gravity.x + app.gravity.y * app.gravity.y);
  const glm::vec2 want = app.tilt ? g * app.tilt_down : app.gravity;
  tidepool::Params p = app.world.params();
  if (p.gravity_x == want.x && p.gravity_y == want.y) return;
  p.gravity_x = want.x;
  p.gravity_y = want.y;
  app.world.set_params(p);  // within range: |want| <= |gravity|
}

}  // namespace

int chosen_particles(const App& app, int requested) {
  return requested > 0 ? requested : app.quality.on ? app.quality.particles : 0;
}

bool load(App& app, const std::string& scene, int particles) {
  const tidepool::SceneInfo* info = tidepool::find_scene(scene);
  if (!info) {
    warn("unknown scene \"" + scene.substr(0, 40) + "\" ignored");
    return false;
  }
  if (scene != app.scene) {
    const auto picked = app.overrides.find("solver");
    if (picked != app.overrides.end() && picked->second != static_cast<float>(tidepool::Solver::Stable))
      app.liquid_solver = picked->second;
    app.overrides.clear();  // tweaks belong to one scene, the liquid's method to every particle scene
    app.link_bodies.reset();
  }
  // A grid scene (no default count) has no particles to count.
  const bool grid = info->default_particles == 0;
  if (!grid && app.liquid_solver >= 0.0f && !app.overrides.count("solver"))
    app.overrides["solver"] = app.liquid_solver;
  if (grid && particles > 0) {
    warn("particles " + std::to_string(particles) + " ignored: " + scene + " is a grid scene, without particles");
    particles = 0;
  }
  const int chosen = grid ? 0 : chosen_particles(app, particles);
  const int n = chosen > 0 ? chosen : info->default_particles;
  tidepool::World fresh;
  // load_scene keeps the hook of the world it fills: the threads go on.
  fresh.set_parallel_for(app.world.parallel_for());
  std::string error;
  tidepool::SceneSetup setup;
  setup.particles = n;
  setup.aspect = app.tank_aspect;
  setup.overrides = override_list(app);
  // A link's body that does not fit this tank is left out with a warning.
  std::vector<std::string> refused;
  if (app.link_bodies) {
    setup.bodies = *app.link_bodies;
    setup.refused_bodies = &refused;
  }
  if (!tidepool::load_scene(fresh, scene, setup, &error)) {
    // A tweak or a link's body may be what does not fit: try once more without them.
    warn("scene " + scene + ": " + error);
    if (app.overrides.empty() && !app.link_bodies) return false;
    app.overrides.clear();
    setup.overrides.clear();
    app.link_bodies.reset();
    setup.bodies.clear();
    if (!tidepool::load_scene(fresh, scene, setup, &error)) {
      warn("scene " + scene + ": " + error);
      return false;
    }
  }
  // A link's bodies stand in for the scene's own, which load_scene added
  // first; the ones left out are not tried again at the next reset.
  if (app.link_bodies) {
    for (const std::string& why : refused) warn("link body ignored: " + why.substr(0, 200));
    const std::vector<tidepool::Body> all = fresh.bodies();
    const size_t kept = setup.bodies.size() - refused.size();
    for (size_t k = 0; k + kept < all.size(); ++k) fresh.remove_body(all[k].id);
    if (!refused.empty()) {
      app.link_bodies->clear();
      for (const tidepool::Body& b : fresh.bodies()) app.link_bodies->push_back(tidepool::body_now(b));
    }
  }
  release_held_bodies(app);  // the holds name the old world's bodies
  app.world = std::move(fresh);
  // A grid auto quality sized (not the cavity's, nor one the user set).
  if (grid && app.quality.on && app.quality.grid > 0 && app.world.params().lid_speed == 0.0f &&
      !app.overrides.count("grid")) {
    tidepool::Params p = app.world.params();
    p.grid = app.quality.grid;
    app.world.set_params(p);
  }
  app.gravity = {app.world.params().gravity_x, app.world.params().gravity_y};
  apply_gravity(app);
  app.thread_choice.restart();  // other work: its timings start again
  app.quality.restart();
  app.scene = scene;
  ++app.loads;  // the sharp dye starts over from this scene's pattern
  app.particles_requested = particles;
  app.accumulator = 0.0;
  app.stats.last = tidepool::FrameStats{};
  app.stats.last.particles = app.world.count();
  // Tools sized to the container.
  const tidepool::Box& b = app.world.box();
  const float size = std::min(b.max.x - b.min.x, b.max.y - b.min.y);
  app.pointer_radius = 0.1f * size;
  app.obstacle_radius = 0.015f * size;
  // A colour mode that shows nothing here (dye for particles, water for a
  // grid) gives way to the kind's own.
  const bool has_field = app.world.field() != nullptr || grid;
  if (!color_mode_fits(app.render.color, has_field)) app.render.color = default_color_mode(has_field);
  return true;
}

bool set_page_controls(App& app, const std::array<float, 4>& insets) {
  for (float v : insets)
    if (!(v >= 0.0f && v <= 4096.0f)) return false;
  if (!app.page_controls || app.insets != insets) app.relayout_now = true;
  app.page_controls = true;
  app.insets = insets;
  return true;
}

bool set_tilt(App& app, bool on, glm::vec2 down) {
  if (!std::isfinite(down.x) || !std::isfinite(down.y) || down.x * down.x + down.y * down.y > 1.0001f) return false;
  app.tilt = on;
  app.tilt_down = down;
  apply_gravity(app);
  return true;
}

int add_obstacle(App& app, const tidepool::Obstacle& o) {
  const tidepool::Box& box = app.world.box();
  const float size = std::max(box.max.x - box.min.x, box.max.y - box.min.y);
  auto inside = [&](glm::vec2 p) {
    return tidepool::finite2(p) && p.x >= box.min.x - size && p.x <= box.max.x + size &&
           p.y >= box.min.y - size && p.y <= box.max.y + size;
  };
  int id = -1;
  if (inside(o.a) && inside(o.b) && std::isfinite(o.radius) && o.radius > 0.0f && o.radius <= size) {
    if (o.kind == tidepool::Obstacle::Kind::Circle) id = app.world.add_circle(o.a, o.radius);
    else if (o.kind == tidepool::Obstacle::Kind::Capsule) id = app.world.add_capsule(o.a, o.b, o.radius);
  }
  if (id < 0) warn("obstacle ignored: not a disc or capsule inside the container");
  return id;
}

bool set_param(App& app, const std::string& name, float value, std::string* error) {
  const tidepool::ParamInfo* info = tidepool::find_param(name);
  if (!info) {
    *error = "unknown parameter \"" + name.substr(0, 40) + "\"";
    return false;
  }
  if (!std::isfinite(value)) {
    *error = name + ": not a finite number";
    return false;
  }
  tidepool::Params p = app.world.params();
  info->set(p, value);
  const std::vector<std::string> problems = app.world.set_params(p);
  if (!problems.empty()) {
    *error = problems.front();
    return false;
  }
  app.overrides[name] = info->get(app.world.params());
  if (name == "gravity_x" || name == "gravity_y") {
    app.gravity = {app.world.params().gravity_x, app.world.params().gravity_y};
    apply_gravity(app);
  }
  return true;
}

bool set_param_text(App& app, const std::string& name, const std::string& text, std::string* error) {
  const tidepool::ParamInfo* info = tidepool::find_param(name);
  if (!info) {
    *error = "unknown parameter \"" + name.substr(0, 40) + "\"";
    return false;
  }
  float value = 0.0f;
  if (!tidepool::parse_param_value(*info, text, &value, error)) return false;
  return set_param(app, name, value, error);
}

int pool_threads(const App& app) { return app.pool ? app.pool->threads() : 1; }

int threads_in_use(const App& app) {
  const int pool = pool_threads(app);
  return pool > 1 && !app.thread_choice.pooled() ? 1 : pool;
}

}  // namespace tidepool::app
