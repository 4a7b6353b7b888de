"""scripts/reproduce PAPER [--quick] [--out DIR] [--jobs N]

Reproduces a paper's experiments on the model (PAPER: piq, sos, chen, park; ../shared/
seeds/README.md maps them): sweeps through scripts/sweep, then DIR/report.md with, for
every figure or table it can reproduce, the paper's numbers beside the model's, the
direction and size of each effect and a verdict; DIR/*.csv with the numbers and
DIR/figures/ with the figures. --quick runs a reduced set (under two minutes on two
cores: what CI runs); without it, the full set (what docs/results.md quotes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .sweep import ROOT, sweep

TRACES = os.environ.get("SSD_TRACES_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "traces")


class TracesMissing(RuntimeError):
    """A trace a reproduction runs is not in TRACES: an error, never a row left out."""


def trace_path(name: str) -> str:
    """The path of shared trace `name`; TracesMissing if it is not there."""
    p = os.path.join(TRACES, name)
    if not os.path.isfile(p):
        raise TracesMissing(f"{name} is not in the traces folder {TRACES}: put the shared traces (../shared/traces "
                            "beside the repository) there, or set SSD_TRACES_DIR to the folder that holds them")
    return p

# A verdict on one effect (relative change, in %): reproduced when the model's effect has
# the paper's sign and lies within TOLERANCE_PP percentage points or TOLERANCE_REL of
# the paper's size, whichever is wider.
TOLERANCE_PP = 5.0
TOLERANCE_REL = 0.25


def change_pct(base: float, new: float) -> float:
    return (new / base - 1.0) * 100.0 if base else float("nan")


def verdict(paper: float, model: float) -> str:
    if model != model:
        return "not measured"
    tol = max(TOLERANCE_PP, TOLERANCE_REL * abs(paper))
    if abs(model - paper) <= tol and (paper == 0 or model * paper > 0 or abs(model) <= TOLERANCE_PP):
        return "reproduced"
    if paper != 0 and model * paper > 0:
        return "same direction, different size"
    return "not reproduced"


def fmt_pct(v: float) -> str:
    return "n/a" if v != v else f"{v:+.1f} %"


class Report:
    """report.md, written as the experiments go."""

    def __init__(self, out: str, title: str):
        self.out = out
        self.lines = [f"# {title}", ""]
        os.makedirs(os.path.join(out, "figures"), exist_ok=True)

    def p(self, *paragraphs: str):
        for t in paragraphs:
            self.lines += [t, ""]

    def table(self, header: list, rows: list):
        self.lines.append("| " + " | ".join(header) + " |")
        self.lines.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
        for r in rows:
            self.lines.append("| " + " | ".join(str(c) for c in r) + " |")
        self.lines.append("")

    def figure(self, path: str, caption: str):
        rel = os.path.relpath(path, self.out)
        self.lines += [f"![{caption}]({rel})", "", f"*{caption}*", ""]

    def write(self):
        p = os.path.join(self.out, "report.md")
        with open(p, "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines).rstrip() + "\n")
        return p


def run(name: str, spec: dict, out: str, jobs):
    """A sweep of the reproduction, in out/sweep-NAME (spec.json records it)."""
    from .spec import spec_from_dict
    from .ssdsim import Ssdsim, find_binary

    d = os.path.join(out, f"sweep-{name}")
    sim = Ssdsim(find_binary(ROOT))
    s = spec_from_dict(dict(spec, name=name), os.path.join(d, "spec.json"), set(sim.types))
    df, _ = sweep(None, d, jobs, None, quiet=not sys.stderr.isatty(), spec=s)
    bad = df[df["status"] != "ok"]
    if len(bad):
        raise RuntimeError(f"{name}: {len(bad)} points failed, e.g. {bad.iloc[0]['point_dir']}: {bad.iloc[0]['error']}")
    return df


def placeholder(paper: str, title: str, experiments: list, out: str, quick: bool, jobs) -> str:
    r = Report(out, f"{title}: reproduction")
    r.p("**Not yet possible.** The model does not implement this paper's techniques yet; each experiment below "
        "waits for the issue that builds what it needs.")
    r.table(["experiment of the paper", "what the model still needs"], experiments)
    return r.write()


def main(argv=None):
    from . import paper_piq, paper_sos
    # Run as `python -m ssdexp.reproduce`, this file is __main__; the papers raise the
    # package module's TracesMissing.
    from .reproduce import TracesMissing as PapersTracesMissing

    papers = {
        "piq": paper_piq.reproduce,
        "sos": paper_sos.reproduce,
        "chen": lambda out, quick, jobs: placeholder("chen", "Chen et al., delay-based I/O request scheduling", [
            ("Fig. 9-11: IOPS and latency of delay-based vs weight-based vs round-robin write dispatch "
             "(Financial, WebSearch)", "the dispatch policies (firmware scheduling seam), the UMass traces' reader"),
            ("Fig. 12-13: write batches of up to k x p pages, read batches across planes",
             "batch building in the firmware"),
            ("bus 38 vs 50 MB/s, tR 20/30 us, tPROG 200/400 us", "available now (preset delay), with the above"),
        ], out, quick, jobs),
        "park": lambda out, quick, jobs: placeholder("park", "Park et al., exploiting internal parallelism", [
            ("multi-plane and pipeline rescheduling of the NCQ queue", "the rescheduling in the firmware"),
            ("dynamic write mapping: shortest-queue-first, shortest-estimated-time-first, multi-level stripe",
             "those WriteAllocator policies (the seam and its forecast exist)"),
            ("IOPS vs queue depth, SATA II link", "available now (preset park), with the above"),
        ], out, quick, jobs),
    }
    ap = argparse.ArgumentParser(prog="scripts/reproduce", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paper", choices=sorted(papers))
    ap.add_argument("--quick", action="store_true", help="the reduced set (CI)")
    ap.add_argument("--out", help="output directory (default: out/reproduce-PAPER[-quick])")
    ap.add_argument("--jobs", type=int, help="local Dask workers (default: one per core)")
    a = ap.parse_args(argv)
    out = os.path.abspath(a.out or os.path.join("out", f"reproduce-{a.paper}" + ("-quick" if a.quick else "")))
    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    try:
        report = papers[a.paper](out, a.quick, a.jobs)
    except (TracesMissing, PapersTracesMissing) as e:  # bad input: the run would leave the trace's rows out
        print(f"scripts/reproduce: error: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, FileNotFoundError) as e:
        print(f"scripts/reproduce: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"reproduce {a.paper}: {report} ({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
