# Sourced by the scripts: the paths and versions they share. Any of them can
# be overridden from the environment.
TIDEPOOL_CACHE="${TIDEPOOL_CACHE:-${HOME:-/root}/.cache/tidepool}"
SDL2_VERSION=2.26.5   # Debian bookworm's libsdl2
IMGUI_VERSION=1.86    # Debian bookworm's imgui
TIDEPOOL_SDL2_PREFIX="${TIDEPOOL_SDL2_PREFIX:-$TIDEPOOL_CACHE/sdl2-wasm-$SDL2_VERSION}"
# The same SDL2 compiled with -pthread, for the threads build (tidepool-mt).
TIDEPOOL_SDL2_MT_PREFIX="${TIDEPOOL_SDL2_MT_PREFIX:-$TIDEPOOL_CACHE/sdl2-wasm-mt-$SDL2_VERSION}"
TIDEPOOL_IMGUI_DIR="${TIDEPOOL_IMGUI_DIR:-$TIDEPOOL_CACHE/src/imgui-$IMGUI_VERSION}"
# Two cores and someone else may be compiling: never more than two jobs.
TIDEPOOL_JOBS="${TIDEPOOL_JOBS:-2}"
# Catch2 cases (ctest name patterns) by what they take under AddressSanitizer
# + UBSan (the debug preset): scripts/test.sh's sanitize step runs all but
# both lists; the GitHub workflow's sanitizers job runs the minutes ones.
TIDEPOOL_ASAN_HOURS="dam break|hydrostatic|every scene|settles|pile-up|cavity"
TIDEPOOL_ASAN_MINUTES="bit-identical|obstacles|pointer forces|emitters|SIMD and scalar"
# Debian's emcc runs acorn from /usr/share/nodejs, where node does not look.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
export TIDEPOOL_CACHE TIDEPOOL_SDL2_PREFIX TIDEPOOL_SDL2_MT_PREFIX TIDEPOOL_IMGUI_DIR TIDEPOOL_JOBS
