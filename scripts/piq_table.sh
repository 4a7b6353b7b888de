#!/usr/bin/env bash
# The PIQ paper's comparison on a real trace (issue 4): msr_hm_0_excerpt.csv on the
# `piq` preset (8 x 8 chips, 2 KiB pages, 64-page blocks, host queue 64), filled with
# data first as in the paper (AGE=0; AGE=1 ages it to the steady state of random
# overwrites, so GC runs), replayed closed-loop at 64 outstanding, for the five host schedulers,
# once with the device's in-order scheduler (IOS) and once with HOS. Prints a Markdown
# table: mean read and write latency, chip utilization, conflict requests, mean wait in
# the host queue.
#   [AGE=1] bash scripts/piq_table.sh [TRACE] [FORMAT]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh"
ssdsim="${BUILD_DIR:-$root/build}/ssdsim"
trace="${1:-$root/../shared/traces/msr_hm_0_excerpt.csv}"
format="${2:-msr}"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$(mktemp -d)"
get() {  # get FILE SECTION KEY: the first "KEY": number after "SECTION": {
  awk -v s="\"$2\": {" -v k="\"$3\":" 'index($0, s) {f = 1} f && index($0, k) {gsub(/[,]/, "", $2); print $2; exit}' "$1"
}
echo "| device | host | read mean us | write mean us | chip utilization | read conflicts | write conflicts | read wait us | write wait us |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for dev in ios hos; do
  for s in noop rws piq_r piq_w piq; do
    d="$out/$dev-$s"
    "$ssdsim" --preset piq --set controller.scheduler=$dev --set host.scheduler=$s \
      --set workload.kind=trace --set workload.path="$trace" --set workload.format="$format" \
      --set workload.replay=closed --set workload.queue_depth=64 --set workload.requests=0 \
      --set ftl.precondition=1 --set ftl.precondition_age="${AGE:-0}" --out "$d" >/dev/null 2>"$d.log"
    f="$d/stats.json"
    printf '| %s | %s | %.1f | %.1f | %.2f | %s | %s | %.1f | %.1f |\n' "$dev" "$s" \
      "$(get "$f" latency_us mean)" "$(awk '/"write": \{/ {w=1} w && /"mean":/ {gsub(/,/,"",$2); print $2; exit}' "$f")" \
      "$(get "$f" nand chip_utilization)" "$(get "$f" host read_conflicts)" "$(get "$f" host write_conflicts)" \
      "$(get "$f" host read_wait_us)" "$(get "$f" host write_wait_us)"
    grep -q '"mismatches": 0' "$f" || { echo "data mismatch in $dev/$s" >&2; exit 1; }
  done
done
echo
echo "Every run: 0 data mismatches. Results in $out."
