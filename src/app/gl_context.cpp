// Tidepool app — the GL lifetime: the context and the GL objects of Dear
// ImGui's renderer and of ours, made at start-up, dropped when the context
// is lost and made again when it is restored.
#include "imgui.h"
#include "imgui_impl_opengl3.h"

#include "app.h"

namespace tidepool::app {

// ---------------------------------------------------------------------------
// GL lifetime
// ---------------------------------------------------------------------------
namespace {
const char* const kGlslVersion = "#version 300 es";

bool gl_create(App& app, std::string* error) {
  if (!app.renderer.init(error) || !app.sharp_dye.init(platform_float_linear(), error)) return false;
  app.dye_loads = ~0ull;  // the sharp dye starts over on the next frame
  if (!ImGui_ImplOpenGL3_Init(kGlslVersion)) {
    *error = "Dear ImGui's OpenGL backend failed to start";
    return false;
  }
  app.gl_ready = true;
  app.imgui_gl_objects = false;
  return true;
}
}  // namespace

void gl_lost(App& app) {
  if (!app.gl_ready) return;
  app.gl_ready = false;
  // Every GL name died with the context: drop them without deleting.
  ImGui_ImplOpenGL3_Shutdown();
  app.renderer.forget();
  app.sharp_dye.forget();
  release_all_contacts(app);
}

void gl_restored(App& app) {
  if (app.gl_ready) return;
  std::string error;
  if (!gl_create(app, &error)) {
    web_error("Could not rebuild the graphics after the context was restored: " + error);
    return;
  }
  app.ui_scale = 0.0f;  // rebuild the font atlas on the next frame
}

// Dear ImGui, the window and its context with ImGui's platform half on it
// (platform_open), and the GL objects of ImGui's renderer and of ours.
// False, reported through web_error(), if they cannot be made.
bool start_graphics(App& app) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini: nothing to write on the web, no litter natively
  if (!platform_open(app)) return false;
  std::string error;
  if (!gl_create(app, &error)) {
    web_error("Could not set up the graphics: " + error);
    return false;
  }
  return true;
}

}  // namespace tidepool::app
