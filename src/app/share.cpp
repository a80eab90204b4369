// Tidepool app — the running toy as a Setup, for a share link: what a page
// that opens the link needs to show the same water, bodies and show.
#include "app.h"

namespace tidepool::app {

Setup running_setup(const App& app) {
  // The scene as it loads with nothing changed, to compare against.
  tidepool::World fresh;
  tidepool::SceneSetup plain;
  plain.particles = app.particles_requested;
  plain.aspect = app.tank_aspect;
  std::string error;
  const bool have_defaults = tidepool::load_scene(fresh, app.scene, plain, &error);
  Setup s;
  s.scene = app.scene;
  // The count in use travels: the link opens with the sharer's water.
  s.particles = app.world.field() ? 0 : chosen_particles(app, app.particles_requested);
  s.aspect = app.tank_aspect;
  s.color = app.render.color;
  // The page's colours and show, where they differ from the defaults.
  s.look = app.look;
  bool own_palette = false;
  for (size_t k = 0; k < s.look.palette.size(); ++k)
    own_palette = own_palette || s.look.palette.size() != tidepool::kDyeColours.size() ||
                  hex_colour(s.look.palette[k]) != hex_colour(tidepool::kDyeColours[k]);
  if (!own_palette) s.look.palette.clear();
  if (s.look.splats <= 0.0f) s.look.seed = Look().seed;
  // The parameters changed from the scene's own.
  for (const auto& [name, value] : app.overrides) {
    const tidepool::ParamInfo* info = tidepool::find_param(name);
    if (info && !(have_defaults && info->get(fresh.params()) == value)) s.params.emplace_back(name, value);
  }
  // The bodies as they are now, pose and velocities, in place of the
  // scene's own (unset: neither the world nor the scene has any).
  const std::vector<tidepool::Body>& bodies = app.world.bodies();
  if (!(bodies.empty() && have_defaults && fresh.bodies().empty())) {
    s.bodies.emplace();
    for (const tidepool::Body& b : bodies) s.bodies->push_back(tidepool::body_now(b));
  }
  // The obstacles, when they are not the scene's own.
  const std::vector<tidepool::Obstacle>& now = app.world.obstacles();
  bool same = have_defaults && now.size() == fresh.obstacles().size();
  for (size_t k = 0; same && k < now.size(); ++k) {
    const tidepool::Obstacle &a = now[k], &b = fresh.obstacles()[k];
    same = a.kind == b.kind && a.a == b.a && a.b == b.b && a.radius == b.radius;
  }
  if (!same) s.obstacles = now;
  return s;
}

}  // namespace tidepool::app
