#!/usr/bin/env bash
# cli_sos_cost.sh SSDSIM DIR: SOS's firmware decisions are charged to the core. On a
# device with no GC and every other firmware cost 0, at 400 MHz, a decision costs 400
# cycles (1 us) and a QSL move 40 (0.1 us): the core's busy time (utilization x run) must
# be decisions x 1 us + moves x 0.1 us, to the printed precision.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"
"$ssdsim" --set nand.channels=2 --set nand.chips_per_channel=2 --set nand.dies_per_chip=1 \
  --set nand.planes_per_die=2 --set nand.blocks_per_plane=16 --set nand.pages_per_block=8 \
  --set nand.page_bytes=4096 --set ftl.overprovisioning=0.25 --set ftl.precondition=0 \
  --set workload.read_ratio=0.5 --set workload.requests=1000 --set controller.scheduler=pass \
  --set controller.firmware_sched=sos --set controller.sos_whm=false --set firmware.clock_mhz=400 \
  --set firmware.cycles_per_decision=400 --set firmware.cycles_per_qsl_move=40 \
  --set firmware.cycles_per_command=0 --set firmware.cycles_per_page=0 --set firmware.cycles_per_gc_page=0 --out "$dir" > "$dir.log" 2>&1 ||
  { cat "$dir.log"; echo "cli_sos_cost: ssdsim failed" >&2; exit 1; }
python3 - "$dir/stats.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["firmware"]
busy = f["core_utilization"] * d["sim_time_us"]
want = f["sos_decisions"] * 1.0 + f["qsl_moves"] * 0.1
print(f"decisions {f['sos_decisions']}, QSL moves {f['qsl_moves']}: core busy {busy:.4f} us, charged {want:.4f} us")
assert d["window_start_us"] == 0 and d["ftl"]["gc_erases"] == 0, "the run must be whole and without GC"
assert f["sos_decisions"] > 0 and f["qsl_moves"] > 0, "the run must decide and move"
assert abs(busy - want) <= 1e-9 * want + 1e-6, (busy, want)
PY
