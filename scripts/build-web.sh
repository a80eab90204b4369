#!/usr/bin/env bash
# Builds the web toy into build/web/dist/: index.html, tidepool.js and
# tidepool.wasm, and the threads build tidepool-mt.js, tidepool-mt.wasm and
# tidepool-mt.worker.js (-pthread, for cross-origin isolated pages; the page
# picks one), and isolate.js, the service worker that isolates the page on
# a host that sends no headers; nothing else. Copy that folder to any
# static host.
# Also builds the CLI for the browser bench page (web/site/bench.html) into
# build/web/bench/: tidepool-cli.js and tidepool-cli.wasm, from the same
# core objects as the toy, and its threads build tidepool-cli-mt.js, .wasm
# and .worker.js (`bench.html?threads=N`), from the threads build's.
#
#   scripts/build-web.sh            (TIDEPOOL_SKIP_DEPS=1 skips scripts/deps.sh)
#
# Offline by design: Debian's emscripten, and Dear ImGui from Debian's
# source package (deps.sh). The page needs no SDL2: the app's platform layer
# talks to the browser through Emscripten's html5.h (src/app/platform_web.cpp).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/env.sh"

[ "${TIDEPOOL_SKIP_DEPS:-0}" = 1 ] || "$ROOT/scripts/deps.sh" web

# The configure lines are CMakePresets.json's wasm and wasm-threads presets
# (Emscripten's toolchain and ImGui from env.sh), for
# build/web and build/web/mt. TIDEPOOL_WEB_BUILD moves both trees, so the
# folders are passed on the command line, where they override the presets'.
BUILD="${TIDEPOOL_WEB_BUILD:-$ROOT/build/web}"
# Every object of the threads build needs -pthread: its own build tree.
BUILD_MT="$BUILD/mt"
DIST="$BUILD/dist"
BENCH="$BUILD/bench"
t0=$SECONDS
mkdir -p "$BUILD"
echo "[build-web] configuring $BUILD"
cmake -S "$ROOT" --preset wasm -B "$BUILD" -DTIDEPOOL_BENCH_DIR="$BENCH" >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log"; echo "[build-web] configure failed" >&2; exit 1; }
echo "[build-web] building (nice, -j$TIDEPOOL_JOBS)"
nice -n 10 cmake --build "$BUILD" --target tidepool_app tidepool_web -j"$TIDEPOOL_JOBS"

echo "[build-web] configuring the threads build $BUILD_MT"
mkdir -p "$BUILD_MT"
cmake -S "$ROOT" --preset wasm-threads -B "$BUILD_MT" -DTIDEPOOL_DIST_DIR="$DIST" -DTIDEPOOL_BENCH_DIR="$BENCH" \
  >"$BUILD_MT/configure.log" 2>&1 ||
  { cat "$BUILD_MT/configure.log"; echo "[build-web] configure (threads) failed" >&2; exit 1; }
echo "[build-web] building the threads build (nice, -j$TIDEPOOL_JOBS)"
nice -n 10 cmake --build "$BUILD_MT" --target tidepool_app tidepool_web -j"$TIDEPOOL_JOBS"

# The folder must hold exactly what a static host serves.
PAGE_FILES=(index.html isolate.js tidepool.js tidepool.wasm tidepool-mt.js tidepool-mt.wasm tidepool-mt.worker.js)
keep=()
for f in "${PAGE_FILES[@]}"; do
  [ -s "$DIST/$f" ] || { echo "[build-web] $DIST/$f is missing" >&2; exit 1; }
  keep+=(! -name "$f")
done
find "$DIST" -mindepth 1 "${keep[@]}" -exec rm -rf {} +
for f in tidepool-cli.js tidepool-cli.wasm tidepool-cli-mt.js tidepool-cli-mt.wasm tidepool-cli-mt.worker.js; do
  [ -s "$BENCH/$f" ] || { echo "[build-web] $BENCH/$f is missing" >&2; exit 1; }
done
echo "[build-web] done ($((SECONDS - t0)) s):"
for d in "$DIST" "$BENCH"; do
  echo "  ${d#"$ROOT"/}/"
  ls -l "$d" | awk 'NR > 1 {printf "    %-18s %8.1f KB\n", $9, $5 / 1024}'
done
