#!/usr/bin/env bash
# A long soak: `tidepool soak` seed after seed, each in its own process (a
# crash ends that seed only, after writing its reproducer), until a wall-time
# budget is spent. Prints each seed's line and a summary:
#   soak.sh: N seeds (A..B), F frames, C actions, V violations (K crashes) in W s
#
#   scripts/soak.sh [--minutes M] [--seconds S] [--first SEED] [--out DIR]
#                   [--tidepool PATH] [-- more tidepool soak arguments]
#
# --minutes: the wall-time budget (default 60; the seed under way finishes);
# --seconds: simulated play per seed (default 120); --first: the first seed
# (default 1); --out: where logs and reproducers go (default build/soak).
# Exits non-zero when any seed found a violation.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes=60 seconds=120 seed=1 out="$ROOT/build/soak" tidepool="$ROOT/build/native/src/cli/tidepool"
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --first) seed="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --tidepool) tidepool="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "soak.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$tidepool" ] || { echo "soak.sh: no $tidepool (cmake --preset native && cmake --build --preset native)" >&2; exit 2; }
mkdir -p "$out"
first=$seed seeds=0 frames=0 actions=0 violations=0 crashes=0
t0=$SECONDS
deadline=$((SECONDS + minutes * 60))
while [ $SECONDS -lt $deadline ]; do
  log="$out/seed-$seed.log"
  nice -n 10 "$tidepool" soak --seconds "$seconds" --seed "$seed" --out "$out" "$@" >"$log" 2>&1
  rc=$?
  seeds=$((seeds + 1))
  line="$(grep -E '^seed [0-9]+:' "$log" | tail -1)"
  if [[ "$line" =~ :\ ([0-9]+)\ frames,\ ([0-9]+)\ actions ]]; then
    frames=$((frames + BASH_REMATCH[1])) actions=$((actions + BASH_REMATCH[2]))
  fi
  if [ "$rc" -ge 128 ]; then
    # Crashed: the handler's line names the frame; the actions are in the reproducer.
    crashes=$((crashes + 1)) violations=$((violations + 1))
    crash="$(grep -E 'crashed' "$log" | head -1)"
    if [[ "$crash" =~ frame\ ([0-9]+): ]]; then frames=$((frames + BASH_REMATCH[1] + 1)); fi
    repro="$out/soak-repro-$seed.txt"
    [ -f "$repro" ] && actions=$((actions + $(grep -cE '^[0-9]+ ' "$repro")))
    echo "seed $seed: CRASHED (exit $rc): ${crash:-no reproducer written}"
  else
    echo "$line"
    [ "$rc" -ne 0 ] && { violations=$((violations + 1)); grep -E '^  ' "$log"; }
  fi
  seed=$((seed + 1))
done
echo "soak.sh: $seeds seeds ($first..$((seed - 1))), $frames frames, $actions actions, $violations violations" \
  "($crashes crashes) in $((SECONDS - t0)) s"
[ "$violations" -eq 0 ]
