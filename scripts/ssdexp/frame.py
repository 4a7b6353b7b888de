"""What the placement reproductions (paper_chen, paper_park) share over their result
tables: columns the binary may not report, per-run derived figures, the NAND's multi-plane
share, per-run changes between two arms, and the check of how one request is spread."""

from __future__ import annotations

import json
import math

from .report import HEADLINE, Report, change_pct, label_rows, run

NAMES = {"static": "static", "rr": "RR", "weight": "weight", "delay": "delay",
         "sqf": "SQF", "setf": "SETF", "stripe": "stripe"}


def col(df, key):
    """A column of the results, NaN where the binary does not report it (yet)."""
    if key in df:
        return df[key]
    return df.index.to_series().map(lambda _: float("nan"))


def as_list(v) -> list:
    """A list cell (JSON text in the table), [] if missing."""
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError:
            return []
    if v is None or (isinstance(v, float) and v != v):
        return []
    return list(v)


def finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def num(v, fmt="{:.0f}", missing="n/a") -> str:
    return fmt.format(v) if finite(v) else missing


# The NAND's multi-plane share: the pages it moved in commands of two planes or more, over
# all pages of the operation, whoever joined them (the firmware's batches or the scheduler
# block's rescheduling; stats.json nand.multiplane_page_share).
MP_COLS = ["nand.multiplane_page_share.program", "nand.multiplane_page_share.read"]
MP_HEADER = "n-plane pages, program / read"


def mean_of(g, c) -> float:
    if c not in g:
        return float("nan")
    v = g[c]
    try:
        return float(v.astype(float).mean()) if hasattr(v, "astype") else float(v)
    except (TypeError, ValueError):
        return float("nan")


# Beside an effect row: the NAND's n-plane share of programmed pages under the two arms.
MP_PAIR_HEADER = "n-plane program pages, new / base"


def mp_program(g) -> str:
    """The mean n-plane share of programmed pages over runs g, in %."""
    v = mean_of(g, MP_COLS[0])
    return "n/a" if not finite(v) else f"{100 * v:.1f} %"


def mp_pair(x, new: str, base: str, col: str = "policy") -> str:
    """mp_program of the runs of x whose `col` is `new`, and of those whose `col` is `base`."""
    return f"{mp_program(x[x[col] == new])} / {mp_program(x[x[col] == base])}"


def pd_concat(*frames):
    import pandas as pd
    return pd.concat(frames, ignore_index=True)


def mp_pages(g) -> str:
    """The NAND's multi-plane share of programmed and of read pages, in %: the mean over a
    group of runs (a DataFrame) or one run's (a row)."""
    vals = []
    for c in MP_COLS:
        v = g[c] if c in g else float("nan")
        seq = v.tolist() if hasattr(v, "tolist") else v
        xs = []
        for x in seq if isinstance(seq, list) else [seq]:
            try:
                f = float(x)
            except (TypeError, ValueError):
                continue
            if math.isfinite(f):
                xs.append(f)
        vals.append(sum(xs) / len(xs) if xs else float("nan"))
    if not any(finite(v) for v in vals):
        return "n/a"
    return "%s / %s %%" % (num(100 * vals[0], "{:.1f}"), num(100 * vals[1], "{:.1f}"))


def spread_pct(values: list) -> float:
    """The coefficient of variation of per-channel figures, in % (0: perfectly even)."""
    v = [x for x in values if finite(x)]
    if len(v) < 2:
        return float("nan")
    m = sum(v) / len(v)
    return 100.0 * math.sqrt(sum((x - m) ** 2 for x in v) / len(v)) / m if m else float("nan")


def mean_batch(sizes: list) -> float:
    n = sum(sizes)
    return sum((i + 1) * c for i, c in enumerate(sizes)) / n if n else float("nan")


def add_derived(df):
    """Per run: the spread of the channels' bus utilization, the share of host page writes
    placed away from their static plane, the mean batch size, the mean forecast and wait."""
    df["bus_spread_pct"] = [spread_pct(as_list(v)) for v in col(df, "nand.bus_utilization")]
    df["bus_mean_pct"] = [100.0 * sum(as_list(v)) / len(as_list(v)) if as_list(v) else float("nan")
                          for v in col(df, "nand.bus_utilization")]
    off, pages = col(df, "placement.placed_off_static"), col(df, "ftl.host_pages_programmed")
    df["off_static_pct"] = [100.0 * o / p if finite(o) and finite(p) and p else float("nan")
                            for o, p in zip(off, pages)]
    df["mean_batch"] = [mean_batch(as_list(v)) for v in col(df, "batching.batch_sizes")]
    for k, c in (("predicted_wait_us", "placement.predicted_wait_us"), ("actual_wait_us", "placement.actual_wait_us")):
        df[k] = [sum(as_list(v)) / len(as_list(v)) if as_list(v) else float("nan") for v in col(df, c)]
    return df


def short(v: str) -> str:
    """A verdict's first words (summary cells)."""
    for w in HEADLINE:
        if v.startswith(w):
            return w + (" (" + v.split("(", 1)[1] if w in ("different size", "mixed signs") and "(" in v else "")
    return v


def isolated(r: Report, out: str, jobs, preset: str, policies: list, name: str) -> dict:
    """One 64 KiB write at a time (queue depth 1) on the fresh device, per policy: how far
    each spreads one request's pages (the chips busy while it runs) and what that costs.
    Returns policy -> (write latency us, chips busy)."""
    d = run(f"{name}-isolated", {
        "base": {"preset": preset, "set": {"ftl.precondition": 1, "ftl.precondition_age": 0, "workload.read_ratio": 0,
                                           "workload.size_bytes": 65536, "workload.align_bytes": 65536,
                                           "workload.requests": 50, "workload.queue_depth": 1}},
        "grid": {"ftl.write_policy": policies}}, out, jobs)
    label_rows(d, {p: {"ftl.write_policy": p} for p in policies}, "policy")
    pages = 65536 // int(d["nand.page_bytes"].iloc[0])
    res, rows = {}, []
    for p in policies:
        x = d[d["policy"] == p].iloc[0]
        res[p] = (x["write.latency_us.mean"], x["nand.chip_utilization"])
        rows.append([NAMES[p], f"{x['write.latency_us.mean']:.0f}", f"{x['nand.chip_utilization']:.1f}",
                     mp_pages(x)])
    r.p("## Check: one 64 KiB write at a time",
        f"50 writes of 64 KiB ({pages} pages), one outstanding at a time, on the fresh `{preset}` device: the mean "
        "write latency and the chips busy on average (`nand.chip_utilization`: how many of its chips one request "
        "keeps busy), per policy. Nothing else runs: what differs is only where each policy puts one request's "
        "pages.")
    r.table(["policy", "write latency us", "chips busy", MP_HEADER], rows)
    return res


def slower_spread(iso: dict, ref: str, policies: list) -> str:
    """What the isolated-write check says, in words: which policies spread one request over
    fewer chips than `ref`, and so take longer."""
    slow = [p for p in policies if iso[p][0] > 1.1 * iso[ref][0] and iso[p][1] < 0.9 * iso[ref][1]]
    if not slow:
        return "One request is spread as widely under every policy: the differences above come from the load."
    return (f"{NAMES[ref].capitalize()} puts a request's consecutive logical pages on consecutive channels; "
            f"{', '.join(NAMES[p] for p in slow)} put{'s' if len(slow) == 1 else ''} several of them on fewer chips "
            "(and channels), whose transfers then wait for one another on the bus: a cost at low load that only "
            "evens out when many requests are outstanding.")


def spread_line(iso: dict, ref: str, policies: list) -> str:
    """The report's bullet on the isolated-write check: chips busy and time per policy, and
    what they say (slower_spread)."""
    return ("* **How one request is spread.** One 64 KiB write at a time (section above): static keeps "
            f"{iso[ref][1]:.1f} chips busy and takes {iso[ref][0]:.0f} us; "
            + ", ".join(f"{NAMES[p]} {iso[p][1]:.1f} chips and {iso[p][0]:.0f} us" for p in policies)
            + ". " + slower_spread(iso, ref, policies))


def changes(d, new: str, base: str, metric: str, keys=("shape", "seed_no"), policy="policy") -> list:
    """The change (%) of `metric` from `base` to `new`, one per run of the same workload
    (its shape and seed)."""
    per = []
    for _, g in d.groupby(list(keys)):
        a, b = g[g[policy] == new][metric], g[g[policy] == base][metric]
        if len(a) and len(b) and finite(b.iloc[0]) and finite(a.iloc[0]) and b.iloc[0] > 0:
            per.append(change_pct(b.iloc[0], a.iloc[0]))
    return per
