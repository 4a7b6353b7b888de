#!/usr/bin/env bash
# The speed benchmark (issue 5): the reference job of the `bench` preset (MQSim's
# default device scaled to 1 TiB raw, all of it preconditioned, random 4 KiB requests,
# 70 % reads, QD 32, seed 798) at several request counts, in one go, printing for each:
# requests per wall second over the whole process (elaboration and preconditioning
# included), the simulation alone, peak memory, the model's own process activations
# per request, and the cost in kernel activations per request (the kernel's rate for a
# timed SC_METHOD notify loop is measured in the same process, after the workload).
# Each count runs BENCH_REPEAT times (default 3; results are identical, only the
# timing differs): the row is the run of median wall time, and the last column the
# range of kern/req over the runs. Then the cost of tracing: the smallest count again
# with a VCD of channel 0 (once). Then the second count with the Verilog scheduler block
# (controller.rtl=on, once) and its speed as a fraction of the C++ block's.
#   bash scripts/bench.sh [COUNT...]      (default: 100000 1000000 2000000)
#   BENCH_REPEAT=1 bash scripts/bench.sh  (one run per count)
# The machine is shared and noisy: compare the figures of one run with each other.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(100000 1000000 2000000)
repeat="${BENCH_REPEAT:-3}"
case "$repeat" in
  ''|*[!0-9]*|0) echo "scripts/bench.sh: BENCH_REPEAT must be a whole number >= 1, not '$repeat'" >&2; exit 2 ;;
esac
for n in "${counts[@]}"; do
  case "$n" in
    ''|*[!0-9]*|0) echo "scripts/bench.sh: a request count must be a whole number >= 1, not '$n'" >&2; exit 2 ;;
  esac
done
bash "$root/scripts/build.sh"
ssdsim="${BUILD_DIR:-$root/build}/ssdsim"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$(mktemp -d)"

field() {  # field FILE KEY: the first number after "KEY":
  sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1" | head -n 1
}
row() {  # row LABEL DIR [RANGE]
  local s="$2/stats.json"
  printf '%-22s %9s %10.0f %10.0f %9.2f %9.2f %9.0f %8.1f %9.1f %9.1f %5s %s\n' "$1" \
    "$(field "$s" count | head -n1)" \
    "$(field "$s" host_requests_per_wall_second)" \
    "$(awk -v n="$(sed -n 's/.*"count": \([0-9]*\).*/\1/p' "$s" | sed -n 3p)" -v t="$(field "$s" simulation_seconds)" 'BEGIN{printf "%.0f", n/t}')" \
    "$(field "$s" wall_seconds)" "$(field "$s" precondition_seconds)" "$(field "$s" peak_rss_mb)" \
    "$(field "$s" process_activations_per_request)" \
    "$(field "$s" kernel_activations_per_request)" \
    "$(field "$s" kernel_activations_per_request_simulation)" \
    "$(field "$s" mismatches)" "${3:-}"
}
printf '%-22s %9s %10s %10s %9s %9s %9s %8s %9s %9s %5s %s\n' run "reads" "req/s" "req/s sim" "wall s" "precond s" "peak MB" "proc/req" "kern/req" "kern/sim" "mism" "kern/req range"
for n in "${counts[@]}"; do
  for ((i = 1; i <= repeat; i++)); do
    "$ssdsim" --preset bench --set workload.requests="$n" --set report.calibrate_kernel=true --out "$out/$n.$i" \
      >/dev/null 2>"$out/$n.$i.log" || { cat "$out/$n.$i.log" >&2; echo "scripts/bench.sh: the run of $n requests failed" >&2; exit 1; }
  done
  # The run of median wall time (the lower middle one for an even count), and the range.
  median="$(for ((i = 1; i <= repeat; i++)); do echo "$(field "$out/$n.$i/stats.json" wall_seconds) $i"; done |
    sort -g | sed -n "$(((repeat + 1) / 2))p" | cut -d' ' -f2)"
  range="$(for ((i = 1; i <= repeat; i++)); do field "$out/$n.$i/stats.json" kernel_activations_per_request; done |
    sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.1f-%.1f over %d", lo, hi, NR}')"
  ln -sfn "$n.$median" "$out/$n"
  row "requests=$n" "$out/$n" "$range"
done
n="${counts[0]}"
"$ssdsim" --preset bench --set workload.requests="$n" --set report.calibrate_kernel=true \
  --set trace.vcd="$out/trace.vcd" --set trace.scopes=ssd.nand.ch0 --out "$out/trace" >/dev/null 2>"$out/trace.log" ||
  { cat "$out/trace.log" >&2; echo "scripts/bench.sh: the traced run failed" >&2; exit 1; }
row "requests=$n traced" "$out/trace"
# The Verilog scheduler block (controller.rtl=on, rtl/) on the second count (the first if
# only one), beside the C++ block's run of that count: requests per wall second and per
# simulation second, and their ratios.
rn="${counts[1]:-${counts[0]}}"
if "$ssdsim" --preset bench --set workload.requests="$rn" --set controller.rtl=on --out "$out/rtl" >/dev/null 2>"$out/rtl.log"; then
  row "requests=$rn rtl=on" "$out/rtl"
  awk -v a="$(field "$out/rtl/stats.json" host_requests_per_wall_second)" \
      -v b="$(field "$out/$rn/stats.json" host_requests_per_wall_second)" \
      -v c="$(field "$out/rtl/stats.json" simulation_seconds)" -v d="$(field "$out/$rn/stats.json" simulation_seconds)" \
      'BEGIN {printf "RTL block / C++ block at %s requests: %.2f of the requests per wall second, %.2f per simulation second\n", "'"$rn"'", a / b, d / c}'
else
  status=$?
  [ $status -eq 2 ] || { cat "$out/rtl.log" >&2; echo "scripts/bench.sh: the controller.rtl=on run failed" >&2; exit 1; }
  echo "no controller.rtl=on run: $(tail -n 1 "$out/rtl.log")"
fi
echo "kernel rate: $(field "$out/$n/stats.json" kernel_activations_per_second) timed SC_METHOD activations per second (fastest of 10 rounds), $(field "$out/$n/stats.json" kernel_peq_events_per_second) peq_with_get events per second"
echo "trace file: $(du -h "$out/trace.vcd" | cut -f1) for channel 0; results in $out"
