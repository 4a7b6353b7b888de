"""A sweep's SPEC: what to run, read from JSON or YAML with every value's line kept, so
an error names the file, the line and the field.

    name: piq-queue              # optional: the sweep's name (default: the file's), a plain
                                 # file name (out/sweep-NAME): no '/', '\\', '.' or '..'
    base:                        # applied to every point
      preset: piq                # an ssdsim preset (optional)
      config: base.json          # an ssdsim config file, relative to the SPEC (optional)
      set: {workload.requests: 20000}
    grid:                        # the product of these values (optional)
      host.scheduler: [noop, rws, piq]
      host.queue_length: [1, 64, 512]
    points:                      # a list of override sets, each crossed with the grid
      - {workload.read_ratio: 0.3}
      - {workload.read_ratio: 0.7}
    seeds: [1, 2, 3]             # workload.seed values, or a count (1..N); default: none
    groups:                      # named groups: each is a sweep of its own (its set,
      ios: {set: {controller.scheduler: ios}}   # grid and points over the base's),
      hos: {set: {controller.scheduler: hos}}   # its rows tagged with its name
    requests_csv: true           # each point writes requests.csv (latency CDFs)
    max_points: 100000           # the most points the SPEC may expand to (default 100,000,
                                 # at most 1,000,000)

A point is base.set, then its group's set, then one combination of the grid (the top
level's, with the group's keys over it), then one entry of `points`, then the seed:
later ones override earlier ones. Keys are ssdsim's configuration keys; values scalars.
So a SPEC has, per group, (the product of its grid axes' lengths) x (its number of
`points` entries, or 1) x (the number of seeds, or 1) points.

Refused as well, each naming the file, the line and the field (before anything is built,
so none of them costs time or memory):
- a .json file that is not strict JSON (RFC 8259: no trailing comma, comment, NaN or
  Infinity), and a field given twice, in JSON or YAML;
- YAML anchors, aliases and tags: a SPEC is plain data, each value written out (an alias
  "bomb" of a few lines would otherwise expand to billions of values);
- mappings and lists nested deeper than MAX_DEPTH (a SPEC needs 5 levels);
- a SPEC of more than `max_points` points, counted arithmetically first;
- a key naming a file ssdsim writes (OUTPUTS): every point would write the same file
  (the sweep writes each point's files in the point's own directory);
- workload.seed set anywhere in a SPEC that also has `seeds`, which would override it.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field

import yaml


def family_key(key: str) -> str:
    """An item's key of a family (workload.streams.3.read_ratio) as --list-keys names the
    family's (workload.streams.<i>.read_ratio); any other key as it is."""
    return re.sub(r"^(workload\.streams)\.\d+\.", r"\1.<i>.", key)

# Integers a SPEC may hold: no ssdsim key takes more than 64 bits (and Python cannot even
# print an integer of more than 4,300 digits, which YAML's hexadecimal can write).
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1
MAX_DEPTH = 16        # mappings and lists inside each other: a SPEC needs 5 (groups.G.grid.K: [..])
MAX_POINTS = 100_000  # the default bound on a SPEC's points (`max_points` sets another)
# The most `max_points` may allow: a million points take 0.3 GB and seconds to list, and
# hours to check with ssdsim; more would exhaust memory.
MAX_POINTS_CEILING = 1_000_000
# Keys naming files the run writes (`ssdsim --list-keys`: "write ... to this file"). A SPEC
# may not set them; the sweep sets report.requests_csv inside each point's directory.
OUTPUTS = {"report.requests_csv", "trace.vcd"}


class SpecError(Exception):
    """A malformed SPEC: str() is 'FILE:LINE: field: what'."""


@dataclass
class Setting:
    key: str
    value: object  # as YAML/JSON typed it
    line: int      # where in the SPEC it was given (1-based)
    raw: str = ""  # the text as written (YAML reads `off` as false: a choice key gets "off")


@dataclass
class Point:
    group: str
    index: int  # within the sweep, in order
    sets: list  # [Setting], in the order applied (later wins)
    seed: object = None

    def overrides(self) -> dict:
        out = {}
        for s in self.sets:
            out[s.key] = s.value
        return out

    def line_of(self, key: str) -> int:
        line = 0
        for s in self.sets:
            if s.key == key:
                line = s.line
        return line


@dataclass
class Spec:
    path: str
    name: str
    preset: str | None
    config: str | None  # absolute path
    points: list = field(default_factory=list)
    requests_csv: bool = False
    line: int = 1
    preset_line: int = 1
    config_line: int = 1


# --- reading YAML/JSON with lines -------------------------------------------------

class _Node:
    """A value with the line it starts on (and a scalar's text as written). A mapping's
    value is {field: (the field's line, _Node)}, a list's [_Node]."""

    def __init__(self, value, line, raw=""):
        self.value = value
        self.line = line
        self.raw = raw


def _err(path, line, fieldname, what):
    # A field name may hold any character a JSON key can: its control characters escaped,
    # so that the error stays one line of the form FILE:LINE: field: what.
    fieldname = re.sub(r"[\x00-\x1f\x7f]", lambda m: repr(m.group())[1:-1], str(fieldname))
    return SpecError(f"{path}:{line}: {fieldname}: {what}")


_SYNTAX = "not valid YAML/JSON"  # the "field" of a syntax error: the text itself


def _child(where, key):
    """The field name of a mapping's `key` (a str) or a list's entry `key` (an int) in `where`."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


def _yaml(path, text):
    """The YAML text as _Nodes (None if it holds no document). Built from the parser's
    events with a stack, not by yaml.compose (which recurses): the nesting is bounded, and
    anchors, aliases and tags are refused where they appear, so an alias bomb never
    expands. Scalars are typed as yaml.safe_load types them."""
    typer = yaml.SafeLoader("")
    root = None
    documents = 0
    stack = []  # the open mappings and lists: [_Node, field name, the pending key's (line, name) or None]
    try:
        for ev in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(ev, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _err(path, ev.start_mark.line + 1, "SPEC", "more than one YAML document")
                continue
            if not isinstance(ev, (yaml.NodeEvent, yaml.CollectionEndEvent)):
                continue  # the stream's start and end, the document's end
            line = ev.start_mark.line + 1
            if isinstance(ev, yaml.CollectionEndEvent):
                node, where, _ = stack.pop()
            else:
                # The field this node is: a list's entry, a mapping's value, or (a mapping's
                # key, not yet known) the mapping's own.
                where = ""  # the document's own: "SPEC" in a message
                if stack:
                    parent, pwhere, key = stack[-1]
                    if isinstance(parent.value, list):
                        where = _child(pwhere, len(parent.value))
                    else:
                        where = _child(pwhere, key[1]) if key else pwhere
                shown = where or "SPEC"
                if isinstance(ev, yaml.AliasEvent) or ev.anchor is not None:
                    raise _err(path, line, shown, "YAML anchors (&) and aliases (*) are not part of a SPEC: "
                                                  "write each value out")
                if ev.tag is not None:
                    raise _err(path, line, shown, f"YAML tags ({ev.tag}) are not part of a SPEC")
                if isinstance(ev, yaml.CollectionStartEvent):
                    if len(stack) == MAX_DEPTH:
                        raise _err(path, line, shown, f"nested deeper than {MAX_DEPTH} levels")
                    stack.append([_Node({} if isinstance(ev, yaml.MappingStartEvent) else [], line), where, None])
                    continue
                tag = typer.resolve(yaml.ScalarNode, ev.value, ev.implicit)
                try:
                    value = typer.construct_object(yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark,
                                                                   ev.style), deep=True)
                except yaml.constructor.ConstructorError as e:  # a merge key (<<) or a value key (=)
                    raise _err(path, line, shown, e.problem) from None
                except (ValueError, OverflowError) as e:  # a date that is none (2020-13-45), a huge integer
                    raise _err(path, line, shown, f"{ev.value[:40]!r} is not a valid value: {e}") from None
                _check_int(path, line, shown, value, ev.value)
                node = _Node(value, line, ev.value)
            # The node is complete: it is the document, a list's entry, a key or a value.
            if not stack:
                root = node
                continue
            parent, pwhere, key = stack[-1]
            if isinstance(parent.value, list):
                parent.value.append(node)
            elif key is None:
                if not isinstance(node.value, str):
                    what = "" if isinstance(node.value, (dict, list)) else f", not {node.value!r}"
                    raise _err(path, node.line, pwhere or "SPEC", f"a field name must be a string{what}")
                if node.value in parent.value:
                    raise _err(path, node.line, _child(pwhere, node.value), "given twice")
                stack[-1][2] = (node.line, node.value)
            else:
                parent.value[key[1]] = (key[0], node)
                stack[-1][2] = None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise _err(path, mark.line + 1 if mark else 1, _SYNTAX, e.problem or e.context) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow (a control character)
        raise _err(path, text.count("\n", 0, e.position) + 1, _SYNTAX, str(e).splitlines()[0]) from None
    return root


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _json(path, text):
    """Strict JSON (RFC 8259) as _Nodes (None if the text is only white space): a
    trailing comma, a comment, NaN, Infinity, a field given twice or nesting deeper than
    MAX_DEPTH are refused with their line. (PyYAML takes a trailing comma and comments,
    Python's json module NaN, Infinity and duplicates; neither gives each value's line.)"""
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line(i):
        return bisect.bisect_left(newlines, i) + 1

    def bad(i, what):
        return _err(path, line(i), _SYNTAX, what)

    def space(i):
        return _JSON_SPACE.match(text, i).end()

    def string(i):  # the string whose opening quote is at i, and its end
        try:
            return json.decoder.scanstring(text, i + 1, True)
        except json.JSONDecodeError as e:
            raise bad(e.pos, e.msg) from None

    def value(i, where, depth):  # the value at i, and its end; `depth` mappings and lists around it
        ln = line(i)
        c = text[i:i + 1]
        if c in ("{", "["):
            if depth == MAX_DEPTH:
                raise _err(path, ln, where or "SPEC", f"nested deeper than {MAX_DEPTH} levels")
            close = "}" if c == "{" else "]"
            node = _Node({} if c == "{" else [], ln)
            i = space(i + 1)
            if text.startswith(close, i):
                return node, i + 1
            while True:
                if text.startswith(close, i):  # only after a comma: `{}` and `[]` returned above
                    raise bad(i, "a trailing comma")
                if c == "{":
                    if not text.startswith('"', i):
                        raise bad(i, "expecting a field name in double quotes")
                    key_line = line(i)
                    key, i = string(i)
                    if key in node.value:
                        raise _err(path, key_line, _child(where, key), "given twice")
                    i = space(i)
                    if not text.startswith(":", i):
                        raise bad(i, "expecting ':'")
                    v, i = value(space(i + 1), _child(where, key), depth + 1)
                    node.value[key] = (key_line, v)
                else:
                    v, i = value(i, _child(where, len(node.value)), depth + 1)
                    node.value.append(v)
                i = space(i)
                if text.startswith(close, i):
                    return node, i + 1
                if not text.startswith(",", i):
                    raise bad(i, f"expecting ',' or '{close}'")
                i = space(i + 1)
        if c == '"':
            s, end = string(i)
            return _Node(s, ln, s), end
        for word, v in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, i):
                return _Node(v, ln, word), i + len(word)
        m = json.scanner.NUMBER_RE.match(text, i)
        if m:
            integer, frac, exp = m.groups()
            try:
                v = float(m.group()) if frac or exp else int(integer)
            except ValueError as e:  # more digits than Python converts (sys.get_int_max_str_digits)
                raise bad(i, str(e)) from None
            if isinstance(v, int) and not INT_MIN <= v <= INT_MAX:
                raise bad(i, f"an integer past 64 bits ({len(m.group())} characters)")
            return _Node(v, ln, m.group()), m.end()
        raise bad(i, f"expecting a value, not {text[i:i + 12]!r}" if i < len(text) else "expecting a value")

    i = space(0)
    if i == len(text):
        return None
    root, i = value(i, "", 0)
    i = space(i)
    if i < len(text):
        raise bad(i, f"more text after the SPEC: {text[i:i + 12]!r}")
    return root


def _load(path):
    """The SPEC's text as _Nodes: strict JSON for a .json file, YAML for any other."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SpecError(f"{path}: cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _err(path, data.count(b"\n", 0, e.start) + 1, "SPEC", "not UTF-8 text") from None
    root = _json(path, text) if path.lower().endswith(".json") else _yaml(path, text)
    if root is None:
        raise _err(path, 1, "SPEC", "empty")
    return root


# --- the SPEC's fields ------------------------------------------------------------

_TOP = {"name", "base", "grid", "points", "seeds", "groups", "requests_csv", "description", "max_points"}
_BASE = {"preset", "config", "set"}
_GROUP = {"set", "grid", "points", "description"}


def _mapping(path, node, fieldname):
    if not isinstance(node.value, dict):
        raise _err(path, node.line, fieldname, "must be a mapping")
    return node.value


def _check_fields(path, mapping, allowed, where):
    for k, (line, _) in mapping.items():
        if k not in allowed:
            raise _err(path, line, f"{where}{k}", f"unknown field (known: {', '.join(sorted(allowed))})")


def _is_text(s):
    """Whether string s can go on a command line or in a file name: no NUL, and no lone
    surrogate (a \\ud800 escape), either of which would stop the sweep with a traceback."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\0" not in s


def _text(path, node, fieldname, what):
    """A string field's value (a name, a preset, a file); `what` says what it must be."""
    if not isinstance(node.value, str):
        raise _err(path, node.line, fieldname, what)
    if not _is_text(node.value):
        raise _err(path, node.line, fieldname, f"{node.value!r} holds a NUL or a lone surrogate: not text")
    return node.value


def _check_int(path, line, fieldname, value, text):
    """A YAML integer past 64 bits is refused where it is read, its text cut."""
    if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
        raise _err(path, line, fieldname, f"an integer past 64 bits: {text[:40]!r}"
                                          + (f"... ({len(text)} characters)" if len(text) > 40 else ""))


def _scalar(path, node, fieldname):
    v = node.value
    if isinstance(v, (dict, list)) or v is None:
        raise _err(path, node.line, fieldname, "must be a number, a string or a boolean")
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        raise _err(path, node.line, fieldname, "must be a finite number")
    if isinstance(v, str) and not _is_text(v):
        raise _err(path, node.line, fieldname, f"{v!r} holds a NUL or a lone surrogate: not text")
    return v


def _keyed(path, node, where, check):
    """A mapping of ssdsim keys: (key, its value node), each key passed to check(key, line,
    field)."""
    for k, (line, v) in _mapping(path, node, where).items():
        check(k, line, f"{where}.{k}")
        yield k, v


def _settings(path, node, where, check):
    return [Setting(k, _scalar(path, v, f"{where}.{k}"), v.line, v.raw) for k, v in _keyed(path, node, where, check)]


def _grid(path, node, where, check):
    axes = []
    for k, v in _keyed(path, node, where, check):
        if not isinstance(v.value, list) or not v.value:
            raise _err(path, v.line, f"{where}.{k}", "must be a non-empty list of values")
        axes.append([Setting(k, _scalar(path, e, f"{where}.{k}"), e.line, e.raw) for e in v.value])
    return axes


def _points(path, node, where, check):
    if not isinstance(node.value, list) or not node.value:
        raise _err(path, node.line, where, "must be a non-empty list of mappings")
    return [_settings(path, e, f"{where}[{i}]", check) for i, e in enumerate(node.value)]


def _combine(axes_top, axes_group):
    """The grid's axes: the group's replace the top level's of the same key."""
    keys = {a[0].key for a in axes_group}
    return [a for a in axes_top if a[0].key not in keys] + axes_group


def read_spec(path, keys=None) -> Spec:
    """Reads and checks SPEC `path`. `keys`: ssdsim's configuration keys (None: not
    checked here)."""
    path = os.path.abspath(path)
    top = _mapping(path, _load(path), "SPEC")
    _check_fields(path, top, _TOP, "")
    line_of = {k: line for k, (line, _) in top.items()}  # each top-level field's line
    name = os.path.splitext(os.path.basename(path))[0]
    if "name" in top:
        _, v = top["name"]
        name = _text(path, v, "name", "must be a non-empty string")
        # The name is a folder's (out/sweep-NAME): one plain component, or it writes elsewhere.
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            raise _err(path, v.line, "name", f"{name!r} is not a plain file name (no '/', '\\', '.' or '..')")

    def check(key, line, fieldname):
        """What a SPEC may set: ssdsim's keys, but no file a run writes (every point would
        write over the same one) and no workload.seed beside `seeds` (which overrides it)."""
        if keys is not None and key not in keys and family_key(key) not in keys:
            raise _err(path, line, fieldname, "not an ssdsim configuration key ('ssdsim --list-keys' lists them)")
        if key in OUTPUTS:
            raise _err(path, line, fieldname, "names a file the run writes, which every point would write over: "
                                              "the sweep writes each point's files in its own directory "
                                              "(`requests_csv: true` adds requests.csv)")
        if key == "workload.seed" and "seeds" in top:
            raise _err(path, line, fieldname, f"`seeds` (line {line_of['seeds']}) sets workload.seed for every "
                                              "point and would override this: give the seeds in one place")

    preset = config = None
    preset_line = config_line = 1
    base_sets = []
    if "base" in top:
        _, b = top["base"]
        bm = _mapping(path, b, "base")
        _check_fields(path, bm, _BASE, "base.")
        if "preset" in bm:
            _, v = bm["preset"]
            preset, preset_line = _text(path, v, "base.preset", "must be a preset's name"), v.line
        if "config" in bm:
            _, v = bm["config"]
            config = os.path.join(os.path.dirname(path), _text(path, v, "base.config", "must be a file name"))
            config_line = v.line
            if not os.path.isfile(config):
                raise _err(path, v.line, "base.config", f"no such file: {config}")
        if "set" in bm:
            base_sets = _settings(path, bm["set"][1], "base.set", check)
    top_grid = _grid(path, top["grid"][1], "grid", check) if "grid" in top else []
    top_points = _points(path, top["points"][1], "points", check) if "points" in top else [[]]
    seeds = [None]  # the seed Settings (None: no seed set)
    seed_count = 0  # `seeds: N`: its N Settings are made once the points are counted
    if "seeds" in top:
        _, v = top["seeds"]
        if isinstance(v.value, bool) or not isinstance(v.value, (int, list)):
            raise _err(path, v.line, "seeds", "must be a count or a list of seeds")
        if isinstance(v.value, int):
            if v.value < 1:
                raise _err(path, v.line, "seeds", "a count must be at least 1")
            seed_count = v.value
        else:
            if not v.value:
                raise _err(path, v.line, "seeds", "must not be empty")
            seeds = []
            for e in v.value:
                if isinstance(e.value, bool) or not isinstance(e.value, int) or e.value < 0:
                    raise _err(path, e.line, "seeds", f"{e.value!r} is not a seed (an integer >= 0)")
                seeds.append(Setting("workload.seed", e.value, e.line, str(e.value)))
    requests_csv = False
    if "requests_csv" in top:
        _, v = top["requests_csv"]
        if not isinstance(v.value, bool):
            raise _err(path, v.line, "requests_csv", "must be true or false")
        requests_csv = v.value
    max_points = MAX_POINTS
    if "max_points" in top:
        _, v = top["max_points"]
        if isinstance(v.value, bool) or not isinstance(v.value, int) or not 1 <= v.value <= MAX_POINTS_CEILING:
            raise _err(path, v.line, "max_points", f"must be a whole number from 1 to {MAX_POINTS_CEILING:,}")
        max_points = v.value
    groups = [("", [], [], None, 1)]  # (name, sets, grid axes, points, line)
    if "groups" in top:
        _, g = top["groups"]
        gm = _mapping(path, g, "groups")
        if not gm:
            raise _err(path, g.line, "groups", "must name at least one group")
        groups = []
        for gname, (line, gv) in gm.items():
            where = f"groups.{gname}"
            body = _mapping(path, gv, where) if gv.value is not None else {}
            _check_fields(path, body, _GROUP, where + ".")
            gsets = _settings(path, body["set"][1], where + ".set", check) if "set" in body else []
            ggrid = _grid(path, body["grid"][1], where + ".grid", check) if "grid" in body else []
            gpoints = _points(path, body["points"][1], where + ".points", check) if "points" in body else None
            groups.append((gname, gsets, ggrid, gpoints, line))

    # Count the points before making any: a seed count or a grid too large for memory is
    # an error naming the field that multiplies the count most.
    n_seeds = seed_count or len(seeds)
    total = sum(math.prod(len(a) for a in _combine(top_grid, ggrid)) * len(top_points if gpoints is None else gpoints)
                for _, _, ggrid, gpoints, _ in groups) * n_seeds
    if total > max_points:
        factors = [(n_seeds, "seeds"), (math.prod(len(a) for a in top_grid), "grid"), (len(top_points), "points"),
                   (len(groups), "groups")]
        factors = [(n, line_of[f], f) for n, f in factors if f in top]
        if "groups" in top:  # and each group's own grid and points
            factors += [(math.prod(len(a) for a in ggrid) * len(gpoints or [[]]), line, f"groups.{gname}")
                        for gname, _, ggrid, gpoints, line in groups]
        _, line, fieldname = max(factors, key=lambda f: f[0])
        raise _err(path, line, fieldname, f"the SPEC expands to {total:,} points, more than max_points "
                                          f"({max_points:,}): set max_points to run them all")
    if seed_count:
        seeds = [Setting("workload.seed", s, top["seeds"][1].line, str(s)) for s in range(1, seed_count + 1)]

    spec = Spec(path=path, name=name, preset=preset, config=config, requests_csv=requests_csv,
                preset_line=preset_line, config_line=config_line)
    for gname, gsets, ggrid, gpoints, _ in groups:
        axes = _combine(top_grid, ggrid)
        for combo in itertools.product(*axes) if axes else [()]:
            for extra in gpoints if gpoints is not None else top_points:
                for seed in seeds:
                    sets = base_sets + gsets + list(combo) + list(extra) + ([seed] if seed else [])
                    spec.points.append(Point(group=gname, index=len(spec.points), sets=sets,
                                             seed=seed.value if seed else None))
    return spec


def spec_from_dict(data: dict, path: str, keys=None) -> Spec:
    """A SPEC built in code (scripts/reproduce): written to `path` as JSON, then read
    back as any SPEC, so the sweep's directory records what was run."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    return read_spec(path, keys)
