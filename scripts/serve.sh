#!/usr/bin/env bash
# The main command: installs what is missing, builds the web toy and serves
# it at http://127.0.0.1:8080/ (Ctrl-C stops), with the browser bench at
# http://127.0.0.1:8080/bench.html.
#
#   scripts/serve.sh [--port N] [--host H] [--no-isolate]
#
# Sends COOP/COEP by default, so the page is cross-origin isolated and runs
# the threads build (tidepool-mt.*; the embed example works so too, its
# iframe being same-origin). --no-isolate (or TIDEPOOL_ISOLATE=0) leaves
# them out, like a static host such as GitHub Pages: the page then isolates
# itself with its service worker (shell/isolate.js), and ?threads=1 or an
# iframe on another site runs the single-threaded build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/env.sh"

"$ROOT/scripts/deps.sh" web
TIDEPOOL_SKIP_DEPS=1 "$ROOT/scripts/build-web.sh"
WEB_BUILD="${TIDEPOOL_WEB_BUILD:-$ROOT/build/web}"
isolate=--isolate
case "${TIDEPOOL_ISOLATE:-1}" in 0 | false | no) isolate=--no-isolate ;; esac
# Later arguments win: "$@" may say --no-isolate.
exec node "$ROOT/web/server.mjs" --root "$WEB_BUILD/dist" --bench-root "$WEB_BUILD/bench" "$isolate" "$@"
