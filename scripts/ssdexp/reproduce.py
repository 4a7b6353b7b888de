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

from . import paper_piq, paper_sos
from .report import Report, TracesMissing
from .spec import SpecError


def placeholder(paper: str, title: str, experiments: list, out: str, quick: bool, jobs, notes=()) -> str:
    r = Report(out, f"{title}: reproduction")
    r.p("**Not yet possible.** The model does not implement this paper's techniques yet; each experiment below "
        "waits for the issue that builds what it needs.")
    r.table(["experiment of the paper", "what the model still needs"], experiments)
    if notes:
        r.p("## The paper's own inconsistencies", "\n".join(f"* {n}" for n in notes))
    return r.write()


def main(argv=None):
    papers = {
        "piq": paper_piq.reproduce,
        "sos": paper_sos.reproduce,
        "chen": lambda out, quick, jobs: placeholder("chen", "Chen et al., delay-based I/O request scheduling", [
            ("Figs. 4-5: throughput (IOPS) and latency of round-robin, weight-based and delay-based write dispatch "
             "on Financial1, Financial2, WebSearch1 and WebSearch3, bus 38 MB/s, tR 20 us, tPROG 200 us",
             "the dispatch policies (issue 36: ftl.write_policy rr, weight, delay), the UMass traces' reader"),
            ("Figs. 6-7: the same at bus 38 and 50 MB/s", "as above (preset delay sets the bus)"),
            ("Figs. 8-9: the same at tR 20/30 us and tPROG 200/400 us", "as above"),
        ], out, quick, jobs, notes=[
            "For Financial1 at 38 MB/s, tR 20 us and tPROG 200 us, Sec. 5.2.1 gives delay-based dispatch 8.4 % more "
            "IOPS than weight-based, while Secs. 5.2.2 and 5.2.3 give 9.3 % for the same setting."]),
        "park": lambda out, quick, jobs: placeholder("park", "Park et al., exploiting internal parallelism", [
            ("Fig. 4(a): response-time improvement of multi-plane and pipeline rescheduling against the read "
             "ratio (two- and four-plane); Fig. 4(b): against the request size",
             "the rescheduling in the scheduler block (issue 37) on the controller's multi-plane path (issue 36)"),
            ("Table 3: n-plane commands, cache registers, rescheduling, and the dynamic write mappings "
             "(shortest-queue-first, shortest-estimated-time-first, multi-level stripe) on iozone, openmail, "
             "sysmark and web", "the above and those WriteAllocator policies (issue 36); the workloads' traces"),
            ("Fig. 5: response time with rescheduling and multi-level stripe mapping together, normalised",
             "all of the above (preset park sets the Table 1 device)"),
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
    except (TracesMissing, SpecError) as e:  # bad input: the run would leave the trace's rows out
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
