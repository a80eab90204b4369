// Tidepool app — how the toy looks, as a page or a link asks for it: the
// colour modes, and a host page's colours and show. Plain values, with no
// graphics, so the Setup that carries them (setup.h) is tested natively.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

namespace tidepool::app {

// What the particles or the grid are coloured by. Particles: water (plain),
// speed, density, pressure, surface (the surface tension's colour field),
// liquid (the water's surface, screen space). Grids (World::field()): dye,
// speed, pressure, vorticity. The indices are the particle shader's u_mode.
enum class ColorMode : int { Water = 0, Speed, Density, Pressure, Surface, Liquid, Dye, Vorticity, Count };
const char* color_mode_name(ColorMode mode);
bool parse_color_mode(std::string_view text, ColorMode* mode);
// Whether `mode` shows something for a grid solver (grid) or for particles.
bool color_mode_fits(ColorMode mode, bool grid);
// The mode a scene starts in when the one chosen does not fit it.
inline ColorMode default_color_mode(bool grid) { return grid ? ColorMode::Dye : ColorMode::Liquid; }
// "water, speed, ... or liquid": the names, for messages.
std::string color_mode_list();

// The colours and the show a host page picks (show.cpp): the dye's colours,
// taken in turn by the pointers and the splats; the water's colour; and a
// random splat every `splats` seconds of simulated time, drawn from `seed`,
// so a share link replays the same show.
struct Look {
  static constexpr int kMaxPalette = 8;
  std::vector<glm::vec3> palette;  // empty: tidepool::kDyeColours
  glm::vec3 water{-1.0f};          // negative: the renderer's own blues
  float splats = 0.0f;             // [s] between splats; 0: none
  uint32_t seed = 1;
  static constexpr float kMaxSplats = 600.0f;
};
// "ff3366" or "#ff3366" -> (1, 0.2, 0.4); false for anything else.
bool parse_hex_colour(const std::string& text, glm::vec3* colour);
std::string hex_colour(glm::vec3 colour);  // "ff3366"
// A comma-separated list of 1..Look::kMaxPalette hex colours; false (and
// nothing changed) if any item is not one.
bool parse_palette(const std::string& text, std::vector<glm::vec3>* palette);

}  // namespace tidepool::app
