"""Fairness of two tenants over NVMe (an experiment of the model's own, not a paper's;
docs/host.md, "Streams"). Two workload streams share the default device, aged, every
plane starting at the GC low mark (`ftl.precondition_free = gc_mark`: the same start for
every configuration and for each stream's run alone, where a pilot would pick one per
configuration): a read-heavy
tenant (90 % reads) whose two queues are of the high class, and a write-heavy one (10 %
reads) whose two queues are of the low class, each random 4 KiB requests, closed loop at
32 outstanding, both for the whole run (a fixed simulated time: a stream that ran out of
requests first would leave the other alone for the rest). Each stream's slowdown is its mean latency shared over its mean latency
run alone (report.stream_alone: the same device, start state and queues, the other stream
left out); the fairness is the lowest slowdown over the highest (MQSim's measures, Tavakkol
et al., FAST 2018).

Compared: the NVMe command arbitration, round robin (rr) or weighted round robin
(wrr: high weight 8, low weight 1); the scheduler block, HOS (per-chip queues) or IOS (one
FIFO); and the controller's command slots (nvme.command_slots): 16, fewer than the 64
commands the tenants keep outstanding, so that arbitration decides which queue's commands
enter the controller, or 256, more than they keep, so that every command enters at once
and arbitration has nothing to choose.
"""

from __future__ import annotations

import os

from .report import Report, run

SEEDS, QUICK_SEEDS = [1, 2], [1]
DURATION_US, QUICK_DURATION_US = 2_000_000, 300_000
STREAMS = {
    "host.interface": "nvme", "nvme.queues": 4, "nvme.weight_high": 8, "nvme.weight_low": 1,
    "report.stream_alone": True, "ftl.precondition_free": "gc_mark",
    "workload.streams.0.read_ratio": 0.9, "workload.streams.0.queues": 2, "workload.streams.0.priority": "high",
    "workload.streams.0.queue_depth": 32,
    "workload.streams.1.read_ratio": 0.1, "workload.streams.1.queues": 2, "workload.streams.1.priority": "low",
    "workload.streams.1.queue_depth": 32,
    "workload.size_bytes": 4096, "workload.size_max_bytes": 4096, "workload.align_bytes": 4096,
}
COLS = {"streams.0.all.latency_us.mean": "read-heavy mean us", "streams.0.alone_mean_us": "alone us",
        "streams.0.slowdown": "slowdown", "streams.1.all.latency_us.mean": "write-heavy mean us",
        "streams.1.alone_mean_us": "alone us ", "streams.1.slowdown": "slowdown ", "fairness": "fairness",
        "all.iops": "IOPS"}
KEYS = ["nvme.command_slots", "controller.scheduler", "nvme.arbitration"]


def reproduce(out: str, quick: bool, jobs) -> str:
    seeds = QUICK_SEEDS if quick else SEEDS
    t = QUICK_DURATION_US if quick else DURATION_US
    df = run("fairness", {
        "base": {"set": {**STREAMS, "workload.requests": 0, "workload.duration_us": t}},
        "grid": {"nvme.command_slots": [16, 256], "controller.scheduler": ["hos", "ios"],
                 "nvme.arbitration": ["rr", "wrr"]},
        "seeds": seeds,
    }, out, jobs)
    missing = [c for c in COLS if c not in df]
    if missing:
        raise RuntimeError(f"fairness: stats.json lacks {', '.join(missing)}")
    pts = df.groupby(KEYS)[list(COLS)].mean()
    pts.to_csv(os.path.join(out, "fairness.csv"))
    r = Report(out, "Fairness of two tenants: RR against WRR, HOS against IOS" + (" (quick)" if quick else ""))
    summary_at = len(r.lines)
    r.p(*(t.strip().replace("\n", " ") for t in __doc__.split("\n\n")))
    r.p(f"**Runs.** {t / 1e6:g} s of simulated time per run, workload seeds {', '.join(map(str, seeds))}, the mean over the "
        f"seeds ({len(df)} shared runs, each with its two alone runs). Every read is checked against what was "
        "last written: 0 mismatches.")
    rows = []
    for key, x in pts.iterrows():
        rows.append([str(k) for k in key] + [f"{x[c]:.3f}" if c in ("streams.0.slowdown", "streams.1.slowdown",
                                                                        "fairness") else f"{x[c]:.0f}" for c in COLS])
    r.p("## Per configuration",
        "Latencies in us, a stream's mean over its reads and writes; slowdown = shared / alone; fairness = the "
        "lower slowdown over the higher (1: both slowed alike).")
    r.table(KEYS + list(COLS.values()), rows)
    r.insert(summary_at, *_summary(pts))
    return r.write()


def _summary(pts) -> list:
    lines = []
    for slots in (16, 256):
        for sched in ("hos", "ios"):
            if (slots, sched, "rr") not in pts.index or (slots, sched, "wrr") not in pts.index:
                continue
            a, b = pts.loc[(slots, sched, "rr")], pts.loc[(slots, sched, "wrr")]
            lines.append(
                f"{slots} slots, {sched}: fairness {a['fairness']:.3f} with rr, {b['fairness']:.3f} with wrr; the "
                f"read-heavy (high) tenant's slowdown {a['streams.0.slowdown']:.2f} -> {b['streams.0.slowdown']:.2f}, "
                f"mean {a['streams.0.all.latency_us.mean']:.0f} -> {b['streams.0.all.latency_us.mean']:.0f} us; the "
                f"write-heavy (low) one's {a['streams.1.slowdown']:.2f} -> {b['streams.1.slowdown']:.2f}, mean "
                f"{a['streams.1.all.latency_us.mean']:.0f} -> {b['streams.1.all.latency_us.mean']:.0f} us; IOPS "
                f"{(b['all.iops'] / a['all.iops'] - 1) * 100:+.1f} %.")
    for slots in (16, 256):
        for arb in ("rr", "wrr"):
            if (slots, "hos", arb) in pts.index and (slots, "ios", arb) in pts.index:
                h, i = pts.loc[(slots, "hos", arb)], pts.loc[(slots, "ios", arb)]
                lines.append(f"{slots} slots, {arb}: fairness {h['fairness']:.3f} under HOS, {i['fairness']:.3f} "
                             f"under IOS; slowdowns {h['streams.0.slowdown']:.2f} / {h['streams.1.slowdown']:.2f} "
                             f"(HOS) against {i['streams.0.slowdown']:.2f} / {i['streams.1.slowdown']:.2f} (IOS).")
    return ["## What it shows", "\n".join(f"* {x}" for x in lines)]
