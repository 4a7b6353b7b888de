"""scripts/compare RUN_A RUN_B [...] [--format md|csv] [--parts N] [--width COLUMNS]

The main figures of two or more runs side by side, from their stats.json: IOPS, mean and
p50 / p99 / p99.9 latency per op, write amplification, chip and channel utilisation, the
latency parts with the largest share of the mean per op, and whether the warm-up reached
steady state. Each later run's value has its change from the first run beside it, with
its sign (absolute, and % of the first run's). A RUN is a run's --out directory or its
stats.json; runs are named by the configuration keys their config.json files differ in
(controller.scheduler=ios), else by their directories.

The same table closes scripts/sweep, one column per configuration (the mean over its
seeds): sweep_table() below.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import shutil
import sys

from .ssdsim import SPEED_ONLY
from .spec import OUTPUTS
from .table import flatten

OPS = ("read", "write", "all")
LATENCY = (("mean", "mean"), ("p50", "p50"), ("p99", "p99"), ("p999", "p99.9"))
# Keys a run sets itself (config.json keeps the value the run used): the start pilot's
# free blocks per plane. They name runs only when nothing else tells them apart.
DERIVED = {"ftl.precondition_free_blocks"}
# A name made of key=value pairs longer than this becomes the values alone (the keys are
# said once, above the table).
NAME_WIDTH = 28
# The most keys a name is made of; runs that differ in more are named by their directory.
NAME_KEYS = 3
# The most configurations the sweep's closing table shows.
MAX_CONFIGURATIONS = 100
LEGEND = "(latencies in us; \"read: PART %\": the part's share of the mean read latency)"


class InputError(Exception):
    """A RUN that is not one: str() names the path."""


class Column:
    """One column of the table: a run, or a sweep's configuration (its points' mean)."""

    def __init__(self, stats: list, config: dict | None, fallback: str, source: str):
        self.stats = stats  # flattened stats (dotted keys), one per run the column averages
        self.config = config  # flattened effective configuration, or None
        self.fallback = fallback  # its name when configurations do not tell the columns apart
        self.source = source
        self.name = fallback


# --- the figures -------------------------------------------------------------------------------------------


def _num(v):
    """A number, or None for a missing, empty or NaN cell (a sweep's table holds NaN)."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return None
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _mean(col: Column, get):
    vals = [x for x in (get(s) for s in col.stats) if x is not None]
    return sum(vals) / len(vals) if vals else None


def _key(k):
    return lambda s: _num(s.get(k))


def _op_present(col: Column, op: str) -> bool:
    return any((_num(s.get(f"{op}.count")) or 0) > 0 for s in col.stats)


def _channels(s):
    """The mean over channels of nand.bus_utilization (a list; JSON text in a table)."""
    v = s.get("nand.bus_utilization")
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError:
            return None
    if isinstance(v, (list, tuple)) and v:
        vals = [_num(x) for x in v]
        return sum(x for x in vals if x is not None) / len(vals)
    return None


def _true(v) -> bool:
    return str(v).lower() in ("true", "1", "1.0")


def _steady(col: Column) -> str:
    """Whether the warm-up reached steady state: per run, or how many of a column's runs did."""
    auto = [s for s in col.stats if s.get("steady_state.warmup") == "auto"]
    if not auto:
        return "fixed warm-up" if any(s.get("steady_state.warmup") for s in col.stats) else "-"
    reached = [s for s in auto if _true(s.get("steady_state.reached"))]
    if len(col.stats) == 1:
        if reached:
            start = _num(reached[0].get("steady_state.window_start_request"))
            return f"yes, from request {start:.0f}" if start is not None else "yes"
        return "no"
    return f"{len(reached)} of {len(auto)}"


def _top_parts(cols: list, op: str, n: int) -> list:
    """The latency parts of `op` among the n largest shares of the mean in any column,
    largest in the first column first."""
    prefix, suffix = f"{op}.latency_parts.", ".share"
    parts = []
    for c in cols:  # every column's parts: a run without them (nand_ops) may come first
        for s in c.stats:
            parts += [k[len(prefix):-len(suffix)] for k in s if k.startswith(prefix) and k.endswith(suffix)]
    parts = list(dict.fromkeys(parts))
    share = {c: {p: _mean(c, _key(f"{prefix}{p}{suffix}")) or 0.0 for p in parts} for c in cols}
    chosen = set()
    for c in cols:
        chosen |= {p for p in sorted(parts, key=lambda p: -share[c][p])[:n] if share[c][p] > 0}
    return sorted(chosen, key=lambda p: -share[cols[0]][p])


class Row:
    """A figure: its name, each column's value, how it is written (decimals; `pct`: a share,
    shown in %, its change in points; `text`: no change)."""

    def __init__(self, name, values, decimals=1, kind="num", short=None):
        self.name, self.values, self.decimals, self.kind = name, values, decimals, kind
        self.short = short or name  # its name as a column's header (rows of runs)


def rows(cols: list, parts: int = 3) -> list:
    out = []
    ops = [op for op in OPS if any(_op_present(c, op) for c in cols)]
    for op in ops:
        out.append(Row(f"{op} IOPS", [_mean(c, _key(f"{op}.iops")) if _op_present(c, op) else None for c in cols]))
    for op in ops:
        for k, label in LATENCY:
            out.append(Row(f"{op} {label} us",
                           [_mean(c, _key(f"{op}.latency_us.{k}")) if _op_present(c, op) else None for c in cols],
                           short=f"{op} {label}"))
    out.append(Row("write amplification", [_mean(c, _key("ftl.write_amplification")) for c in cols], 3,
                   short="write ampl."))
    out.append(Row("chips busy (mean)", [_mean(c, _key("nand.chip_utilization")) for c in cols], 2,
                   short="chips busy"))
    channel = [_mean(c, _channels) for c in cols]
    if any(v is not None for v in channel):
        out.append(Row("channel busy (ratio)", channel, 3, short="channel busy"))
    link = [_mean(c, _key("controller.link_utilization")) for c in cols]
    if any(v for v in link):
        out.append(Row("host link busy (ratio)", link, 3, short="link busy"))
    for op in ("read", "write"):
        if op not in ops:
            continue
        for p in _top_parts(cols, op, parts):
            k = f"{op}.latency_parts.{p}.share"
            out.append(Row(f"{op}: {p} %",
                           [(lambda v: None if v is None else 100 * v)(_mean(c, _key(k))) for c in cols], 1, "pct"))
    out.append(Row("steady state reached", [_steady(c) for c in cols], kind="text", short="steady state"))
    return out


# --- the names ---------------------------------------------------------------------------------------------


def _text(v) -> str:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):  # a numpy scalar from a table
        v = v.item()
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    s = str(v)
    if s == "":
        return "none"  # an empty value (no trace path) still names itself
    return os.path.basename(s) if os.sep in s else s  # a trace's path: its file name


def _same(a, b) -> bool:
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None and not isinstance(a, str) and not isinstance(b, str):
        return na == nb
    return _text(a) == _text(b)


def differing(configs: list, ignore=()) -> list:
    """The keys whose values are not all the same across the configurations, in the first
    one's order."""
    keys = list(dict.fromkeys(k for c in configs for k in c))
    out = []
    for k in keys:
        if k in ignore or k in OUTPUTS:
            continue
        vals = [c.get(k) for c in configs]
        if any(not _same(vals[0], v) for v in vals[1:]):
            out.append(k)
    return out


def name_columns(cols: list) -> str:
    """Names each column by the configuration keys the columns differ in (key=value, or the
    values alone when that is long); by its fallback when they differ in none, in more
    than NAME_KEYS, or a column has no configuration. Returns a line that says how."""
    configs = [c.config for c in cols]
    if any(c is None for c in configs):
        _fallback(cols)
        missing = next(c.source for c in cols if c.config is None)
        return f"named by directory (no config.json beside {missing})"
    keys = differing(configs)
    primary = [k for k in keys if k not in DERIVED and k not in SPEED_ONLY] or keys
    if not primary:
        _fallback(cols)
        return "named by directory: their configurations are the same"
    if len(primary) > NAME_KEYS:
        _fallback(cols)
        shown = ", ".join(primary[:6]) + (f" and {len(primary) - 6} more" if len(primary) > 6 else "")
        return f"named by directory: their configurations differ in {len(primary)} keys ({shown})"
    names = [", ".join(f"{k}={_text(c.config.get(k))}" for k in primary) for c in cols]
    how = f"named by {', '.join(primary)}"
    if len(primary) > 1 and max(len(n) for n in names) > NAME_WIDTH:
        names = ["/".join(_text(c.config.get(k)) for k in primary) for c in cols]
        how = f"named by {'/'.join(primary)}"
    if len(set(names)) < len(names):
        _fallback(cols)
        return "named by directory"
    for c, n in zip(cols, names):
        c.name = n
    return how


def _fallback(cols: list) -> None:
    names = [c.fallback for c in cols]
    if len(set(names)) < len(names):
        names = [f"{n} ({i + 1})" for i, n in enumerate(names)]
    for c, n in zip(cols, names):
        c.name = n


# --- the table ---------------------------------------------------------------------------------------------


def change(a, b, decimals: int = 6):
    """b against a: (b - a, its % of a), or None when either is missing. The % is None when
    a is 0 as written (to `decimals`): a change from nothing has no size relative to it."""
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return None
    return b - a, (100.0 * (b - a) / abs(a) if round(a, decimals) != 0 else None)


def _change_text(r: Row, a, b) -> str:
    c = change(a, b, r.decimals)
    if c is None:
        return ""
    d, p = c
    unit = " pt" if r.kind == "pct" else ""
    return f"{d:+.{r.decimals}f}{unit} ({'n/a' if p is None else f'{p:+.1f} %'})"


def _cell(r: Row, v) -> str:
    if r.kind == "text":
        return str(v)
    return "-" if v is None else (f"{v:.{r.decimals}f} %" if r.kind == "pct" else f"{v:.{r.decimals}f}")


def _md(columns: list) -> str:
    """One Markdown table from its columns (each: header, then cells), padded to line up in
    a terminal: the first column left-aligned, the others right-aligned."""
    ws = [max(3, max(len(x) for x in col)) for col in columns]

    def line(i):
        return "| " + " | ".join(col[i].ljust(ws[j]) if j == 0 else col[i].rjust(ws[j])
                                 for j, col in enumerate(columns)) + " |"

    rule = "|" + "|".join("-" * (w + 2) if j == 0 else "-" * (w + 1) + ":" for j, w in enumerate(ws)) + "|"
    return "\n".join([line(0), rule] + [line(i) for i in range(1, len(columns[0]))])


def _packed(fixed: list, units: list, width: int) -> str:
    """Tables of the `fixed` columns, then as many of the `units` (each a list of columns
    kept together) as fit in `width`; at least one unit a table."""

    def w(u):
        return sum(max(3, max(len(x) for x in col)) + 3 for col in u)

    base = 1 + w(fixed)
    chunks, cur = [], []
    for u in units:
        if cur and base + sum(w(x) for x in cur) + w(u) > width:
            chunks.append(cur)
            cur = []
        cur.append(u)
    chunks.append(cur)
    return "\n\n".join(_md(fixed + [col for u in chunk for col in u]) for chunk in chunks) + "\n"


def by_figure(cols: list, table: list, width: int, changes: bool = True) -> str:
    """A row per figure, a column per run, each later run's change from the first beside
    it (absolute and %) unless not `changes`; the runs split over several tables (each
    repeating the figures' names and the first run) where one would be wider than `width`."""
    fixed = [["figure"] + [r.name for r in table], [cols[0].name] + [_cell(r, r.values[0]) for r in table]]
    units = []
    for i, c in enumerate(cols[1:], 1):
        u = [[c.name] + [_cell(r, r.values[i]) for r in table]]
        if changes:
            u.append(["change"] + [_change_text(r, r.values[0], r.values[i]) for r in table])
        units.append(u)
    return _packed(fixed, units, width)


def by_run(cols: list, table: list, width: int) -> str:
    """The transpose, for many runs: a row per run, a column per figure (its values alone);
    the figures split over several tables (each repeating the runs' names) to fit in
    `width`."""
    fixed = [["run"] + [c.name for c in cols]]
    units = [[[r.short] + [_cell(r, v) for v in r.values]] for r in table]
    return _packed(fixed, units, width)


def csv_text(cols: list, table: list) -> str:
    """One CSV table: a column per run, then per later run its change and change %."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    head = ["figure"] + [c.name for c in cols]
    for c in cols[1:]:
        head += [f"{c.name} change", f"{c.name} change %"]
    w.writerow(head)

    def raw(v):
        if v is None:
            return ""
        return v if isinstance(v, str) else round(v, 6)

    for r in table:
        line = [r.name] + [raw(v) for v in r.values]
        for v in r.values[1:]:
            c = change(r.values[0], v, r.decimals)
            line += ["", ""] if c is None else [raw(c[0]), raw(c[1])]
        w.writerow(line)
    return buf.getvalue()


def terminal_width() -> int:
    """The terminal's columns (COLUMNS, else the terminal's, else 100), at least 60."""
    return max(60, shutil.get_terminal_size((100, 24)).columns)


def render(cols: list, fmt: str = "md", parts: int = 3, width: int | None = None, layout: str = "figures"):
    """The table of `cols`, as (text, what its Markdown layout is): CSV; or Markdown, a row
    per figure with each later run's change beside it (`figures`: split over tables as
    `width` needs), or (`auto`) the first of these that fits in one table of `width`: a row
    per figure with the changes, a row per figure with the values alone; else the latter
    in two tables, else a row per run (with the values alone, the figures split over
    tables)."""
    table = rows(cols, parts)
    if fmt == "csv":
        return csv_text(cols, table), "csv"
    width = width or terminal_width()
    if layout == "figures":
        return by_figure(cols, table, width), "changes"
    for changes in (True, False):
        text = by_figure(cols, table, width, changes)
        if "\n\n" not in text.strip():
            return text, "changes" if changes else "values"
    if text.strip().count("\n\n") < 2:  # two tables of a row per figure
        return text, "values"
    return by_run(cols, table, width), "runs"


# --- runs and sweeps ---------------------------------------------------------------------------------------


def _read_json(path: str, what: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot read it: {e.strerror}") from None
    except ValueError as e:
        raise InputError(f"{path}: not {what}: not valid JSON ({e})") from None
    if not isinstance(d, dict):
        raise InputError(f"{path}: not {what}: not a JSON object")
    return d


def read_run(path: str) -> Column:
    """A run from its --out directory or its stats.json (config.json beside it names it)."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or directory")
    if os.path.isdir(path):
        d, stats_path = path, os.path.join(path, "stats.json")
        if not os.path.isfile(stats_path):
            hint = " (a sweep's directory: scripts/sweep prints its table)" if os.path.exists(
                os.path.join(path, "results.parquet")) else ""
            raise InputError(f"{path}: no stats.json in it: not a run's --out directory{hint}")
    else:
        d, stats_path = os.path.dirname(path) or ".", path
    stats = _read_json(stats_path, "an ssdsim stats.json")
    if not all(isinstance(stats.get(op), dict) for op in OPS) or not isinstance(stats.get("nand"), dict):
        raise InputError(f"{stats_path}: not an ssdsim stats.json (no read, write, all and nand sections)")
    cfg_path = os.path.join(d, "config.json")
    config = flatten(_read_json(cfg_path, "an ssdsim config.json")) if os.path.isfile(cfg_path) else None
    name = os.path.basename(os.path.abspath(d).rstrip(os.sep)) or d
    return Column([flatten(stats)], config, name, d)


def sweep_table(df, fmt: str = "md", width: int | None = None) -> str | None:
    """The sweep's closing table: a column per configuration (a point apart from its seed:
    the mean over its points that succeeded), named by the keys the configurations differ
    in. None when no point succeeded."""
    ok = df[df["status"] == "ok"]
    if not len(ok):
        return None
    cfg_path = os.path.join(ok["point_dir"].iloc[0], "config.json")
    try:
        with open(cfg_path, encoding="utf-8") as f:
            config_keys = [k for k in flatten(json.load(f)) if k in ok.columns]
    except (OSError, ValueError):
        return None
    # The keys the SPEC sets (the `overrides` column: KEY=VALUE ...) too: a key of a family
    # (workload.streams.<i>.*) may be in some points' configurations and not the first's.
    if "overrides" in ok.columns:
        named = {t.split("=", 1)[0] for text in ok["overrides"].dropna().unique()
                 for t in str(text).split() if "=" in t}
        config_keys += sorted(k for k in named if k in ok.columns and k not in set(config_keys))
    # A configuration: the point's group and effective configuration, but for its seed and
    # the keys a run sets itself (which differ between seeds).
    ident = [k for k in config_keys if k != "workload.seed" and k not in DERIVED and k not in OUTPUTS]
    stats_keys = [k for k in ok.columns if k not in set(config_keys)]
    by = ["group"] + ident if "group" in ok.columns else ident
    records = ok.to_dict("records")
    members = {}  # configuration -> its points, in the sweep's order
    for r in records:
        members.setdefault(tuple(_text(r[k]) for k in by), []).append(r)
    if len(members) > MAX_CONFIGURATIONS:
        return (f"sweep: {len(members)} configurations, too many for a table here (at most {MAX_CONFIGURATIONS}): "
                "scripts/plot, or pandas on results.parquet\n")
    groups = [str(rs[0].get("group", "")) for rs in members.values()]
    cols = []
    for i, rs in enumerate(members.values()):
        group = groups[i]
        alone = group and groups.count(group) == 1  # a group of one configuration is named by the group
        cols.append(Column([{k: r[k] for k in stats_keys} for r in rs], {k: rs[0][k] for k in ident},
                           group if alone else f"configuration {i + 1}", rs[0]["point_dir"]))
    if len(cols) == 1:
        cols[0].name = "all points"
        how = "one configuration"
    else:
        how = name_columns(cols)
    n = sorted({len(rs) for rs in members.values()})
    each = ("one point" if n == [1] else f"the mean over its {n[0]} points (its seeds)" if len(n) == 1 else
            f"the mean over its {n[0]} to {n[-1]} points (its seeds)")
    if fmt == "csv":
        return render(cols, "csv")[0]
    text, layout = render(cols, width=width, layout="auto")
    head = f"sweep: {len(cols)} configuration{'s' if len(cols) > 1 else ''}, {how}"
    how_each = f"each {'row' if layout == 'runs' else 'column'} {each}"
    if layout == "changes":
        how_each += "; the change is from the first"
    if len(ok) < len(df):
        bad = len(df) - len(ok)
        how_each += f"; {bad} point{'s' if bad > 1 else ''} that did not succeed left out"
    return "\n".join([head, how_each, LEGEND, "", text])


def write(text: str) -> None:
    """text on stdout; a reader that stops early (`| head`) ends the output quietly."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit either


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/compare", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="RUN", help="a run's --out directory or its stats.json")
    ap.add_argument("--format", choices=["md", "csv"], default="md",
                    help="md: Markdown tables, lined up in a terminal (default); csv: one CSV table")
    ap.add_argument("--parts", type=int, default=3, metavar="N",
                    help="the latency parts shown per op: the N largest shares of the mean in each run (default 3)")
    ap.add_argument("--width", type=int, metavar="COLUMNS",
                    help="split the runs over tables no wider than this (default: the terminal's, else 100)")
    a = ap.parse_args(argv)
    try:
        if len(a.runs) < 2:
            raise InputError(f"{a.runs[0]}: one run; compare needs two or more")
        if a.parts < 0:
            raise InputError("--parts: must be 0 or more")
        cols = [read_run(p) for p in a.runs]
    except InputError as e:
        print(f"scripts/compare: error: {e}", file=sys.stderr)
        return 2
    how = name_columns(cols)
    if a.format == "csv":
        write(render(cols, "csv", a.parts)[0])
        return 0
    head = [f"compare: {len(cols)} runs, {how}; the change is from the first run"]
    head += [f"  {c.name}: {c.source}" for c in cols] + [LEGEND, ""]
    write("\n".join(head) + "\n" + render(cols, "md", a.parts, a.width)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
