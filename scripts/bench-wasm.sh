#!/usr/bin/env bash
# `tidepool bench` compiled to WebAssembly and run by node: the same program,
# the same arguments and output as the native build/native/src/cli/tidepool.
#
#   scripts/bench-wasm.sh [bench args...]      e.g. --quick, --json,
#                                              --sizes 1000,4000 --no-capacity
#   scripts/bench-wasm.sh --threads N [...]    the -pthread build, N threads
#
# Builds the core and the CLI only (no app) with Emscripten into
# build/wasm-cli (TIDEPOOL_WASM_CLI_BUILD overrides), Release, -msimd128.
# With --threads N (1..8) it builds with -pthread into build/wasm-cli-mt
# (TIDEPOOL_WASM_CLI_MT_BUILD overrides) instead, and the bench runs its
# loops on N threads in node's worker threads (7 are started up front);
# --threads 1 measures that build on one thread (the plain build has no
# threads and takes only --threads 1).
# Everything but the bench's own output goes to stderr, so `--json` on stdout
# stays one JSON object per line. TIDEPOOL_SKIP_DEPS=1 skips scripts/deps.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/env.sh"

# Only --threads picks the build; every argument still goes to bench.
threads=
args=("$@")
for ((k = 0; k < ${#args[@]}; k++)); do
  if [ "${args[$k]}" = --threads ] && [ $((k + 1)) -lt ${#args[@]} ]; then threads="${args[$((k + 1))]}"; fi
done
# The configure lines are CMakePresets.json's wasm-cli and wasm-cli-threads
# presets; -B "$BUILD" moves their trees where the variables above say.
case "$threads" in
  "") BUILD="${TIDEPOOL_WASM_CLI_BUILD:-$ROOT/build/wasm-cli}" PRESET=wasm-cli ;;
  [1-8]) BUILD="${TIDEPOOL_WASM_CLI_MT_BUILD:-$ROOT/build/wasm-cli-mt}" PRESET=wasm-cli-threads ;;
  *) echo "[bench-wasm] --threads $threads: must be 1..8 (the -pthread build starts 7 workers)" >&2; exit 2 ;;
esac

[ "${TIDEPOOL_SKIP_DEPS:-0}" = 1 ] || "$ROOT/scripts/deps.sh" wasm >&2

mkdir -p "$BUILD"
cmake -S "$ROOT" --preset "$PRESET" -B "$BUILD" >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log" >&2; echo "[bench-wasm] configure failed" >&2; exit 1; }
nice -n 10 cmake --build "$BUILD" --target tidepool -j"$TIDEPOOL_JOBS" >"$BUILD/build.log" 2>&1 ||
  { cat "$BUILD/build.log" >&2; echo "[bench-wasm] build failed" >&2; exit 1; }
echo "[bench-wasm] $(node --version), ${BUILD#"$ROOT"/}/src/cli/tidepool.wasm${threads:+ (-pthread), --threads $threads}" >&2

# No node flags needed: the link compiles the .wasm synchronously, so node's
# fetch() never sees it (src/cli/CMakeLists.txt). NODE_OPTIONS still applies.
exec node "$BUILD/src/cli/tidepool.js" bench "$@"
