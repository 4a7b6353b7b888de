"""A paper's claims as a table, and the one driver that judges them.

Each paper module (paper_*.py) declares what its paper says once, as a module-level
CLAIMS list of Claim: where the paper says it, the effect in words, the metric, the two
arms compared, the workloads it is held over, the paper's value in % and how the paper
states it ("average", "up to", or a "trend" in words), and the run set it is judged in
(its regime). The module's figures measure; judge() gives every claim its verdict by the
rules of report.py; counts() is the headline of a report's "**Counts**" line; table()
renders every claim beside the model's value.

measure(claim), the module's, returns for a numeric claim the per-workload changes in %
(a list; empty: not measured), and for a "trend" whether it holds: True (shown), False
(not shown), None (cannot be measured), or that with the model's value in words as a
pair (holds, words).
"""

from __future__ import annotations

from dataclasses import dataclass

from .report import HEADLINE, Effect, fmt_pct, headline

KINDS = ("average", "up to", "trend")
# A trend's verdict: the report.HEADLINE category it counts in.
TREND_VERDICT = {True: "reproduced", False: "no effect in the model", None: "not measurable"}


@dataclass(frozen=True)
class Claim:
    """One statement of a paper: a number ("average" or "up to") or a "trend" in words."""
    figure: str                   # where the paper says it: "Fig. 8", "Table 3", "Sec. 5.2.1"
    effect: str                   # in words: "PIQ vs RWS: read latency"
    metric: str = ""              # the model's statistic (a stats.json key), or words
    new: str = ""                 # the arm the paper proposes
    base: str = ""                # the arm it is held against
    paper: float | None = None    # the paper's value, % (None for a trend)
    kind: str = "average"         # "average" | "up to" | "trend"
    words: str = ""               # the paper's words, or where a derived number comes from
    workloads: tuple = ()         # the workloads it is held over; (): all of the run set's
    regime: str = ""              # the run set it is judged in: "paper load, ncq, IOS", "aged"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"a claim's kind is one of {KINDS}, not {self.kind!r}")
        if (self.kind == "trend") != (self.paper is None):
            raise ValueError(f"{self.effect}: a trend has no paper value, a number has one")

    def in_regime(self, regime: str | None) -> bool:
        """Judged in `regime`: the same, or one of its parts ("paper load, ncq" holds
        "paper load, ncq, IOS"); None: every regime."""
        return regime is None or self.regime == regime or self.regime.startswith(regime + ", ")


@dataclass(frozen=True)
class Judged:
    """A claim with the model's measure: its Effect (numbers) and its verdict."""
    claim: Claim
    effect: Effect | None         # None for a trend
    verdict: str
    shown: str = ""               # a trend's model value, in words

    @property
    def model(self) -> str:
        """The model's value held against the paper's: the mean, or for "up to" the largest
        change in the paper's direction; a trend's words."""
        if self.effect is None:
            return self.shown or "-"
        return fmt_pct(self.effect.value)

    @property
    def range(self) -> str:
        e = self.effect
        return f"{e.lo:+.1f} .. {e.hi:+.1f} %" if e is not None and e.n else ""


def judge_one(claim: Claim, measured) -> Judged:
    if claim.kind == "trend":
        holds, shown = measured if isinstance(measured, tuple) else (measured, "")
        return Judged(claim, None, TREND_VERDICT[None if holds is None else bool(holds)], shown)
    e = Effect(list(measured or []), claim.paper, claim.kind)
    return Judged(claim, e, e.verdict())


def judge(claims, measure) -> list:
    """Every claim judged on measure(claim) (see the module's docstring), in order."""
    return [judge_one(c, measure(c)) for c in claims]


def find(judged: list, **fields) -> list:
    """The judged claims whose Claim has every field given: find(j, new="piq", regime=...)."""
    return [j for j in judged if all(getattr(j.claim, k) == v for k, v in fields.items())]


def counts(judged: list, regime: str | None = None) -> str:
    """report.headline of the verdicts of the claims judged in `regime` (Claim.in_regime;
    None: all)."""
    return headline(j.verdict for j in judged if j.claim.in_regime(regime))


def short(verdict: str) -> str:
    """A verdict's first words, with its ratio or sign count where it has one."""
    for w in HEADLINE:
        if verdict.startswith(w):
            return w + (" (" + verdict.split("(", 1)[1] if w in ("different size", "mixed signs") and "(" in verdict
                        else "")
    return verdict


def paper_cell(c: Claim) -> str:
    if c.kind == "trend":
        return c.words or "trend"
    v = ("up to " if c.kind == "up to" else "") + fmt_pct(c.paper)
    return f"{v} ({c.words})" if c.words and c.words != c.figure else v


TABLE_HEADER = ["figure", "effect", "workloads", "regime", "paper", "model", "range over workloads", "verdict"]


def table(judged: list) -> str:
    """The markdown table of every claim: where the paper says it, the effect, the workloads
    it is held over ("all": every workload of its run set), the regime,
    the paper's value (its kind and words), the model's (mean, or for "up to" the largest
    change in the paper's direction), the range over the workloads, the verdict."""
    lines = ["| " + " | ".join(TABLE_HEADER) + " |",
             "|" + "|".join("---" if i < 4 else "---:" for i in range(len(TABLE_HEADER))) + "|"]
    for j in judged:
        c = j.claim
        cells = [c.figure, c.effect, ", ".join(c.workloads) or "all", c.regime, paper_cell(c), j.model, j.range,
                 short(j.verdict)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
