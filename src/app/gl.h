// Tidepool app — OpenGL ES 3.0 everywhere: WebGL 2 under Emscripten, and
// natively libGLESv2 (Mesa / libglvnd) with a GLES 3 context from SDL2. One
// GL dialect means one renderer and one set of shaders.
#pragma once

#include <GLES3/gl3.h>
