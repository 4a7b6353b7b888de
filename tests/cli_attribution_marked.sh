#!/usr/bin/env bash
# cli_attribution_marked.sh SSDSIM DIR IDS ARGS...
# The latency parts of marked requests against their printed timelines and their VCD
# stages (report.request_timeline, trace.request): runs SSDSIM ARGS with both set to the
# comma-separated IDS, the per-request CSV on, and checks, for every marked request, that
# each group of parts equals the time between the two timeline rows that bound it, to the
# picosecond (docs/controller.md, "Latency attribution"), and that the VCD's stage of the
# request's critical page changes at the timeline's times.
set -u
ssdsim="$1"; dir="$2"; ids="$3"; shift 3
rm -rf "$dir"; mkdir -p "$dir"
"$ssdsim" "$@" --set report.request_timeline="$ids" --set trace.request="$ids" --set trace.scopes=ssd.request \
  --set trace.vcd="$dir/trace.vcd" --set report.requests_csv="$dir/requests.csv" --out "$dir" >"$dir/out.txt" 2>&1 \
  || { cat "$dir/out.txt"; echo "cli_attribution_marked: ssdsim failed" >&2; exit 1; }
exec python3 - "$dir" "$ids" "$(cd "$(dirname "$0")" && pwd)" <<'PY'
import csv, re, sys
d, ids = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
sys.path.insert(0, sys.argv[3])
import vcd_changes
ps = lambda s: int(round(float(s) * 1e6))  # us with 6 decimals -> ps, exact
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{d}/requests.csv"))}
# The timelines: per request, its rows (t, page or None, command, stage).
tl, cur = {}, None
for line in open(f"{d}/out.txt"):
    m = re.match(r"Request (\d+): ", line)
    if m:
        cur = tl.setdefault(int(m.group(1)), [])
        continue
    m = re.match(r"\s*(\d+\.\d{6})  (.*)$", line)
    if cur is None or not m:
        continue
    m2 = re.match(r"(.{16}) (\S+)\s+(\S+)\s+.*\s(block queue|bus|array|register|done)$", m.group(2))
    if m2:
        cur.append((ps(m.group(1)), int(m2.group(2)), m2.group(3), m2.group(4)))
    else:
        cur.append((ps(m.group(1)), None, None, m.group(2).strip()))
# The VCD: changes of ssd.request.rID.pK.stage.
changes = vcd_changes.changes(f"{d}/trace.vcd")
P = lambda r, *names: sum(ps(r[f"part_{n}_us"]) for n in names)
CONFLICT = ["conflict_host_read", "conflict_host_write", "conflict_gc_read", "conflict_gc_program", "conflict_erase"]
bad, checked = [], 0
for i in ids:
    r, rows_i = rows.get(i), tl.get(i)
    if r is None or not rows_i:
        bad.append(f"request {i}: not in the CSV or the timelines"); continue
    def expect(what, got, want):
        if got != want:
            bad.append(f"request {i} ({r['op']}): {what}: parts {got} ps, timeline {want} ps")
    sub, done = ps(r["submit_us"]), ps(r["complete_us"])
    host = [(t, s) for t, p, c, s in rows_i if p is None]
    t_disp = next(t for t, s in host if s == "host interface")
    t_fw = next(t for t, s in host if s == "firmware")
    expect("host_queue", P(r, "host_queue"), t_disp - sub)
    expect("ncq_wait + host_link_in", P(r, "ncq_wait", "host_link_in"), t_fw - t_disp)
    cmds = [x for x in rows_i if x[1] is not None and x[2] != "-"]
    if not cmds:  # answered without flash: nothing more the timeline bounds
        continue
    # The page whose command ended last, from its last entry to the block queue: a command
    # the block merged into another (controller.reschedule) shows the carrying command's
    # id from its grant, so the page's rows, not one id, are its life.
    crit_page = [x for x in cmds if x[3] == "done"][-1][1]
    mine = [x for x in cmds if x[1] == crit_page]
    first = max(k for k, x in enumerate(mine) if x[3] == "block queue")
    c = [(t, s) for t, p, cmd, s in mine[first:]]
    t_q = c[0][0]
    stages = [s for _, s in c]
    t_start = next(t for t, s in c if s == "bus")
    t_as = next(t for t, s in c if s == "array")
    t_done = next(t for t, s in c if s == "done")
    expect("firmware .. firmware_sched", P(r, "firmware_queue", "firmware_busy", "write_buffer", "rmw_read",
           "write_stall", "firmware_sched"), t_q - t_fw)
    if r["op"] == "READ":
        after = [t for t, s in c if t > t_as]
        t_ae = after[0]                            # register, or the data-out bus at once
        t_out = [t for t, s in c if s == "bus"][-1]
        expect("conflicts + block_queue + bus_wait + register_wait", P(r, *CONFLICT, "block_queue", "bus_wait",
               "register_wait"), (t_start - t_q) + (t_out - t_ae))
        expect("bus_command + bus_data", P(r, "bus_command", "bus_data"), (t_as - t_start) + (t_done - t_out))
        expect("array", P(r, "array"), t_ae - t_as)
    else:
        expect("conflicts + block_queue + bus_wait", P(r, *CONFLICT, "block_queue", "bus_wait"), t_start - t_q)
        expect("bus_command + bus_data + register_wait", P(r, "bus_command", "bus_data", "register_wait"),
               t_as - t_start)
        expect("array", P(r, "array"), t_done - t_as)
    expect("completion + host_link_out", P(r, "completion", "host_link_out"), done - t_done)
    # The VCD: the critical page's stage signal changes at the command's rows' times.
    page = crit_page
    v = changes.get(f"ssd.request.r{i}.p{page}.stage")
    if v is None:
        bad.append(f"request {i}: no VCD signal ssd.request.r{i}.p{page}.stage")
    else:
        vt = sorted({tt for tt, _ in v if t_q <= tt <= t_done})
        want = sorted({t for t, s in c})
        if not set(want) <= set(vt):
            bad.append(f"request {i}: VCD stage changes {vt} miss timeline times {want}")
    checked += 1
if bad:
    print("\n".join(bad[:20])); sys.exit(1)
print(f"cli_attribution_marked: {checked} marked requests: parts equal their timelines and VCD stages")
PY
