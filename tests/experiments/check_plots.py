"""The figures as a newcomer reads them (scripts/plot, and the reproductions' figures):
one check per CTest test, run as tests/experiments/check.py is ("$py" check_plots.py NAME,
with SSDSIM the binary and WORK a scratch directory). Fixtures are tiny real runs made in
WORK: a 4-point sweep (two groups x two host schedulers, one seed) and one run of ssdsim,
each with report.interval_us."""

import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.environ["WORK"]
sys.path.insert(0, os.path.join(ROOT, "scripts"))

SPEC = """# 4 points: two groups (the device scheduler) x two host schedulers, one seed.
name: plots
base:
  set:
    nand.channels: 2
    nand.chips_per_channel: 2
    nand.blocks_per_plane: 64
    ftl.overprovisioning: 0.15
    ftl.precondition: 0.5
    workload.requests: 2000
    workload.read_ratio: 0.5
    report.interval_us: 5000
grid:
  host.scheduler: [noop, piq]
seeds: [1]
groups:
  ios: {set: {controller.scheduler: ios}}
  hos: {set: {controller.scheduler: hos}}
"""


def sh(*argv, expect=0):
    p = subprocess.run([os.path.join(ROOT, "scripts", argv[0]), *argv[1:]], capture_output=True, text=True)
    if expect is not None and p.returncode != expect:
        raise AssertionError(f"{' '.join(argv)}: exit {p.returncode}, wanted {expect}\n{p.stdout}\n{p.stderr}")
    return p


def sweep_fixture() -> str:
    """The 4-point sweep in WORK/sweep (resumed when it is there)."""
    out = os.path.join(WORK, "sweep")
    spec = os.path.join(WORK, "plots.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    sh("sweep", spec, "--out", out, "--jobs", "2", "--quiet")
    return out


def run_fixture() -> str:
    """One run of ssdsim with a time series, in WORK/run."""
    out = os.path.join(WORK, "run")
    if not os.path.isfile(os.path.join(out, "timeseries.csv")):
        subprocess.run([os.environ["SSDSIM"], "--set", "workload.requests=3000", "--set", "report.interval_us=20000",
                        "--out", out], check=True, capture_output=True)
    return out


class Captured:
    """plot._save replaced: the figures each kind draws, kept open to look at, and the
    names it would have written them under."""

    def __init__(self, plot):
        self.plot, self.figures = plot, {}

    def __enter__(self):
        self.saved = self.plot._save

        def save(fig, out, name, formats):
            self.plot.finish_figure(fig)
            self.figures[name] = fig
            return [os.path.join(out, f"{name}.{fmt}") for fmt in formats]

        self.plot._save = save
        return self

    def __exit__(self, *exc):
        self.plot._save = self.saved
        import matplotlib.pyplot as plt
        for fig in self.figures.values():
            plt.close(fig)


def texts(fig) -> list:
    """Every text of a figure: titles, axis labels, annotations, legend entries."""
    out = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    return [t for t in out if t]


def check_plot_baseline():
    """--baseline must name one configuration: matching two is an error listing both (and
    a key that tells them apart), matching none an error listing every configuration;
    both exit 2 without a traceback, and before any figure is written."""
    src = sweep_fixture()
    out = os.path.join(WORK, "baseline-plots")
    shutil.rmtree(out, ignore_errors=True)
    p = sh("plot", src, "--out", out, "--baseline", "host.scheduler=noop", expect=2)
    err = p.stderr
    assert "Traceback" not in err, err
    assert "matches 2 configurations" in err, err
    assert "ios, host.scheduler=noop" in err and "hos, host.scheduler=noop" in err, err
    assert "--baseline host.scheduler=noop,controller.scheduler=ios" in err, err
    assert not os.path.exists(out) or not os.listdir(out), "figures written before the error"
    p = sh("plot", src, "--out", out, "--baseline", "host.scheduler=fifo", expect=2)
    assert "Traceback" not in p.stderr and "matches none of the 4 configurations" in p.stderr, p.stderr
    for name in ("ios, host.scheduler=noop", "ios, host.scheduler=piq", "hos, host.scheduler=noop",
                 "hos, host.scheduler=piq"):
        assert name in p.stderr, (name, p.stderr)
    p = sh("plot", src, "--out", out, "--baseline", "host.schedular=noop", expect=2)
    assert "host.schedular is not a column" in p.stderr and "host.scheduler" in p.stderr, p.stderr
    # The message's suggestion works, and so does the group's name.
    for good in ("host.scheduler=noop,controller.scheduler=ios", "group=hos,host.scheduler=piq"):
        p = sh("plot", src, "--out", out, "--kind", "bars", "--baseline", good)
        assert any(f.endswith("bars_read_latency_us_mean.png") for f in p.stdout.split()), p.stdout


def check_plot_metric():
    """A --metric that is not a column is an error naming the closest columns (exit 2),
    whatever kinds are asked for; so is a column that holds no numbers."""
    src = sweep_fixture()
    out = os.path.join(WORK, "metric-plots")
    for kinds in (["bars"], ["bars", "heatmap"], ["heatmap"]):
        p = sh("plot", src, "--out", out, "--kind", *kinds, "--metric", "write_amplification", expect=2)
        assert "Traceback" not in p.stderr, p.stderr
        assert "--metric write_amplification: no such column" in p.stderr, p.stderr
        assert "ftl.write_amplification" in p.stderr, p.stderr
    p = sh("plot", src, "--out", out, "--kind", "bars", "--metric", "read.latency_us.man", expect=2)
    assert "read.latency_us.mean" in p.stderr, p.stderr
    p = sh("plot", src, "--out", out, "--kind", "bars", "--metric", "host.scheduler", expect=2)
    assert "not a column of numbers" in p.stderr, p.stderr
    from ssdexp.plot import closest
    assert closest("write_amplification", ["ftl.write_amplification", "write.iops", "ftl.gc_pages"])[0] == \
        "ftl.write_amplification"


def check_plot_single_run():
    """One run: `bars` draws no one-bar chart but says so, with the run's values, on
    stderr (exit 0); the kinds that describe one configuration are drawn."""
    src = run_fixture()
    stats = json.load(open(os.path.join(src, "stats.json")))
    out = os.path.join(WORK, "single-plots")
    shutil.rmtree(out, ignore_errors=True)
    p = sh("plot", src, "--out", out)
    files = [os.path.basename(f) for f in p.stdout.split()]
    assert not any(f.startswith("bars") for f in files), files
    assert "bars: one configuration" in p.stderr and "nothing to compare" in p.stderr, p.stderr
    from ssdexp.plot import fmt_value
    want = f"read.latency_us.mean = {fmt_value(stats['read']['latency_us']['mean'], 'us')}"
    assert want in p.stderr, (want, p.stderr)
    for kind in ("timeseries.png", "chip_busy.png", "latency_parts_mean.png", "latency_parts_time.png"):
        assert kind in files, (kind, files)
    p = sh("plot", src, "--out", out, "--kind", "bars")
    assert p.stdout.strip() == "" and "one configuration" in p.stderr, (p.stdout, p.stderr)


def check_plot_names():
    """Figures drawn one per configuration are named by it (the keys that differ, as the
    bars' labels), never by an index; the names are plain file names."""
    src = sweep_fixture()
    out = os.path.join(WORK, "names-plots")
    shutil.rmtree(out, ignore_errors=True)
    p = sh("plot", src, "--out", out, "--kind", "heatmap", "parts_time", "--format", "png")
    files = sorted(os.path.basename(f) for f in p.stdout.split())
    want = sorted(f"{kind}_{g}_host.scheduler-{h}.png" for kind in ("chip_busy", "latency_parts_time")
                  for g in ("ios", "hos") for h in ("noop", "piq"))
    assert files == want, files
    from ssdexp.plot import file_names
    names = file_names(["workload.path=/traces/a b.csv, host.scheduler=noop", "workload.path=/traces/c.csv, x=1"])
    for n in names.values():
        assert "/" not in n and " " not in n and "=" not in n, n
    assert "noop" in names["workload.path=/traces/a b.csv, host.scheduler=noop"], names
    assert file_names(["run"]) == {"run": ""}
    # Two names that would read the same on disk stay apart.
    assert len(set(file_names(["a=1, b=2", "a=1_b-2"]).values())) == 2


def check_plot_partial_interval():
    """The last interval of a run's time series is shorter than report.interval_us: it is
    flagged partial, drawn apart from the whole intervals (a dashed segment to a hollow
    marker in `timeseries`, a hatched span in `parts_time`) and named in the legends; an
    interval with no reads has no read latency (a gap, not 0)."""
    import pandas as pd

    from ssdexp import plot

    src = run_fixture()
    t = pd.read_csv(os.path.join(src, "timeseries.csv"))
    length = t["end_us"] - t["start_us"]
    assert length.iloc[-1] < 20000 and (length.iloc[:-1] == 20000).all(), list(length)
    d = plot.intervals(t, 20000)
    assert list(d["partial"]) == [False] * (len(d) - 1) + [True], list(d["partial"])
    # Without report.interval_us (an older row), the longest interval stands for it.
    assert list(plot.intervals(t)["partial"]) == list(d["partial"])
    (fx, fy), (px, py) = plot.split_partial(d, "iops")
    last_mid = (t["start_us"].iloc[-1] + t["end_us"].iloc[-1]) / 2e3
    assert px == [last_mid] and last_mid not in fx and len(fx) == len(t) - 1, (fx, px)
    none = d["read_iops"] <= 0
    assert d.loc[none, "read_mean_us"].isna().all() and d.loc[~none, "read_mean_us"].notna().all()
    df = plot.source_table(src)
    with Captured(plot) as c:
        plot.plot_timeseries(df, WORK, None, ["png"])
        plot.plot_parts_time(df, WORK, None, ["png"])
    ts = c.figures["timeseries"]
    hollow = [ln for ax in ts.axes for ln in ax.get_lines() if ln.get_markerfacecolor() in ("white", "w", (1, 1, 1, 1))]
    assert hollow and all(list(ln.get_xdata()) == [last_mid] for ln in hollow if ln.get_linestyle() == "None"), hollow
    solid = [ln for ln in ts.axes[0].get_lines() if ln.get_linestyle() == "-"]
    assert solid and all(last_mid not in list(ln.get_xdata()) for ln in solid)
    assert any("last interval: partial" in s for s in texts(ts)), texts(ts)
    pt = c.figures["latency_parts_time"]
    assert any("last interval: partial" in s for s in texts(pt)), texts(pt)
    spans = [p for ax in pt.axes for p in ax.patches if p.get_hatch() == "//"]
    assert len(spans) == 2, spans  # read and write


def check_plot_bars_absolute():
    """Bars normalised to a --baseline carry each configuration's absolute value and unit,
    start at 0 and name the baseline with its value; without a baseline they carry it too."""
    from ssdexp import plot

    src = sweep_fixture()
    df = plot.source_table(src)
    base = {"host.scheduler": "noop", "controller.scheduler": "hos"}
    m = "read.latency_us.mean"
    a = plot.bar_table(df, m, base, None)
    assert a.attrs["baseline"] == "hos, host.scheduler=noop", a.attrs
    assert abs(a.loc["hos, host.scheduler=noop", "mean"] - 1) < 1e-12
    ok = df[df["status"] == "ok"]
    for label, x in a.iterrows():
        g, h = label.split(", host.scheduler=")
        raw = ok[(ok["group"] == g) & (ok["host.scheduler"] == h)][m].mean()
        assert abs(x["absolute"] - raw) < 1e-9 and x["text"] == plot.fmt_value(raw, "us"), (label, x, raw)
    with Captured(plot) as c:
        plot.plot_bars(df, WORK, [m], base, None, ["png"])
        ax = c.figures["bars_read_latency_us_mean"].axes[0]
        notes = [t.get_text() for t in ax.texts]
        assert sorted(notes) == sorted(a["text"]) and all(n.endswith(" us") for n in notes), notes
        assert ax.get_ylim()[0] == 0, ax.get_ylim()
        title = ax.get_title()
        assert "1 = hos, host.scheduler=noop" in title and a.loc["hos, host.scheduler=noop", "text"] in title, title
        heights = sorted(round(p.get_height(), 9) for p in ax.patches)
        assert sorted(round(v, 9) for v in a["mean"]) == heights, heights
    absolute = plot.bar_table(df, m, None, None)
    with Captured(plot) as c:
        plot.plot_bars(df, WORK, [m], None, None, ["png"])
        ax = c.figures["bars_read_latency_us_mean"].axes[0]
        assert sorted(t.get_text() for t in ax.texts) == sorted(absolute["text"])
        assert list(absolute["text"]) == list(a["text"])  # the same absolute values, normalised or not
        assert ax.get_ylim()[0] == 0, ax.get_ylim()


def check_plot_axes():
    """An axis zoomed onto a small range says so in its label; a ratio axis starts at 0;
    long configuration names are wrapped at their commas."""
    import matplotlib.pyplot as plt

    from ssdexp.plot import note_zoom, ratio_axis, wrap_label

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [0.997, 0.999, 1.0])
    ax.set_ylabel("latency, normalised")
    assert note_zoom(ax) and "axis from 0.99" in ax.get_ylabel(), ax.get_ylabel()
    note_zoom(ax)
    assert ax.get_ylabel().count("axis from") == 1, ax.get_ylabel()
    fig2, ax2 = plt.subplots()
    ax2.plot([1, 2, 3], [0.997, 0.999, 1.0])
    ratio_axis(ax2)
    assert ax2.get_ylim()[0] == 0 and not note_zoom(ax2)
    fig3, ax3 = plt.subplots()
    ax3.plot([1, 2, 3], [10, 200, 400])
    assert not note_zoom(ax3) and "axis" not in ax3.get_ylabel()
    w = wrap_label("ios, host.scheduler=noop, workload.read_ratio=0.5, ftl.write_policy=delay", 28)
    assert all(len(line) <= 40 for line in w.split("\n")) and w.count("\n") >= 2, w
    for f in (fig, fig2, fig3):
        plt.close(f)


def check_plot_reproduce_figures():
    """The chen reproduction (--quick) as a newcomer sees its figures: every bar figure
    normalised to a policy starts its axis at 0 and shows the paper's values ("paper" in
    its legend); no axis is zoomed without saying so."""
    from ssdexp import paper_chen, plot, report

    out = os.path.join(WORK, "chen")
    seen = {}
    write = report.Report.write_figure

    def keep(self, fig, name, dpi=110):
        plot.finish_figure(fig)
        seen[name] = [(ax.get_ylabel(), ax.get_ylim(), ax.get_yscale(),
                       [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else [],
                       [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else [])
                      for ax in fig.axes]
        return write(self, fig, name, dpi)

    report.Report.write_figure = keep
    try:
        paper_chen.reproduce(out, True, 2)
    finally:
        report.Report.write_figure = write
    for name in ("fig4_5.png", "fig6_7.png", "fig8_9.png"):
        assert name in seen, sorted(seen)
        axes = seen[name]
        labels = [x for ax in axes for x in ax[3] + ax[4]]
        assert "paper" in labels, (name, labels)
        for ylabel, (lo, hi), scale, _, _ in axes:
            if "normalised" in ylabel:
                assert lo == 0, (name, ylabel, lo)
    for name, axes in seen.items():
        for ylabel, (lo, hi), scale, _, _ in axes:
            if scale == "linear" and lo > 0 and hi - lo < plot.ZOOM * hi:
                assert "axis from" in ylabel, (name, ylabel, lo, hi)
    for name in seen:
        assert os.path.isfile(os.path.join(out, "figures", name)), name


def check_park_fig5_rows():
    """Fig. 5 of reproduce park compares the static mapping without rescheduling (batching
    on) with the stripe mapping under both reschedulings, whose runs record batch depth 0:
    both must be among its rows (they were not: every Fig. 5 number was n/a)."""
    import pandas as pd
    from ssdexp import paper_park as pp
    rows = [  # load, age, flash, batch, resched, policy, kept
        (pp.MAIN, "aged", "both", "on", "none", "static", True),
        (pp.MAIN, "aged", "both", "off", "both", "stripe", True),
        (pp.MAIN, "aged", "both", "off", "both", "static", True),
        (pp.MAIN, "aged", "both", "on", "none", "stripe", True),
        (pp.MAIN, "aged", "both", "off", "none", "static", False),  # batching off by hand: another arm
        (pp.MAIN, "fresh", "both", "on", "none", "static", False),
        (pp.MAIN, "aged", "n-plane", "on", "none", "static", False),
        (pp.MAIN, "aged", "both", "on", "none", "sqf", False),
    ]
    full = pd.DataFrame([r[:6] for r in rows], columns=["load", "age", "flash", "batch", "resched", "policy"])
    got = set(pp.fig5_rows(full).index)
    want = {i for i, r in enumerate(rows) if r[6]}
    assert got == want, f"Fig. 5 took rows {sorted(got)}, expected {sorted(want)}"


if __name__ == "__main__":
    name = sys.argv[1]
    os.makedirs(WORK, exist_ok=True)
    globals()[f"check_{name}"]()
    print(f"{name}: ok")
