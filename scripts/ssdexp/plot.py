"""scripts/plot SOURCE [--out DIR] [--kind KIND ...] [--metric KEY ...] [--baseline K=V,...]
[--label-by KEY,...] [--format png,svg]

SOURCE: a sweep's directory or its results table (results.parquet / .csv), or one run's
--out directory (stats.json). Figures, each as PNG and SVG:
  cdf         read and write latency CDFs, one line per configuration (from each point's
              requests.csv: sweeps with `requests_csv: true`, runs with
              report.requests_csv=DIR/requests.csv)
  bars        each --metric (default: read and write mean latency) per configuration,
              the mean over seeds with their range, normalised to --baseline if given
  timeseries  each timeseries.csv column of interest over simulated time, per
              configuration (runs with report.interval_us)
  heatmap     per-chip busy ratio (nand.chip_busy_ratio), channels x chips, per point
  parts       where the latency goes (docs/controller.md, "Latency attribution"): the
              latency parts stacked per configuration, read and write, in us and as shares
              of the whole; one figure for the mean latency, one for the slowest 1 %
              (the parts' tail means, which sum to the tail's mean latency)
  parts_time  the latency parts' means per interval, stacked (runs with report.interval_us)
A configuration is a point apart from its seed; --label-by names it by these columns
(default: the keys its points differ in).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .table import flatten, load  # noqa: E402

UNITS = {"latency_us": "us", "iops": "IOPS", "bandwidth_mb_s": "MB/s", "wait_us": "us", "chip_utilization": "chips",
         "sim_time_us": "us", "write_amplification": "", "conflicts": "requests"}
NAMES = {
    "read.latency_us.mean": "mean read latency", "write.latency_us.mean": "mean write latency",
    "all.latency_us.mean": "mean latency", "read.latency_us.p99": "read latency, 99th percentile",
    "write.latency_us.p99": "write latency, 99th percentile", "nand.chip_utilization": "chip utilization",
    "host.read_wait_us": "mean read wait in the host queue", "host.write_wait_us": "mean write wait in the host queue",
    "host.read_conflicts": "read conflicts", "host.write_conflicts": "write conflicts",
    "nand.chip_idle_while_others_busy_ratio.mean": "per-chip idle time ratio",
}


def unit_of(metric: str) -> str:
    for k, u in UNITS.items():
        if k in metric:
            return u
    return ""


def describe(metric: str) -> str:
    u = unit_of(metric)
    return NAMES.get(metric, metric) + (f" ({u})" if u else "")


def source_table(src: str) -> pd.DataFrame:
    """A results table; one run's directory becomes a table of one row."""
    if os.path.isdir(src) and os.path.isfile(os.path.join(src, "stats.json")):
        with open(os.path.join(src, "stats.json")) as f:
            r = flatten(json.load(f))
        cfg = os.path.join(src, "config.json")
        if os.path.isfile(cfg):
            with open(cfg) as f:
                r.update(flatten(json.load(f)))
        r.update({"point_dir": os.path.abspath(src), "status": "ok", "group": "", "seed": r.get("workload.seed")})
        return pd.DataFrame([r])
    return load(src)


def overrides_of(r) -> dict:
    """A row's SPEC settings (its `overrides` column: KEY=VALUE ..., later ones win)."""
    out = {}
    text = r.get("overrides") if hasattr(r, "get") else None
    if isinstance(text, str):
        for part in text.split():
            if "=" in part:
                k, v = part.split("=", 1)
                out[k] = v
    return out


def varying(df: pd.DataFrame) -> list:
    """The keys the SPEC set differently across the points (seed aside), in SPEC order."""
    keys, values = [], {}
    for _, r in df.iterrows():
        for k, v in overrides_of(r).items():
            if k == "workload.seed":
                continue
            if k not in values:
                keys.append(k)
                values[k] = set()
            values[k].add(v)
    n = len(df)
    return [k for k in keys if len(values[k]) > 1 or sum(1 for _, r in df.iterrows() if k in overrides_of(r)) < n]


def labels(df: pd.DataFrame, label_by) -> pd.Series:
    keys = label_by if label_by else varying(df)
    if not label_by and "group" in df.columns and df["group"].astype(str).nunique() > 1:
        # The group's name stands for the keys each group holds at one value.
        def per_group_constant(k):
            return all(g.apply(lambda r: overrides_of(r).get(k), axis=1).nunique(dropna=False) <= 1
                       for _, g in df.groupby("group"))
        keys = ["group"] + [k for k in keys if not per_group_constant(k)]
    if not keys:
        return pd.Series(["run"] * len(df), index=df.index)

    def name(r):
        parts = []
        for k in keys:
            v = r.get(k)
            if k not in r.index:
                v = overrides_of(r).get(k)
            parts.append(f"{v}" if k == "group" else f"{k}={v}")
        return ", ".join(parts)

    return df.apply(name, axis=1)


def _save(fig, out, name, formats):
    paths = []
    for fmt in formats:
        p = os.path.join(out, f"{name}.{fmt}")
        fig.savefig(p, dpi=120, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def plot_cdf(df, out, label_by, formats, name="latency_cdf"):
    ok = df[df["status"] == "ok"].copy()
    ok["label"] = labels(ok, label_by)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    drawn = 0
    for ax, op in zip(axes, ("read", "write")):
        for label, g in ok.groupby("label", sort=False):
            lat = []
            for d in g["point_dir"]:
                f = os.path.join(d, "requests.csv")
                if os.path.isfile(f):
                    r = pd.read_csv(f, usecols=["op", "latency_us"])
                    lat.append(r.loc[r["op"].str.upper().str.startswith(op[0].upper()), "latency_us"])
            if not lat:
                continue
            s = pd.concat(lat).sort_values().reset_index(drop=True)
            if s.empty:
                continue
            ax.plot(s.values, (s.index + 1) / len(s), label=label)
            drawn += 1
        ax.set_xscale("log")
        ax.set_xlabel(f"{op} latency (us, log scale)")
        ax.set_title(f"{op} latency CDF")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("fraction of requests")
    if not drawn:
        plt.close(fig)
        raise ValueError("no requests.csv in the points (sweep with `requests_csv: true`)")
    axes[1].legend(fontsize=7, loc="lower right")
    return _save(fig, out, name, formats)


def aggregate(df, metric, label_by):
    ok = df[df["status"] == "ok"].copy()
    ok["label"] = labels(ok, label_by)
    g = ok.groupby("label", sort=False)[metric]
    return pd.DataFrame({"mean": g.mean(), "min": g.min(), "max": g.max(), "n": g.count()})


def plot_bars(df, out, metrics, baseline, label_by, formats, name="bars"):
    paths = []
    for m in metrics:
        if m not in df.columns:
            raise ValueError(f"--metric {m}: no such column")
        a = aggregate(df, m, label_by)
        ylabel = describe(m)
        title = NAMES.get(m, m)
        if baseline:
            ok = df[df["status"] == "ok"]
            match = ok[ok.apply(lambda r: all(str(r.get(k, overrides_of(r).get(k))) == v or
                                              overrides_of(r).get(k) == v for k, v in baseline.items()), axis=1)]
            if match.empty:
                raise ValueError(f"--baseline {baseline}: no configuration matches")
            ref_label = labels(ok, label_by).loc[match.index[0]]
            ref = a.loc[ref_label, "mean"]
            a[["mean", "min", "max"]] = a[["mean", "min", "max"]] / ref
            ylabel = f"{NAMES.get(m, m)}, normalised"
            title += f" (1 = {ref_label})"
        fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(a) + 2), 4.5))
        x = range(len(a))
        ax.bar(x, a["mean"], yerr=[a["mean"] - a["min"], a["max"] - a["mean"]], capsize=3, color="#4a7ab5")
        ax.set_xticks(list(x))
        ax.set_xticklabels(a.index, rotation=30, ha="right", rotation_mode="anchor", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if baseline:
            ax.axhline(1.0, color="k", lw=0.8)
        ax.grid(True, axis="y", alpha=0.3)
        paths += _save(fig, out, f"{name}_{m.replace('.', '_')}", formats)
    return paths


TS_COLUMNS = [("read_mean_us", "mean read latency (us)"), ("write_mean_us", "mean write latency (us)"),
              ("chips_busy", "chips busy (time average)"), ("free_blocks_min", "free blocks, fewest on a plane"),
              ("write_amplification", "write amplification")]


def plot_timeseries(df, out, label_by, formats, name="timeseries"):
    ok = df[df["status"] == "ok"].copy()
    ok["label"] = labels(ok, label_by)
    fig, axes = plt.subplots(len(TS_COLUMNS), 1, figsize=(10, 2.2 * len(TS_COLUMNS)), sharex=True)
    drawn = 0
    for _, r in ok.drop_duplicates("label").iterrows():
        f = os.path.join(r["point_dir"], "timeseries.csv")
        if not os.path.isfile(f):
            continue
        t = pd.read_csv(f)
        mid = (t["start_us"] + t["end_us"]) / 2e3
        for ax, (c, lab) in zip(axes, TS_COLUMNS):
            if c in t.columns:
                ax.plot(mid, t[c], label=r["label"], lw=1)
                ax.set_ylabel(lab, fontsize=8)
        drawn += 1
    if not drawn:
        plt.close(fig)
        raise ValueError("no timeseries.csv in the points (set report.interval_us)")
    axes[-1].set_xlabel("simulated time (ms)")
    axes[0].legend(fontsize=7)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.suptitle("per interval of report.interval_us")
    return _save(fig, out, name, formats)


def plot_heatmap(df, out, label_by, formats, name="chip_busy"):
    ok = df[df["status"] == "ok"].copy()
    ok["label"] = labels(ok, label_by)
    paths = []
    for i, (_, r) in enumerate(ok.drop_duplicates("label").iterrows()):
        busy = json.loads(r["nand.chip_busy_ratio"]) if isinstance(r["nand.chip_busy_ratio"], str) else r[
            "nand.chip_busy_ratio"]
        ch, chips = int(r["nand.channels"]), int(r["nand.chips_per_channel"])
        grid = [busy[c * chips:(c + 1) * chips] for c in range(ch)]
        fig, ax = plt.subplots(figsize=(1 + 0.5 * chips, 1 + 0.35 * ch))
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xlabel("chip")
        ax.set_ylabel("channel")
        ax.set_title(f"busy time ratio per chip\n{r['label']}", fontsize=8)
        fig.colorbar(im, ax=ax, label="fraction of the run busy")
        paths += _save(fig, out, f"{name}_{i}", formats)
    return paths


# The latency parts in path order (tlm/latency_parts.h), with colours by family: host
# side in greys, firmware in browns, waiting on conflicts in reds and oranges, the block's
# idle queue, then the bus in blues, registers and array in greens.
PARTS = [
    ("host_queue", "#bdbdbd"), ("ncq_wait", "#969696"), ("host_link_in", "#737373"), ("firmware_queue", "#d9b38c"),
    ("firmware_busy", "#a0522d"), ("write_buffer", "#e7ba52"), ("rmw_read", "#8c6d31"), ("write_stall", "#843c39"),
    ("read_retry", "#7b4173"), ("firmware_sched", "#cedb9c"), ("wordline_wait", "#bd9e39"), ("conflict_host_read", "#fdae6b"), ("conflict_host_write", "#e6550d"),
    ("conflict_gc_read", "#fc9272"), ("conflict_gc_program", "#de2d26"), ("conflict_erase", "#a50f15"),
    ("conflict_map", "#67000d"),
    ("block_queue", "#9e9ac8"), ("bus_wait", "#9ecae1"), ("bus_command", "#4292c6"), ("bus_data", "#08519c"),
    ("register_wait", "#a1d99b"), ("array", "#31a354"), ("ecc_decode", "#74c476"), ("completion", "#636363"), ("host_link_out", "#252525"),
]


def _stacked(ax, labels_, values, total_label, normalise):
    """Stacked bars: values is {part: [v per label]}; parts all zero are left out."""
    x = list(range(len(labels_)))
    bottom = [0.0] * len(labels_)
    totals = [sum(values[p][i] for p, _ in PARTS if p in values) for i in range(len(labels_))]
    drawn = []
    for p, colour in PARTS:
        v = values.get(p)
        if v is None or not any(abs(a) > 0 for a in v):
            continue
        if normalise:
            v = [a / t if t else 0.0 for a, t in zip(v, totals)]
        ax.bar(x, v, bottom=bottom, color=colour, label=p, width=0.7)
        bottom = [b + a for b, a in zip(bottom, v)]
        drawn.append(p)
    ax.set_xticks(x)
    ax.set_xticklabels(labels_, rotation=30, ha="right", rotation_mode="anchor", fontsize=8)
    ax.set_ylabel("share of the latency" if normalise else total_label)
    ax.grid(True, axis="y", alpha=0.3)
    return drawn


def plot_parts(df, out, label_by, formats, name="latency_parts"):
    ok = df[df["status"] == "ok"].copy()
    if not any(c.startswith("read.latency_parts.") for c in ok.columns):
        raise ValueError("no latency_parts in the results (a model older than the latency attribution)")
    ok["label"] = labels(ok, label_by)
    paths = []
    for stat, what in (("mean_us", "mean latency"), ("tail_us", "slowest 1 % (p99 bucket and above)")):
        fig, axes = plt.subplots(2, 2, figsize=(max(10, 1.2 * ok["label"].nunique() + 6), 8.5))
        legend = []
        for row, op in enumerate(("read", "write")):
            vals = {}
            names = list(dict.fromkeys(ok["label"]))
            for p, _ in PARTS:
                col = f"{op}.latency_parts.{p}.{stat}"
                if col in ok.columns:
                    g = ok.groupby("label", sort=False)[col].mean()
                    vals[p] = [float(g.get(n, 0.0)) for n in names]
            for col_i, norm in enumerate((False, True)):
                ax = axes[row][col_i]
                drawn = _stacked(ax, names, vals, f"{op} latency (us)", norm)
                legend += [d for d in drawn if d not in legend]
                ax.set_title(f"{op}: {what}" + (", shares" if norm else ", us (mean over seeds)"), fontsize=9)
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for p, c in PARTS if p in legend]
        fig.legend(handles, [p for p, _ in PARTS if p in legend], loc="center left", bbox_to_anchor=(1.0, 0.5),
                   fontsize=8, title="latency part")
        fig.suptitle(f"Where the latency goes: {what}")
        fig.tight_layout()
        paths += _save(fig, out, f"{name}_{stat.split('_')[0]}", formats)
    return paths


def plot_parts_time(df, out, label_by, formats, name="latency_parts_time"):
    ok = df[df["status"] == "ok"].copy()
    ok["label"] = labels(ok, label_by)
    paths = []
    for i, (_, r) in enumerate(ok.drop_duplicates("label").iterrows()):
        f = os.path.join(r["point_dir"], "timeseries.csv")
        if not os.path.isfile(f):
            continue
        t = pd.read_csv(f)
        if "read_part_array_us" not in t.columns:
            raise ValueError(f"{f}: no latency part columns (a model older than the latency attribution)")
        mid = (t["start_us"] + t["end_us"]) / 2e3
        fig, axes = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
        legend = []
        for ax, op in zip(axes, ("read", "write")):
            # A part of a feature that was off has no column (tlm/latency_parts.h: optional parts).
            cols = [(p, c) for p, c in PARTS if f"{op}_part_{p}_us" in t.columns and (t[f"{op}_part_{p}_us"] > 0).any()]
            if cols:
                ax.stackplot(mid, [t[f"{op}_part_{p}_us"] for p, _ in cols], colors=[c for _, c in cols],
                             step="mid")
                ax.plot(mid, t[f"{op}_mean_us"], color="k", lw=0.8, ls="--")
            legend += [p for p, _ in cols if p not in legend]
            ax.set_ylabel(f"mean {op} latency (us)")
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("simulated time (ms)")
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for p, c in PARTS if p in legend]
        handles.append(plt.Line2D([0], [0], color="k", lw=0.8, ls="--"))
        fig.legend(handles, [p for p, _ in PARTS if p in legend] + ["mean latency"], loc="center left",
                   bbox_to_anchor=(1.0, 0.5), fontsize=8, title="latency part")
        fig.suptitle(f"Where the latency goes, per interval of report.interval_us\n{r['label']}", fontsize=10)
        fig.tight_layout()
        paths += _save(fig, out, f"{name}_{i}", formats)
    if not paths:
        raise ValueError("no timeseries.csv in the points (set report.interval_us)")
    return paths


def parse_baseline(text):
    if not text:
        return None
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise ValueError(f"--baseline {text}: expected KEY=VALUE[,KEY=VALUE]")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/plot", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source")
    ap.add_argument("--out", help="directory for the figures (default: SOURCE's directory)/plots")
    ap.add_argument("--kind", nargs="+", default=["cdf", "bars", "timeseries", "heatmap", "parts", "parts_time"],
                    choices=["cdf", "bars", "timeseries", "heatmap", "parts", "parts_time"])
    ap.add_argument("--metric", nargs="+", default=["read.latency_us.mean", "write.latency_us.mean"])
    ap.add_argument("--baseline", help="the configuration bars are normalised to, e.g. host.scheduler=noop")
    ap.add_argument("--label-by", help="comma-separated columns that name a configuration")
    ap.add_argument("--format", default="png,svg")
    a = ap.parse_args(argv)
    try:
        df = source_table(a.source)
        base_dir = a.source if os.path.isdir(a.source) else os.path.dirname(os.path.abspath(a.source))
        out = a.out or os.path.join(base_dir, "plots")
        os.makedirs(out, exist_ok=True)
        formats = [f.strip() for f in a.format.split(",") if f.strip()]
        label_by = [k.strip() for k in a.label_by.split(",")] if a.label_by else None
        baseline = parse_baseline(a.baseline)
        written = []
        for kind in a.kind:
            try:
                if kind == "cdf":
                    written += plot_cdf(df, out, label_by, formats)
                elif kind == "bars":
                    written += plot_bars(df, out, a.metric, baseline, label_by, formats)
                elif kind == "timeseries":
                    written += plot_timeseries(df, out, label_by, formats)
                elif kind == "parts":
                    written += plot_parts(df, out, label_by, formats)
                elif kind == "parts_time":
                    written += plot_parts_time(df, out, label_by, formats)
                else:
                    written += plot_heatmap(df, out, label_by, formats)
            except ValueError as e:
                if len(a.kind) == 1:
                    raise
                print(f"scripts/plot: {kind}: skipped: {e}", file=sys.stderr)
    except (ValueError, OSError, KeyError) as e:
        print(f"scripts/plot: error: {e}", file=sys.stderr)
        return 2
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
