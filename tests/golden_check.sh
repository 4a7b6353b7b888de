#!/usr/bin/env bash
# Golden logs, as in the Accellera examples: small fixed jobs whose per-request CSV and
# stats.json (its "run" section aside: wall time, memory) are committed under
# tests/golden/, compared line by line. Any change of behaviour shows as a diff; a change
# meant to alter behaviour regenerates them (--update) and says why in its commit.
#   golden_check.sh SSDSIM OUTDIR [--update]
set -euo pipefail
ssdsim="$1"; out="$2"; update="${3:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
rm -rf "$out"; mkdir -p "$out"
strip() { sed '/"run": {/,$d' "$1"; }
status=0
for args in "$here"/golden/*.args; do
  name="$(basename "$args" .args)"
  mapfile -t argv < <(grep -v '^#' "$args" | grep -v '^[[:space:]]*$')
  "$ssdsim" "${argv[@]}" --set report.requests_csv="$out/$name.requests.csv" --out "$out/$name" >"$out/$name.log" 2>&1 || {
    echo "golden $name: ssdsim failed:"; tail -n 20 "$out/$name.log"; status=1; continue; }
  strip "$out/$name/stats.json" > "$out/$name.stats.json"
  for f in requests.csv stats.json; do
    if [ "$update" = "--update" ]; then
      cp "$out/$name.$f" "$here/golden/$name.$f"
    elif ! diff -q "$here/golden/$name.$f" "$out/$name.$f" >/dev/null; then
      echo "golden $name: $f differs from tests/golden/$name.$f (first lines of the diff):"
      diff "$here/golden/$name.$f" "$out/$name.$f" | head -n 20 || true
      status=1
    fi
  done
  if [ "$update" = "--update" ]; then echo "golden $name: written"
  elif [ "$status" -eq 0 ]; then echo "golden $name: identical"; fi
done
exit "$status"
