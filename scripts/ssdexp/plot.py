"""scripts/plot SOURCE [--out DIR] [--kind KIND ...] [--metric KEY ...] [--baseline K=V,...]
[--label-by KEY,...] [--format png,svg]

SOURCE: a sweep's directory or its results table (results.parquet / .csv), or one run's
--out directory (stats.json). Figures, each as PNG and SVG:
  cdf         read and write latency CDFs, one line per configuration (from each point's
              requests.csv: sweeps with `requests_csv: true`, runs with
              report.requests_csv=requests.csv and --out DIR)
  bars        each --metric (default: read and write mean latency) per configuration,
              the mean over seeds with their range, each bar labelled with its absolute
              value and unit; normalised to --baseline if given (the axis from 0)
  timeseries  IOPS and each timeseries.csv column of interest over simulated time, per
              configuration (runs with report.interval_us)
  heatmap     per-chip busy ratio (nand.chip_busy_ratio), channels x chips, one figure
              per configuration, named by it (chip_busy_KEY-VALUE...)
  parts       where the latency goes (docs/controller.md, "Latency attribution"): the
              latency parts stacked per configuration, read and write, in us and as shares
              of the whole; one figure for the mean latency, one for the slowest 1 %
              (the parts' tail means, which sum to the tail's mean latency)
  parts_time  the latency parts' means per interval, stacked (runs with report.interval_us),
              one figure per configuration, named by it (latency_parts_time_KEY-VALUE...)
A configuration is a point apart from its seed; --label-by names it by these columns
(default: the keys its points differ in, the group's name for the keys a group fixes).

What the figures say, so that they are not misread:
* --baseline must name exactly one configuration: one that matches none or several is an
  error (exit 2) that lists the configurations (and a key that tells the matches apart).
  A --metric that is not a column is an error naming the closest columns.
* With a single configuration (one run, or one configuration's seeds) `bars` draws
  nothing: there is nothing to compare, and a one-bar chart reads as a comparison. It
  prints the configuration's values (mean and range over its seeds) on stderr instead,
  and the other kinds, which describe one configuration as well as several, are drawn.
* A run's last interval of report.interval_us is usually partial (it ends at the last
  completion), so its rates dip: `timeseries` draws it as a dashed last segment to a
  hollow marker, `parts_time` shades it, and both say so in the legend. An interval in
  which no read (write) completed has no read (write) latency: a gap, not a zero.
* An axis that does not start at 0 and spans less than a fifth of its values says so in
  its label ("axis from X, not 0"): a tiny range is never blown up silently.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .table import flatten, load  # noqa: E402

UNITS = {"latency_us": "us", "iops": "IOPS", "bandwidth_mb_s": "MB/s", "wait_us": "us", "chip_utilization": "chips",
         "sim_time_us": "us", "write_amplification": "", "conflicts": "requests", "_us": "us", "mb_s": "MB/s"}
NAMES = {
    "read.latency_us.mean": "mean read latency", "write.latency_us.mean": "mean write latency",
    "all.latency_us.mean": "mean latency", "read.latency_us.p99": "read latency, 99th percentile",
    "write.latency_us.p99": "write latency, 99th percentile", "nand.chip_utilization": "chip utilization",
    "host.read_wait_us": "mean read wait in the host queue", "host.write_wait_us": "mean write wait in the host queue",
    "host.read_conflicts": "read conflicts", "host.write_conflicts": "write conflicts",
    "nand.chip_idle_while_others_busy_ratio.mean": "per-chip idle time ratio",
}


class UsageError(ValueError):
    """A command line that names what is not there (a --metric, a --baseline): exit 2,
    whatever kinds were asked for, never a figure skipped."""


class NothingToCompare(ValueError):
    """One configuration where a kind compares several: not an error, said on stderr."""


def unit_of(metric: str) -> str:
    for k, u in UNITS.items():
        if k in metric:
            return u
    return ""


def describe(metric: str) -> str:
    u = unit_of(metric)
    return NAMES.get(metric, metric) + (f" ({u})" if u else "")


def fmt_value(v, unit: str = "") -> str:
    """An absolute value for a label: 4 significant digits, thousands without decimals."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    v = float(v)
    text = f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    return f"{text} {unit}".strip()


# --- figure helpers, shared with the reproductions (report.Report.write_figure) ----------

ZOOM = 0.2  # an axis spanning less than this share of its values, not from 0, says so


def note_zoom(ax) -> bool:
    """If the y axis does not start at 0 and spans less than ZOOM of its values (0.997 to
    1.000, say), append "(axis from LO, not 0)" to its label; True if it did."""
    if ax.get_yscale() != "linear" or not ax.has_data() or not ax.get_visible():
        return False
    lo, hi = sorted(ax.get_ylim())
    if lo > 0 and hi - lo < ZOOM * hi:
        note = f"axis from {lo:.4g}, not 0"
    elif hi < 0 and hi - lo < ZOOM * -lo:
        note = f"axis to {hi:.4g}, not 0"
    else:
        return False
    label = ax.get_ylabel()
    if note not in label:
        ax.set_ylabel(f"{label}\n({note})" if label else f"({note})")
    return True


def ratio_axis(ax, ref: float = 1.0):
    """A normalised (ratio) axis: from 0, with the reference line, so that a ratio's
    height is its value and a small difference looks small."""
    lo, hi = ax.get_ylim()
    ax.set_ylim(0, max(hi, ref * 1.05))
    ax.axhline(ref, color="k", lw=0.8)


def finish_figure(fig):
    """Before a figure is saved: every axis that zooms says so (note_zoom), and the
    layout keeps labels apart (tight_layout, unless the figure lays itself out)."""
    import warnings

    for ax in fig.axes:
        note_zoom(ax)
    if not fig.get_constrained_layout():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fig.tight_layout()
            except (ValueError, RuntimeError):
                pass


def wrap_label(text: str, width: int = 24) -> str:
    """A configuration's name on lines of about `width` characters, broken after its commas."""
    text = str(text)
    if len(text) <= width:
        return text
    lines, cur = [], ""
    for part in text.split(", "):
        piece = part if not cur else cur + ", " + part
        if cur and len(piece) > width:
            lines.append(cur + ",")
            cur = part
        else:
            cur = piece
    lines.append(cur)
    return "\n".join(lines)


CHAR_IN = 0.06  # the width of a character of an 8-point tick label, inches (about)


def slot_inches(names, width: int = 24) -> float:
    """The width a configuration's tick label needs, wrapped at `width` characters."""
    longest = max((len(line) for n in names for line in wrap_label(n, width).split("\n")), default=1)
    return longest * CHAR_IN + 0.15


def label_ticks(ax, names, width: int = 24):
    """x tick labels for configurations, so that no two overlap: level (wrapped at their
    commas) where each fits the space of its tick; else one line at 30 degrees; else,
    past 60 characters, wrapped and upright."""
    names = [str(n) for n in names]
    fig = ax.get_figure()
    slot = ax.get_position().width * fig.get_figwidth() / max(1, len(names))
    if slot_inches(names, width) <= slot:
        ax.set_xticklabels([wrap_label(n, width) for n in names], fontsize=8)
    elif max(map(len, names), default=0) <= 60:
        ax.set_xticklabels(names, rotation=30, ha="right", rotation_mode="anchor", fontsize=8)
    else:
        ax.set_xticklabels([wrap_label(n, width) for n in names], rotation=90, ha="center", fontsize=8)


def legend_outside(ax, **kw):
    """The legend right of the axes, where it hides no bar."""
    kw.setdefault("fontsize", 7)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def mark_missing(ax, xs, ys, text="n/a"):
    """Write `text` at the foot of each bar position whose value is missing (not run)."""
    for x, y in zip(xs, ys):
        if y is None or (isinstance(y, float) and not math.isfinite(y)):
            ax.annotate(text, (x, 0), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        fontsize=6, rotation=90, color="0.35")


def bar_values(ax, xs, ys, fmt="{:.2f}", fontsize=6):
    """Each bar's value written up its foot, inside it (clear of marks drawn at its top)."""
    for x, y in zip(xs, ys):
        if y is None or (isinstance(y, float) and not math.isfinite(y)) or y <= 0:
            continue
        ax.annotate(fmt.format(y), (x, 0), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                    fontsize=fontsize, rotation=90, color="white", fontweight="bold")


def paper_marks(ax, xs, ys, label="paper", **kw):
    """The paper's values as black dashes at xs (None: the paper gives none there)."""
    pts = [(x, y) for x, y in zip(xs, ys) if y is not None and not (isinstance(y, float) and math.isnan(y))]
    if not pts:
        return None
    style = dict(marker="_", color="k", ms=14, mew=2.2, ls="none", zorder=5)
    style.update(kw)
    return ax.plot([x for x, _ in pts], [y for _, y in pts], label=label, **style)


# --- the results -------------------------------------------------------------------------

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


def value_of(r, k):
    """Row r's value of key k: its column, else its SPEC setting."""
    if k in r.index:
        v = r[k]
        if not (v is None or (isinstance(v, float) and math.isnan(v))):
            return v
    return overrides_of(r).get(k)


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
            v = value_of(r, k)
            parts.append(f"{v}" if k == "group" else f"{k}={v}")
        return ", ".join(parts)

    return df.apply(name, axis=1)


def configurations(df: pd.DataFrame, label_by) -> pd.DataFrame:
    """The points that ran, each with its configuration's name (`label`)."""
    ok = df[df["status"] == "ok"].copy()
    ok["label"] = labels(ok, label_by)
    return ok


def file_names(names) -> dict:
    """A file-name part per configuration name: "ios, host.scheduler=noop" ->
    "ios_host.scheduler-noop"; "" for a single unnamed run; unique."""
    out, used = {}, set()
    for n in dict.fromkeys(names):
        s = "" if n == "run" else re.sub(r"[^A-Za-z0-9._+-]+", "_", str(n).replace(", ", "_").replace("=", "-"))
        s = s.strip("_.")[:120]
        base, k = s, 2
        while s in used:
            s, k = f"{base}_{k}", k + 1
        used.add(s)
        out[n] = s
    return out


def _same(value, wanted: str) -> bool:
    if value is None:
        return False
    if str(value) == wanted or str(value).lower() == wanted.lower() and wanted.lower() in ("true", "false"):
        return True
    try:
        return float(value) == float(wanted)
    except (TypeError, ValueError):
        return False


def closest(name: str, columns, n: int = 6) -> list:
    """The columns nearest to a name that is not one: those ending in it (a key without its
    section: write_amplification -> ftl.write_amplification), holding it, then difflib's."""
    cols = [str(c) for c in columns]
    low = name.lower()
    ends = [c for c in cols if c.lower().endswith("." + low) or c.lower().endswith(low)]
    holds = [c for c in cols if low in c.lower() and c not in ends]
    parts = [c for c in cols if all(p in c.lower() for p in re.split(r"[._]", low) if p) and c not in ends + holds]
    near = difflib.get_close_matches(name, cols, n=n, cutoff=0.6)
    tail = {c.rsplit(".", 1)[-1]: c for c in cols}
    near += [tail[t] for t in difflib.get_close_matches(name.rsplit(".", 1)[-1], list(tail), n=n, cutoff=0.75)]
    out = []
    for c in sorted(ends, key=len) + sorted(holds, key=len) + sorted(parts, key=len) + near:
        if c not in out:
            out.append(c)
    return out[:n]


def check_metric(df: pd.DataFrame, m: str) -> str:
    """m if it is a column of numbers; a UsageError naming the closest columns otherwise."""
    if m not in df.columns:
        near = closest(m, df.columns)
        raise UsageError(f"--metric {m}: no such column" + (f"; the closest: {', '.join(near)}" if near else ""))
    if not pd.api.types.is_numeric_dtype(pd.to_numeric(df[m], errors="coerce")) or \
            pd.to_numeric(df[m], errors="coerce").notna().sum() == 0:
        raise UsageError(f"--metric {m}: not a column of numbers")
    return m


def config_keys(ok: pd.DataFrame) -> list:
    """The keys that tell the configurations apart: the SPEC's varying keys, the group."""
    keys = varying(ok)
    if "group" in ok.columns and ok["group"].astype(str).nunique() > 1:
        keys = keys + ["group"]
    return keys


def resolve_baseline(df: pd.DataFrame, baseline: dict, label_by, text: str = "") -> str:
    """The name of the one configuration every setting of `baseline` matches; a UsageError
    listing the configurations when none or several do."""
    ok = configurations(df, label_by)
    text = text or ",".join(f"{k}={v}" for k, v in baseline.items())
    for k in baseline:
        if k not in ok.columns and not any(k in overrides_of(r) for _, r in ok.iterrows()):
            near = closest(k, ok.columns)
            raise UsageError(f"--baseline {text}: {k} is not a column of the results"
                             + (f"; the closest: {', '.join(near)}" if near else ""))
    keys = config_keys(ok)
    first = ok.drop_duplicates("label")

    def described(lab):
        r = first[first["label"] == lab].iloc[0]
        full = ", ".join(f"{k}={value_of(r, k)}" for k in keys if k != "group")
        return f"  {lab}" + (f"  ({full})" if full and full != lab else "")

    def matching(rows, sets):
        return rows[rows.apply(lambda r: all(_same(value_of(r, k), v) for k, v in sets.items()), axis=1)]

    names = list(dict.fromkeys(matching(ok, baseline)["label"]))
    if not names:
        listing = "\n".join(described(n) for n in dict.fromkeys(ok["label"]))
        raise UsageError(f"--baseline {text} matches none of the {ok['label'].nunique()} configurations:\n{listing}")
    if len(names) > 1:
        rows = first[first["label"].isin(names)]
        # A key or two that single out the first match: the example of the message.
        r0, extra = rows.iloc[0], {}
        for k in keys:
            if k in baseline or rows.apply(lambda r: str(value_of(r, k)), axis=1).nunique() < 2:
                continue
            extra[k] = str(value_of(r0, k))
            if matching(rows, dict(baseline, **extra))["label"].nunique() == 1:
                break
        hint = ("\nname one, e.g. --baseline " + ",".join([text] + [f"{k}={v}" for k, v in extra.items()])
                if extra else "")
        raise UsageError(f"--baseline {text} matches {len(names)} configurations, not one:\n"
                         + "\n".join(described(n) for n in names) + hint)
    return names[0]


# --- the kinds ---------------------------------------------------------------------------

def _save(fig, out, name, formats):
    finish_figure(fig)
    paths = []
    for fmt in formats:
        p = os.path.join(out, f"{name}.{fmt}")
        fig.savefig(p, dpi=120, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def plot_cdf(df, out, label_by, formats, name="latency_cdf"):
    ok = configurations(df, label_by)
    one = ok["label"].nunique() == 1
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
    if one:  # one line per panel: its name in the title, no legend to compare
        lab = ok["label"].iloc[0]
        fig.suptitle("one configuration" + ("" if lab == "run" else f": {lab}"), fontsize=9)
    else:
        legend_outside(axes[1])
    return _save(fig, out, name, formats)


def aggregate(df, metric, label_by):
    ok = configurations(df, label_by)
    g = pd.to_numeric(ok[metric], errors="coerce").groupby(ok["label"], sort=False)
    return pd.DataFrame({"mean": g.mean(), "min": g.min(), "max": g.max(), "n": g.count()})


def bar_table(df, metric, baseline, label_by):
    """What a bars figure draws: per configuration (index, in order) the mean over its
    seeds, their min and max, their count, normalised by the baseline's mean if a baseline
    is given (`mean`, `min`, `max`), with the absolute mean beside (`absolute`) and the
    text each bar carries (`text`: the absolute mean and its unit). The baseline's name is
    in .attrs["baseline"]."""
    a = aggregate(df, metric, label_by)
    a["absolute"] = a["mean"]
    unit = unit_of(metric)
    a["text"] = [fmt_value(v, unit) for v in a["absolute"]]
    a.attrs["baseline"] = None
    if baseline:
        ref_label = resolve_baseline(df, baseline, label_by)
        ref = a.loc[ref_label, "mean"]
        if not ref or not math.isfinite(ref):
            raise UsageError(f"--baseline: {metric} of '{ref_label}' is {ref}: nothing to normalise by")
        a[["mean", "min", "max"]] = a[["mean", "min", "max"]] / ref
        a.attrs["baseline"] = ref_label
    return a


def one_configuration(df, metrics, label_by) -> str:
    """The message of a bars figure not drawn: the one configuration and its values."""
    ok = configurations(df, label_by)
    lab = ok["label"].iloc[0]
    vals = []
    for m in metrics:
        v = pd.to_numeric(ok[m], errors="coerce")
        vals.append(f"{m} = {fmt_value(v.mean(), unit_of(m))}"
                    + (f" (mean of {v.count()} seeds, {fmt_value(v.min())} .. {fmt_value(v.max())})"
                       if v.count() > 1 else ""))
    return (f"one configuration{'' if lab == 'run' else ' (' + lab + ')'}: nothing to compare, no bar chart; "
            + "; ".join(vals))


def plot_bars(df, out, metrics, baseline, label_by, formats, name="bars"):
    for m in metrics:
        check_metric(df, m)
    if configurations(df, label_by)["label"].nunique() < 2:
        raise NothingToCompare(one_configuration(df, metrics, label_by))
    paths = []
    for m in metrics:
        a = bar_table(df, m, baseline, label_by)
        ylabel = describe(m)
        title = NAMES.get(m, m) + (f" (mean over {int(a['n'].max())} seeds; whiskers: their range)"
                                   if a["n"].max() > 1 else "")
        ref_label = a.attrs["baseline"]
        if ref_label is not None:
            ylabel = f"{NAMES.get(m, m)}, normalised"
            title += "\n" + wrap_label(f"1 = {ref_label} ({a.loc[ref_label, 'text']}); on the bars: absolute values", 90)
        fig, ax = plt.subplots(figsize=(max(6, 0.75 * len(a) + 2), 4.8))
        x = list(range(len(a)))
        ax.bar(x, a["mean"], yerr=[a["mean"] - a["min"], a["max"] - a["mean"]], capsize=3, color="#4a7ab5")
        vertical = len(a) > 6 or a["text"].str.len().max() > 9
        for xi, top, t in zip(x, a["max"], a["text"]):
            ax.annotate(t, (xi, top if math.isfinite(top) else 0), xytext=(0, 3), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7, rotation=90 if vertical else 0)
        ax.margins(y=0.18 if vertical else 0.1)
        ax.set_xticks(x)
        label_ticks(ax, a.index)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
        if ref_label is not None:
            ratio_axis(ax)
        else:
            ax.set_ylim(bottom=min(0, ax.get_ylim()[0]))
        ax.grid(True, axis="y", alpha=0.3)
        paths += _save(fig, out, f"{name}_{m.replace('.', '_')}", formats)
    return paths


TS_COLUMNS = [("iops", "IOPS, read + write"), ("read_mean_us", "mean read latency (us)"),
              ("write_mean_us", "mean write latency (us)"), ("chips_busy", "chips busy (time average)"),
              ("free_blocks_min", "free blocks, fewest on a plane"), ("write_amplification", "write amplification")]
# Per-request means of an interval, of the requests of one operation completed in it:
# none when none completed.
_OP_MEANS = {"read": re.compile(r"^read_(mean|p99|part_.*)_us$"), "write": re.compile(r"^write_(mean|p99|part_.*)_us$")}


def interval_of(r) -> float | None:
    """The point's report.interval_us, if its row has it (else None)."""
    try:
        v = float(value_of(r, "report.interval_us"))
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def intervals(t: pd.DataFrame, interval_us: float | None = None) -> pd.DataFrame:
    """A timeseries.csv as drawn: `mid_ms` (the interval's middle, ms), `length_us`,
    `partial` (shorter than report.interval_us, or than the longest interval when it is not
    known: a run's last interval, which ends at its last completion, so that its rates
    dip), `iops` (read + write); the latency means of an operation of which no request
    completed in the interval are missing (NaN), not 0."""
    t = t.copy()
    t["length_us"] = t["end_us"] - t["start_us"]
    nominal = interval_us or (t["length_us"].max() if len(t) else 0)
    t["partial"] = t["length_us"] < nominal * (1 - 1e-6)
    t["mid_ms"] = (t["start_us"] + t["end_us"]) / 2e3
    if "read_iops" in t and "write_iops" in t:
        t["iops"] = t["read_iops"] + t["write_iops"]
    for op, pat in _OP_MEANS.items():
        if f"{op}_iops" in t:
            none = t[f"{op}_iops"] <= 0
            for c in t.columns:
                if pat.match(c):
                    t[c] = t[c].mask(none)
    t.attrs["interval_us"] = nominal
    return t


def split_partial(t: pd.DataFrame, column: str):
    """The series of one column as drawn: (full, partial), each a (x ms, y) pair of lists:
    the whole intervals (a solid line), and the partial ones (a dashed segment from the
    last whole one to a hollow marker)."""
    full, part = t[~t["partial"]], t[t["partial"]]
    return (list(full["mid_ms"]), list(full[column])), (list(part["mid_ms"]), list(part[column]))


PARTIAL_NOTE = "last interval: partial"


def plot_timeseries(df, out, label_by, formats, name="timeseries"):
    ok = configurations(df, label_by)
    fig, axes = plt.subplots(len(TS_COLUMNS), 1, figsize=(10, 2.2 * len(TS_COLUMNS)), sharex=True)
    drawn, partial, names = 0, [], []
    for i, (_, r) in enumerate(ok.drop_duplicates("label").iterrows()):
        f = os.path.join(r["point_dir"], "timeseries.csv")
        if not os.path.isfile(f):
            continue
        t = intervals(pd.read_csv(f), interval_of(r))
        colour = f"C{i % 10}"
        for ax, (c, lab) in zip(axes, TS_COLUMNS):
            if c not in t.columns:
                continue
            (fx, fy), (px, py) = split_partial(t, c)
            ax.plot(fx, fy, color=colour, lw=1, marker=".", ms=3, label=r["label"])
            if px:
                prev = ([fx[-1]], [fy[-1]]) if fx else ([], [])
                ax.plot(prev[0] + px, prev[1] + py, color=colour, lw=1, ls="--")
                ax.plot(px, py, ls="none", marker="o", ms=5, mfc="white", mec=colour)
            ax.set_ylabel(lab, fontsize=8)
        if t["partial"].any():
            last = t[t["partial"]].iloc[-1]
            partial.append(f"{last['length_us'] / 1e3:.3g} of {t.attrs['interval_us'] / 1e3:.3g} ms")
        names.append(r["label"])
        drawn += 1
    if not drawn:
        plt.close(fig)
        raise ValueError("no timeseries.csv in the points (set report.interval_us)")
    axes[-1].set_xlabel("simulated time (ms)")
    handles, labs = axes[0].get_legend_handles_labels()
    if partial:
        handles.append(plt.Line2D([0], [0], color="0.3", lw=1, ls="--", marker="o", mfc="white", mec="0.3"))
        labs.append(PARTIAL_NOTE + (f" ({partial[0]})" if len(set(partial)) == 1 else " (shorter than the others)"))
    if drawn == 1 and names[0] == "run":
        handles, labs = handles[1:], labs[1:]
    if handles:
        axes[0].legend(handles, labs, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.suptitle("per interval of report.interval_us" + (f": {names[0]}" if drawn == 1 and names[0] != "run" else ""))
    return _save(fig, out, name, formats)


def plot_heatmap(df, out, label_by, formats, name="chip_busy"):
    ok = configurations(df, label_by)
    paths = []
    files = file_names(ok["label"])
    for _, r in ok.drop_duplicates("label").iterrows():
        busy = json.loads(r["nand.chip_busy_ratio"]) if isinstance(r["nand.chip_busy_ratio"], str) else r[
            "nand.chip_busy_ratio"]
        ch, chips = int(r["nand.channels"]), int(r["nand.chips_per_channel"])
        grid = [busy[c * chips:(c + 1) * chips] for c in range(ch)]
        fig, ax = plt.subplots(figsize=(max(3.5, 1 + 0.5 * chips), 1.2 + 0.35 * ch))
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xlabel("chip")
        ax.set_ylabel("channel")
        title = "busy time ratio per chip" + ("" if r["label"] == "run" else "\n" + wrap_label(r["label"], 40))
        ax.set_title(title, fontsize=8)
        fig.colorbar(im, ax=ax, label="fraction of the run busy")
        f = files[r["label"]]
        paths += _save(fig, out, f"{name}_{f}" if f else name, formats)
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
    label_ticks(ax, labels_)
    ax.set_ylabel("share of the latency" if normalise else total_label)
    ax.grid(True, axis="y", alpha=0.3)
    return drawn


def plot_parts(df, out, label_by, formats, name="latency_parts"):
    ok = configurations(df, label_by)
    if not any(c.startswith("read.latency_parts.") for c in ok.columns):
        raise ValueError("no latency_parts in the results (a model older than the latency attribution)")
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
        paths += _save(fig, out, f"{name}_{stat.split('_')[0]}", formats)
    return paths


def plot_parts_time(df, out, label_by, formats, name="latency_parts_time"):
    ok = configurations(df, label_by)
    paths = []
    files = file_names(ok["label"])
    for _, r in ok.drop_duplicates("label").iterrows():
        f = os.path.join(r["point_dir"], "timeseries.csv")
        if not os.path.isfile(f):
            continue
        t = pd.read_csv(f)
        if "read_part_array_us" not in t.columns:
            raise ValueError(f"{f}: no latency part columns (a model older than the latency attribution)")
        t = intervals(t, interval_of(r))
        mid = t["mid_ms"]
        fig, axes = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
        legend = []
        part = t[t["partial"]]
        for ax, op in zip(axes, ("read", "write")):
            # A part of a feature that was off has no column (tlm/latency_parts.h: optional parts).
            cols = [(p, c) for p, c in PARTS if f"{op}_part_{p}_us" in t.columns and (t[f"{op}_part_{p}_us"] > 0).any()]
            if cols:
                # Each interval's bar from its start to its end: the partial one is narrower.
                edges = list(t["start_us"] / 1e3) + [t["end_us"].iloc[-1] / 1e3]
                ys = [list(t[f"{op}_part_{p}_us"].fillna(0)) for p, _ in cols]
                ax.stackplot(edges, [y + y[-1:] for y in ys], colors=[c for _, c in cols], step="post")
                ax.plot(mid, t[f"{op}_mean_us"], color="k", lw=0.8, ls="--")
                if len(part):
                    ax.plot(part["mid_ms"], part[f"{op}_mean_us"], ls="none", marker="o", ms=5, mfc="white",
                            mec="k")
            for _, x in part.iterrows():
                ax.axvspan(x["start_us"] / 1e3, x["end_us"] / 1e3, facecolor=(0.5, 0.5, 0.5, 0.12), hatch="//",
                           edgecolor="0.45", lw=0, zorder=3)
            legend += [p for p, _ in cols if p not in legend]
            ax.set_ylabel(f"mean {op} latency (us)")
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("simulated time (ms)")
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for p, c in PARTS if p in legend]
        handles.append(plt.Line2D([0], [0], color="k", lw=0.8, ls="--"))
        names = [p for p, _ in PARTS if p in legend] + ["mean latency"]
        if len(part):
            handles.append(plt.Rectangle((0, 0), 1, 1, facecolor=(0.5, 0.5, 0.5, 0.12), hatch="//", edgecolor="0.45"))
            x = part.iloc[-1]
            names.append(f"{PARTIAL_NOTE}\n({x['length_us'] / 1e3:.3g} of {t.attrs['interval_us'] / 1e3:.3g} ms)")
        fig.legend(handles, names, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, title="latency part")
        fig.suptitle("Where the latency goes, per interval of report.interval_us"
                     + ("" if r["label"] == "run" else "\n" + r["label"]), fontsize=10)
        fn = files[r["label"]]
        paths += _save(fig, out, f"{name}_{fn}" if fn else name, formats)
    if not paths:
        raise ValueError("no timeseries.csv in the points (set report.interval_us)")
    return paths


def parse_baseline(text):
    if not text:
        return None
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise UsageError(f"--baseline {text}: expected KEY=VALUE[,KEY=VALUE]")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


KINDS = ["cdf", "bars", "timeseries", "heatmap", "parts", "parts_time"]
DEFAULT_METRICS = ["read.latency_us.mean", "write.latency_us.mean"]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/plot", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source")
    ap.add_argument("--out", help="directory for the figures (default: SOURCE's directory)/plots")
    ap.add_argument("--kind", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--metric", nargs="+", default=list(DEFAULT_METRICS))
    ap.add_argument("--baseline", help="the one configuration bars are normalised to, e.g. host.scheduler=noop "
                                       "(KEY=VALUE,...: every setting must hold; an error if several configurations "
                                       "match)")
    ap.add_argument("--label-by", help="comma-separated columns that name a configuration")
    ap.add_argument("--format", default="png,svg")
    a = ap.parse_args(argv)
    try:
        df = source_table(a.source)
        formats = [f.strip() for f in a.format.split(",") if f.strip()]
        label_by = [k.strip() for k in a.label_by.split(",")] if a.label_by else None
        # What the command line names is checked first: a typo is an error, never a skip.
        baseline = parse_baseline(a.baseline)
        if "bars" in a.kind or a.metric != DEFAULT_METRICS:
            for m in a.metric:
                check_metric(df, m)
        if baseline:
            resolve_baseline(df, baseline, label_by, a.baseline)
        base_dir = a.source if os.path.isdir(a.source) else os.path.dirname(os.path.abspath(a.source))
        out = a.out or os.path.join(base_dir, "plots")
        os.makedirs(out, exist_ok=True)
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
            except NothingToCompare as e:
                print(f"scripts/plot: {kind}: {e}", file=sys.stderr)
            except UsageError:
                raise
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
