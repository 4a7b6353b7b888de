#!/usr/bin/env python3
"""tests/readme_commands.py SSDSIM: the commands a newcomer copies from README.md and
docs/*.md (their ```sh blocks) are the program's: each `bash scripts/ssdsim.sh ARGS` or
`build/ssdsim ARGS` is accepted by `ssdsim ARGS --check` (every key, value, preset, trace
and output folder checked, nothing run or written), each `cp` is made, and each other
`bash scripts/NAME ...` names a script that exists, with the SPEC it is given. The
commands run in a scratch folder that shows the repository's files as its own (so that a
block's `cp` and the command after it work as they would at the root, and nothing is
written there), with `../shared/` the repository's neighbour as at the root. Exit 1
naming the file, line and command of each that fails.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def commands(path):
    """(line, words) of each command in the file's ```sh blocks, continuation lines joined."""
    out, block, pending, start = [], False, "", 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if s.startswith("```"):
                block = s.strip() == "```sh" if not block else False
                continue
            if not block:
                continue
            if not pending:
                start = n
            if s.endswith("\\"):
                pending += s[:-1] + " "
                continue
            text, pending = pending + s, ""
            words = shlex.split(text, comments=True)
            if words:
                out.append((start, words))
    return out


def main():
    ssdsim = os.path.abspath(sys.argv[1])
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    bad, checked = [], 0
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    shared = os.path.join(os.path.dirname(ROOT), "shared")
    with tempfile.TemporaryDirectory(prefix="readme_commands-") as cwd:
        for e in os.listdir(ROOT):
            os.symlink(os.path.join(ROOT, e), os.path.join(cwd, e))
        fix = lambda a: shared + a[len("../shared"):] if a.startswith("../shared") else a.replace("=../shared", "=" + shared)
        for path in files:
            rel = os.path.relpath(path, ROOT)
            for line, w in commands(path):
                w = [fix(a) for a in w]
                where = f"{rel}:{line}: {' '.join(w)}"
                if w[:2] == ["bash", "scripts/ssdsim.sh"] or w[0] == "build/ssdsim":
                    args = w[2:] if w[0] == "bash" else w[1:]
                    p = subprocess.run([ssdsim, *args, "--check"], cwd=cwd, capture_output=True, text=True, env=env)
                    checked += 1
                    if p.returncode != 0:
                        bad.append(f"{where}\n    {p.stderr.strip()}")
                elif w[0] == "cp" and len(w) == 3:
                    checked += 1
                    try:
                        shutil.copyfile(os.path.join(cwd, w[1]), os.path.join(cwd, w[2]))
                    except OSError as e:
                        bad.append(f"{where}\n    {e}")
                elif w[0] == "bash" and len(w) > 1 and w[1].startswith("scripts/"):
                    checked += 1
                    if not os.path.isfile(os.path.join(ROOT, w[1])):
                        bad.append(f"{where}\n    no such script")
                    elif re.search(r"/sweep$", w[1]) and len(w) > 2 and not os.path.isfile(os.path.join(ROOT, w[2])):
                        bad.append(f"{where}\n    no such SPEC")
    for b in bad:
        print(b, file=sys.stderr)
    print(f"readme_commands: {checked} commands checked, {len(bad)} refused")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
