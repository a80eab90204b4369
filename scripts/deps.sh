#!/usr/bin/env bash
# Installs what the build needs, and nothing that is already there.
#
#   scripts/deps.sh [native] [app] [wasm] [web] [browser]   (default: native)
#
#   native   cmake, g++, GLM, Catch2, Box2D (libbox2d-dev): the core, the CLI
#            and the tests
#   app      + SDL2 (libsdl2-dev), GLES headers, Mesa, Xvfb and the Dear ImGui
#            source: the native desktop app, and a virtual display to run it
#   wasm     + Emscripten, Node and the Box2D source (compiled with the core):
#            the core and the CLI as WebAssembly (scripts/bench-wasm.sh)
#   web      + wasm and the Dear ImGui source: the web toy (the page's own
#            events and WebGL through Emscripten, no SDL2)
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

# --- Debian source packages (Dear ImGui comes from there) ---------------------
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
  # The tarball holds one top folder whose name varies (imgui-1.86).
  local top
  top="$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)"
  mv "$top" "$TIDEPOOL_CACHE/src/$dir"
  rm -rf "$tmp" "$dl"
  say "unpacked $pkg into $TIDEPOOL_CACHE/src/$dir"
}

# --- components --------------------------------------------------------------
imgui_source() {
  fetch_source imgui "imgui-$IMGUI_VERSION"
  [ -f "$TIDEPOOL_IMGUI_DIR/imgui.h" ] || die "$TIDEPOOL_IMGUI_DIR has no imgui.h"
}

box2d_source() {
  fetch_source box2d "box2d-$BOX2D_VERSION"
  [ -f "$TIDEPOOL_BOX2D_DIR/include/box2d/box2d.h" ] || die "$TIDEPOOL_BOX2D_DIR has no include/box2d/box2d.h"
}

do_native() {
  need cmake make g++ pkg-config libglm-dev catch2 libbox2d-dev
}

do_app() {
  do_native
  # xvfb: test.sh runs the desktop app for a few frames on a virtual display.
  need libsdl2-dev libgl-dev libgles-dev libgl1-mesa-dri xvfb xauth
  imgui_source
}

do_wasm() {
  do_native
  # nodejs: emcc runs its JS tools with it, and it runs the wasm CLI; npm for
  # the browser tests and the dev server. The machine may already carry a
  # newer node of its own.
  command -v node >/dev/null || need nodejs
  need emscripten node-acorn
  box2d_source
}

do_web() {
  do_wasm
  imgui_source
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
