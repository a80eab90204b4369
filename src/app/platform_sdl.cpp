// Tidepool app — the platform natively: an SDL2 window with an OpenGL ES 3
// context, SDL's events, and Dear ImGui's SDL backend (platform.h).
#define SDL_MAIN_HANDLED  // we own main()
#include <SDL.h>

#include <algorithm>
#include <string>

#include "imgui.h"
#include "imgui_impl_sdl.h"

#include "app.h"
#include "platform.h"

namespace tidepool::app {

namespace {
SDL_Window* window = nullptr;
SDL_GLContext context = nullptr;

bool modifier_held() { return (SDL_GetModState() & (KMOD_SHIFT | KMOD_CTRL | KMOD_ALT | KMOD_GUI)) != 0; }
}  // namespace

bool platform_open(App&) {
  SDL_SetMainReady();
  // Touches arrive as finger events (each its own contact); SDL also turns
  // the first finger into mouse events, which only Dear ImGui uses.
  SDL_SetHint(SDL_HINT_TOUCH_MOUSE_EVENTS, "1");
  SDL_SetHint(SDL_HINT_MOUSE_TOUCH_EVENTS, "0");
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    web_error(std::string("Could not start SDL: ") + SDL_GetError());
    return false;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  window = SDL_CreateWindow("Tidepool", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 1280, 800,
                            SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (!window) {
    web_error(std::string("Could not create the window: ") + SDL_GetError());
    return false;
  }
  context = SDL_GL_CreateContext(window);
  if (!context) {
    web_error(std::string("Could not create an OpenGL ES 3 context: ") + SDL_GetError());
    return false;
  }
  SDL_GL_MakeCurrent(window, context);
  SDL_GL_SetSwapInterval(1);
  ImGui_ImplSDL2_InitForOpenGL(window, context);
  return true;
}

void platform_poll(App&, bool feed_ui, std::vector<InputEvent>* events) {
  int ww = 1, wh = 1;
  SDL_GetWindowSize(window, &ww, &wh);
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    if (feed_ui) ImGui_ImplSDL2_ProcessEvent(&e);
    InputEvent out;
    switch (e.type) {
      case SDL_QUIT: out.kind = InputEvent::Kind::Quit; break;
      case SDL_MOUSEBUTTONDOWN:
      case SDL_MOUSEBUTTONUP:
        // A finger's copy as a mouse (for ImGui) is not a second contact.
        if (e.button.which == SDL_TOUCH_MOUSEID) continue;
        if (e.button.button != SDL_BUTTON_LEFT && e.button.button != SDL_BUTTON_RIGHT) continue;
        out.kind = e.type == SDL_MOUSEBUTTONDOWN ? InputEvent::Kind::Down : InputEvent::Kind::Up;
        out.at = {static_cast<float>(e.button.x), static_cast<float>(e.button.y)};
        out.pull = e.button.button == SDL_BUTTON_RIGHT || modifier_held();
        break;
      case SDL_MOUSEMOTION:
        if (e.motion.which == SDL_TOUCH_MOUSEID) continue;
        out.at = {static_cast<float>(e.motion.x), static_cast<float>(e.motion.y)};
        break;
      case SDL_FINGERDOWN:
      case SDL_FINGERMOTION:
      case SDL_FINGERUP:
        out.kind = e.type == SDL_FINGERDOWN   ? InputEvent::Kind::Down
                   : e.type == SDL_FINGERUP ? InputEvent::Kind::Up
                                            : InputEvent::Kind::Move;
        out.id = std::max<int64_t>(static_cast<int64_t>(e.tfinger.fingerId), 0);
        out.at = {e.tfinger.x * ww, e.tfinger.y * wh};
        break;
      case SDL_KEYDOWN:
        out.kind = InputEvent::Kind::Key;
        if (e.key.keysym.sym == SDLK_SPACE) out.key = ' ';
        else if (e.key.keysym.sym == SDLK_r) out.key = 'r';
        else if (e.key.keysym.sym == SDLK_s) out.key = 's';
        break;
      case SDL_WINDOWEVENT:
        if (e.window.event != SDL_WINDOWEVENT_FOCUS_LOST && e.window.event != SDL_WINDOWEVENT_LEAVE) continue;
        out.kind = e.window.event == SDL_WINDOWEVENT_LEAVE ? InputEvent::Kind::Leave : InputEvent::Kind::FocusLost;
        break;
      default:
        continue;
    }
    events->push_back(out);
  }
}

void platform_new_frame(App&) { ImGui_ImplSDL2_NewFrame(); }

void platform_sizes(App&, int* window_w, int* window_h, int* pixels_w, int* pixels_h) {
  SDL_GetWindowSize(window, window_w, window_h);
  SDL_GL_GetDrawableSize(window, pixels_w, pixels_h);
  *window_w = std::max(*window_w, 1);
  *window_h = std::max(*window_h, 1);
  *pixels_w = std::max(*pixels_w, 1);
  *pixels_h = std::max(*pixels_h, 1);
}

bool platform_float_linear() { return false; }

void platform_swap(App&) { SDL_GL_SwapWindow(window); }

void platform_close(App&) {
  ImGui_ImplSDL2_Shutdown();
  SDL_GL_DeleteContext(context);
  SDL_DestroyWindow(window);
  SDL_Quit();
  context = nullptr;
  window = nullptr;
}

}  // namespace tidepool::app
