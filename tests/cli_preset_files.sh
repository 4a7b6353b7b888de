#!/usr/bin/env bash
# cli_preset_files.sh SSDSIM DATA_DIR WORK: every preset gives the same run by name
# (--preset NAME) as its file given as a user's config (--config FILE): stats.json apart
# from "run", and config.json.
set -eu
ssdsim="$1"; presets="$2/configs/presets"; work="$3"
rm -rf "$work"; mkdir -p "$work"
strip() { sed '/"run": {/,$d' "$1"; }
n=0
for f in "$presets"/*.json; do
  name="$(basename "$f" .json)"
  "$ssdsim" --preset "$name" --set workload.requests=400 --out "$work/$name.preset" >/dev/null 2>&1
  "$ssdsim" --config "$f" --set workload.requests=400 --out "$work/$name.file" >/dev/null 2>&1
  diff <(strip "$work/$name.preset/stats.json") <(strip "$work/$name.file/stats.json") \
    || { echo "preset $name: stats.json differs between --preset and --config $f"; exit 1; }
  diff "$work/$name.preset/config.json" "$work/$name.file/config.json" \
    || { echo "preset $name: config.json differs"; exit 1; }
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "only $n preset files in $presets"; exit 1; }
echo "$n presets: the same run by name and by file"
