#!/usr/bin/env bash
# The main command: installs what is missing, builds the web toy and serves
# it at http://127.0.0.1:8080/ (Ctrl-C stops), with the browser bench at
# http://127.0.0.1:8080/bench.html.
#
#   scripts/serve.sh [--port N] [--host H] [--isolate]
#
# --isolate (or TIDEPOOL_ISOLATE=1) sends COOP/COEP, making the page
# cross-origin isolated as a threads build needs; off by default, like an
# iframe on a blog.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/env.sh"

"$ROOT/scripts/deps.sh" web
TIDEPOOL_SKIP_DEPS=1 "$ROOT/scripts/build-web.sh"
WEB_BUILD="${TIDEPOOL_WEB_BUILD:-$ROOT/build/web}"
exec node "$ROOT/web/server.mjs" --root "$WEB_BUILD/dist" --bench-root "$WEB_BUILD/bench" "$@"
