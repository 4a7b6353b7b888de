#!/usr/bin/env bash
# The speed benchmark (issue 5): the reference job of the `bench` preset (MQSim's
# default device scaled to 1 TiB raw, all of it preconditioned, random 4 KiB requests,
# 70 % reads, QD 32, seed 798) at several request counts, in one go, printing for each:
# requests per wall second over the whole process (elaboration and preconditioning
# included), the simulation alone, peak memory, the model's own process activations
# per request, and the cost in kernel activations per request (the kernel's rate for a
# timed SC_METHOD notify loop is measured in the same process, after the workload), and
# whether the lookahead thread ran (host.lookahead_thread=auto decides per run).
# Each count runs BENCH_REPEAT times (default 3; results are identical, only the
# timing differs): the row is the run of median wall time, and the last column the
# range of kern/req over the runs. Then the cost of tracing: the smallest count again
# with a VCD of channel 0 (once). Then the second count with the Verilog scheduler block
# (controller.rtl=on, once) and its speed as a fraction of the C++ block's.
# Last, the load-proof figure: instructions per request of the bench job and of the
# equal-work job (the bench job on a device written once, not aged:
# ftl.precondition_age=0) at two request counts, and the marginal instructions per
# request between them, beside each run's wall time and peak memory. Instructions are
# counted by the CPU's counters where perf has them, else by valgrind's callgrind
# (installed if missing; a few minutes per million requests). The counted runs set
# host.lookahead_thread=false: a thread that computes ahead only moves work between
# cores, and its share depends on the machine's load.
#   bash scripts/bench.sh [COUNT...]      (default: 100000 1000000 2000000)
#   BENCH_REPEAT=1 bash scripts/bench.sh  (one run per count)
#   BENCH_INSTR_COUNTS="100000 1000000"   (the two counts of the instruction figure)
#   BENCH_INSTR=only bash scripts/bench.sh  (the instruction figure alone; =0: without it)
#   BENCH_BASE=HEAD~1 bash scripts/bench.sh (also builds that revision in a worktree,
#                                          counts its instructions and prints the ratios,
#                                          and whether its results are the same)
#   BENCH_BIN=PATH, BENCH_BASE_BIN=PATH     (binaries built elsewhere, instead of building
#                                          this tree and BENCH_BASE: builds of one type
#                                          compare, e.g. two RelWithDebInfo builds)
# Last, the cost table per feature: for each job of the table below, its marginal
# instructions per request between two request counts (BENCH_COST_COUNTS, default
# "20000 100000"; counted as above), its ratio to the default job's (x: the job each
# feature is added to; none for the equal-work and sos jobs, which have devices and
# workloads of their own), and the model's process activations per request (marginal too); with
# BENCH_BASE the same from that revision (a job whose keys it does not know: "-"), the
# ratio, and whether the results are identical (stats.json apart from "run", at the
# larger count). About half an hour a build under callgrind.
#   BENCH_COSTS=only bash scripts/bench.sh  (the cost table alone; =0: without it)
#   BENCH_COST_JOBS="default faults"        (some of its jobs: default equal rtl sos
#                                          reschedule faults suspend powercut nvme)
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
instr="${BENCH_INSTR:-1}"
case "$instr" in
  0|1|only) ;;
  *) echo "scripts/bench.sh: BENCH_INSTR must be 0, 1 or only, not '$instr'" >&2; exit 2 ;;
esac
costs="${BENCH_COSTS:-1}"
case "$costs" in
  0|1|only) ;;
  *) echo "scripts/bench.sh: BENCH_COSTS must be 0, 1 or only, not '$costs'" >&2; exit 2 ;;
esac
if [ "$costs" = only ] && [ "$instr" = only ]; then
  echo "scripts/bench.sh: BENCH_INSTR=only and BENCH_COSTS=only ask for two different runs: give one" >&2
  exit 2
fi
timed=1
[ "$costs" != only ] || { instr=0; timed=0; }
[ "$instr" != only ] || { costs=0; timed=0; }
two_counts() {  # two_counts NAME DEFAULT: the two request counts variable NAME gives (DEFAULT if unset)
  local c
  read -r -a c <<< "${!1:-$2}"
  if [ ${#c[@]} -ne 2 ] || ! [[ "${c[0]}" =~ ^[1-9][0-9]*$ && "${c[1]}" =~ ^[1-9][0-9]*$ ]] || [ "${c[0]}" -ge "${c[1]}" ]; then
    echo "scripts/bench.sh: $1 must be two whole numbers, the first smaller, not '${!1:-}'" >&2
    exit 2
  fi
  echo "${c[*]}"
}
counts_given="$(two_counts BENCH_INSTR_COUNTS "100000 1000000")"
read -r -a icounts <<< "$counts_given"
counts_given="$(two_counts BENCH_COST_COUNTS "20000 100000")"
read -r -a ccounts <<< "$counts_given"
all_cost_jobs=(default equal rtl sos reschedule faults suspend powercut nvme)
read -r -a cost_jobs <<< "${BENCH_COST_JOBS:-${all_cost_jobs[*]}}"
for j in "${cost_jobs[@]}"; do
  [[ " ${all_cost_jobs[*]} " == *" $j "* ]] ||
    { echo "scripts/bench.sh: BENCH_COST_JOBS: '$j' is none of: ${all_cost_jobs[*]}" >&2; exit 2; }
done
base="${BENCH_BASE:-}"
if [ -n "$base" ] && ! git -C "$root" rev-parse --verify -q "$base^{commit}" >/dev/null; then
  echo "scripts/bench.sh: BENCH_BASE names no commit: '$base'" >&2
  exit 2
fi
if [ -n "${BENCH_BIN:-}" ]; then  # a binary built elsewhere: no build
  [ -x "$BENCH_BIN" ] || { echo "scripts/bench.sh: BENCH_BIN is not an executable: '$BENCH_BIN'" >&2; exit 2; }
  ssdsim="$BENCH_BIN"
else
  bash "$root/scripts/build.sh"
  ssdsim="${BUILD_DIR:-$root/build}/ssdsim"
fi
base_bin="${BENCH_BASE_BIN:-}"
if [ -n "$base_bin" ]; then
  [ -x "$base_bin" ] || { echo "scripts/bench.sh: BENCH_BASE_BIN is not an executable: '$base_bin'" >&2; exit 2; }
  [ -n "$base" ] || base="$base_bin"
fi
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$(mktemp -d)"

field() {  # field FILE KEY: the first number after "KEY":
  sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1" | head -n 1
}
row() {  # row LABEL DIR [RANGE]
  local s="$2/stats.json"
  printf '%-22s %9s %10.0f %10.0f %9.2f %9.2f %9.0f %8.1f %9.1f %9.1f %5s %6s %s\n' "$1" \
    "$(field "$s" count | head -n1)" \
    "$(field "$s" host_requests_per_wall_second)" \
    "$(awk -v n="$(sed -n 's/.*"count": \([0-9]*\).*/\1/p' "$s" | sed -n 3p)" -v t="$(field "$s" simulation_seconds)" 'BEGIN{printf "%.0f", n/t}')" \
    "$(field "$s" wall_seconds)" "$(field "$s" precondition_seconds)" "$(field "$s" peak_rss_mb)" \
    "$(field "$s" process_activations_per_request)" \
    "$(field "$s" kernel_activations_per_request)" \
    "$(field "$s" kernel_activations_per_request_simulation)" \
    "$(field "$s" mismatches)" "$(sed -n 's/.*"lookahead_thread": \(true\|false\).*/\1/p' "$s" | head -n 1)" "${3:-}"
}
if [ "$timed" = 1 ]; then
printf '%-22s %9s %10s %10s %9s %9s %9s %8s %9s %9s %5s %6s %s\n' run "reads" "req/s" "req/s sim" "wall s" "precond s" "peak MB" "proc/req" "kern/req" "kern/sim" "mism" "thread" "kern/req range"
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
fi

[ "$instr" != 0 ] || [ "$costs" != 0 ] || exit 0
# ---- instructions per request ----
counter=""
probe="$(perf stat -x, -e instructions:u true 2>&1 >/dev/null || true)"
if command -v perf >/dev/null && [[ "$probe" =~ ^[0-9] ]]; then
  counter=perf
else
  if ! command -v valgrind >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "scripts/bench.sh: no instruction counters here; installing valgrind for callgrind" >&2
    $sudo apt-get install -y -qq --no-install-recommends valgrind >&2 ||
      { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends valgrind >&2; }
  fi
  counter=callgrind
fi
instructions() {  # instructions BINARY DIR ARGS...: runs the job counted; prints its instructions
  local bin="$1" dir="$2" n
  shift 2
  if [ "$counter" = perf ]; then
    perf stat -x, -e instructions:u -o "$dir.count" "$bin" "$@" --out "$dir" >/dev/null 2>"$dir.log" ||
      { cat "$dir.log" >&2; echo "scripts/bench.sh: the counted run failed" >&2; exit 1; }
    # One line per core type on a hybrid CPU (cpu_core/instructions:u/, cpu_atom/...).
    n="$(awk -F, '$3 ~ /instructions/ && $1 ~ /^[0-9]+$/ {s += $1; k = 1} END {if (k) printf "%.0f", s}' "$dir.count")"
  else
    valgrind --tool=callgrind --callgrind-out-file="$dir.callgrind" "$bin" "$@" --out "$dir" >/dev/null 2>"$dir.log" ||
      { cat "$dir.log" >&2; echo "scripts/bench.sh: the counted run failed" >&2; exit 1; }
    n="$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$dir.callgrind")"
  fi
  [ -n "$n" ] || { echo "scripts/bench.sh: no instruction count for $dir ($counter)" >&2; exit 1; }
  echo "$n"
}
# The jobs: the bench job, and the equal-work job (the device written once, not aged).
jobs=(bench equal)
job_args() {
  case "$1" in
    bench) echo "--preset bench" ;;
    equal) echo "--preset bench --set ftl.precondition_age=0" ;;
  esac
}
# The start pilot (ftl.precondition_free = auto) runs once per job, apart: the runs
# start where it puts the planes, without forking it again (a revision without
# --resolve-start has no pilot).
start_of() {  # start_of BINARY ARGS: the job's resolved start, as a KEY=VALUE, or nothing
  # shellcheck disable=SC2086
  "$1" $2 --resolve-start 2>/dev/null || true
}
counted() {  # counted BINARY PREFIX START ARGS N...: a counted run per count, its instructions in PREFIX.N.instructions
  local bin="$1" prefix="$2" start="$3" args="$4" n
  shift 4
  for n in "$@"; do
    # shellcheck disable=SC2086
    instructions "$bin" "$prefix.$n" $args ${start:+--set "$start"} --set workload.requests="$n" \
      --set host.lookahead_thread=false > "$prefix.$n.instructions"
  done
}
marginal() {  # marginal PREFIX N1 N2: instructions per request from N1 to N2
  awk -v a="$(cat "$1.$2.instructions")" -v b="$(cat "$1.$3.instructions")" -v x="$2" -v y="$3" \
    'BEGIN {printf "%.0f", (b - a) / (y - x)}'
}
measure() {  # measure BINARY TAG: for each job and count, a timed run and a counted one
  local bin="$1" tag="$2" j n start
  for j in "${jobs[@]}"; do
    start="$(start_of "$bin" "$(job_args "$j")")"
    for n in "${icounts[@]}"; do
      # shellcheck disable=SC2046
      "$bin" $(job_args "$j") ${start:+--set "$start"} --set workload.requests="$n" --set host.lookahead_thread=false \
        --out "$out/$tag.$j.$n.timed" >/dev/null 2>"$out/$tag.$j.$n.timed.log" ||
        { cat "$out/$tag.$j.$n.timed.log" >&2; echo "scripts/bench.sh: the run of $j at $n failed" >&2; exit 1; }
    done
    counted "$bin" "$out/$tag.$j" "$start" "$(job_args "$j")" "${icounts[@]}"
  done
}
irow() {  # irow TAG JOB
  local tag="$1" j="$2" n1="${icounts[0]}" n2="${icounts[1]}"
  for n in "$n1" "$n2"; do
    awk -v tag="$tag" -v j="$j" -v n="$n" -v i="$(cat "$out/$tag.$j.$n.instructions")" \
        -v w="$(field "$out/$tag.$j.$n.timed/stats.json" wall_seconds)" \
        -v m="$(field "$out/$tag.$j.$n.timed/stats.json" peak_rss_mb)" \
        -v marg="$(marginal "$out/$tag.$j" "$n1" "$n2")" \
        -v last="$([ "$n" = "$n2" ] && echo 1 || echo 0)" \
        'BEGIN {printf "%-8s %-6s %9d %9.2f %9.0f %12.3f %10.0f %12s\n", tag, j, n, w, m, i / 1e9, i / n, last ? marg : "-"}'
  done
}
same_results() {  # same_results DIR1 DIR2: stats.json apart from "run"
  python3 - "$1/stats.json" "$2/stats.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for s in (a, b):
    s.pop("run", None)
print("identical" if a == b else "DIFFERENT")
PY
}
build_base() {  # builds BENCH_BASE in a worktree, once; its binary in $base_bin
  [ -z "${base_bin:-}" ] || return 0
  # A worktree of that revision, kept for the next run (its build then has nothing to do).
  wt="$root/build-base/src"
  want="$(git -C "$root" rev-parse "$base^{commit}")"
  if [ ! -f "$wt/.git" ] || [ "$(git -C "$wt" rev-parse HEAD 2>/dev/null || true)" != "$want" ]; then
    rm -rf "$wt"
    git -C "$root" worktree prune
    git -C "$root" worktree add -f --detach "$wt" "$want" >/dev/null ||
      { echo "scripts/bench.sh: could not make a worktree of $base in $wt" >&2; exit 1; }
  fi
  ln -sfn "$root/../shared" "$root/build-base/shared" 2>/dev/null || true
  BUILD_DIR="$root/build-base/build" bash "$wt/scripts/build.sh"
  base_bin="$root/build-base/build/ssdsim"
}
if [ "$instr" != 0 ]; then
echo
echo "instructions ($counter; host.lookahead_thread=false), marginal = per request from ${icounts[0]} to ${icounts[1]} requests:"
measure "$ssdsim" this
if [ -n "$base" ]; then
  build_base
  measure "$base_bin" base
fi
printf '%-8s %-6s %9s %9s %9s %12s %10s %12s\n' build job requests "wall s" "peak MiB" "instr (G)" "instr/req" "marginal"
for j in "${jobs[@]}"; do
  irow this "$j"
  [ -z "$base" ] || irow base "$j"
done
if [ -n "$base" ]; then
  for j in "${jobs[@]}"; do
    n1="${icounts[0]}" n2="${icounts[1]}"
    awk -v j="$j" -v a1="$(cat "$out/this.$j.$n1.instructions")" -v a2="$(cat "$out/this.$j.$n2.instructions")" \
        -v b1="$(cat "$out/base.$j.$n1.instructions")" -v b2="$(cat "$out/base.$j.$n2.instructions")" \
        -v same="$(same_results "$out/this.$j.$n2.timed" "$out/base.$j.$n2.timed")" -v rev="$base" \
        'BEGIN {printf "%s job, this build / %s: %.3f of the instructions at %d requests, %.3f of the marginal; results %s\n", j, rev, a2 / b2, '"$n2"', (a2 - a1) / (b2 - b1), same}'
  done
fi
fi

# ---- the cost table per feature ----
if [ "$costs" != 0 ]; then
# Each job: its arguments, and the job it adds its feature to (its "x" column).
faults_args="--set nand.fault.rber_new=1e-4 --set nand.fault.rber_eol=6e-3 --set nand.fault.rber_sigma=0.5"
faults_args+=" --set nand.fault.wear_cycles=1500 --set nand.fault.program_fail_new=1e-4 --set nand.fault.erase_fail_new=1e-3"
cost_args() {
  case "$1" in
    default) echo "" ;;
    equal) job_args equal ;;
    rtl) echo "--set controller.rtl=on" ;;
    sos) echo "--preset sos" ;;
    reschedule) echo "--set controller.reschedule=both" ;;
    faults) echo "$faults_args" ;;
    suspend) echo "--set controller.suspend=both" ;;
    powercut) echo "--set power.cuts=4" ;;
    nvme) echo "--set host.interface=nvme" ;;
  esac
}
cost_label() {
  case "$1" in
    default) echo "default" ;;
    equal) echo "equal-work" ;;
    rtl) echo "rtl=on" ;;
    reschedule) echo "reschedule=both" ;;
    powercut) echo "power cuts" ;;
    *) echo "$1" ;;
  esac
}
cost_of() {  # the job a job's feature is added to (sos: none, its preset is the paper's device and workload)
  case "$1" in
    default|equal|sos) echo "" ;;
    *) echo default ;;
  esac
}
cost_measure() {  # cost_measure BINARY TAG JOB: counted runs at both counts; "skip" when the build refuses the job
  local bin="$1" tag="$2" j="$3" status=0
  # shellcheck disable=SC2046
  "$bin" $(cost_args "$j") --check >/dev/null 2>"$out/c.$tag.$j.check" || status=$?
  if [ "$status" -eq 2 ]; then  # a configuration this build does not know (an older revision)
    echo skip > "$out/c.$tag.$j.state"
    echo "$tag build refuses the $(cost_label "$j") job: $(tail -n 1 "$out/c.$tag.$j.check")" >&2
    return 0
  elif [ "$status" -ne 0 ]; then
    cat "$out/c.$tag.$j.check" >&2
    echo "scripts/bench.sh: the $tag build's check of the $(cost_label "$j") job failed (exit $status)" >&2
    exit 1
  fi
  counted "$bin" "$out/c.$tag.$j" "$(start_of "$bin" "$(cost_args "$j")")" "$(cost_args "$j")" "${ccounts[@]}"
  echo ok > "$out/c.$tag.$j.state"
}
cost_marginal() {  # cost_marginal TAG JOB: marginal instructions per request, or "-"
  local tag="$1" j="$2"
  if [ "$(cat "$out/c.$tag.$j.state" 2>/dev/null)" != ok ]; then echo "-"; return; fi
  marginal "$out/c.$tag.$j" "${ccounts[0]}" "${ccounts[1]}"
}
cost_acts() {  # cost_acts TAG JOB: the marginal process activations per request, as the instructions
  local tag="$1" j="$2" n1="${ccounts[0]}" n2="${ccounts[1]}"
  if [ "$(cat "$out/c.$tag.$j.state" 2>/dev/null)" != ok ]; then echo "-"; return; fi
  awk -v a="$(field "$out/c.$tag.$j.$n1/stats.json" process_activations_per_request)" \
      -v b="$(field "$out/c.$tag.$j.$n2/stats.json" process_activations_per_request)" \
      -v x="$n1" -v y="$n2" 'BEGIN {printf "%.2f", (b * y - a * x) / (y - x)}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b}'; }
echo
echo "cost per feature ($counter; host.lookahead_thread=false), instructions per request = the marginal from" \
  "${ccounts[0]} to ${ccounts[1]} requests; x = over the default job; acts = process activations per request (marginal too):"
for j in "${cost_jobs[@]}"; do cost_measure "$ssdsim" this "$j"; done
if [ -n "$base" ]; then
  build_base
  for j in "${cost_jobs[@]}"; do cost_measure "$base_bin" base "$j"; done
  printf '%-16s %10s %7s %6s %12s %8s %10s %s\n' job "instr/req" x acts "base instr" "this/base" "base acts" results
else
  printf '%-16s %10s %7s %6s\n' job "instr/req" x acts
fi
for j in "${cost_jobs[@]}"; do
  m="$(cost_marginal this "$j")"
  of="$(cost_of "$j")"
  x="-"
  [ -z "$of" ] || x="$(ratio "$m" "$(cost_marginal this "$of")")"
  if [ -n "$base" ]; then
    bm="$(cost_marginal base "$j")"
    same="-"
    if [ "$bm" != "-" ] && [ "$m" != "-" ]; then same="$(same_results "$out/c.this.$j.${ccounts[1]}" "$out/c.base.$j.${ccounts[1]}")"; fi
    printf '%-16s %10s %7s %6s %12s %8s %10s %s\n' "$(cost_label "$j")" "$m" "$x" "$(cost_acts this "$j")" "$bm" \
      "$(ratio "$m" "$bm")" "$(cost_acts base "$j")" "$same"
  else
    printf '%-16s %10s %7s %6s\n' "$(cost_label "$j")" "$m" "$x" "$(cost_acts this "$j")"
  fi
done
# The floor (docs/performance.md): the kernel's cost of a timed activation times the
# activations a request needs at least in this model's shape (3: its firmware work's
# end, its array operation's end and its transfer's end are instants of their own).
if kc="$(bash "$root/scripts/kernel_cost.sh" 2>"$out/kernel_cost.log")"; then
  eq="$(cost_acts this equal 2>/dev/null || echo -)"
  awk -v k="$kc" -v a="$eq" -v m="$(cost_marginal this equal 2>/dev/null || echo -)" 'BEGIN {
    printf "the floor: %d instructions per timed activation (scripts/kernel_cost.sh) x 3 activations per request = %d", k, 3 * k
    if (a != "-" && a != "" && m != "-" && m != "") printf "; the equal-work job: %.2f model process activations per request (the kernel runs others besides), %d instructions at that cost, of its %d", a, a * k, m
    printf "\n" }'
else
  echo "the floor: no kernel cost ($(tail -n 1 "$out/kernel_cost.log"))"
fi
fi
echo "results in $out"
