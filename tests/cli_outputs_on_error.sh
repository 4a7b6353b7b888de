#!/usr/bin/env bash
# cli_outputs_on_error.sh SSDSIM DIR: a run stopped by bad input mid-stream leaves no
# result file that looks finished (stats.json, config.json, the request CSV,
# timeseries.csv), and no partial one; a completed run leaves all of them; --check
# writes none.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(300):
        f.write(f'{i * 1000} 0 {i * 8} 8 {i % 2}\n')
    f.write('301000 0 8 8 7\n')  # type 7: bad input at line 301, after 300 good requests
" "$dir/bad.mq"
head -300 "$dir/bad.mq" > "$dir/good.mq"
args=(--set workload.kind=trace --set workload.format=mqsim --set workload.replay=closed --set workload.queue_depth=4
      --set report.interval_us=100)
fail=0
"$ssdsim" "${args[@]}" --set workload.path="$dir/bad.mq" --set report.requests_csv="$dir/bad/requests.csv" \
  --out "$dir/bad" >"$dir/bad.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || { cat "$dir/bad.txt"; echo "cli_outputs_on_error: exit $rc, expected 2" >&2; fail=1; }
grep -q "bad.mq:301: field 'type'" "$dir/bad.txt" || { cat "$dir/bad.txt"; fail=1; }
left=$(ls "$dir/bad")
[ -z "$left" ] || { echo "cli_outputs_on_error: a stopped run left: $left" >&2; fail=1; }
"$ssdsim" "${args[@]}" --set workload.path="$dir/good.mq" --set report.requests_csv="$dir/good/requests.csv" \
  --out "$dir/good" >"$dir/good.txt" 2>&1 || { cat "$dir/good.txt"; fail=1; }
for f in stats.json config.json requests.csv timeseries.csv; do
  [ -s "$dir/good/$f" ] || { echo "cli_outputs_on_error: a completed run has no $f" >&2; fail=1; }
done
[ "$(wc -l < "$dir/good/requests.csv")" = 301 ] || { echo "cli_outputs_on_error: requests.csv is not whole" >&2; fail=1; }
ls "$dir/good" | grep -q partial && { echo "cli_outputs_on_error: a completed run left a .partial file" >&2; fail=1; }
# --check runs nothing and writes nothing: no --out folder, no VCD, no CSV.
"$ssdsim" "${args[@]}" --set workload.path="$dir/good.mq" --set report.requests_csv="$dir/chk/requests.csv" \
  --set trace.vcd="$dir/chk.vcd" --check --out "$dir/chk" >"$dir/chk.txt" 2>&1 || { cat "$dir/chk.txt"; fail=1; }
grep -q "the configuration is valid (300 requests read)" "$dir/chk.txt" || { cat "$dir/chk.txt"; fail=1; }
[ -e "$dir/chk" ] || [ -e "$dir/chk.vcd" ] && { echo "cli_outputs_on_error: --check wrote files" >&2; fail=1; }
[ "$fail" = 0 ] && echo "cli_outputs_on_error: ok"
exit "$fail"
