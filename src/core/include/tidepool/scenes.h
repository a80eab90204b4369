// Tidepool — named scenes shared by the CLI, the app, the tests and the
// benchmark. A scene sets the parameters (from a preset), the container,
// the obstacles, emitters and sinks, and the particles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tidepool/world.h"

namespace tidepool {

struct SceneInfo {
  const char* name;
  const char* description;  // one line
  int default_particles;
  // The fewest particles a load at the scene's own aspect takes: fewer
  // would lie more than a quarter of the tank's short side apart
  // (fit_problems). 0 for a grid scene.
  int min_particles = 0;
};

const std::vector<SceneInfo>& scenes();
const SceneInfo* find_scene(std::string_view name);

constexpr float kMinAspect = 0.25f, kMaxAspect = 4.0f;

struct SceneSetup {
  int particles = 0;    // about this many (the lattice is rounded); 0 = scene default
  std::string preset;   // parameter preset; empty = the scene's own
  // Parameter overrides by name (see param_table()), applied after the
  // preset; an override of h, mass or surface_threshold replaces the value
  // the scene derives from its spacing.
  std::vector<std::pair<std::string, float>> overrides;
  // The tank's width / height: 0 = the scene's own, else in [kMinAspect,
  // kMaxAspect]. The scene is stretched to it with its area kept (a
  // benchmark's tank, the cavity's, keeps its shape).
  float aspect = 0.0f;
  // Rigid bodies added after the scene's own, in the tank's coordinates.
  std::vector<BodyDef> bodies;
  // Where given, a body of `bodies` that does not fit the tank is left out,
  // its problem added here, and the load goes on; else it fails the load.
  std::vector<std::string>* refused_bodies = nullptr;
};

// A body as text, as the CLI's --body, the page's addBody() and share links
// write it, in metres, kg/m^2, radians and seconds:
//   box,WIDTH,HEIGHT,DENSITY,X,Y[,STATE]   disc,RADIUS,DENSITY,X,Y[,STATE]
//   boat,LENGTH,DENSITY,X,Y[,STATE]
//   polygon,DENSITY,X,Y,STATE,X1,Y1,X2,Y2,X3,Y3[,...]  (3 to Obstacle::kMaxPoints
//       corners about the centroid, counter-clockwise)
//   STATE = ANGLE,VX,VY,OMEGA,FRICTION,RESTITUTION (without it: at rest,
//       BodyDef's friction and restitution)
// X, Y is the centroid. parse_body returns false with the problem in *error
// when the text does not parse; World::add_body checks the values (nan and
// inf parse). format_body writes the text parse_body reads back to the same
// BodyDef (fixed_rotation aside, which the text does not carry), its
// numbers as float_text writes them.
bool parse_body(std::string_view text, BodyDef* out, std::string* error);
std::string format_body(const BodyDef& def);
// A body's BodyDef as the last step left it: its pose and velocities.
BodyDef body_now(const Body& body);
// The shortest text (at most 9 significant digits) that reads back to the
// same float: 0.3, not 0.300000012. Not finite: "0".
std::string float_text(float v);

// Builds scene `name` into `world` (particles, parameters, box, obstacles,
// emitters, sinks; the parallel-for hook is kept). On failure returns false
// with every problem in *error (one per line) and leaves `world` untouched.
bool load_scene(World& world, std::string_view name, const SceneSetup& setup, std::string* error);

// Gives the running world's tank the aspect (width / height, within
// [kMinAspect, kMaxAspect]) with its area, carrying everything in it
// (World::transform): a quarter turn first when the tank changes between
// portrait and landscape by more than 1.5x, as a phone turned on its side
// turns its tank, then a stretch that keeps the water's volume. The tank
// lands with its corner at the origin. False, and nothing changed, for a
// grid solver, an aspect out of range, or a tank the water would not fit
// (fit_problems: its short side under four spacings), with the reason in
// *error.
bool fit_tank(World& world, float aspect, std::string* error = nullptr);

// Support radius per particle spacing. 2.8 gives about 24 neighbours in 2D,
// lattice sums within 0.2 % of rest density for both the poly6 and the cubic
// kernel, and a DFSPH that converges in a few iterations and settles
// calmly; with half as many neighbours the solver needs many more
// iterations and a resting column can go unstable.
constexpr float kSupportPerSpacing = 2.8f;

// Scenes set surface_threshold = kSurfaceThresholdTimesH / h unless it is
// given explicitly (see scenes.cpp).
constexpr float kSurfaceThresholdTimesH = 0.5f;

// Spacing, h and mass for `particles` particles filling `area` m^2 at rest
// density rho0: spacing = sqrt(area / n), h = kSupportPerSpacing * spacing,
// m = rho0 * spacing^2 (2D).
struct Resolution {
  float spacing, h, mass;
};
Resolution resolution_for(float area, int particles, float rest_density);

// A dam break with a column_w x column_h water column at the left wall of a
// tank_w x tank_h box (origin at the bottom left), as the scene
// "dam-break" (1 x 2 in 4 x 3: Koshizuka & Oka 1996) and the benchmark
// (1.6 x 2 in 4 x 3) build it. Returns false with *error like load_scene.
bool build_dam_break(World& world, float column_w, float column_h, float tank_w, float tank_h,
                     const SceneSetup& setup, std::string* error);

}  // namespace tidepool
