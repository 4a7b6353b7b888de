#!/usr/bin/env bash
# cli_trace_whole.sh SSDSIM DIR: a trace replays whole unless workload.requests is set
# (it once stopped at the key's synthetic default of 100,000), and a limit that cuts it
# says so on stderr. A 100,001-record MQSim trace on a small device, closed loop.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(100001):
        f.write(f'{i * 1000} 0 {(i * 8) % 4096} 8 {i % 2}\n')
" "$dir/long.mq"
tiny=(--set nand.channels=2 --set nand.chips_per_channel=2 --set nand.dies_per_chip=1 --set nand.planes_per_die=1
      --set nand.blocks_per_plane=128 --set nand.pages_per_block=64 --set ftl.overprovisioning=0.25 --set ftl.precondition=1
      --set workload.kind=trace --set workload.format=mqsim --set workload.path="$dir/long.mq"
      --set workload.replay=closed --set workload.queue_depth=8)
fail=0
"$ssdsim" "${tiny[@]}" --out "$dir/whole" >"$dir/whole.txt" 2>&1 || { cat "$dir/whole.txt"; fail=1; }
n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['host']['requests'])" "$dir/whole/stats.json" 2>/dev/null)
[ "$n" = 100001 ] || { echo "cli_trace_whole: $n requests replayed, the trace has 100001" >&2; fail=1; }
grep -q "stops the replay" "$dir/whole.txt" && { echo "cli_trace_whole: a whole replay said it was cut" >&2; fail=1; }
"$ssdsim" "${tiny[@]}" --set workload.requests=100 --out "$dir/cut" >"$dir/cut.txt" 2>&1 || { cat "$dir/cut.txt"; fail=1; }
grep -q "workload.requests = 100 stops the replay of $dir/long.mq before its line 101" "$dir/cut.txt" \
  || { cat "$dir/cut.txt"; echo "cli_trace_whole: the cut was not said" >&2; fail=1; }
[ "$fail" = 0 ] && echo "cli_trace_whole: ok"
exit "$fail"
