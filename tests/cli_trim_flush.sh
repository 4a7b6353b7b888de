#!/usr/bin/env bash
# cli_trim_flush.sh SSDSIM DIR ARGS...: TRIM and FLUSH from the synthetic workload and
# from a blkparse trace, on the device ARGS describe, every host scheduler and dispatch:
# - each FLUSH completes at or after every WRITE that arrived before it (the request CSV,
#   ids in arrival order), and some flush waited (firmware.flushes_waited) where the host
#   can send one while writes are under way (not PIQ's batches);
# - trims and flushes are counted apart from the reads' and writes' figures;
# - reads of trimmed pages are checked like every read, the audit finds nothing lost;
# - flushes take no draw of the synthetic workload: with workload.flush_every the other
#   requests are the same as without it.
set -u
ssdsim="$1"; dir="$2"; shift 2
rm -rf "$dir"; mkdir -p "$dir"
run() {  # NAME ARGS...
  local name="$1"; shift
  "$ssdsim" "$@" --set report.requests_csv="$dir/$name.csv" --set report.audit=true --out "$dir/$name" \
    >"$dir/$name.txt" 2>&1 || { cat "$dir/$name.txt"; echo "cli_trim_flush: ssdsim failed ($name)" >&2; exit 1; }
}
mix=(--set workload.trim_ratio=0.15 --set workload.flush_every=20 --set workload.requests=6000)
for h in noop rws piq; do
  for d in ncq batch; do run "${h}_$d" "$@" "${mix[@]}" --set host.scheduler=$h --set host.dispatch=$d; done
done
run open "$@" "${mix[@]}" --set host.scheduler=piq --set workload.rate_iops=20000
run noflush "$@" --set workload.trim_ratio=0.15 --set workload.requests=6000 --set host.scheduler=noop
# A blkparse trace with every kind of request: the flushes, the preflushed writes and the
# discards of a journaling file system, over the first 3 MiB, 10 us apart.
python3 - "$dir/fs.blk" <<'PY'
import random, sys
rnd = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(4000):
        t = i * 1e-5
        sector = rnd.randrange(0, 6144 - 64, 8)  # inside the tiny device (3 MiB)
        kind = rnd.choices(["R", "W", "WS", "FWFS", "D", "FN"], [40, 30, 10, 5, 10, 5])[0]
        if kind == "FN":
            f.write(f"  8,0    1 {i + 1:8d} {t:14.9f}  4242  Q  FN [kworker/1:1H]\n")
        else:
            f.write(f"  8,0    1 {i + 1:8d} {t:14.9f}  4242  Q {kind:>3} {sector} + {rnd.choice([8, 16, 64])} [fs]\n")
        f.write(f"  8,0    1 {i + 1:8d} {t:14.9f}  4242  G {kind:>3} {sector} + 8 [fs]\n")
    f.write("CPU1 (8,0):\n Reads Queued:        1600,     6400KiB\n")
PY
run trace "$@" --set workload.kind=trace --set workload.format=blkparse --set workload.path="$dir/fs.blk" \
  --set host.scheduler=rws
exec python3 - "$dir" <<'PY'
import csv, json, sys
d = sys.argv[1]
fail = []
def rows_of(name):
    return sorted(csv.DictReader(open(f"{d}/{name}.csv")), key=lambda r: int(r["id"]))
for name in ("noop_ncq", "noop_batch", "rws_ncq", "rws_batch", "piq_ncq", "piq_batch", "open", "trace"):
    s = json.load(open(f"{d}/{name}/stats.json"))
    rows = rows_of(name)
    count = {op: sum(r["op"] == op for r in rows) for op in ("READ", "WRITE", "TRIM", "FLUSH")}
    latest, early = 0.0, 0
    for r in rows:
        if r["op"] == "WRITE":
            latest = max(latest, float(r["complete_us"]))
        elif r["op"] == "FLUSH" and float(r["complete_us"]) < latest:
            early += 1
    if early:
        fail.append(f"{name}: {early} of {count['FLUSH']} flushes completed before a write that arrived before them")
    if not (count["TRIM"] and count["FLUSH"]):
        fail.append(f"{name}: no trims or no flushes ran ({count})")
    # PIQ's batches go one at a time, a flush in a batch of its own after every earlier
    # write's: no write is left for it to wait for in the device (with free firmware it
    # could arrive in the instant of the last write's completion and count as waiting).
    if s["firmware"]["flushes_waited"] == 0 and name != "piq_batch":
        fail.append(f"{name}: no flush waited for a write")
    if s["trim"]["count"] != count["TRIM"] or s["flush"]["count"] != count["FLUSH"]:
        fail.append(f"{name}: trim/flush counts {s['trim']['count']}/{s['flush']['count']} vs CSV {count}")
    unwritten = s["host"]["unwritten_reads"]
    if s["read"]["count"] + unwritten != count["READ"] or s["write"]["count"] != count["WRITE"]:
        fail.append(f"{name}: read/write counts {s['read']['count']}+{unwritten}/{s['write']['count']} vs CSV {count}")
    integ = s["integrity"]
    if integ["mismatches"] or integ["audit_mismatches"] or not integ["audited_pages"] or not integ["reads_checked"]:
        fail.append(f"{name}: integrity {integ}")
    if s["firmware"]["trimmed_pages"] == 0:
        fail.append(f"{name}: no page trimmed")
# The flushes took no draw: the same reads, writes and trims in the same order.
key = lambda rows: [(r["op"], r["lba"], r["bytes"]) for r in rows if r["op"] != "FLUSH"]
if key(rows_of("noop_ncq")) != key(rows_of("noflush")):
    fail.append("workload.flush_every changed the other requests of the synthetic workload")
print("\n".join(fail) if fail else "cli_trim_flush: ok")
sys.exit(1 if fail else 0)
PY
