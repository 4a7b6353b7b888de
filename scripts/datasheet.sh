#!/usr/bin/env bash
# The `mx500` preset (configs/presets/mx500.json: a Crucial MX500 1 TB from public
# figures) against the drive's datasheet: the four corners the manufacturer states,
# each a closed loop at QD 32 of 20,000 requests, on the device written once (the
# manufacturer's fresh drive: ftl.precondition_age = 0) and aged to the steady state of
# random overwrites (the preset's default), and the same with the two mechanisms the
# model's gaps point at (partial-page reads, a write cache). Prints a Markdown table.
#   [SSDSIM=build/ssdsim] [OUT=DIR] [REQUESTS=20000] bash scripts/datasheet.sh
# docs/results.md, "A current TLC drive against its datasheet", gives its output and
# reads it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ssdsim="${SSDSIM:-${BUILD_DIR:-$root/build}/ssdsim}"
[ -x "$ssdsim" ] || { echo "datasheet.sh: no simulator at $ssdsim (build it: bash scripts/ssdsim.sh, or set SSDSIM)" >&2; exit 2; }
out="${OUT:-$(mktemp -d)}"
requests="${REQUESTS:-20000}"
mkdir -p "$out"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
seq128=(--set workload.pattern=sequential --set workload.size_bytes=131072)
run() {  # NAME ARGS...: one run of the preset
  local name="$1"; shift
  "$ssdsim" --preset mx500 --set workload.requests="$requests" --set workload.queue_depth=32 "$@" \
    --out "$out/$name" > "$out/$name.log" 2>&1 || { echo "datasheet.sh: run $name failed: $out/$name.log" >&2; exit 1; }
}
for age in 0 1; do
  run "seq_read_$age" --set ftl.precondition_age=$age --set workload.read_ratio=1 "${seq128[@]}"
  run "seq_write_$age" --set ftl.precondition_age=$age --set workload.read_ratio=0 "${seq128[@]}"
  run "rand_read_$age" --set ftl.precondition_age=$age --set workload.read_ratio=1
  run "rand_write_$age" --set ftl.precondition_age=$age --set workload.read_ratio=0
done
run rand_read_unit --set ftl.precondition_age=0 --set workload.read_ratio=1 --set controller.read_unit_bytes=4096
run rand_write_cache --set ftl.precondition_age=0 --set workload.read_ratio=0 --set controller.write_cache=volatile
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def get(name):
    s = json.load(open(f"{out}/{name}/stats.json"))
    return s["all"], s["ftl"]
# The manufacturer's figures (Crucial; as quoted by cdrlabs.com's MX500 review and
# ocinside.de's specification page): MB/s for the sequential corners, IOPS for the random.
rows = [("sequential read 128 KiB", "seq_read", 560, "MB/s"), ("sequential write 128 KiB", "seq_write", 510, "MB/s"),
        ("random read 4 KiB", "rand_read", 95000, "IOPS"), ("random write 4 KiB", "rand_write", 90000, "IOPS")]
def fig(a, unit):
    return a["bandwidth_mb_s"] if unit == "MB/s" else a["iops"]
print("| corner (QD 32) | datasheet | model, written once | model, aged | written once, mean latency us | aged, write amplification (all pages) |")
print("|---|---|---|---|---|---|")
for label, name, sheet, unit in rows:
    a0, f0 = get(f"{name}_0")
    a1, f1 = get(f"{name}_1")
    wa = f1.get("write_amplification_all", 0) if "write" in name else None
    print(f"| {label} | {sheet:,} {unit} | {fig(a0, unit):,.0f} {unit} ({fig(a0, unit) / sheet - 1:+.0%}) | "
          f"{fig(a1, unit):,.0f} {unit} ({fig(a1, unit) / sheet - 1:+.0%}) | {a0['latency_us']['mean']:,.1f} | "
          f"{'' if wa is None else f'{wa:.2f}'} |")
a, _ = get("rand_read_unit")
print(f"| random read 4 KiB, `controller.read_unit_bytes=4096` | 95,000 IOPS | {a['iops']:,.0f} IOPS ({a['iops'] / 95000 - 1:+.0%}) | | {a['latency_us']['mean']:,.1f} | |")
a, _ = get("rand_write_cache")
print(f"| random write 4 KiB, `controller.write_cache=volatile` | 90,000 IOPS | {a['iops']:,.0f} IOPS ({a['iops'] / 90000 - 1:+.0%}) | | {a['latency_us']['mean']:,.1f} | |")
print(f"\n(runs and logs in {out})")
PY
