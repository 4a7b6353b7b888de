"""scripts/reproduce PAPER [--quick] [--out DIR] [--jobs N] [--quiet]

Reproduces a paper's experiments on the model (PAPER: piq, sos, chen, park; ../shared/
seeds/README.md maps them), or runs one of the model's own (wear: read latency and the
ECC's decode tiers against P/E cycles; suspend: program and erase suspend against reads
and writes): sweeps through scripts/sweep, then DIR/report.md
with, for every figure or table it can reproduce, the paper's numbers beside the
model's, the direction and size of each effect and a verdict; DIR/*.csv with the numbers
and DIR/figures/ with the figures. --quick runs a reduced set (under two minutes on two
cores: what CI runs); without it, the full set (what docs/results.md quotes). Progress
on stderr (--quiet: none): per sweep, its name, its points done of its total and the time
left (a bar on a terminal, else a line at most every 10 s), with the points and sweeps run so
far; a reproduction's sweeps are known only as it reaches them (some depend on the results
of others), so there is no overall total.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from . import exp_fairness, exp_suspend, exp_wear, paper_chen, paper_park, paper_piq, paper_sos
from . import sweep as sweep_module
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


def start_and_warmup(out: str) -> str | None:
    """A section for report.md: per sweep of the reproduction, where its aged runs started
    (run.start_pilot.regime, the start pilot's choice) and whether their warm-up reached steady
    state (steady_state.reached). None when no sweep wrote results."""
    import glob

    import pandas as pd

    rows = []
    for path in sorted(glob.glob(os.path.join(out, "sweep-*", "results.csv"))):
        df = pd.read_csv(path, low_memory=False)
        col = "run.start_pilot.regime"
        regime = df[col].dropna() if col in df else pd.Series(dtype=str)
        auto = df[df["steady_state.warmup"] == "auto"] if "steady_state.warmup" in df else df.iloc[0:0]
        reached = int(auto["steady_state.reached"].astype(str).str.lower().eq("true").sum()) if len(auto) else 0
        rows.append([os.path.basename(os.path.dirname(path)), len(df),
                     " / ".join(str(int((regime == r).sum())) for r in ("keeps_up", "gc_bound", "at_reserve")),
                     f"{reached} of {len(auto)}" if len(auto) else "-"])
    if not rows:
        return None
    lines = ["## Start state and warm-up of the runs", "",
             "Aged runs start where a pilot of their workload puts the planes (`ftl.precondition_free = auto`: GC "
             "keeps up, GC bound, or at the reserve), and a synthetic workload's statistics start at steady state "
             "(`report.warmup = auto`). A run whose steady state is not reached has statistics that include "
             "start-up; an open loop at the reserve can mean a queue that grows for the whole run "
             "(docs/controller.md, \"The start state and the warm-up\").", "",
             "| sweep | runs | aged, started keeps_up / gc_bound / at_reserve | warm-up auto: steady state reached |",
             "|---|---:|---:|---:|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    papers = {
        "piq": paper_piq.reproduce,
        "sos": paper_sos.reproduce,
        "chen": paper_chen.reproduce,
        "park": paper_park.reproduce,
        "wear": exp_wear.reproduce,
        "suspend": exp_suspend.reproduce,
        "fairness": exp_fairness.reproduce,
    }
    ap = argparse.ArgumentParser(prog="scripts/reproduce", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paper", choices=sorted(papers))
    ap.add_argument("--quick", action="store_true", help="the reduced set (CI)")
    ap.add_argument("--out", help="output directory (default: out/reproduce-PAPER[-quick])")
    ap.add_argument("--jobs", type=int, help="local Dask workers (default: one per core)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    a = ap.parse_args(argv)
    out = os.path.abspath(a.out or os.path.join("out", f"reproduce-{a.paper}" + ("-quick" if a.quick else "")))
    os.makedirs(out, exist_ok=True)
    t0 = time.monotonic()
    progress = None if a.quiet else sweep_module.Progress(f"reproduce {a.paper}")
    sweep_module.PROGRESS = progress  # every sweep the paper's module runs reports, whatever its `quiet`
    sweep_module.SILENT = a.quiet
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
    finally:
        sweep_module.PROGRESS, sweep_module.SILENT = None, False
    section = start_and_warmup(out)
    if section:
        with open(report, "a", encoding="utf-8") as f:
            f.write("\n" + section)
    if progress is not None:
        progress.say(progress.summary())
    print(f"reproduce {a.paper}: {report} ({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
