#!/usr/bin/env bash
# cli_multiplane.sh SSDSIM DIR: the controller's n-plane commands on a tPROG-bound device
# (one die of two planes, a fast bus: 8 KiB in 8 us against tPROG 750 us), written
# sequentially from empty, with free firmware. One plane at a time, the die programs a
# page per tPROG; with the firmware's batching two pages per tPROG (a two-plane program:
# 2 (C + D) + tPROG for both, docs/nand-timing.md), so the bandwidth doubles, within 2 %
# (the bus time of the second page). nand.multiplane=false must issue no n-plane command.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
for mp in false true; do
  "$ssdsim" --set nand.channels=1 --set nand.chips_per_channel=1 --set nand.dies_per_chip=1 \
    --set nand.planes_per_die=2 --set nand.blocks_per_plane=256 --set nand.pages_per_block=64 \
    --set nand.bus_mts=1000 --set ftl.precondition=0 --set workload.pattern=sequential \
    --set workload.read_ratio=0 --set workload.size_bytes=8192 --set workload.requests=4000 \
    --set firmware.cycles_per_command=0 --set firmware.cycles_per_page=0 \
    --set nand.multiplane=$mp --out "$dir/$mp" > "$dir/$mp.log" 2>&1 ||
    { cat "$dir/$mp.log"; echo "cli_multiplane: ssdsim failed (nand.multiplane=$mp)" >&2; exit 1; }
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
one, two = (json.load(open(f"{d}/{m}/stats.json")) for m in ("false", "true"))
b1, b2 = one["all"]["bandwidth_mb_s"], two["all"]["bandwidth_mb_s"]
print(f"one plane {b1:.3f} MB/s, two-plane programs {b2:.3f} MB/s: x{b2 / b1:.4f}; "
      f"batches {two['batching']['batch_sizes']}, share {two['batching']['multiplane_share']:.3f}")
assert one["ftl"]["gc_erases"] == 0 and two["ftl"]["gc_erases"] == 0, "the run must be without GC"
assert one["batching"]["multiplane_commands"] == 0 and not one["batching"]["enabled"]
assert one["nand"]["programs"] == one["nand"]["programmed_pages"]
assert two["nand"]["programs"] < two["nand"]["programmed_pages"], "no n-plane program reached the NAND"
assert abs(b2 / b1 - 2) <= 0.02 * 2, b2 / b1
PY
