// Tidepool app — renderer. See renderer.h.
//
// Every draw is instanced over a unit quad: particles (one instance each,
// positions streamed straight from the World's x and y arrays), and shapes
// (container, obstacles, emitters, sinks, pointer rings) as signed-distance
// capsules, rings and rectangles. The liquid mode splats each particle into
// an offscreen density texture with additive blending and then thresholds
// and shades that field in one fullscreen pass: the 2D counterpart of a
// marching-cubes surface, and cheap enough for a phone.
#include "renderer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tidepool::app {

namespace {

const char* const kColorModeNames[] = {"water", "speed", "density", "pressure", "surface", "liquid"};
static_assert(sizeof(kColorModeNames) / sizeof(kColorModeNames[0]) == static_cast<int>(ColorMode::Count));

// ---------------------------------------------------------------------------
// Shaders (GLSL ES 3.00, valid for WebGL 2 and native GLES 3 alike)
// ---------------------------------------------------------------------------

// Particles and splats: a quad of half-size u_radius around (a_x, a_y).
const char* kParticleVs = R"(#version 300 es
layout(location = 0) in vec2 a_corner;
layout(location = 1) in float a_x;
layout(location = 2) in float a_y;
layout(location = 3) in float a_value;
uniform vec2 u_scale;    // world -> clip
uniform vec2 u_offset;
uniform float u_radius;  // world units
uniform vec2 u_range;    // a_value mapped from [x, y] to [0, 1]
out vec2 v_corner;
out float v_t;
void main() {
  vec2 p = vec2(a_x, a_y) + a_corner * u_radius;
  gl_Position = vec4(p * u_scale + u_offset, 0.0, 1.0);
  v_corner = a_corner;
  v_t = clamp((a_value - u_range.x) / max(u_range.y - u_range.x, 1e-12), 0.0, 1.0);
}
)";

const char* kParticleFs = R"(#version 300 es
precision mediump float;
in vec2 v_corner;
in float v_t;
uniform int u_mode;  // ColorMode
out vec4 o_color;
// Sequential: dark blue -> teal -> yellow.
vec3 ramp(float t) {
  vec3 a = vec3(0.20, 0.22, 0.58), b = vec3(0.10, 0.64, 0.62), c = vec3(0.98, 0.88, 0.25);
  return t < 0.5 ? mix(a, b, t * 2.0) : mix(b, c, t * 2.0 - 1.0);
}
// Diverging about the middle: blue (below) -> grey -> red (above).
vec3 diverging(float t) {
  vec3 lo = vec3(0.19, 0.42, 0.88), mid = vec3(0.90, 0.90, 0.90), hi = vec3(0.88, 0.25, 0.18);
  return t < 0.5 ? mix(lo, mid, t * 2.0) : mix(mid, hi, t * 2.0 - 1.0);
}
void main() {
  float d = length(v_corner);
  float aa = max(fwidth(d), 1e-3);
  float alpha = 1.0 - smoothstep(1.0 - aa, 1.0, d);
  if (alpha <= 0.0) discard;
  vec3 c;
  if (u_mode == 0) c = mix(vec3(0.16, 0.45, 0.86), vec3(0.78, 0.93, 1.0), v_t);  // water, foam when fast
  else if (u_mode == 2) c = diverging(v_t);
  else if (u_mode == 4) c = v_t > 0.5 ? vec3(1.0, 0.62, 0.22) : vec3(0.16, 0.38, 0.72);
  else c = ramp(v_t);
  c *= 0.82 + 0.18 * (1.0 - d * d);  // a little roundness
  o_color = vec4(c * alpha, alpha);
}
)";

// Splat: a smooth bump (1 - r^2)^3, summed by additive blending. R is the
// field, G the same weighted by speed (foam).
const char* kSplatFs = R"(#version 300 es
precision mediump float;
in vec2 v_corner;
in float v_t;
out vec4 o_color;
void main() {
  float r2 = dot(v_corner, v_corner);
  if (r2 >= 1.0) discard;
  float w = 1.0 - r2;
  w = w * w * w * 0.2;
  o_color = vec4(w, w * v_t, 0.0, 0.0);
}
)";

const char* kFullscreenVs = R"(#version 300 es
out vec2 v_uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  v_uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

// Threshold and shade the splatted field: the gradient gives a normal for a
// fake-3D light, the field value a depth for the colour, the foam channel
// whitens fast water, and a rim brightens the surface.
const char* kLiquidFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_field;
uniform vec2 u_texel;
uniform float u_threshold;
in vec2 v_uv;
out vec4 o_color;
void main() {
  vec4 f = texture(u_field, v_uv);
  float d = f.r;
  float a = smoothstep(u_threshold - 0.03, u_threshold + 0.03, d);
  if (a <= 0.0) discard;
  vec2 o = 1.5 * u_texel;
  float l = texture(u_field, v_uv - vec2(o.x, 0.0)).r;
  float r = texture(u_field, v_uv + vec2(o.x, 0.0)).r;
  float b = texture(u_field, v_uv - vec2(0.0, o.y)).r;
  float t = texture(u_field, v_uv + vec2(0.0, o.y)).r;
  // Bulge near the surface only: deeper in, the field's ripples from the
  // particle lattice would read as worms.
  float bulge = 1.0 - smoothstep(u_threshold, u_threshold + 0.2, d);
  vec3 n = normalize(vec3(vec2(l - r, b - t) * 3.0 * bulge, 0.3));
  vec3 light = normalize(vec3(-0.45, 0.65, 0.62));
  float diffuse = max(dot(n, light), 0.0);
  float spec = pow(max(dot(reflect(-light, n), vec3(0.0, 0.0, 1.0)), 0.0), 28.0);
  float depth = clamp((d - u_threshold) / 0.45, 0.0, 1.0);
  vec3 c = mix(vec3(0.32, 0.68, 0.96), vec3(0.07, 0.30, 0.66), depth);
  c = c * (0.72 + 0.38 * diffuse) + vec3(spec * 0.55);
  float foam = clamp(f.g / max(d, 1e-3), 0.0, 1.0);
  c = mix(c, vec3(0.90, 0.97, 1.0), foam * 0.75);
  float rim = 1.0 - smoothstep(u_threshold, u_threshold + 0.07, d);
  c = mix(c, vec3(0.72, 0.90, 1.0), rim * 0.55);
  o_color = vec4(c * a, a);
}
)";

// Shapes: a_seg = (ax, ay, bx, by); a_shape = (radius, style, ring width, -);
// style 0 capsule (a disc when a == b), 1 ring, 2 rectangle from a to b.
const char* kShapeVs = R"(#version 300 es
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec4 a_seg;
layout(location = 2) in vec4 a_shape;
layout(location = 3) in vec4 a_color;
uniform vec2 u_scale;
uniform vec2 u_offset;
uniform float u_px;  // world units per pixel
out vec2 v_world;
flat out vec4 v_seg;
flat out vec4 v_shape;
flat out vec4 v_color;
void main() {
  vec2 a = a_seg.xy, b = a_seg.zw;
  float pad = (a_shape.y > 1.5 ? 0.0 : a_shape.x) + 2.0 * u_px;
  vec2 p = mix(min(a, b) - pad, max(a, b) + pad, a_corner * 0.5 + 0.5);
  v_world = p;
  v_seg = a_seg;
  v_shape = a_shape;
  v_color = a_color;
  gl_Position = vec4(p * u_scale + u_offset, 0.0, 1.0);
}
)";

const char* kShapeFs = R"(#version 300 es
precision highp float;
in vec2 v_world;
flat in vec4 v_seg;
flat in vec4 v_shape;
flat in vec4 v_color;
uniform float u_px;
out vec4 o_color;
void main() {
  float d;
  if (v_shape.y > 1.5) {
    vec2 c = 0.5 * (v_seg.xy + v_seg.zw);
    vec2 e = 0.5 * abs(v_seg.zw - v_seg.xy);
    vec2 q = abs(v_world - c) - e;
    d = length(max(q, 0.0)) + min(max(q.x, q.y), 0.0);
  } else {
    vec2 pa = v_world - v_seg.xy, ba = v_seg.zw - v_seg.xy;
    float h = clamp(dot(pa, ba) / max(dot(ba, ba), 1e-12), 0.0, 1.0);
    d = length(pa - ba * h) - v_shape.x;
    if (v_shape.y > 0.5) d = abs(d + 0.5 * v_shape.z) - 0.5 * v_shape.z;
  }
  float a = clamp(0.5 - d / u_px, 0.0, 1.0);  // one pixel of antialiasing
  if (a <= 0.0) discard;
  o_color = v_color * a;
}
)";

GLuint compile(GLenum type, const char* src, std::string* error) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetShaderInfoLog(s, sizeof(log) - 1, nullptr, log);
    *error = std::string(type == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader: " + log;
    glDeleteShader(s);
    return 0;
  }
  return s;
}

// Per-shape instance: 12 floats (seg, shape, colour).
constexpr int kShapeFloats = 12;

void push_shape(std::vector<float>& out, glm::vec2 a, glm::vec2 b, float radius, float style,
                float ring, const float (&rgba)[4]) {
  // Colours are premultiplied: blending is ONE, ONE_MINUS_SRC_ALPHA.
  const float v[kShapeFloats] = {a.x,    a.y,   b.x,  b.y,
                                 radius, style, ring, 0.0f,
                                 rgba[0] * rgba[3], rgba[1] * rgba[3], rgba[2] * rgba[3], rgba[3]};
  out.insert(out.end(), v, v + kShapeFloats);
}

}  // namespace

const char* color_mode_name(ColorMode mode) {
  const int i = static_cast<int>(mode);
  return i >= 0 && i < static_cast<int>(ColorMode::Count) ? kColorModeNames[i] : "?";
}

bool parse_color_mode(std::string_view text, ColorMode* mode) {
  for (int i = 0; i < static_cast<int>(ColorMode::Count); ++i) {
    if (text == kColorModeNames[i]) {
      *mode = static_cast<ColorMode>(i);
      return true;
    }
  }
  return false;
}

bool Renderer::build(Program& p, const char* vs, const char* fs, std::string* error) {
  GLuint v = compile(GL_VERTEX_SHADER, vs, error);
  if (!v) return false;
  GLuint f = compile(GL_FRAGMENT_SHADER, fs, error);
  if (!f) {
    glDeleteShader(v);
    return false;
  }
  p.id = glCreateProgram();
  glAttachShader(p.id, v);
  glAttachShader(p.id, f);
  glLinkProgram(p.id);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(p.id, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetProgramInfoLog(p.id, sizeof(log) - 1, nullptr, log);
    *error = std::string("shader link: ") + log;
    return false;
  }
  p.u_scale = glGetUniformLocation(p.id, "u_scale");
  p.u_offset = glGetUniformLocation(p.id, "u_offset");
  p.u_radius = glGetUniformLocation(p.id, "u_radius");
  p.u_range = glGetUniformLocation(p.id, "u_range");
  p.u_mode = glGetUniformLocation(p.id, "u_mode");
  p.u_px = glGetUniformLocation(p.id, "u_px");
  p.u_field = glGetUniformLocation(p.id, "u_field");
  p.u_texel = glGetUniformLocation(p.id, "u_texel");
  p.u_threshold = glGetUniformLocation(p.id, "u_threshold");
  return true;
}

bool Renderer::init(std::string* error) {
  if (!build(particles_, kParticleVs, kParticleFs, error)) return false;
  if (!build(splat_, kParticleVs, kSplatFs, error)) return false;
  if (!build(liquid_, kFullscreenVs, kLiquidFs, error)) return false;
  if (!build(shapes_, kShapeVs, kShapeFs, error)) return false;

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

  glGenVertexArrays(1, &shape_vao_);
  glGenBuffers(1, &shape_vbo_);
  glBindVertexArray(shape_vao_);
  glBindBuffer(GL_ARRAY_BUFFER, quad_vbo_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, shape_vbo_);
  for (GLuint k = 0; k < 3; ++k) {
    glEnableVertexAttribArray(1 + k);
    glVertexAttribPointer(1 + k, 4, GL_FLOAT, GL_FALSE, kShapeFloats * sizeof(float),
                          reinterpret_cast<const void*>(static_cast<uintptr_t>(4 * k * sizeof(float))));
    glVertexAttribDivisor(1 + k, 1);
  }

  // The fullscreen pass has no attributes, but WebGL wants a VAO bound.
  glGenVertexArrays(1, &empty_vao_);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  capacity_ = 0;
  field_w_ = field_h_ = 0;
  return true;
}

void Renderer::shutdown() {
  for (Program* p : {&particles_, &splat_, &liquid_, &shapes_})
    if (p->id) glDeleteProgram(p->id);
  GLuint buffers[] = {quad_vbo_, x_vbo_, y_vbo_, value_vbo_, shape_vbo_};
  glDeleteBuffers(5, buffers);
  GLuint vaos[] = {particle_vao_, shape_vao_, empty_vao_};
  glDeleteVertexArrays(3, vaos);
  if (field_fbo_) glDeleteFramebuffers(1, &field_fbo_);
  if (field_tex_) glDeleteTextures(1, &field_tex_);
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
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
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

  values_.resize(n);
  const float rho0 = world.params().rest_density;
  float target = 0.0f;  // the scale's upper end this frame
  switch (mode) {
    case ColorMode::Water:
    case ColorMode::Liquid:
    case ColorMode::Speed:
      for (int i = 0; i < n; ++i) values_[i] = std::sqrt(p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i]);
      break;
    case ColorMode::Density:
      for (int i = 0; i < n; ++i) values_[i] = p.density[i] / rho0 - 1.0f;
      break;
    case ColorMode::Pressure:
      for (int i = 0; i < n; ++i) values_[i] = p.pressure[i];
      break;
    case ColorMode::Surface:
      for (int i = 0; i < n; ++i) values_[i] = p.surface[i] ? 1.0f : 0.0f;
      break;
    case ColorMode::Count:
      break;
  }
  // Auto-ranged modes scale to the 98th percentile (one wild particle must
  // not wash everyone else out), rising at once and falling slowly.
  if (mode == ColorMode::Speed || mode == ColorMode::Density || mode == ColorMode::Pressure) {
    std::vector<float> tmp(values_);
    if (mode == ColorMode::Density)
      for (float& v : tmp) v = std::fabs(v);
    const size_t k = static_cast<size_t>(0.98 * (n - 1));
    std::nth_element(tmp.begin(), tmp.begin() + k, tmp.end());
    target = tmp[k];
    const float floor = mode == ColorMode::Speed ? 0.5f : (mode == ColorMode::Density ? 0.002f : 1e-6f);
    target = std::max(target, floor);
    range_hi_ = target > range_hi_ ? target : 0.97f * range_hi_ + 0.03f * target;
  }
  switch (mode) {
    case ColorMode::Water: *lo = 1.5f; *hi = 6.0f; break;
    case ColorMode::Liquid: *lo = 2.0f; *hi = 6.0f; break;
    case ColorMode::Speed:
    case ColorMode::Pressure: *lo = 0.0f; *hi = range_hi_; break;
    case ColorMode::Density: *lo = -range_hi_; *hi = range_hi_; break;
    default: *lo = 0.0f; *hi = 1.0f; break;
  }
  glBindBuffer(GL_ARRAY_BUFFER, value_vbo_);
  glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, values_.data());
}

void Renderer::draw_shapes(const tidepool::World& world, const Frame& frame, glm::vec2 s, glm::vec2 o) {
  const float px = 1.0f / frame.scale;
  const tidepool::Box& box = world.box();
  shape_data_.clear();
  {
    // Walls: a frame just outside the box, drawn as four rectangles.
    const float w = 5.0f * px;
    const float wall[4] = {0.52f, 0.58f, 0.66f, 1.0f};
    const glm::vec2 a = box.min, b = box.max;
    push_shape(shape_data_, {a.x - w, a.y - w}, {b.x + w, a.y}, 0, 2, 0, wall);
    push_shape(shape_data_, {a.x - w, b.y}, {b.x + w, b.y + w}, 0, 2, 0, wall);
    push_shape(shape_data_, {a.x - w, a.y}, {a.x, b.y}, 0, 2, 0, wall);
    push_shape(shape_data_, {b.x, a.y}, {b.x + w, b.y}, 0, 2, 0, wall);
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

namespace {

// The background, then the container's inside in its own colour: a
// scissored clear costs nothing per pixel.
void clear_background(const tidepool::Box& box, const Frame& frame, int w, int h) {
  glViewport(0, 0, w, h);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glClearColor(0.043f, 0.075f, 0.125f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
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
void Renderer::draw_liquid(int n, int w, int h, glm::vec2 s, glm::vec2 o, float radius, float lo, float hi) {
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
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  // 2. Threshold and shade.
  glViewport(0, 0, w, h);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(liquid_.id);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, field_tex_);
  glUniform1i(liquid_.u_field, 0);
  glUniform2f(liquid_.u_texel, 1.0f / fw, 1.0f / fh);
  glUniform1f(liquid_.u_threshold, 0.18f);
  glBindVertexArray(empty_vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindTexture(GL_TEXTURE_2D, 0);
}

// The n uploaded particles as discs of the given radius [m], coloured by
// `mode` over the value range [lo, hi].
void Renderer::draw_particles(int n, glm::vec2 s, glm::vec2 o, float radius, float lo, float hi, ColorMode mode) {
  glUseProgram(particles_.id);
  glUniform2f(particles_.u_scale, s.x, s.y);
  glUniform2f(particles_.u_offset, o.x, o.y);
  glUniform1f(particles_.u_radius, radius);
  glUniform2f(particles_.u_range, lo, hi);
  glUniform1i(particles_.u_mode, static_cast<int>(mode));
  glBindVertexArray(particle_vao_);
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, n);
}

void Renderer::draw(const tidepool::World& world, const RenderSettings& settings, const Frame& frame) {
  const int w = std::max(frame.width, 1), h = std::max(frame.height, 1);
  // world -> clip: (p - centre) * 2 scale / size
  const glm::vec2 s(2.0f * frame.scale / w, 2.0f * frame.scale / h);
  const glm::vec2 o = -frame.center * s;

  clear_background(world.box(), frame, w, h);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied alpha throughout

  const int n = world.count();
  float lo = 0.0f, hi = 1.0f;
  upload_particles(world, settings.color, &lo, &hi);
  const float min_radius = 0.75f / frame.scale;  // keep every particle visible
  if (n > 0 && settings.color == ColorMode::Liquid) {
    draw_liquid(n, w, h, s, o, std::max(2.0f * frame.spacing, 3.0f * min_radius), lo, hi);
  } else if (n > 0) {
    draw_particles(n, s, o, std::max(0.5f * frame.spacing * settings.particle_scale, min_radius), lo, hi,
                   settings.color);
  }

  draw_shapes(world, frame, s, o);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glUseProgram(0);
}

}  // namespace tidepool::app
