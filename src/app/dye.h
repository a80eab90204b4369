// Tidepool app — the page's sharp dye: a grid scene's dye held on the GPU
// at up to 1 024 texels along the long side, several times the simulation's
// own grid, and carried each tick through the core's velocity by
// MacCormack advection (Selle, Fedkiw, Kim, Liu & Rossignac 2008) in two
// fragment passes. The core keeps its own dye (buoyancy, the CLI and the
// state hash read it); this copy is only drawn.
#pragma once

#include <string>
#include <vector>

#include "gl.h"
#include "tidepool/world.h"

namespace tidepool::app {

class SharpDye {
 public:
  static constexpr int kMaxSide = 1024;  // texels along the long side, at most
  static constexpr int kMinSide = 128;

  // The programs. False with a message if they do not build. With
  // float_linear (the device filters 32-bit float textures) the dye is held
  // in 32-bit floats: in 16-bit ones, the rounding of each step's values
  // moves a colour's total by about a per cent in five seconds.
  bool init(bool float_linear, std::string* error);
  void shutdown();
  void forget() { *this = SharpDye{}; }

  // Whether the dye is held here (else the page draws the core's dye):
  // after a reset on a device that can draw into float textures.
  bool ready() const { return tex_[0] != 0; }
  // The bits of each held value: 32, or 16 where 32-bit floats do not filter.
  int bits() const { return float_linear_ ? 32 : 16; }
  int width() const { return w_; }
  int height() const { return h_; }
  GLuint texture() const { return tex_[cur_]; }

  // Starts over with `long_side` texels along the world's field's long side,
  // holding the scene's starting pattern (World::dye_fills) drawn at that
  // resolution. False (and not ready) without a field or float targets.
  bool reset(const tidepool::World& world, int long_side);
  // Keeps the dye, drawn again at `long_side` texels along the long side.
  void resize(const tidepool::World& world, int long_side);
  // One tick of dt [s]: the dye carried through the field's velocity, then
  // the pointers' and the emitters' dye poured and the sinks' drained by
  // the core's own rules (stable.cpp: each pointer pours dye_rate dt times
  // 1 - r/R of its colour, pointer_dye()).
  void step(const tidepool::World& world, const std::vector<tidepool::PointerForce>& pointers, float dt);
  // The texels (RGBA floats, row by row from the bottom), for the tests'
  // measures. False if they cannot be read.
  bool read(std::vector<float>* rgba) const;

 private:
  struct Pass {
    GLuint id = 0;
    GLint u_dye = -1, u_hat = -1, u_vel = -1, u_cells = -1, u_step = -1, u_texel = -1, u_min = -1, u_size = -1;
    GLint u_count = -1, u_rate = -1, u_a = -1, u_b = -1, u_c = -1;  // the sources or fills
    GLint u_sum = -1, u_from = -1;
  };
  bool targets(int w, int h);
  void upload_velocity(const tidepool::FieldView& f);
  void draw_into(int target);
  void total(int chain, GLuint source);

  Pass advect_, correct_, pour_, sum_, fill_;
  std::vector<GLuint> sums_[2];  // the totals' passes: before the step, after it
  GLuint vao_ = 0, fbo_ = 0, vel_tex_ = 0;
  GLuint tex_[3] = {0, 0, 0};  // the dye now, the forward step, the next
  int cur_ = 0;
  bool float_linear_ = false;
  int w_ = 0, h_ = 0, vel_w_ = 0, vel_h_ = 0;
  std::vector<float> vel_;
};

}  // namespace tidepool::app
