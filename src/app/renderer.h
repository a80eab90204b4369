// Tidepool app — the renderer: container, particles (one instanced draw),
// the liquid surface, a grid solver's fields (a texture over the box),
// rigid bodies, obstacles and pointer rings. OpenGL ES 3.0 / WebGL 2.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "gl.h"
#include "look.h"
#include "tidepool/world.h"

namespace tidepool::app {

class SharpDye;

// The liquid's colour where it is shallow, unless a page picks its own.
inline constexpr glm::vec3 kWaterColour{0.30f, 0.70f, 0.98f};

struct RenderSettings {
  ColorMode color = ColorMode::Liquid;
  glm::vec3 water{-1.0f};    // the liquid's colour; negative: kWaterColour and its own deep blue
  bool transparent = false;  // no background: a host page shows through (premultiplied alpha)
  bool walls = true;         // the tank drawn
  float particle_scale = 1.4f;  // drawn radius / half the particle spacing: overlap reads as water
  bool show_pointers = true;
};

struct Ring {
  glm::vec2 centre;
  float radius;
  bool pull;
};

struct Frame {
  int width, height;          // framebuffer pixels
  glm::vec2 center;           // world point at the centre
  float scale;                // pixels per metre
  std::vector<Ring> rings;    // active pointers
  float spacing;              // particle spacing [m]
  const SharpDye* dye = nullptr;  // a grid scene's dye at the page's resolution; null: the core's
};

class Renderer {
 public:
  // Creates every GL object. Called again after a lost context is restored
  // (the old names are dead then and are simply forgotten).
  bool init(std::string* error);
  void shutdown();
  void forget() { *this = Renderer{}; }
  void draw(const tidepool::World& world, const RenderSettings& settings, const Frame& frame);

 private:
  struct Program {
    GLuint id = 0;
    GLint u_scale = -1, u_offset = -1, u_radius = -1, u_range = -1, u_mode = -1, u_px = -1;
    GLint u_field = -1, u_texel = -1, u_threshold = -1, u_depth = -1;
    GLint u_min = -1, u_size = -1, u_gain = -1, u_solid = -1, u_water = -1, u_deep = -1;
  };
  bool build(Program& p, const char* vs, const char* fs, std::string* error);
  void upload_particles(const tidepool::World& world, ColorMode mode, float* lo, float* hi);
  void ensure_field_target(int w, int h);
  // The passes of draw(); s and o map world to clip space (p * s + o).
  // `bodies` instances uploaded by upload_bodies() mark the field too.
  void draw_liquid(int n, int bodies, int w, int h, glm::vec2 s, glm::vec2 o, float radius, float lo, float hi,
                   glm::vec3 water);
  void draw_particles(int n, glm::vec2 s, glm::vec2 o, float radius, float lo, float hi, ColorMode mode,
                      glm::vec3 water);
  void draw_shapes(const tidepool::World& world, const Frame& frame, glm::vec2 s, glm::vec2 o, bool walls);
  // The rigid bodies: one instance each (kBodyVs), uploaded once a frame;
  // drawn in wood over the water, or (solid) into the liquid's field.
  // px: world units per pixel of the target.
  int upload_bodies(const tidepool::World& world);
  void draw_bodies(int count, glm::vec2 s, glm::vec2 o, float px, bool solid);
  // A grid's fields: one texel per cell, filled for `mode` (the dye, or a
  // value over its range), drawn over the cells' rectangle.
  void upload_grid(const tidepool::FieldView& f, ColorMode mode);
  // `texture` holds the field's rectangle in w x h texels.
  void draw_grid(const tidepool::FieldView& f, ColorMode mode, glm::vec2 s, glm::vec2 o, GLuint texture, int w, int h);

  Program particles_, splat_, liquid_, shapes_, grid_, bodies_;
  GLuint quad_vbo_ = 0;
  GLuint particle_vao_ = 0, x_vbo_ = 0, y_vbo_ = 0, value_vbo_ = 0;
  GLuint shape_vao_ = 0, shape_vbo_ = 0;
  GLuint body_vao_ = 0, body_vbo_ = 0;
  GLuint empty_vao_ = 0;
  GLuint field_fbo_ = 0, field_tex_ = 0;
  int field_w_ = 0, field_h_ = 0;
  GLuint grid_tex_ = 0;
  int grid_w_ = 0, grid_h_ = 0;
  std::vector<float> texels_;   // RGBA per cell
  std::vector<float> scratch_;  // a scalar per cell, and its magnitudes for the range
  ColorMode grid_mode_ = ColorMode::Count;  // the mode grid_range_ follows
  float grid_range_ = 0.0f;
  int capacity_ = 0;
  std::vector<float> values_;
  std::vector<float> shape_data_;
  std::vector<float> body_data_;
  // Colour ranges follow the data smoothly, so the colours do not flicker.
  float range_hi_ = 0.0f;
};

}  // namespace tidepool::app
