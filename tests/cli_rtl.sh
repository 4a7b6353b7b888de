#!/usr/bin/env bash
# cli_rtl.sh SSDSIM ARGS...: runs a job with controller.rtl = off, on and check, and
# requires the same stats.json from all three apart from `run` (and, for on, the C++
# block's `reschedule` counts) (on: the verilated block
# issues; check: both blocks decide and are compared at every decision edge, which must
# be more than 0). Prints the decisions compared.
set -euo pipefail
ssdsim=$1; shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
for m in off on check; do
  "$ssdsim" "$@" --set controller.rtl=$m --out "$dir/$m" > "$dir/$m.log" 2>&1 || { echo "rtl=$m failed:"; cat "$dir/$m.log"; exit 1; }
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
s = {m: json.load(open(f"{d}/{m}/stats.json")) for m in ("off", "on", "check")}
compared = s["check"]["run"]["rtl_decisions_compared"]
for v in s.values():
    v.pop("run")
# With rtl = on the Verilog block decides and keeps no rescheduling counts: the C++
# block's section is left out there (check still compares it with off).
on = dict(s["off"])
on.pop("reschedule", None)
bad = [m for m, want in (("on", on), ("check", s["off"])) if s[m] != want]
if bad or compared == 0:
    print("different from off:", bad, "decisions compared:", compared)
    sys.exit(1)
print(f"rtl on and check give the C++ block's statistics; {compared} decisions compared")
PY
