#!/usr/bin/env bash
# cli_config_roundtrip.sh SSDSIM DATA_DIR WORK: the effective configuration a run writes
# (config.json) holds every key ssdsim --list-keys lists, defaults included, and
# `ssdsim --config out/config.json` reproduces the run: stats.json identical apart from
# "run" (which holds the start pilot's figures: the rerun needs no pilot, its
# ftl.precondition_free_blocks is in the file), and config.json identical. For every preset.
set -eu
ssdsim="$1"; presets="$2/configs/presets"; work="$3"
rm -rf "$work"; mkdir -p "$work"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
strip() { sed '/"run": {/,$d' "$1"; }
keys="$("$ssdsim" --list-keys | awk 'NF && $1 ~ /\./ {print $1}' | sort)"
[ "$(echo "$keys" | wc -l)" -ge 100 ] || { echo "--list-keys lists too few keys"; exit 1; }
n=0
for f in "$presets"/*.json; do
  name="$(basename "$f" .json)"
  "$ssdsim" --preset "$name" --set workload.requests=400 --out "$work/$name.first" >"$work/$name.first.log" 2>&1 \
    || { echo "preset $name: the first run failed"; tail "$work/$name.first.log"; exit 1; }
  written="$(python3 -c '
import json, sys
def leaves(d, p=""):
    for k, v in d.items():
        if isinstance(v, dict): yield from leaves(v, p + k + ".")
        else: yield p + k
print("\n".join(sorted(leaves(json.load(open(sys.argv[1]))))))' "$work/$name.first/config.json")"
  diff <(echo "$keys") <(echo "$written") \
    || { echo "preset $name: config.json does not hold exactly the keys --list-keys lists (< listed, > written)"; exit 1; }
  "$ssdsim" --config "$work/$name.first/config.json" --out "$work/$name.again" >"$work/$name.again.log" 2>&1 \
    || { echo "preset $name: the run of its config.json failed"; tail "$work/$name.again.log"; exit 1; }
  diff <(strip "$work/$name.first/stats.json") <(strip "$work/$name.again/stats.json") \
    || { echo "preset $name: stats.json differs when rerun from its config.json"; exit 1; }
  diff "$work/$name.first/config.json" "$work/$name.again/config.json" \
    || { echo "preset $name: config.json differs when rerun from itself"; exit 1; }
  if grep -q '"start_pilot"' "$work/$name.first/stats.json" && grep -q '"start_pilot"' "$work/$name.again/stats.json"; then
    echo "preset $name: the rerun ran a start pilot although its config.json holds the start"; exit 1
  fi
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "only $n preset files in $presets"; exit 1; }
echo "$n presets: config.json holds every key and reruns identically"
