// Tidepool app — the colour modes' table: their names (the panel's, the
// options', the web API's), parsing, and which modes fit particles or a grid.
#include <string>
#include <string_view>

#include "look.h"

namespace tidepool::app {

namespace {

const char* const kColorModeNames[] = {"water",   "speed",  "density", "pressure",
                                       "surface", "liquid", "dye",     "vorticity"};
static_assert(sizeof(kColorModeNames) / sizeof(kColorModeNames[0]) == static_cast<int>(ColorMode::Count));

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

bool color_mode_fits(ColorMode mode, bool grid) {
  switch (mode) {
    case ColorMode::Speed:
    case ColorMode::Pressure: return true;
    case ColorMode::Dye:
    case ColorMode::Vorticity: return grid;
    case ColorMode::Water:
    case ColorMode::Density:
    case ColorMode::Surface:
    case ColorMode::Liquid: return !grid;
    case ColorMode::Count: break;
  }
  return false;
}

std::string color_mode_list() {
  std::string out;
  const int n = static_cast<int>(ColorMode::Count);
  for (int i = 0; i < n; ++i) out += std::string(i == 0 ? "" : (i + 1 == n ? " or " : ", ")) + kColorModeNames[i];
  return out;
}

}  // namespace tidepool::app
