#!/usr/bin/env python3
"""tests/readme_commands.py SSDSIM: the commands a newcomer copies from README.md and
docs/*.md (their ```sh blocks) are the program's: each `bash scripts/ssdsim.sh ARGS` or
`build/ssdsim ARGS` is accepted by `ssdsim ARGS --check` (every key, value, preset, trace
and output folder checked, nothing run or written), each `cp` is made, and each other
`bash scripts/NAME ...` names a script that exists, with the SPEC or paper it is given
(a `VAR=value` before a command is passed over). Commands written inline in the text,
and the other scripts' options, are not checked. The
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
    # The shared traces (../shared/traces at the root): where CMake found them, or absent,
    # and then a command naming them is passed over, as the trace tests are disabled.
    traces = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(os.path.dirname(ROOT), "shared",
                                                                                  "traces")
    have_traces = os.path.isdir(traces)
    skipped = 0
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    bad, checked = [], 0
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    shared = os.path.dirname(traces)
    # scripts/reproduce's papers: the keys of its table (read, not imported: no pandas here).
    with open(os.path.join(ROOT, "scripts", "ssdexp", "reproduce.py"), encoding="utf-8") as f:
        table = re.search(r"papers = \{(.*?)\}", f.read(), re.S).group(1)
    papers = set(re.findall(r'"(\w+)":', table))
    with tempfile.TemporaryDirectory(prefix="readme_commands-") as cwd:
        for e in os.listdir(ROOT):
            os.symlink(os.path.join(ROOT, e), os.path.join(cwd, e))
        fix = lambda a: shared + a[len("../shared"):] if a.startswith("../shared") else a.replace("=../shared", "=" + shared)
        for path in files:
            rel = os.path.relpath(path, ROOT)
            for line, w in commands(path):
                w = [fix(a) for a in w]
                while w and re.match(r"^[A-Z_][A-Z0-9_]*=", w[0]):  # VAR=value before the command
                    w = w[1:]
                if not w:
                    continue
                where = f"{rel}:{line}: {' '.join(w)}"
                if not have_traces and any(traces in a for a in w):
                    skipped += 1
                    continue
                if w[:2] == ["bash", "scripts/ssdsim.sh"] or w[0] == "build/ssdsim":
                    args = w[2:] if w[0] == "bash" else w[1:]
                    p = subprocess.run([ssdsim, *args, "--check"], cwd=cwd, capture_output=True, text=True, env=env)
                    checked += 1
                    if p.returncode != 0:
                        bad.append(f"{where}\n    {p.stderr.strip()}")
                elif w[0] == "cp" and len(w) == 3:
                    checked += 1
                    target = os.path.realpath(os.path.join(cwd, w[2]))
                    if target.startswith(ROOT + os.sep):  # through a link into the repository
                        bad.append(f"{where}\n    the copy would write into the repository: {target}")
                        continue
                    try:
                        shutil.copyfile(os.path.join(cwd, w[1]), target)
                    except OSError as e:
                        bad.append(f"{where}\n    {e}")
                elif w[0] == "bash" and len(w) > 1 and w[1].startswith("scripts/"):
                    checked += 1
                    if not os.path.isfile(os.path.join(ROOT, w[1])):
                        bad.append(f"{where}\n    no such script")
                    elif re.search(r"/sweep$", w[1]) and len(w) > 2 and not os.path.isfile(os.path.join(ROOT, w[2])):
                        bad.append(f"{where}\n    no such SPEC")
                    elif w[1] == "scripts/reproduce" and len(w) > 2 and w[2] not in papers:
                        bad.append(f"{where}\n    reproduce knows {', '.join(sorted(papers))}")
    for b in bad:
        print(b, file=sys.stderr)
    print(f"readme_commands: {checked} commands checked, {len(bad)} refused"
          + (f", {skipped} naming the shared traces passed over (no {traces})" if skipped else ""))
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
