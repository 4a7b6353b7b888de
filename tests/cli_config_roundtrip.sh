#!/usr/bin/env bash
# cli_config_roundtrip.sh SSDSIM DATA_DIR WORK: the effective configuration a run writes
# (config.json) holds every key ssdsim --list-keys lists, defaults included, and
# `ssdsim --config out/config.json` reproduces the run: stats.json identical apart from
# "run" (which holds the start pilot's figures: the rerun needs no pilot, its
# ftl.precondition_free_blocks is in the file), and config.json identical. For every
# preset, and for the runs whose defaults depend on other keys: a trace (its whole
# length) and rescheduling (no firmware batching).
set -eu
ssdsim="$1"; presets="$2/configs/presets"; work="$3"
rm -rf "$work"; mkdir -p "$work"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
strip() { sed '/"run": {/,$d' "$1"; }
# A family's keys (workload.streams.<i>.NAME) are written only for the items set.
keys="$("$ssdsim" --list-keys | awk 'NF && $1 ~ /\./ && $1 !~ /<i>/ {print $1}' | sort)"
[ "$(echo "$keys" | wc -l)" -ge 100 ] || { echo "--list-keys lists too few keys"; exit 1; }

roundtrip() {  # NAME ARGS...: a run of ARGS, then a run of its config.json alone
  local name="$1"; shift
  "$ssdsim" "$@" --out "$work/$name.first" >"$work/$name.first.log" 2>&1 \
    || { echo "$name: the first run failed"; tail "$work/$name.first.log"; exit 1; }
  local written
  written="$(python3 -c '
import json, sys
def leaves(d, p=""):
    for k, v in d.items():
        if isinstance(v, dict): yield from leaves(v, p + k + ".")
        elif not (p + k).startswith("workload.streams."): yield p + k
print("\n".join(sorted(leaves(json.load(open(sys.argv[1]))))))' "$work/$name.first/config.json")"
  diff <(echo "$keys") <(echo "$written") \
    || { echo "$name: config.json does not hold exactly the keys --list-keys lists (< listed, > written)"; exit 1; }
  "$ssdsim" --config "$work/$name.first/config.json" --out "$work/$name.again" >"$work/$name.again.log" 2>&1 \
    || { echo "$name: the run of its config.json failed"; tail "$work/$name.again.log"; exit 1; }
  diff <(strip "$work/$name.first/stats.json") <(strip "$work/$name.again/stats.json") \
    || { echo "$name: stats.json differs when rerun from its config.json"; exit 1; }
  diff "$work/$name.first/config.json" "$work/$name.again/config.json" \
    || { echo "$name: config.json differs when rerun from itself"; exit 1; }
  if grep -q '"start_pilot"' "$work/$name.again/stats.json"; then
    echo "$name: the rerun ran a start pilot although its config.json holds the start"; exit 1
  fi
}

n=0
for f in "$presets"/*.json; do
  name="$(basename "$f" .json)"
  roundtrip "preset-$name" --preset "$name" --set workload.requests=400
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "only $n preset files in $presets"; exit 1; }
python3 -c '
import random, sys
r = random.Random(1)
t = 128166386783630075
ops = ["Read", "Write"]
with open(sys.argv[1], "w") as f:
    for i in range(600):
        t += r.randint(2000, 20000)
        f.write(f"{t},hm,0,{r.choice(ops)},{r.randrange(0, 1 << 30) // 4096 * 4096},4096,100\n")
' "$work/trace.csv"
roundtrip trace --set workload.kind=trace --set workload.path="$work/trace.csv"
grep -q '"requests": 600' "$work/trace.first/stats.json" || { echo "trace: not replayed whole"; exit 1; }
roundtrip reschedule --preset park --set controller.reschedule=both --set workload.requests=400
# Streams (a family of keys): written for the items set, read back as the same streams.
roundtrip streams --set host.interface=nvme --set nvme.queues=3 --set nvme.arbitration=wrr \
  --set workload.requests=300 --set workload.streams.0.read_ratio=1 --set workload.streams.0.queues=2 \
  --set workload.streams.1.read_ratio=0 --set workload.streams.1.priority=high
grep -q '"priority": "high"' "$work/streams.first/config.json" || { echo "streams: config.json lacks them"; exit 1; }
echo "$n presets, a trace, a rescheduling run and streams: config.json holds every key and reruns identically"
