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
exit $fail
