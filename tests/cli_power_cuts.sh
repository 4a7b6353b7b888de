#!/usr/bin/env bash
# cli_power_cuts.sh SSDSIM DIR ARGS...: seeded power cuts (power.cut_mode = probe) on the
# device ARGS describe, with mixed sizes, FUA writes, flushes and trims, under every write
# cache mode, two block schedulers, SOS's write-hit cancels on hot pages and program and
# erase failures: every cut is made and audited; no durable write is ever lost and no page
# reads data outside the contract; with the cache off or plp no write is lost as merely
# acknowledged (every acknowledged write is durable) and no surviving write is out of
# order; a volatile cache loses acknowledged writes (the cuts fall while it holds some)
# and so gives unserializable outcomes; multi-page writes in flight are torn; the same
# seed gives the same figures, and the cuts leave the run itself unchanged. The same
# contract holds with the mapping persisted by the map log (ftl.map_persist = journal).
set -u
ssdsim="$1"; dir="$2"; shift 2
rm -rf "$dir"; mkdir -p "$dir"
mix=(--set workload.fua_ratio=0.1 --set workload.flush_every=64 --set workload.trim_ratio=0.05
     --set workload.requests=6000 --set power.cuts=500 --set power.cut_window_us=2000)
run() {  # NAME ARGS...
  local name="$1"; shift
  "$ssdsim" "$@" --out "$dir/$name" >"$dir/$name.txt" 2>&1 ||
    { cat "$dir/$name.txt"; echo "cli_power_cuts: ssdsim failed ($name)" >&2; exit 1; }
}
field() {  # NAME KEY: power.KEY of the run's stats.json
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['power'][sys.argv[2]])" "$dir/$1/stats.json" "$2"
}
fail=0
check() {  # NAME KEY OP VALUE
  local v; v=$(field "$1" "$2")
  if ! python3 -c "import sys; sys.exit(0 if ($v $3 $4) else 1)"; then
    echo "cli_power_cuts: $1: power.$2 = $v, expected $3 $4" >&2; fail=1
  fi
}
declare -A setup=(
  [hos]="--set controller.scheduler=hos"
  [ios]="--set controller.scheduler=ios"
  [sos]="--set controller.scheduler=pass --set controller.firmware_sched=sos --set workload.zipf_theta=0.9"
  [faults]="--set controller.scheduler=hos --set nand.fault.program_fail_new=0.02 --set nand.fault.erase_fail_new=0.05"
)
contract() {  # NAME CACHE: the contract's checks on a run
  local n="$1" cache="$2"
    check "$n" cuts ">" 400
    check "$n" writes_checked ">" 0
    check "$n" torn_writes ">" 0
    check "$n" in_flight_lost ">" 0
    check "$n" durable_lost == 0
    check "$n" pages_off_contract == 0
    if [ "$cache" = volatile ]; then
      check "$n" volatile_lost ">" 0
      check "$n" order_violations ">" 0
    else
      check "$n" volatile_lost == 0
      check "$n" order_violations == 0
    fi
    grep -q "0 mismatches" "$dir/$n.txt" || { echo "cli_power_cuts: $n: mismatches" >&2; fail=1; }
}
for sched in hos ios sos faults; do
  for cache in off volatile plp; do
    n="${sched}_$cache"
    # shellcheck disable=SC2086
    run "$n" "$@" "${mix[@]}" ${setup[$sched]} --set controller.write_cache=$cache
    contract "$n" "$cache"
  done
done
# The map log (ftl.map_persist = journal), on planes with room for it, faults on: the same
# contract; its checkpoints made, its stripes erased and reused; recovery reads it, and
# scans more than the open blocks (the updates still in the journal's RAM).
jl=(--set nand.blocks_per_plane=32 --set nand.page_bytes=1024 --set ftl.overprovisioning=0.4
    --set ftl.map_persist=journal --set ftl.checkpoint_interval_updates=100 --set controller.scheduler=hos
    --set nand.fault.program_fail_new=0.002 --set nand.fault.erase_fail_new=0.005)
for cache in off volatile plp; do
  n="journal_$cache"
  run "$n" "$@" "${mix[@]}" "${jl[@]}" --set controller.write_cache=$cache
  contract "$n" "$cache"
  python3 - "$dir/$n/stats.json" <<'PY' || { echo "cli_power_cuts: $n: the map log did not work" >&2; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
m, p = d["ftl"]["map_log"], d["power"]
assert m["checkpoints"] > 5 and m["erases"] > 0 and m["journal_pages"] > 0, m
assert p["log_pages"]["mean"] >= m["checkpoint_size_pages"], p
PY
done
# SOS cancelled held programs under the cache off and plp (their writes done with the newer).
for n in sos_off sos_plp; do
  python3 -c "import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))['firmware']['cancelled_programs'] > 100 else 1)" \
    "$dir/$n/stats.json" || { echo "cli_power_cuts: $n: no cancelled programs" >&2; fail=1; }
done
# Determinism, and a probe changes nothing the run does.
run again "$@" "${mix[@]}" --set controller.scheduler=hos --set controller.write_cache=volatile
python3 - "$dir/hos_volatile/stats.json" "$dir/again/stats.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b): d.pop("run", None)
if a != b: sys.exit("cli_power_cuts: the same seed gave different statistics")
PY
run uncut "$@" "${mix[@]}" --set controller.scheduler=hos --set controller.write_cache=volatile --set power.cuts=0
python3 - "$dir/hos_volatile/stats.json" "$dir/uncut/stats.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("run", None); d.pop("power", None); d.pop("config", None)
if a != b: sys.exit("cli_power_cuts: the probes changed the run's statistics")
PY
# The VCD marks each cut and its recovery scan: tests/data/power_cut.msr's cuts at 5 and
# 10.3 ms (docs/controller.md, "Power loss"), scans of 75.213 and 150.234 us.
data="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/data"
"$ssdsim" --set workload.kind=trace --set workload.path="$data/power_cut.msr" --set nand.page_bytes=4096 \
  --set ftl.precondition=0 --set power.cut_at_us=5000,10300 --set trace.vcd="$dir/vcd/cut.vcd" --out "$dir/vcd" \
  > "$dir/vcd.txt" 2>&1 || { cat "$dir/vcd.txt"; fail=1; }
python3 - "$dir/vcd/cut.vcd" "$dir/vcd/view.gtkw" <<'PY' || fail=1
import sys
lines = open(sys.argv[1]).read().split("\n")
ids = {}
for l in lines:
    f = l.split()
    if len(f) >= 5 and f[0] == "$var" and f[4] in ("cuts", "recovery_ns"):
        ids[f[3]] = f[4]
seen, t = {}, None
for l in lines:
    if l.startswith("#"):
        t = int(l[1:])
    elif l.startswith("b") and " " in l:
        v, i = l[1:].split()
        if i in ids:
            seen.setdefault(ids[i], []).append((t, int(v, 2)))
want = {"cuts": [(0, 0), (5000000000, 1), (10300000000, 2)], "recovery_ns": [(0, 0), (5000000000, 75213), (10300000000, 150234)]}
if seen != want:
    sys.exit(f"cli_power_cuts: the VCD's power signals are {seen}, not {want}")
if "ssd.power.cuts" not in open(sys.argv[2]).read():
    sys.exit("cli_power_cuts: the GTKWave view does not show ssd.power.cuts")
PY
# With the map log the VCD shows each checkpoint under way and the log's commands in
# flight, and the GTKWave view has both.
"$ssdsim" --set nand.channels=2 --set nand.chips_per_channel=1 --set nand.dies_per_chip=1 --set nand.blocks_per_plane=64 \
  --set nand.pages_per_block=32 --set nand.page_bytes=4096 --set ftl.overprovisioning=0.2 --set ftl.map_persist=journal \
  --set ftl.checkpoint_interval_updates=2000 --set workload.requests=5000 --set trace.vcd="$dir/jvcd/t.vcd" \
  --out "$dir/jvcd" > "$dir/jvcd.txt" 2>&1 || { cat "$dir/jvcd.txt"; fail=1; }
python3 - "$dir/jvcd/t.vcd" "$dir/jvcd/view.gtkw" "$dir/jvcd/stats.json" <<'PY' || fail=1
import json, sys
ids, rises, peak = {}, 0, 0
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) >= 5 and f[0] == "$var" and f[4] in ("map_log_checkpoint", "map_log_commands"):
        ids[f[3]] = f[4]
    elif l[:1] in "01" and l[1:].strip() in ids and ids[l[1:].strip()] == "map_log_checkpoint":
        rises += l[0] == "1"
    elif l.startswith("b") and len(f) == 2 and ids.get(f[1]) == "map_log_commands":
        peak = max(peak, int(f[0][1:], 2))
started = json.load(open(sys.argv[3]))["ftl"]["map_log"]["checkpoints"]
if rises < started or started < 1 or peak < 1:
    sys.exit(f"cli_power_cuts: the VCD shows {rises} checkpoints ({started} made) and at most {peak} log commands")
view = open(sys.argv[2]).read()
if "map_log_checkpoint" not in view or "map_log_commands" not in view:
    sys.exit("cli_power_cuts: the GTKWave view does not show the map log")
PY
exit $fail
