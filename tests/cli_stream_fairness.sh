#!/usr/bin/env bash
# cli_stream_fairness.sh SSDSIM WORK: two tenants over NVMe (a read-heavy stream in the
# high class, a write-heavy one in the low class, weighted round robin), with
# report.stream_alone: each stream's slowdown is its mean latency shared over its mean
# alone, and the fairness is the lowest slowdown over the highest. The alone means are
# checked against runs of each stream alone made here from the shared run's config.json
# (its start state as resolved: the same device) with report.stream_only, and the
# per-stream request counts against the workload.
set -eu
ssdsim="$1"; work="$2"
rm -rf "$work"; mkdir -p "$work"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
args=(--set host.interface=nvme --set nvme.queues=4 --set nvme.arbitration=wrr --set nvme.command_slots=16
      --set nand.blocks_per_plane=64 --set ftl.overprovisioning=0.15 --set report.warmup=fixed
      --set workload.streams.0.read_ratio=0.9 --set workload.streams.0.queues=2 --set workload.streams.0.priority=high
      --set workload.streams.0.weight=4 --set workload.streams.0.queue_depth=16 --set workload.streams.0.requests=3000
      --set workload.streams.1.read_ratio=0.1 --set workload.streams.1.queues=2 --set workload.streams.1.priority=low
      --set workload.streams.1.queue_depth=16 --set workload.streams.1.requests=3000)
"$ssdsim" "${args[@]}" --set report.stream_alone=true --out "$work/shared" > "$work/shared.log" 2>&1 \
  || { echo "the shared run failed"; tail "$work/shared.log"; exit 1; }
for i in 0 1; do
  "$ssdsim" --config "$work/shared/config.json" --set report.stream_only=$i --set report.stream_alone=false \
    --out "$work/alone$i" > "$work/alone$i.log" 2>&1 \
    || { echo "the alone run of stream $i failed"; tail "$work/alone$i.log"; exit 1; }
done
grep -q "fairness " "$work/shared.log" || { echo "the summary has no fairness line"; exit 1; }
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
shared = json.load(open(f"{w}/shared/stats.json"))
streams = shared["streams"]
slow = []
for i in ("0", "1"):
    s = streams[i]
    alone = json.load(open(f"{w}/alone{i}/stats.json"))["all"]["latency_us"]["mean"]
    assert s["all"]["count"] == 3000, f"stream {i}: {s['all']['count']} requests, expected 3000"
    assert abs(s["alone_mean_us"] - alone) <= 1e-9 * alone, f"stream {i}: alone_mean_us {s['alone_mean_us']} != {alone}"
    want = s["all"]["latency_us"]["mean"] / alone
    assert abs(s["slowdown"] - want) <= 1e-9 * want, f"stream {i}: slowdown {s['slowdown']} != {want}"
    slow.append(s["slowdown"])
f = min(slow) / max(slow)
assert abs(shared["fairness"] - f) <= 1e-9, f"fairness {shared['fairness']} != {f}"
assert streams["0"]["priority"] == "high" and streams["1"]["priority"] == "low"
print(f"slowdowns {slow[0]:.3f} (read-heavy, high) and {slow[1]:.3f} (write-heavy, low), fairness {f:.3f}")
PY
