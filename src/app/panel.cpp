// Tidepool app — the Dear ImGui panel. Every engine parameter's widget,
// range and tooltip comes from tidepool::param_table(): nothing about the
// parameters is written here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "imgui.h"

#include "app.h"

namespace tidepool::app {

namespace {

constexpr int kParticleSliderMax = 40000;  // Ctrl+click the slider to type up to kMaxParticles

void remember_window(App& app) {
  const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  app.ui_rects.push_back({p.x, p.y, s.x, s.y});
}

void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

// A message in `colour`, wrapped at the panel's fixed width, which would
// cut a long line off.
void message(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

std::vector<std::string> split_choices(const char* choices) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* c = choices ? choices : ""; *c; ++c) {
    if (*c == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += *c;
    }
  }
  if (!cur.empty() || !out.empty()) out.push_back(cur);
  return out;
}

void stats_section(App& app) {
  const Stats& s = app.stats;
  const tidepool::FrameStats& f = s.last;
  ImGui::Text("%.0f fps  sim %.1f ms  %d substeps", s.fps, s.sim_ms, s.substeps);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("whole frame on the CPU: %.2f ms (simulation, drawing calls, panel)", s.frame_ms);
  // A grid scene's grid exists from its first step (or its first dye) on.
  const tidepool::FieldView* field = app.world.field();
  const tidepool::SceneInfo* scene = tidepool::find_scene(app.scene);
  const bool grid = field || (scene && scene->default_particles == 0);
  if (grid)
    ImGui::Text("%d x %d cells  t %.2f s  dt %.2f ms", field ? field->nx : 0, field ? field->ny : 0,
                app.world.time(), 1000.0f * f.dt);
  else
    ImGui::Text("%d particles  t %.2f s  dt %.2f ms", app.world.count(), app.world.time(), 1000.0f * f.dt);
  const int threads = threads_in_use(app), pool = pool_threads(app);
  if (threads < pool) {
    ImGui::Text("1 thread (%d measured slower here)", pool);
  } else {
    ImGui::Text("%d thread%s", threads, threads > 1 ? "s" : "");
  }
  if (ImGui::IsItemHovered()) {
    char cores[64];
    std::snprintf(cores, sizeof cores, "simulation threads: one per core, at most %d", kMaxThreads);
    if (pool > 1) {
      // ThreadChoice: the other choice's frames over this one's, 0 before any.
      ImGui::SetTooltip("%s\none frame in %d runs on %s, to keep whichever is faster\n"
                        "(it took %.2fx the time of these, median of the last)",
                        cores, tidepool::ThreadChoice::kEvery, threads > 1 ? "one thread" : "all of them",
                        app.thread_choice.other_over_current());
    } else if (tidepool::kThreadsAvailable) {
      ImGui::SetTooltip("%s", cores);
    } else {
      ImGui::SetTooltip("this build has no threads (the page is not cross-origin isolated, or ?threads=1)");
    }
  }
  if (grid) {
    // The projection: its iterations over the frame's substeps, the last
    // one's residual (relative to the divergence it started from) and the
    // divergence it left.
    ImGui::Text("projection %d iter.  residual %.0e", f.solver_iterations, f.solver_error);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("pressure projection: iterations summed over the frame's %d substeps;\n"
                        "residual of the last, relative to the divergence it started from",
                        s.substeps);
    ImGui::Text("max |div u| %.1e /s  |u| %.2f m/s", f.max_divergence, f.max_speed);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("largest velocity divergence the projection left, and the largest speed");
  } else {
    ImGui::Text("density error %.2f%% (max %.1f%%)", 100.0f * f.mean_density_error, 100.0f * f.max_density_error);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("|rho / rho0 - 1| over the water's bulk: every particle at least half as dense as rho0");
    if (f.spray > 0) {
      ImGui::SameLine();
      ImGui::TextDisabled("%d spray", f.spray);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("particles with less than half a neighbourhood (drops in flight),\n"
                          "left out of the density error");
    }
    if (app.world.params().solver == tidepool::Solver::DFSPH)
      ImGui::Text("iterations %d (+%d divergence)", f.solver_iterations, f.divergence_iterations);
  }
  const ImVec4 amber(1.0f, 0.7f, 0.3f, 1.0f);
  if (f.substep_cap_hit) message(amber, "slow motion: more substeps needed than max_substeps");
  if (f.work_cap_hit) message(amber, "slow motion: a frame's work reached work_bound");
  if (f.contained) message(amber, "safety net caught " + std::to_string(f.contained_particles) + " particles");
}

void scene_section(App& app) {
  if (ImGui::Button(app.paused ? "Resume" : "Pause")) app.paused = !app.paused;
  tooltip("Space");
  ImGui::SameLine();
  ImGui::BeginDisabled(!app.paused);
  if (ImGui::Button("Step")) app.step_once = true;
  ImGui::EndDisabled();
  tooltip("One substep while paused (S)");
  ImGui::SameLine();
  if (ImGui::Button("Reset")) load(app, app.scene, app.particles_requested);
  tooltip("Restart the scene, keeping your parameter changes (R)");

  const tidepool::SceneInfo* current = tidepool::find_scene(app.scene);
  if (ImGui::BeginCombo("scene", app.scene.c_str())) {
    for (const tidepool::SceneInfo& info : tidepool::scenes()) {
      if (ImGui::Selectable(info.name, app.scene == info.name)) load(app, info.name, 0);
      tooltip(info.description);
    }
    ImGui::EndCombo();
  }
  if (current) tooltip(current->description);

  // A grid scene has no particles (its resolution is the grid parameter).
  const bool grid = current && current->default_particles == 0;
  if (!grid) {
    const int chosen = chosen_particles(app, app.particles_requested);
    int particles = chosen > 0 ? chosen : current ? current->default_particles : 1000;
    ImGui::SliderInt("particles", &particles, kMinParticles, kParticleSliderMax, "%d",
                     ImGuiSliderFlags_Logarithmic);
    particles = std::clamp(particles, kMinParticles, tidepool::kMaxParticles);
    tooltip("Particles in the scene (rounded to its lattice); applied on release, and then fixed. Ctrl+click to type.");
    if (ImGui::IsItemDeactivatedAfterEdit()) {
      app.quality.on = false;  // the user's count from now on
      load(app, app.scene, particles);
    }
    ImGui::SameLine();
    bool automatic = app.quality.on;
    if (ImGui::Checkbox("auto", &automatic)) {
      app.quality.on = automatic;
      if (automatic) app.particles_requested = 0;
    }
    tooltip(app.quality.on ? app.quality.reason.c_str()
                           : "Let the page pick the count that holds 60 fps on this device");
  }

  // Only the modes that show something for this kind of scene.
  int color = static_cast<int>(app.render.color);
  if (ImGui::BeginCombo("colour", color_mode_name(app.render.color))) {
    for (int i = 0; i < static_cast<int>(ColorMode::Count); ++i) {
      if (!color_mode_fits(static_cast<ColorMode>(i), grid)) continue;
      if (ImGui::Selectable(color_mode_name(static_cast<ColorMode>(i)), i == color))
        app.render.color = static_cast<ColorMode>(i);
    }
    ImGui::EndCombo();
  }
  if (grid)
    tooltip("dye: the colours the fingers, emitters and the scene put in; speed: |u| (inferno); "
            "pressure: about its mean, blue below, red above; vorticity: dv/dx - du/dy, blue clockwise, "
            "red anticlockwise");
  else
    tooltip("water: particles, white where fast; speed, density (blue below rest, red above), pressure; "
            "surface: particles the colour field marks as surface; liquid: a shaded fluid body");
  ImGui::Checkbox("pointer rings", &app.render.show_pointers);
  tooltip("Show where each pointer or finger acts");
}

// A colour's swatch; a tap opens its red, green and blue sliders. (Dear
// ImGui's own colour editor would weigh more in the page than this
// panel's every other control.) True while it changes the colour.
bool colour_picker(const char* id, glm::vec3* colour) {
  ImGui::PushID(id);
  const ImVec4 c(colour->x, colour->y, colour->z, 1.0f);
  ImGui::PushStyleColor(ImGuiCol_Button, c);
  ImGui::PushStyleColor(ImGuiCol_ButtonHovered, c);
  ImGui::PushStyleColor(ImGuiCol_ButtonActive, c);
  const float side = ImGui::GetFrameHeight();
  if (ImGui::Button("##swatch", ImVec2(side, side))) ImGui::OpenPopup("rgb");
  ImGui::PopStyleColor(3);
  bool changed = false;
  if (ImGui::BeginPopup("rgb")) {
    changed = ImGui::SliderFloat3("##rgb", &colour->x, 0.0f, 1.0f, "%.2f");
    ImGui::EndPopup();
  }
  ImGui::PopID();
  return changed;
}

// The look: the dye's colours (pointers and splats take them in turn), the
// water's colour and the splats' show. Share links carry all of it.
void look_section(App& app) {
  Look& look = app.look;
  if (look.palette.empty()) look.palette.assign(tidepool::kDyeColours.begin(), tidepool::kDyeColours.end());
  for (size_t k = 0; k < look.palette.size(); ++k) {
    if (k > 0) ImGui::SameLine();
    colour_picker(std::to_string(k).c_str(), &look.palette[k]);
  }
  ImGui::SameLine();
  ImGui::TextUnformatted("dye");
  tooltip("The dye the pointers and the splats pour, in turn");
  glm::vec3 water = look.water.x < 0.0f ? kWaterColour : look.water;
  if (colour_picker("water", &water)) look.water = water;
  ImGui::SameLine();
  ImGui::TextUnformatted("water");
  tooltip("The liquid's colour in the particle scenes");
  ImGui::SliderFloat("splats", &look.splats, 0.0f, 10.0f, look.splats > 0.0f ? "every %.1f s" : "off");
  tooltip("A random splat every so many seconds, the same show for the same seed");
}

void tool_section(App& app) {
  int tool = static_cast<int>(app.tool);
  ImGui::RadioButton("push", &tool, static_cast<int>(Tool::Push));
  tooltip("Drag to push and stir; right button or Shift to pull. Every finger is its own force.");
  ImGui::SameLine();
  ImGui::RadioButton("pull", &tool, static_cast<int>(Tool::Pull));
  tooltip("Drag to pull the water in (right button or Shift pushes)");
  ImGui::SameLine();
  ImGui::RadioButton("draw", &tool, static_cast<int>(Tool::Draw));
  tooltip("Drag to draw a wall; tap for a disc");
  ImGui::SameLine();
  ImGui::RadioButton("erase", &tool, static_cast<int>(Tool::Erase));
  tooltip("Drag over obstacles to remove them");
  ImGui::SameLine();
  ImGui::RadioButton("body", &tool, static_cast<int>(Tool::Body));
  tooltip("Tap to drop a box, a disc or a boat, in turn; drag a body to pull it through the water");
  if (tool != static_cast<int>(app.tool)) {
    release_all_contacts(app);
    app.tool = static_cast<Tool>(tool);
  }
  if (ImGui::Button("clear obstacles")) app.world.clear_obstacles();
  tooltip("Remove every obstacle (Reset brings the scene's back)");
  ImGui::SameLine();
  if (ImGui::Button("clear bodies")) {
    release_held_bodies(app);
    app.world.clear_bodies();
  }
  tooltip("Remove every rigid body (Reset brings the scene's back)");
  if (app.tool == Tool::Body) {
    ImGui::Text("next: %s  (%d bodies)", body_tool_shape(app.next_body), static_cast<int>(app.world.bodies().size()));
  } else if (app.tool == Tool::Push || app.tool == Tool::Pull) {
    ImGui::SliderFloat("radius", &app.pointer_radius, 0.02f, 2.0f, "%.2f m", ImGuiSliderFlags_Logarithmic);
    tooltip("Reach of a pointer");
    ImGui::SliderFloat("strength", &app.pointer_strength, 0.0f, 400.0f, "%.0f m/s^2", ImGuiSliderFlags_Logarithmic);
    tooltip("Push (or pull) acceleration at the pointer's centre");
    ImGui::SliderFloat("stir", &app.pointer_stir, 0.0f, 60.0f, "%.1f /s");
    tooltip("How fast the water under a pointer takes up the drag velocity");
  } else {
    ImGui::SliderFloat("thickness", &app.obstacle_radius, 0.005f, 0.5f, "%.3f m", ImGuiSliderFlags_Logarithmic);
    tooltip("Radius of drawn walls (and of the eraser, doubled)");
  }
}

void param_widget(App& app, const tidepool::ParamInfo& info) {
  using Type = tidepool::ParamInfo::Type;
  float value = info.get(app.world.params());
  bool changed = false;
  ImGui::PushID(info.name);
  switch (info.type) {
    case Type::Real: {
      // Ranges over decades (viscosity, stiffness...) slide logarithmically.
      if (info.min < 0.0f) {
        // Signed ranges (gravity) are wide validity bounds: a slider across
        // them is too coarse, so drag in steps of about 1 % of the value.
        const float speed = std::max(0.01f * std::fabs(value), 0.01f);
        changed = ImGui::DragFloat(info.name, &value, speed, info.min, info.max, "%.4g", ImGuiSliderFlags_AlwaysClamp);
      } else {
        const bool log = info.min == 0.0f ? info.max >= 10.0f : info.max / info.min >= 100.0f;
        changed = ImGui::SliderFloat(info.name, &value, info.min, info.max, "%.4g",
                                     ImGuiSliderFlags_AlwaysClamp | (log ? ImGuiSliderFlags_Logarithmic : 0));
      }
      break;
    }
    case Type::Integer: {
      int i = static_cast<int>(std::lround(value));
      changed = ImGui::SliderInt(info.name, &i, static_cast<int>(info.min), static_cast<int>(info.max), "%d",
                                 ImGuiSliderFlags_AlwaysClamp);
      value = static_cast<float>(i);
      break;
    }
    case Type::Bool: {
      bool b = value != 0.0f;
      changed = ImGui::Checkbox(info.name, &b);
      value = b ? 1.0f : 0.0f;
      break;
    }
    case Type::Choice: {
      const std::vector<std::string> names = split_choices(info.choices);
      const int cur = static_cast<int>(std::lround(value));
      const char* shown = cur >= 0 && cur < static_cast<int>(names.size()) ? names[cur].c_str() : "?";
      if (ImGui::BeginCombo(info.name, shown)) {
        for (int k = 0; k < static_cast<int>(names.size()); ++k) {
          if (ImGui::Selectable(names[k].c_str(), k == cur)) {
            value = static_cast<float>(k);
            changed = true;
          }
        }
        ImGui::EndCombo();
      }
      break;
    }
  }
  if (ImGui::IsItemHovered()) {
    if (info.type == Type::Bool || info.type == Type::Choice)
      ImGui::SetTooltip("%s", info.help);
    else
      ImGui::SetTooltip("%s\nrange %g .. %g", info.help, info.min, info.max);
  }
  if (changed) {
    std::string error;
    if (set_param(app, info.name, value, &error)) app.param_error.clear();
    else app.param_error = error;
  }
  ImGui::PopID();
}

void params_section(App& app) {
  if (ImGui::BeginCombo("preset", "apply...")) {
    for (const tidepool::PresetInfo& preset : tidepool::presets()) {
      if (ImGui::Selectable(preset.name)) {
        tidepool::Params p = app.world.params();
        tidepool::apply_preset(p, preset.name);
        const std::vector<std::string> problems = app.world.set_params(p);
        app.param_error = problems.empty() ? "" : problems.front();
        if (problems.empty()) {
          for (const tidepool::ParamInfo& info : tidepool::param_table()) {
            const std::string name = info.name;
            if (name != "h" && name != "mass") app.overrides[name] = info.get(app.world.params());
          }
        }
      }
      tooltip(preset.description);
    }
    ImGui::EndCombo();
  }
  tooltip("Named parameter sets (h and mass stay: the scene derives them)");
  if (ImGui::Button("scene defaults")) {
    app.overrides.clear();
    app.link_bodies.reset();
    load(app, app.scene, app.particles_requested);
  }
  tooltip("Forget every change and reload the scene");
  for (const tidepool::ParamInfo& info : tidepool::param_table()) param_widget(app, info);
  if (!app.param_error.empty()) message(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), app.param_error);
}

void stages_section(const App& app) {
  const tidepool::FrameStats& f = app.stats.last;
  if (!f.timed) {
    ImGui::TextDisabled("no timings yet");
    return;
  }
  double total = 0.0;
  for (double ms : f.stage_ms) total += ms;
  for (int k = 0; k < tidepool::kStageCount; ++k) {
    const float frac = total > 0.0 ? static_cast<float>(f.stage_ms[k] / total) : 0.0f;
    char label[64];
    std::snprintf(label, sizeof(label), "%.2f ms", f.stage_ms[k]);
    ImGui::ProgressBar(frac, ImVec2(ImGui::GetFontSize() * 7.0f, 0.0f), label);
    ImGui::SameLine();
    ImGui::Text("%-10s %8.3g", tidepool::stage_name(k), f.stage_work[k]);
  }
  // The work in ordinary frames (FrameStats::work): the bound is work_bound of them.
  const double ordinary = f.work_limit / app.world.params().work_bound;
  ImGui::Text("work %.3g: %.1f ordinary frames of %.0f", f.work, ordinary > 0.0 ? f.work / ordinary : 0.0,
              static_cast<double>(app.world.params().work_bound));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("machine-independent work: a term per particle and neighbour in each pass over them,\n"
                      "a cell in each pass over a grid; past work_bound ordinary frames a frame ends early");
}

}  // namespace

void draw_panel(App& app) {
  app.ui_rects.clear();
  const ImGuiIO& io = ImGui::GetIO();
  const float em = ImGui::GetFontSize();
  const float margin = 0.6f * em;

  if (!app.setup.ui) return;  // a page's background: no panel at all
  if (!app.panel_open && app.page_controls) return;  // the page's own controls open it
  if (!app.panel_open) {
    // Folded (embed=1, or closed): one small button in the corner.
    ImGui::SetNextWindowPos(ImVec2(margin, margin));
    ImGui::Begin("##unfold", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoBackground);
    if (ImGui::Button("Tidepool >")) app.panel_open = true;
    tooltip("Settings");
    remember_window(app);
    ImGui::End();
    return;
  }

  // Sized by its content, never larger than the screen (it scrolls then).
  ImGui::SetNextWindowPos(ImVec2(margin, margin), ImGuiCond_Appearing);
  // On a phone the open panel would cover the water: start folded to its
  // title bar, unless the page's settings button asked for it.
  ImGui::SetNextWindowCollapsed(!app.page_controls && std::min(io.DisplaySize.x, io.DisplaySize.y) < 600.0f,
                                ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSizeConstraints(ImVec2(10.0f * em, 0.0f),
                                      ImVec2(io.DisplaySize.x - 2.0f * margin, io.DisplaySize.y - 2.0f * margin));
  // A fixed content width: an auto-sized width would follow the numbers in
  // the stats lines, and the view (fitted beside the panel) would jitter.
  ImGui::SetNextWindowContentSize(ImVec2(std::min(23.0f * em, io.DisplaySize.x - 4.0f * margin), 0.0f));
  bool open = true;
  if (ImGui::Begin("Tidepool", &open, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::PushItemWidth(std::min(11.5f * em, 0.5f * io.DisplaySize.x));
    stats_section(app);
    ImGui::Separator();
    scene_section(app);
    ImGui::Separator();
    tool_section(app);
    if (ImGui::CollapsingHeader("Colours")) look_section(app);
    if (ImGui::CollapsingHeader("Parameters")) params_section(app);
    if (ImGui::CollapsingHeader("Stage timings")) stages_section(app);
    if (ImGui::CollapsingHeader("Help")) {
      ImGui::TextWrapped(
          "Drag to push and stir the water; right-drag or Shift-drag pulls it. Each finger is its own "
          "force. The body tool drops floating bodies and drags them. Space pauses, S steps, R resets. "
          "Hover a control for what it does.");
    }
    ImGui::PopItemWidth();
  }
  remember_window(app);
  ImGui::End();
  if (!open) app.panel_open = false;  // the close box folds it to the small button
}

}  // namespace tidepool::app
