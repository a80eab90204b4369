// Tidepool app — state shared by the app's parts (main loop, input, panel,
// renderer, web API). All of it lives in one App struct owned by main();
// nothing here is global except the pointer web_api.cpp needs to reach it
// from JavaScript.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "tidepool/scenes.h"
#include "tidepool/world.h"

#include "dye.h"
#include "setup.h"
#include "platform.h"
#include "quality.h"
#include "renderer.h"
#include "thread_choice.h"
#include "thread_pool.h"

namespace tidepool::app {

// A warning the user (or a test) can see: console.warn on the web, stderr natively.
void warn(const std::string& text);

// ---------------------------------------------------------------------------
// Input: a contact is the mouse (id -1) or one finger; each active contact
// becomes one PointerForce, draws/erases obstacles with the obstacle tools,
// or drops and drags rigid bodies with the body tool.
// ---------------------------------------------------------------------------
// Pull is Push with every contact pulling: fingers have no right button.
enum class Tool : int { Push = 0, Draw = 1, Erase = 2, Pull = 3, Body = 4 };
const char* tool_name(Tool tool);

struct Contact {
  bool pull = false;            // right button or a modifier: pulls in
  bool captured = false;        // began on the panel: never reaches the fluid
  glm::vec2 pixel{0.0f};        // framebuffer pixels, y down
  glm::vec2 world{0.0f};        // simulation units
  glm::vec2 velocity{0.0f};     // drag velocity [m/s] over the last kDragWindow
  glm::vec2 last_world{0.0f};   // at the previous frame
  // Recent (input clock, world position) samples: the velocity is the
  // displacement across a short window, steady however unevenly the
  // browser delivers events between frames.
  std::vector<std::pair<double, glm::vec2>> trail;
  glm::vec2 stroke_end{0.0f};   // obstacle tool: end of the last capsule
  bool stroke_drew = false;
  // Body tool: where the contact came down [m], whether it came down on a
  // body (then it drags it; elsewhere a tap drops one), and the id of the
  // body it holds (-1: none, or that body is gone).
  glm::vec2 start{0.0f};
  bool on_body = false;
  int body = -1;
};

struct PointerReport {
  glm::vec2 position;
  int affected;        // particles (a grid's fluid cells) within the radius
  glm::vec2 velocity;  // their mean velocity [m/s]: shows the force acting
  glm::vec2 drag;      // the pointer's own velocity [m/s]
};

struct Stats {
  uint64_t frame = 0;           // frames rendered so far
  float fps = 0.0f;
  float sim_ms = 0.0f;          // simulation time per frame, smoothed
  float frame_ms = 0.0f;        // all of frame() (CPU side, GL calls issued), smoothed
  int substeps = 0;             // in the last frame
  int ticks = 0;                // fixed ticks in the last frame
  tidepool::FrameStats last;    // summed over the last frame's ticks
};

// World <-> framebuffer pixel mapping: the container fitted to the canvas.
struct View {
  int width = 1, height = 1;   // framebuffer pixels
  glm::vec2 center{0.0f};      // world point at the canvas centre
  float scale = 1.0f;          // pixels per metre
  // The part the tank may use (x0, y0, x1, y1, framebuffer pixels, y
  // down): the canvas less the page's controls and a docked panel.
  std::array<float, 4> room{0.0f, 0.0f, 1.0f, 1.0f};
  glm::vec2 to_world(glm::vec2 px) const {
    return center + glm::vec2(px.x - 0.5f * width, 0.5f * height - px.y) / scale;
  }
};

struct App {
  Setup setup;  // what the user asked for at the start (main.cpp builds the world from it)
  // Runs the world's per-particle loops (World::set_parallel_for); every
  // World the app makes gets its hook (load() in scene.cpp). Declared before
  // the world, so it outlives it.
  std::unique_ptr<tidepool::ThreadPool> pool;
  // Whether a frame runs on the pool or on this thread (simulate()): the
  // pool's threads do not pay on every device at every moment.
  tidepool::ThreadChoice thread_choice;
  tidepool::World world;
  std::string scene;
  int particles_requested = 0;  // the user's count; 0: auto quality's, else the scene's
  AutoQuality quality;          // on the web, unless the user fixed the count
  // Parameters changed in the panel or through setParam: they survive a
  // reset (and a particle-count change), but not a change of scene.
  std::map<std::string, float> overrides;
  // A share link's rigid bodies, which load() puts in place of the scene's
  // own (SceneSetup::bodies); like the overrides they survive a reset, not a
  // change of scene. Unset: the scene's own bodies.
  std::optional<std::vector<tidepool::BodyDef>> link_bodies;
  // The liquid's method the user picked (--solver, the touch bar, the
  // panel): it goes with them from one particle scene to the next. -1: each
  // scene's own.
  float liquid_solver = -1.0f;
  std::string param_error;  // last rejected edit, shown in the panel
  // The tank's shape (width / height) the scene was laid out for: the
  // screen's, less the page's controls and a docked panel (update_sizes()).
  // When the screen's shape leaves it for a moment, the tank is laid out
  // again (fit_tank: the water kept) and this follows.
  float tank_aspect = 0.0f;
  float want_aspect = 0.0f;     // the screen's shape, while it differs
  double want_since_ms = -1.0;  // since when
  // The page's controls moved (the touch bar shown or turned): one step,
  // not a hand still resizing, so the tank follows on the next frame.
  bool relayout_now = false;

  bool paused = false;
  bool step_once = false;
  bool awake = true;        // page visible and on screen
  bool gl_ready = false;    // GL resources exist (false while the context is lost)
  bool imgui_gl_objects = false;  // the ImGui backend has made its GL objects
  bool quit = false;

  // Timing: a fixed tick through an accumulator clamped against catch-up.
  double last_time_ms = -1.0;
  double accumulator = 0.0;
  // Simulated seconds per real second over the last frames: 1 when the
  // simulation keeps up, less in slow motion. Drag velocities are taken
  // in simulated time, so a paddle moves the water as far as it moved.
  float time_scale = 1.0f;
  double input_clock = 0.0;  // [s] frame time x time_scale; paused, the steps' time
  double scale_sim = 0.0, scale_real = 0.0;  // its averaging window
  double fps_window_start = 0.0;
  int fps_window_frames = 0;

  // Tilt (the page's, from the device's orientation; set_tilt()): while on,
  // gravity is the scene's |g| along tilt_down, the world's down direction
  // projected on the screen's plane (shorter as the screen lies flatter).
  // `gravity` is the scene's own, with the panel's edits, restored when
  // tilt goes off.
  bool tilt = false;
  glm::vec2 tilt_down{0.0f, -1.0f};
  glm::vec2 gravity{0.0f, -9.81f};

  // Input.
  // Until the first touch, click, key or scripted change, a slow stir
  // moves the water (idle_force()), so an untouched page is plainly alive.
  bool idle = true;
  Tool tool = Tool::Push;
  float pointer_radius = 0.2f;    // [m], set per scene
  float pointer_strength = 40.0f;  // [m/s^2]
  float pointer_stir = 20.0f;     // [1/s]
  float obstacle_radius = 0.04f;  // [m], set per scene
  int next_body = 0;              // body tool: the shape a tap drops next (body_tool_shape())
  std::map<int64_t, Contact> contacts;  // kMouse, or a finger's id
  std::vector<tidepool::PointerForce> forces;
  // --hover: the mouse over the canvas with no button held, while it moves
  // (its trail gives the velocity; a pause or leaving the canvas ends it,
  // so a pointer that comes back starts from rest).
  Contact hover;
  bool hovering = false;
  double hover_moved = -1.0;  // input clock of its last move
  Look look;                  // the colours and the show (setup.look, the panel's pickers)

  // Panel.
  bool panel_open = true;
  // The page's own controls (a touch bar): the CSS pixels they cover along
  // the top, right, bottom and left edges. While the page has them, the
  // folded panel shows nothing: the page opens it.
  bool page_controls = false;
  std::array<float, 4> insets{0.0f, 0.0f, 0.0f, 0.0f};
  // Rectangles (x, y, w, h in window units) of the panel's windows this
  // frame: a finger that lands there belongs to the panel, not the water.
  std::vector<std::array<float, 4>> ui_rects;
  float ui_scale = 0.0f;               // font/size scale the ImGui atlas was built for

  float pixel_ratio = 1.0f;  // framebuffer pixels per window unit
  View view;
  Renderer renderer;
  SharpDye sharp_dye;  // a grid scene's dye at the page's resolution (dye.h)
  uint64_t loads = 0;       // scenes loaded so far (load())
  uint64_t dye_loads = ~0ull;  // the load the sharp dye was started for
  int dye_side = 0;         // its texels along the long side; -1: this device cannot hold it
  RenderSettings render;
  Stats stats;
};

// Scene control (scene.cpp).
bool load(App& app, const std::string& scene, int particles);  // false: unknown scene (warned)
// A disc or capsule inside the tank (or within its size of it): its id, or
// -1 with a warning, nothing added.
int add_obstacle(App& app, const tidepool::Obstacle& o);
// The particle count chosen for the scene: `requested` if set, else auto
// quality's; 0 where neither chose (the scene's own count).
int chosen_particles(const App& app, int requested);
bool set_param(App& app, const std::string& name, float value, std::string* error);
bool set_param_text(App& app, const std::string& name, const std::string& text, std::string* error);
// Tilt on or off, with down = the projected down direction (|down| <= 1);
// false (and nothing changed) for a non-finite or longer one.
bool set_tilt(App& app, bool on, glm::vec2 down);
// The page's controls along each edge (top, right, bottom, left; CSS
// pixels, each within [0, 4096]); false (nothing changed) otherwise.
bool set_page_controls(App& app, const std::array<float, 4>& insets);
std::vector<std::pair<std::string, float>> override_list(const App& app);
// The pool's threads (1 before it exists).
int pool_threads(const App& app);
// The threads the frames run on now: the pool's, or 1 where one thread's
// frames ran faster (App::thread_choice).
int threads_in_use(const App& app);

// Whether the page draws its sharp dye (else the core's): asked for, and
// held on this device.
inline bool drawn_dye(const App& app) { return app.setup.gpu_dye && app.sharp_dye.ready(); }

// The show (show.cpp).
// What a tick at simulated time t pushes with: the contacts' forces, each
// given the palette's colours in turn, the idle motion's and the show's
// splat.
std::vector<tidepool::PointerForce> tick_forces(const App& app, double t);

// Input (input.cpp).
void handle_input(App& app, const InputEvent& event, bool ui_wants_mouse);
void update_forces(App& app, float frame_dt);
void release_all_contacts(App& app);
// Ends the idle motion for good, and its force at once.
void end_idle(App& app);
// The idle motion's force at simulated time t, a function of the time and
// the water alone, so that its ticks do the same however a page's frames
// group them; false once ended, before it starts, or in a cavity.
bool idle_force(const App& app, double t, tidepool::PointerForce* out);
float eraser_radius(const App& app);
// The body tool's shapes, dropped in turn: 0 a box, 1 a disc, 2 a boat.
constexpr int kBodyToolShapes = 3;
const char* body_tool_shape(int next);
// The body tool's next shape as dropped at `at` [m]: sized for the tank (the
// pool's sizes scaled with its linear size), kept inside it. Returns the
// body's id, or -1 with a warning naming the problem.
int drop_body(App& app, glm::vec2 at);
// Lets go of every body a contact holds (World::release_body) and forgets
// the holds: before the contacts go, or the world they refer to.
void release_held_bodies(App& app);
// Whether a contact pulls the water in: the pull tool, or push with the
// right button or a modifier held (and the other way round).
inline bool pulls(const App& app, const Contact& c) { return c.pull != (app.tool == Tool::Pull); }

// Panel (panel.cpp).
void draw_panel(App& app);

// The running toy as a Setup (share.cpp): format_link of it is its share link.
Setup running_setup(const App& app);

// The page's bridge (web_api.cpp).
void web_started(App& app);
void web_error(const std::string& text);
// The JSON the page reads (reports.cpp): stats(), info() (scenes, colours,
// params with values), bodies() and dye().
std::string stats_json(const App& app);
std::string info_json(const tidepool::Params& params);
std::string bodies_json(const App& app);
std::string dye_json(const App& app);

// Screenshots (screenshot.cpp): the frame being drawn (GL's back buffer) as
// an RGB PNG. False with a message if the file cannot be written.
bool save_screenshot(const std::string& path, int width, int height, std::string* error);
bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb_top_down,
               std::string* error);

// GL lifetime (gl_context.cpp): the context-lost path tears down and rebuilds both.
void gl_lost(App& app);
void gl_restored(App& app);
// Dear ImGui, the window, its GL context and every GL object; false (reported
// through web_error()) if any of them cannot be made.
bool start_graphics(App& app);

// Time and the fixed tick (tick.cpp).
// Milliseconds on a steady clock (the page's performance.now() on the web).
double now_ms();
// [s] the most real time one frame may owe the simulation (or the input):
// the rest of a long pause is not caught up.
constexpr double kMaxFrameTime = 0.1;
// The fixed ticks a frame of `frame_time` [s] owes (none while paused, one
// step with step_once), their stats into app.stats, auto quality's resize.
void simulate(App& app, double frame_time);
// `frames` fixed 1/60 s ticks at once, whatever the clock says (paused or
// not): the same state from the same start in every build and thread count.
void advance_frames(App& app, int frames);
// Page hidden or scrolled away: stop the loop, resume where it was.
void set_awake(App& app, bool awake);

// Layout (layout.cpp).
// The view fitted to the canvas's current size and the tank's room, and the
// panel's fonts rebuilt when the UI scale changed.
void update_sizes(App& app);
// The room's shape as a tank aspect, within [kMinAspect, kMaxAspect].
float room_aspect(const App& app);
// The tank laid out again once the screen's shape has left it for a moment
// (`now` from now_ms()); the water kept where fit_tank can.
void follow_screen(App& app, double now);

// Measurements the page's stats() reports (measure.cpp), taken when asked:
// the particles' mean position (0 for a grid), and one PointerReport per
// force in app.forces, for the world as it is.
glm::vec2 water_mean(const tidepool::World& world);
std::vector<PointerReport> pointer_reports(const App& app);

}  // namespace tidepool::app
