// Tidepool app — layout: the canvas's pixels, the UI scale and its fonts,
// the room the tank may use, the view that fits the tank into it, and the
// tank laid out again when the screen's shape changes.
#include <algorithm>
#include <cmath>

#include "imgui.h"
#include "imgui_impl_opengl3.h"

#include "app.h"

namespace tidepool::app {

// ---------------------------------------------------------------------------
// Sizes: canvas pixels, the view onto the container, the UI scale
// ---------------------------------------------------------------------------
namespace {

void rebuild_fonts(App& app, float ui_scale, float pixel_ratio) {
  ImGuiIO& io = ImGui::GetIO();
  // Rasterise the font at framebuffer resolution and scale it back by the
  // pixel ratio: crisp text on HiDPI screens. ui_scale / pixel_ratio is the
  // extra size for small (phone) screens.
  io.Fonts->Clear();
  ImFontConfig cfg;
  cfg.SizePixels = std::round(13.0f * ui_scale);
  io.Fonts->AddFontDefault(&cfg);
  io.FontGlobalScale = 1.0f / pixel_ratio;
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 6.0f;
  style.FrameRounding = 3.0f;
  style.Colors[ImGuiCol_WindowBg].w = 0.88f;
  style.ScaleAllSizes(ui_scale / pixel_ratio);
  // Before the backend's first NewFrame it builds the texture itself.
  if (app.gl_ready && app.imgui_gl_objects) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  app.ui_scale = ui_scale;
}

// The tank's room: the framebuffer (pixels, y down) less the page's
// controls and, on a wide screen, the open panel docked at the left. On a
// narrow one the panel, when opened, is drawn over the water and moves
// nothing. Before the panel's first frame its width is estimated.
struct Room {
  float x0, y0, x1, y1;
  float width() const { return std::max(x1 - x0, 1.0f); }
  float height() const { return std::max(y1 - y0, 1.0f); }
  // Less a small margin for the walls where they are drawn, smaller on
  // small screens.
  Room inside_walls(const App& app) const {
    if (!app.setup.walls) return *this;
    const float pr = app.pixel_ratio;
    const float m = std::clamp(0.02f * std::min(width(), height()), 6.0f * pr, 16.0f * pr);
    return {x0 + m, y0 + m, x1 - m, y1 - m};
  }
};
constexpr float kDockWidth = 900.0f;  // [CSS px] narrower screens overlay the panel

Room tank_room(const App& app, int dw, int dh) {
  const float pr = app.pixel_ratio;
  Room r{app.insets[3] * pr, app.insets[0] * pr, dw - app.insets[1] * pr, dh - app.insets[2] * pr};
  if (app.setup.ui && app.panel_open && dw / pr >= kDockWidth) {  // ui=0: no panel to make room for
    float right = 0.0f;
    for (const auto& rect : app.ui_rects) right = std::max(right, (rect[0] + rect[2]) * pr);
    if (app.ui_rects.empty()) right = 23.0f * 13.0f * app.ui_scale;  // 21 em of content, margins
    if (right <= 0.4f * dw) r.x0 = std::max(r.x0, right);
  }
  return r;
}

}  // namespace

void update_sizes(App& app) {
  int ww = 1, wh = 1, dw = 1, dh = 1;
  platform_sizes(app, &ww, &wh, &dw, &dh);
  app.pixel_ratio = std::max(static_cast<float>(dw) / ww, 0.25f);
  // Phones: a larger panel (fingers are wider than a mouse pointer).
  const float ui = app.pixel_ratio * (std::min(ww, wh) < 600 ? 1.3f : 1.0f);
  if (std::fabs(ui - app.ui_scale) > 0.01f) rebuild_fonts(app, ui, app.pixel_ratio);

  // The container fitted to its room, centred in it.
  const Room outer = tank_room(app, dw, dh), room = outer.inside_walls(app);
  const tidepool::Box& b = app.world.box();
  const float bw = std::max(b.max.x - b.min.x, 1e-3f), bh = std::max(b.max.y - b.min.y, 1e-3f);
  app.view.width = std::max(dw, 1);
  app.view.height = std::max(dh, 1);
  app.view.room = {outer.x0, outer.y0, outer.x1, outer.y1};
  app.view.scale = std::max(std::min(room.width() / bw, room.height() / bh), 1e-3f);
  const glm::vec2 shift(0.5f * (room.x0 + room.x1) - 0.5f * dw, 0.5f * dh - 0.5f * (room.y0 + room.y1));
  app.view.center = 0.5f * (b.min + b.max) - shift / app.view.scale;
}

// The room's shape, as a tank aspect.
float room_aspect(const App& app) {
  const Room room = tank_room(app, app.view.width, app.view.height).inside_walls(app);
  return std::clamp(room.width() / room.height(), tidepool::kMinAspect, tidepool::kMaxAspect);
}

// Lays the tank out again when the screen's shape has left it for a moment
// (a rotation, a resize once the hand lets go, the panel docked or closed),
// or at once when the page's controls moved:
// the particles are carried into the new tank (fit_tank), a grid scene is
// built again in it. Only a reset starts the water over.
namespace {
constexpr double kRelayoutDelayMs = 300.0;
constexpr float kRelayoutTolerance = 0.04f;  // |log(aspect ratio)| left alone
}  // namespace

void follow_screen(App& app, double now) {
  const float want = room_aspect(app);
  const bool at_once = app.relayout_now;
  app.relayout_now = false;
  if (std::fabs(std::log(want / app.tank_aspect)) < kRelayoutTolerance) {
    app.want_since_ms = -1.0;
    return;
  }
  if (!at_once) {
    if (app.want_since_ms < 0.0 || std::fabs(std::log(want / app.want_aspect)) > 0.01f) {
      app.want_aspect = want;  // still moving: wait for it to rest
      app.want_since_ms = now;
      return;
    }
    if (now - app.want_since_ms < kRelayoutDelayMs) return;
  }
  app.tank_aspect = want;
  app.want_since_ms = -1.0;
  if (!tidepool::fit_tank(app.world, want)) load(app, app.scene, app.particles_requested);
  update_sizes(app);
}

}  // namespace tidepool::app
