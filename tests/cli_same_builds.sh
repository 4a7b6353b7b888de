#!/usr/bin/env bash
# cli_same_builds.sh PLAIN ACCEL DIR "REGEX ACCEL" [ARGS...]: the same job run by the
# plain model (built with -DSSD_ACCEL=OFF) and by the build with accel/ must give the
# same results: stats.json apart from its "run" section, the per-request CSV and the
# VCD. The accel build's stats.json must match REGEX ACCEL (its mechanisms did work);
# the plain build's shows none of them at work.
set -eu
plain="$1"; accel="$2"; dir="$3"; ra="$4"; shift 4
rm -rf "$dir"; mkdir -p "$dir/plain" "$dir/accel"
for v in plain accel; do
  bin="$plain"; [ "$v" = accel ] && bin="$accel"
  "$bin" "$@" --set report.requests_csv="$dir/$v/requests.csv" --set trace.vcd="$dir/$v/run.vcd" \
    --out "$dir/$v" >/dev/null
done
strip() { sed '/"run": {/,$d' "$1"; }
diff <(strip "$dir/plain/stats.json") <(strip "$dir/accel/stats.json")
cmp "$dir/plain/requests.csv" "$dir/accel/requests.csv"
cmp "$dir/plain/run.vcd" "$dir/accel/run.vcd"
test "$(wc -l < "$dir/plain/requests.csv")" -gt 100
grep -Eq -- "$ra" "$dir/accel/stats.json" || { echo "accel build: stats.json does not match $ra"; exit 1; }
for k in lookahead_hints lookahead_thread_requests scheduler_decisions_ahead; do
  grep -Eq -- "\"$k\": 0,?\$" "$dir/plain/stats.json" || { echo "plain build: $k is not 0"; exit 1; }
done
echo "identical stats.json (run section aside), requests CSV and VCD from the plain and the accel build"
