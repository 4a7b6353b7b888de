#!/usr/bin/env python3
"""Each configuration key's full dotted name is written once in the C++ sources outside
tests/: in its declaration (a `keys()` table beside its struct, common/params.h). Code
that names a key in a message takes the name from the declaration (param::key), so a
renamed key leaves no stale name behind. Help lines of the tables may cross-reference
other keys, as may the descriptions of a policy key's choices; comments are not code.

usage: key_names_once.py SSDSIM SOURCE_DIR
"""
import pathlib
import re
import subprocess
import sys

ssdsim, root = sys.argv[1], pathlib.Path(sys.argv[2])
listing = subprocess.run([ssdsim, "--list-keys"], capture_output=True, text=True, check=True).stdout
keys = {line.split()[0] for line in listing.splitlines() if line and not line[0].isspace() and "." in line.split()[0]}
# A family's keys (PREFIX.<i>.NAME, config.h's declare_family) are its template's, declared
# under their names within the item (StreamConfig's) or the top-level key's (WorkloadConfig's).
keys = {k for k in keys if ".<i>." not in k}
if len(keys) < 100:
    sys.exit(f"--list-keys gave {len(keys)} keys: expected the model's 100 or more")

literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
dotted = re.compile(r"[a-z]+(?:\.[a-z_0-9]+)+")
# Help text: the key tables, and the lists of a policy key's choices with what each is.
table = re.compile(r"param::Table<[\w:]+>& [\w:]+::keys\(\) \{|std::vector<PolicyName>& \w+\(\) \{")

declared, problems = {}, []
for d in ["sc_main", "controller", "nand", "host", "tlm", "accel", "common", "rtl"]:
    for path in sorted((root / d).rglob("*")):
        if path.suffix not in (".cpp", ".h"):
            continue
        text = path.read_text()
        # The spans of the key tables: from "...::keys() {" to the function's closing brace.
        spans = [(m.start(), text.find("\n}\n", m.end())) for m in table.finditer(text)]
        code = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text)  # comments out, offsets kept
        for m in literal.finditer(code):
            in_table = any(a <= m.start() <= b for a, b in spans)
            line = code.count("\n", 0, m.start()) + 1
            where = f"{path.relative_to(root)}:{line}"
            if m.group(1) in keys:
                if not in_table:
                    problems.append(f"{where}: the key {m.group(1)} is named outside its declaration")
                elif m.group(1) in declared:
                    problems.append(f"{where}: {m.group(1)} declared again (first at {declared[m.group(1)]})")
                else:
                    declared[m.group(1)] = where
                continue
            for k in dotted.findall(m.group(1)):
                if k in keys and not in_table:
                    problems.append(f"{where}: the key {k} is written in a message: name it with param::key()")

missing = sorted(keys - declared.keys())
if missing:
    problems.append("keys listed but not found declared in a keys() table: " + ", ".join(missing))
for p in problems:
    print(p)
print(f"{len(keys)} keys, {len(declared)} declared once; {len(problems)} problems")
sys.exit(1 if problems else 0)
