#!/usr/bin/env bash
# cli_same_results.sh SSDSIM DIR "ARGS A" "ARGS B" "REGEX A" "REGEX B" [COMMON ARGS...]:
# two runs that must give the same results (stats.json apart from its "run" section, the
# per-request CSV and the VCD), e.g. with an optimisation on and off; each run's
# stats.json must match its regex (what the runs are to differ in, in the run section).
set -eu
ssdsim="$1"; dir="$2"; a="$3"; b="$4"; ra="$5"; rb="$6"; shift 6
rm -rf "$dir"; mkdir -p "$dir/a" "$dir/b"
for v in a b; do
  args="$a"; [ "$v" = b ] && args="$b"
  # shellcheck disable=SC2086
  "$ssdsim" "$@" $args --set report.requests_csv="$dir/$v/requests.csv" --set trace.vcd="$dir/$v/run.vcd" \
    --out "$dir/$v" >/dev/null
done
strip() { sed '/"run": {/,$d' "$1"; }
diff <(strip "$dir/a/stats.json") <(strip "$dir/b/stats.json")
cmp "$dir/a/requests.csv" "$dir/b/requests.csv"
cmp "$dir/a/run.vcd" "$dir/b/run.vcd"
test "$(wc -l < "$dir/a/requests.csv")" -gt 100
grep -Eq -- "$ra" "$dir/a/stats.json" || { echo "run a: stats.json does not match $ra"; exit 1; }
grep -Eq -- "$rb" "$dir/b/stats.json" || { echo "run b: stats.json does not match $rb"; exit 1; }
echo "identical stats.json (run section aside), requests CSV and VCD"
