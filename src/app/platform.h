// Tidepool app — the platform: the window, its OpenGL ES 3 context, input
// events and Dear ImGui's platform half. Two implementations with one
// interface: platform_web.cpp (the browser's own events and WebGL 2 through
// Emscripten's html5.h: no SDL in the page, which keeps it light) and
// platform_sdl.cpp (SDL2, natively). The rest of the app sees only this.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>

namespace tidepool::app {

struct App;

// The mouse's contact id; a finger's is its own (never negative).
constexpr int64_t kMouse = -1;

// What the app's input handling needs from one event. Positions are in
// window units (CSS pixels in the browser), from the canvas's top left.
struct InputEvent {
  enum class Kind { Down, Move, Up, Key, FocusLost, Quit, Leave };  // Leave: the mouse left the canvas
  Kind kind = Kind::Move;
  int64_t id = kMouse;
  glm::vec2 at{0.0f};
  bool pull = false;  // Down: the right button, or a modifier key held
  char key = 0;       // Key: ' ', 'r' or 's' (the app's shortcuts), else 0
};

// The window and its context, made current, and Dear ImGui's platform
// backend on it (ImGui's context must exist). False, reported through
// web_error(), if any is missing.
bool platform_open(App& app);
// The events since the last call, in order. Dear ImGui has been fed them
// already (when `feed_ui`).
void platform_poll(App& app, bool feed_ui, std::vector<InputEvent>* events);
// Dear ImGui's platform half of a new frame: display size, time, mouse.
void platform_new_frame(App& app);
// The window's size in window units and its drawing buffer's in pixels,
// each at least 1; in the browser the buffer is sized here to the canvas's
// CSS size times window.devicePixelRatio.
void platform_sizes(App& app, int* window_w, int* window_h, int* pixels_w, int* pixels_h);
// Whether 32-bit float textures can be filtered linearly (WebGL 2's
// OES_texture_float_linear; natively, not counted on).
bool platform_float_linear();
// Shows the frame (natively; the browser shows it when the frame returns).
void platform_swap(App& app);
// Natively: ImGui's platform backend, the context and the window, gone.
void platform_close(App& app);

}  // namespace tidepool::app
