#!/usr/bin/env bash
# cli_outputs_under_out.sh SSDSIM DIR: every file of a run under --out. A relative
# report.requests_csv and trace.vcd go inside --out (nothing in the current folder),
# config.json keeps them relative, the "wrote" line lists every file the run wrote, and
# `--check --out` refuses a folder the run could not make (exit 2, as the run). The
# binary prints no SystemC banner on its own.
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir/cwd"
cd "$dir/cwd"
fail=0
say() { echo "cli_outputs_under_out: $*" >&2; fail=1; }
env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE "$ssdsim" --set workload.requests=2000 --set report.requests_csv=req.csv \
  --set trace.vcd=t.vcd --set trace.request=100 --set report.interval_us=20000 --out run >../run.txt 2>&1 ||
  { cat ../run.txt; say "the run failed"; }
[ "$(ls -A .)" = run ] || say "the run wrote in the current folder: $(ls -A .)"
for f in stats.json config.json req.csv timeseries.csv t.vcd view.gtkw where.txt; do
  [ -s "run/$f" ] || say "run/$f missing"
done
rows=$(($(wc -l <run/timeseries.csv) - 1))
want="  wrote run/stats.json, run/config.json, run/req.csv, run/timeseries.csv ($rows rows), run/t.vcd, run/where.txt and run/view.gtkw"
grep -qxF "$want" ../run.txt || { grep wrote ../run.txt; say "expected the line: $want"; }
python3 - run/config.json <<'PY' || say "config.json does not keep the relative paths"
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not (c["report"]["requests_csv"] == "req.csv" and c["trace"]["vcd"] == "t.vcd"))
PY
grep -q "SystemC" ../run.txt && say "the run printed SystemC's banner"
env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE "$ssdsim" --help >../help.txt 2>&1
grep -q "Copyright\|SystemC 2" ../help.txt && { head -5 ../help.txt; say "--help printed SystemC's banner"; }
head -1 ../help.txt | grep -q "^usage: ssdsim" || say "--help does not start with its usage line"
# The folder a run could not make: --check says so as the run does.
for bad in /proc/ssdsim_x "$dir/cwd/../run.txt/sub"; do
  "$ssdsim" --check --out "$bad" >../check.txt 2>&1
  rc=$?
  [ "$rc" = 2 ] || { cat ../check.txt; say "--check --out $bad: exit $rc, expected 2"; }
  grep -q "^ssdsim: error: --out $bad: cannot create the directory" ../check.txt || { cat ../check.txt; say "--check --out $bad: no error naming it"; }
done
"$ssdsim" --check --out new/a/b >../check.txt 2>&1 || { cat ../check.txt; say "--check --out new/a/b refused"; }
[ ! -e new ] || say "--check left the folder it probed"
# Checks in parallel whose first missing folder is the same (a sweep's precheck) all pass.
for i in 1 2 3 4 5 6 7 8; do "$ssdsim" --check --out race/points/p$i >../race$i.txt 2>&1 & done
for i in 1 2 3 4 5 6 7 8; do wait -n || say "a parallel --check --out failed: $(cat ../race*.txt | grep error | head -1)"; done
[ ! -e race ] || say "the parallel checks left race/"
# Two outputs under one name, and a relative path that leaves --out: exit 2 (run and --check).
for extra in "" --check; do
  "$ssdsim" --set workload.requests=200 --set report.requests_csv=stats.json --out clash $extra >../clash.txt 2>&1
  rc=$?
  [ "$rc" = 2 ] && grep -q "report.requests_csv = clash/stats.json: --out clash writes clash/stats.json too" ../clash.txt ||
    { cat ../clash.txt; say "requests_csv=stats.json $extra: exit $rc, expected 2 naming both"; }
  "$ssdsim" --set workload.requests=200 --set trace.vcd=../up.vcd --out up/x $extra >../up.txt 2>&1
  rc=$?
  [ "$rc" = 2 ] && grep -q "may not leave it" ../up.txt || { cat ../up.txt; say "trace.vcd=../up.vcd $extra: exit $rc, expected 2"; }
done
[ ! -e up.vcd ] && [ ! -e up ] || say "a refused run wrote up.vcd or up/"
# --out DIR/ (a trailing slash): the same files and line.
"$ssdsim" --set workload.requests=2000 --set report.interval_us=20000 --out slash/ >../slash.txt 2>&1 || say "--out slash/ failed"
rows=$(($(wc -l <slash/timeseries.csv) - 1))
grep -qxF "  wrote slash/stats.json, slash/config.json and slash/timeseries.csv ($rows rows)" ../slash.txt ||
  { grep wrote ../slash.txt; say "--out slash/: the wrote line"; }
exit $fail
