"""Writes docs/results.md from full reproductions: python -m ssdexp.publish PAPER=DIR ...
(DIR: the --out of `scripts/reproduce PAPER`). Each report becomes a section, its PNG
figures are copied to docs/results/PAPER/."""

import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMANDS = {"piq": "bash scripts/reproduce piq --out out/reproduce-piq   # 839 runs, about 5 minutes on two cores",
            "sos": "bash scripts/reproduce sos --out out/reproduce-sos   # 75 runs, about a minute",
            "chen": "bash scripts/reproduce chen --out out/reproduce-chen   # 188 runs, 2-3 minutes on two cores",
            "park": "bash scripts/reproduce park --out out/reproduce-park   # 344 runs, about 13 minutes on two "
                    "cores",
            "wear": "bash scripts/reproduce wear --out out/reproduce-wear",
            "suspend": "bash scripts/reproduce suspend --out out/reproduce-suspend   # 56 runs, about 3 minutes"}
HEAD = """# The papers reproduced on the model

Each section is the `report.md` of a full run of `scripts/reproduce PAPER`; the command
under each heading reproduces it (the model is deterministic: the same numbers). Its CSV
files and SVG figures are in the run's output directory; the PNG figures are copied here
by `scripts/ssdexp/publish.py`. How verdicts are given and what each sweep runs:
[experiments.md](experiments.md). Park et al.'s request rescheduling runs in the C++
scheduler block; the Verilog block (rtl/) takes the same decisions, and its added
hardware is measured by rtl/cost.sh (docs/scheduler.md).
"""

# Each paper report's "**Counts**" line (report.headline): its first counts are the paper's regime.
COUNTS = re.compile(r"\d+ reproduced(?:, \d+ [a-z ,]+?)*?, \d+ not measurable")


def counts_of(text: str) -> list | None:
    """A report's headline counts in report.HEADLINE's order, or None (no Counts line)."""
    from .report import HEADLINE
    at = text.find("**Counts**")
    m = COUNTS.search(text, at) if at >= 0 else None
    if not m:
        return None
    got = {}
    for part in re.finditer(r"(\d+) ([a-z ,]+?)(?:, (?=\d)|$)", m.group(0)):
        got[part.group(2).strip()] = int(part.group(1))
    if set(got) != set(HEADLINE):
        raise ValueError(f"a Counts line with other categories than report.HEADLINE: {m.group(0)!r}")
    return [got[c] for c in HEADLINE]


def opening(texts: dict) -> str:
    """The table of every report's counts."""
    from .report import HEADLINE
    lines = ["Every report's counts of its effects with a paper number, by verdict (the rules: "
             "[experiments.md](experiments.md), \"Effects and verdicts\"; PIQ's are at the paper's load with NCQ "
             "dispatch, its regime; each section's opening gives the other regimes and what each gap comes from):",
             "", "| report | effects | " + " | ".join(HEADLINE) + " |", "|---|---:|" + "---:|" * len(HEADLINE)]
    for paper, text in texts.items():
        c = counts_of(text)
        title = text.splitlines()[0].lstrip("# ").split(":")[0]
        if c is None:
            lines.append(f"| {title} | no paper numbers (the model's own experiment) |" + " |" * len(HEADLINE))
        else:
            lines.append(f"| {title} | {sum(c)} | " + " | ".join(str(x) for x in c) + " |")
    return "\n".join(lines) + "\n"


def main(args):
    parts = [HEAD]
    texts = {}
    for a in args:
        paper, d = a.split("=", 1)
        texts[paper] = open(os.path.join(d, "report.md"), encoding="utf-8").read()
    parts.append(opening(texts))
    for a in args:
        paper, d = a.split("=", 1)
        fig_dir = os.path.join(ROOT, "docs", "results", paper)
        shutil.rmtree(fig_dir, ignore_errors=True)  # figures the report no longer has go too
        os.makedirs(fig_dir)
        for f in os.listdir(os.path.join(d, "figures")):
            if f.endswith(".png"):
                shutil.copy(os.path.join(d, "figures", f), fig_dir)
        text = open(os.path.join(d, "report.md"), encoding="utf-8").read()
        text = re.sub(r"\]\(figures/([^)]+)\)", lambda m: f"](results/{paper}/{m.group(1)})", text)
        lines = text.splitlines()
        body = re.sub(r"^## ", "### ", "\n".join(lines[1:]).strip(), flags=re.M)
        parts += [f"## {lines[0].lstrip('# ').strip()}", "", "```sh", COMMANDS.get(paper, ""), "```", "", body, ""]
    with open(os.path.join(ROOT, "docs", "results.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main(sys.argv[1:])
