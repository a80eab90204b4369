#!/usr/bin/env bash
# Installs what the build needs, and nothing that is already there.
#
#   scripts/deps.sh [native] [app] [wasm] [web] [browser]   (default: native)
#
#   native   cmake, g++, GLM, Catch2: the core, the CLI and the tests
#   app      + SDL2 (libsdl2-dev), GLES headers, Mesa, Xvfb and the Dear ImGui
#            source: the native desktop app, and a virtual display to run it
#   wasm     + Emscripten and Node: the core and the CLI as WebAssembly
#            (scripts/bench-wasm.sh), no SDL2
#   web      + wasm, the Dear ImGui source and SDL2 built once for Emscripten
#            into the cache, twice: plain and -pthread (the threads build)
#   browser  + Chromium and playwright-core (npm, in web/) for the browser tests
#
# Everything that is downloaded or built lands in ${TIDEPOOL_CACHE:-~/.cache/tidepool},
# outside the work tree, so a fresh clone reuses it. The only network this
# needs is Debian's archive (apt) and the npm registry; Emscripten ports are
# not used because they download from GitHub. The paths and versions live in
# scripts/env.sh, which the other scripts source too.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"

say() { printf '\033[1m[deps]\033[0m %s\n' "$*"; }
die() { printf '\033[1;31m[deps] error:\033[0m %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

# --- apt: install only what is missing, update at most once --------------------
APT_UPDATED=0
apt_update_once() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    say "apt-get update"
    "${SUDO[@]}" apt-get update -qq
    APT_UPDATED=1
  fi
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
need() {
  local missing=() p
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  apt_update_once
  say "apt-get install ${missing[*]}"
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# --- Debian source packages (SDL2 and Dear ImGui come from there) ------------
# `apt-get source` needs a deb-src entry; the machines ship with binary ones only.
ensure_deb_src() {
  if [ -n "$(apt-cache showsrc imgui 2>/dev/null | head -1)" ]; then return 0; fi
  if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding a deb-src entry for bookworm (/etc/apt/sources.list.d/debsrc.sources)"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      "${SUDO[@]}" tee /etc/apt/sources.list.d/debsrc.sources >/dev/null
  fi
  APT_UPDATED=0
  apt_update_once
  [ -n "$(apt-cache showsrc imgui 2>/dev/null | head -1)" ] || die "apt-cache showsrc imgui finds nothing after adding deb-src"
}

# fetch_source PACKAGE DIR: unpacks the upstream tarball of a Debian source
# package into $TIDEPOOL_CACHE/src/DIR (Debian's patches are packaging only
# and not needed for our use).
fetch_source() {
  local pkg="$1" dir="$2" dl="$TIDEPOOL_CACHE/src/dl-$1"
  [ -d "$TIDEPOOL_CACHE/src/$dir" ] && return 0
  ensure_deb_src
  need xz-utils
  mkdir -p "$dl"
  say "apt-get source --download-only $pkg"
  (cd "$dl" && apt-get source --download-only -qq "$pkg" >/dev/null 2>&1) ||
    (cd "$dl" && apt-get source --download-only "$pkg") || die "apt-get source $pkg failed"
  local orig="" f
  for f in "$dl"/*.orig.tar.gz "$dl"/*.orig.tar.xz "$dl"/*.orig.tar.bz2; do
    [ -f "$f" ] && orig="$f" && break
  done
  [ -n "$orig" ] || die "no upstream tarball in $dl"
  local tmp="$TIDEPOOL_CACHE/src/.unpack-$pkg"
  rm -rf "$tmp" && mkdir -p "$tmp"
  tar -xf "$orig" -C "$tmp"
  # The tarball holds one top folder whose name varies (imgui-1.86, SDL2-2.26.5).
  local top
  top="$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)"
  mv "$top" "$TIDEPOOL_CACHE/src/$dir"
  rm -rf "$tmp" "$dl"
  say "unpacked $pkg into $TIDEPOOL_CACHE/src/$dir"
}

# --- components --------------------------------------------------------------
do_native() {
  need cmake make g++ pkg-config libglm-dev catch2
}

do_app() {
  do_native
  # xvfb: test.sh runs the desktop app for a few frames on a virtual display.
  need libsdl2-dev libgl-dev libgles-dev libgl1-mesa-dri xvfb xauth
  fetch_source imgui "imgui-$IMGUI_VERSION"
  [ -f "$TIDEPOOL_IMGUI_DIR/imgui.h" ] || die "$TIDEPOOL_IMGUI_DIR has no imgui.h"
}

# SDL2 built for Emscripten with its own CMake, installed under a prefix in
# the cache. Only what the toy uses: video, events, timers; no audio,
# joystick, haptics or sensors (less to build, less in the .wasm). The stamp
# holds these options and is written last, so an interrupted build, or one
# with other options, is redone.
SDL2_WASM_OPTIONS="-DCMAKE_BUILD_TYPE=Release -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF \
-DSDL_AUDIO=OFF -DSDL_JOYSTICK=OFF -DSDL_HAPTIC=OFF -DSDL_HIDAPI=OFF -DSDL_SENSOR=OFF -DSDL_POWER=OFF"
# The threads build (build-web.sh, tidepool-mt.*) links into shared memory,
# which wasm-ld allows only when every object was compiled with atomics and
# bulk memory: SDL2 a second time with -pthread (SDL_PTHREADS adds it to its
# own sources, CMAKE_C_FLAGS to everything else it compiles).
SDL2_WASM_MT_OPTIONS="$SDL2_WASM_OPTIONS -DSDL_PTHREADS=ON -DCMAKE_C_FLAGS=-pthread"

# build_sdl2_wasm PREFIX OPTIONS NAME: NAME names the build folder and logs.
build_sdl2_wasm() {
  local prefix="$1" options="$2" name="$3"
  local stamp="$prefix/.tidepool-built"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$options" ] && return 0
  fetch_source libsdl2 "SDL2-$SDL2_VERSION"
  local bdir="$TIDEPOOL_CACHE/build-$name"
  say "building SDL2 $SDL2_VERSION for Emscripten into ${prefix##*/} (once per machine, ~5 min on 2 cores)"
  local t0=$SECONDS
  rm -rf "$bdir" "$prefix"
  # shellcheck disable=SC2086  # the options are words on purpose
  emcmake cmake -S "$TIDEPOOL_CACHE/src/SDL2-$SDL2_VERSION" -B "$bdir" $options \
    >"$TIDEPOOL_CACHE/$name-configure.log" 2>&1 ||
    { tail -40 "$TIDEPOOL_CACHE/$name-configure.log"; die "SDL2 configure failed ($name)"; }
  nice -n 10 cmake --build "$bdir" -j"${TIDEPOOL_JOBS}" >"$TIDEPOOL_CACHE/$name-build.log" 2>&1 ||
    { tail -40 "$TIDEPOOL_CACHE/$name-build.log"; die "SDL2 build failed ($name)"; }
  cmake --install "$bdir" --prefix "$prefix" >/dev/null
  rm -rf "$bdir"
  printf '%s' "$options" >"$stamp"
  say "SDL2 for Emscripten ready in $prefix ($((SECONDS - t0)) s)"
}

do_wasm() {
  do_native
  # nodejs: emcc runs its JS tools with it, and it runs the wasm CLI; npm for
  # the browser tests and the dev server. The machine may already carry a
  # newer node of its own.
  command -v node >/dev/null || need nodejs
  need emscripten node-acorn
}

do_web() {
  do_wasm
  fetch_source imgui "imgui-$IMGUI_VERSION"
  build_sdl2_wasm "$TIDEPOOL_SDL2_PREFIX" "$SDL2_WASM_OPTIONS" sdl2-wasm
  # The web build always makes the threads variant too (build-web.sh).
  build_sdl2_wasm "$TIDEPOOL_SDL2_MT_PREFIX" "$SDL2_WASM_MT_OPTIONS" sdl2-wasm-mt
}

do_browser() {
  command -v node >/dev/null || need nodejs
  command -v npm >/dev/null || need npm
  need chromium fonts-dejavu-core
  # playwright-core only: it drives Debian's chromium. `playwright install`
  # would download browsers from outside and must never run.
  local lock="$ROOT/web/package-lock.json" mark="$ROOT/web/node_modules/.tidepool-lock"
  if [ -d "$ROOT/web/node_modules/playwright-core" ] && [ -f "$mark" ] && cmp -s "$lock" "$mark"; then
    return 0
  fi
  say "npm ci (web/)"
  (cd "$ROOT/web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
  cp "$lock" "$mark"
}

# -----------------------------------------------------------------------------
[ "$#" -eq 0 ] && set -- native
mkdir -p "$TIDEPOOL_CACHE"
# One deps.sh at a time per cache (test.sh and serve.sh may start together).
exec 9>"$TIDEPOOL_CACHE/.deps.lock"
command -v flock >/dev/null && flock 9

t0=$SECONDS
for c in "$@"; do
  case "$c" in
    native) do_native ;;
    app) do_app ;;
    wasm) do_wasm ;;
    web) do_web ;;
    browser) do_browser ;;
    *) die "unknown component '$c' (native, app, wasm, web, browser)" ;;
  esac
done
say "ready: $* ($((SECONDS - t0)) s)"
