#!/usr/bin/env python3
"""scripts/doc_outputs.py [--check] [--ssdsim BINARY] [FILE.md ...]

The example outputs in README.md and docs/*.md are the program's own: each is a fenced
block after a marker line

    <!-- doc_outputs: ssdsim ARGS | from REGEX | to REGEX | mask REGEX | prompt -->

and this script runs `ssdsim ARGS` (in a scratch folder), keeps its standard output from
the first line matching `from` to the next matching `to` (both optional: the whole
output), replaces each match of a `mask` (repeatable) with `...` (for what depends on
the machine, such as wall times), and writes the lines into the block, after
`$ bash scripts/ssdsim.sh ARGS` (the command run) and `...` when `prompt` is given. Without --check it rewrites the files; with
--check it changes nothing and exits 1 naming each block that differs from the program's
output (CI runs it so: tests/CMakeLists.txt, "docs: ..."). Only the standard library:
it runs before the Python environment exists.
"""

from __future__ import annotations

import argparse
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = re.compile(r"^<!-- doc_outputs: (.*) -->\s*$")


class MarkError(Exception):
    pass


def parse(text: str, where: str) -> dict:
    """A marker's fields: args (list), from, to, masks, prompt."""
    parts = [p.strip() for p in text.split(" | ")]
    if not parts[0].startswith("ssdsim"):
        raise MarkError(f"{where}: a marker starts with 'ssdsim ARGS', not '{parts[0]}'")
    m = {"args": shlex.split(parts[0])[1:], "from": None, "to": None, "masks": [], "prompt": None}
    for p in parts[1:]:
        name, _, value = p.partition(" ")
        if name in ("from", "to", "mask"):
            try:
                re.compile(value)
            except re.error as e:
                raise MarkError(f"{where}: {name}: not a regular expression: {e}") from None
            if name == "mask":
                m["masks"].append(value)
            else:
                m[name] = value
        elif name == "prompt":
            if value:
                raise MarkError(f"{where}: prompt takes no text: it shows the command run")
            m["prompt"] = " ".join(["bash scripts/ssdsim.sh", *(shlex.quote(a) for a in m["args"])])
        else:
            raise MarkError(f"{where}: unknown field '{name}' (from, to, mask, prompt)")
    return m


def render(m: dict, binary: str, where: str) -> list:
    with tempfile.TemporaryDirectory(prefix="doc_outputs-") as d:
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        p = subprocess.run([binary, *m["args"]], cwd=d, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise MarkError(f"{where}: ssdsim {' '.join(m['args'])} exited {p.returncode}: "
                        f"{p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}")
    lines = p.stdout.splitlines()
    start = 0
    if m["from"]:
        start = next((i for i, x in enumerate(lines) if re.search(m["from"], x)), None)
        if start is None:
            raise MarkError(f"{where}: no output line matches from '{m['from']}'")
    end = len(lines) - 1
    if m["to"]:
        end = next((i for i in range(start, len(lines)) if re.search(m["to"], lines[i])), None)
        if end is None:
            raise MarkError(f"{where}: no output line after the start matches to '{m['to']}'")
    out = lines[start:end + 1]
    for mask in m["masks"]:
        out = [re.sub(mask, "...", x) for x in out]
    out = [x.rstrip() for x in out]
    if m["prompt"] is not None:
        out = [f"$ {m['prompt']}"] + (["..."] if start > 0 else []) + out
    return out


def process(path: str, binary: str, check: bool) -> list:
    """The blocks of `path` that differ from the program's output (rewritten unless check)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rel = os.path.relpath(path, ROOT)
    stale, out, i = [], [], 0
    while i < len(lines):
        out.append(lines[i])
        mk = MARK.match(lines[i])
        i += 1
        if not mk:
            continue
        where = f"{rel}:{i}"
        if i >= len(lines) or not lines[i].startswith("```"):
            raise MarkError(f"{where}: a marker is followed by a fenced block")
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise MarkError(f"{where}: the block after the marker is not closed")
        new = render(parse(mk.group(1), where), binary, where)
        old = lines[i + 1:end]
        if new != old:
            diff = "\n".join(difflib.unified_diff(old, new, "in the doc", "the program's output", lineterm="", n=0))
            stale.append(f"{where}: the block differs from the program's output\n{diff}")
        out += [lines[i]] + new + [lines[end]]
        i = end + 1
    if stale and not check:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out))
    return stale


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/doc_outputs.py", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block differs")
    ap.add_argument("--ssdsim", help="the ssdsim to run (default: $SSDSIM, else build/ssdsim)")
    ap.add_argument("files", nargs="*", help="default: README.md and docs/*.md")
    a = ap.parse_args(argv)
    binary = os.path.abspath(a.ssdsim or os.environ.get("SSDSIM") or os.path.join(ROOT, "build", "ssdsim"))
    if not os.access(binary, os.X_OK):
        print(f"doc_outputs: error: no ssdsim at {binary} (bash scripts/build.sh ssdsim, or --ssdsim)", file=sys.stderr)
        return 2
    files = a.files or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    stale = []
    try:
        for f in files:
            stale += process(f, binary, a.check)
    except (MarkError, OSError) as e:
        print(f"doc_outputs: error: {e}", file=sys.stderr)
        return 2
    for s in stale:
        print(s, file=sys.stderr if a.check else sys.stdout)
    if a.check and stale:
        print(f"doc_outputs: {len(stale)} example output(s) differ from the program's: "
              "python3 scripts/doc_outputs.py rewrites them", file=sys.stderr)
        return 1
    if not a.check:
        print(f"doc_outputs: {len(stale)} block(s) rewritten" if stale else "doc_outputs: every block is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
