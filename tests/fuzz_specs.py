"""A property-based fuzzer for the sweep's SPEC reader (scripts/ssdexp/spec.py), with the
oracle of the C++ readers' fuzzer (tests/fuzz_readers.cpp). Only the reader runs: no
ssdsim (its keys are not checked), so thousands of inputs take seconds.

    fuzz_specs.py CORPUS_DIR [--iterations N] [--seconds S] [--seed X]

Each input is a file of the corpus (YAML, or strict JSON if it ends in .json), or one
mutated from them (bytes replaced, inserted or deleted; numbers replaced by extreme ones;
lines duplicated, swapped or cut; lines a SPEC must not hold inserted: aliases, deep
nesting, huge seed counts, output keys, paths as names, ...). The oracle: read_spec either
refuses the input with a SpecError of the form "FILE:LINE: field: what", LINE a line of
the file, or it reads it into a Spec whose points are the ones an independent reading
gives (yaml.safe_load, or json.loads made strict, then the rules of spec.py's docstring:
per group, the product of the grid axes' lengths x the points entries x the seeds, each
point's settings later-wins); and the independent reading accepts exactly the inputs
read_spec accepts. Any other exception, or a reading that takes more than 2 s (and 10 us
a point it makes), fails it.
Exit status: 0 all inputs held, 1 a counterexample (printed, and written to
fuzz_failure_spec.yaml or .json in the current directory), 2 bad arguments.
"""

import argparse
import collections
import itertools
import json
import math
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))

import yaml  # noqa: E402

from ssdexp.spec import MAX_DEPTH, MAX_POINTS, MAX_POINTS_CEILING, OUTPUTS, SpecError, read_spec  # noqa: E402

# A reading is slow after 2 s plus 10 us per point it makes: a SPEC whose max_points lets
# it have a million points takes seconds to list them, and means to.
SLOW_SECONDS = 2.0
SLOW_PER_POINT = 10e-6


# ---- the independent reading ----

class Refused(Exception):
    """The independent reading refuses the input (why: for the report)."""


class _StrictLoader(yaml.SafeLoader):
    """yaml.safe_load, but a field given twice or a merge key (<<) is refused."""

    def flatten_mapping(self, node):
        if any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value):
            raise Refused("a merge key")
        super().flatten_mapping(node)

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep)
        if len(mapping) != len(node.value):
            raise Refused("a field given twice")
        return mapping


def _json_pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise Refused(f"{k!r} given twice")
        out[k] = v
    return out


def _json_constant(name):
    raise Refused(f"{name} is not JSON")


# Integers a SPEC may hold (no ssdsim key takes more): from -2^63 to 2^64 - 1.
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1


def parse(data: bytes, is_json: bool):
    """The input as plain Python data, or Refused."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None
    try:
        if is_json:
            value = json.loads(text, object_pairs_hook=_json_pairs, parse_constant=_json_constant)
        else:
            for tok in yaml.scan(text, Loader=yaml.SafeLoader):
                if isinstance(tok, (yaml.AnchorToken, yaml.AliasToken, yaml.TagToken)):
                    raise Refused(f"a YAML {type(tok).__name__}")
            value = yaml.load(text, Loader=_StrictLoader)
    except (yaml.YAMLError, ValueError, OverflowError) as e:  # ValueError: JSONDecodeError, bad dates
        raise Refused(f"{type(e).__name__}: {e}") from None
    except RecursionError:
        raise Refused("nested too deep for the library") from None
    if value is None:
        raise Refused("empty")
    # Nesting (mappings and lists in each other) and field names, walked without recursion.
    todo = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, (dict, list)) and depth > MAX_DEPTH:
            raise Refused("nested too deep")
        if isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                raise Refused("a field name that is not a string")
            todo += [(x, depth + 1) for x in v.values()]
        elif isinstance(v, list):
            todo += [(x, depth + 1) for x in v]
        elif isinstance(v, int) and not isinstance(v, bool) and not INT_MIN <= v <= INT_MAX:
            raise Refused("an integer past 64 bits")
    return value


def is_text(s):
    """Text a command line can carry, as spec.py wants it: no NUL, no lone surrogate."""
    return "\0" not in s and not any(0xD800 <= ord(c) <= 0xDFFF for c in s)


def scalar(v):
    if v is None or isinstance(v, (dict, list)):
        raise Refused("a value that is not a scalar")
    if isinstance(v, float) and not math.isfinite(v):
        raise Refused("a value that is not finite")
    if isinstance(v, str) and not is_text(v):
        raise Refused("a value that is not text")
    return v


def expected(value, spec_dir, stem):
    """(name, number of points, Counter of the points: (group, seed, their settings with
    types), or None past MAX_POINTS), or Refused: the rules of spec.py's docstring, written
    again."""
    if not isinstance(value, dict):
        raise Refused("not a mapping")
    if set(value) - {"name", "base", "grid", "points", "seeds", "groups", "requests_csv", "description",
                     "max_points"}:
        raise Refused("an unknown field")
    has_seeds = "seeds" in value

    def key(k):  # a key a SPEC may set
        if k in OUTPUTS or (k == "workload.seed" and has_seeds):
            raise Refused(f"{k} may not be set")

    def settings(m):
        if not isinstance(m, dict):
            raise Refused("settings that are not a mapping")
        for k, v in m.items():
            key(k)
            scalar(v)
        return dict(m)

    def grid(m):
        if not isinstance(m, dict):
            raise Refused("a grid that is not a mapping")
        for k, vs in m.items():
            key(k)
            if not isinstance(vs, list) or not vs:
                raise Refused("an axis that is not a non-empty list")
            for v in vs:
                scalar(v)
        return dict(m)

    def points(v):
        if not isinstance(v, list) or not v:
            raise Refused("points that are not a non-empty list")
        return [settings(e) for e in v]

    name = value.get("name", stem)
    if not isinstance(name, str) or not is_text(name) or name in ("", ".", "..") or "/" in name or "\\" in name:
        raise Refused("a bad name")
    base = value.get("base", {})
    if not isinstance(base, dict) or set(base) - {"preset", "config", "set"}:
        raise Refused("a bad base")
    if "preset" in base and not (isinstance(base["preset"], str) and is_text(base["preset"])):
        raise Refused("a bad preset")
    if "config" in base and not (isinstance(base["config"], str) and is_text(base["config"])
                                 and os.path.isfile(os.path.join(spec_dir, base["config"]))):
        raise Refused("a bad config")
    base_set = settings(base.get("set", {}))
    top_grid = grid(value.get("grid", {}))
    top_points = points(value["points"]) if "points" in value else [{}]
    seeds = [None]
    if has_seeds:
        s = value["seeds"]
        if isinstance(s, int) and not isinstance(s, bool) and s >= 1:
            seeds = range(1, s + 1)  # len() of a huge range overflows: counted as s below
        elif isinstance(s, list) and s and all(isinstance(e, int) and not isinstance(e, bool) and e >= 0 for e in s):
            seeds = s
        else:
            raise Refused("bad seeds")
    if "requests_csv" in value and not isinstance(value["requests_csv"], bool):
        raise Refused("a bad requests_csv")
    limit = value.get("max_points", MAX_POINTS)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_POINTS_CEILING:
        raise Refused("a bad max_points")
    groups = {"": None}
    if "groups" in value:
        groups = value["groups"]
        if not isinstance(groups, dict) or not groups:
            raise Refused("bad groups")
    plan = []  # (group, its settings, its grid: key -> values, its points)
    for g, body in groups.items():
        body = {} if body is None else body
        if not isinstance(body, dict) or set(body) - {"set", "grid", "points", "description"}:
            raise Refused("a bad group")
        axes = dict(top_grid)
        axes.update(grid(body.get("grid", {})))  # a group's axis replaces the top level's
        pts = points(body["points"]) if "points" in body else top_points  # a group's replace the top level's
        plan.append((g, settings(body.get("set", {})), axes, pts))
    n_seeds = seeds.stop - 1 if isinstance(seeds, range) else len(seeds)
    count = sum(math.prod(len(v) for v in axes.values()) * len(pts) for _, _, axes, pts in plan) * n_seeds
    if count > limit:
        raise Refused(f"{count} points, more than {limit}")
    if count > MAX_POINTS:  # a SPEC that raised max_points: its count only, to stay fast
        return name, count, None
    out = collections.Counter()
    for g, gset, axes, pts in plan:
        for combo in itertools.product(*[[(k, v) for v in vs] for k, vs in axes.items()]):
            for extra in pts:
                for seed in seeds:
                    s = {**base_set, **gset, **dict(combo), **extra}
                    if seed is not None:
                        s["workload.seed"] = seed
                    out[point_key(g, seed, s)] += 1
    return name, count, out


def point_key(group, seed, settings):
    """A point as a hashable value that tells 1, 1.0 and True apart."""
    return group, repr(seed), tuple(sorted((k, type(v).__name__, repr(v)) for k, v in settings.items()))


# ---- the properties ----

class Failure(Exception):
    pass


class Slow(Exception):
    pass


def _alarm(signum, frame):
    raise Slow()


def check(data: bytes, path: str):
    with open(path, "wb") as f:
        f.write(data)
    try:
        want = expected(parse(data, path.endswith(".json")), os.path.dirname(path),
                        os.path.splitext(os.path.basename(path))[0])
    except Refused as e:
        want, why = None, str(e)
    limit = SLOW_SECONDS + (want[1] * SLOW_PER_POINT if want else 0)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        spec = read_spec(path)
    except Slow:
        raise Failure(f"the reading took more than {limit:.1f} s") from None
    except SpecError as e:
        msg = str(e)
        m = re.fullmatch(re.escape(path) + r":([0-9]+): ([^\n]+?): (.+)", msg, re.S)
        if not m:
            raise Failure(f"error not of the form FILE:LINE: field: what: {msg}") from None
        lines = len(data.decode("utf-8", "replace").splitlines()) + 1  # any line break: YAML counts \r too
        if not 1 <= int(m.group(1)) <= lines:
            raise Failure(f"error names line {m.group(1)}, the file has {lines}: {msg}") from None
        if want is not None:
            raise Failure(f"refused what the independent reading accepts: {msg}") from None
        return
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if want is None:
        raise Failure(f"accepted ({len(spec.points)} points) what the independent reading refuses: {why}")
    name, count, points = want
    if spec.name != name:
        raise Failure(f"name {spec.name!r}, the independent reading {name!r}")
    if len(spec.points) != count:
        raise Failure(f"{len(spec.points)} points, the independent reading {count}")
    if points is not None:
        got = collections.Counter(point_key(p.group, p.seed, p.overrides()) for p in spec.points)
        if got != points:
            diff = list((got - points).items())[:1] + list((points - got).items())[:1]
            raise Failure(f"the points differ from the independent reading's, e.g. {diff}")


# ---- mutation ----

EXTREMES = [b"0", b"-1", b"-0", b"1e8", b"100000000", b"99999", b"18446744073709551616", b"1.5", b"1e999", b"nan",
            b".inf", b"NaN", b"Infinity", b"-Infinity", b"true", b"null", b"", b"0x10", b"1_000", b"2020-13-45",
            b"'1'", b'"\\u0000"', b'"\\ud800"', b"9" * 5000, b"1:30", b"~"]
LINES = [b"seeds: 100000000", b"seeds: 3", b"max_points: 2", b"max_points: 0", b"name: ../up", b"name: a/b",
         b"name: ''", b'"name": "..",', b'"seeds": 1e8,', b"workload.seed: 7", b'"workload.seed": 7,',
         b"  workload.seed: [1, 2]", b"    workload.seed: 7", b"report.requests_csv: r.csv", b"  trace.vcd: t.vcd",
         b"    report.requests_csv: r.csv", b"  trace.vcd: [t.vcd]",
         b'"report.requests_csv": "r.csv",', b"a: &x [1, 2]", b"b: *x", b"<<: {name: m}", b"  - *x",
         b"description: " + b"[" * 20 + b"]" * 20, b'"description": ' + b"[" * 20 + b"]" * 20 + b",",
         b"description: {a: {b: {c: {d: {e: {f: {g: {h: {i: {j: {k: {l: {m: {n: {o: {p: 1}}}}}}}}}}}}}}}}",
         b"  - {workload.read_ratio: 0.1}", b"groups: {g: {grid: {host.scheduler: [a, b, c]}, points: [{x: 1}]}}",
         b"grid: {a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}", b"// comment",
         b"/* c */", b"!!str x", b"x: !!binary aGk=", b"---", b"...", b"? [a]", b": 1", b"\t", b",", b"],", b"},"]
ALPHABET = b"0123456789,- \t\n.e#\"{}:[]&*!|>?'~\\abnsxy"


def mutate(s: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(s) + 1)
        lines = s.split(b"\n")
        op = rng.randrange(9)
        if op == 0 and s:  # replace a byte: by any byte at times, else by one of the alphabets'
            i = rng.randrange(len(s))
            b = rng.randrange(256) if rng.random() < 0.3 else ALPHABET[rng.randrange(len(ALPHABET))]
            s = s[:i] + bytes([b]) + s[i + 1:]
        elif op == 1:  # insert a character of the formats' alphabets
            s = s[:at] + bytes([ALPHABET[rng.randrange(len(ALPHABET))]]) + s[at:]
        elif op == 2 and s:  # delete a run
            i = rng.randrange(len(s))
            s = s[:i] + s[i + rng.randint(1, 8):]
        elif op in (3, 4):  # replace a number by an extreme
            runs = list(re.finditer(rb"[0-9][0-9.]*", s))
            if runs:
                m = rng.choice(runs)
                s = s[:m.start()] + rng.choice(EXTREMES) + s[m.end():]
        elif op == 5:  # duplicate a line
            i = rng.randrange(len(lines))
            s = b"\n".join(lines[:i + 1] + lines[i:])
        elif op == 6:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            s = b"\n".join(lines)
        elif op == 7:  # insert a line a SPEC must not hold, or one that changes its size
            i = rng.randrange(len(lines) + 1)
            s = b"\n".join(lines[:i] + [rng.choice(LINES)] + lines[i:])
        else:  # cut the text
            s = s[:at]
    return s


def main():
    ap = argparse.ArgumentParser(description="the SPEC reader's fuzzer (tests/fuzz_specs.py)")
    ap.add_argument("corpus", help="a folder of seed SPECs (.yaml, .json)")
    ap.add_argument("--iterations", type=int, default=2000, help="inputs to try (default 2000)")
    ap.add_argument("--seconds", type=float, default=0, help="try inputs for this long instead")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.iterations < 0 or a.seconds < 0:
        ap.error("--iterations and --seconds must not be negative")
    try:
        names = sorted(n for n in os.listdir(a.corpus) if os.path.isfile(os.path.join(a.corpus, n)))
    except OSError as e:
        ap.error(f"{a.corpus}: {e.strerror}")
    if not names:
        ap.error(f"no seed files in {a.corpus}")
    seeds = []
    for n in names:
        with open(os.path.join(a.corpus, n), "rb") as f:
            seeds.append((n.endswith(".json"), f.read()))
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(a.seed)
    t0 = time.monotonic()
    done = 0
    with tempfile.TemporaryDirectory(prefix="fuzz_specs.") as tmp:
        for i in itertools.count():
            if (time.monotonic() - t0 >= a.seconds) if a.seconds > 0 else i >= a.iterations:
                break
            if i < len(seeds):
                is_json, data = seeds[i]
            else:
                is_json, data = rng.choice(seeds)
                data = mutate(data, rng)
                if rng.random() < 0.1:  # read as the other format
                    is_json = not is_json
            ext = ".json" if is_json else ".yaml"
            try:
                check(data, os.path.join(tmp, "input" + ext))
            except Failure as e:
                why = str(e)
            except Exception:
                why = "unexpected exception:\n" + traceback.format_exc()
            else:
                done += 1
                continue
            saved = os.path.abspath("fuzz_failure_spec" + ext)
            with open(saved, "wb") as f:
                f.write(data)
            print(f"fuzz_specs: input {i} (seed {a.seed}): {why}\n--- input (saved as {saved}) ---\n"
                  f"{data.decode('utf-8', 'replace')}\n--- end ---", file=sys.stderr)
            return 1
    print(f"fuzz_specs: {done} inputs, every one refused in form or read as the independent reading reads it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
