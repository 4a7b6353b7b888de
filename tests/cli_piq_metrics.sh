#!/usr/bin/env bash
# cli_piq_metrics.sh SSDSIM DIR: the PIQ paper's metrics as a run reports them
# (docs/host.md, "Metrics" and "Dispatch"), on a small open-loop job of the piq preset:
# - <op>.conflict_wait_us lies between the mean of the request's device conflict parts
#   (conflict_host_read + conflict_host_write) and that plus its host-queue time, both
#   computed from the per-request CSV;
# - NOOP prioritizes no read, RWS some;
# - host.dispatch=batch leaves NOOP and RWS unchanged (they have no batches) and changes PIQ;
# - PIQ serves fewer batches than requests.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
run() {  # NAME ARGS...
  local name="$1"; shift
  "$ssdsim" --preset piq --set ftl.precondition=1 --set workload.requests=3000 --set workload.rate_iops=22000 \
    --set workload.read_ratio=0.5 --set workload.size_bytes=4096 --set workload.size_max_bytes=16384 \
    --set workload.align_bytes=4096 --set report.requests_csv="$dir/$name.csv" "$@" --out "$dir/$name" \
    >"$dir/$name.txt" 2>&1 || { cat "$dir/$name.txt"; echo "cli_piq_metrics: ssdsim failed ($name)" >&2; exit 1; }
}
for h in noop rws piq; do
  for d in ncq batch; do run "${h}_$d" --set host.scheduler=$h --set host.dispatch=$d; done
done
exec python3 - "$dir" <<'PY'
import csv, json, sys
d = sys.argv[1]
st = lambda n: json.load(open(f"{d}/{n}/stats.json"))
fail = []
for name in ("noop_ncq", "rws_ncq", "piq_ncq", "piq_batch"):
    s = st(name)
    rows = list(csv.DictReader(open(f"{d}/{name}.csv")))
    for op in ("read", "write"):
        rs = [r for r in rows if r["op"] == op.upper()]
        dev = sum(float(r["part_conflict_host_read_us"]) + float(r["part_conflict_host_write_us"]) for r in rs) / len(rs)
        hq = sum(float(r["part_host_queue_us"]) for r in rs) / len(rs)
        cw = s[op]["conflict_wait_us"]
        if not (dev - 1e-3 <= cw <= dev + hq + 1e-3):
            fail.append(f"{name}: {op}.conflict_wait_us = {cw}, not within [{dev}, {dev + hq}]")
    if s["host"]["requests"] != 3000:
        fail.append(f"{name}: {s['host']['requests']} of 3000 requests completed")
    if s["read"]["count"] + s["write"]["count"] != len(rows):
        fail.append(f"{name}: {len(rows)} CSV rows for {s['read']['count'] + s['write']['count']} requests")
if st("noop_ncq")["host"]["prioritized_reads"] != 0:
    fail.append("NOOP prioritized reads")
if st("rws_ncq")["host"]["prioritized_reads"] == 0:
    fail.append("RWS prioritized no read (reads and writes overlap at this load)")
for h in ("noop", "rws"):
    a, b = st(f"{h}_ncq"), st(f"{h}_batch")
    for k in ("read", "write", "host"):
        if a[k] != b[k]:
            fail.append(f"{h}: host.dispatch=batch changed {k} (NOOP and RWS have no batches)")
a, b = st("piq_ncq"), st("piq_batch")
if a["read"]["latency_us"] == b["read"]["latency_us"]:
    fail.append("PIQ: host.dispatch=batch changed nothing")
for s, name in ((a, "ncq"), (b, "batch")):
    h = s["host"]
    if not 0 < h["read_batches"] + h["write_batches"] < h["requests"]:
        fail.append(f"PIQ ({name}): {h['read_batches']} + {h['write_batches']} batches for {h['requests']} requests")
print("\n".join(fail) if fail else "cli_piq_metrics: ok")
sys.exit(1 if fail else 0)
PY
