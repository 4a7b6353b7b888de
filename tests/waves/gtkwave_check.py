#!/usr/bin/env python3
"""A traced run opened in GTKWave as a person would, headless (Xvfb), checked through
GTKWave's Tcl interface.

usage: gtkwave_check.py SSDSIM WORKDIR REQUEST [ARGS...]

Runs `ssdsim ARGS` from WORKDIR (not the repository) with a VCD, request REQUEST
traced and its timeline printed, and --out WORKDIR/run. Then opens WORKDIR/run/view.gtkw
alone (it names its dump file) in GTKWave under xvfb-run and checks:
  - GTKWave opened every translate filter (none "Could not open filter file");
  - every signal row of the view is a trace GTKWave shows, in the view's order;
  - every signal with an enum filter shows, at every time of the request's timeline,
    a name from its filter, never a raw number;
  - the request's stage and each page's stage, read from GTKWave at each time of the
    timeline, are what the timeline table printed by the run says.
Exit status 0 when all hold; the first failures are printed.
"""
import os
import re
import subprocess
import sys

# Filters whose values may show as plain numbers (ids, chip numbers): all others are
# enums, every value named.
NUMERIC_FILTERS = ("id.txt", "bus_chip.txt")


def fail(msg):
    print("gtkwave_check: " + msg)
    sys.exit(1)


def run_model(ssdsim, work, request, args):
    out = os.path.join(work, "run")
    cmd = [ssdsim, *args, "--set", "trace.vcd=" + os.path.join(out, "trace.vcd"),
           "--set", "trace.request=%d" % request, "--set", "report.request_timeline=%d" % request,
           "--out", out]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail("ssdsim exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    return out, p.stdout


def timeline(stdout, request):
    """[(ps, request_stage, page, command_stage, command, where)] from the printed table
    (page and the rest None on a row of the request's own), whose
    columns have fixed widths (sc_main/request_watch.cpp)."""
    rows, inside = [], False
    for line in stdout.splitlines():
        if line.startswith("Request %d:" % request):
            inside = True
            continue
        if not inside or "time (us)" in line:
            continue
        if not re.match(r"\s*\d+\.\d{6}  ", line):
            break
        ps = int(round(float(line[0:14]) * 1e6))
        stage = line[16:32].strip()
        if len(line) <= 33:
            rows.append((ps, stage, None, None, None, None))
        else:
            cmd = line[39:47].strip()
            rows.append((ps, stage, int(line[33:38]), line[86:].strip(), None if cmd == "-" else cmd,
                         line[62:85].strip()))
    if not rows:
        fail("the run printed no timeline for request %d" % request)
    return rows


def view_rows(view):
    """[(alias, filter path or None, signal name)] for each signal row of a .gtkw file."""
    rows, pending = [], None
    with open(view) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("^"):
                pending = line.split(" ", 1)[1]
            elif line.startswith("@"):
                pending = None if not int(line[1:], 16) & 0x2000 else pending
            elif line.startswith("+{"):
                alias = line[2:line.index("}")]
                rows.append((alias, pending, line[line.index("}") + 2:].split("[")[0]))
                pending = None
    return rows


def filter_names(path):
    names = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            value, name = line.rstrip("\n").split(" ", 1)
            names[value] = name
    return names


def main():
    if len(sys.argv) < 4:
        fail(__doc__)
    ssdsim, work, request, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    out, stdout = run_model(os.path.abspath(ssdsim), work, request, args)
    rows = timeline(stdout, request)
    view = os.path.join(out, "view.gtkw")
    signals = view_rows(view)
    for alias, flt, _ in signals:
        if flt and not (os.path.isabs(flt) and os.path.isfile(flt)):
            fail("%s: filter of '%s' is not an absolute path to a file: %s" % (view, alias, flt))
    times = sorted({t for t, *_ in rows})
    result = os.path.join(work, "gtkwave.out")
    tcl = os.path.join(work, "check.tcl")
    with open(tcl, "w") as f:
        f.write("set f [open {%s} w]\n" % result)
        f.write("set n [gtkwave::getTotalNumTraces]\n")
        f.write("for {set i 0} {$i < $n} {incr i} {\n"
                "  puts $f \"trace $i [gtkwave::getTraceFlagsFromIndex $i] [gtkwave::getTraceNameFromIndex $i]\"\n}\n")
        # Hidden traces (in a collapsed group) have no value at the marker: open the
        # collapsed groups, as a person would, before reading values.
        f.write("for {set i 0} {$i < $n} {incr i} {\n"
                "  set fl [gtkwave::getTraceFlagsFromIndex $i]\n"
                "  if {($fl & 0x800000) && ($fl & 0x400000)} {\n"
                "    gtkwave::/Edit/UnHighlight_All\n"
                "    gtkwave::setTraceHighlightFromIndex $i on\n"
                "    gtkwave::/Edit/Toggle_Group_Open|Close\n  }\n}\n"
                "gtkwave::/Edit/UnHighlight_All\n")
        for t in times:
            f.write("gtkwave::setMarker %d\n" % t)
            f.write("for {set i 0} {$i < $n} {incr i} {\n"
                    "  puts $f \"value %d $i [gtkwave::getTraceValueAtMarkerFromIndex $i]\"\n}\n" % t)
        f.write("close $f\ngtkwave::/File/Quit\n")
    p = subprocess.run(["xvfb-run", "-a", "gtkwave", "-S", tcl, view], cwd=work, capture_output=True, text=True,
                       timeout=600)
    log = p.stdout + p.stderr
    if "Could not open filter file" in log:
        fail("GTKWave could not open a filter file:\n" + log[-2000:])
    if not os.path.exists(result):
        fail("GTKWave wrote no result (exit %d):\n%s" % (p.returncode, log[-2000:]))
    traces, values = [], {}
    with open(result) as f:
        for line in f:
            kind, rest = line.rstrip("\n").split(" ", 1)
            if kind == "trace":
                i, flags, name = rest.split(" ", 2)
                traces.append((int(flags), name))
            else:
                t, i, *v = rest.split(" ", 2)
                values[(int(t), int(i))] = v[0] if v else ""
    shown = [(i, name) for i, (flags, name) in enumerate(traces) if not flags & 0x200]
    if [n for _, n in shown] != [a for a, _, _ in signals]:
        missing = [a for a, _, _ in signals if a not in {n for _, n in shown}]
        fail("GTKWave shows %d signal traces, the view names %d; missing: %s" % (len(shown), len(signals),
                                                                                  missing[:10]))
    problems = []
    names_of = {}
    for (i, alias), (_, flt, _) in zip(shown, signals):
        if not flt or os.path.basename(flt) in NUMERIC_FILTERS:
            continue
        names = names_of.setdefault(flt, set(filter_names(flt).values()))
        for t in times:
            v = values.get((t, i))
            if v not in names:
                problems.append("%s at %d ps shows '%s', not a name of %s" % (alias, t, v, os.path.basename(flt)))
    index = {name: i for i, name in shown}  # aliases of the request's group are unique
    by_signal = {sig: i for (i, _), (_, _, sig) in zip(shown, signals)}
    expect = {}
    for t, stage, page, cstage, cmd, where in rows:  # the last row at a time is the state then
        expect[(t, index.get("stage"))] = (stage, "stage")
        if page is None:
            continue
        expect[(t, index.get("page %d stage" % page))] = (cstage, "page %d stage" % page)
        # Whose work the NAND shows: the die during the command's array operation, the
        # channel's bus during its bus phases.
        m = re.match(r"ch(\d+)\.chip(\d+)\.die(\d+)\.", where or "")
        if not m or not cmd:
            continue
        ch, chip, die = m.groups()
        if cstage == "array":
            scope = "ssd.nand.ch%s.chip%s.die%s." % (ch, chip, die)
            expect[(t, by_signal.get(scope + "cmd"))] = (cmd, scope + "cmd")
            expect[(t, by_signal.get(scope + "request"))] = (str(request), scope + "request")
        elif cstage == "bus":
            scope = "ssd.nand.ch%s.bus_" % ch
            expect[(t, by_signal.get(scope + "cmd"))] = (cmd, scope + "cmd")
            expect[(t, by_signal.get(scope + "request"))] = (str(request), scope + "request")
    checked = 0
    for (t, i), (want, what) in sorted(expect.items(), key=lambda kv: (kv[0][0], kv[1][1])):
        if i is None:
            if what.startswith("ssd."):
                problems.append("%s is not in the view" % what)
            continue  # a page beyond the slots shown
        checked += 1
        got = values.get((t, i))
        if got != want:
            problems.append("%s at %d ps: GTKWave shows '%s', the timeline says '%s'" % (what, t, got, want))
    if problems:
        fail("%d problems; first:\n  " % len(problems) + "\n  ".join(problems[:15]))
    enum_checked = sum(1 for _, flt, _ in signals if flt and os.path.basename(flt) not in NUMERIC_FILTERS)
    print("gtkwave_check: %d signals of the view shown by GTKWave; %d enum signals named at %d times; "
          "%d values of request %d's stages and of the NAND's owners equal its timeline's %d rows"
          % (len(signals), enum_checked, len(times), checked, request, len(rows)))


if __name__ == "__main__":
    main()
