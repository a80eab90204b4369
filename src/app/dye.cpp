// Tidepool app — the page's sharp dye (dye.h).
//
// Each tick, with phi the dye and A the semi-Lagrangian step through the
// field's velocity u (a midpoint back-trace, Stam 1999 with second-order
// paths):
//   pass 1: phi^ = A(phi)                        (the forward step)
//   pass 2: phi' = phi^ + (phi - A^R(phi^)) / 2  (MacCormack's correction,
//           Selle et al. 2008, eq. 5-7; A^R traces forward in time)
//           clamped to the four texels of phi the back-trace lands among
//           (their eq. 8), so the correction adds no new extremes;
//   pass 3: phi' scaled, colour by colour, to the amount phi held (the
//           totals from passes of 8 x 8 sums, kSumFs), since the
//           interpolated velocity is not divergence-free and the steps
//           above would otherwise gain or lose dye by a few per cent in
//           five seconds of stirring; then the sources: each pointer pours
//           dye_rate dt (1 - r/R) of its colour, each emitter dye_rate dt
//           over its strip, each sink drains, as the core's stable.cpp
//           does on its own grid.
// The dye is an amount per area, as the core's: a texel's value times its
// area sums to the core's cell values times theirs.
#include "dye.h"

#include <algorithm>
#include <cmath>

#include "shaders.h"

namespace tidepool::app {

namespace {

constexpr int kMaxSources = 32;  // pointers, emitters and sinks in one pass

// The grid's velocity at uv (over the field's rectangle), bilinear between
// the MAC grid's faces as the core's own traces take it: u_vel holds u
// (red) on the vertical faces, v (green) on the horizontal ones and the
// cells' fluid flag (blue), each at texel (i, j) of an (nx + 1) x (ny + 1)
// texture. trace(): a position traced back (sign 1) or forward (-1) along
// a midpoint path over one tick, in uv units (u_step = dt / the size).
constexpr const char* kTrace = R"(
uniform sampler2D u_vel;
uniform vec2 u_cells;
uniform vec2 u_step;
vec2 velocity(vec2 uv) {
  vec2 c = uv * u_cells, n = u_cells + 1.0;
  return vec2(texture(u_vel, vec2(c.x + 0.5, c.y) / n).r, texture(u_vel, vec2(c.x, c.y + 0.5) / n).g);
}
float fluid(vec2 uv) { return texture(u_vel, uv * u_cells / (u_cells + 1.0)).b; }
vec2 trace(vec2 uv, float sign) {
  vec2 mid = uv - 0.5 * sign * velocity(uv) * u_step;
  return uv - sign * velocity(mid) * u_step;
}
)";

constexpr const char* kAdvectFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_dye;
%TRACE%
in vec2 v_uv;
out vec4 o_dye;
void main() { o_dye = texture(u_dye, trace(v_uv, 1.0)); }
)";

constexpr const char* kCorrectFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_dye;
uniform sampler2D u_hat;
uniform vec2 u_texel;
%TRACE%
in vec2 v_uv;
out vec4 o_dye;
void main() {
  vec2 from = trace(v_uv, 1.0);
  vec4 d = texture(u_hat, v_uv) + 0.5 * (texture(u_dye, v_uv) - texture(u_hat, trace(v_uv, -1.0)));
  vec2 corner = (floor(from / u_texel - 0.5) + 0.5) * u_texel;
  vec4 t00 = texture(u_dye, corner), t10 = texture(u_dye, corner + vec2(u_texel.x, 0.0));
  vec4 t01 = texture(u_dye, corner + vec2(0.0, u_texel.y)), t11 = texture(u_dye, corner + u_texel);
  o_dye = clamp(d, min(min(t00, t10), min(t01, t11)), max(max(t00, t10), max(t01, t11)));
}
)";

// The sum of an 8 x 8 block of u_dye's texels (of u_from in all) per
// texel: passes of it bring a texture down to one texel, its total.
constexpr const char* kSumFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_dye;
uniform ivec2 u_from;
out vec4 o_sum;
void main() {
  ivec2 base = 8 * ivec2(gl_FragCoord.xy);
  vec4 s = vec4(0.0);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      ivec2 p = base + ivec2(x, y);
      if (p.x < u_from.x && p.y < u_from.y) s += texelFetch(u_dye, p, 0);
    }
  o_sum = s;
}
)";

// The advected dye scaled back to the amount it held before the step (each
// colour by its total before over its total after: u_hat and u_sum hold
// them), then the sources. a, b, c per source: a pointer (x, y, R, -),
// (r, g, b, 0); an emitter (x, y, dir x, dir y), (r, g, b, 1), (half width,
// depth); a sink (x, y, R, -), (-, -, -, 2).
constexpr const char* kPourFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_dye;
uniform sampler2D u_hat;
uniform sampler2D u_sum;
uniform vec2 u_min;
uniform vec2 u_size;
uniform float u_rate;
uniform int u_count;
uniform vec4 u_a[32];
uniform vec4 u_b[32];
uniform vec4 u_c[32];
%TRACE%
in vec2 v_uv;
out vec4 o_dye;
void main() {
  vec3 before = texelFetch(u_hat, ivec2(0), 0).rgb, after = texelFetch(u_sum, ivec2(0), 0).rgb;
  vec3 keep = mix(vec3(1.0), before / max(after, 1e-20), step(1e-6, after));
  vec3 d = texture(u_dye, v_uv).rgb * keep;
  vec2 p = u_min + v_uv * u_size;
  for (int k = 0; k < 32; ++k) {
    if (k >= u_count) break;
    vec4 a = u_a[k], b = u_b[k];
    vec2 q = p - a.xy;
    if (b.w < 0.5) {
      float r = length(q);
      if (r < a.z) d += u_rate * (1.0 - r / a.z) * b.rgb;
    } else if (b.w < 1.5) {
      if (abs(dot(q, vec2(-a.w, a.z))) <= u_c[k].x && abs(dot(q, a.zw)) <= u_c[k].y) d += u_rate * b.rgb;
    } else if (length(q) < a.z) {
      d = vec3(0.0);
    }
  }
  // No dye in a solid cell (a body's, an obstacle's), as in the core.
  float wet = step(0.5, fluid(v_uv));
  o_dye = vec4(max(d, 0.0) * wet, wet);
}
)";

// The scene's starting pattern: each fill's colour over the texels whose
// centres lie in its box (World::fill_dye's rule on the core's cells),
// a = (min x, min y, max x, max y), b = colour; or, with u_count < 0, the
// old dye drawn again at this size.
constexpr const char* kFillFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_dye;
uniform vec2 u_min;
uniform vec2 u_size;
uniform int u_count;
uniform vec4 u_a[32];
uniform vec4 u_b[32];
in vec2 v_uv;
out vec4 o_dye;
void main() {
  if (u_count < 0) {
    o_dye = texture(u_dye, v_uv);
    return;
  }
  vec2 p = u_min + v_uv * u_size;
  vec3 d = vec3(0.0);
  for (int k = 0; k < 32; ++k) {
    if (k >= u_count) break;
    if (all(greaterThanEqual(p, u_a[k].xy)) && all(lessThan(p, u_a[k].zw))) d += u_b[k].rgb;
  }
  o_dye = vec4(d, 1.0);
}
)";

std::string with_trace(const char* fs) {
  std::string s = fs;
  const size_t at = s.find("%TRACE%");
  if (at != std::string::npos) s.replace(at, 7, kTrace);
  return s;
}

// The dye's size for `long_side` texels along the field's long side.
void dye_size(const tidepool::FieldView& f, int long_side, int* w, int* h) {
  const int side = std::clamp(long_side, SharpDye::kMinSide, SharpDye::kMaxSide);
  const float aspect = static_cast<float>(f.nx) / std::max(f.ny, 1);
  *w = aspect >= 1.0f ? side : std::max(1, static_cast<int>(std::lround(side * aspect)));
  *h = aspect >= 1.0f ? std::max(1, static_cast<int>(std::lround(side / aspect))) : side;
}

}  // namespace

bool SharpDye::init(bool float_linear, std::string* error) {
  float_linear_ = float_linear;
  auto make = [&](Pass& p, const std::string& fs) {
    p.id = build_program(shaders::kFullscreenVs, fs.c_str(), error);
    if (!p.id) return false;
    for (auto [loc, name] : {std::pair{&p.u_dye, "u_dye"}, {&p.u_hat, "u_hat"}, {&p.u_vel, "u_vel"},
                             {&p.u_step, "u_step"}, {&p.u_cells, "u_cells"}, {&p.u_texel, "u_texel"}, {&p.u_min, "u_min"},
                             {&p.u_size, "u_size"}, {&p.u_count, "u_count"}, {&p.u_rate, "u_rate"},
                             {&p.u_a, "u_a"}, {&p.u_b, "u_b"}, {&p.u_c, "u_c"}, {&p.u_sum, "u_sum"},
                             {&p.u_from, "u_from"}})
      *loc = glGetUniformLocation(p.id, name);
    return true;
  };
  if (!make(advect_, with_trace(kAdvectFs)) || !make(correct_, with_trace(kCorrectFs)) ||
      !make(pour_, with_trace(kPourFs)) || !make(sum_, kSumFs) || !make(fill_, kFillFs))
    return false;
  glGenVertexArrays(1, &vao_);
  glGenFramebuffers(1, &fbo_);
  return true;
}

void SharpDye::shutdown() {
  for (GLuint p : {advect_.id, correct_.id, pour_.id, sum_.id, fill_.id})
    if (p) glDeleteProgram(p);
  glDeleteTextures(3, tex_);
  for (std::vector<GLuint>& chain : sums_) glDeleteTextures(static_cast<GLsizei>(chain.size()), chain.data());
  if (vel_tex_) glDeleteTextures(1, &vel_tex_);
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  forget();
}

// Three float textures of w x h that can be drawn into: 32-bit where the
// device filters them, else 16-bit; false (and none kept) where it cannot
// render to float textures.
bool SharpDye::targets(int w, int h) {
  if (w == w_ && h == h_ && tex_[0]) return true;
  GLuint fresh[3];
  glGenTextures(3, fresh);
  bool ok = true;
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  for (GLuint t : fresh) {
    glBindTexture(GL_TEXTURE_2D, t);
    if (float_linear_) glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, w, h, 0, GL_RGBA, GL_FLOAT, nullptr);
    else glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, w, h, 0, GL_RGBA, GL_HALF_FLOAT, nullptr);
    texture_params(GL_LINEAR, GL_LINEAR);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t, 0);
    ok = ok && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  if (!ok) {
    glDeleteTextures(3, fresh);
    return false;
  }
  // The old dye (if any) drawn again at the new size, into the first.
  if (tex_[0]) {
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, fresh[0], 0);
    glViewport(0, 0, w, h);
    glUseProgram(fill_.id);
    glUniform1i(fill_.u_count, -1);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex_[cur_]);
    glUniform1i(fill_.u_dye, 0);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteTextures(3, tex_);
  }
  std::copy(fresh, fresh + 3, tex_);
  cur_ = 0;
  w_ = w;
  h_ = h;
  // Each total's passes: an eighth of the size a side each, down to 1 x 1.
  for (std::vector<GLuint>& chain : sums_) {
    glDeleteTextures(static_cast<GLsizei>(chain.size()), chain.data());
    chain.clear();
    for (int cw = w, ch = h; cw > 1 || ch > 1;) {
      cw = (cw + 7) / 8;
      ch = (ch + 7) / 8;
      GLuint t = 0;
      glGenTextures(1, &t);
      glBindTexture(GL_TEXTURE_2D, t);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, cw, ch, 0, GL_RGBA, GL_FLOAT, nullptr);
      texture_params(GL_NEAREST, GL_NEAREST);
      chain.push_back(t);
    }
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  return true;
}

// The total of each colour in `source` (w_ x h_ texels), into the last
// texture of sums_[chain] (texture unit 3 does the sampling).
void SharpDye::total(int chain, GLuint source) {
  glUseProgram(sum_.id);
  glUniform1i(sum_.u_dye, 3);
  glActiveTexture(GL_TEXTURE3);
  glBindVertexArray(vao_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  int cw = w_, ch = h_;
  for (GLuint t : sums_[chain]) {
    glBindTexture(GL_TEXTURE_2D, source);
    glUniform2i(sum_.u_from, cw, ch);
    cw = (cw + 7) / 8;
    ch = (ch + 7) / 8;
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t, 0);
    glViewport(0, 0, cw, ch);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    source = t;
  }
  glBindTexture(GL_TEXTURE_2D, sums_[chain].empty() ? 0 : sums_[chain].back());
}

void SharpDye::draw_into(int target) {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex_[target], 0);
  glViewport(0, 0, w_, h_);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

bool SharpDye::reset(const tidepool::World& world, int long_side) {
  const tidepool::FieldView* f = world.field();
  if (!f || !fbo_) return false;
  if (tex_[0]) glDeleteTextures(3, tex_);
  std::fill(tex_, tex_ + 3, 0u);
  int w = 0, h = 0;
  dye_size(*f, long_side, &w, &h);
  w_ = h_ = 0;
  if (!targets(w, h)) return false;
  std::vector<float> a, b;
  for (const tidepool::DyeFill& fill : world.dye_fills()) {
    if (a.size() == 4 * kMaxSources) break;
    a.insert(a.end(), {fill.region.min.x, fill.region.min.y, fill.region.max.x, fill.region.max.y});
    b.insert(b.end(), {fill.colour.x, fill.colour.y, fill.colour.z, 0.0f});
  }
  glDisable(GL_BLEND);
  glUseProgram(fill_.id);
  glUniform2f(fill_.u_min, f->origin.x, f->origin.y);
  glUniform2f(fill_.u_size, f->nx * f->cell, f->ny * f->cell);
  glUniform1i(fill_.u_count, static_cast<GLint>(a.size() / 4));
  if (!a.empty()) {
    glUniform4fv(fill_.u_a, static_cast<GLsizei>(a.size() / 4), a.data());
    glUniform4fv(fill_.u_b, static_cast<GLsizei>(b.size() / 4), b.data());
  }
  draw_into(cur_);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return true;
}

void SharpDye::resize(const tidepool::World& world, int long_side) {
  const tidepool::FieldView* f = world.field();
  if (!f || !ready()) return;
  int w = 0, h = 0;
  dye_size(*f, long_side, &w, &h);
  glDisable(GL_BLEND);
  targets(w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

// The grid's face velocities and fluid cells (kTrace's u_vel) as an
// RGBA16F texture, filtered linearly (WebGL 2 filters half floats). The
// row and column past the faces repeat the last ones, as the texture's
// edge does.
void SharpDye::upload_velocity(const tidepool::FieldView& f) {
  const int nx = f.nx, ny = f.ny, w = nx + 1, h = ny + 1;
  vel_.resize(4 * static_cast<size_t>(w) * h);
  auto finite = [](float x) { return std::isfinite(x) ? x : 0.0f; };
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      float* t = &vel_[4 * (static_cast<size_t>(j) * w + i)];
      const int cj = std::min(j, ny - 1), ci = std::min(i, nx - 1);
      t[0] = finite(f.u_faces[cj * w + i]);
      t[1] = finite(f.v_faces[j * nx + ci]);
      t[2] = f.solid && f.solid[cj * nx + ci] ? 0.0f : 1.0f;
      t[3] = 0.0f;
    }
  if (!vel_tex_) glGenTextures(1, &vel_tex_);
  glBindTexture(GL_TEXTURE_2D, vel_tex_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  if (w != vel_w_ || h != vel_h_) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, w, h, 0, GL_RGBA, GL_FLOAT, vel_.data());
    texture_params(GL_LINEAR, GL_LINEAR);
    vel_w_ = w;
    vel_h_ = h;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_FLOAT, vel_.data());
  }
}

void SharpDye::step(const tidepool::World& world, const std::vector<tidepool::PointerForce>& pointers, float dt) {
  const tidepool::FieldView* f = world.field();
  if (!f || !ready() || !(dt > 0.0f)) return;
  glDisable(GL_BLEND);
  glActiveTexture(GL_TEXTURE2);
  upload_velocity(*f);
  const glm::vec2 size(f->nx * f->cell, f->ny * f->cell);
  // cur_ -> hat (the forward step) -> next (corrected) -> hat (kept, poured).
  const int hat = (cur_ + 1) % 3, next = (cur_ + 2) % 3;
  auto common = [&](const Pass& p) {
    glUseProgram(p.id);
    glUniform1i(p.u_dye, 0);
    glUniform1i(p.u_hat, 1);
    glUniform1i(p.u_vel, 2);
    glUniform2f(p.u_step, dt / size.x, dt / size.y);
    glUniform2f(p.u_cells, static_cast<float>(f->nx), static_cast<float>(f->ny));
  };
  // Passes 1 and 2, after the dye's amount before them.
  total(0, tex_[cur_]);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, tex_[cur_]);
  common(advect_);
  draw_into(hat);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, tex_[hat]);
  common(correct_);
  glUniform2f(correct_.u_texel, 1.0f / w_, 1.0f / h_);
  draw_into(next);

  // The sources, by the core's rules and colours (stable.cpp).
  std::vector<float> a, b, c;
  auto source = [&](std::initializer_list<float> pa, std::initializer_list<float> pb, std::initializer_list<float> pc) {
    if (a.size() == 4 * kMaxSources) return;
    a.insert(a.end(), pa);
    b.insert(b.end(), pb);
    c.insert(c.end(), pc);
  };
  for (size_t k = 0; k < pointers.size(); ++k) {
    const glm::vec3 col = tidepool::pointer_dye(pointers[k], k);
    source({pointers[k].position.x, pointers[k].position.y, pointers[k].radius, 0.0f}, {col.x, col.y, col.z, 0.0f},
           {0.0f, 0.0f, 0.0f, 0.0f});
  }
  for (const tidepool::Sink& s : world.sinks())
    source({s.position.x, s.position.y, s.radius, 0.0f}, {0.0f, 0.0f, 0.0f, 2.0f}, {0.0f, 0.0f, 0.0f, 0.0f});
  const std::vector<tidepool::Emitter>& emitters = world.emitters();
  for (size_t k = 0; k < emitters.size(); ++k) {
    const tidepool::Emitter& e = emitters[k];
    const float speed = std::sqrt(e.velocity.x * e.velocity.x + e.velocity.y * e.velocity.y);
    if (!(speed > 0.0f)) continue;
    const glm::vec3 col = tidepool::kDyeColours[(k + 1) % tidepool::kDyeColours.size()];
    source({e.position.x, e.position.y, e.velocity.x / speed, e.velocity.y / speed}, {col.x, col.y, col.z, 1.0f},
           {0.5f * e.width, std::max(f->cell, 0.25f * e.width), 0.0f, 0.0f});
  }

  // Pass 3: the amount before (unit 1, as u_hat) and after (unit 4).
  total(1, tex_[next]);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, sums_[0].back());
  glActiveTexture(GL_TEXTURE4);
  glBindTexture(GL_TEXTURE_2D, sums_[1].back());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, tex_[next]);
  common(pour_);
  glUniform1i(pour_.u_sum, 4);
  glUniform2f(pour_.u_min, f->origin.x, f->origin.y);
  glUniform2f(pour_.u_size, size.x, size.y);
  glUniform1f(pour_.u_rate, world.params().dye_rate * dt);
  const GLsizei n = static_cast<GLsizei>(a.size() / 4);
  glUniform1i(pour_.u_count, n);
  if (n > 0) {
    glUniform4fv(pour_.u_a, n, a.data());
    glUniform4fv(pour_.u_b, n, b.data());
    glUniform4fv(pour_.u_c, n, c.data());
  }
  draw_into(hat);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  for (int unit : {4, 3, 2, 1, 0}) {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, 0);
  }
  cur_ = hat;
}

bool SharpDye::read(std::vector<float>* rgba) const {
  if (!ready()) return false;
  rgba->assign(4 * static_cast<size_t>(w_) * h_, 0.0f);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex_[cur_], 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, w_, h_, GL_RGBA, GL_FLOAT, rgba->data());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  return glGetError() == GL_NO_ERROR;
}

}  // namespace tidepool::app
