#!/usr/bin/env bash
# Times the working tree's core against another revision's, in one process:
# both builds step copies of the bench's dam break in turn (scripts/ab/), so
# that the machine's phase, which moves separate runs by up to 1.4x here,
# falls on both alike. An A/A run (no change) reads 0.99-1.01.
#
#   scripts/ab.sh [--rev REV] [--wasm] [--solver muller2003|dfsph|flip|stable]
#                 [--particles N] [--pairs K] [--threads T] [--flags "FLAGS"]
#
# --solver stable steps the bench's smoke scene instead, on a grid of N
# cells along its longer side (--particles N).
#
# REV (default HEAD) is the base; the work side is src/core as it is now,
# compiled with FLAGS added (to try a compiler option: --rev HEAD --flags ..).
# Natively g++ with the core's Release flags (AVX2 where this CPU has it);
# --wasm compiles both with em++ -msimd128 and runs the program in node.
# Prints the median of the pairs' time ratios (work / base) with its
# quartiles, the same median per stage (the step's own stage clock), and
# whether the two states hash the same after the step.
# --threads T (native only) steps both with one pool of T threads
# (src/threads), to time a change to the threaded step.
# Builds in build/ab (TIDEPOOL_AB_BUILD overrides). TIDEPOOL_SKIP_DEPS=1
# skips scripts/deps.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/env.sh"

rev=HEAD wasm=0 solver=muller2003 particles=4000 pairs=200 threads=1 work_flags=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rev) rev="$2"; shift 2 ;;
    --wasm) wasm=1; shift ;;
    --solver) solver="$2"; shift 2 ;;
    --particles) particles="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --flags) work_flags="$2"; shift 2 ;;
    *) echo "[ab] unknown argument: $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done

OUT="${TIDEPOOL_AB_BUILD:-$ROOT/build/ab}"
if [ "$wasm" = 1 ] && [ "$threads" != 1 ]; then
  echo "[ab] --threads is native only (a wasm pool needs the -pthread build)" >&2
  exit 2
fi
if [ "$wasm" = 1 ]; then
  [ "${TIDEPOOL_SKIP_DEPS:-0}" = 1 ] || "$ROOT/scripts/deps.sh" wasm >&2
  CXX=em++ ARCH="-msimd128" OUT="$OUT/wasm"
  LINK=(-sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0 -sNODERAWFS=1)
  PROGRAM="$OUT/ab.js"
else
  [ "${TIDEPOOL_SKIP_DEPS:-0}" = 1 ] || "$ROOT/scripts/deps.sh" native >&2
  CXX=g++ ARCH="" OUT="$OUT/native" LINK=(-lbox2d) PROGRAM="$OUT/ab"
  grep -qw avx2 /proc/cpuinfo && ARCH="-mavx2 -mpopcnt"
fi
# The core's Release flags (src/core/CMakeLists.txt); GLM through a directory
# of its own, as the CMake build does, since em++ does not search /usr/include.
FLAGS=(-O3 -DNDEBUG -std=c++17 -fno-trapping-math -fno-math-errno -DTIDEPOOL_SIMD=1 $ARCH
       -isystem "$OUT/glm-include")
# Box2D (the bodies): Debian's library natively; in WebAssembly its source,
# compiled once into $OUT/box2d (as src/core/CMakeLists.txt does).
if [ "$wasm" = 1 ]; then
  FLAGS+=(-isystem "$TIDEPOOL_BOX2D_DIR/include")
  if [ ! -f "$OUT/box2d/done" ]; then
    mkdir -p "$OUT/box2d"
    while IFS= read -r src; do
      em++ -O3 -DNDEBUG -msimd128 -I"$TIDEPOOL_BOX2D_DIR/include" -I"$TIDEPOOL_BOX2D_DIR/src" -c "$src" \
        -o "$OUT/box2d/$(basename "${src%.cpp}").o" &
      [ "$(jobs -rp | wc -l)" -lt "$TIDEPOOL_JOBS" ] || wait -n
    done < <(find "$TIDEPOOL_BOX2D_DIR/src" -name '*.cpp')
    wait
    touch "$OUT/box2d/done"
  fi
  LINK+=("$OUT"/box2d/*.o)
fi
rm -rf "$OUT/base" "$OUT/obj"
mkdir -p "$OUT/base" "$OUT/obj" "$OUT/glm-include"
ln -sfn /usr/include/glm "$OUT/glm-include/glm"
git -C "$ROOT" archive "$rev" src/core | tar -x -C "$OUT/base"

# side NAME CORE_DIR [FLAG..]: the core and side.cpp in namespace tp_NAME.
side() {
  local name=$1 core=$2 objs=()
  shift 2
  for src in "$core"/*.cpp "$ROOT/scripts/ab/side.cpp"; do
    local obj="$OUT/obj/${name}_$(basename "${src%.cpp}").o"
    "$CXX" "${FLAGS[@]}" "$@" -I"$core/include" -I"$core" -I"$ROOT/src/cli" -Dtidepool="tp_$name" -DAB_SIDE="$name" \
      -c "$src" -o "$obj" &
    objs+=("$obj")
    # Two jobs at most (env.sh).
    [ "$(jobs -rp | wc -l)" -lt "$TIDEPOOL_JOBS" ] || wait -n
  done
  wait
}
echo "[ab] building $rev (base) and the working tree (work${work_flags:+ with $work_flags}) with $CXX $ARCH" >&2
side base "$OUT/base/src/core"
# shellcheck disable=SC2086 # the flags split into words
side work "$ROOT/src/core" $work_flags
"$CXX" -O2 -std=c++17 -pthread -I"$ROOT/src/core/include" -I"$ROOT/src/threads" -isystem "$OUT/glm-include" \
  "$ROOT/scripts/ab/main.cpp" "$ROOT/src/threads/thread_pool.cpp" "$OUT"/obj/*.o "${LINK[@]}" -o "$PROGRAM" 2>&1 |
  grep -v 'warning' >&2 || true
if [ "$wasm" = 1 ]; then
  node "$PROGRAM" "$particles" "$solver" "$pairs" "$threads"
else
  "$PROGRAM" "$particles" "$solver" "$pairs" "$threads"
fi
