#!/usr/bin/env bash
# cli_soak.sh SSDSIM DIR MIN_GC_ERASES MIN_READS_CHECKED ARGS...
# Runs SSDSIM ARGS --set report.audit=true --out DIR and passes when it exits 0 and its
# stats.json shows GC ran at least MIN_GC_ERASES times, at least MIN_READS_CHECKED page
# reads were checked, and nothing was wrong: no read mismatch, no logical page lost or
# wrong in the end-of-run audit, no NAND protocol error, and the latency parts add up.
set -u
ssdsim="$1"; dir="$2"; min_erases="$3"; min_reads="$4"; shift 4
rm -rf "$dir"
# Soaks count the whole run (GC erases, reads checked): no warm-up left out.
out="$("$ssdsim" --set report.warmup=fixed "$@" --set report.audit=true --out "$dir" 2>&1)"; rc=$?
fail() { printf '%s\n' "$out"; echo "cli_soak: $*" >&2; exit 1; }
[ "$rc" -eq 0 ] || fail "exit $rc, expected 0"
key() {  # the number after "KEY": in stats.json (each key once, one per line)
  local v
  v=$(grep -E "^ *\"$1\": " "$dir/stats.json" | head -n 1 | sed -E 's/.*: ([0-9]+),?$/\1/')
  [[ "$v" =~ ^[0-9]+$ ]] || fail "stats.json has no integer \"$1\""
  printf '%s' "$v"
}
erases=$(key gc_erases); reads=$(key reads_checked); audited=$(key audited_pages)
[ "$erases" -ge "$min_erases" ] || fail "gc_erases $erases < $min_erases: GC did not run enough to soak it"
[ "$reads" -ge "$min_reads" ] || fail "reads_checked $reads < $min_reads"
[ "$audited" -gt 0 ] || fail "the audit read back no page"
# SOAK_AT_LEAST="KEY=N ...": each count at least N, so that the soak is known to have
# exercised what it is for (QSL moves, WHM's cancels, reads served from queued writes).
for kv in ${SOAK_AT_LEAST:-}; do
  [ "$(key "${kv%%=*}")" -ge "${kv#*=}" ] || fail "${kv%%=*} $(key "${kv%%=*}") < ${kv#*=}"
done
for k in mismatches audit_mismatches protocol_errors; do
  [ "$(key $k)" -eq 0 ] || fail "$k = $(key $k)"
done
# With a fault model: every page the firmware could not recover reached the host as an
# error (a media error, not data).
if grep -q '"host_pages_unrecovered"' "$dir/stats.json"; then
  [ "$(key host_pages_unrecovered)" -eq "$(key unrecovered_pages)" ] ||
    fail "host_pages_unrecovered $(key host_pages_unrecovered) != the host's unrecovered_pages $(key unrecovered_pages)"
fi
# The latency attribution: the host checked every request's parts against its latency
# (an internal error otherwise); the parts' means must add up to each op's mean latency.
python3 - "$dir/stats.json" <<'PY' || fail "the latency parts do not add up to the mean latencies"
import json, sys
s = json.load(open(sys.argv[1]))
for op in ("read", "write", "all"):
    if s[op]["count"] == 0:
        continue
    parts = s[op]["latency_parts"]
    total = sum(p["mean_us"] for p in parts.values())
    mean = s[op]["latency_us"]["mean"]
    assert abs(total - mean) <= 1e-6 * max(1.0, mean), (op, total, mean)
    assert abs(sum(p["share"] for p in parts.values()) - 1) < 1e-9, op
PY
echo "cli_soak: $erases GC erases, $reads page reads checked, $audited logical pages audited, 0 mismatches"
