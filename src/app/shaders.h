// The renderer's GLSL ES 3.00 programs (renderer.cpp), valid for WebGL 2
// and native GLES 3 alike.
#pragma once

namespace tidepool::app::shaders {

// Particles and splats: a quad of half-size u_radius around (a_x, a_y).
inline constexpr const char* kParticleVs = R"(#version 300 es
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

inline constexpr const char* kParticleFs = R"(#version 300 es
precision mediump float;
in vec2 v_corner;
in float v_t;
uniform int u_mode;  // ColorMode
uniform vec3 u_water;  // the water mode's colour
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
  if (u_mode == 0) c = mix(u_water, vec3(0.78, 0.93, 1.0), v_t);  // water, foam when fast
  else if (u_mode == 2) c = diverging(v_t);
  else if (u_mode == 4) c = v_t > 0.5 ? vec3(1.0, 0.62, 0.22) : vec3(0.16, 0.38, 0.72);
  else c = ramp(v_t);
  c *= 0.82 + 0.18 * (1.0 - d * d);  // a little roundness
  o_color = vec4(c * alpha, alpha);
}
)";

// Splat: a smooth bump (1 - r^2)^3, summed by additive blending. R is the
// field, G the same weighted by speed (foam).
inline constexpr const char* kSplatFs = R"(#version 300 es
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

inline constexpr const char* kFullscreenVs = R"(#version 300 es
out vec2 v_uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  v_uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

// Threshold and shade the splatted field: the gradient gives a normal for a
// fake-3D light; the water above each point (eight samples straight up,
// u_depth apart, each counted by how far it is past the threshold, softly,
// from a blurred copy of the field, mip level 4.5; a rigid body, marked in
// the blue channel, counts as water, so none leaves a pale shaft below it)
// darkens the blue as light passing through deep water does. Counting all of it, over a crest or a
// drop too, rather than stopping at the first air, keeps the tint smooth
// from one column of pixels to the next; the foam channel whitens fast water,
// and a thin rim brightens the surface.
inline constexpr const char* kLiquidFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_field;
uniform vec2 u_texel;
uniform float u_threshold;
uniform float u_depth;
uniform vec3 u_water;  // shallow
uniform vec3 u_deep;
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
  float above = 0.0;
  for (int k = 1; k <= 8; ++k) {
    vec4 up = textureLod(u_field, v_uv + vec2(0.0, float(k) * u_depth), 4.5);
    above += smoothstep(u_threshold - 0.3, u_threshold + 0.3, up.r + up.b);
  }
  float depth = smoothstep(0.0, 8.0, above);
  vec3 c = mix(u_water, u_deep, depth);
  c = c * (0.72 + 0.38 * diffuse) + vec3(spec * 0.55);
  float foam = clamp(f.g / max(d, 1e-3), 0.0, 1.0);
  c = mix(c, vec3(0.90, 0.97, 1.0), foam * 0.75);
  float rim = 1.0 - smoothstep(u_threshold, u_threshold + 0.07, d);
  c = mix(c, vec3(0.72, 0.90, 1.0), rim * 0.55);
  o_color = vec4(c * a, a);
}
)";

// A grid's cells: the rectangle u_min .. u_min + u_size (the strip's four
// corners from gl_VertexID), one texel per cell.
inline constexpr const char* kGridVs = R"(#version 300 es
uniform vec2 u_scale;
uniform vec2 u_offset;
uniform vec2 u_min;
uniform vec2 u_size;
out vec2 v_uv;
void main() {
  vec2 c = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  v_uv = c;
  gl_Position = vec4((u_min + c * u_size) * u_scale + u_offset, 0.0, 1.0);
}
)";

// Texel: (red, green, blue dye, fluid) in dye mode, else (value, -, -,
// fluid) with the value already over its range (0..1 sequential, -1..1
// diverging). Every mode is light on the dark box: drawn premultiplied
// with alpha = its brightest channel, no value is the box's own colour.
inline constexpr const char* kGridFs = R"(#version 300 es
precision highp float;
uniform sampler2D u_field;
uniform int u_mode;    // 0 dye, 1 sequential, 2 diverging
uniform float u_gain;  // dye: brightness per unit of dye
uniform vec2 u_texel;  // one cell in uv
in vec2 v_uv;
out vec4 o_color;
// Inferno, the polynomial fit of matplotlib's map by mattz (CC0,
// shadertoy WlfXRN): perceptually uniform, black at 0.
vec3 inferno(float t) {
  const vec3 c0 = vec3(0.0002189403691192265, 0.001651004631001012, -0.01948089843709184);
  const vec3 c1 = vec3(0.1065134194856116, 0.5639564367884091, 3.932712388889277);
  const vec3 c2 = vec3(11.60249308247187, -3.972853965665698, -15.9423941062914);
  const vec3 c3 = vec3(-41.70399613139459, 17.43639888205313, 44.35414519872813);
  const vec3 c4 = vec3(77.162935699427, -33.40235894210092, -81.80730925738993);
  const vec3 c5 = vec3(-71.31942824499214, 32.62606426397723, 73.20951985803202);
  const vec3 c6 = vec3(25.13112622477341, -12.24266895238567, -23.07032500287172);
  return clamp(c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6))))), 0.0, 1.0);
}
// Diverging with a dark middle (as seaborn's icefire): 0 is the box,
// negative through blue to ice, positive through red to pale gold.
vec3 diverging(float t) {
  float s = pow(abs(t), 0.8);
  vec3 mid = t < 0.0 ? vec3(0.13, 0.40, 0.86) : vec3(0.86, 0.26, 0.16);
  vec3 end = t < 0.0 ? vec3(0.70, 0.93, 1.0) : vec3(1.0, 0.90, 0.58);
  return s < 0.55 ? mid * smoothstep(0.0, 0.55, s) : mix(mid, end, (s - 0.55) / 0.45);
}
// Dye: its hue kept, its brightness 1 - exp(-k m) of the strongest
// channel m (thin dye is faint, thick dye saturates instead of clipping),
// and a glow toward white only where dye piles up well past 1.
vec3 dye(vec3 d) {
  d = max(d, 0.0);
  float m = max(max(d.r, d.g), d.b);
  if (m < 1e-5) return vec3(0.0);
  vec3 c = d * ((1.0 - exp(-u_gain * m)) / m);
  float glow = 1.0 - exp(-0.5 * max(m - 1.5, 0.0));
  return mix(c, vec3(1.0), 0.4 * glow);
}
void main() {
  vec4 f = texture(u_field, v_uv);
  vec3 c;
  if (u_mode == 0) {
    c = dye(f.rgb);
    // A little relief: the dye's thickness lit from the top left, so
    // folds and filaments read as ink in water rather than flat paint.
    float l = dot(texture(u_field, v_uv - vec2(u_texel.x, 0.0)).rgb, vec3(1.0));
    float r = dot(texture(u_field, v_uv + vec2(u_texel.x, 0.0)).rgb, vec3(1.0));
    float b = dot(texture(u_field, v_uv - vec2(0.0, u_texel.y)).rgb, vec3(1.0));
    float t = dot(texture(u_field, v_uv + vec2(0.0, u_texel.y)).rgb, vec3(1.0));
    vec2 g = vec2(r - l, t - b) / (1.0 + dot(f.rgb, vec3(1.0)));
    c *= clamp(1.0 - 0.25 * dot(g, vec2(-0.6, 0.8)), 0.8, 1.15);
  } else if (u_mode == 1) {
    c = inferno(clamp(f.r, 0.0, 1.0));
  } else {
    c = diverging(clamp(f.r, -1.0, 1.0));
  }
  c = min(c, 1.0) * clamp(f.a, 0.0, 1.0);
  o_color = vec4(c, max(max(c.r, c.g), c.b));
}
)";

// Rigid bodies, one instance each: a quad over the body's bounding circle,
// turned with it, and its shape's signed distance in the body's own frame,
// so the outline, the grain and a disc's spoke turn with the body.
// a_pose = (centroid x, y, cos, sin of the angle); a_form = (kind: 0 disc,
// 1 convex polygon; corners; reach: a disc's radius or the farthest corner;
// 1 while a drag holds it); a_fill = the wood's colour (straight alpha);
// a_p01..a_p67 = up to 8 corners, counter-clockwise, in the body's frame.
// With u_solid set, a body only marks where it stands in the liquid's field
// (its blue channel), so the depth tint counts it as water above.
inline constexpr const char* kBodyVs = R"(#version 300 es
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec4 a_pose;
layout(location = 2) in vec4 a_form;
layout(location = 3) in vec4 a_fill;
layout(location = 4) in vec4 a_p01;
layout(location = 5) in vec4 a_p23;
layout(location = 6) in vec4 a_p45;
layout(location = 7) in vec4 a_p67;
uniform vec2 u_scale;
uniform vec2 u_offset;
uniform float u_px;  // world units per pixel
out vec2 v_local;
flat out vec4 v_pose;
flat out vec4 v_form;
flat out vec4 v_fill;
flat out vec4 v_p01;
flat out vec4 v_p23;
flat out vec4 v_p45;
flat out vec4 v_p67;
void main() {
  vec2 local = a_corner * (a_form.z + 2.0 * u_px);
  vec2 p = a_pose.xy + vec2(a_pose.z * local.x - a_pose.w * local.y, a_pose.w * local.x + a_pose.z * local.y);
  v_local = local;
  v_pose = a_pose;
  v_form = a_form;
  v_fill = a_fill;
  v_p01 = a_p01;
  v_p23 = a_p23;
  v_p45 = a_p45;
  v_p67 = a_p67;
  gl_Position = vec4(p * u_scale + u_offset, 0.0, 1.0);
}
)";

inline constexpr const char* kBodyFs = R"(#version 300 es
precision highp float;
in vec2 v_local;
flat in vec4 v_pose;
flat in vec4 v_form;
flat in vec4 v_fill;
flat in vec4 v_p01;
flat in vec4 v_p23;
flat in vec4 v_p45;
flat in vec4 v_p67;
uniform float u_px;
uniform int u_solid;
out vec4 o_color;
float segment(vec2 p, vec2 a, vec2 b) {
  vec2 e = b - a, w = p - a;
  return length(w - e * clamp(dot(w, e) / max(dot(e, e), 1e-12), 0.0, 1.0));
}
void main() {
  vec2 q = v_local;
  float reach = v_form.z;
  float d;
  if (v_form.x < 0.5) {
    d = length(q) - reach;
  } else {
    // Convex, counter-clockwise: the nearest edge's distance, negative
    // where q is left of every edge.
    vec2 v[8] = vec2[8](v_p01.xy, v_p01.zw, v_p23.xy, v_p23.zw, v_p45.xy, v_p45.zw, v_p67.xy, v_p67.zw);
    int n = int(v_form.y + 0.5);
    float nearest = 1e9;
    bool inside = true;
    for (int i = 0; i < 8; ++i) {
      if (i >= n) break;
      vec2 a = v[i], b = v[i + 1 < n ? i + 1 : 0];
      vec2 e = b - a, w = q - a;
      nearest = min(nearest, segment(q, a, b));
      if (e.x * w.y - e.y * w.x < 0.0) inside = false;
    }
    d = inside ? -nearest : nearest;
  }
  float cover = clamp(0.5 - d / u_px, 0.0, 1.0);  // one pixel of antialiasing
  if (cover <= 0.0) discard;
  if (u_solid == 1) {
    o_color = vec4(0.0, 0.0, cover, 0.0);
    return;
  }
  vec3 wood = v_fill.rgb;
  // Grain along the body's length (a disc's rings round its centre), soft
  // enough not to alias when small.
  float along = v_form.x < 0.5 ? length(q) : q.y + 0.012 * sin(q.x * 23.0);
  wood *= 0.95 + 0.05 * sin(along * 160.0);
  // Lit from above like a solid in the water: lighter at the top, in the
  // world's up direction (the local offset turned by the angle).
  float up = (v_pose.w * q.x + v_pose.z * q.y) / max(reach, 1e-6);
  wood *= 0.9 + 0.16 * clamp(0.5 + 0.5 * up, 0.0, 1.0);
  // A disc's spoke and hub: a rolling disc is seen to roll.
  if (v_form.x < 0.5) {
    float mark = min(segment(q, vec2(0.0), vec2(0.8 * reach, 0.0)) - max(0.06 * reach, 1.0 * u_px),
                     length(q) - max(0.14 * reach, 2.0 * u_px));
    wood = mix(wood, vec3(0.36, 0.20, 0.09), clamp(0.5 - mark / u_px, 0.0, 1.0));
  }
  // The outline: dark wood, or a warm glow while a drag holds the body.
  float rim = max(2.0 * u_px, 0.04 * reach);
  vec3 edge = v_form.w > 0.5 ? vec3(1.0, 0.86, 0.52) : vec3(0.36, 0.20, 0.09);
  wood = mix(wood, edge, clamp(0.5 + (d + rim) / u_px, 0.0, 1.0));
  float alpha = v_fill.a * cover;
  o_color = vec4(wood * alpha, alpha);
}
)";

// Shapes: a_seg = (ax, ay, bx, by); a_shape = (radius, style, ring width, -);
// style 0 capsule (a disc when a == b), 1 ring, 2 rectangle from a to b.
inline constexpr const char* kShapeVs = R"(#version 300 es
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

inline constexpr const char* kShapeFs = R"(#version 300 es
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

}  // namespace tidepool::app::shaders
