#!/usr/bin/env bash
# Builds the desktop app (SDL2 + OpenGL ES 3 + Dear ImGui) into build/app/.
#
#   scripts/build-native-app.sh [--run [app args]]
#
# --run starts it (under xvfb-run when there is no display) with any further
# arguments, e.g. `--run --frames 120` for a smoke test.
# TIDEPOOL_SKIP_DEPS=1 skips scripts/deps.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/env.sh"

[ "${TIDEPOOL_SKIP_DEPS:-0}" = 1 ] || "$ROOT/scripts/deps.sh" app

BUILD="${TIDEPOOL_APP_BUILD:-$ROOT/build/app}"
t0=$SECONDS
mkdir -p "$BUILD"
echo "[build-native-app] configuring $BUILD"
# The configure line is CMakePresets.json's app preset (ImGui from env.sh);
# -B "$BUILD" moves its tree where TIDEPOOL_APP_BUILD says.
cmake -S "$ROOT" --preset app -B "$BUILD" >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log"; echo "[build-native-app] configure failed" >&2; exit 1; }
echo "[build-native-app] building (nice, -j$TIDEPOOL_JOBS)"
nice -n 10 cmake --build "$BUILD" --target tidepool_app -j"$TIDEPOOL_JOBS"
echo "[build-native-app] $BUILD/src/app/tidepool_app ($((SECONDS - t0)) s)"

if [ "${1:-}" = "--run" ]; then
  shift
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    exec xvfb-run -a -s "-screen 0 1280x800x24" "$BUILD/src/app/tidepool_app" "$@"
  fi
  exec "$BUILD/src/app/tidepool_app" "$@"
fi
