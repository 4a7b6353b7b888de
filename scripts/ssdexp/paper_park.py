"""Park, Seo, Shin, Maeng, Lee, exploiting internal parallelism of flash-based SSDs (seed 002):
the dynamic write mapping columns of Table 3 (shortest-queue-first, shortest-estimated-
time-first and multi-level stripe against the static stripe mapping) and the columns of its
left part that need no rescheduling (n-plane commands, cache registers, both, against
neither). The mappings are `ftl.write_policy` = sqf (the least loaded die), setf (the die
with the earliest forecast end of its queued work) and stripe (by write sequence number:
channel, then package, die, plane), against `static` (a logical page always on one plane,
channel first: `ftl.allocation=CWDP`). The request rescheduling (multi-plane and pipeline
rescheduling of the NCQ queue) is not in the model yet (issue 37): its columns, Fig. 4 and
Fig. 5 are listed at the end, waiting for it.

The paper's device is the `park` preset (Table 1): 16 channels x 2 packages x 4 dies x 4
planes, 64-page blocks of 2 KiB, 120 GB, 25 ns per byte on the bus, tR 25 us, tPROG 250 us,
tBERS 1.5 ms, SATA II (300 MB/s), queue depth 32, background GC at 5 % free blocks. Its
workloads (iozone, openmail, sysmark, web; Table 2) are not here: the model runs synthetic
workloads with each one's read fraction and mean request size (uniform sizes in 4 KiB
steps around Table 2's mean, one range for reads and writes; offsets uniform random over
the logical capacity, except sysmark's, Zipf-skewed: the paper puts sysmark's gain down to
\"repetitive read and write requests on restricted regions\" that make hot-spot dies).
The load is an open loop below the host link's capacity (the closed loop at 32 outstanding
saturates the SATA II link: the "Load" paragraph below).
"""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .paper_chen import (NAMES, add_derived, as_list, changes, col, isolated, num, save, short,  # noqa: E402
                         spread_line, spread_pct)
from .report import (EFFECT_HEADER, NOISE_PP, TOLERANCE_PP, TOLERANCE_REL, Effect, Report, fmt_pct,  # noqa: E402
                     label_rows, run)

# Table 2 shapes: read fraction, sizes (bytes, uniform in steps of the alignment), alignment, Zipf theta.
WORKLOADS = {
    "iozone": (0.48, 4096, 86016, 4096, 0.0),     # mean 44 KiB (Table 2: 44.1 KB)
    "openmail": (0.63, 4096, 8192, 4096, 0.0),    # mean 6 KiB (5.8 KB)
    "sysmark": (0.58, 4096, 57344, 4096, 0.9),    # mean 30 KiB (30.0 KB), hot spots
    "web": (0.24, 4096, 45056, 4096, 0.0),        # mean 24 KiB (24.0 KB)
}
TABLE2 = {  # the paper's Table 2: reads, mean / median size total, read, write (KB); consecutive reads, writes
    "iozone": ("0.48", "44.1 / 128", "45.1 / 128", "43.1 / 128", "1.6", "1.7"),
    "openmail": ("0.63", "5.8 / 16", "5.4 / 16", "6.5 / 16", "4.5", "2.6"),
    "sysmark": ("0.58", "30.0 / 36", "24.7 / 32", "37.2 / 128", "15.0", "11.1"),
    "web": ("0.24", "24.0 / 14", "8.5 / 8", "28.9 / 24", "17.7", "55.3"),
}
QUICK = ["openmail", "web"]
POLICIES = ["sqf", "setf", "stripe"]
STATIC = "static"
LONG = {"sqf": "shortest-queue-first (SQF)", "setf": "shortest-est.-time-first (SETF)",
        "stripe": "multi-level stripe"}
# Table 3, dynamic write mapping: improvement of the mean response time over the static
# stripe mapping, % (positive: faster).
TABLE3_MAP = {
    "iozone": {"sqf": -0.67, "setf": 0.86, "stripe": 2.49},
    "openmail": {"sqf": 17.42, "setf": 19.98, "stripe": 16.32},
    "sysmark": {"sqf": 14.49, "setf": 14.57, "stripe": 14.64},
    "web": {"sqf": 6.18, "setf": 6.12, "stripe": 6.24},
}
# Table 3, without rescheduling: improvement over the device with neither n-plane commands
# nor cache registers.
FLASH = {
    "neither": {"nand.multiplane": False, "nand.cache_read": False, "nand.cache_program": False},
    "n-plane": {"nand.multiplane": True, "nand.cache_read": False, "nand.cache_program": False},
    "cache reg.": {"nand.multiplane": False, "nand.cache_read": True, "nand.cache_program": True},
    "both": {"nand.multiplane": True, "nand.cache_read": True, "nand.cache_program": True},
}
TABLE3_FLASH = {
    "iozone": {"n-plane": 4.38, "cache reg.": 2.49, "both": 8.70},
    "openmail": {"n-plane": 21.86, "cache reg.": 24.68, "both": 27.48},
    "sysmark": {"n-plane": 5.46, "cache reg.": 5.82, "both": 11.12},
    "web": {"n-plane": 19.69, "cache reg.": 15.03, "both": 34.73},
}
# What waits for the rescheduling (issue 37): Table 3's rescheduling columns (improvement
# over neither n-plane nor cache registers; in parentheses, over the same without rescheduling).
TABLE3_RESCHED = {
    "iozone": ("8.39 (4.01)", "7.74 (5.35)", "11.88 (3.18)"),
    "openmail": ("24.53 (2.67)", "30.22 (5.54)", "31.70 (4.22)"),
    "sysmark": ("5.98 (0.52)", "7.38 (1.56)", "13.29 (2.17)"),
    "web": ("20.55 (0.86)", "15.41 (0.38)", "35.87 (1.14)"),
}
FIG5 = {"iozone": 7.2, "openmail": 10.3, "sysmark": 14.9, "web": 13.9}
AGES = {"aged": 1, "fresh": 0}
LAT, IOPS = "all.latency_us.mean", "all.iops"
METRICS = {LAT: "mean response time", "read.latency_us.mean": "read response time",
           "write.latency_us.mean": "write response time", IOPS: "IOPS"}
# The loads: open loop (Poisson arrivals) at a share of what the host link can carry at
# the workload's mean request size, and the closed loop at the queue depth.
MAIN = "open, 70 % of the link"
CLOSED = "closed, 32 outstanding"
LOADS = {"open, 50 % of the link": 0.5, MAIN: 0.7, "open, 90 % of the link": 0.9, CLOSED: 0.0}


def mean_bytes(w: str) -> float:
    return (WORKLOADS[w][1] + WORKLOADS[w][2]) / 2


def rate(w: str, load: str, link_mb_s: float) -> float:
    """The open-loop rate (IOPS) at which the workload's requests would keep the host link
    busy for the load's share of the time (0: the closed loop)."""
    return round(LOADS[load] * link_mb_s * 1e6 / mean_bytes(w), 1)


def _wl_set(name: str, n: int) -> dict:
    rr, lo, hi, al, zipf = WORKLOADS[name]
    return {"workload.kind": "synthetic", "workload.read_ratio": rr, "workload.size_bytes": lo,
            "workload.size_max_bytes": hi, "workload.align_bytes": al, "workload.zipf_theta": zipf,
            "workload.pattern": "random", "workload.requests": n}


def plan(quick: bool, link_mb_s: float) -> list:
    """Every run: at the main load the mappings on both devices with every seed, and the
    n-plane and cache register columns on the aged one; at the other loads (full set
    only) the aged device, one seed."""
    n = 3000 if quick else 15000
    names = QUICK if quick else list(WORKLOADS)
    runs = []

    def add(load, ages, seeds, policies, flashes):
        for w in names:
            base = dict(_wl_set(w, n), **{"workload.rate_iops": rate(w, load, link_mb_s)})
            for seed in seeds:
                for age in ages:
                    for p in policies:
                        runs.append(dict(base, **FLASH["both"], **{"ftl.write_policy": p, "workload.seed": seed,
                                                                   "ftl.precondition_age": AGES[age]}))
                for f in flashes:  # the static mapping, the aged device
                    runs.append(dict(base, **FLASH[f], **{"ftl.write_policy": STATIC, "workload.seed": seed,
                                                          "ftl.precondition_age": AGES["aged"]}))

    flashes = ["neither", "n-plane", "cache reg."]
    if quick:
        add(MAIN, ["aged"], [1], [STATIC] + POLICIES, flashes)
        return runs
    add(MAIN, list(AGES), [1, 2], [STATIC] + POLICIES, flashes)
    for load in LOADS:
        if load != MAIN:
            add(load, ["aged"], [1], [STATIC] + POLICIES, flashes if load == CLOSED else [])
    return runs


def _label(df, link_mb_s: float):
    named = {}
    for w, v in WORKLOADS.items():
        for load in LOADS:
            named[f"{w} | {load}"] = {"workload.read_ratio": v[0], "workload.size_max_bytes": v[2],
                                      "workload.zipf_theta": v[4], "workload.rate_iops": rate(w, load, link_mb_s)}
    label_rows(df, named, "run_name")
    df["workload"] = df["run_name"].str.split(" [|] ").str[0]
    df["load"] = df["run_name"].str.split(" [|] ").str[1]
    label_rows(df, {p: {"ftl.write_policy": p} for p in [STATIC] + POLICIES}, "policy")
    label_rows(df, FLASH, "flash")
    label_rows(df, {a: {"ftl.precondition_age": v} for a, v in AGES.items()}, "age")
    df["seed_no"] = df["workload.seed"].astype(int)
    df["chip_spread_pct"] = [spread_pct(as_list(v)) for v in col(df, "nand.chip_busy_ratio")]
    return df


def reproduce(out: str, quick: bool, jobs) -> str:
    from .ssdsim import Ssdsim, find_binary
    from .sweep import ROOT

    link = float(Ssdsim(find_binary(ROOT))._list(["--preset", "park"])["host.link_mb_s"][1])
    df = run("park", {"base": {"preset": "park", "set": {"ftl.precondition": 1, "workload.queue_depth": 32}},
                      "points": plan(quick, link)}, out, jobs)
    df = add_derived(_label(df, link))
    cols = ["load", "workload", "age", "flash", "policy", "seed_no", "workload.rate_iops", "read.count", "write.count",
            LAT, "read.latency_us.mean", "write.latency_us.mean", IOPS, "all.latency_us.p99",
            "controller.link_utilization", "nand.chip_utilization", "chip_spread_pct", "bus_mean_pct",
            "bus_spread_pct", "ftl.gc_pages_copied", "ftl.write_amplification", "off_static_pct",
            "placement.prediction_error_us", "predicted_wait_us", "actual_wait_us", "batching.batches", "mean_batch",
            "batching.multiplane_share", "batching.multiplane_pages"]
    for c in cols:
        if c not in df:
            df[c] = float("nan")
    df.sort_values(["load", "age", "flash", "workload", "seed_no", "policy"]).to_csv(
        os.path.join(out, "park_runs.csv"), index=False, columns=cols)
    names = [w for w in WORKLOADS if w in set(df["workload"])]
    ages = [a for a in AGES if a in set(df[df["load"] == MAIN]["age"])]

    r = Report(out, "Park et al., exploiting internal parallelism: reproduction of the dynamic write mapping"
               + (" (quick)" if quick else ""))
    summary_at = len(r.lines)
    r.p(*(t.strip().replace("\n", " ") for t in __doc__.split("\n\n")[1:]))
    r.table(["workload", "reads (Table 2)", "mean / median KB (Table 2)", "read", "write",
             "consecutive reads / writes (Table 2)", "model: reads", "model: sizes", "model: offsets",
             f"model: rate at {MAIN.split(', ')[1]}"],
            [[w, t[0], t[1], t[2], t[3], f"{t[4]} / {t[5]}", f"{WORKLOADS[w][0]:.2f}",
              f"{WORKLOADS[w][1] // 1024}-{WORKLOADS[w][2] // 1024} KiB (mean {mean_bytes(w) / 1024:g} KiB)",
              f"Zipf {WORKLOADS[w][4]:g}" if WORKLOADS[w][4] else "uniform", f"{rate(w, MAIN, link):,.0f} IOPS"]
             for w, t in TABLE2.items() if w in names])
    nreq = int(df["workload.requests"].iloc[0])
    closed = df[(df["load"] == CLOSED) & (df["flash"] == "both")]
    r.p(f"**Load.** The paper replayed its traces in DiskSim and gives no rates. At 32 outstanding (Table 1's queue "
        f"depth, the other reproductions' closed loop) the host link of Table 1 (SATA II, {link:g} MB/s) is the "
        "bottleneck: "
        + (f"its utilization is {closed['controller.link_utilization'].min():.2f}-"
           f"{closed['controller.link_utilization'].max():.2f} in the closed-loop runs below, "
           if len(closed) else "it is 0.92-1.00 busy in closed-loop runs, ")
        + "so the response time is the link's queue and nothing inside the device can change it. The main "
        "load is therefore an open loop (Poisson arrivals) at the rate that keeps the link "
        f"{100 * LOADS[MAIN]:.0f} % busy at "
        "the workload's mean request size"
        + ("" if quick else f"; 50 % and 90 %, and the closed loop, are run on the aged device as well (one seed)")
        + ". The synthetic requests of each type come independently, so runs of consecutive reads or writes are "
        "short (1.3-4 on average at these read fractions), where Table 2's are 1.6-55. "
        f"Each run is {nreq:,} requests" + ("" if quick else ", seeds 1 and 2 at the main load") + ". "
        "**Device state.** The preset's aged device (`ftl.precondition_age=1`: the steady state of random "
        "overwrites, a GC run under way on every plane), as the paper's background GC at 5 % free blocks implies a "
        "device written over"
        + ("" if quick else "; the mappings also on a fresh device (`ftl.precondition_age=0`, every page written "
                            "once in order, no GC during the run)") + ". Every read is checked: 0 mismatches.",
        f"**Effects and verdicts** (scripts/ssdexp/report.py): the relative change of the mean response time, per "
        "run; Table 3's \"improvement\" of x % is -x % here. Per workload the runs are its seeds; \"all four\" weighs "
        "the mean of the four workloads' means against the mean of the paper's four. *Reproduced* within "
        f"{TOLERANCE_PP:.0f} points or {TOLERANCE_REL:.0%} of the paper's size (the wider), most runs agreeing in "
        f"sign; *same direction* within 2x; *different size* beyond; *opposite*; *mixed signs*. Within "
        f"{NOISE_PP:.0f} point of zero a run counts for neither sign.")
    results = {}
    for age in ages:
        _mapping(r, df, names, MAIN, age, results)
    _fig_mapping(r, df, names, ages)
    if not quick:
        _loads(r, df, names, results)
    _flash(r, df, names, results, quick)
    _placement(r, df, names, ages[0])
    iso = isolated(r, out, jobs, "park", [STATIC] + POLICIES, "park")
    _why(r, df, names, ages, quick, iso)
    _waiting(r)
    _inconsistencies(r)
    r.insert(summary_at, *_summary(results, names, ages, quick))
    return r.write()


def _map_rows(df, age, load=MAIN):
    return df[(df["load"] == load) & (df["age"] == age) & (df["flash"] == "both")]


def _mapping(r: Report, df, names, load, age, results):
    d = _map_rows(df, age, load)
    r.p(f"## Table 3, dynamic write mapping ({age} device, {load})",
        "Mean response time (us) per mapping, mean over the seeds; the spread of the chips' busy time over the "
        "32 chips (coefficient of variation; 0: every chip equally busy).")
    rows = []
    for w in names:
        g = d[d["workload"] == w].groupby("policy")
        m, sp = g[LAT].mean(), g["chip_spread_pct"].mean()
        rows.append([w] + [num(m.get(p), "{:.0f}") for p in [STATIC] + POLICIES]
                    + [" / ".join(num(sp.get(p), "{:.1f}") for p in [STATIC] + POLICIES)])
    r.table(["workload"] + [NAMES[p] for p in [STATIC] + POLICIES]
            + ["chip spread % " + " / ".join(NAMES[p] for p in [STATIC] + POLICIES)], rows)
    for p in POLICIES:
        rows = []
        means = []
        for w in names:
            x = d[d["workload"] == w]
            for m, label in METRICS.items():
                per = changes(x, p, STATIC, m, keys=("seed_no",))
                paper = -TABLE3_MAP[w][p] if m == LAT else None
                e = Effect(per, paper)
                if m == LAT:
                    results[("map", load, age, w, p)] = e
                    if e.n:
                        means.append(e.mean)
                rows.append([f"{w}: {label}", fmt_pct(paper) if paper is not None else "-"] + e.cells())
        if len(means) == len(names) and len(names) == len(WORKLOADS):
            paper = -sum(TABLE3_MAP[w][p] for w in names) / len(names)
            e = Effect(means, paper)
            results[("map", load, age, "all four", p)] = e
            rows.append([f"all four workloads: mean response time", fmt_pct(paper)] + e.cells())
        r.p(f"**{LONG[p]} vs static** ({age} device, {load})")
        r.table(["effect", "paper"] + EFFECT_HEADER, rows)


def _improvement(d, w, p, base=STATIC, policy="policy") -> float:
    return -Effect(changes(d[d["workload"] == w], p, base, LAT, keys=("seed_no",), policy=policy)).mean


def _fig_mapping(r: Report, df, names, ages):
    fig, axes = plt.subplots(1, len(ages), figsize=(6 * len(ages) + 1, 4.2), squeeze=False, sharey=True)
    width = 0.8 / len(POLICIES)
    for ax, age in zip(axes[0], ages):
        d = _map_rows(df, age)
        for i, p in enumerate(POLICIES):
            ax.bar([x + i * width for x in range(len(names))], [_improvement(d, w, p) for w in names], width,
                   label=NAMES[p])
            ax.plot([x + i * width for x in range(len(names))], [TABLE3_MAP[w][p] for w in names], "k_", ms=12, mew=2,
                    label="paper" if i == 0 else None)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))])
        ax.set_xticklabels(names)
        ax.set_title(f"{age} device, {MAIN}")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("mean response time improvement over static (%)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Table 3: dynamic write mapping against the static stripe mapping")
    save(r, fig, "table3_mapping.png", "Table 3, dynamic write mapping: improvement of the mean response time over "
                                       f"the static mapping, {MAIN} (bars: model, mean over seeds; black marks: the "
                                       "paper)")


def _loads(r: Report, df, names, results):
    """The mappings at every load, aged device, seed 1."""
    loads = list(LOADS)
    d = df[(df["age"] == "aged") & (df["flash"] == "both") & (df["seed_no"] == 1)]
    rows = []
    for w in names:
        for p in POLICIES:
            cells = [w, NAMES[p], fmt_pct(-TABLE3_MAP[w][p])]
            for load in loads:
                x = d[(d["load"] == load) & (d["workload"] == w)]
                e = Effect(changes(x, p, STATIC, LAT, keys=("seed_no",)), -TABLE3_MAP[w][p])
                if load != MAIN:
                    results[("map", load, "aged", w, p)] = e
                cells.append(f"{fmt_pct(e.mean)}" if e.n else "n/a")
            rows.append(cells)
    link = d[d["policy"] == STATIC].groupby(["load", "workload"])["controller.link_utilization"].mean()
    stat = d[d["policy"] == STATIC].groupby(["load", "workload"])[LAT].mean()
    r.p("## The mappings against the load (aged device, seed 1)",
        "Change of the mean response time against the static mapping at each load; below, the host link's "
        "utilization and the static mapping's mean response time at each load. The closed loop saturates the link.")
    r.table(["workload", "mapping", "paper"] + loads, rows)
    r.table(["workload"] + [f"link busy / static us, {load}" for load in loads],
            [[w] + [f"{link.get((load, w), float('nan')):.2f} / {num(stat.get((load, w)))}" for load in loads]
             for w in names])
    fig, axes = plt.subplots(1, len(names), figsize=(3.6 * len(names), 3.8), squeeze=False)
    xs = list(range(len(loads)))
    for ax, w in zip(axes[0], names):
        for p in POLICIES:
            ax.plot(xs, [_improvement(d[d["load"] == load], w, p) for load in loads], marker="o", label=NAMES[p])
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks(xs)
        ax.set_xticklabels(["50 %", "70 %", "90 %", "closed"], fontsize=8)
        ax.set_title(w)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("improvement over static (%)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Dynamic write mapping against the load (open loop at a share of the link; closed loop at 32)")
    save(r, fig, "mapping_vs_load.png", "Improvement of the mean response time over the static mapping against the "
                                        "load, aged device, seed 1")


def _flash(r: Report, df, names, results, quick):
    d = df[(df["load"] == MAIN) & (df["age"] == "aged") & (df["policy"] == STATIC)]
    c = df[(df["load"] == CLOSED) & (df["age"] == "aged") & (df["policy"] == STATIC)]
    r.p(f"## Table 3, without rescheduling: n-plane commands and cache registers (aged device, static mapping, {MAIN})",
        "Improvement of the mean response time over the device with neither multi-plane commands "
        "(`nand.multiplane=false`) nor cache registers (`nand.cache_read=false`, `nand.cache_program=false`). "
        "With multi-plane commands on, the firmware batches a die's page commands at one page offset into "
        "n-plane commands (`ftl.batch_depth`, its default). These columns need no rescheduling; they are the "
        "baseline the paper's rescheduling columns add to."
        + ("" if quick else " Last column: the same in the closed loop (one seed), where the link is saturated."))
    rows, vals = [], []
    for w in names:
        x = d[d["workload"] == w]
        for f in ("n-plane", "cache reg.", "both"):
            e = Effect(changes(x, f, "neither", LAT, keys=("seed_no",), policy="flash"), -TABLE3_FLASH[w][f])
            results[("flash", MAIN, "aged", w, f)] = e
            extra = []
            if len(c):
                ec = Effect(changes(c[c["workload"] == w], f, "neither", LAT, keys=("seed_no",), policy="flash"),
                            -TABLE3_FLASH[w][f])
                results[("flash", CLOSED, "aged", w, f)] = ec
                extra = [fmt_pct(ec.mean) if ec.n else "n/a"]
            rows.append([f"{w}: {f} vs neither", fmt_pct(-TABLE3_FLASH[w][f])] + e.cells() + extra)
        m = x.groupby("flash")[LAT].mean()
        share = x[x["flash"] == "n-plane"]["batching.multiplane_share"].astype(float).mean()
        vals.append([w] + [num(m.get(f)) for f in FLASH] + [num(100 * share, "{:.2f} %")])
    r.table(["workload"] + [f"{f} us" for f in FLASH] + ["multi-plane share (n-plane)"], vals)
    r.table(["effect", "paper"] + EFFECT_HEADER + (["closed loop"] if len(c) else []), rows)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    fl = ["n-plane", "cache reg.", "both"]
    width = 0.8 / len(fl)
    for i, f in enumerate(fl):
        ax.bar([x + i * width for x in range(len(names))],
               [_improvement(d, w, f, "neither", "flash") for w in names], width, label=f)
        ax.plot([x + i * width for x in range(len(names))], [TABLE3_FLASH[w][f] for w in names], "k_", ms=12, mew=2,
                label="paper" if i == 0 else None)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))])
    ax.set_xticklabels(names)
    ax.set_ylabel("mean response time improvement over neither (%)")
    ax.set_title(f"Table 3 without rescheduling: n-plane commands and cache registers ({MAIN})", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    save(r, fig, "table3_flash.png", "Table 3, without rescheduling: improvement of the mean response time over "
                                     "neither n-plane commands nor cache registers (bars: model; marks: the paper)")


def _placement(r: Report, df, names, age):
    d = _map_rows(df, age)
    r.p(f"## Placement forecasts and batching ({age} device, {MAIN})",
        "From stats.json, means over the seeds: the share of host page writes placed away from their static plane; "
        "`placement.prediction_error_us`, the mean absolute difference between the wait forecast for a host "
        "command when it was issued and the wait it met (meaningful for SETF, whose choice rests on the forecast); "
        "the mean forecast and wait met over the channels; the share of flash commands sent as multi-plane batches "
        "and the mean batch size in pages. n/a: the model does not report it (yet).")
    rows = []
    for w in names:
        for p in [STATIC] + POLICIES:
            g = d[(d["workload"] == w) & (d["policy"] == p)]
            if not len(g):
                continue
            rows.append([w, NAMES[p], num(g["off_static_pct"].mean(), "{:.1f} %"),
                         num(g["placement.prediction_error_us"].astype(float).mean(), "{:.1f}"),
                         num(g["predicted_wait_us"].mean(), "{:.1f}"), num(g["actual_wait_us"].mean(), "{:.1f}"),
                         num(100 * g["batching.multiplane_share"].astype(float).mean(), "{:.2f} %"),
                         num(g["mean_batch"].mean(), "{:.2f}")])
    r.table(["workload", "mapping", "placed off static", "forecast error us", "forecast wait us", "wait met us",
             "multi-plane share", "mean batch pages"], rows)


def _why(r: Report, df, names, ages, quick, iso=None):
    lines = []
    for age in ages:
        d = _map_rows(df, age)
        g = d.groupby("policy")
        sp, gc = g["chip_spread_pct"].mean(), g["ftl.gc_pages_copied"].mean()
        rd, wr = g["read.latency_us.mean"].mean(), g["write.latency_us.mean"].mean()
        pol = [p for p in [STATIC] + POLICIES if p in sp.index]
        lines.append(
            f"* **{age.capitalize()} device, {MAIN}.** Spread of the chips' busy time (mean over the runs), "
            + ", ".join(f"{NAMES[p]} {sp[p]:.1f} %" for p in pol)
            + "; GC pages copied per run " + ", ".join(f"{NAMES[p]} {gc[p]:,.0f}" for p in pol)
            + "; read / write response time " + ", ".join(f"{NAMES[p]} {rd[p]:.0f} / {wr[p]:.0f} us" for p in pol)
            + ".")
    if iso and all(p in iso for p in [STATIC] + POLICIES):
        lines.append(spread_line(iso, STATIC, POLICIES))
    lines.append(
        "* **What a mapping can change.** The static mapping spreads uniformly random logical pages evenly over the "
        "dies on average: what is left for a dynamic mapping is the momentary imbalance of the queues, and the hot "
        "spots of a skewed workload (sysmark here). The paper expected SQF and SETF to lower the write response "
        "time at the reads' expense (reads follow the data they placed); the read and write rows above measure it.")
    if not quick:
        c = df[(df["load"] == CLOSED) & (df["flash"] == "both")]
        lines.append(
            f"* **The closed loop is the link's.** At 32 outstanding the SATA II link is "
            f"{c['controller.link_utilization'].min():.2f}-{c['controller.link_utilization'].max():.2f} busy: a "
            "request's response time is mostly its wait for the link, the same whatever the device does inside, "
            "unless the device falls behind the link (the aged device's GC).")
    lines.append(
        "* **Workload shape.** Table 2's long runs of reads and of writes (up to 55 consecutive writes for web) and "
        "its request sizes (medians of 128 KB) are not in the synthetic workloads, nor is the traces' locality: "
        "only their read fraction and mean size are, and sysmark's hot spots as a Zipf skew.")
    r.p("## What the measurements say of the gaps", "\n".join(lines))


def _waiting(r: Report):
    r.p("## Waiting for the rescheduling (issue 37)",
        "These need multi-plane and pipeline rescheduling of the NCQ queue in the scheduler block (issue 37), on "
        "the multi-plane path the runs above use:")
    r.table(["experiment of the paper", "its numbers", "what the model still needs"], [
        ("Table 3, rescheduling: multi-plane, pipeline and both, improvement over neither n-plane commands nor "
         "cache registers (in parentheses: over the same without rescheduling)",
         "; ".join(f"{w} {v[0]} / {v[1]} / {v[2]} %" for w, v in TABLE3_RESCHED.items()),
         "multi-plane and pipeline rescheduling (issue 37)"),
        ("Fig. 4(a): response-time improvement of multi-plane (two- and four-plane) and pipeline rescheduling "
         "against the read ratio; Fig. 4(b): against the request size (synthetic workloads)",
         "up to 15.6 % (pipeline) and 5.4 % (multi-plane) as writes dominate", "issue 37"),
        ("Fig. 5: response time with both reschedulings and the multi-level stripe mapping together",
         "; ".join(f"{w} -{v} %" for w, v in FIG5.items()), "issue 37 (the stripe mapping is above)"),
    ])


def _inconsistencies(r: Report):
    r.p("## The paper's own inconsistencies",
        "* Table 2's median request sizes cannot be medians: half the requests at or above the median would make "
        "the mean at least half of it, yet iozone's mean is 44.1 KB against a median of 128 KB, openmail's 5.8 "
        "against 16 and sysmark's writes' 37.2 against 128. The model follows the means.\n"
        "* Table 3's caption says its values are improvements \"from the result of the SSD in Table 1\" and the "
        "text that they are over the configuration without n-plane commands and cache registers, while the "
        "dynamic mappings are \"compared with the static stripe mapping\": the mapping columns are read here as "
        "against the static mapping on the same device (n-plane commands and cache registers on).")


def _summary(results, names, ages, quick) -> list:
    agree, differ, rows = [], [], []
    cols = [(MAIN, a) for a in ages] + ([] if quick else [(CLOSED, "aged")])
    for p in POLICIES:
        for w in names + ["all four"]:
            es = [results.get(("map", load, a, w, p)) for load, a in cols]
            if es[0] is None:
                continue
            paper = es[0].paper
            rows.append([f"{LONG[p]} vs static", w, fmt_pct(paper)]
                        + [f"{fmt_pct(e.mean)}, {short(e.verdict())}" if e else "-" for e in es])
            for (load, a), e in zip(cols, es):
                if e is None or load != MAIN:
                    continue
                line = (f"{NAMES[p]} vs static, {w}, {a} device: model {fmt_pct(e.mean)} (paper {fmt_pct(paper)}): "
                        f"{e.verdict()}")
                (agree if e.verdict().startswith("reproduced") else differ).append(line)
    for w in names:
        for f in ("n-plane", "cache reg.", "both"):
            es = [results.get(("flash", load, a, w, f)) if a == "aged" else None for load, a in cols]
            if es[0] is None:
                continue
            rows.append([f"{f} vs neither (static mapping)", w, fmt_pct(es[0].paper)]
                        + [f"{fmt_pct(e.mean)}, {short(e.verdict())}" if e else "-" for e in es])
            line = (f"{f} vs neither, {w}, aged device: model {fmt_pct(es[0].mean)} (paper {fmt_pct(es[0].paper)}): "
                    f"{es[0].verdict()}")
            (agree if es[0].verdict().startswith("reproduced") else differ).append(line)
    n_rep = sum(1 for x in rows if x[3].split(", ", 1)[-1].startswith("reproduced"))
    head = (["effect on the mean response time", "workload", "paper"]
            + [f"model, {a} device, {load}" for load, a in cols])
    return ["## Summary",
            f"{n_rep} of the {len(rows)} Table 3 numbers the model can run today reproduced on the aged device, open "
            f"loop at the rate that keeps the SATA II link {100 * LOADS[MAIN]:.0f} % busy (`park` preset"
            + (", quick set: two workloads, one seed, 3,000 requests" if quick else "") + "). The rescheduling "
            "columns, Fig. 4 and Fig. 5 wait for issue 37 (last sections).",
            f"Agrees with the paper ({MAIN}):\n" + ("\n".join(f"* {x}" for x in agree) or "* nothing"),
            f"Does not agree ({MAIN}):\n" + ("\n".join(f"* {x}" for x in differ) or "* nothing"),
            "Every Table 3 number the model can run, beside the model's (mean over the seeds; the sections below give "
            "the ranges, read and write response times and IOPS, those that got worse included)"
            + ("" if quick else "; the closed loop saturates the link (one seed)") + ":",
            "\n".join(["| " + " | ".join(head) + " |",
                       "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
                      + ["| " + " | ".join(c) + " |" for c in rows])]
