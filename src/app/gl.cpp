// Tidepool app — the GL helpers the renderer and the sharp dye share.
#include "gl.h"

namespace tidepool::app {

namespace {

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

}  // namespace

GLuint build_program(const char* vs, const char* fs, std::string* error) {
  GLuint v = compile(GL_VERTEX_SHADER, vs, error);
  if (!v) return 0;
  GLuint f = compile(GL_FRAGMENT_SHADER, fs, error);
  if (!f) {
    glDeleteShader(v);
    return 0;
  }
  GLuint id = glCreateProgram();
  glAttachShader(id, v);
  glAttachShader(id, f);
  glLinkProgram(id);
  glDeleteShader(v);
  glDeleteShader(f);
  GLint ok = 0;
  glGetProgramiv(id, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetProgramInfoLog(id, sizeof(log) - 1, nullptr, log);
    *error = std::string("shader link: ") + log;
    glDeleteProgram(id);
    return 0;
  }
  return id;
}

void texture_params(GLint min_filter, GLint mag_filter) {
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min_filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag_filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

}  // namespace tidepool::app
