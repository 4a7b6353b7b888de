#!/usr/bin/env bash
# cli_no_space.sh SSDSIM DIR: fault recovery that finishes (docs/controller.md, "Faults
# and recovery"). Each run below once ended with host commands never completed ("payload
# pool 'host commands': N of 32 payloads were never released", exit 1): faults took a
# plane's spare, the device went read-only, and the writes the firmware had already taken
# waited for space that GC could no longer make. Now each ends (exit 0) with every read
# checked and the end-of-run audit right; where a plane could gain no space, its waiting
# writes failed with a media error, which the host counted.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
small=(--set workload.requests=2000 --set nand.blocks_per_plane=64 --set nand.pages_per_block=32
       --set ftl.overprovisioning=0.2 --set report.audit=true)
tiny=(--set nand.channels=2 --set nand.chips_per_channel=1 --set nand.dies_per_chip=2 --set nand.planes_per_die=2
      --set nand.blocks_per_plane=16 --set nand.pages_per_block=8 --set ftl.overprovisioning=0.25
      --set workload.requests=4000 --set report.audit=true)
# Every program and every erase of one plane (ch0.chip0.die0.plane0) fails.
for ((b = 0; b < 64; ++b)); do
  echo "erase_fail 0 0 0 0 $b"
  for ((p = 0; p < 32; ++p)); do echo "program_fail 0 0 0 0 $b $p"; done
done > "$dir/plane0.txt"
status=0
run() {
  local name="$1" failed="$2"; shift 2
  if ! "$ssdsim" "$@" --out "$dir/$name" > "$dir/$name.log" 2>&1; then
    tail -n 5 "$dir/$name.log"; echo "cli_no_space: ssdsim failed ($name)" >&2; status=1; return
  fi
  python3 - "$dir/$name/stats.json" "$name" "$failed" <<'PY' || status=1
import json, sys
s = json.load(open(sys.argv[1])); name = sys.argv[2]; want_failed = sys.argv[3] == "yes"
i, f = s["integrity"], s["faults"]
ok = i["reads_checked"] > 0 and i["mismatches"] == 0 and i["audit_mismatches"] == 0 and i["audited_pages"] > 0
if want_failed:
    ok = ok and f["failed_write_pages"] > 0 and f["host_write_errors"] > 0
print(f"{name}: reads checked {i['reads_checked']}, mismatches {i['mismatches']}, audited {i['audited_pages']}, "
      f"read-only {f['read_only']}, failed write pages {f['failed_write_pages']}, write errors {f['host_write_errors']}"
      f"{'' if ok else '  <- WRONG'}")
sys.exit(0 if ok else 1)
PY
}
for seed in 1 2 3; do
  run "program_0.01_seed$seed" any "${small[@]}" --set nand.fault.program_fail_new=0.01 --set nand.fault.seed=$seed
done
run program_0.1 yes "${small[@]}" --set nand.fault.program_fail_new=0.1
run erase_0.5 any "${small[@]}" --set nand.fault.erase_fail_new=0.5
run program_1.0_64x64 yes "${small[@]}" --set nand.pages_per_block=64 --set nand.fault.program_fail_new=1.0
run plane0_script yes "${small[@]}" --set nand.fault.script="$dir/plane0.txt"
for rate in 5e-5 5e-4; do
  run "tiny_hos_$rate" any "${tiny[@]}" --set nand.fault.program_fail_new=$rate
  run "tiny_sos_$rate" any "${tiny[@]}" --set nand.fault.program_fail_new=$rate \
    --set controller.scheduler=pass --set controller.firmware_sched=sos
done
exit $status
