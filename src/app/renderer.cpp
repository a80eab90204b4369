// Tidepool app — renderer. See renderer.h.
//
// Every draw is instanced over a unit quad: particles (one instance each,
// positions streamed straight from the World's x and y arrays), rigid
// bodies (a signed-distance disc or convex polygon each, in the body's own
// frame), and shapes (container, obstacles, emitters, sinks, pointer rings)
// as signed-distance capsules, rings and rectangles. The liquid mode splats each particle into
// an offscreen density texture with additive blending and then thresholds
// and shades that field in one fullscreen pass: the 2D counterpart of a
// marching-cubes surface, and cheap enough for a phone.
//
// A grid solver's fields are one RGBA16F texel per cell, filled on the CPU
// every frame (the dye, or speed, pressure or vorticity over a robust
// range) and drawn over the cells' rectangle with bilinear filtering; the
// fragment shader tone-maps the dye or applies the colour map.
#include "renderer.h"

#include "dye.h"
#include "color_range.h"
#include "shaders.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tidepool::app {

using namespace shaders;

namespace {

// Per-shape instance: 12 floats (seg, shape, colour).
constexpr int kShapeFloats = 12;
// Per-body instance: 28 floats (pose, form, fill, 8 corners); see kBodyVs.
constexpr int kBodyFloats = 28;
static_assert(tidepool::Obstacle::kMaxPoints == 8, "kBodyVs carries 8 corners");

void push_shape(std::vector<float>& out, glm::vec2 a, glm::vec2 b, float radius, float style,
                float ring, const float (&rgba)[4]) {
  // Colours are premultiplied: blending is ONE, ONE_MINUS_SRC_ALPHA.
  const float v[kShapeFloats] = {a.x,    a.y,   b.x,  b.y,
                                 radius, style, ring, 0.0f,
                                 rgba[0] * rgba[3], rgba[1] * rgba[3], rgba[2] * rgba[3], rgba[3]};
  out.insert(out.end(), v, v + kShapeFloats);
}

}  // namespace

bool Renderer::build(Program& p, const char* vs, const char* fs, std::string* error) {
  p.id = build_program(vs, fs, error);
  if (!p.id) return false;
  p.u_scale = glGetUniformLocation(p.id, "u_scale");
  p.u_offset = glGetUniformLocation(p.id, "u_offset");
  p.u_radius = glGetUniformLocation(p.id, "u_radius");
  p.u_range = glGetUniformLocation(p.id, "u_range");
  p.u_mode = glGetUniformLocation(p.id, "u_mode");
  p.u_px = glGetUniformLocation(p.id, "u_px");
  p.u_field = glGetUniformLocation(p.id, "u_field");
  p.u_texel = glGetUniformLocation(p.id, "u_texel");
  p.u_threshold = glGetUniformLocation(p.id, "u_threshold");
  p.u_depth = glGetUniformLocation(p.id, "u_depth");
  p.u_min = glGetUniformLocation(p.id, "u_min");
  p.u_size = glGetUniformLocation(p.id, "u_size");
  p.u_gain = glGetUniformLocation(p.id, "u_gain");
  p.u_solid = glGetUniformLocation(p.id, "u_solid");
  p.u_water = glGetUniformLocation(p.id, "u_water");
  p.u_deep = glGetUniformLocation(p.id, "u_deep");
  return true;
}

bool Renderer::init(std::string* error) {
  if (!build(particles_, kParticleVs, kParticleFs, error)) return false;
  if (!build(splat_, kParticleVs, kSplatFs, error)) return false;
  if (!build(liquid_, kFullscreenVs, kLiquidFs, error)) return false;
  if (!build(shapes_, kShapeVs, kShapeFs, error)) return false;
  if (!build(grid_, kGridVs, kGridFs, error)) return false;
  if (!build(bodies_, kBodyVs, kBodyFs, error)) return false;

  const float quad[] = {-1.0f, -1.0f, 1.0f, -1.0f, -1.0f, 1.0f, 1.0f, 1.0f};
  glGenBuffers(1, &quad_vbo_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_vbo_);
  glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);

  // Particles: the quad, then x, y and the colour value, one float each per
  // instance, in three buffers (the World keeps them as separate arrays).
  glGenVertexArrays(1, &particle_vao_);
  glGenBuffers(1, &x_vbo_);
  glGenBuffers(1, &y_vbo_);
  glGenBuffers(1, &value_vbo_);
  glBindVertexArray(particle_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_vbo_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  const GLuint per_instance[3] = {x_vbo_, y_vbo_, value_vbo_};
  for (GLuint k = 0; k < 3; ++k) {
    glBindBuffer(GL_ARRAY_BUFFER, per_instance[k]);
    glEnableVertexAttribArray(1 + k);
    glVertexAttribPointer(1 + k, 1, GL_FLOAT, GL_FALSE, 0, nullptr);
    glVertexAttribDivisor(1 + k, 1);
  }

  // Instanced quads: the corner from quad_vbo_, then per instance `floats`
  // floats as vec4 attributes 1, 2, ...
  auto instanced = [&](GLuint* vao, GLuint* vbo, int floats) {
    glGenVertexArrays(1, vao);
    glGenBuffers(1, vbo);
    glBindVertexArray(*vao);
    glBindBuffer(GL_ARRAY_BUFFER, quad_vbo_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    for (GLuint k = 0; k < static_cast<GLuint>(floats / 4); ++k) {
      glEnableVertexAttribArray(1 + k);
      glVertexAttribPointer(1 + k, 4, GL_FLOAT, GL_FALSE, floats * sizeof(float),
                            reinterpret_cast<const void*>(static_cast<uintptr_t>(4 * k * sizeof(float))));
      glVertexAttribDivisor(1 + k, 1);
    }
  };
  instanced(&shape_vao_, &shape_vbo_, kShapeFloats);
  instanced(&body_vao_, &body_vbo_, kBodyFloats);

  // The fullscreen pass has no attributes, but WebGL wants a VAO bound.
  glGenVertexArrays(1, &empty_vao_);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  capacity_ = 0;
  field_w_ = field_h_ = 0;
  grid_w_ = grid_h_ = 0;
  return true;
}

void Renderer::shutdown() {
  for (Program* p : {&particles_, &splat_, &liquid_, &shapes_, &grid_, &bodies_})
    if (p->id) glDeleteProgram(p->id);
  GLuint buffers[] = {quad_vbo_, x_vbo_, y_vbo_, value_vbo_, shape_vbo_, body_vbo_};
  glDeleteBuffers(6, buffers);
  GLuint vaos[] = {particle_vao_, shape_vao_, body_vao_, empty_vao_};
  glDeleteVertexArrays(4, vaos);
  if (field_fbo_) glDeleteFramebuffers(1, &field_fbo_);
  if (field_tex_) glDeleteTextures(1, &field_tex_);
  if (grid_tex_) glDeleteTextures(1, &grid_tex_);
  forget();
}

void Renderer::ensure_field_target(int w, int h) {
  if (field_fbo_ && w == field_w_ && h == field_h_) return;
  if (!field_tex_) glGenTextures(1, &field_tex_);
  if (!field_fbo_) glGenFramebuffers(1, &field_fbo_);
  glBindTexture(GL_TEXTURE_2D, field_tex_);
  // RGBA8: renderable on every WebGL 2 device (float targets need an
  // extension phones may lack); the field only needs to resolve its threshold.
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  // Mipmapped: the depth tint reads a blurred copy (draw_liquid()).
  texture_params(GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR);
  glBindFramebuffer(GL_FRAMEBUFFER, field_fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, field_tex_, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  field_w_ = w;
  field_h_ = h;
}

// Streams positions and fills one colour value per particle; returns the
// value range to map onto the colour scale.
void Renderer::upload_particles(const tidepool::World& world, ColorMode mode, float* lo, float* hi) {
  const tidepool::Particles& p = world.particles();
  const int n = p.size();
  const GLsizeiptr bytes = static_cast<GLsizeiptr>(n) * sizeof(float);
  if (n > capacity_) {
    capacity_ = std::max(n, capacity_ + capacity_ / 2);
    for (GLuint b : {x_vbo_, y_vbo_, value_vbo_}) {
      glBindBuffer(GL_ARRAY_BUFFER, b);
      glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_) * sizeof(float), nullptr,
                   GL_STREAM_DRAW);
    }
  }
  if (n == 0) return;
  glBindBuffer(GL_ARRAY_BUFFER, x_vbo_);
  glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, p.x.data());
  glBindBuffer(GL_ARRAY_BUFFER, y_vbo_);
  glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, p.y.data());

  particle_values(world, mode, values_);
  particle_range(values_, mode, range_hi_, lo, hi);
  glBindBuffer(GL_ARRAY_BUFFER, value_vbo_);
  glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, values_.data());
}

void Renderer::draw_shapes(const tidepool::World& world, const Frame& frame, glm::vec2 s, glm::vec2 o, bool walls) {
  const float px = 1.0f / frame.scale;
  const tidepool::Box& box = world.box();
  shape_data_.clear();
  {
    // Walls: a frame just outside the box, drawn as four rectangles.
    // Thin and quiet: the tank is the screen, and the page around it blends
    // in. A host page's background may leave them out (walls=0).
    const float w = 3.0f * px;
    const float wall[4] = {0.30f, 0.38f, 0.50f, 1.0f};
    const glm::vec2 a = box.min, b = box.max;
    if (walls) {
      push_shape(shape_data_, {a.x - w, a.y - w}, {b.x + w, a.y}, 0, 2, 0, wall);
      push_shape(shape_data_, {a.x - w, b.y}, {b.x + w, b.y + w}, 0, 2, 0, wall);
      push_shape(shape_data_, {a.x - w, a.y}, {a.x, b.y}, 0, 2, 0, wall);
      push_shape(shape_data_, {b.x, a.y}, {b.x + w, b.y}, 0, 2, 0, wall);
    }
    const float rock[4] = {0.80f, 0.72f, 0.58f, 1.0f};
    for (const tidepool::Obstacle& ob : world.obstacles()) {
      const glm::vec2 end = ob.kind == tidepool::Obstacle::Kind::Circle ? ob.a : ob.b;
      push_shape(shape_data_, ob.a, end, ob.radius, 0, 0, rock);
    }
    const float sink[4] = {0.95f, 0.35f, 0.30f, 0.9f};
    for (const tidepool::Sink& k : world.sinks())
      push_shape(shape_data_, k.position, k.position, k.radius, 1, 2.0f * px, sink);
    const float nozzle[4] = {0.55f, 0.85f, 1.0f, 0.9f};
    for (const tidepool::Emitter& e : world.emitters()) {
      const glm::vec2 v = e.velocity;
      const float len = std::sqrt(v.x * v.x + v.y * v.y);
      const glm::vec2 t = len > 0 ? glm::vec2(-v.y, v.x) / len : glm::vec2(1, 0);
      push_shape(shape_data_, e.position - t * (0.5f * e.width), e.position + t * (0.5f * e.width),
                 1.5f * px, 0, 0, nozzle);
    }
    for (const Ring& r : frame.rings) {
      const float push[4] = {1.0f, 1.0f, 1.0f, 0.35f};
      const float pull[4] = {1.0f, 0.75f, 0.35f, 0.45f};
      push_shape(shape_data_, r.centre, r.centre, r.radius, 1, 1.5f * px, r.pull ? pull : push);
    }
  }
  const int count = static_cast<int>(shape_data_.size() / kShapeFloats);
  if (count == 0) return;
  glUseProgram(shapes_.id);
  glUniform2f(shapes_.u_scale, s.x, s.y);
  glUniform2f(shapes_.u_offset, o.x, o.y);
  glUniform1f(shapes_.u_px, px);
  glBindVertexArray(shape_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, shape_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(shape_data_.size() * sizeof(float)),
               shape_data_.data(), GL_STREAM_DRAW);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, count);
}

int Renderer::upload_bodies(const tidepool::World& world) {
  const std::vector<tidepool::Body>& bodies = world.bodies();
  body_data_.clear();
  if (bodies.empty()) return 0;
  // Warm wood, apart from the obstacles' pale stone and the water's blues.
  const float wood[4] = {0.86f, 0.55f, 0.26f, 1.0f};
  for (const tidepool::Body& b : bodies) {
    const tidepool::BodyShape& shape = b.def.shape;
    const bool disc = shape.kind == tidepool::BodyShape::Kind::Disc;
    const int n = disc ? 0 : static_cast<int>(std::min<size_t>(shape.points.size(), tidepool::Obstacle::kMaxPoints));
    const float reach = shape.reach();
    float corners[16] = {};
    for (int k = 0; k < n; ++k) {
      corners[2 * k] = shape.points[k].x;
      corners[2 * k + 1] = shape.points[k].y;
    }
    if (!(reach > 0.0f) || !std::isfinite(reach) || (!disc && n < 3)) continue;
    const float head[12] = {b.position.x, b.position.y, std::cos(b.angle), std::sin(b.angle),
                            disc ? 0.0f : 1.0f, static_cast<float>(n), reach, b.dragged ? 1.0f : 0.0f,
                            wood[0], wood[1], wood[2], wood[3]};
    body_data_.insert(body_data_.end(), head, head + 12);
    body_data_.insert(body_data_.end(), corners, corners + 16);
  }
  const int count = static_cast<int>(body_data_.size() / kBodyFloats);
  if (count == 0) return 0;
  glBindBuffer(GL_ARRAY_BUFFER, body_vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(body_data_.size() * sizeof(float)), body_data_.data(),
               GL_STREAM_DRAW);
  return count;
}

void Renderer::draw_bodies(int count, glm::vec2 s, glm::vec2 o, float px, bool solid) {
  if (count <= 0) return;
  glUseProgram(bodies_.id);
  glUniform2f(bodies_.u_scale, s.x, s.y);
  glUniform2f(bodies_.u_offset, o.x, o.y);
  glUniform1f(bodies_.u_px, px);
  glUniform1i(bodies_.u_solid, solid ? 1 : 0);
  glBindVertexArray(body_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, count);
}

namespace {

// The background, then the container's inside in its own colour: a
// scissored clear costs nothing per pixel. Transparent (a host page's
// background shows through), neither: everything drawn after is
// premultiplied, so the page sees the water and the dye over its own.
void clear_background(const tidepool::Box& box, const Frame& frame, int w, int h, bool transparent) {
  glViewport(0, 0, w, h);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  if (transparent) glClearColor(0.0f, 0.0f, 0.0f, 0.0f);
  else glClearColor(0.043f, 0.075f, 0.125f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (transparent) return;
  const int x0 = static_cast<int>(std::floor((box.min.x - frame.center.x) * frame.scale + 0.5f * w));
  const int y0 = static_cast<int>(std::floor((box.min.y - frame.center.y) * frame.scale + 0.5f * h));
  const int x1 = static_cast<int>(std::ceil((box.max.x - frame.center.x) * frame.scale + 0.5f * w));
  const int y1 = static_cast<int>(std::ceil((box.max.y - frame.center.y) * frame.scale + 0.5f * h));
  if (x1 > x0 && y1 > y0) {
    glEnable(GL_SCISSOR_TEST);
    glScissor(x0, y0, x1 - x0, y1 - y0);
    glClearColor(0.075f, 0.115f, 0.175f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
  }
}

}  // namespace

// The liquid mode's two passes over the n uploaded particles, each a splat
// of the given radius [m].
void Renderer::draw_liquid(int n, int bodies, int w, int h, glm::vec2 s, glm::vec2 o, float radius, float lo,
                           float hi, glm::vec3 water) {
  // 1. Splat into the field, at half resolution on all but small canvases:
  //    the threshold of a bilinearly filtered field is still a smooth edge.
  const int div = w * h > 400000 ? 2 : 1;
  const int fw = std::max(1, w / div), fh = std::max(1, h / div);
  ensure_field_target(fw, fh);
  glBindFramebuffer(GL_FRAMEBUFFER, field_fbo_);
  glViewport(0, 0, fw, fh);
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  glBlendFunc(GL_ONE, GL_ONE);
  glUseProgram(splat_.id);
  glUniform2f(splat_.u_scale, s.x, s.y);
  glUniform2f(splat_.u_offset, o.x, o.y);
  glUniform1f(splat_.u_radius, radius);
  glUniform2f(splat_.u_range, lo, hi);
  glBindVertexArray(particle_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, n);
  // The bodies where they stand, for the depth tint (kBodyFs, u_solid).
  draw_bodies(bodies, s, o, 2.0f / (s.x * fw), true);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, field_tex_);
  glGenerateMipmap(GL_TEXTURE_2D);
  // 2. Threshold and shade.
  glViewport(0, 0, w, h);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(liquid_.id);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, field_tex_);
  glUniform1i(liquid_.u_field, 0);
  glUniform2f(liquid_.u_texel, 1.0f / fw, 1.0f / fh);
  glUniform1f(liquid_.u_threshold, 0.18f);
  // Shallow water in its colour, deep water darker and more saturated (its
  // square: the light that passes twice the depth's tint).
  const glm::vec3 deep = water.x < 0.0f ? glm::vec3(0.03f, 0.20f, 0.52f) : 0.55f * water * water;
  const glm::vec3 shallow = water.x < 0.0f ? kWaterColour : water;
  glUniform3f(liquid_.u_water, shallow.x, shallow.y, shallow.z);
  glUniform3f(liquid_.u_deep, deep.x, deep.y, deep.z);
  // Eight samples up to 0.8 m above: darkest 0.8 m below the surface.
  glUniform1f(liquid_.u_depth, 0.1f * 0.5f * s.y);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindTexture(GL_TEXTURE_2D, 0);
}

// The n uploaded particles as discs of the given radius [m], coloured by
// `mode` over the value range [lo, hi].
void Renderer::draw_particles(int n, glm::vec2 s, glm::vec2 o, float radius, float lo, float hi, ColorMode mode,
                              glm::vec3 water) {
  glUseProgram(particles_.id);
  const glm::vec3 base = water.x < 0.0f ? glm::vec3(0.16f, 0.45f, 0.86f) : 0.8f * water;
  glUniform3f(particles_.u_water, base.x, base.y, base.z);
  glUniform2f(particles_.u_scale, s.x, s.y);
  glUniform2f(particles_.u_offset, o.x, o.y);
  glUniform1f(particles_.u_radius, radius);
  glUniform2f(particles_.u_range, lo, hi);
  glUniform1i(particles_.u_mode, static_cast<int>(mode));
  glBindVertexArray(particle_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, n);
}

// ---------------------------------------------------------------------------
// Grids
// ---------------------------------------------------------------------------
void Renderer::upload_grid(const tidepool::FieldView& f, ColorMode mode) {
  const int nx = f.nx, ny = f.ny, cells = nx * ny;
  texels_.resize(static_cast<size_t>(cells) * 4);
  auto fluid = [&](int c) { return f.solid && f.solid[c] ? 0.0f : 1.0f; };
  if (mode == ColorMode::Dye) {
    for (int c = 0; c < cells; ++c) {
      float* t = &texels_[4 * static_cast<size_t>(c)];
      for (int k = 0; k < 3; ++k) t[k] = f.dye[k] ? std::min(f.dye[k][c], 1e4f) : 0.0f;
      t[3] = fluid(c);
    }
  } else {
    // One value per cell, and its magnitudes over the fluid cells for the
    // range (the scale's upper end rises at once and falls slowly, so the
    // colours do not flicker).
    const float floor = grid_values(f, mode, scratch_);
    std::vector<float>& magnitudes = values_;  // the particles' buffer, free in a grid scene
    const float target = grid_magnitude(f, scratch_, floor, magnitudes);
    if (mode != grid_mode_ || !(grid_range_ > 0.0f)) grid_range_ = target;
    else grid_range_ = follow_range(grid_range_, target);
    grid_mode_ = mode;
    const float scale = 1.0f / grid_range_;
    for (int c = 0; c < cells; ++c) {
      float* t = &texels_[4 * static_cast<size_t>(c)];
      const float v = std::isfinite(scratch_[c]) ? scratch_[c] * scale : 0.0f;
      t[0] = std::clamp(v, -4.0f, 4.0f);
      t[1] = t[2] = 0.0f;
      t[3] = fluid(c);
    }
  }
  if (!grid_tex_) glGenTextures(1, &grid_tex_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, grid_tex_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  if (nx != grid_w_ || ny != grid_h_) {
    // RGBA16F: filterable on every WebGL 2 device, filled from floats.
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, nx, ny, 0, GL_RGBA, GL_FLOAT, texels_.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    grid_w_ = nx;
    grid_h_ = ny;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, nx, ny, GL_RGBA, GL_FLOAT, texels_.data());
  }
}

void Renderer::draw_grid(const tidepool::FieldView& f, ColorMode mode, glm::vec2 s, glm::vec2 o, GLuint texture,
                         int w, int h) {
  glUseProgram(grid_.id);
  glUniform2f(grid_.u_scale, s.x, s.y);
  glUniform2f(grid_.u_offset, o.x, o.y);
  glUniform2f(grid_.u_min, f.origin.x, f.origin.y);
  glUniform2f(grid_.u_size, f.nx * f.cell, f.ny * f.cell);
  glUniform2f(grid_.u_texel, 1.0f / w, 1.0f / h);
  glUniform1i(grid_.u_mode, mode == ColorMode::Dye ? 0 : (mode == ColorMode::Speed ? 1 : 2));
  glUniform1f(grid_.u_gain, 1.6f);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture);
  glUniform1i(grid_.u_field, 0);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindTexture(GL_TEXTURE_2D, 0);
}

void Renderer::draw(const tidepool::World& world, const RenderSettings& settings, const Frame& frame) {
  const int w = std::max(frame.width, 1), h = std::max(frame.height, 1);
  // world -> clip: (p - centre) * 2 scale / size
  const glm::vec2 s(2.0f * frame.scale / w, 2.0f * frame.scale / h);
  const glm::vec2 o = -frame.center * s;

  clear_background(world.box(), frame, w, h, settings.transparent);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied alpha throughout

  if (const tidepool::FieldView* field = world.field()) {
    // A grid solver: its fields instead of particles (it has none).
    const ColorMode mode = color_mode_fits(settings.color, true) ? settings.color : default_color_mode(true);
    if (mode == ColorMode::Dye && frame.dye) {
      draw_grid(*field, mode, s, o, frame.dye->texture(), frame.dye->width(), frame.dye->height());
    } else {
      upload_grid(*field, mode);
      draw_grid(*field, mode, s, o, grid_tex_, field->nx, field->ny);
    }
    draw_bodies(upload_bodies(world), s, o, 1.0f / frame.scale, false);
    draw_shapes(world, frame, s, o, settings.walls);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(0);
    return;
  }

  const ColorMode mode = color_mode_fits(settings.color, false) ? settings.color : default_color_mode(false);
  const int n = world.count();
  float lo = 0.0f, hi = 1.0f;
  upload_particles(world, mode, &lo, &hi);
  const int bodies = upload_bodies(world);
  const float min_radius = 0.75f / frame.scale;  // keep every particle visible
  if (n > 0 && mode == ColorMode::Liquid) {
    draw_liquid(n, bodies, w, h, s, o, std::max(2.0f * frame.spacing, 3.0f * min_radius), lo, hi, settings.water);
  } else if (n > 0) {
    draw_particles(n, s, o, std::max(0.5f * frame.spacing * settings.particle_scale, min_radius), lo, hi, mode,
                   settings.water);
  }

  draw_bodies(bodies, s, o, 1.0f / frame.scale, false);
  draw_shapes(world, frame, s, o, settings.walls);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glUseProgram(0);
}

}  // namespace tidepool::app
