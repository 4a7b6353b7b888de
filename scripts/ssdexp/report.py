"""What every reproduction shares: the traces folder, running a sweep, the verdict on an
effect, and report.md. The papers' modules (paper_*.py) use it; scripts/reproduce runs them.

An effect is a relative change in % of one metric between two settings, measured on each
workload. Its verdict (docs/experiments.md, "Verdicts"):
- *reproduced*: the mean over the workloads lies within TOLERANCE_PP percentage points or
  TOLERANCE_REL of the paper's size (the wider), and most workloads agree with the paper's
  sign;
- *same direction*: the sign agrees (on the mean and on most workloads), the size is within
  2x of the paper's but outside the tolerance;
- *different size*: the sign agrees, the size is more than 2x off (either way);
- *opposite*: the mean has the other sign;
- *mixed signs*: the workloads disagree in sign and at most half agree with the paper: no
  verdict on the mean, whatever it is.
A workload whose change is within NOISE_PP of zero counts for neither sign.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys

from .sweep import ROOT, sweep

TRACES = os.environ.get("SSD_TRACES_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "traces")

TOLERANCE_PP = 5.0
TOLERANCE_REL = 0.25
NOISE_PP = 1.0


class TracesMissing(RuntimeError):
    """A trace a reproduction runs is not in TRACES: an error, never a row left out."""


def trace_path(name: str) -> str:
    """The path of shared trace `name`; TracesMissing if it is not there."""
    p = os.path.join(TRACES, name)
    if not os.path.isfile(p):
        raise TracesMissing(f"{name} is not in the traces folder {TRACES}: put the shared traces (../shared/traces "
                            "beside the repository) there, or set SSD_TRACES_DIR to the folder that holds them")
    return p


def change_pct(base: float, new: float) -> float:
    return (new / base - 1.0) * 100.0 if base else float("nan")


def fmt_pct(v: float) -> str:
    return "n/a" if v != v else f"{v:+.1f} %"


def _sign(v: float) -> int:
    return 0 if abs(v) <= NOISE_PP else (1 if v > 0 else -1)


class Effect:
    """One effect over the workloads: per-workload changes (%), their summary and verdict."""

    def __init__(self, per: list, paper: float | None = None):
        self.per = [v for v in per if v == v]
        self.paper = paper
        n = len(self.per)
        self.n = n
        self.mean = sum(self.per) / n if n else float("nan")
        self.median = statistics.median(self.per) if n else float("nan")
        self.lo = min(self.per) if n else float("nan")
        self.hi = max(self.per) if n else float("nan")
        self.pos = sum(1 for v in self.per if _sign(v) > 0)
        self.neg = sum(1 for v in self.per if _sign(v) < 0)
        ps = _sign(paper) if paper is not None else 0
        self.agree = self.pos if ps > 0 else self.neg if ps < 0 else n - self.pos - self.neg

    @property
    def mixed(self) -> bool:
        return self.pos > 0 and self.neg > 0

    def verdict(self) -> str:
        if self.paper is None:
            return ""
        if not self.n:
            return "not measured"
        paper, m = self.paper, self.mean
        if self.mixed and 2 * self.agree <= self.n:
            return f"mixed signs ({self.agree} of {self.n} agree with the paper)"
        tol = max(TOLERANCE_PP, TOLERANCE_REL * abs(paper))
        most = 2 * self.agree > self.n
        tail = f" ({self.agree} of {self.n} agree in sign)" if self.agree < self.n else ""
        if abs(m - paper) <= tol and most:
            return "reproduced" + tail
        if paper == 0 or _sign(m) == 0:
            return "not reproduced" + tail
        if (m > 0) != (paper > 0):
            return "opposite" + tail
        ratio = abs(m) / abs(paper)
        if ratio > 2 or ratio < 0.5:
            return f"different size ({ratio:.2g}x the paper's)" + tail
        return "same direction, outside the tolerance" + tail

    def cells(self) -> list:
        """mean, median, range, signs (+/-/~0 of n), verdict."""
        if not self.n:
            return ["n/a", "n/a", "", "", self.verdict()]
        return [fmt_pct(self.mean), fmt_pct(self.median), f"{self.lo:+.0f} .. {self.hi:+.0f} %",
                f"{self.pos}+ {self.neg}- of {self.n}", self.verdict()]


EFFECT_HEADER = ["mean", "median", "range over workloads", "signs", "verdict"]


def verdict(paper: float, model: float) -> str:
    """The verdict on a single measured value (one workload, or one figure)."""
    return Effect([model], paper).verdict()


class Report:
    """report.md, written as the experiments go."""

    def __init__(self, out: str, title: str):
        self.out = out
        self.lines = [f"# {title}", ""]
        # The figures are this report's: none left from an earlier run of another version.
        shutil.rmtree(os.path.join(out, "figures"), ignore_errors=True)
        os.makedirs(os.path.join(out, "figures"))

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

    def insert(self, at: int, *paragraphs: str):
        """Paragraphs at line `at` (a summary written once the results are known)."""
        block = []
        for t in paragraphs:
            block += [t, ""]
        self.lines[at:at] = block

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
    if "integrity.mismatches" in df and (df["integrity.mismatches"] != 0).any():
        raise RuntimeError(f"{name}: a run read data it did not write (integrity.mismatches)")
    return df


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
    return str(a) == str(b)


def label_rows(df, named: dict, column: str = "workload"):
    """Names each row by the entry of `named` (name -> settings) whose every setting the
    row's own configuration has; an error if a row matches none or more than one. Labels
    come from what each run was, never from its position in the sweep."""
    labels = []
    for _, row in df.iterrows():
        hits = [n for n, sets in named.items()
                if all(k in row.index and _same(row[k], v) for k, v in sets.items())]
        if len(hits) != 1:
            raise RuntimeError(f"{row.get('point_dir', '?')}: its configuration matches {len(hits)} of the named "
                               f"settings ({', '.join(hits) or 'none'}): the names do not tell the points apart")
        labels.append(hits[0])
    df[column] = labels
    return df
