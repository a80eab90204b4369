#!/usr/bin/env bash
# The test command: everything CI checks, on a fresh machine or a warm one.
# `scripts/test.sh --quick` runs only the native tests that take seconds.
#
#   1. deps      scripts/deps.sh native app web browser (installs what is missing)
#   2. native    cmake --preset native, build, ctest -j2 (core, CLI, Catch2 tests,
#                a soak of random play over a few seeds; the desktop app is
#                built here too)
#   3. sanitize  the Catch2 tests that take seconds under AddressSanitizer and
#                UBSan (cmake --preset debug), and a short soak (random play,
#                `tidepool soak`): memory errors fail here
#   4. wasm      the same Catch2 tests compiled to WebAssembly (wasm SIMD, the
#                lanes the toy ships with) in the web toy's tree, run by node
#                (two processes, each with half the test cases)
#   5. app       the native desktop app (SDL2 + GLES 3 + Dear ImGui) runs 30
#                frames under Xvfb
#   6. web       the web toy builds into build/web/dist (single-threaded and
#                the -pthread threads build), the browser bench (the CLI for
#                a Web Worker) into build/web/bench
#   7. browser   Playwright + Chromium tests against that build: the toy
#                (browser.test.mjs), the grid scenes (grid.test.mjs), embedding
#                and share links (embed.test.mjs, share.test.mjs), a minute of
#                random hostile input (fuzz.test.mjs), the bench
#                page (bench.test.mjs) and the
#                threads build and its fallback (threads.test.mjs); then
#                web/report.mjs prints the page's weight and first frame
#
# Every step runs even when an earlier independent one failed (the browser
# tests need the web build). Exits non-zero on any failure; the last line
# sums the test cases: "test.sh: N passed, N failed" (a failed build step
# counts as one failure).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. "$ROOT/scripts/env.sh"

LOGS="$ROOT/build/test-logs"
mkdir -p "$LOGS"
bold() { printf '\033[1m%s\033[0m\n' "$*"; }
STEPS=() STATUS=() SECONDS_TAKEN=()
failed_steps=0 passed_cases=0 failed_cases=0
T0=$SECONDS

# step NAME COMMAND...: runs it, output to the terminal and $LOGS/NAME.log.
step() {
  local name="$1" t0=$SECONDS rc
  shift
  echo
  bold "=== [$name] $*"
  "$@" 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  STEPS+=("$name") SECONDS_TAKEN+=($((SECONDS - t0)))
  if [ "$rc" -eq 0 ]; then
    STATUS+=(ok)
  else
    STATUS+=("FAILED (exit $rc)")
    failed_steps=$((failed_steps + 1))
  fi
  return "$rc"
}
skip() { STEPS+=("$1") STATUS+=("skipped: $2") SECONDS_TAKEN+=(0); failed_steps=$((failed_steps + 1)); }

# The core is compiled once per set of flags: the native tree builds the
# desktop app beside the CLI and the tests (the app step only runs it), and
# the wasm tests are built in the web toy's tree (the web step reuses its
# core).
native() {
  cmake --preset native -DTIDEPOOL_BUILD_APP=ON -DTIDEPOOL_IMGUI_DIR="$TIDEPOOL_IMGUI_DIR" &&
    nice -n 10 cmake --build --preset native -j"$TIDEPOOL_JOBS" &&
    ctest --preset native
}
# The Catch2 tests under AddressSanitizer + UBSan (the debug preset), those
# that take seconds there: a buffer written past its end fails here. The long
# physics runs and the SIMD comparison take minutes to hours under ASan
# (scripts/env.sh lists them); they run in the release build above, and the
# GitHub workflow's sanitizer job runs the ones that take minutes.
SANITIZE_SKIP="$TIDEPOOL_ASAN_HOURS|$TIDEPOOL_ASAN_MINUTES"
sanitize() {
  cmake --preset debug >"$LOGS/sanitize-configure.log" 2>&1 ||
    { cat "$LOGS/sanitize-configure.log"; return 1; }
  # The CLI too, for the soak's random play (tests/CMakeLists.txt: a
  # shorter soak than the release build's).
  nice -n 10 cmake --build --preset debug --target tidepool_tests tidepool -j"$TIDEPOOL_JOBS" &&
    ctest --preset debug -E "$SANITIZE_SKIP"
}
WASM_TESTS="$ROOT/build/web"
wasm() {
  cmake --preset wasm -DTIDEPOOL_BUILD_TESTS=ON >"$LOGS/wasm-configure.log" 2>&1 ||
    { cat "$LOGS/wasm-configure.log"; return 1; }
  nice -n 10 cmake --build "$WASM_TESTS" --target tidepool_tests -j"$TIDEPOOL_JOBS" || return
  # Two node processes, each with every other test case: node runs one
  # thread, and the machine has two cores. Catch2 takes test names as
  # arguments joined by "," (or), with \ before the characters its filter
  # syntax reads (a name may hold a comma).
  local tests="$WASM_TESTS/tests/tidepool_tests.js" half pids=() rc=0 name i
  local -a names
  mapfile -t names < <(node "$tests" --list-test-names-only)
  [ "${#names[@]}" -gt 0 ] || { echo "wasm: no test cases listed"; return 1; }
  for half in 0 1; do
    local -a spec=()
    for i in "${!names[@]}"; do
      [ $((i % 2)) -eq "$half" ] || continue
      name=$(sed -E 's/([\\,"*~[])/\\\1/g' <<<"${names[$i]}")
      spec+=("$name" ,)
    done
    node "$tests" --use-colour no "${spec[@]}" >"$LOGS/wasm-$half.log" 2>&1 &
    pids+=($!)
  done
  for half in 0 1; do
    wait "${pids[$half]}" || rc=1
    cat "$LOGS/wasm-$half.log"
  done
  # Every listed case ran in one half or the other.
  local ran
  ran=$(grep -ohE '[0-9]+ test cases?\)|test cases: *[0-9]+' "$LOGS/wasm-0.log" "$LOGS/wasm-1.log" |
    tr -cd '0-9\n' | awk '{n += $1} END {print n + 0}')
  [ "$ran" -eq "${#names[@]}" ] || { echo "wasm: $ran of ${#names[@]} test cases ran"; rc=1; }
  return "$rc"
}
# The desktop app the native step built, for 30 frames on Xvfb (Mesa's GLES 3).
app() {
  xvfb-run -a -s "-screen 0 1280x800x24" "$ROOT/build/native/src/app/tidepool_app" --frames 30 --scene drop --particles 800
}
browser() {
  cd "$ROOT/web" && node --test --test-concurrency=1 tests/browser.test.mjs tests/grid.test.mjs tests/embed.test.mjs tests/share.test.mjs tests/fuzz.test.mjs tests/bench.test.mjs tests/threads.test.mjs tests/phone.test.mjs tests/bodies.test.mjs tests/background.test.mjs &&
    node report.mjs --runs 3
}

# --quick: the edit-test loop. The native tests but the long random play
# and the state-hash sweep (the ctest preset "quick"), from the native tree.
if [ "${1:-}" = --quick ]; then
  scripts/deps.sh native &&
    cmake --preset native >/dev/null &&
    nice -n 10 cmake --build --preset native -j"$TIDEPOOL_JOBS" &&
    ctest --preset quick
  exit
fi

if step deps scripts/deps.sh native app web browser; then
  step native native
  step sanitize sanitize
  step wasm wasm
  step app app
  if step web env TIDEPOOL_SKIP_DEPS=1 scripts/build-web.sh; then
    step browser browser
  else
    skip browser "the web build failed"
  fi
else
  skip native "deps failed"; skip sanitize "deps failed"; skip wasm "deps failed"; skip app "deps failed"; skip web "deps failed"; skip browser "deps failed"
fi

# Test-case counts from ctest ("N tests failed out of M"), Catch2 ("All tests
# passed (A assertions in N test cases)" or "test cases: N | P passed | F failed") and node's runner
# ("# pass N", "# fail N", "# cancelled N"). A step that failed without a failing test case
# of its own (a build, an install) counts as one failure.
status_of() { local i; for i in "${!STEPS[@]}"; do [ "${STEPS[$i]}" = "$1" ] && echo "${STATUS[$i]}"; done; }
for name in deps native sanitize wasm app web browser; do
  st="$(status_of "$name")"
  case "$st" in ok | skipped*) own_failures=-1 ;; *) own_failures=0 ;; esac
  if { [ "$name" = native ] || [ "$name" = sanitize ]; } && [ -f "$LOGS/$name.log" ]; then
    line="$(grep -E 'tests? failed out of [0-9]+' "$LOGS/$name.log" | tail -1)"
    if [ -n "$line" ]; then
      f="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
      n="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")"
      passed_cases=$((passed_cases + n - f)) failed_cases=$((failed_cases + f))
      [ "$own_failures" -ge 0 ] && own_failures=$((own_failures + f))
    fi
  fi
  if [ "$name" = wasm ] && [ -f "$LOGS/wasm.log" ]; then
    p=0 f=0  # summed over the two halves' summaries
    while IFS= read -r line; do
      if [[ "$line" =~ ^All\ tests\ passed.*\ in\ ([0-9]+)\ test ]]; then
        p=$((p + BASH_REMATCH[1]))
      elif [[ "$line" =~ test\ cases:\ *[0-9]+\ \|\ *([0-9]+)\ passed\ \|\ *([0-9]+)\ failed ]]; then
        p=$((p + BASH_REMATCH[1])) f=$((f + BASH_REMATCH[2]))
      fi
    done < <(grep -E '^(All tests passed|test cases:)' "$LOGS/wasm.log")
    passed_cases=$((passed_cases + p)) failed_cases=$((failed_cases + f))
    [ "$own_failures" -ge 0 ] && own_failures=$((own_failures + f))
  fi
  if [ "$name" = browser ] && [ -f "$LOGS/browser.log" ]; then
    p="$(grep -E '^# pass [0-9]+' "$LOGS/browser.log" | tail -1 | awk '{print $3}')"
    f="$(grep -E '^# fail [0-9]+' "$LOGS/browser.log" | tail -1 | awk '{print $3}')"
    c="$(grep -E '^# cancelled [0-9]+' "$LOGS/browser.log" | tail -1 | awk '{print $3}')"
    f=$((${f:-0} + ${c:-0}))  # a test that timed out is "cancelled"
    passed_cases=$((passed_cases + ${p:-0})) failed_cases=$((failed_cases + ${f:-0}))
    [ "$own_failures" -ge 0 ] && own_failures=$((own_failures + ${f:-0}))
  fi
  [ "$own_failures" -eq 0 ] && failed_cases=$((failed_cases + 1))
done

echo
bold "=== summary ($((SECONDS - T0)) s)"
for i in "${!STEPS[@]}"; do
  printf '  %-8s %-28s %5d s\n' "${STEPS[$i]}" "${STATUS[$i]}" "${SECONDS_TAKEN[$i]}"
done
echo "  logs in ${LOGS#"$ROOT"/}/"
echo "test.sh: $passed_cases passed, $failed_cases failed"
[ "$failed_steps" -eq 0 ] && [ "$failed_cases" -eq 0 ]
