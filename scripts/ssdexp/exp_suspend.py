"""Suspend and resume: what program and erase suspend do to reads and to writes (an
experiment of the model's own, not a paper's; docs/scheduler.md, "Suspend and resume",
and docs/nand-timing.md). A host read whose die is busy with a program or an erase
suspends it (`controller.suspend`), runs, and the operation resumes with the array time it
had left; the suspend latency (MQSim's 100 us for a program, 700 us for an erase) overlaps
the operation's own array time.

The device is the default one, aged (the default job: `ftl.precondition_age`, the start
state its pilot chooses, the automatic warm-up), under three mixes of random 4 KiB
requests at 32 outstanding: the default job's 70 % reads, a read-heavy 90 % and a
write-heavy 30 %. Each mix runs with suspend off, erase, program and both; on the default
mix, with both, the threshold (`controller.suspend_min_remaining_us`) and the limit per
operation (`nand.max_suspends`) are swept as well.
"""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .plot import legend_outside  # noqa: E402
from .report import Report, label_rows, run  # noqa: E402

MODES = ["off", "erase", "program", "both"]
MIXES = {"default (70 % reads)": 0.7, "read-heavy (90 % reads)": 0.9, "write-heavy (30 % reads)": 0.3}
THRESHOLDS, QUICK_THRESHOLDS = [0, 100, 300, 1000], [0, 300]
LIMITS, QUICK_LIMITS = [1, 2, 8, 64], [1, 8]
SEEDS, QUICK_SEEDS = [1, 2], [1]
REQUESTS, QUICK_REQUESTS = 100000, 20000
WORKLOAD = {"workload.kind": "synthetic", "workload.pattern": "random", "workload.size_bytes": 4096,
            "workload.size_max_bytes": 4096, "workload.align_bytes": 4096, "workload.queue_depth": 32}
READ = {"read.latency_us.p50": "read p50", "read.latency_us.p99": "read p99", "read.latency_us.p999": "read p99.9"}
WRITE = {"write.latency_us.mean": "write mean", "write.latency_us.p99": "write p99"}
OTHER = {"all.iops": "IOPS", "ftl.write_amplification": "write ampl.",
         "write.latency_parts.write_stall.mean_us": "write_stall us",
         "nand.suspend.program_suspends": "program suspends", "nand.suspend.erase_suspends": "erase suspends",
         "nand.suspend.max_suspended_us": "longest held us"}
PARTS = ["suspend_wait", "suspended", "conflict_erase", "conflict_host_write", "conflict_gc_program", "array"]


def reproduce(out: str, quick: bool, jobs) -> str:
    seeds = QUICK_SEEDS if quick else SEEDS
    n = QUICK_REQUESTS if quick else REQUESTS
    base = {**WORKLOAD, "workload.requests": n}
    modes = run("suspend-modes", {
        "base": {"set": base},
        "grid": {"workload.read_ratio": list(MIXES.values()), "controller.suspend": MODES},
        "seeds": seeds,
    }, out, jobs)
    label_rows(modes, {name: {"workload.read_ratio": r} for name, r in MIXES.items()}, "mix")
    knobs = run("suspend-knobs", {
        "base": {"set": {**base, "workload.read_ratio": MIXES["default (70 % reads)"], "controller.suspend": "both"}},
        "grid": {"controller.suspend_min_remaining_us": QUICK_THRESHOLDS if quick else THRESHOLDS,
                 "nand.max_suspends": QUICK_LIMITS if quick else LIMITS},
        "seeds": seeds,
    }, out, jobs)
    cols = [c for c in list(READ) + list(WRITE) + list(OTHER) + ["read.latency_us.mean"] if c in modes]
    cols += [c for c in modes.columns if c.startswith("read.latency_parts.") and
             (c.endswith(".mean_us") or c.endswith(".tail_us"))]
    pts = modes.groupby(["mix", "controller.suspend"])[cols].mean()
    order = [(m, mode) for m in MIXES for mode in MODES if (m, mode) in pts.index]
    pts = pts.loc[order]
    pts.to_csv(os.path.join(out, "suspend_modes.csv"))
    kcols = [c for c in list(READ) + list(WRITE) + list(OTHER) if c in knobs]
    kpts = knobs.groupby(["controller.suspend_min_remaining_us", "nand.max_suspends"])[kcols].mean()
    kpts.to_csv(os.path.join(out, "suspend_knobs.csv"))

    r = Report(out, "Suspend and resume: reads, writes and GC" + (" (quick)" if quick else ""))
    summary_at = len(r.lines)
    r.p(*(t.strip().replace("\n", " ") for t in __doc__.split("\n\n")))
    r.p(f"**Runs.** {n:,} requests per run, workload seeds {', '.join(map(str, seeds))}, the mean over the seeds "
        f"({len(modes) + len(knobs)} runs). Every read is checked against what was last written: 0 mismatches.")
    _modes_table(r, pts)
    _knobs_table(r, kpts)
    _parts_table(r, pts)
    _fig(r, pts)
    r.insert(summary_at, *_summary(pts, kpts))
    return r.write()


def _f(v, fmt="{:.0f}") -> str:
    return fmt.format(v) if v == v else "-"


def _modes_table(r: Report, pts):
    rows = []
    for (mix, mode), x in pts.iterrows():
        rows.append([mix, mode] + [_f(x.get(k, float("nan"))) for k in READ] +
                    [_f(x.get(k, float("nan"))) for k in WRITE] +
                    [_f(x.get("all.iops", float("nan"))), _f(x.get("ftl.write_amplification", float("nan")), "{:.2f}"),
                     _f(x.get("write.latency_parts.write_stall.mean_us", float("nan"))),
                     _f(x.get("nand.suspend.program_suspends", float("nan"))),
                     _f(x.get("nand.suspend.erase_suspends", float("nan"))),
                     _f(x.get("nand.suspend.max_suspended_us", float("nan")))])
    r.p("## Per mix and mode",
        "Latencies in us, from a request's arrival to its completion. `write_stall`: the mean time a host write's "
        "page waited for a free page (GC's backlog as the host sees it). Suspensions over the whole run (warm-up "
        "included); the longest time one operation was held.")
    r.table(["mix", "controller.suspend"] + list(READ.values()) + list(WRITE.values()) + list(OTHER.values()), rows)


def _knobs_table(r: Report, kpts):
    rows = []
    for (thr, lim), x in kpts.iterrows():
        rows.append([f"{thr:.0f}", f"{lim:.0f}"] + [_f(x[k]) for k in READ] + [_f(x[k]) for k in WRITE] +
                    [_f(x["all.iops"]), _f(x["ftl.write_amplification"], "{:.2f}"),
                     _f(x["write.latency_parts.write_stall.mean_us"]), _f(x["nand.suspend.program_suspends"]),
                     _f(x["nand.suspend.erase_suspends"]), _f(x["nand.suspend.max_suspended_us"])])
    r.p("## Threshold and limit (default mix, suspend both)",
        "`controller.suspend_min_remaining_us`: the remaining array time beyond the suspend latency a suspension "
        "must save; `nand.max_suspends`: the suspensions one program or erase accepts.")
    r.table(["threshold us", "max_suspends"] + list(READ.values()) + list(WRITE.values()) + list(OTHER.values()), rows)


def _parts_table(r: Report, pts):
    rows = []
    for (mix, mode), x in pts.iterrows():
        mean = x["read.latency_us.mean"]
        cells = []
        for p in PARTS:
            k = f"read.latency_parts.{p}.mean_us"
            cells.append(_f(x[k], "{:.1f}") if k in x.index else "-")
        rows.append([mix, mode, _f(mean, "{:.1f}")] + cells)
    r.p("## Where a read's time goes",
        "The mean over host reads of the latency parts (docs/controller.md): `suspend_wait` is a read's SUSPEND, "
        "suspend latency and wait for the bus after it; `suspended` the time its program was held (for reads: 0); "
        "`conflict_*` the time it waited in the block while its die served that kind of work.")
    r.table(["mix", "controller.suspend", "read mean"] + PARTS, rows)


def _fig(r: Report, pts):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    mixes = list(dict.fromkeys(m for m, _ in pts.index))
    width = 0.8 / len(MODES)
    for ax, key, title in ((axes[0], "read.latency_us.p999", "read p99.9"), (axes[1], "write.latency_us.p99",
                                                                                  "write p99")):
        for i, mode in enumerate(MODES):
            ys = [pts.loc[(m, mode), key] if (m, mode) in pts.index else 0 for m in mixes]
            bars = ax.bar([k + (i - 1.5) * width for k in range(len(mixes))], ys, width, label=f"suspend {mode}")
            for b, y in zip(bars, ys):
                ax.annotate(f"{y:.0f}", (b.get_x() + b.get_width() / 2, y), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_xticks(range(len(mixes)))
        ax.set_xticklabels([m.split(" (")[0] for m in mixes])
        ax.set_ylabel(f"{title} (us)")
        ax.set_ylim(0, 1.12 * ax.get_ylim()[1])  # from 0, with room for the values over the bars
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
    legend_outside(axes[1])
    r.save_figure(fig, "suspend_tails.png", "Read p99.9 and write p99 per mix and controller.suspend (mean over seeds)")


def _summary(pts, kpts) -> list:
    out = ["## What it shows"]
    lines = []
    for mix in dict.fromkeys(m for m, _ in pts.index):
        off = pts.loc[(mix, "off")]
        best = min(MODES[1:], key=lambda m: pts.loc[(mix, m), "read.latency_us.p999"])
        b = pts.loc[(mix, best)]
        both = pts.loc[(mix, "both")]
        lines.append(
            f"{mix}: read p99.9 {off['read.latency_us.p999']:.0f} us with suspend off, "
            f"{both['read.latency_us.p999']:.0f} us with both ({off['read.latency_us.p999'] / both['read.latency_us.p999']:.2f}x), "
            f"lowest with {best} ({b['read.latency_us.p999']:.0f} us); read p99 {off['read.latency_us.p99']:.0f} -> "
            f"{both['read.latency_us.p99']:.0f} us, p50 {off['read.latency_us.p50']:.0f} -> "
            f"{both['read.latency_us.p50']:.0f} us; write mean {off['write.latency_us.mean']:.0f} -> "
            f"{both['write.latency_us.mean']:.0f} us ({(both['write.latency_us.mean'] / off['write.latency_us.mean'] - 1) * 100:+.0f} %), "
            f"write p99 {off['write.latency_us.p99']:.0f} -> {both['write.latency_us.p99']:.0f} us "
            f"({(both['write.latency_us.p99'] / off['write.latency_us.p99'] - 1) * 100:+.0f} %), write amplification "
            f"{off['ftl.write_amplification']:.2f} -> {both['ftl.write_amplification']:.2f}, IOPS "
            f"{(both['all.iops'] / off['all.iops'] - 1) * 100:+.1f} %.")
    out.append("\n".join(f"* {x}" for x in lines))
    mix = next(iter(MIXES))
    tails = []
    for mode in ("off", "both"):
        x = pts.loc[(mix, mode)]
        parts = sorted(((x[c], c.split(".")[2]) for c in pts.columns
                        if c.startswith("read.latency_parts.") and c.endswith(".tail_us") and x[c] == x[c]),
                       reverse=True)
        total = sum(v for v, _ in parts)
        tails.append(f"suspend {mode}: " + ", ".join(f"`{n}` {v:.0f} us ({100 * v / total:.0f} %)"
                                                    for v, n in parts[:4]))
    out.append(f"Where the slowest reads' time goes (the {mix} mix; a part's `tail_us`, its mean over the reads in "
               "the p99's histogram bucket and above): " + "; ".join(tails) + ". Suspension removes most of the wait "
               "behind programs and erases at the die; what is left of the tail is mostly time before the block "
               "(`firmware_sched`: the firmware's holding stage, where a read waits behind its die's other "
               "commands before the block sees it, so no suspension can reach it), which is why the p99.9 gains "
               "less than the p99.")
    lo, hi = kpts["read.latency_us.p999"].idxmin(), kpts["read.latency_us.p999"].idxmax()
    out.append(f"Threshold and limit (default mix, both): read p99.9 from {kpts['read.latency_us.p999'].min():.0f} us "
               f"(threshold {lo[0]:.0f} us, max_suspends {lo[1]:.0f}) to {kpts['read.latency_us.p999'].max():.0f} us "
               f"(threshold {hi[0]:.0f} us, max_suspends {hi[1]:.0f}); the longest hold "
               f"{kpts['nand.suspend.max_suspended_us'].max():.0f} us.")
    return out
