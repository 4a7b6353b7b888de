"""What every reproduction shares: the traces folder, running a sweep, the verdict on an
effect, and report.md. The papers' modules (paper_*.py) use it; scripts/reproduce runs them.

An effect is a relative change in % of one metric between two settings, measured on each
workload. The paper states it as an average over its workloads, or as "up to" (its
largest); the model's value is then the mean over the workloads, or the largest change in
the paper's direction. Its verdict (docs/experiments.md, "Verdicts"), first rule that holds:
- *not measurable*: no workload measured it;
- *mixed signs*: the workloads disagree in sign and at most half agree with the paper: no
  verdict on the value, whatever it is;
- *no effect, as the paper*: the paper's number and the model's value both within NOISE_PP
  of zero. Never counted as reproduced: two nulls agree without showing anything;
- *no effect in the model*: the model's value within NOISE_PP of zero, the paper's not;
- *opposite*: the signs differ;
- *reproduced*: the signs agree, most workloads agree with the paper's sign, and the value
  is within TOLERANCE_REL of the paper's size (|model - paper| <= 0.3 |paper|): the size
  of the gap scales with the effect, so a -1.9 % never reproduces a -5.4 %;
- *different size*: the signs agree, the size does not (the ratio to the paper's is given;
  a paper within NOISE_PP of zero against a model's effect is "different size (the paper:
  none)").
A workload whose change is within NOISE_PP of zero counts for neither sign. The headline of
a report counts its effects by these verdicts (HEADLINE).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys

from .sweep import ROOT, sweep

TRACES = os.environ.get("SSD_TRACES_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "traces")

TOLERANCE_REL = 0.30
NOISE_PP = 1.0
# A report's headline counts, in this order (the verdict's first words).
HEADLINE = ["reproduced", "different size", "opposite", "no effect in the model", "mixed signs",
            "no effect, as the paper", "not measurable"]


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
    """One effect over the workloads: per-workload changes (%), their summary and verdict.
    `kind`: how the paper states it, "average" (against the mean) or "up to" (against the
    largest change in the paper's direction)."""

    def __init__(self, per: list, paper: float | None = None, kind: str = "average"):
        if kind not in ("average", "up to"):
            raise ValueError(f"an effect's kind is 'average' or 'up to', not {kind!r}")
        self.per = [v for v in per if v == v]
        self.paper = paper
        self.kind = kind
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
    def value(self) -> float:
        """What the paper's number is held against: the mean, or for "up to" the largest
        change in the paper's direction."""
        if self.kind == "up to" and self.n and self.paper is not None:
            return self.lo if self.paper < 0 else self.hi
        return self.mean

    @property
    def mixed(self) -> bool:
        return self.pos > 0 and self.neg > 0

    def verdict(self) -> str:
        if self.paper is None:
            return ""
        if not self.n:
            return "not measurable"
        paper, m = self.paper, self.value
        if self.mixed and 2 * self.agree <= self.n:
            return f"mixed signs ({self.agree} of {self.n} agree with the paper)"
        tail = f" ({self.agree} of {self.n} agree in sign)" if self.agree < self.n else ""
        if _sign(paper) == 0:
            return "no effect, as the paper" if _sign(m) == 0 else "different size (the paper: none)"
        if _sign(m) == 0:
            return "no effect in the model"
        if (m > 0) != (paper > 0):
            return "opposite" + tail
        if abs(m - paper) <= TOLERANCE_REL * abs(paper) and 2 * self.agree > self.n:
            return "reproduced" + tail
        return f"different size ({abs(m) / abs(paper):.2g}x the paper's)" + tail

    def cells(self) -> list:
        """mean, median, range, signs (+/-/~0 of n), verdict."""
        if not self.n:
            return ["n/a", "n/a", "", "", self.verdict()]
        return [fmt_pct(self.mean), fmt_pct(self.median), f"{self.lo:+.0f} .. {self.hi:+.0f} %",
                f"{self.pos}+ {self.neg}- of {self.n}", self.verdict()]


def category(verdict_text: str) -> str:
    """The headline category of a verdict (one of HEADLINE)."""
    for c in HEADLINE:
        if verdict_text.startswith(c):
            return c
    raise ValueError(f"not a verdict: {verdict_text!r}")


def headline(verdicts) -> str:
    """The headline counts of a report's verdicts: 'N reproduced, N different size, ...'
    (every category, zeros included, so that reports compare)."""
    counts = {c: 0 for c in HEADLINE}
    for v in verdicts:
        counts[category(v)] += 1
    return ", ".join(f"{counts[c]} {c}" for c in HEADLINE)


RULE = (f"*reproduced* when the model's value (the mean over the workloads, or for the paper's \"up to\" the "
        f"largest change in its direction) has the paper's sign, most workloads agree in sign, and it is within "
        f"{TOLERANCE_REL:.0%} of the paper's size; *different size* with the sign but not the size; *opposite*; "
        f"*no effect in the model* within {NOISE_PP:.0f} point of zero where the paper has an effect; *no effect, "
        f"as the paper* when both are within {NOISE_PP:.0f} point of zero (never counted as reproduced); *mixed "
        f"signs* when at most half the workloads agree with the paper's sign; a workload within {NOISE_PP:.0f} "
        "point of zero counts for neither sign (scripts/ssdexp/report.py)")


EFFECT_HEADER = ["mean", "median", "range over workloads", "signs", "verdict"]


def verdict(paper: float, model: float) -> str:
    """The verdict on a single measured value (one workload, or one figure)."""
    return Effect([model], paper).verdict()


def counts_line(verdicts) -> str:
    """'**Counts:** ...' for a report's opening."""
    return f"**Counts** (every effect with a paper number): {headline(verdicts)}."


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

    def write_figure(self, fig, name: str, dpi: int = 110) -> str:
        """A matplotlib figure as figures/NAME (PNG) and its SVG beside it, closed; its path
        (for figure(), where the report shows it). Before it is saved, an axis zoomed onto a
        small range says so in its label and the layout keeps labels apart
        (plot.finish_figure)."""
        import matplotlib.pyplot as plt

        from .plot import finish_figure

        finish_figure(fig)
        p = os.path.join(self.out, "figures", name)
        fig.savefig(p, dpi=dpi, bbox_inches="tight")
        fig.savefig(os.path.splitext(p)[0] + ".svg", bbox_inches="tight")
        plt.close(fig)
        return p

    def save_figure(self, fig, name: str, caption: str, dpi: int = 110):
        """write_figure, shown here with its caption."""
        self.figure(self.write_figure(fig, name, dpi), caption)

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
