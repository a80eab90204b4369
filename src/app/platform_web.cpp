// Tidepool app — the platform in the browser: a WebGL 2 context on the
// page's #canvas and the page's own mouse, touch, wheel, key and focus
// events through Emscripten's html5.h, which also feed Dear ImGui
// (platform.h). SDL would bring its software blitters, surfaces and event
// queue into the page for none of this.
//
// Every event handler only queues what it saw; the frame takes the queue
// in platform_poll(), as it would take SDL's.
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "imgui.h"

#include "app.h"
#include "platform.h"

namespace tidepool::app {

namespace {

constexpr const char* kCanvas = "#canvas";

EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = 0;
bool float_linear = false;  // OES_texture_float_linear, enabled
std::vector<InputEvent> queue;

// Dear ImGui's mouse, from the mouse or else the first finger down. A
// press and release within one frame must still be seen as a click: a
// press holds its button down for the next frame (`pressed`).
struct UiMouse {
  glm::vec2 at{-1.0f};
  bool held[3] = {false, false, false};
  bool pressed[3] = {false, false, false};
  float wheel = 0.0f;
  long finger = -1;  // the finger ImGui follows
} ui;
bool focus_lost = false;
ImGuiMouseCursor cursor = ImGuiMouseCursor_Arrow;
double last_ms = 0.0;

void push(InputEvent::Kind kind, int64_t id, float x, float y, bool pull = false) {
  InputEvent e;
  e.kind = kind;
  e.id = id;
  e.at = {x, y};
  e.pull = pull;
  queue.push_back(e);
}

// Mouse buttons 0 (left), 1 (middle) and 2 (right) in DOM numbering;
// ImGui's are 0 (left), 1 (right), 2 (middle).
int ui_button(unsigned short dom) { return dom == 1 ? 2 : dom == 2 ? 1 : dom == 0 ? 0 : -1; }

EM_BOOL on_mouse(int type, const EmscriptenMouseEvent* e, void*) {
  const float x = static_cast<float>(e->targetX), y = static_cast<float>(e->targetY);
  const int b = ui_button(e->button);
  if (type == EMSCRIPTEN_EVENT_MOUSEMOVE) {
    ui.at = {x, y};
    push(InputEvent::Kind::Move, kMouse, x, y);
    return EM_FALSE;
  }
  if (type == EMSCRIPTEN_EVENT_MOUSELEAVE) {
    push(InputEvent::Kind::Leave, kMouse, x, y);
    return EM_FALSE;
  }
  if (type == EMSCRIPTEN_EVENT_MOUSEDOWN) {
    ui.at = {x, y};
    if (b >= 0) ui.held[b] = ui.pressed[b] = true;
    if (e->button == 0 || e->button == 2)
      push(InputEvent::Kind::Down, kMouse, x, y,
           e->button == 2 || e->shiftKey || e->ctrlKey || e->altKey || e->metaKey);
    // The canvas takes the focus (and so the keys) as usual; only the
    // middle button's page scrolling is refused.
    return e->button == 1;
  }
  // mouseup, heard on the whole document: a drag may end outside.
  if (b >= 0) ui.held[b] = false;
  if (e->button == 0 || e->button == 2) push(InputEvent::Kind::Up, kMouse, x, y);
  return EM_FALSE;
}

EM_BOOL on_wheel(int, const EmscriptenWheelEvent* e, void*) {
  // Lines, pages or pixels; about 100 pixels a notch.
  const double unit = e->deltaMode == DOM_DELTA_PIXEL ? 100.0 : e->deltaMode == DOM_DELTA_LINE ? 3.0 : 1.0;
  ui.wheel -= static_cast<float>(e->deltaY / unit);
  // Over the panel the wheel scrolls it; over the water the page scrolls
  // (an embed in a post must not trap the reader's wheel).
  return ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureMouse;
}

// `pans_scroll` (a bool): the page is a background (bg=transparent), whose
// host scrolls under a finger's vertical pan.
EM_BOOL on_touch(int type, const EmscriptenTouchEvent* e, void* pans_scroll) {
  for (int i = 0; i < e->numTouches; ++i) {
    const EmscriptenTouchPoint& t = e->touches[i];
    if (!t.isChanged) continue;
    const float x = static_cast<float>(t.targetX), y = static_cast<float>(t.targetY);
    const int64_t id = std::max<int64_t>(t.identifier, 0);  // never kMouse
    if (type == EMSCRIPTEN_EVENT_TOUCHSTART) {
      push(InputEvent::Kind::Down, id, x, y);
      if (ui.finger < 0) {
        ui.finger = t.identifier;
        ui.at = {x, y};
        ui.held[0] = ui.pressed[0] = true;
      }
    } else if (type == EMSCRIPTEN_EVENT_TOUCHMOVE) {
      push(InputEvent::Kind::Move, id, x, y);
      if (ui.finger == t.identifier) ui.at = {x, y};
    } else {
      push(InputEvent::Kind::Up, id, x, y);
      if (ui.finger == t.identifier) {
        ui.finger = -1;
        ui.held[0] = false;
      }
    }
  }
  // Touches on the water are the toy's: no scrolling, zooming or mouse
  // events made up from them. A background lets the browser have a
  // vertical pan (its canvas has touch-action: pan-y, shell/index.html),
  // which a touch it cancelled would stop.
  return *static_cast<const bool*>(pans_scroll) ? EM_FALSE : EM_TRUE;
}

// DOM keyCode values: Dear ImGui's key map indexes io.KeysDown with them.
void map_keys(ImGuiIO& io) {
  const struct { ImGuiKey key; int code; } keys[] = {
      {ImGuiKey_Tab, 9},        {ImGuiKey_LeftArrow, 37}, {ImGuiKey_RightArrow, 39}, {ImGuiKey_UpArrow, 38},
      {ImGuiKey_DownArrow, 40}, {ImGuiKey_PageUp, 33},    {ImGuiKey_PageDown, 34},   {ImGuiKey_Home, 36},
      {ImGuiKey_End, 35},       {ImGuiKey_Insert, 45},    {ImGuiKey_Delete, 46},     {ImGuiKey_Backspace, 8},
      {ImGuiKey_Space, 32},     {ImGuiKey_Enter, 13},     {ImGuiKey_Escape, 27},     {ImGuiKey_KeyPadEnter, 13},
      {ImGuiKey_A, 65},         {ImGuiKey_C, 67},         {ImGuiKey_V, 86},          {ImGuiKey_X, 88},
      {ImGuiKey_Y, 89},         {ImGuiKey_Z, 90}};
  for (const auto& k : keys) io.KeyMap[k.key] = k.code;
}

EM_BOOL on_key(int type, const EmscriptenKeyboardEvent* e, void*) {
  ImGuiIO& io = ImGui::GetIO();
  if (type == EMSCRIPTEN_EVENT_KEYPRESS) {
    if (e->charCode >= 32) io.AddInputCharacter(e->charCode);
    return EM_FALSE;
  }
  const bool down = type == EMSCRIPTEN_EVENT_KEYDOWN;
  const unsigned long code = e->keyCode;
  if (code < 512) io.KeysDown[code] = down;
  io.KeyShift = e->shiftKey;
  io.KeyCtrl = e->ctrlKey;
  io.KeyAlt = e->altKey;
  io.KeySuper = e->metaKey;
  if (down && !e->repeat) {
    InputEvent k;
    k.kind = InputEvent::Kind::Key;
    k.key = code == 32 ? ' ' : code == 82 ? 'r' : code == 83 ? 's' : 0;
    queue.push_back(k);
  }
  // Keys that would move the page or the focus, while they mean something
  // here; a printable key's default is kept, or its keypress (the
  // character) never comes.
  const bool navigation = code == 8 || code == 9 || (code >= 33 && code <= 40);
  return down && (navigation || (code == 32 && !io.WantTextInput));
}

EM_BOOL on_blur(int, const EmscriptenFocusEvent*, void*) {
  focus_lost = true;
  InputEvent e;
  e.kind = InputEvent::Kind::FocusLost;
  queue.push_back(e);
  return EM_FALSE;
}

const char* css_cursor(ImGuiMouseCursor c) {
  switch (c) {
    case ImGuiMouseCursor_TextInput: return "text";
    case ImGuiMouseCursor_ResizeAll: return "move";
    case ImGuiMouseCursor_ResizeNS: return "ns-resize";
    case ImGuiMouseCursor_ResizeEW: return "ew-resize";
    case ImGuiMouseCursor_ResizeNESW: return "nesw-resize";
    case ImGuiMouseCursor_ResizeNWSE: return "nwse-resize";
    case ImGuiMouseCursor_Hand: return "pointer";
    case ImGuiMouseCursor_NotAllowed: return "not-allowed";
    default: return "";
  }
}

}  // namespace

bool platform_open(App& app) {
  // The page (shell/index.html, makeContext) has made the canvas's context
  // already, with these attributes, and this call gets it back: the two
  // lists must stay alike.
  EmscriptenWebGLContextAttributes attrs;
  emscripten_webgl_init_context_attributes(&attrs);
  attrs.majorVersion = 2;
  attrs.minorVersion = 0;
  // Opaque, unless a host page asked to show through (--bg transparent):
  // then the frame is premultiplied, as the renderer blends throughout.
  attrs.alpha = app.setup.transparent ? EM_TRUE : EM_FALSE;
  attrs.premultipliedAlpha = EM_TRUE;
  attrs.depth = EM_FALSE;
  attrs.stencil = EM_FALSE;
  attrs.antialias = EM_FALSE;
  // Only what WebGL 2 has without extensions: enabling each one the browser
  // offers (Emscripten's default) costs a round trip to its GPU process apiece.
  attrs.enableExtensionsByDefault = EM_FALSE;
  context = emscripten_webgl_create_context(kCanvas, &attrs);
  if (context <= 0) {
    web_error("Could not create a WebGL 2 context.");
    return false;
  }
  emscripten_webgl_make_context_current(context);
  // Float render targets, for the page's sharp dye (dye.cpp); without them
  // it draws the core's dye.
  emscripten_webgl_enable_extension(context, "EXT_color_buffer_float");
  float_linear = emscripten_webgl_enable_extension(context, "OES_texture_float_linear");

  emscripten_set_mousedown_callback(kCanvas, nullptr, EM_FALSE, on_mouse);
  emscripten_set_mousemove_callback(kCanvas, nullptr, EM_FALSE, on_mouse);
  emscripten_set_mouseleave_callback(kCanvas, nullptr, EM_FALSE, on_mouse);
  emscripten_set_mouseup_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, nullptr, EM_FALSE, on_mouse);
  emscripten_set_wheel_callback(kCanvas, nullptr, EM_FALSE, on_wheel);
  static bool pans_scroll = false;
  pans_scroll = app.setup.transparent;
  emscripten_set_touchstart_callback(kCanvas, &pans_scroll, EM_FALSE, on_touch);
  emscripten_set_touchmove_callback(kCanvas, &pans_scroll, EM_FALSE, on_touch);
  emscripten_set_touchend_callback(kCanvas, &pans_scroll, EM_FALSE, on_touch);
  emscripten_set_touchcancel_callback(kCanvas, &pans_scroll, EM_FALSE, on_touch);
  // Keys only while the canvas has the focus: the page keeps its own.
  emscripten_set_keydown_callback(kCanvas, nullptr, EM_FALSE, on_key);
  emscripten_set_keyup_callback(kCanvas, nullptr, EM_FALSE, on_key);
  emscripten_set_keypress_callback(kCanvas, nullptr, EM_FALSE, on_key);
  emscripten_set_blur_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, on_blur);

  ImGuiIO& io = ImGui::GetIO();
  io.BackendPlatformName = "tidepool_html5";
  io.BackendFlags |= ImGuiBackendFlags_HasMouseCursors;
  map_keys(io);
  return true;
}

void platform_poll(App&, bool feed_ui, std::vector<InputEvent>* events) {
  events->insert(events->end(), queue.begin(), queue.end());
  queue.clear();
  if (!feed_ui) return;
  ImGuiIO& io = ImGui::GetIO();
  if (focus_lost) {
    focus_lost = false;
    io.AddFocusEvent(false);
    ui = UiMouse();
  }
}

void platform_new_frame(App& app) {
  ImGuiIO& io = ImGui::GetIO();
  int ww, wh, dw, dh;
  platform_sizes(app, &ww, &wh, &dw, &dh);
  io.DisplaySize = ImVec2(static_cast<float>(ww), static_cast<float>(wh));
  io.DisplayFramebufferScale = ImVec2(static_cast<float>(dw) / ww, static_cast<float>(dh) / wh);
  const double now = emscripten_get_now();
  io.DeltaTime = last_ms > 0.0 ? static_cast<float>(std::max(now - last_ms, 0.1) / 1000.0) : 1.0f / 60.0f;
  last_ms = now;

  io.MousePos = ImVec2(ui.at.x, ui.at.y);
  for (int b = 0; b < 3; ++b) {
    io.MouseDown[b] = ui.held[b] || ui.pressed[b];
    ui.pressed[b] = false;
  }
  io.MouseWheel += ui.wheel;
  ui.wheel = 0.0f;

  const ImGuiMouseCursor want = io.MouseDrawCursor ? ImGuiMouseCursor_None : ImGui::GetMouseCursor();
  if (want != cursor) {
    cursor = want;
    EM_ASM({ document.getElementById('canvas').style.cursor = UTF8ToString($0); }, css_cursor(want));
  }
}

void platform_sizes(App&, int* window_w, int* window_h, int* pixels_w, int* pixels_h) {
  double cw = 1.0, ch = 1.0;
  emscripten_get_element_css_size(kCanvas, &cw, &ch);
  const double ratio = emscripten_get_device_pixel_ratio();
  *window_w = std::max(static_cast<int>(std::lround(cw)), 1);
  *window_h = std::max(static_cast<int>(std::lround(ch)), 1);
  const int want_w = std::max(static_cast<int>(std::lround(cw * ratio)), 1);
  const int want_h = std::max(static_cast<int>(std::lround(ch * ratio)), 1);
  int have_w = 0, have_h = 0;
  emscripten_get_canvas_element_size(kCanvas, &have_w, &have_h);
  if (have_w != want_w || have_h != want_h) emscripten_set_canvas_element_size(kCanvas, want_w, want_h);
  *pixels_w = want_w;
  *pixels_h = want_h;
}

bool platform_float_linear() { return float_linear; }

void platform_swap(App&) {}

void platform_close(App&) {}

}  // namespace tidepool::app
