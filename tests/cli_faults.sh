#!/usr/bin/env bash
# cli_faults.sh SSDSIM DIR: one read-retry sequence and one program failure through the
# whole model, on one plane with free firmware, timed by hand from the equations of
# docs/nand-timing.md ("Faults"): C = 7 bus cycles, S = the SET FEATURES' 6, D = a 4 KiB
# page on the bus, at 333 MT/s; tR 75 us, tPROG 750 us; the hard decode 2 us.
#  - A read of page 0 of block 0, injected to need two more levels (read_retry ... 2):
#    three attempts, C + tR + D + dec, then twice C + S + tR + D + dec. The two earlier
#    attempts are the read_retry part; the last one's parts are its own.
#  - A write whose program of page 0 of block 0 fails (program_fail ...): its data is
#    programmed again, to another block: twice C + D + tPROG; the first attempt is in
#    write_stall. The block is retired and the audit finds the data.
# Each attempt after the first may wait up to a cycle of the scheduler block's 1 GHz clock.
#  - Reads only, no GC, bit errors that need retries, on a die of two planes: the
#    firmware's n-plane batching (ftl.batch_depth) must not change a single read's decode
#    (a page's errors depend on its state and level only): the tiers and the errors the
#    host saw are the same with it as without. It joined reads of different levels once.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
printf 'read_retry 0 0 0 0 0 0 2\n' > "$dir/retry.txt"
printf 'program_fail 0 0 0 0 0 0\n' > "$dir/program.txt"
one=(--set nand.channels=1 --set nand.chips_per_channel=1 --set nand.dies_per_chip=1 --set nand.planes_per_die=1
     --set nand.blocks_per_plane=64 --set nand.pages_per_block=16 --set nand.page_bytes=4096
     --set ftl.overprovisioning=0.25 --set firmware.cycles_per_command=0 --set firmware.cycles_per_page=0
     --set workload.pattern=sequential --set workload.size_bytes=4096 --set workload.size_max_bytes=4096
     --set workload.align_bytes=4096 --set workload.queue_depth=1 --set workload.requests=1 --set report.audit=true)
run() {
  local name="$1"; shift
  "$ssdsim" "${one[@]}" "$@" --out "$dir/$name" > "$dir/$name.log" 2>&1 ||
    { cat "$dir/$name.log"; echo "cli_faults: ssdsim failed ($name)" >&2; exit 1; }
}
run read --set workload.read_ratio=1 --set ftl.precondition=1 --set ftl.precondition_age=0 \
  --set nand.fault.script="$dir/retry.txt"
run write --set workload.read_ratio=0 --set ftl.precondition=0 --set nand.fault.script="$dir/program.txt"
for depth in 0 2; do
  run "batch$depth" --set nand.planes_per_die=2 --set workload.read_ratio=1 --set workload.pattern=random \
    --set workload.queue_depth=16 --set workload.requests=3000 --set ftl.precondition=1 --set ftl.precondition_age=0 \
    --set nand.fault.rber_new=0.0095 --set nand.fault.retry_gain=0.8 --set ftl.batch_depth=$depth
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
cyc = 1 / 333.0                      # us per bus cycle
C, S, D = 7 * cyc, 6 * cyc, 4096 * cyc
tR, tP, dec, edge = 75.0, 750.0, 2.0, 0.001
def parts(s, op):
    return {k: v["mean_us"] for k, v in s[op]["latency_parts"].items()}
def near(got, want, slack=0.0, what=""):
    ok = want - 2e-6 <= got <= want + slack + 2e-6
    print(f"{what}: {got:.6f} us, by hand {want:.6f}" + (f" (+ up to {slack:.3f})" if slack else ""))
    assert ok, what

r = json.load(open(f"{d}/read/stats.json"))
p = parts(r, "read")
attempt0, shifted = C + tR + D + dec, C + S + tR + D + dec
near(r["read"]["latency_us"]["mean"], attempt0 + 2 * shifted, 2 * edge, "read latency")
near(p["read_retry"], attempt0 + shifted, edge, "read_retry part")
near(p["bus_command"], C + S, 0, "last attempt's command and SET FEATURES")
near(p["array"], tR, 0, "last attempt's tR")
near(p["bus_data"], D, 0, "last attempt's data out")
near(p["ecc_decode"], dec, 0, "last attempt's decode")
f = r["faults"]
assert f["retries_per_read"][2] == 1 and sum(f["retries_per_read"]) == 1, f["retries_per_read"]
assert f["reads_by_tier"] == {"hard": 0, "retry": 1, "soft": 0, "uncorrectable": 0}, f["reads_by_tier"]
assert f["retry_reads"] == 2 and f["nand_retry_reads"] == 2
assert r["integrity"]["reads_checked"] == 1 and r["integrity"]["mismatches"] == 0

w = json.load(open(f"{d}/write/stats.json"))
p = parts(w, "write")
once = C + D + tP
near(w["write"]["latency_us"]["mean"], 2 * once, edge, "write latency")
near(p["write_stall"], once, 0, "the failed attempt, in write_stall")
near(p["array"], tP, 0, "the second attempt's tPROG")
f = w["faults"]
# The block held nothing valid: GC retired it at once, without a copy.
assert f["program_failures"] == 1 and f["reprogrammed_pages"] == 1 and f["grown_bad_blocks"] == 1, f
assert f["retired_by_gc"] == 1 and f["retire_copies"] == 0 and f["recovery_write_amplification"] == 1, f
assert f["nand_failed_programs"] == 1
assert w["ftl"]["host_pages_programmed"] == 1  # the page again is recovery, not a host page
assert w["integrity"]["audit_mismatches"] == 0 and w["integrity"]["audited_pages"] > 0
print("cli_faults: both timelines as computed")

a, b = (json.load(open(f"{d}/batch{n}/stats.json")) for n in (0, 2))
assert b["batching"]["multiplane_pages"] > 0, "no n-plane read: the comparison tests nothing"
for k in ("reads_by_tier", "retries_per_read", "host_pages_unrecovered", "lost_pages"):
    print(f"{k}: without batching {a['faults'][k]}, with {b['faults'][k]}")
    assert a["faults"][k] == b["faults"][k], k
assert a["faults"]["reads_by_tier"]["retry"] > 100
PY
