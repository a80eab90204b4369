#!/usr/bin/env bash
# The engine's behaviour, pinned: the state hash after 2 s of every particle
# scene under every preset, at every SIMD lane width the build has, against
# tests/data/state-hashes.tsv. A refactor that changes no arithmetic leaves
# every hash as it was; a change to the physics changes them, and its commit
# records the new table (--record) and says why.
#
#   scripts/check-hashes.sh TIDEPOOL_BINARY            compare (exit 1 on a mismatch)
#   scripts/check-hashes.sh TIDEPOOL_BINARY --record   rewrite the table
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:?usage: check-hashes.sh TIDEPOOL_BINARY [--record]}"
TABLE="$ROOT/tests/data/state-hashes.tsv"
PRESETS="flip water wcsph seed000 seed001 seed002"
SECONDS_RUN=2

# The particle scenes (grid scenes have no presets); `tidepool scenes` prints
# "name  particles  description".
scenes=$("$BIN" scenes | awk '$2 > 0 {print $1}')
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for lanes in 1 4 8; do
  for scene in $scenes; do
    for preset in $PRESETS; do
      line=$("$BIN" run --scene "$scene" --preset "$preset" --time "$SECONDS_RUN" --lanes "$lanes")
      ran=$(sed -E 's/.* ([0-9]+) lanes, hash ([0-9a-f]+)$/\1/' <<<"$line")
      hash=$(sed -E 's/.* hash ([0-9a-f]+)$/\1/' <<<"$line")
      # A build without this width runs a narrower one: that row is not its own.
      [ "$ran" = "$lanes" ] && printf '%s\t%s\t%s\t%s\n' "$scene" "$preset" "$lanes" "$hash" >>"$rows"
    done
  done
done

if [ "${2:-}" = "--record" ]; then
  { printf 'scene\tpreset\tlanes\thash\n'; cat "$rows"; } >"$TABLE"
  echo "check-hashes: recorded $(wc -l <"$rows") hashes in ${TABLE#"$ROOT"/}"
  exit 0
fi
checked=0 failed=0
while IFS=$'\t' read -r scene preset lanes hash; do
  want=$(awk -F'\t' -v s="$scene" -v p="$preset" -v l="$lanes" '$1 == s && $2 == p && $3 == l {print $4}' "$TABLE")
  checked=$((checked + 1))
  if [ "$want" != "$hash" ]; then
    echo "check-hashes: $scene --preset $preset --lanes $lanes: hash $hash, table ${want:-(none)}"
    failed=$((failed + 1))
  fi
done <"$rows"
echo "check-hashes: $checked hashes checked, $failed differ"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
