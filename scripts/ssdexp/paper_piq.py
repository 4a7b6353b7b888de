"""Gao et al., PIQ (seed 000): Figs. 2(b), 8-12 and Table I on the model.

The paper's setup (Section V.A) is the `piq` preset: 8 channels x 8 chips, 2 KiB pages,
64-page blocks, 128 GB, 10 % over-provisioning, host queue 64; the device filled with
data first. Its workloads are 15 MSR Cambridge volumes replayed at their timestamps; the
model has two MSR traces (../shared/traces: an excerpt of hm_0, and rsrch_1) and runs
synthetic workloads with each volume's read/write mix from the paper's Table I, open loop
(Poisson arrivals). Table I gives no request sizes: the synthetic requests are 4-16 KiB
(2-8 pages of 2 KiB), uniform in 4 KiB steps.
"""

from __future__ import annotations

import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import claims  # noqa: E402
from .claims import Claim  # noqa: E402
from .plot import legend_outside, paper_marks, ratio_axis  # noqa: E402
from .report import (EFFECT_HEADER, Effect, Report, change_pct, fmt_pct, label_rows, run,  # noqa: E402
                     trace_path, HEADLINE, RULE)

HOST = ["noop", "rws", "piq_r", "piq_w", "piq"]
BATCHED = ["piq_r", "piq_w", "piq"]  # the schemes with batches: host.dispatch=batch changes them
# Table I: read I/Os, write I/Os, read conflicts, write conflicts, chips utilized (NOOP).
TABLE1 = {
    "HM_0": (129066, 370933, 43512, 128117, 9.076), "HM_1": (484454, 15445, 178104, 4690, 15.592),
    "PRN_0": (75305, 424694, 29616, 188458, 10.698), "PRN_1": (346001, 153995, 95643, 47896, 12.221),
    "PROJ_1": (486780, 13219, 191133, 5138, 19.892), "PROJ_3": (419058, 80930, 127710, 30810, 14.349),
    "PROJ_4": (465194, 34806, 157480, 10554, 10.543), "PRXY_0": (15385, 484614, 5140, 48992, 4.179),
    "RSRCH_0": (49400, 450596, 19112, 153581, 11.76), "SRC1_2": (71500, 428498, 15334, 232312, 18.269),
    "SRC2_0": (97924, 402069, 25343, 128229, 10.38), "SRC2_2": (19469, 480530, 12765, 391383, 24.965),
    "STG_0": (197403, 302594, 33406, 197403, 12.342), "WDEV_0": (99000, 400992, 40044, 108946, 11.222),
    "USR_0": (148822, 351165, 78940, 15450, 10.733),
}
QUICK_APPS = ["HM_0", "PROJ_1", "SRC2_2"]
# The conflict share of all requests over the paper's 15 volumes (the target of rsrch_1,
# which is not among them).
PAPER_MEAN_CONFLICTS = 100.0 * sum(v[2] + v[3] for v in TABLE1.values()) / sum(v[0] + v[1] for v in TABLE1.values())

# The metrics of every comparison: stats.json key -> name. The paper's waiting time and
# chip utilization are the conflict wait and the utilization while any chip is busy
# (docs/host.md, "Metrics"); the model's own measures of each are kept beside them.
METRICS = {
    "read.latency_us.mean": "read latency",
    "write.latency_us.mean": "write latency",
    "read.conflict_wait_us": "read waiting time (conflicts: the paper's)",
    "write.conflict_wait_us": "write waiting time (conflicts: the paper's)",
    "host.read_wait_us": "read time in the host queue",
    "host.write_wait_us": "write time in the host queue",
    "nand.chip_utilization_while_busy": "chips busy while any is (the paper's utilization)",
    "nand.chip_utilization": "chips busy, window average",
    "all.iops": "throughput (IOPS)",
}
# The pairs the paper compares, and its averages (Section V.B), relative changes in %.
PAIRS = [("piq", "rws"), ("piq_r", "noop"), ("piq_w", "noop"), ("rws", "noop")]
PAPER = {
    ("piq", "rws"): {"read.latency_us.mean": -19.7, "write.latency_us.mean": -47.0, "read.conflict_wait_us": -22.5,
                     "write.conflict_wait_us": -48.4, "nand.chip_utilization_while_busy": +24.2},
    ("piq_r", "noop"): {"read.latency_us.mean": -19.6, "read.conflict_wait_us": -21.0,
                        "nand.chip_utilization_while_busy": +14.7},
    ("piq_w", "noop"): {"write.latency_us.mean": -47.0, "write.conflict_wait_us": -48.4,
                        "nand.chip_utilization_while_busy": +11.9},
    ("rws", "noop"): {},
}
# The figure of each metric the paper's averages are of.
FIGURE = {"read.latency_us.mean": "Fig. 8", "write.latency_us.mean": "Fig. 8", "read.conflict_wait_us": "Fig. 10",
          "write.conflict_wait_us": "Fig. 10", "nand.chip_utilization_while_busy": "Fig. 12"}
# The run sets the averages are judged in: (regime, dispatch), each on each device. The
# paper's load with NCQ dispatch is the paper's regime; batch dispatch runs the batched
# schemes only (BATCHED: PAIRS[:3]).
REGIMES = [("paper", "ncq"), ("paper", "batch"), ("stress", "ncq")]
REGIME_WORDS = {"paper": "paper load", "stress": "stress"}


def regime(reg: str, disp: str, dev: str | None = None) -> str:
    return f"{REGIME_WORDS[reg]}, {disp}" + (f", {dev.upper()}" if dev else "")


CLAIMS = [Claim(f"{FIGURE[m]} (Sec. V.B)", f"{new.upper()} vs {base.upper()}: {METRICS[m].split(' (')[0]}", m, new,
                base, v, regime=regime(reg, disp, dev))
          for reg, disp in REGIMES for dev in ("ios", "hos") for new, base in (PAIRS[:3] if disp == "batch" else PAIRS)
          for m, v in PAPER[(new, base)].items()]
# Fig. 11 (PIQ, queue length): read 1->512 -19 %, write 1->512 -37 %, read 1->32 -18 %,
# read 32->512 -1 %.
PAPER_QL = [(1, 512, "read.latency_us.mean", -19.0), (1, 512, "write.latency_us.mean", -37.0),
            (1, 32, "read.latency_us.mean", -18.0), (32, 512, "read.latency_us.mean", -1.0)]
# Fig. 2(b): the slowdown from conflicts, the paper's statements (times the un-impacted
# response time): mean over its volumes, and the volumes it names.
PAPER_SLOWDOWN = {"read": 6.5, "write": 10.1}
PAPER_SLOWDOWN_NAMED = {("PRXY_0", "read"): 11.6, ("SRC2_2", "write"): 18.3}
# Fig. 9: more than 5 % of reads prioritized by RWS on these volumes, within 5 % on the rest.
PAPER_FIG9_ABOVE5 = {"HM_0", "PRXY_0", "SRC1_2"}
# The load calibration, from light to heavy: the open-loop rates tried for a synthetic
# workload (IOPS), and the time scales tried for a trace (1: its own timestamps; 10: ten
# times slower; 0.1: ten times faster).
RATES = [1000, 2500, 5000, 7500, 10000, 12500, 15000, 17500, 20000]
QUICK_RATES = [2500, 7500, 12500, 17500]
SCALES = [100, 30, 10, 3, 1, 0.3, 0.1, 0.03, 0.01]
QUICK_SCALES = [30, 3, 1, 0.1]


def _synthetic(app: str, n: int) -> dict:
    r, wr = TABLE1[app][:2]
    return {"workload.kind": "synthetic", "workload.read_ratio": round(r / (r + wr), 4), "workload.size_bytes": 4096,
            "workload.size_max_bytes": 16384, "workload.align_bytes": 4096, "workload.requests": n}


def _msr_seconds(path: str) -> float:
    """The time an MSR trace spans, first request to last (its timestamps: 100 ns)."""
    first = last = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                t = int(line.split(",", 1)[0])
                first = t if first is None else first
                last = t
    return (last - first) / 1e7 if first is not None else 0.0


def workloads(quick: bool) -> dict:
    """name -> (settings without the load, the paper's target conflict share in %, the key
    that sets the load, the values it is tried at, from light to heavy)."""
    w = {}
    trace = {"workload.kind": "trace", "workload.format": "msr", "workload.requests": 0}
    hm0 = trace_path("msr_hm_0_excerpt.csv")
    traces = [("hm_0 trace", hm0, 100.0 * (TABLE1["HM_0"][2] + TABLE1["HM_0"][3]) / sum(TABLE1["HM_0"][:2]), {})]
    if not quick:
        # rsrch_1 addresses up to 143 GB, past the device's 124 GB: wrapped around.
        traces.append(("rsrch_1 trace", trace_path("msr_rsrch_1.csv"), PAPER_MEAN_CONFLICTS,
                       {"workload.out_of_range": "wrap"}))
    for name, path, target, extra in traces:
        # The simulated clock spans 2^63 ps (106 days): rsrch_1's 6.7 days cannot be
        # slowed down 100 times.
        span = _msr_seconds(path)
        scales = [v for v in (QUICK_SCALES if quick else SCALES) if span * v < 0.9 * 2 ** 63 / 1e12]
        w[name] = (dict(trace, **{"workload.path": path, "workload.replay": "timed"}, **extra), target,
                   "workload.time_scale", scales)
    for app in QUICK_APPS if quick else TABLE1:
        target = 100.0 * (TABLE1[app][2] + TABLE1[app][3]) / sum(TABLE1[app][:2])
        w[f"{app}-like"] = (_synthetic(app, 3000 if quick else 40000), target, "workload.rate_iops",
                            QUICK_RATES if quick else RATES)
    return w


def base_set() -> dict:
    return {"ftl.precondition": 1, "ftl.precondition_age": 0, "host.queue_length": 64}


def _conflict_share(row) -> float:
    return 100.0 * (row["host.read_conflicts"] + row["host.write_conflicts"]) / max(1, row["host.requests"])


def calibrate(out: str, quick: bool, jobs, wl: dict) -> dict:
    """The load of each workload: the value of its load key (rate or time scale) at which
    NOOP on the in-order device (IOS, the closest to the paper's SSDsim) puts the paper's
    share of requests in conflict (Table I), interpolated between the two values tried
    around it (linearly in the rate, or in the logarithm of the time scale). Only the
    conflict counts are read: the load is fixed before any latency is looked at. Where
    no value tried reaches the target, the closest is taken and the report says so."""
    named = {}
    for name, (sets, _, key, values) in wl.items():
        for i, v in enumerate(values):
            s = dict(sets, **{key: v})
            if s["workload.kind"] == "synthetic":
                s["workload.requests"] = 2000 if quick else 8000
            named[f"{name} @ {i}"] = s
    df = run("calibrate", {
        "base": {"preset": "piq", "set": dict(base_set(), **{"controller.scheduler": "ios", "host.scheduler": "noop"})},
        "points": list(named.values()),
    }, out, jobs)
    label_rows(df, named, "point_name")
    df["workload"] = df["point_name"].str.split(" @ ").str[0]
    df["step"] = df["point_name"].str.split(" @ ").str[1].astype(int)
    df["conflict_pct"] = df.apply(_conflict_share, axis=1)
    df["mean_iops"] = df["all.count"] / df["sim_time_us"] * 1e6
    chosen = {}
    for name, (_, target, key, values) in wl.items():
        s = df[df["workload"] == name].sort_values("step")
        conf = list(s["conflict_pct"])
        log = key == "workload.time_scale"
        f = (lambda v: math.log(v)) if log else (lambda v: v)
        finv = (lambda x: math.exp(x)) if log else (lambda x: x)
        best = min(range(len(values)), key=lambda i: abs(conf[i] - target))
        value, note = values[best], f"not reached: {conf[best]:.0f} % at the closest value tried"
        for i in range(len(values) - 1):
            lo, hi = conf[i], conf[i + 1]
            if min(lo, hi) <= target <= max(lo, hi):
                t = (target - lo) / (hi - lo) if hi != lo else 0.0
                value, note = finv(f(values[i]) + t * (f(values[i + 1]) - f(values[i]))), ""
                break
        value = float(f"{value:.4g}")
        chosen[name] = (key, value, target, note)
    df[["workload", "workload.rate_iops", "workload.time_scale", "mean_iops", "conflict_pct",
        "nand.chip_utilization_while_busy"]].to_csv(os.path.join(out, "piq_calibration.csv"), index=False)
    return chosen


def reproduce(out: str, quick: bool, jobs) -> str:
    wl = workloads(quick)
    names = list(wl)
    devices = ["hos"] if quick else ["ios", "hos"]
    r = Report(out, "PIQ (Gao et al.): reproduction" + (" (quick)" if quick else ""))
    summary_at = len(r.lines)

    # 1. The paper's load: each workload at the rate that gives its Table I conflicts.
    chosen = calibrate(out, quick, jobs, wl)
    paper_load = {n: dict(sets, **{chosen[n][0]: chosen[n][1]}) for n, (sets, _, _, _) in wl.items()}
    main = label_rows(run("paper-load", {
        "base": {"preset": "piq", "set": base_set()},
        "grid": {"controller.scheduler": devices, "host.scheduler": HOST},
        "points": list(paper_load.values()),
    }, out, jobs), paper_load)
    batch = label_rows(run("paper-load-batch", {
        "base": {"preset": "piq", "set": dict(base_set(), **{"host.dispatch": "batch"})},
        "grid": {"controller.scheduler": devices, "host.scheduler": BATCHED},
        "points": list(paper_load.values()),
    }, out, jobs), paper_load)
    # 2. The stress case: closed loop, 64 requests outstanding.
    stress_wl = {n: dict(sets, **({"workload.replay": "closed"} if sets["workload.kind"] == "trace" else {}))
                 for n, (sets, _, _, _) in wl.items()}
    stress = label_rows(run("stress", {
        "base": {"preset": "piq", "set": dict(base_set(), **{"workload.queue_depth": 64})},
        "grid": {"controller.scheduler": devices, "host.scheduler": HOST},
        "points": list(stress_wl.values()),
    }, out, jobs), stress_wl)
    # 3. Fig. 11 at the paper's load.
    qls = [1, 8, 64, 512] if quick else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    ql = label_rows(run("queue-length", {
        "base": {"preset": "piq", "set": dict(base_set(), **{"controller.scheduler": "hos", "host.scheduler": "piq"})},
        "grid": {"host.queue_length": qls},
        "points": list(paper_load.values()),
    }, out, jobs), paper_load)

    cols = ["controller.scheduler", "host.scheduler", "host.dispatch", "workload", "read.count", "write.count"] + \
        list(METRICS) + ["host.read_conflicts", "host.write_conflicts", "host.prioritized_reads", "host.read_batches",
                         "host.write_batches", "integrity.mismatches"]
    for df, f in [(main, "piq_paper_load.csv"), (batch, "piq_paper_load_batch.csv"), (stress, "piq_stress.csv")]:
        df[cols].to_csv(os.path.join(out, f), index=False)
    ql[["host.queue_length", "workload", "read.latency_us.mean", "write.latency_us.mean",
        "nand.chip_utilization_while_busy", "controller.ncq_tags_mean", "controller.ncq_tags_max"]].to_csv(os.path.join(out, "piq_queue_length.csv"), index=False)

    r.p(__doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
        f"Workloads: {', '.join(names)}. Device schedulers: {', '.join(devices).upper()}. Every run checks every "
        "read against what was last written: 0 mismatches.",
        "**The paper's load.** The paper replays its volumes at their timestamps, where (Table I) 35 % of the "
        "requests conflict on average. The model sets each workload's load the same way, from conflicts alone and "
        "before any latency is read: NOOP on the in-order device (IOS, closest to the paper's SSDsim) is run at "
        f"{len(QUICK_RATES if quick else RATES)} open-loop rates (a trace at {len(QUICK_SCALES if quick else SCALES)} "
        "time scales, from 100 times slower to 100 times faster than its timestamps), and the rate (time scale) at "
        "which the share of requests in conflict equals that of the workload's volume in Table I is interpolated "
        "(`piq_calibration.csv`; rsrch_1, not among the paper's volumes, takes the paper's mean share, "
        f"{PAPER_MEAN_CONFLICTS:.1f} %). Both devices then run at that load. The closed loop at 64 outstanding, "
        "where nearly every request conflicts, is kept as a separate stress case.",
        "**Dispatch.** `host.dispatch=ncq` hands each request to the device as soon as an NCQ tag is free, in the "
        "scheduler's order; `batch` sends a batch at a time, the next only when every request of the one before it "
        "has completed (docs/host.md, \"Dispatch\": the paper's Algorithm 1 ends with \"Issue Batch_List.Head\" and "
        "counts service in read and write cycles, but says its results were taken \"without batch scheduler\"). "
        "NOOP and RWS have no batches and are the same under both.",
        f"**Verdicts**: {RULE}.")
    rows = []
    for n, (key, value, t, note) in chosen.items():
        m = main[(main["workload"] == n) & (main["host.scheduler"] == "noop") & (main["controller.scheduler"] == devices[0])]
        got = f"{_conflict_share(m.iloc[0]):.1f} %" if len(m) else ""
        load = f"{value:,.0f} IOPS" if key == "workload.rate_iops" else f"time scale {value:g}"
        rows.append([n, f"{t:.1f} %", load, got, note])
    r.table(["workload", "conflicts, Table I (target)", "load chosen", f"conflicts at it (NOOP, {devices[0].upper()})", ""], rows)

    results = {}  # (regime, device, dispatch, pair) -> {metric: Effect}
    for dev in devices:
        sub = main[main["controller.scheduler"] == dev]
        subb = batch[batch["controller.scheduler"] == dev]
        r.p(f"## The paper's load, device {dev.upper()}")
        for pair in PAIRS:
            results[("paper", dev, "ncq", pair)] = _effects(r, sub, sub, names, pair, f"{dev.upper()}, NCQ dispatch")
        for pair in PAIRS[:3]:  # the batched scheme under batch dispatch, its baseline as it is
            results[("paper", dev, "batch", pair)] = _effects(r, subb, sub, names, pair,
                                                               f"{dev.upper()}, batch dispatch")
        _fig_norm(r, sub, names, dev, ["read.latency_us.mean", "write.latency_us.mean"], "noop", "fig8",
                  "Fig. 8: mean latency normalised to NOOP (NCQ dispatch)")
        _fig_norm(r, sub, names, dev, ["read.conflict_wait_us", "write.conflict_wait_us"], "noop", "fig10",
                  "Fig. 10: mean waiting time induced by conflicts normalised to NOOP (NCQ dispatch)")
        _fig_util(r, sub, names, dev)
    ref = main[main["controller.scheduler"] == devices[0]]
    _fig9(r, ref, names, devices[0])
    _fig2b(r, ref, names, devices[0])
    _table1(r, main, names, devices)
    _fig11(r, ql, names, qls)
    ncq = None if quick else _ncq_depth(r, out, jobs, paper_load, devices[0])

    r.p("## Stress case: closed loop, 64 outstanding",
        "Not the paper's regime: every workload keeps 64 requests in the host and the device (traces replayed "
        "closed), so nearly every request conflicts and latency follows throughput. NCQ dispatch.")
    for dev in devices:
        sub = stress[stress["controller.scheduler"] == dev]
        for pair in PAIRS:
            results[("stress", dev, "ncq", pair)] = _effects(r, sub, sub, names, pair, f"stress, {dev.upper()}")
    if not quick:
        _sensitivity(r, out, jobs)
    _inconsistencies(r)
    _gaps(r, main, stress, names, devices, quick)
    r.insert(summary_at, *_summary(results, main, stress, ncq, devices, names))
    return r.write()


def _pair_rows(a, b, names, metric):
    per = []
    for w in names:
        x = b[(b["workload"] == w)][metric]
        y = a[(a["workload"] == w)][metric]
        if len(x) and len(y) and x.iloc[0] > 0:
            per.append(change_pct(x.iloc[0], y.iloc[0]))
        elif len(x) and len(y) and x.iloc[0] == 0 and y.iloc[0] == 0:
            per.append(0.0)  # none under either (no time in the host queue): no change
    return per


def _effects(r, new_df, base_df, names, pair, where) -> dict:
    new, base = pair
    a = new_df[new_df["host.scheduler"] == new]
    b = base_df[base_df["host.scheduler"] == base]
    paper = PAPER[pair]
    out, rows = {}, []
    for m, label in METRICS.items():
        e = Effect(_pair_rows(a, b, names, m), paper.get(m))
        out[m] = e
        rows.append([label, fmt_pct(paper[m]) if m in paper else "-"] + e.cells())
    r.p(f"**{new.upper()} vs {base.upper()}** ({where}): relative change of each metric, per workload.")
    r.table(["effect", "paper"] + EFFECT_HEADER, rows)
    return out


def _bar_positions(n, k):
    width = 0.8 / k
    return width, [x + 0.4 - width / 2 for x in range(n)]


def _value(sub, w, h, m):
    s = sub[(sub["workload"] == w) & (sub["host.scheduler"] == h)][m]
    return s.iloc[0] if len(s) else float("nan")


def _paper_vs(base: str, metric: str) -> list:
    """The paper's average changes of `metric` against `base`: [(scheme, %)]."""
    return [(new, v[metric]) for (new, b), v in PAPER.items() if b == base and metric in v]


def _fig_norm(r, sub, names, dev, metrics, base, tag, caption):
    fig, axes = plt.subplots(1, len(metrics), figsize=(6 * len(metrics) + 1.5, 4.2))
    width, ticks = _bar_positions(len(names), len(HOST))
    for ax, m in zip(axes, metrics):
        for i, h in enumerate(HOST):
            ys = [_value(sub, w, h, m) / _value(sub, w, base, m) if _value(sub, w, base, m) else float("nan")
                  for w in names]
            ax.bar([x + i * width for x in range(len(names))], ys, width, label=h.upper(), color=f"C{i}")
        # The paper gives averages over its volumes, not per volume: a line across, in the
        # scheme's colour, with the model's mean over the workloads beside it in the legend.
        for new, v in _paper_vs(base, m):
            i = HOST.index(new)
            model = [_value(sub, w, new, m) / _value(sub, w, base, m) for w in names if _value(sub, w, base, m)]
            mean = sum(model) / len(model) if model else float("nan")
            ax.axhline(1 + v / 100, color=f"C{i}", ls="--", lw=1.2,
                       label=f"paper: {new.upper()} average {v:+.1f} % (model: {100 * (mean - 1):+.1f} %)")
        ratio_axis(ax)
        ax.set_xticks(ticks)
        ax.set_xticklabels(names, rotation=35, ha="right", rotation_mode="anchor", fontsize=7)
        ax.set_ylabel(f"{METRICS[m]},\nnormalised to {base.upper()}", fontsize=8)
        ax.set_title(f"{METRICS[m]} ({dev.upper()} device)", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=3)
    r.save_figure(fig, f"{tag}_{dev}.png", f"{caption}, {dev.upper()} device, the paper's load (dashed: the paper's "
                                          "averages over its volumes)")


def _fig_util(r, sub, names, dev):
    fig, ax = plt.subplots(figsize=(10, 4.2))
    width, ticks = _bar_positions(len(names), len(HOST))
    for i, h in enumerate(HOST):
        ys = [_value(sub, w, h, "nand.chip_utilization_while_busy") for w in names]
        ax.bar([x + i * width for x in range(len(names))], ys, width, label=h.upper())
    # Table I: the chips each volume kept busy under NOOP, on the NOOP bars.
    noop = HOST.index("noop")
    paper_marks(ax, [x + noop * width for x in range(len(names))],
                [TABLE1[a][4] if a in TABLE1 else None for a in (w.split("-like")[0].split(" ")[0].upper()
                                                                   for w in names)],
                label="paper, Table I (NOOP)", ms=8)
    m = "nand.chip_utilization_while_busy"
    said = []
    for (new, base), v in PAPER.items():
        if m in v:
            per = [change_pct(_value(sub, w, base, m), _value(sub, w, new, m)) for w in names]
            per = [c for c in per if c == c]
            said.append(f"{new.upper()} vs {base.upper()}: paper {v[m]:+.1f} %, model "
                        + (f"{sum(per) / len(per):+.1f} %" if per else "n/a"))
    ax.set_xticks(ticks)
    ax.set_xticklabels(names, rotation=35, ha="right", rotation_mode="anchor", fontsize=7)
    ax.set_ylabel("chips busy while any is (of 64)")
    ax.set_title(f"Fig. 12: chip utilization ({dev.upper()} device)")
    ax.set_ylim(bottom=0)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(plt.Line2D([], [], ls="none"))
    labels.append("averages over the workloads:\n" + "\n".join(said))
    legend_outside(ax, handles=handles, labels=labels)
    ax.grid(True, axis="y", alpha=0.3)
    r.save_figure(fig, f"fig12_{dev}.png", f"Fig. 12: chip utilization, {dev.upper()} device, the paper's load (marks: "
                                           "the paper's Table I under NOOP; the paper's average changes beside the "
                                           "model's in the legend)")


def _fig9(r, sub, names, dev):
    rows = []
    above = 0
    for w in names:
        x = sub[(sub["workload"] == w) & (sub["host.scheduler"] == "rws")].iloc[0]
        share = 100.0 * x["host.prioritized_reads"] / max(1, x["read.count"])
        app = w.split("-like")[0]
        paper = (">5 %" if app in PAPER_FIG9_ABOVE5 else "<=5 %") if app in TABLE1 else ""
        agree = "" if not paper else ("yes" if (share > 5) == (app in PAPER_FIG9_ABOVE5) else "no")
        above += share > 5
        rows.append([w, paper, f"{share:.1f} %", agree])
    r.p(f"## Fig. 9: reads prioritized by RWS ({dev.upper()} device, the paper's load)",
        "The share of reads RWS sent ahead of a write that had arrived before them (`host.prioritized_reads`; NOOP "
        "prioritizes none). Paper: within 5 % for most volumes, above 5 % for HM_0, PRXY_0 and SRC1_2. Model: "
        f"above 5 % on {above} of {len(names)} workloads.")
    r.table(["workload", "paper", "model", "same side of 5 %"], rows)


def _fig2b(r, sub, names, dev):
    rows = []
    means = {"read": [], "write": []}
    for w in names:
        x = sub[(sub["workload"] == w) & (sub["host.scheduler"] == "noop")].iloc[0]
        cells = [w]
        for op in ("read", "write"):
            lat, cw = x[f"{op}.latency_us.mean"], x[f"{op}.conflict_wait_us"]
            s = cw / (lat - cw) if lat > cw and x[f"{op}.count"] else float("nan")
            if s == s:
                means[op].append(s)
            paper = PAPER_SLOWDOWN_NAMED.get((w.split("-like")[0], op))
            cells += [f"{paper:.1f}x" if paper else "", f"{s:.2f}x" if s == s else "n/a"]
        rows.append(cells)
    mr = sum(means["read"]) / len(means["read"]) if means["read"] else float("nan")
    mw = sum(means["write"]) / len(means["write"]) if means["write"] else float("nan")
    rows.append(["mean", f"{PAPER_SLOWDOWN['read']:.1f}x", f"{mr:.2f}x", f"{PAPER_SLOWDOWN['write']:.1f}x",
                 f"{mw:.2f}x"])
    r.p(f"## Fig. 2(b): slowdown from conflicts (NOOP, {dev.upper()} device, the paper's load)",
        "The paper's metric: \"the ratio of increased response time over the un-impacted response time\". Model: "
        "the mean waiting time induced by conflicts over the mean of the rest of the latency. Paper: 6.5x for "
        f"reads and 10.1x for writes on average; model: {mr:.2f}x and {mw:.2f}x.")
    r.table(["workload", "read, paper", "read, model", "write, paper", "write, model"], rows)


def _table1(r, main, names, devices):
    rows = []
    for w in names:
        app = w.split("-like")[0].split(" ")[0].upper()
        paper = TABLE1.get(app)
        conf, util = [], []
        for dev in devices:
            m = main[(main["workload"] == w) & (main["host.scheduler"] == "noop") &
                     (main["controller.scheduler"] == dev)].iloc[0]
            conf.append(f"{100.0 * m['host.read_conflicts'] / max(1, m['read.count']):.1f} % / "
                        f"{100.0 * m['host.write_conflicts'] / max(1, m['write.count']):.1f} %")
            util.append(f"{m['nand.chip_utilization_while_busy']:.2f}")
        pc = f"{100.0 * paper[2] / paper[0]:.1f} % / {100.0 * paper[3] / paper[1]:.1f} %" if paper else ""
        rows.append([w, pc] + conf + [f"{paper[4]:.2f}" if paper else ""] + util)
    devs = [d.upper() for d in devices]
    r.p("## Table I: conflicts and chips utilized under NOOP, the paper's load",
        "Read / write requests in conflict (a request whose chips overlap those of another request waiting or "
        "outstanding at the same time) and the mean number of chips busy while any is. The load was set so that "
        "the share of all requests in conflict on IOS equals the volume's: the conflicts are the calibration, not "
        "a result; the split between reads and writes, the other device and the chips utilized are results. "
        "Paper: its volume's figures (rsrch_1 is not among its volumes).")
    r.table(["workload", "conflicts r / w, paper"] + [f"model, {d}" for d in devs] + ["chips utilized, paper"] +
            [f"model, {d}" for d in devs], rows)


def _fig11(r, ql, names, qls):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for ax, m in zip(axes, ["read.latency_us.mean", "write.latency_us.mean"]):
        ax.set_prop_cycle(color=plt.cm.tab20.colors)
        for w in names:
            s = ql[ql["workload"] == w].sort_values("host.queue_length")
            b = s[s["host.queue_length"] == qls[0]][m]
            if len(b) and b.iloc[0] > 0:
                ax.plot(s["host.queue_length"], s[m] / b.iloc[0], marker="o", label=w)
        # The paper's changes from the shortest length, at the lengths it gives them for.
        pts = [(hi, 1 + v / 100) for lo, hi, mm, v in PAPER_QL if mm == m and lo == qls[0]]
        paper_marks(ax, [x for x, _ in pts], [y for _, y in pts], label="paper (all volumes)", ms=16, mew=3)
        ratio_axis(ax)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("host I/O queue length (requests)")
        ax.set_ylabel(f"{METRICS[m]}, normalised to length {qls[0]}")
        ax.set_title(f"Fig. 11: PIQ {METRICS[m]} vs queue length")
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    legend_outside(axes[1], handles=handles, labels=labels, fontsize=6)
    rows = []
    for lo, hi, m, paper in PAPER_QL:
        if lo not in qls or hi not in qls:
            continue
        per = []
        for w in names:
            s = ql[ql["workload"] == w]
            a, b = s[s["host.queue_length"] == lo][m], s[s["host.queue_length"] == hi][m]
            if len(a) and len(b) and a.iloc[0] > 0:
                per.append(change_pct(a.iloc[0], b.iloc[0]))
        rows.append([f"{METRICS[m]}, length {lo} -> {hi}", fmt_pct(paper)] + Effect(per, paper).cells())
    r.p("## Fig. 11: queue length (PIQ, HOS device, the paper's load)",
        "The host scheduling queue holds at most `host.queue_length` requests, waiting and outstanding together "
        "(`host.queue_window=waiting_and_outstanding`, the paper's window): the device holds at most that many, "
        "and never more than its 32 NCQ tags; arrivals beyond wait before the queue, in order. Per length, over "
        "the workloads (medians): the requests the device held on average (`controller.ncq_tags_mean`), the "
        "most it held, a read's time in the host, and the mean read and write latency.")
    per_len = []
    for q in qls:
        x = ql[ql["host.queue_length"] == q]
        held = x["controller.ncq_tags_mean"].median() if "controller.ncq_tags_mean" in x else float("nan")
        most = x["controller.ncq_tags_max"].max() if "controller.ncq_tags_max" in x else float("nan")
        per_len.append([q, f"{held:.2f}", f"{most:.0f}", f"{x['host.read_wait_us'].median():.0f}",
                        f"{x['read.latency_us.mean'].median():.0f}", f"{x['write.latency_us.mean'].median():.0f}"])
    r.table(["queue length", "device holds, mean", "device holds, most", "read's time in the host us",
             "read latency us", "write latency us"], per_len)
    r.table(["effect", "paper"] + EFFECT_HEADER, rows)
    r.save_figure(fig, "fig11.png", "Fig. 11: mean latency against the host queue length, normalised to the shortest "
                                    "(black dashes: the paper's changes from length 1, over all its volumes)")


NCQ_APPS = ["HM_0-like", "PROJ_1-like", "SRC2_0-like", "USR_0-like"]


def _ncq_depth(r, out, jobs, paper_load, dev):
    """The paper's load with fewer NCQ tags: the fewer the device holds, the more requests
    wait in the host queue, where a host scheduler can reorder them."""
    named = {n: paper_load[n] for n in NCQ_APPS}
    depths = [32, 8, 2]
    df = label_rows(run("paper-load-ncq", {
        "base": {"preset": "piq", "set": dict(base_set(), **{"controller.scheduler": dev})},
        "grid": {"controller.ncq_depth": depths, "host.scheduler": ["noop", "rws", "piq"]},
        "points": list(named.values()),
    }, out, jobs), named)
    df[["controller.ncq_depth", "host.scheduler", "workload"] + list(METRICS)].to_csv(
        os.path.join(out, "piq_paper_load_ncq.csv"), index=False)
    rows = []
    for depth in depths:
        s = df[df["controller.ncq_depth"] == depth]
        noop = s[s["host.scheduler"] == "noop"]
        cells = [str(depth), f"{noop['host.read_wait_us'].mean():.0f} / {noop['read.latency_us.mean'].mean():.0f} us"]
        for new, base in (("piq", "noop"), ("piq", "rws")):
            for m in ("read.latency_us.mean", "write.latency_us.mean"):
                e = Effect(_pair_rows(s[s["host.scheduler"] == new], s[s["host.scheduler"] == base], NCQ_APPS, m))
                cells.append(f"{fmt_pct(e.mean)} ({e.lo:+.0f} .. {e.hi:+.0f})")
        rows.append(cells)
    r.p(f"## Where requests wait: the paper's load with fewer NCQ tags ({dev.upper()} device)",
        f"{', '.join(NCQ_APPS)} at their calibrated rates, NCQ dispatch, the device's command queue "
        "(`controller.ncq_depth`) cut from 32 tags: requests then wait in the host queue, where the host schedulers "
        "act. Mean change over the four workloads (range).")
    r.table(["NCQ tags", "NOOP: read wait in host / read latency", "PIQ vs NOOP read", "PIQ vs NOOP write",
             "PIQ vs RWS read", "PIQ vs RWS write"], rows)
    return df


# What the PIQ effect depends on in the stress case: each variant changes one thing.
VARIANTS = [
    ("base (4-16 KiB requests, NCQ 32, 40 MT/s, 64 outstanding)", {}),
    ("2 KiB requests (one page, one chip each)", {"workload.size_bytes": 2048, "workload.size_max_bytes": 0,
                                                  "workload.align_bytes": 2048}),
    ("NCQ depth 8", {"controller.ncq_depth": 8}),
    ("bus 200 MT/s", {"nand.bus_mts": 200}),
    ("16 outstanding", {"workload.queue_depth": 16}),
]


def _sensitivity(r, out, jobs):
    apps = ["HM_0", "PROJ_1", "SRC2_0", "USR_0"]
    # Each variant names every key the variants change (the others' at the base's value),
    # so that a row's own configuration tells which variant it is.
    base = {"controller.ncq_depth": 32, "nand.bus_mts": 40.0, "workload.queue_depth": 64}
    named = {f"{app} | {vn}": {**_synthetic(app, 40000), **base, **v} for app in apps for vn, v in VARIANTS}
    df = label_rows(run("sensitivity", {
        "base": {"preset": "piq", "set": dict(base_set(), **{"controller.scheduler": "hos",
                                                             "workload.queue_depth": 64})},
        "grid": {"host.scheduler": ["noop", "piq"]},
        "points": list(named.values()),
    }, out, jobs), named, "point_name")
    df["app"] = df["point_name"].str.split(" [|] ").str[0]
    df["variant"] = df["point_name"].str.split(" [|] ").str[1]
    df[["app", "variant", "host.scheduler", "read.latency_us.mean", "write.latency_us.mean", "host.read_conflicts",
        "host.write_conflicts", "read.count", "write.count", "nand.chip_utilization_while_busy"]].to_csv(
        os.path.join(out, "piq_sensitivity.csv"), index=False)
    rows = []
    for name, _ in VARIANTS:
        s = df[df["variant"] == name]
        nn = s[s["host.scheduler"] == "noop"].set_index("app")
        pq = s[s["host.scheduler"] == "piq"].set_index("app")
        conf = [_conflict_share(nn.loc[a]) for a in apps]
        rd = Effect([change_pct(nn.loc[a, "read.latency_us.mean"], pq.loc[a, "read.latency_us.mean"]) for a in apps])
        wr = Effect([change_pct(nn.loc[a, "write.latency_us.mean"], pq.loc[a, "write.latency_us.mean"]) for a in apps])
        rows.append([name, f"{sum(conf) / len(conf):.0f} %", f"{fmt_pct(rd.mean)} ({rd.lo:+.0f} .. {rd.hi:+.0f})",
                     f"{fmt_pct(wr.mean)} ({wr.lo:+.0f} .. {wr.hi:+.0f})"])
    r.p("### What the stress case's PIQ effect depends on (HOS device)",
        f"PIQ against NOOP on {', '.join(a + '-like' for a in apps)}, closed loop, each line changing one thing: the "
        "request size (how many chips a request spans), the NCQ depth, the bus speed, and the load. Conflicts: the "
        "share of requests in conflict under NOOP. Mean change over the four (range).")
    r.table(["variant", "conflicts (NOOP)", "PIQ vs NOOP: read latency", "PIQ vs NOOP: write latency"], rows)


def _inconsistencies(r):
    r.p("## The paper's own inconsistencies",
        "* Its conclusion says PIQ improves read and write latency by 15.6 % and 28.6 % on average; Section V.B "
        "says 19.7 % and 47.0 % (against RWS). The tables above use Section V.B.\n"
        "* PIQ_W against NOOP and PIQ against RWS are given the same write figures: -47.0 % latency and -48.4 % "
        "waiting time.\n"
        "* Its results are \"processed with the basic design without batch scheduler\", while Algorithm 1 ends with "
        "\"Issue Batch_List.Head\" and Fig. 7 counts read and write cycles: both dispatches are reported here.")


def _gaps(r, main, stress, names, devices, quick):
    """The measured reasons for the gaps."""
    dev = devices[-1]
    pm = main[(main["controller.scheduler"] == dev) & (main["host.scheduler"] == "noop")]
    sm = stress[(stress["controller.scheduler"] == dev) & (stress["host.scheduler"] == "noop")]
    lines = ["## Why the model's effects differ from the paper's, measured"]
    share = 100.0 * (pm["host.read_wait_us"].mean() + pm["host.write_wait_us"].mean()) / max(
        1e-9, pm["read.latency_us.mean"].mean() + pm["write.latency_us.mean"].mean())
    head = ("At the paper's load the host queue is almost always empty." if share < 5 else
            f"At the paper's load, time in the host queue is {share:.0f} % of the latency.")
    lines.append(
        f"* **{head}** Under NOOP on {dev.upper()}, a read "
        f"waits {pm['host.read_wait_us'].mean():.1f} us and a write {pm['host.write_wait_us'].mean():.1f} us in the "
        "host queue on average over the workloads (mean latency "
        f"{pm['read.latency_us.mean'].mean():.0f} / {pm['write.latency_us.mean'].mean():.0f} us). With NCQ "
        "dispatch a request goes to the device as soon as it arrives unless all 32 tags are taken; a host "
        "scheduler can only reorder what waits, so the less waits, the less it can change. Conflicts then play out "
        "in the device's queues, where the host cannot act"
        + ("." if quick else " (\"Where requests wait\" above measures the schedulers with fewer tags)."))
    lines.append(
        f"* **In the stress case the queue is full.** Under NOOP at 64 outstanding a read waits "
        f"{sm['host.read_wait_us'].mean():.0f} us in the host queue and "
        f"{100.0 * (sm['host.read_conflicts'].sum() + sm['host.write_conflicts'].sum()) / max(1, sm['host.requests'].sum()):.0f} "
        "% of requests conflict: reordering has few conflict-free requests to promote, and latency follows "
        "throughput (Little's law), so any change in order shows as a change in throughput.")
    if len(devices) > 1:
        ios = main[main["controller.scheduler"] == "ios"]
        hos = main[main["controller.scheduler"] == "hos"]
        ei = Effect(_pair_rows(ios[ios["host.scheduler"] == "piq"], ios[ios["host.scheduler"] == "noop"], names,
                               "read.latency_us.mean"))
        eh = Effect(_pair_rows(hos[hos["host.scheduler"] == "piq"], hos[hos["host.scheduler"] == "noop"], names,
                               "read.latency_us.mean"))
        lines.append(
            f"* **The device scheduler.** At the paper's load PIQ changes read latency against NOOP by "
            f"{fmt_pct(ei.mean)} (median {fmt_pct(ei.median)}) over the in-order device (IOS) and by "
            f"{fmt_pct(eh.mean)} (median {fmt_pct(eh.median)}) over HOS, whose per-chip queues already let a "
            "request overtake one waiting for another chip.")
    lines.append(
        "* **Request sizes.** The paper's volumes' request sizes are not in Table I; the synthetic 4-16 KiB requests "
        "span 2-8 of the 64 chips, and hm_0's 82 % of requests span one or two 2 KiB pages. How many chips a request "
        "spans sets how often two conflict at a given load.")
    r.p(*lines)


def _short(v: str) -> str:
    """A verdict's first words (the table's cells)."""
    for w in HEADLINE:
        if v.startswith(w):
            return w
    return v


def _summary(results, main, stress, ncq, devices, names) -> list:
    """The report's opening: what agrees with the paper and what does not, in a few plain
    sentences and one table of every effect the paper gives."""
    def eff(reg, dev, disp, pair, m):
        return results[(reg, dev, disp, pair)][m]

    def where(c: Claim) -> tuple:
        """The results key of a claim: (regime, device, dispatch, pair)."""
        reg = {v: k for k, v in REGIME_WORDS.items()}[c.regime.split(", ")[0]]
        disp, dev = c.regime.split(", ")[1:]
        return (reg, dev.lower(), disp, (c.new, c.base))

    # Every verdict counted: the paper's averages, on each device run.
    judged = claims.judge([c for c in CLAIMS if where(c)[1] in devices and where(c) in results],
                          lambda c: results[where(c)][c.metric].per)

    def jd(reg, dev, disp, pair, m):
        j, = claims.find(judged, regime=regime(reg, disp, dev), new=pair[0], base=pair[1], metric=m)
        return j

    rd, wr = "read.latency_us.mean", "write.latency_us.mean"
    paper_keys = [(pair, m) for pair in PAIRS for m in PAPER[pair]]
    npaper = {d: sum(j.verdict.startswith("reproduced") for j in judged if j.claim.in_regime(regime("paper", d)))
              for d in ("ncq", "batch")}
    total = {d: sum(1 for j in judged if j.claim.in_regime(regime("paper", d))) for d in ("ncq", "batch")}
    out = ["## Summary"]

    def counts(reg, disp):
        return claims.counts(judged, regime(reg, disp))
    out.append(f"**Counts** (the paper's {len(paper_keys)} effects on each of {', '.join(d.upper() for d in devices)}): "
               f"at the paper's load, NCQ dispatch (the paper's regime): {counts('paper', 'ncq')}. With batch "
               f"dispatch: {counts('paper', 'batch')}. In the stress case: {counts('stress', 'ncq')}.")
    dev0 = devices[0]
    noop = main[(main["controller.scheduler"] == dev0) & (main["host.scheduler"] == "noop")]
    txt = ("**At the paper's load** (each workload at the rate that gives its Table I conflicts), with NCQ dispatch, "
           f"{npaper['ncq']} of the paper's {total['ncq']} effects (over {', '.join(d.upper() for d in devices)}) "
           "are reproduced: PIQ against RWS changes read latency by "
           + ", ".join(f"{fmt_pct(eff('paper', d, 'ncq', ('piq', 'rws'), rd).mean)} on {d.upper()} (per workload "
                       f"{eff('paper', d, 'ncq', ('piq', 'rws'), rd).lo:+.0f} .. "
                       f"{eff('paper', d, 'ncq', ('piq', 'rws'), rd).hi:+.0f} %)" for d in devices)
           + " (paper -19.7 %). The measured reason: under NOOP a read waits "
           f"{noop['host.read_wait_us'].median():.1f} us in the host queue of its {noop[rd].median():.0f} us mean "
           f"latency (medians over the workloads, {dev0.upper()}); the device held "
           + (f"{noop['controller.ncq_tags_mean'].median():.1f} requests on average and at most "
              f"{noop['controller.ncq_tags_max'].median():.0f} " if "controller.ncq_tags_mean" in noop else "")
           + "of its 32 NCQ tags (the host's window, waiting and outstanding, is 64): the device takes "
           "almost every request as it arrives, and a host scheduler can only reorder what waits.")
    if ncq is not None:
        s2 = ncq[ncq["controller.ncq_depth"] == ncq["controller.ncq_depth"].min()]
        e = Effect(_pair_rows(s2[s2["host.scheduler"] == "piq"], s2[s2["host.scheduler"] == "noop"], NCQ_APPS, rd))
        txt += (f" With {int(s2['controller.ncq_depth'].iloc[0])} tags requests wait in the host "
                f"({s2[s2['host.scheduler'] == 'noop']['host.read_wait_us'].mean():.0f} us) and PIQ cuts read latency "
                f"against NOOP by {fmt_pct(e.mean)} ({e.neg} of {e.n} workloads).")
    out.append(txt)
    b = eff("paper", dev0, "batch", ("piq", "rws"), rd)
    out.append("**With batch dispatch** (Algorithm 1's \"Issue Batch_List.Head\" taken literally: the next batch only "
               f"once the last has completed) PIQ is slower than RWS on {b.pos} of {b.n} workloads ({dev0.upper()}: read "
               f"latency median {fmt_pct(b.median)}, mean {fmt_pct(b.mean)}): a batch leaves the chips its members do "
               "not touch idle until its slowest member ends (chips busy while any is: "
               f"{fmt_pct(eff('paper', dev0, 'batch', ('piq', 'rws'), 'nand.chip_utilization_while_busy').median)}, "
               f"median). {npaper['batch']} of {total['batch']} effects reproduced.")
    st = []
    for d in devices:
        pr = eff("stress", d, "ncq", ("piq_r", "noop"), rd)
        rw = eff("stress", d, "ncq", ("rws", "noop"), rd)
        pq = [eff("stress", d, "ncq", ("piq", "rws"), m) for m in (rd, wr)]
        st.append(f"on {d.upper()}, PIQ_R against NOOP changes read latency by {fmt_pct(pr.mean)} (paper -19.6 %: "
                  f"{_short(jd('stress', d, 'ncq', ('piq_r', 'noop'), rd).verdict)}), of which RWS alone (reads first, no batches) gives {fmt_pct(rw.mean)}; "
                  f"PIQ against RWS {fmt_pct(pq[0].mean)} / {fmt_pct(pq[1].mean)} for reads / writes (paper -19.7 / "
                  "-47.0 %)")
    out.append("**In the stress case** (closed loop at 64 outstanding, not the paper's regime, where nearly every "
               "request conflicts): " + "; ".join(st) + ".")
    pr9 = [100.0 * x["host.prioritized_reads"] / max(1, x["read.count"])
           for _, x in main[(main["controller.scheduler"] == dev0) & (main["host.scheduler"] == "rws")].iterrows()]
    slow = {op: [x[f"{op}.conflict_wait_us"] / (x[f"{op}.latency_us.mean"] - x[f"{op}.conflict_wait_us"])
                 for _, x in noop.iterrows() if x[f"{op}.latency_us.mean"] > x[f"{op}.conflict_wait_us"]]
            for op in ("read", "write")}
    util = noop["nand.chip_utilization_while_busy"].mean()
    out.append(f"**The paper's other figures** ({dev0.upper()}, the paper's load): RWS prioritizes more than 5 % of "
               f"the reads on {sum(v > 5 for v in pr9)} of {len(pr9)} workloads (Fig. 9: 3 of 15 volumes); conflicts "
               f"slow reads by {sum(slow['read']) / max(1, len(slow['read'])):.2f}x and writes by "
               f"{sum(slow['write']) / max(1, len(slow['write'])):.2f}x the rest of their latency (Fig. 2(b): 6.5x and "
               f"10.1x); NOOP keeps {util:.1f} chips busy while any is (Table I: "
               f"{sum(v[4] for v in TABLE1.values()) / len(TABLE1):.1f} on average).")
    cols = [(reg, d, disp) for reg, disp in (("paper", "ncq"), ("paper", "batch"), ("stress", "ncq")) for d in devices]
    rows = []
    for pair, m in paper_keys:
        cells = [f"{pair[0].upper()} vs {pair[1].upper()}: {METRICS[m].split(' (')[0]}", fmt_pct(PAPER[pair][m])]
        for reg, d, disp in cols:
            js = claims.find(judged, regime=regime(reg, disp, d), new=pair[0], base=pair[1], metric=m)
            cells.append(f"{fmt_pct(js[0].effect.mean)}, {_short(js[0].verdict)}" if js else "-")
        rows.append(cells)
    out.append("Every effect the paper gives (mean over the workloads, verdict; the sections below give the median, "
               "range, sign counts and the effects the paper does not give, those that got worse included):")
    head = ["effect", "paper"] + [f"{'paper load' if reg == 'paper' else 'stress'}, {disp}, {d.upper()}"
                                 for reg, d, disp in cols]
    out.append("\n".join(["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:"
                                                                       for i in range(len(head))) + "|"]
                         + ["| " + " | ".join(c) + " |" for c in rows]))
    return out
