"""Wear: read latency and the ECC's decode tiers as the device ages (an experiment of the
model's own, not a paper's). The NAND draws raw bit errors per ECC codeword of every page
read, at a raw bit error rate (RBER) that grows as a power law in the block's program/erase
cycles, the shape Mielke et al. measured ("Bit error rate in NAND flash memories", IRPS
2008): RBER(pe) = new + (eol - new) * (pe / rated_cycles) ^ wear_exponent
(nand/fault_model.h). The controller decodes each read's worst codeword: a hard decode at
the default reference voltages; beyond what it corrects, the page is read again at the
read-retry table's shifted voltages (each step multiplies the RBER by retry_gain), then
once as a soft-decision read (soft_senses sensings, the RBER times soft_gain) with a soft
decode; beyond that, the read is uncorrectable (controller/ecc.h). The device is aged by
`nand.fault.wear_cycles`, P/E cycles added to every block's own erase count, without
running its history.

The device is the default one (no preset), filled and aged (`ftl.precondition=1`,
`ftl.precondition_age=1`: the steady state of random overwrites, GC under way), under a
random read-mostly workload: 70 % reads, 4 KiB requests 4 KiB aligned, closed loop at 32
outstanding. Program and erase failures are off (a separate concern): only the bit errors
of reads change with the age.
"""

from __future__ import annotations

import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .plot import legend_outside  # noqa: E402
from .report import Report, run  # noqa: E402

# The age swept: P/E cycles added to every block (from new to past the rated endurance).
WEAR = [0, 500, 1000, 1500, 2000, 2500, 3000, 3500]
QUICK_WEAR = [0, 1500, 3000]
SEEDS, QUICK_SEEDS = [1, 2], [1]
REQUESTS, QUICK_REQUESTS = 60000, 8000
# The bit-error model: this model's assumptions (not a product's figures), the shape from
# Mielke et al. (IRPS 2008), a power law in P/E cycles.
MODEL = {
    "nand.fault.rber_new": 1e-4,
    "nand.fault.rber_eol": 6e-3,
    "nand.fault.rber_sigma": 0.5,
    "nand.fault.rated_cycles": 3000,
    "nand.fault.wear_exponent": 2,
    "nand.fault.retry_gain": 0.5,
    "nand.fault.retry_steps": 5,
    "nand.fault.soft_senses": 3,
    "nand.fault.soft_gain": 0.7,
    "nand.fault.codeword_bytes": 1024,
    "nand.fault.seed": 1,
}
# The controller's ECC (its defaults, given so that the report lists them).
ECC = {
    "controller.ecc_hard_bits": 40,
    "controller.ecc_soft_bits": 80,
    "controller.ecc_hard_decode_us": 2,
    "controller.ecc_soft_decode_us": 12,
}
# Program and erase failures: off here.
NO_FAILURES = {"nand.fault.program_fail_new": 0, "nand.fault.program_fail_eol": 0,
               "nand.fault.erase_fail_new": 0, "nand.fault.erase_fail_eol": 0}
DEVICE = {"ftl.precondition": 1, "ftl.precondition_age": 1}
WORKLOAD = {"workload.kind": "synthetic", "workload.pattern": "random", "workload.read_ratio": 0.7,
            "workload.size_bytes": 4096, "workload.size_max_bytes": 4096, "workload.align_bytes": 4096,
            "workload.queue_depth": 32}
WHAT = {  # each setting's meaning, for the report's table of parameters
    "nand.fault.rber_new": "raw bit error rate of a new block, default read level",
    "nand.fault.rber_eol": "the same at the rated endurance",
    "nand.fault.rber_sigma": "page-to-page variation: a log-normal factor of this sigma (mean 1) per page and erase cycle",
    "nand.fault.rated_cycles": "rated endurance, P/E cycles",
    "nand.fault.wear_exponent": "exponent of the power law in P/E cycles",
    "nand.fault.retry_gain": "each read-retry step multiplies the RBER by this",
    "nand.fault.retry_steps": "read-retry table entries (read levels 1..n)",
    "nand.fault.soft_senses": "sensings of the soft-decision read (each a tR; as many pages out)",
    "nand.fault.soft_gain": "the soft read's RBER: the last retry step's times this",
    "nand.fault.codeword_bytes": "ECC codeword, data bytes (errors drawn per codeword)",
    "nand.fault.seed": "the fault model's seed",
    "controller.ecc_hard_bits": "bit errors per codeword the hard decode corrects (every level before the soft)",
    "controller.ecc_soft_bits": "bit errors per codeword the soft decode corrects",
    "controller.ecc_hard_decode_us": "hard decode time, us",
    "controller.ecc_soft_decode_us": "soft decode time, us",
}
TIERS = ["hard", "retry", "soft", "uncorrectable"]
LAT = {"read.latency_us.p50": "p50", "read.latency_us.p99": "p99", "read.latency_us.p999": "p99.9"}
PARTS = ["read_retry", "ecc_decode"]


def rber(pe: float, level: int = 0) -> float:
    """The model's raw bit error rate at `pe` cycles and read level `level` (level 0 the
    default, 1..retry_steps the retry table), as nand/fault_model.cpp computes it."""
    r = MODEL["nand.fault.rber_new"] + (MODEL["nand.fault.rber_eol"] - MODEL["nand.fault.rber_new"]) * \
        (max(pe, 0.0) / MODEL["nand.fault.rated_cycles"]) ** MODEL["nand.fault.wear_exponent"]
    return min(0.5, r * MODEL["nand.fault.retry_gain"] ** min(level, MODEL["nand.fault.retry_steps"]))


def errors_per_codeword(pe: float, level: int = 0) -> float:
    return rber(pe, level) * 8 * MODEL["nand.fault.codeword_bytes"]


def cycles_at_mean_errors(errors: float, level: int = 0) -> float:
    """The P/E cycles at which the mean bit errors per codeword at read level `level`
    reach `errors` (inf if never)."""
    new, eol = MODEL["nand.fault.rber_new"], MODEL["nand.fault.rber_eol"]
    gain = MODEL["nand.fault.retry_gain"] ** min(level, MODEL["nand.fault.retry_steps"])
    target = errors / (8 * MODEL["nand.fault.codeword_bytes"]) / gain
    if target > 0.5:
        return float("inf")
    if target <= new:
        return 0.0
    if eol <= new:
        return float("inf")
    return MODEL["nand.fault.rated_cycles"] * ((target - new) / (eol - new)) ** (1 / MODEL["nand.fault.wear_exponent"])


def _hist(v) -> list:
    """faults.retries_per_read (JSON text in the table): index n, page reads that took n
    extra read levels."""
    if isinstance(v, str):
        v = json.loads(v)
    return [float(x) for x in v] if v is not None and not (isinstance(v, float) and v != v) else []


def _mean_retries(v) -> float:
    h = _hist(v)
    n = sum(h)
    return sum(i * x for i, x in enumerate(h)) / n if n else float("nan")


def add_derived(df):
    if "faults.reads_by_tier.hard" not in df:
        raise RuntimeError("this ssdsim's stats.json has no faults.reads_by_tier: it predates the NAND fault model")
    df["pe_cycles"] = df["nand.fault.wear_cycles"].astype(float)
    total = sum(df[f"faults.reads_by_tier.{t}"] for t in TIERS)
    df["page_reads"] = total
    for t in TIERS:
        df[f"{t}_pct"] = 100.0 * df[f"faults.reads_by_tier.{t}"] / total.where(total > 0)
    df["retries_per_read"] = df["faults.retries_per_read"].map(_mean_retries)
    return df


# The per-point table's columns (stats.json keys and derived ones), the mean over seeds.
POINT_COLS = ["read.latency_us.mean", *LAT, "read.iops", "read.bandwidth_mb_s", "all.iops",
              *[f"{t}_pct" for t in TIERS], "retries_per_read",
              *[f"read.latency_parts.{p}.mean_us" for p in PARTS], "faults.host_media_errors",
              "ftl.erase_count_mean", "page_reads", "read.count"]


def reproduce(out: str, quick: bool, jobs) -> str:
    wear = QUICK_WEAR if quick else WEAR
    seeds = QUICK_SEEDS if quick else SEEDS
    n = QUICK_REQUESTS if quick else REQUESTS
    df = add_derived(run("wear", {
        "base": {"set": {**DEVICE, **WORKLOAD, "workload.requests": n, **MODEL, **ECC, **NO_FAILURES}},
        "grid": {"nand.fault.wear_cycles": wear},
        "seeds": seeds,
    }, out, jobs))
    df.sort_values(["pe_cycles", "seed"]).to_csv(
        os.path.join(out, "wear_runs.csv"), index=False,
        columns=["pe_cycles", "seed", "read.count", "write.count"] + [c for c in POINT_COLS if c != "read.count"] +
                [f"faults.reads_by_tier.{t}" for t in TIERS] + ["faults.retries_per_read", "faults.retry_reads"])
    parts = [c for c in df.columns if c.startswith("read.latency_parts.") and c.endswith(".mean_us")]
    pts = df.groupby("pe_cycles")[POINT_COLS + [c for c in parts if c not in POINT_COLS]].mean().sort_index()
    lo = df.groupby("pe_cycles")[list(LAT)].min().sort_index()
    hi = df.groupby("pe_cycles")[list(LAT)].max().sort_index()
    pts.assign(rber_level0=[rber(pe) for pe in pts.index]).to_csv(os.path.join(out, "wear_points.csv"))

    r = Report(out, "Wear: read latency and ECC decode tiers against P/E cycles" + (" (quick)" if quick else ""))
    summary_at = len(r.lines)
    r.p(*(t.strip().replace("\n", " ") for t in __doc__.split("\n\n")))
    r.p(f"**Runs.** `nand.fault.wear_cycles` = {', '.join(f'{w:,}' for w in wear)}; workload seeds "
        f"{', '.join(map(str, seeds))} (`workload.seed`; the fault model's seed is fixed); {n:,} requests per run "
        f"({len(df)} runs). Every read is checked against what was last written: 0 mismatches. The blocks' own "
        f"erase counts (the aged preconditioning's history and the run's GC: {pts['ftl.erase_count_mean'].min():.0f} "
        "on average) add to `wear_cycles`.")
    _parameters(r)
    _table(r, pts)
    _fig_latency(r, pts, lo, hi, len(seeds))
    _fig_tiers(r, pts)
    r.insert(summary_at, *_summary(pts))
    return r.write()


def _parameters(r: Report):
    hard, soft = ECC["controller.ecc_hard_bits"], ECC["controller.ecc_soft_bits"]
    rows = [[f"`{k}`", f"{v:g}", WHAT[k]] for k, v in {**MODEL, **ECC}.items()]
    r.p("## The model's assumptions",
        "The bit-error parameters are this model's assumptions, not a product's figures: the shape (RBER a power "
        "of the P/E cycles) is Mielke et al.'s (IRPS 2008). A read's attempt reports the "
        "most bit errors of any codeword it moved out; the decode tier is the first level whose attempt the "
        f"decoder corrects (hard: up to {hard} bits per {MODEL['nand.fault.codeword_bytes']} B codeword at the "
        f"default level and each retry step; soft: up to {soft} at the soft read). The same page, erase cycle and "
        "level read again gives the same errors (retention and read disturb are not modelled). Program and erase "
        "failures are off (`nand.fault.program_fail_*`, `nand.fault.erase_fail_*` = 0).")
    r.table(["key", "value", "meaning"], rows)
    rated = MODEL["nand.fault.rated_cycles"]
    rows = [[f"{pe:,.0f}", f"{rber(pe):.2e}", f"{errors_per_codeword(pe):.1f}", f"{errors_per_codeword(pe, 1):.1f}"]
            for pe in sorted({0, rated / 2, rated, cycles_at_mean_errors(hard)})]
    steps = MODEL["nand.fault.retry_steps"]
    r.p(f"What the model gives at a few ages (mean bit errors per codeword: RBER x 8 x "
        f"{MODEL['nand.fault.codeword_bytes']} B; a read's worst codeword has more). The mean at the default level "
        f"reaches the hard decoder's {hard} bits at {cycles_at_mean_errors(hard):,.0f} P/E cycles, after one retry "
        f"step at {cycles_at_mean_errors(hard, 1):,.0f}, after the last ({steps}) at "
        f"{cycles_at_mean_errors(hard, steps):,.0f}: past that the mean read needs the soft read.")
    r.table(["P/E cycles", "RBER, default level", "mean errors / codeword", "after one retry step"], rows)


def _f(v, fmt="{:.0f}") -> str:
    return fmt.format(v) if v == v else "n/a"


def _table(r: Report, pts):
    rows = []
    for pe, x in pts.iterrows():
        rows.append([f"{pe:,.0f}", f"{rber(pe):.2e}"] + [_f(x[k]) for k in LAT] +
                    [_f(x["read.iops"]), _f(x["read.bandwidth_mb_s"], "{:.1f}"), _f(x["all.iops"])] +
                    [_f(x[f"{t}_pct"], "{:.2f}") for t in TIERS] + [_f(x["retries_per_read"], "{:.3f}")] +
                    [_f(x[f"read.latency_parts.{p}.mean_us"], "{:.1f}") for p in PARTS])
    r.p("## Per wear point",
        "The mean over the seeds. Read latency in us, from a host read's arrival to its completion; read IOPS and "
        "MB/s, and IOPS of all requests. The tiers are shares of the page reads of any origin (host reads, GC "
        "copies, the reads of partial writes), each counted once, in the tier that decoded it; retries per read: "
        "the mean extra read levels a page read took (`faults.retries_per_read`; the soft read counts as "
        f"{MODEL['nand.fault.retry_steps'] + 1}). `read_retry` and `ecc_decode`: the mean over host reads of "
        "those latency parts (`read.latency_parts`): `read_retry` is the whole time of a read's earlier attempts "
        "(their queueing included), `ecc_decode` the decode of its last attempt only.")
    r.table(["P/E cycles", "RBER", "read p50", "p99", "p99.9", "read IOPS", "read MB/s", "all IOPS", "hard %",
             "retry %", "soft %", "uncorr. %", "retries / read", "read_retry us", "ecc_decode us"], rows)


def _rated(ax):
    ax.axvline(MODEL["nand.fault.rated_cycles"], color="k", ls="--", lw=0.8, label="rated endurance")


def _fig_latency(r: Report, pts, lo, hi, nseeds: int):
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    xs = list(pts.index)
    for k, name in LAT.items():
        ys = list(pts[k])
        if nseeds > 1:
            ax.errorbar(xs, ys, yerr=[[y - a for y, a in zip(ys, lo[k])], [b - y for y, b in zip(ys, hi[k])]],
                        marker="o", capsize=3, label=f"read {name}")
        else:
            ax.plot(xs, ys, marker="o", label=f"read {name}")
    _rated(ax)
    ax.set_xticks(xs)
    ax.set_xlabel("P/E cycles (nand.fault.wear_cycles)")
    ax.set_ylabel("read latency (us)")
    ax.set_ylim(bottom=0)
    ax.set_title("Read latency percentiles against wear")
    ax.grid(True, alpha=0.3)
    legend_outside(ax, fontsize=8)
    r.save_figure(fig, "wear_read_latency.png", "Read latency p50, p99 and p99.9 against P/E cycles (mean over seeds"
          + (", bars: their range)" if nseeds > 1 else ")"))


def _fig_tiers(r: Report, pts):
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    xs = list(pts.index)
    step = min((b - a for a, b in zip(xs, xs[1:])), default=1000.0)
    bottom = [0.0] * len(xs)
    colors = {"hard": "tab:green", "retry": "tab:orange", "soft": "tab:red", "uncorrectable": "k"}
    for t in TIERS:
        ys = [v if v == v else 0.0 for v in pts[f"{t}_pct"]]
        ax.bar(xs, ys, 0.6 * step, bottom=bottom, label=t, color=colors[t])
        bottom = [b + y for b, y in zip(bottom, ys)]
    _rated(ax)
    ax.set_xticks(xs)
    ax.set_xlabel("P/E cycles (nand.fault.wear_cycles)")
    ax.set_ylabel("page reads (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Decode tier of the page reads against wear")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    r.save_figure(fig, "wear_tiers.png", "Share of page reads per decode tier (stacked) against P/E cycles")


def _first(pts, cond) -> float | None:
    """The fewest P/E cycles of the sweep at which `cond(row)` holds, None if at none."""
    for pe, x in pts.iterrows():
        if cond(x):
            return pe
    return None


def _summary(pts) -> list:
    """What the numbers show, computed from them."""
    new = pts.iloc[0]
    last_pe, last = pts.index[-1], pts.iloc[-1]
    rated = MODEL["nand.fault.rated_cycles"]
    hard = ECC["controller.ecc_hard_bits"]
    out = ["## What it shows"]
    p99, p50, p999 = "read.latency_us.p99", "read.latency_us.p50", "read.latency_us.p999"
    doubled = _first(pts, lambda x: x[p99] > 2 * new[p99])
    ratio = pts[p99] / new[p99]
    if doubled is not None:
        lat = (f"Read p99 first exceeds twice its new-device value ({new[p99]:.0f} us) at {doubled:,.0f} P/E cycles "
               f"({pts.loc[doubled, p99]:.0f} us).")
    else:
        lat = (f"Read p99 never exceeds twice its new-device value ({new[p99]:.0f} us) in the sweep: at most "
               f"{ratio.max():.2f}x, at {ratio.idxmax():,.0f} P/E cycles.")
    lat += (f" From {pts.index[0]:,.0f} to {last_pe:,.0f} cycles read p50 goes from {new[p50]:.0f} to "
            f"{last[p50]:.0f} us ({(last[p50] / new[p50] - 1) * 100:+.0f} %), p99 from {new[p99]:.0f} to "
            f"{last[p99]:.0f} us ({(last[p99] / new[p99] - 1) * 100:+.0f} %), p99.9 from {new[p999]:.0f} to "
            f"{last[p999]:.0f} us ({(last[p999] / new[p999] - 1) * 100:+.0f} %); read IOPS "
            f"{(last['read.iops'] / new['read.iops'] - 1) * 100:+.1f} %.")
    same = []  # the ages, from new on, whose latencies are the new device's exactly
    for pe, x in pts.iterrows():
        if (x[p50], x[p99], x[p999]) != (new[p50], new[p99], new[p999]):
            break
        same.append(pe)
    if len(same) > 1:
        lat += f" Up to {same[-1]:,.0f} cycles the latencies are exactly the new device's"
        lat += (": every page read there decoded at the first try, and the bit errors change nothing else." if
                (pts.loc[same, "hard_pct"] == 100.0).all() else ".")
    falls = []  # a percentile lower than at the age before it (more than 1 %)
    for k, name in LAT.items():
        for (pa, a), (pb, b) in zip(pts[k].items(), list(pts[k].items())[1:]):
            if b < 0.99 * a:
                falls.append(f"read {name} falls from {a:.0f} us at {pa:,.0f} cycles to {b:.0f} us at {pb:,.0f}")
    if falls:
        lat += " Not monotonic in wear: " + "; ".join(falls) + "."
    out.append(lat)
    retry1 = _first(pts, lambda x: x["retry_pct"] + x["soft_pct"] + x["uncorrectable_pct"] >= 1.0)
    half = _first(pts, lambda x: x["hard_pct"] < 50.0)
    soft = _first(pts, lambda x: x["soft_pct"] > 0)
    unc = _first(pts, lambda x: x["uncorrectable_pct"] > 0)
    tiers = ("At least 1 % of page reads need a read-retry " + (f"from {retry1:,.0f} P/E cycles" if retry1 is not None
                                                               else "at no point of the sweep"))
    tiers += ("; fewer than half decode at the first try (hard decode, default level) " +
              (f"from {half:,.0f}" if half is not None else "at no point"))
    tiers += (f" (the model's mean errors per codeword reach the hard decoder's {hard} bits at "
              f"{cycles_at_mean_errors(hard):,.0f}, rated endurance {rated:,}). ")
    tiers += (f"At {last_pe:,.0f} cycles {last['hard_pct']:.1f} % decode at the first try, {last['retry_pct']:.1f} % "
              f"after read-retry, {last['soft_pct']:.2f} % at the soft read and {last['uncorrectable_pct']:.2f} % not "
              f"at all; a page read takes {last['retries_per_read']:.2f} extra read levels on average. ")
    soft_from = cycles_at_mean_errors(hard, MODEL["nand.fault.retry_steps"])
    tiers += ("The soft read is " + (f"first needed at {soft:,.0f} cycles" if soft is not None else
                                     "never needed in the sweep (the model's mean errors after the last retry "
                                     f"step reach {hard} bits only at {soft_from:,.0f} cycles)") +
              "; uncorrectable reads " +
              (f"first appear at {unc:,.0f} cycles ({int(pts['faults.host_media_errors'].max())} host media "
               "errors at most)." if unc is not None else "do not occur."))
    out.append(tiers)
    parts = []
    names = [c for c in pts.columns if c.startswith("read.latency_parts.") and c.endswith(".mean_us")]
    if names:
        top = max(names, key=lambda c: new[c])
        parts.append(f"On the new device the largest part of the mean read latency ({new['read.latency_us.mean']:.0f} "
                     f"us) is `{top.split('.')[2]}`, {new[top]:.0f} us "
                     f"({100.0 * new[top] / new['read.latency_us.mean']:.0f} %)" +
                     (f", against {new['read.latency_parts.array.mean_us']:.0f} us in the array (tR)."
                      if "read.latency_parts.array.mean_us" in names else "."))
    rr = "read.latency_parts.read_retry.mean_us"
    ecc = "read.latency_parts.ecc_decode.mean_us"
    mean_rise = last["read.latency_us.mean"] - new["read.latency_us.mean"]
    if last[rr] > 0:
        parts.append(f"The mean read latency rises by {mean_rise:.0f} us from new to {last_pe:,.0f} cycles, while the "
                     f"`read_retry` part grows to {last[rr]:.0f} us: it holds the earlier attempts' whole time, "
                     "queueing included, which without a retry the other parts (conflicts, queues) would hold.")
    if pts[ecc].max() - pts[ecc].min() <= 0.01 * max(pts[ecc].max(), 1e-9):
        parts.append(f"The `ecc_decode` part does not move with wear ({pts[ecc].iloc[0]:.1f} us at every point): it "
                     "is the last attempt's decode, a hard decode unless the read reached the soft one.")
    out.append(" ".join(parts))
    return out
