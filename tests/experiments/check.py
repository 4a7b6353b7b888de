"""The experiment scripts as a user meets them (scripts/sweep, plot, reproduce), one
check per CTest test: tests/experiments/run.sh NAME runs check_NAME with the project's
Python environment. Needs SSDSIM (the binary) and a scratch directory WORK."""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.environ["WORK"]
SPECS = os.path.join(ROOT, "tests", "experiments", "specs")


def sh(*argv, expect=0, env=None):
    p = subprocess.run([os.path.join(ROOT, "scripts", argv[0]), *argv[1:]], capture_output=True, text=True,
                       env=None if env is None else {**os.environ, **env})
    if expect is not None and p.returncode != expect:
        raise AssertionError(f"{' '.join(argv)}: exit {p.returncode}, wanted {expect}\n{p.stdout}\n{p.stderr}")
    return p


def valid_image(path):
    """A PNG matplotlib can read back, or an SVG that parses, with content."""
    assert os.path.getsize(path) > 1000, f"{path}: too small"
    if path.endswith(".png"):
        import matplotlib.image

        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
        img = matplotlib.image.imread(path)
        assert img.shape[0] > 100 and img.shape[1] > 100, f"{path}: {img.shape}"
        assert img.std() > 0.01, f"{path}: a blank image"
    else:
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg"), f"{path}: not an SVG"


def table(d):
    import pandas as pd

    df = pd.read_parquet(os.path.join(d, "results.parquet"))
    csv = pd.read_csv(os.path.join(d, "results.csv"))
    assert list(df.columns) == list(csv.columns) and len(df) == len(csv)
    return df


def md_tables(text):
    """The Markdown tables in text, each a list of rows (the header first), a row the list
    of its cells."""
    tables, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(c and set(c) <= set("-:") for c in cells):  # not the rule under the header
                cur.append(cells)
        elif cur:
            tables.append(cur)
            cur = []
    return tables


def by_figure(tab):
    """A table with a row per figure as {figure: its cells after the first}."""
    return {r[0]: r[1:] for r in tab[1:]}


def change_text(a, b, decimals, unit=""):
    """The change from a to b as scripts/compare writes it, computed here by hand."""
    d = b - a
    pct = "n/a" if round(a, decimals) == 0 else f"{100 * d / abs(a):+.1f} %"
    return f"{d:+.{decimals}f}{unit} ({pct})"


def ssdsim_run(out, *sets):
    """One ssdsim run into out (its stats.json and config.json); returns its stats."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [os.environ["SSDSIM"]]
    for kv in sets:
        argv += ["--set", kv]
    subprocess.run(argv + ["--out", out], capture_output=True, text=True, check=True,
                   env={**os.environ, "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE": "1"})
    return json.load(open(os.path.join(out, "stats.json")))


def check_sweep_and_resume():
    out = os.path.join(WORK, "four")
    shutil.rmtree(out, ignore_errors=True)
    p = sh("sweep", os.path.join(SPECS, "four.yaml"), "--out", out, "--jobs", "2", env={"COLUMNS": "200"})
    df = table(out)
    assert len(df) == 4, df
    closing = sweep_closing_table(p.stdout, out)
    assert (df["status"] == "ok").all(), df[["status", "error"]]
    for col in ["group", "seed", "status", "exit_code", "wall_seconds", "point_dir", "nand.channels",
                "host.scheduler", "controller.scheduler", "read.latency_us.mean", "write.latency_us.p99",
                "nand.chip_utilization", "nand.chip_busy_ratio", "integrity.mismatches", "run.wall_seconds"]:
        assert col in df.columns, col
    assert sorted(df["host.scheduler"]) == ["noop", "noop", "piq", "piq"]
    assert sorted(df["workload.seed"]) == [1, 1, 2, 2]
    assert df["point_dir"].nunique() == 4 and (df["integrity.mismatches"] == 0).all()
    assert len(json.loads(df["nand.chip_busy_ratio"].iloc[0])) == 4  # 2 channels x 2 chips
    assert "4 points, 4 ok, 0 failed" in p.stdout, p.stdout
    stamps = {d: os.path.getmtime(os.path.join(d, "status.json")) for d in df["point_dir"]}
    p = sh("sweep", os.path.join(SPECS, "four.yaml"), "--out", out, "--jobs", "2", env={"COLUMNS": "200"})
    assert "all 4 points already done" in p.stderr, p.stderr
    assert md_tables(p.stdout) == closing, "the resumed sweep's closing table differs"
    for d, t in stamps.items():
        assert os.path.getmtime(os.path.join(d, "status.json")) == t, f"{d} ran again"
    # A point that failed runs again; the others do not.
    victim = df["point_dir"].iloc[0]
    with open(os.path.join(victim, "status.json"), "w") as f:
        json.dump({"exit": 1}, f)
    p = sh("sweep", os.path.join(SPECS, "four.yaml"), "--out", out, "--jobs", "2")
    assert "(3 done before)" in p.stderr, p.stderr
    assert json.load(open(os.path.join(victim, "status.json")))["exit"] == 0
    for d, t in stamps.items():
        if d != victim:
            assert os.path.getmtime(os.path.join(d, "status.json")) == t, f"{d} ran again"
    # A point made by another ssdsim runs again, never resumed.
    st = json.load(open(os.path.join(victim, "status.json")))
    st["binary"] = "0" * 16
    with open(os.path.join(victim, "status.json"), "w") as f:
        json.dump(st, f)
    p = sh("sweep", os.path.join(SPECS, "four.yaml"), "--out", out, "--jobs", "2")
    assert "(3 done before)" in p.stderr, p.stderr
    assert json.load(open(os.path.join(victim, "status.json")))["binary"] != "0" * 16
    # plot: every kind, from the sweep
    p = sh("plot", out, "--baseline", "host.scheduler=noop")
    files = p.stdout.split()
    # The latency parts are in the table, and add up to the mean latency per point.
    for op in ("read", "write"):
        cols = [c for c in df.columns if c.startswith(f"{op}.latency_parts.") and c.endswith(".mean_us")]
        assert len(cols) == 24, cols
        assert ((df[cols].sum(axis=1) - df[f"{op}.latency_us.mean"]).abs() <= 1e-6 * df[f"{op}.latency_us.mean"] + 1e-9).all()
    # The figures of one configuration are named by it (scripts/ssdexp/plot.py).
    for kind in ("latency_cdf", "bars_read_latency_us_mean", "timeseries", "chip_busy_host.scheduler-noop",
                 "chip_busy_host.scheduler-piq", "latency_parts_mean", "latency_parts_tail",
                 "latency_parts_time_host.scheduler-noop", "latency_parts_time_host.scheduler-piq"):
        assert any(os.path.basename(f).startswith(kind) for f in files), (kind, files)
    for f in files:
        valid_image(f)


def sweep_closing_table(stdout, out):
    """The sweep's closing table (four.yaml: host.scheduler noop and piq, two seeds each):
    a column per configuration named by the key they differ in, each the mean over its
    seeds of results.csv, and the second's change from the first."""
    import pandas as pd

    df = pd.read_csv(os.path.join(out, "results.csv"))
    lines = stdout.splitlines()
    at = lines.index("sweep: 2 configurations, named by host.scheduler")
    assert lines[at + 1] == "each column the mean over its 2 points (its seeds); the change is from the first", \
        lines[at + 1]
    tables = md_tables(stdout)
    assert len(tables) == 1, stdout
    first = df["host.scheduler"].iloc[0]
    second = "piq" if first == "noop" else "noop"
    assert tables[0][0] == ["figure", f"host.scheduler={first}", f"host.scheduler={second}", "change"], tables[0][0]
    rows = by_figure(tables[0])
    mean = df.groupby("host.scheduler").mean(numeric_only=True)
    for figure, col, dec in [("all IOPS", "all.iops", 1), ("read IOPS", "read.iops", 1),
                             ("read mean us", "read.latency_us.mean", 1), ("write p99 us", "write.latency_us.p99", 1),
                             ("all p99.9 us", "all.latency_us.p999", 1),
                             ("write amplification", "ftl.write_amplification", 3),
                             ("chips busy (mean)", "nand.chip_utilization", 2)]:
        a, b = mean.loc[first, col], mean.loc[second, col]
        assert rows[figure] == [f"{a:.{dec}f}", f"{b:.{dec}f}", change_text(a, b, dec)], (figure, rows[figure], a, b)
    reached = df.groupby("host.scheduler")["steady_state.reached"].apply(
        lambda s: s.astype(str).str.lower().eq("true").sum())
    assert rows["steady state reached"] == [f"{reached[first]} of 2", f"{reached[second]} of 2", ""], rows
    # The read latency part with the largest share in the first configuration is a row.
    parts = [c for c in df.columns if c.startswith("read.latency_parts.") and c.endswith(".share")]
    top = max(parts, key=lambda c: mean.loc[first, c])
    name = f"read: {top.split('.')[2]} %"
    assert rows[name][0] == f"{100 * mean.loc[first, top]:.1f} %", (name, rows.get(name))
    return tables


def check_compare():
    """scripts/compare on two real runs: each figure as in their stats.json, the change
    from the first with its sign, the runs named by the key their configurations differ in;
    the same as CSV; runs whose configurations are the same named by their directories."""
    d = os.path.join(WORK, "compare")
    a = ssdsim_run(os.path.join(d, "hos"), "workload.requests=3000")
    b = ssdsim_run(os.path.join(d, "ios"), "workload.requests=3000", "controller.scheduler=ios")
    p = sh("compare", os.path.join(d, "hos"), os.path.join(d, "ios", "stats.json"), env={"COLUMNS": "200"})
    lines = p.stdout.splitlines()
    assert lines[0] == "compare: 2 runs, named by controller.scheduler; the change is from the first run", lines[0]
    assert lines[1] == f"  controller.scheduler=hos: {os.path.join(d, 'hos')}", lines[1]
    assert lines[2] == f"  controller.scheduler=ios: {os.path.join(d, 'ios')}", lines[2]
    tables = md_tables(p.stdout)
    assert len(tables) == 1, p.stdout
    assert tables[0][0] == ["figure", "controller.scheduler=hos", "controller.scheduler=ios", "change"], tables[0][0]
    rows = by_figure(tables[0])
    want = {}
    for op in ("read", "write", "all"):
        want[f"{op} IOPS"] = (a[op]["iops"], b[op]["iops"], 1)
        for k, label in (("mean", "mean"), ("p50", "p50"), ("p99", "p99"), ("p999", "p99.9")):
            want[f"{op} {label} us"] = (a[op]["latency_us"][k], b[op]["latency_us"][k], 1)
    want["write amplification"] = (a["ftl"]["write_amplification"], b["ftl"]["write_amplification"], 3)
    want["chips busy (mean)"] = (a["nand"]["chip_utilization"], b["nand"]["chip_utilization"], 2)
    bus = [sum(s["nand"]["bus_utilization"]) / len(s["nand"]["bus_utilization"]) for s in (a, b)]
    want["channel busy (ratio)"] = (bus[0], bus[1], 3)
    for figure, (x, y, dec) in want.items():
        assert rows[figure] == [f"{x:.{dec}f}", f"{y:.{dec}f}", change_text(x, y, dec)], (figure, rows[figure], x, y)
    # IOPS fall under IOS here: the change is negative, and says so.
    assert b["all"]["iops"] < a["all"]["iops"] and rows["all IOPS"][2].startswith("-"), rows["all IOPS"]
    assert rows["all mean us"][2].startswith("+"), rows["all mean us"]
    # The latency parts: each run's largest share of the mean, per op, is a row.
    for op in ("read", "write"):
        for s, i in ((a, 0), (b, 1)):
            part, v = max(s[op]["latency_parts"].items(), key=lambda kv: kv[1]["share"])
            x, y = (100 * t[op]["latency_parts"][part]["share"] for t in (a, b))
            assert rows[f"{op}: {part} %"] == [f"{x:.1f} %", f"{y:.1f} %", change_text(x, y, 1, " pt")], \
                (op, part, rows.get(f"{op}: {part} %"))
    for s, cell in zip((a, b), rows["steady state reached"]):
        st = s["steady_state"]
        assert cell == (f"yes, from request {st['window_start_request']}" if st["reached"] else "no"), (cell, st)
    # CSV: the numbers unrounded.
    import csv
    import io
    got = {r["figure"]: r for r in csv.DictReader(io.StringIO(sh("compare", os.path.join(d, "hos"),
                                                                    os.path.join(d, "ios"), "--format", "csv").stdout))}
    r = got["all IOPS"]
    assert abs(float(r["controller.scheduler=hos"]) - a["all"]["iops"]) < 1e-5
    assert abs(float(r["controller.scheduler=ios change"]) - (b["all"]["iops"] - a["all"]["iops"])) < 1e-5
    assert abs(float(r["controller.scheduler=ios change %"]) - 100 * (b["all"]["iops"] / a["all"]["iops"] - 1)) < 1e-5
    # Two runs of one configuration: named by their directories, no change.
    shutil.rmtree(os.path.join(d, "hos-again"), ignore_errors=True)
    shutil.copytree(os.path.join(d, "hos"), os.path.join(d, "hos-again"))
    p = sh("compare", os.path.join(d, "hos"), os.path.join(d, "hos-again"), env={"COLUMNS": "200"})
    assert "named by directory: their configurations are the same" in p.stdout.splitlines()[0], p.stdout
    tab = md_tables(p.stdout)[0]
    assert tab[0] == ["figure", "hos", "hos-again", "change"], tab[0]
    assert by_figure(tab)["all IOPS"] == [f"{a['all']['iops']:.1f}"] * 2 + ["+0.0 (+0.0 %)"]


def check_compare_errors():
    """scripts/compare on what is not two runs: an error naming the path, exit 2, no
    traceback."""
    d = os.path.join(WORK, "compare-errors")
    run = os.path.join(d, "run")
    ssdsim_run(run, "workload.requests=1000")
    empty, bad, other = os.path.join(d, "empty"), os.path.join(d, "bad"), os.path.join(d, "other")
    for x in (empty, bad, other):
        os.makedirs(x, exist_ok=True)
    with open(os.path.join(bad, "stats.json"), "w") as f:
        f.write("{not json")
    with open(os.path.join(other, "stats.json"), "w") as f:
        json.dump({"read": {"iops": 1}}, f)
    missing = os.path.join(d, "no-such-run")
    cases = [((run, missing), f"{missing}: no such file or directory"),
             ((run, empty), f"{empty}: no stats.json in it: not a run's --out directory"),
             ((os.path.join(bad, "stats.json"), run), f"{bad}/stats.json: not an ssdsim stats.json: not valid JSON"),
             ((run, other), f"{other}/stats.json: not an ssdsim stats.json (no read, write, all and nand sections)"),
             ((run,), f"{run}: one run; compare needs two or more")]
    for args, want in cases:
        p = sh("compare", *args, expect=2)
        assert "Traceback" not in p.stderr, p.stderr
        msg = p.stderr.strip()
        assert msg.startswith(f"scripts/compare: error: {want}") and "\n" not in msg, f"wanted '{want}' in: {msg}"
        assert not p.stdout, p.stdout


def check_failing_point():
    out = os.path.join(WORK, "failing")
    p = sh("sweep", os.path.join(SPECS, "failing.yaml"), "--out", out, "--jobs", "2", "--skip-check", expect=1)
    df = table(out)
    assert len(df) == 3
    bad = df[df["status"] != "ok"]
    assert len(bad) == 1 and bad["exit_code"].iloc[0] == 2, df[["status", "exit_code"]]
    assert "cannot open the trace" in bad["error"].iloc[0], bad["error"].iloc[0]
    assert "failed:" in p.stdout and "1 failed" in p.stdout, p.stdout
    ok = df[df["status"] == "ok"]
    assert len(ok) == 2 and ok["read.latency_us.mean"].notna().all()
    assert bad["nand.channels"].iloc[0] == 2  # its effective configuration is in the table too


def check_precheck():
    """Every point is checked with `ssdsim --check` before any runs: what ssdsim refuses
    only when it builds the model or reads the workload is refused with the SPEC line that
    produced it, exit 2, and no point runs."""
    for spec, want in [("failing.yaml", ":7: workload.path: "), ("bad/runtime_allocation.yaml",
                                                                 ":5: ftl.allocation: invalid FTL configuration: --set: ftl.allocation = 'XX'")]:
        out = os.path.join(WORK, "precheck")
        shutil.rmtree(out, ignore_errors=True)
        p = sh("sweep", os.path.join(SPECS, spec), "--out", out, "--jobs", "2", expect=2)
        msg = p.stderr.strip().splitlines()[-1]
        assert want in msg, f"{spec}: wanted '{want}' in: {msg}"
        assert not os.path.exists(os.path.join(out, "points")) or not os.listdir(os.path.join(out, "points")), \
            "a point ran"
    assert "cannot open the trace" in sh("sweep", os.path.join(SPECS, "failing.yaml"), "--out",
                                         os.path.join(WORK, "precheck"), expect=2).stderr


def check_existing_cluster():
    """--scheduler: the same sweep on a scheduler and workers started apart, whose Python
    does not have the project's code on its path."""
    import time

    d = os.path.join(WORK, "cluster")
    os.makedirs(d, exist_ok=True)
    sf = os.path.join(d, "scheduler.json")
    if os.path.exists(sf):
        os.remove(sf)
    bindir = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    log = open(os.path.join(d, "dask.log"), "w")
    procs = [subprocess.Popen([os.path.join(bindir, "dask"), "scheduler", "--port", "0", "--no-dashboard",
                               "--scheduler-file", sf], stdout=log, stderr=log, env=env, cwd=d)]
    try:
        for _ in range(300):
            if os.path.exists(sf) and os.path.getsize(sf) > 0:
                break
            time.sleep(0.1)
        procs.append(subprocess.Popen([os.path.join(bindir, "dask"), "worker", "--scheduler-file", sf, "--nthreads",
                                       "1", "--nworkers", "2", "--no-dashboard"], stdout=log, stderr=log, env=env,
                                      cwd=d))
        address = json.load(open(sf))["address"]
        out = os.path.join(d, "out")
        p = sh("sweep", os.path.join(SPECS, "four.yaml"), "--out", out, "--scheduler", address, "--quiet")
        df = table(out)
        assert len(df) == 4 and (df["status"] == "ok").all(), df[["status", "error"]]
        assert "4 points, 4 ok" in p.stdout
    finally:
        for pr in reversed(procs):
            pr.terminate()
        for pr in procs:
            pr.wait(timeout=30)


def check_spec_errors():
    cases = [
        ("unknown_field.yaml", ":5: gird: unknown field"),
        ("not_a_key.yaml", ":4: grid.host.schedular: not an ssdsim configuration key"),
        ("grid_scalar.yaml", ":4: grid.host.scheduler: must be a non-empty list"),
        ("bad_value.yaml", ":6: host.queue_length: --set: host.queue_length = 1024 is out of range"),
        ("bad_choice.yaml", ":5: controller.scheduler: --set: controller.scheduler: 'fifo' is not one of"),
        ("syntax.yaml", ":4: not valid YAML/JSON"),
        ("bad_seeds.yaml", ":3: seeds: -1 is not a seed"),
        ("bad_json.json", ":5: not valid YAML/JSON"),
        ("nested_value.json", ":4: base.set.workload.requests: must be a number, a string or a boolean"),
        ("twice.yaml", ":4: grid: given twice"),
        ("no_preset.yaml", ":2: base: --preset nope: unknown preset"),
    ]
    for name, want in cases:
        path = os.path.join(SPECS, "bad", name)
        p = sh("sweep", path, "--out", os.path.join(WORK, "bad"), expect=2)
        msg = p.stderr.strip().splitlines()[-1]
        assert msg.startswith(f"scripts/sweep: error: {path}:"), msg
        assert want in msg, f"{name}: wanted '{want}' in: {msg}"
    # A value YAML reads as a boolean (`off`) reaches a choice key as written.
    out = os.path.join(WORK, "off")
    shutil.rmtree(out, ignore_errors=True)  # a point of an earlier run would be resumed
    sh("sweep", os.path.join(SPECS, "yaml_off.yaml"), "--out", out, "--jobs", "1")
    assert (table(out)["controller.rtl"] == "off").all()
    assert (table(out)["host.lookahead_thread"] == "true").all()


def check_spec_limits():
    """SPECs that would crash, hang, exhaust memory, write outside --out, write over one
    file from every point, or lose a setting: each refused naming the file, line and field
    (exit 2), within 60 s and 2 GB, before anything runs. Each case's SPEC (but the
    base.config one) also names an unknown preset, so that if it were accepted the sweep
    would stop there, with another message, without running."""
    import resource

    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from ssdexp.spec import OUTPUTS, SpecError, read_spec

    def refused(path, *wants):
        def bounded():  # an alias bomb or 10^8 seeds fail fast here instead of taking the machine
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

        argv = [os.path.join(ROOT, "scripts", "sweep"), path, "--out", os.path.join(WORK, "limits"), "--jobs", "1"]
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=60, preexec_fn=bounded)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{path}: still running after 60 s") from None
        msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        assert p.returncode == 2, f"{path}: exit {p.returncode}, wanted 2\n{p.stderr[-3000:]}"
        assert msg.startswith(f"scripts/sweep: error: {path}:"), msg
        for want in wants:
            assert want in msg, f"{os.path.basename(path)}: wanted '{want}' in: {msg}"

    def write(name, text):
        path = os.path.join(WORK, "limits-specs", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    bad = os.path.join(SPECS, "bad")
    # 1. Nesting, aliases, and the number of points.
    refused(write("deep.yaml", "base: {preset: nope}\ndescription: " + "[" * 5000 + "]" * 5000 + "\n"),
            ":2: description[0][0]", "nested deeper than 16 levels")
    refused(write("deep.json", '{"base": {"preset": "nope"},\n "description": ' + "[" * 5000 + "]" * 5000 + "}\n"),
            ":2: description[0][0]", "nested deeper than 16 levels")
    refused(os.path.join(bad, "alias_bomb.yaml"), ":2: a: YAML anchors (&) and aliases (*) are not part of a SPEC")
    # An integer past 64 bits (YAML's hexadecimal writes one Python cannot even print).
    refused(os.path.join(bad, "huge_int.yaml"), ":2: seeds[1]: an integer past 64 bits")
    refused(write("huge_int.json", '{"grid": {"host.scheduler": ["noop"]},\n "seeds": [1, ' + "9" * 30 + "]}\n"),
            ":2:", "an integer past 64 bits")
    refused(os.path.join(bad, "huge_seeds.yaml"),
            ":3: seeds: the SPEC expands to 100,000,000 points, more than max_points (100,000)")
    refused(os.path.join(bad, "huge_grid.yaml"), ":3: grid: the SPEC expands to 160,000 points, more than max_points")
    refused(os.path.join(bad, "max_points.yaml"), ":3: grid: the SPEC expands to 3 points, more than max_points (2)")
    refused(os.path.join(bad, "max_points_ceiling.yaml"), ":2: max_points: must be a whole number from 1 to 1,000,000")
    # max_points raises the bound.
    with open(os.path.join(bad, "max_points.yaml")) as f:
        raised = write("max_points.yaml", f.read().replace("max_points: 2", "max_points: 3"))
    assert len(read_spec(raised).points) == 3
    # 2. Strict JSON.
    refused(os.path.join(bad, "trailing_comma.json"), ":3: not valid YAML/JSON: a trailing comma")
    refused(os.path.join(bad, "json_nan.json"), ":3: not valid YAML/JSON: expecting a value, not 'NaN")
    refused(os.path.join(bad, "json_comment.json"), ":2: not valid YAML/JSON: expecting a field name in double quotes")
    refused(os.path.join(bad, "json_twice.json"), ":4: seeds: given twice")
    # 3. A name that is not one plain file name.
    refused(os.path.join(bad, "name_path.yaml"), ":2: name: '../../escaped' is not a plain file name")
    for name in ("a/b", "..", ".", "a\\\\b", ""):
        refused(write("name.yaml", f'base: {{preset: nope}}\nname: "{name}"\n'),
                ":2: name: ", "is not a plain file name")
    # 4. Output files, in the SPEC or in its config file. OUTPUTS holds every key ssdsim
    # describes as a file it writes ("KEY string DEFAULT write ... to this ... file").
    listed = subprocess.run([os.environ["SSDSIM"], "--list-keys"], capture_output=True, text=True, check=True).stdout
    writes = re.compile(r'^(\S+)\s+string\s+"[^"]*"\s+write\b.*\bto this\b.*\bfile\b')
    assert {m.group(1) for m in map(writes.match, listed.splitlines()) if m} == OUTPUTS, OUTPUTS
    refused(os.path.join(bad, "output_key.yaml"), ":4: base.set.report.requests_csv: names a file the run writes")
    refused(os.path.join(bad, "output_vcd.yaml"), ":3: grid.trace.vcd: names a file the run writes")
    write("writes.json", '{"report": {"requests_csv": "requests.csv"}}\n')
    config_output = write("config_output.yaml", "base:\n  config: writes.json\n  set: {workload.requests: 10}\n")
    refused(config_output, ":2: base.config: sets report.requests_csv, a file every point would write over")
    # 5. workload.seed beside seeds.
    refused(os.path.join(bad, "seed_twice.yaml"), ":4: grid.workload.seed: `seeds` (line 5) sets workload.seed")
    refused(os.path.join(bad, "seed_twice_group.yaml"), ":8: groups.b.points[1].workload.seed: `seeds` (line 2)")
    # Inputs the fuzzer (tests/fuzz_specs.py) found ending in a traceback, or passing text a
    # command line cannot carry: read in process (no ssdsim needed).
    cases = [("utf8.yaml", b"name: x\nseeds: [1, \xff]\n", ":2: SPEC: not UTF-8 text"),
             ("control.yaml", b"name: x\nseeds: [1, \x01]\n", ":2: not valid YAML/JSON: unacceptable character"),
             ("date.yaml", b"base:\n  set: {workload.path: 2020-13-45}\n", ":2: base.set.workload.path: '2020-13-45'"),
             ("tag.yaml", b"base:\n  set: {workload.path: !!binary aGk=}\n", ":2: base.set.workload.path: YAML tags"),
             ("documents.yaml", b"name: x\n---\nname: y\n", ":2: SPEC: more than one YAML document"),
             ("nul.json", b'{"base": {"set": {"workload.path": "a\\u0000b"}}}',
              ":1: base.set.workload.path: 'a\\x00b' holds"),
             ("surrogate.json", b'{"name": "\\ud800"}', ":1: name: '\\ud800' holds a NUL or a lone surrogate")]
    for name, text, want in cases:
        path = write(name, "")
        with open(path, "wb") as f:
            f.write(text)
        try:
            read_spec(path)
        except SpecError as e:
            assert str(e).startswith(path + want), f"{name}: wanted '{want}' in: {e}"
        else:
            raise AssertionError(f"{name}: read")


def check_fuzz_specs():
    """The SPEC reader's fuzzer (tests/fuzz_specs.py) for 5 seconds; a counterexample is
    saved in WORK."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fuzz_specs.py"),
                        os.path.join(ROOT, "tests", "fuzz_corpus", "spec"), "--seconds", "5"],
                       capture_output=True, text=True, cwd=WORK)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr[-5000:]}"


def check_missing_traces():
    """A reproduction whose shared traces are not there stops with an error naming the
    folder and SSD_TRACES_DIR (exit 2) before running anything, never leaving rows out."""
    missing = os.path.join(WORK, "no-such-traces")
    for paper in ("piq", "sos"):
        out = os.path.join(WORK, f"missing-{paper}")
        p = sh("reproduce", paper, "--quick", "--out", out, expect=2, env={"SSD_TRACES_DIR": missing})
        assert missing in p.stderr and "SSD_TRACES_DIR" in p.stderr, p.stderr
        assert not os.path.exists(os.path.join(out, "report.md"))


def check_reproduce(paper):
    out = os.path.join(WORK, f"reproduce-{paper}")
    sh("reproduce", paper, "--quick", "--out", out)
    report = open(os.path.join(out, "report.md")).read()
    figs = os.listdir(os.path.join(out, "figures"))
    if paper == "park":
        # Table 3's rescheduling columns, Fig. 4 and Fig. 5 are run, with their verdicts and figures.
        for section in ("## Table 3, rescheduling", "## Fig. 4", "## Fig. 5", "## The Verilog block"):
            assert section in report, f"no section {section}"
        for row in ("multi-plane rescheduling vs neither", "pipeline rescheduling vs neither",
                    "both reschedulings vs neither", "both reschedulings + stripe vs static"):
            assert re.search(r"\| [^|\n]*" + re.escape(row) + r"[^|\n]* \| [-+]\d+\.\d %", report), f"no row {row}"
        assert "issue 37" not in report, "the rescheduling no longer waits for issue 37"
        assert "rtl/cost.sh" in report, "the report says where the Verilog block's added hardware is measured"
        for f in ("table3_resched.png", "fig4_rescheduling.png", "fig5.png"):
            assert f in figs, f"no figure {f}"
        assert os.path.exists(os.path.join(out, "park_fig4_runs.csv"))
    assert "| effect | paper | mean | median |" in report or "| workload |" in report
    assert report.split("\n")[2].startswith("## Summary"), "the report opens with its summary"
    assert any(v in report for v in ("reproduced", "same direction", "different size", "opposite", "mixed signs"))
    pngs = [f for f in figs if f.endswith(".png")]
    assert len(pngs) >= 2, figs
    for f in figs:
        valid_image(os.path.join(out, "figures", f))
        assert f"figures/{f}" in report or f.endswith(".svg"), f"{f} not in the report"
    assert [f for f in os.listdir(out) if f.endswith(".csv")]


def check_reproduce_fairness_quick():
    """The two tenants' experiment: every configuration's row, slowdowns and fairness
    within their ranges, and with more slots than commands rr and wrr the same runs."""
    import csv
    out = os.path.join(WORK, "reproduce-fairness")
    shutil.rmtree(out, ignore_errors=True)  # its progress, from no point done
    p = sh("reproduce", "fairness", "--quick", "--out", out, env={"SSD_PROGRESS_SECONDS": "0"})
    report = open(os.path.join(out, "report.md")).read()
    assert "## What it shows" in report and "## Per configuration" in report
    rows = list(csv.DictReader(open(os.path.join(out, "fairness.csv"))))
    assert len(rows) == 8, rows
    by = {(r["nvme.command_slots"], r["controller.scheduler"], r["nvme.arbitration"]): r for r in rows}
    for r in rows:
        f = float(r["fairness"])
        assert 0 < f <= 1, r
        s0, s1 = float(r["streams.0.slowdown"]), float(r["streams.1.slowdown"])
        assert abs(f - min(s0, s1) / max(s0, s1)) < 1e-6, r
    for sched in ("hos", "ios"):  # nothing to choose: the same runs
        a, b = by[("256", sched, "rr")], by[("256", sched, "wrr")]
        assert a["streams.0.all.latency_us.mean"] == b["streams.0.all.latency_us.mean"], (a, b)
    # Where the slots are the bottleneck, wrr favours the high-class tenant.
    assert float(by[("16", "hos", "wrr")]["streams.0.all.latency_us.mean"]) < \
        float(by[("16", "hos", "rr")]["streams.0.all.latency_us.mean"])
    # Its progress on stderr: the sweep's name, each point done of the total (one seed: a
    # point per row of fairness.csv) with the time left, and the count so far.
    n = len(rows)
    err = p.stderr.splitlines()
    assert "reproduce fairness: sweep 1 (fairness): 8 points, planning and checking them" in err, p.stderr
    assert "reproduce fairness: sweep 1 (fairness): 8 points to run" in err, p.stderr
    line = re.compile(r"reproduce fairness: sweep 1 \(fairness\): (\d+) of (\d+) points, (\d+) failed, "
                      r"(?:about (\d+) s left|done in \d+ s); so far (\d+) points? run in 1 sweep, \d+ s$")
    seen = [m for m in map(line.match, err) if m]
    assert [int(m.group(1)) for m in seen] == list(range(1, n + 1)), p.stderr
    for m in seen:
        k = int(m.group(1))
        assert int(m.group(2)) == n and m.group(3) == "0" and int(m.group(5)) == k, m.group(0)
        assert (m.group(4) is not None) == (k < n), m.group(0)  # the time left until the last
    assert re.search(rf"^reproduce fairness: 1 sweep, {n} points run \(0 failed\), 0 done before, \d+ s$", p.stderr,
                     re.M), p.stderr
    assert "points" not in p.stdout, p.stdout  # progress goes to stderr


def check_verdicts():
    """The verdict rules of scripts/ssdexp/report.py, on hand-made effects, and rows named
    from their own configuration."""
    import pandas as pd
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from ssdexp.report import Effect, label_rows

    assert Effect([-18.0, -22.0, -20.0], -19.7).verdict() == "reproduced"
    # Within the tolerance on the mean, but most workloads disagree: not reproduced.
    v = Effect([-60.0, +2.0, +3.0], -19.7).verdict()
    assert v.startswith("mixed signs (1 of 3"), v
    # A mean over mixed signs is flagged, never a verdict on its own, even when it is close.
    v = Effect([-90.0, -20.0, +50.0, +2.0], -36.0).verdict()
    assert v.startswith("mixed signs (2 of 4"), v
    # The tolerance is relative to the paper's effect: 30 % of it, not 5 points. A model at
    # -1.9 % does not reproduce a paper's -5.4 % (it did under 5 points absolute).
    v = Effect([-1.9, -1.9], -5.4).verdict()
    assert v.startswith("different size (0.35x"), v
    assert Effect([-4.0, -4.2], -5.4).verdict() == "reproduced"  # 24 % off
    assert Effect([-25.0, -26.0], -19.7).verdict() == "reproduced"  # 29 % off
    v = Effect([-26.0, -27.0], -19.7).verdict()  # 35 % off
    assert v.startswith("different size (1.3x"), v
    v = Effect([-80.0, -82.0], -20.0).verdict()
    assert v.startswith("different size (4x"), v
    assert Effect([+30.0, +40.0], -20.0).verdict().startswith("opposite")
    # Null against null is a verdict of its own, never reproduced; a null model against a
    # paper's effect says so.
    assert Effect([0.2, -0.3], 0.4).verdict() == "no effect, as the paper"
    assert Effect([0.2, -0.3], -20.0).verdict() == "no effect in the model"
    assert Effect([-5.0, -6.0], 0.0).verdict() == "different size (the paper: none)"
    v = Effect([-25.0, -25.0, +1.5], -20.0).verdict()
    assert v == "reproduced (2 of 3 agree in sign)", v
    # "Up to" is held against the largest change in the paper's direction, "average"
    # against the mean: a mean of -14 % does not reproduce "up to -42 %", its -40 % does.
    up = Effect([-40.0, -2.0, -0.0], -42.0, kind="up to")
    assert up.value == -40.0 and up.verdict().startswith("reproduced"), up.verdict()
    v = Effect([-40.0, -2.0, -0.0], -42.0).verdict()
    assert v.startswith("different size (0.33x"), v
    assert Effect([+12.0, +3.0], +10.0, kind="up to").value == 12.0
    try:
        Effect([1.0], 1.0, kind="range")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown kind of claim must be an error")
    e = Effect([-10.0, 0.5, +4.0], -5.0)
    assert (e.pos, e.neg, e.n, e.median, e.lo, e.hi) == (1, 1, 3, 0.5, -10.0, 4.0)
    assert Effect([], -5.0).verdict() == "not measurable"
    # The headline counts every category, zeros included, in one order.
    from ssdexp.report import headline
    h = headline(["reproduced", "reproduced (2 of 3 agree in sign)", "no effect, as the paper",
                  "different size (4x the paper's)", "opposite"])
    assert h == ("2 reproduced, 1 different size, 1 opposite, 0 no effect in the model, 0 mixed signs, "
                 "1 no effect, as the paper, 0 not measurable"), h
    # docs/results.md's opening table reads each report's first counts back.
    from ssdexp.publish import counts_of
    text = (f"# X\n\n**Counts** (the paper's effects: at its load (the paper's regime)): {h}. Elsewhere: "
            + headline(["opposite"]) + ".")
    assert counts_of(text) == [2, 1, 1, 0, 0, 1, 0], counts_of(text)
    assert counts_of("# Wear\n\nno counts here") is None

    # A paper's claims table, judged by one driver (scripts/ssdexp/claims.py).
    from ssdexp import claims as cl
    avg = cl.Claim("Fig. 8", "PIQ vs RWS: read latency", "read.latency_us.mean", "piq", "rws", -19.7,
                   regime="paper load, ncq, IOS")
    upto = cl.Claim("Fig. 6", "SOS vs IOS", "all.latency_us.mean", "sos", "ios", -56.0, "up to", "up to 56 % lower",
                    regime="paper load, ncq, HOS")
    trend = cl.Claim("Fig. 4", "gain grows as writes dominate", kind="trend", words="larger with writes",
                     regime="aged")
    gone = cl.Claim("Fig. 4", "gain larger for smaller requests", kind="trend", regime="aged")
    unmeasured = cl.Claim("Fig. 4", "pipeline gains more", kind="trend", regime="aged")
    for bad in ({"kind": "range", "paper": 1.0}, {"kind": "trend", "paper": 1.0}, {"kind": "average"}):
        try:
            cl.Claim("x", "y", **bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"a claim {bad} must be an error")
    per = {avg: [-18.0, -22.0, -20.0], upto: [-40.0, -2.0, -0.0], trend: (True, "-5 % vs -1 %"), gone: False,
           unmeasured: None}
    j = cl.judge([avg, upto, trend, gone, unmeasured], per.get)
    assert [x.verdict for x in j] == ["reproduced", "reproduced (2 of 3 agree in sign)", "reproduced",
                                      "no effect in the model",
                                      "not measurable"], [x.verdict for x in j]
    assert j[0].effect.mean == -20.0 and j[0].model == "-20.0 %" and j[0].range == "-22.0 .. -18.0 %"
    assert j[1].model == "-40.0 %" and j[1].effect.mean != j[1].effect.value  # "up to": the largest, not the mean
    assert j[2].effect is None and j[2].model == "-5 % vs -1 %"
    assert cl.counts(j) == headline(x.verdict for x in j)
    assert cl.counts(j, "aged") == ("1 reproduced, 0 different size, 0 opposite, 1 no effect in the model, "
                                    "0 mixed signs, 0 no effect, as the paper, 1 not measurable")
    # A regime's part holds its devices ("paper load, ncq" holds "..., IOS" and "..., HOS"), no other.
    assert cl.counts(j, "paper load, ncq").startswith("2 reproduced, 0 different size")
    assert cl.counts(j, "paper load, ncq, IOS").startswith("1 reproduced")
    assert cl.counts(j, "paper load").startswith("2 reproduced") and cl.counts(j, "paper").startswith("0 reproduced")
    assert cl.find(j, new="piq") == [j[0]]
    t = cl.table(j).splitlines()
    assert len(t) == 2 + 5 and t[0].startswith("| figure | effect | workloads | regime | paper | model |"), t[0]
    assert "| all | paper load, ncq, HOS | up to -56.0 % (up to 56 % lower) | -40.0 % |" in t[3], t[3]
    assert t[4].endswith("| larger with writes | -5 % vs -1 % |  | reproduced |"), t[4]

    df = pd.DataFrame([{"workload.read_ratio": 0.25, "workload.path": "", "host.scheduler": "noop"},
                       {"workload.read_ratio": 0.5, "workload.path": "", "host.scheduler": "piq"},
                       {"workload.read_ratio": 0.25, "workload.path": "", "host.scheduler": "piq"}])
    label_rows(df, {"a": {"workload.read_ratio": 0.25}, "b": {"workload.read_ratio": 0.5}})
    assert list(df["workload"]) == ["a", "b", "a"]
    for named in ({"a": {"workload.read_ratio": 0.25}}, {"a": {"workload.path": ""}, "b": {"workload.path": ""}}):
        try:
            label_rows(df.copy(), named)
        except RuntimeError as e:
            assert "matches" in str(e)
        else:
            raise AssertionError("rows that match no name, or two, must be an error")


if __name__ == "__main__":
    name = sys.argv[1]
    os.makedirs(WORK, exist_ok=True)
    if name.startswith("reproduce_") and f"check_{name}" not in globals():
        check_reproduce(name.split("_", 1)[1])
    else:
        globals()[f"check_{name}"]()
    print(f"{name}: ok")
