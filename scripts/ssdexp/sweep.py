"""scripts/sweep SPEC [--out DIR] [--jobs N] [--scheduler ADDRESS] [--skip-check] [--quiet]

Runs every point of SPEC (ssdexp/spec.py says what a SPEC holds) as its own ssdsim
process, in parallel on Dask: a LocalCluster of N single-threaded workers (default: one
per core), or the cluster whose scheduler is at ADDRESS (tcp://host:port; its workers
need ssdsim, the traces and DIR at the same paths as here, e.g. a shared file system).

Before any point runs, every point not yet done is checked with `ssdsim --check` (every
rule a run applies; --skip-check leaves it out): a point ssdsim refuses is an error
naming the SPEC line that produced it, exit 2.

Each point's output lands in DIR/points/ID/, ID a hash of its effective configuration:
stats.json, config.json (timeseries.csv, requests.csv when asked), stdout.txt,
stderr.txt and status.json (exit status, wall seconds, the last lines of stderr, a hash
of the ssdsim that ran it). A run again skips the points whose status.json says they
succeeded with the same ssdsim and runs the others (after a crash or Ctrl-C, a failure
fixed, or a rebuilt ssdsim). DIR/results.parquet and DIR/results.csv: one row
per point of SPEC, every effective configuration key and every stats.json key as dotted
columns (lists, such as per-chip figures, as JSON text), with the point's group, seed,
status, exit code, wall seconds, output directory and error. It ends by printing the main
figures per configuration (a point apart from its seed: the mean over its seeds), a column
each, named by the keys the configurations differ in (ssdexp/compare.py, as scripts/compare
prints runs).

PROGRESS, when a program sets it (scripts/reproduce), reports every sweep it runs on
stderr, whatever the sweep's `quiet`: the sweep's name, its points done of its total and
the time left, and the count over the sweeps so far.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

from .compare import sweep_table, write
from .spec import OUTPUTS, SpecError, read_spec
from .status import read_status
from .ssdsim import Ssdsim, find_binary, point_id
from .table import collect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Progress:
    """The progress of a program that runs several sweeps (scripts/reproduce), on stderr:
    a bar per sweep on a terminal, else a line at its start, at most every `line_seconds`
    (SSD_PROGRESS_SECONDS, default 10) as points finish, and at its end, each with the
    sweep's name, its points done of its total, the time left at the rate so far, and the
    points and sweeps of the program so far."""

    def __init__(self, title: str, file=None):
        self.title = title
        self.file = file or sys.stderr
        try:
            self.line_seconds = max(0.0, float(os.environ.get("SSD_PROGRESS_SECONDS", "10")))
        except ValueError:
            self.line_seconds = 10.0
        self.t0 = time.monotonic()
        self.sweeps = 0  # sweeps started
        self.points = 0  # points finished, over every sweep
        self.failed = 0
        self.resumed = 0  # points already done when their sweep started

    def tty(self) -> bool:
        return hasattr(self.file, "isatty") and self.file.isatty()

    def say(self, text: str) -> None:
        print(f"{self.title}: {text}", file=self.file, flush=True)

    def so_far(self) -> str:
        return (f"so far {_count(self.points, 'point')} run in {_count(self.sweeps, 'sweep')}, "
                f"{_duration(time.monotonic() - self.t0)}")

    def summary(self) -> str:
        return (f"{_count(self.sweeps, 'sweep')}, {_count(self.points, 'point')} run ({self.failed} failed), "
                f"{self.resumed} done before, {_duration(time.monotonic() - self.t0)}")


# Set by a program that runs sweeps and wants their progress whatever their `quiet`
# (scripts/reproduce: its papers' modules call sweep(..., quiet=True)); SILENT, by one
# that wants none of it (scripts/reproduce --quiet).
PROGRESS: Progress | None = None
SILENT = False


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _duration(s: float) -> str:
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Planned:
    """A point ready to run: its command line and directory."""

    def __init__(self, point, effective, pid, argv, out_dir):
        self.point = point
        self.effective = effective
        self.id = pid
        self.argv = argv
        self.dir = out_dir


def plan(spec, sim: Ssdsim, out: str) -> list:
    planned = []
    for p in spec.points:
        eff = sim.effective(spec, p)
        # The SPEC may not name an output file (spec.OUTPUTS), nor may its config file: every
        # point would write over the same one.
        for k in sorted(OUTPUTS):
            if eff.get(k):
                raise SpecError(f"{spec.path}:{spec.config_line}: base.config: sets {k}, a file every point "
                                "would write over: the sweep writes each point's files in its own directory")
        pid = point_id(eff)
        d = os.path.join(out, "points", pid)
        argv = [sim.binary, *sim.args(spec, p), "--out", d]
        if spec.requests_csv:
            argv += ["--set", f"report.requests_csv={os.path.join(d, 'requests.csv')}"]
        planned.append(Planned(p, eff, pid, argv, d))
    return planned


def precheck(spec, sim: Ssdsim, planned: list, jobs: int) -> None:
    """`ssdsim --check` on every point not done yet, in parallel, before any point runs: a
    value ssdsim refuses only when it builds the model or reads the workload through (an
    allocation name, a request larger than the device, a missing trace or a bad line of
    one) is a SpecError naming the SPEC line that produced it, not a failed point."""
    from concurrent.futures import ThreadPoolExecutor

    todo = [p for p in planned if not done(p.dir, sim.fingerprint)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        errors = list(ex.map(lambda p: sim.check(spec, p.point, p.argv), todo))
    for e in errors:  # the first in the SPEC's order
        if e is not None:
            raise e


def done(d: str, binary: str) -> bool:
    """Whether the point in d succeeded, run by the ssdsim whose fingerprint is `binary`."""
    s = read_status(d)
    return bool(s) and s.get("exit") == 0 and s.get("binary") == binary and \
        os.path.isfile(os.path.join(d, "stats.json"))


def _die_with_parent():
    # The run ends with the worker that started it (a cancelled sweep leaves none behind).
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def run_point(argv: list, d: str, binary: str) -> dict:
    """Runs one point (on a Dask worker): ssdsim's output in `d`, and status.json."""
    os.makedirs(d, exist_ok=True)
    st = os.path.join(d, "status.json")
    if os.path.exists(st):
        os.remove(st)
    env = dict(os.environ)
    env["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"
    t0 = time.monotonic()
    with open(os.path.join(d, "stdout.txt"), "w") as out, open(os.path.join(d, "stderr.txt"), "w") as err:
        try:
            rc = subprocess.run(argv, stdout=out, stderr=err, cwd=d, env=env, preexec_fn=_die_with_parent).returncode
        except OSError as e:
            err.write(f"cannot run {argv[0]}: {e}\n")
            rc = 127
    wall = time.monotonic() - t0
    with open(os.path.join(d, "stderr.txt"), errors="replace") as f:
        tail = [line.rstrip("\n") for line in f.readlines()[-10:]]
    status = {"exit": rc, "wall_seconds": round(wall, 3), "stderr_tail": tail, "argv": argv, "binary": binary}
    tmp = st + ".tmp"
    with open(tmp, "w") as f:
        json.dump(status, f, indent=1)
    os.replace(tmp, st)
    return status


def _client(jobs: int, scheduler: str | None):
    import cloudpickle
    from dask.distributed import Client, LocalCluster

    import ssdexp

    cloudpickle.register_pickle_by_value(ssdexp)  # remote workers need not have ssdexp
    if scheduler:
        return Client(scheduler, timeout="30s"), None
    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit=0, silence_logs=40)
    return Client(cluster), cluster


def execute(planned: list, jobs: int, scheduler: str | None, quiet=False, binary: str = "", name: str = "") -> dict:
    """Runs the points not done yet by the ssdsim of fingerprint `binary`; returns id ->
    status for those it ran. Its progress: a tqdm bar unless `quiet`; with PROGRESS set,
    PROGRESS's report (a bar named by the sweep on a terminal, else lines)."""
    from dask.distributed import as_completed
    from tqdm import tqdm

    todo, seen = [], set()
    for p in planned:
        if p.id in seen or done(p.dir, binary):
            seen.add(p.id)
            continue
        seen.add(p.id)
        todo.append(p)
    results = {}
    skipped = len(seen) - len(todo)
    quiet = quiet or SILENT
    prog = None if SILENT else PROGRESS
    lines = prog is not None and not prog.tty()  # progress as lines (a log, a pipe), not a bar
    if prog is not None:
        prog.resumed += skipped
        what = f"sweep {prog.sweeps} ({name or 'unnamed'})"
    if not todo:
        if prog is not None:
            prog.say(f"{what}: all {len(seen)} points already done; {prog.so_far()}")
        elif not quiet:
            print(f"sweep: all {len(seen)} points already done", file=sys.stderr)
        return results
    if lines:
        prog.say(f"{what}: {len(todo)} points to run" + (f" ({skipped} done before)" if skipped else ""))
    client, cluster = _client(jobs, scheduler)
    workers = max(1, len(client.scheduler_info().get("workers", {})) or jobs)
    if prog is not None:
        desc = f"{prog.title}: {what}" + (f" ({skipped} done before)" if skipped else "") + \
            (f", {_count(prog.points, 'point')} run in earlier sweeps" if prog.points else "")
    else:
        desc = f"sweep ({skipped} done before)" if skipped else "sweep"
    bar = tqdm(total=len(todo), unit="point", disable=lines or (quiet and prog is None), file=sys.stderr,
               dynamic_ncols=True, desc=desc)
    t0 = last = time.monotonic()
    futures = {}
    failed = 0
    try:
        for p in todo:
            futures[client.submit(run_point, p.argv, p.dir, binary, key=f"point-{p.id}", pure=False)] = p
        for fut in as_completed(futures):
            p = futures[fut]
            try:
                status = fut.result()
            except Exception as e:  # the worker died, or could not run the task
                status = {"exit": -1, "wall_seconds": 0, "stderr_tail": [f"{type(e).__name__}: {e}"]}
            results[p.id] = status
            failed += status["exit"] != 0
            bar.update(1)
            left = len(todo) - len(results)
            bar.set_postfix(failed=failed, running=min(left, workers), refresh=True)
            if prog is not None:
                prog.points += 1
                prog.failed += status["exit"] != 0
            now = time.monotonic()
            if lines and (not left or now - last >= prog.line_seconds):
                last = now
                eta = f"about {_duration((now - t0) / len(results) * left)} left" if left else \
                    f"done in {_duration(now - t0)}"
                prog.say(f"{what}: {len(results)} of {len(todo)} points, {failed} failed, {eta}; {prog.so_far()}")
    except KeyboardInterrupt:
        bar.close()
        print(f"\nsweep: interrupted; {len(results)} points finished this time. Run it again to resume.",
              file=sys.stderr)
        client.cancel(list(futures))
        raise
    finally:
        bar.close()
        client.close()
        if cluster is not None:
            cluster.close()
    return results


def sweep(spec_path: str, out: str | None = None, jobs: int | None = None, scheduler: str | None = None,
          quiet=False, spec=None, check=True):
    """Plans, runs and tabulates a sweep; returns (DataFrame, out directory)."""
    sim = Ssdsim(find_binary(ROOT))
    if spec is None:
        spec = read_spec(spec_path, set(sim.types))
    out = os.path.abspath(out or os.path.join("out", "sweep-" + spec.name))
    os.makedirs(out, exist_ok=True)
    if PROGRESS is not None and not SILENT:
        PROGRESS.sweeps += 1
        PROGRESS.say(f"sweep {PROGRESS.sweeps} ({spec.name}): {len(spec.points)} points, "
                     + ("planning and checking them" if check else "planning them"))
    planned = plan(spec, sim, out)
    if check:
        precheck(spec, sim, planned, jobs or os.cpu_count() or 1)
    execute(planned, jobs or os.cpu_count() or 1, scheduler, quiet, sim.fingerprint, spec.name)
    df = collect(spec, planned, out)
    return df, out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/sweep", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", help="the SPEC file (JSON or YAML)")
    ap.add_argument("--out", help="output directory (default: out/sweep-NAME)")
    ap.add_argument("--jobs", type=int, help="local workers (default: one per core)")
    ap.add_argument("--scheduler", help="an existing Dask scheduler, tcp://host:port")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--skip-check", action="store_true",
                    help="no `ssdsim --check` of every point before the runs: a point ssdsim refuses fails as a point")
    a = ap.parse_args(argv)
    if a.jobs is not None and a.jobs < 1:
        print("scripts/sweep: --jobs: must be at least 1", file=sys.stderr)
        return 2
    try:
        df, out = sweep(a.spec, a.out, a.jobs, a.scheduler, a.quiet, check=not a.skip_check)
    except SpecError as e:
        print(f"scripts/sweep: error: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"scripts/sweep: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    bad = df[df["status"] != "ok"]
    print(f"sweep: {len(df)} points, {len(df) - len(bad)} ok, {len(bad)} failed; table: "
          f"{os.path.join(out, 'results.parquet')} and results.csv")
    for _, r in bad.iterrows():
        print(f"  failed: {r['point_dir']} (exit {r['exit_code']}): {r['error']}")
    text = sweep_table(df)
    if text:
        write("\n" + text)
    return 1 if len(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
