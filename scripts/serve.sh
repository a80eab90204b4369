#!/usr/bin/env bash
# The main command: installs what is missing, builds the web toy and serves
# it at http://127.0.0.1:8080/ (Ctrl-C stops).
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
exec node "$ROOT/web/server.mjs" --root "${TIDEPOOL_WEB_BUILD:-$ROOT/build/web}/dist" "$@"
