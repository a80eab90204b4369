# Sourced by the scripts: the paths and versions they share. Any of them can
# be overridden from the environment.
TIDEPOOL_CACHE="${TIDEPOOL_CACHE:-${HOME:-/root}/.cache/tidepool}"
IMGUI_VERSION=1.86    # Debian bookworm's imgui
TIDEPOOL_IMGUI_DIR="${TIDEPOOL_IMGUI_DIR:-$TIDEPOOL_CACHE/src/imgui-$IMGUI_VERSION}"
BOX2D_VERSION=2.4.1   # Debian bookworm's box2d: libbox2d-dev natively, its source in wasm
TIDEPOOL_BOX2D_DIR="${TIDEPOOL_BOX2D_DIR:-$TIDEPOOL_CACHE/src/box2d-$BOX2D_VERSION}"
# Two cores and someone else may be compiling: never more than two jobs.
TIDEPOOL_JOBS="${TIDEPOOL_JOBS:-2}"
# Catch2 cases (ctest name patterns) by what they take under AddressSanitizer
# + UBSan (the debug preset): scripts/test.sh's sanitize step runs all but
# both lists; the GitHub workflow's sanitizers job runs the minutes ones.
TIDEPOOL_ASAN_HOURS="dam break|hydrostatic|every scene|settles|pile-up|cavity|Archimedes|heavy box|trades momentum"
TIDEPOOL_ASAN_MINUTES="bit-identical|obstacles|pointer forces|emitters|SIMD and scalar"
# Debian's emcc runs acorn from /usr/share/nodejs, where node does not look.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
export TIDEPOOL_CACHE TIDEPOOL_IMGUI_DIR TIDEPOOL_BOX2D_DIR TIDEPOOL_JOBS
