// Tidepool app — OpenGL ES 3.0 everywhere: WebGL 2 under Emscripten, and
// natively libGLESv2 (Mesa / libglvnd) with a GLES 3 context from SDL2. One
// GL dialect means one renderer and one set of shaders.
#pragma once

#include <GLES3/gl3.h>

#include <string>

namespace tidepool::app {

// A program from its two shaders' sources; 0 with the compiler's or the
// linker's log in *error.
GLuint build_program(const char* vs, const char* fs, std::string* error);
// The bound 2D texture's filters, clamped to its edges.
void texture_params(GLint min_filter, GLint mag_filter);

}  // namespace tidepool::app
