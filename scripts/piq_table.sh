#!/usr/bin/env bash
# The PIQ paper's comparison on a real trace (issue 4), as a sweep (scripts/sweep):
# msr_hm_0_excerpt.csv on the `piq` preset (8 x 8 chips, 2 KiB pages, 64-page blocks,
# host queue 64), filled with data first as in the paper (AGE=0; AGE=1 ages it to the
# steady state of random overwrites, so GC runs), replayed closed-loop at 64
# outstanding, for the five host schedulers, with the device's in-order scheduler (IOS)
# and with HOS. Prints a Markdown table from the sweep's results: mean read and write
# latency, chip utilization, conflict requests, mean wait in the host queue.
#   [AGE=1] [OUT=DIR] bash scripts/piq_table.sh [TRACE] [FORMAT]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trace="$(realpath "${1:-$root/../shared/traces/msr_hm_0_excerpt.csv}")"
format="${2:-msr}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
cat > "$out/piq_table.json" <<JSON
{
  "name": "piq_table",
  "base": {"preset": "piq", "set": {
    "workload.kind": "trace", "workload.path": "$trace", "workload.format": "$format",
    "workload.replay": "closed", "workload.queue_depth": 64, "workload.requests": 0,
    "ftl.precondition": 1, "ftl.precondition_age": ${AGE:-0}}},
  "grid": {"controller.scheduler": ["ios", "hos"], "host.scheduler": ["noop", "rws", "piq_r", "piq_w", "piq"]}
}
JSON
bash "$root/scripts/sweep" "$out/piq_table.json" --out "$out" --quiet >&2
py="$(bash "$root/scripts/pyenv.sh")"
PYTHONPATH="$root/scripts" "$py" - "$out" <<'PY'
import sys
from ssdexp.table import load
df = load(sys.argv[1])
if (df["integrity.mismatches"] != 0).any():
    sys.exit("data mismatch in a run")
print("| device | host | read mean us | write mean us | chips busy (window average) | read conflicts | write conflicts | read wait us | write wait us |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for _, r in df.iterrows():
    print(f"| {r['controller.scheduler']} | {r['host.scheduler']} | {r['read.latency_us.mean']:.1f} | "
          f"{r['write.latency_us.mean']:.1f} | {r['nand.chip_utilization']:.2f} | {r['host.read_conflicts']} | "
          f"{r['host.write_conflicts']} | {r['host.read_wait_us']:.1f} | {r['host.write_wait_us']:.1f} |")
print()
print(f"Every run: 0 data mismatches. Results in {sys.argv[1]} (results.parquet, results.csv).")
PY
