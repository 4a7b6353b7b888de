#!/usr/bin/env bash
# cli_determinism.sh SSDSIM DIR: two runs of one config give the same stats.json
# apart from the "run" section (whose start pilot figures are compared too), and
# stats.json has the DESIGN.md section 10 keys.
set -eu
ssdsim="$1"; dir="$2"; shift 2  # further arguments go to both runs
rm -rf "$dir"; mkdir -p "$dir"
"$ssdsim" --set workload.kind=nand_ops --set report.timeline=false "$@" --out "$dir/a" >/dev/null
"$ssdsim" --set workload.kind=nand_ops --set report.timeline=false "$@" --out "$dir/b" >/dev/null
strip() { sed '/"run": {/,$d' "$1"; }
diff <(strip "$dir/a/stats.json") <(strip "$dir/b/stats.json")
# The start pilot's figures (run.start_pilot, when a pilot ran) are deterministic too.
pilot() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"].get("start_pilot"))' "$1"; }
diff <(pilot "$dir/a/stats.json") <(pilot "$dir/b/stats.json")
for key in '"read"' '"write"' '"all"' '"count"' '"iops"' '"bandwidth_mb_s"' '"latency_us"' '"mean"' \
           '"p50"' '"p99"' '"p999"' '"max"' '"sim_time_us"' '"nand"' '"chip_utilization"' \
           '"chip_busy_ratio"' '"integrity"' '"reads_checked"' '"mismatches": 0' '"run"' \
           '"wall_seconds"' '"peak_rss_mb"'; do
  grep -q -- "$key" "$dir/a/stats.json" || { echo "stats.json lacks $key"; exit 1; }
done
grep -q '"channels"' "$dir/a/config.json"
echo "identical stats.json (run section aside), all keys present"
