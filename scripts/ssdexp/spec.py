"""A sweep's SPEC: what to run, read from JSON or YAML with every value's line kept, so
an error names the file, the line and the field.

    name: piq-queue              # optional: the sweep's name (default: the file's)
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

A point is base.set, then its group's set, then one combination of the grid (the top
level's, with the group's keys over it), then one entry of `points`, then the seed:
later ones override earlier ones. Keys are ssdsim's configuration keys; values scalars.
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field

import yaml


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
    """A value with the line it starts on (and a scalar's text as written)."""

    def __init__(self, value, line, raw=""):
        self.value = value
        self.line = line
        self.raw = raw


def _convert(node):
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out = {}
        for k, v in node.value:
            key = _convert(k)
            if not isinstance(key.value, str):
                raise SpecError(f"{key.line}: a field name must be a string, not {key.value!r}")
            if key.value in out:
                raise SpecError(f"{key.line}: {key.value}: given twice")
            out[key.value] = (key.line, _convert(v))
        return _Node(out, line)
    if isinstance(node, yaml.SequenceNode):
        return _Node([_convert(v) for v in node.value], line)
    loader = yaml.SafeLoader("")
    try:
        value = loader.construct_object(node, deep=True)
    except yaml.constructor.ConstructorError as e:
        raise SpecError(f"{line}: {e.problem}") from None
    finally:
        loader.dispose()
    return _Node(value, line, str(node.value))


def _load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SpecError(f"{path}: cannot read: {e.strerror}") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{path}:{mark.line + 1}" if mark else path
        raise SpecError(f"{where}: not valid YAML/JSON: {e.problem or e.context}") from None
    if root is None:
        raise SpecError(f"{path}:1: empty SPEC")
    try:
        return _convert(root)
    except SpecError as e:
        raise SpecError(f"{path}:{e}") from None


# --- the SPEC's fields ------------------------------------------------------------

_TOP = {"name", "base", "grid", "points", "seeds", "groups", "requests_csv", "description"}
_BASE = {"preset", "config", "set"}
_GROUP = {"set", "grid", "points", "description"}


def _err(path, line, fieldname, what):
    return SpecError(f"{path}:{line}: {fieldname}: {what}")


def _mapping(path, node, fieldname):
    if not isinstance(node.value, dict):
        raise _err(path, node.line, fieldname, "must be a mapping")
    return node.value


def _check_fields(path, mapping, allowed, where):
    for k, (line, _) in mapping.items():
        if k not in allowed:
            raise _err(path, line, f"{where}{k}", f"unknown field (known: {', '.join(sorted(allowed))})")


def _scalar(path, node, fieldname):
    v = node.value
    if isinstance(v, (dict, list)) or v is None:
        raise _err(path, node.line, fieldname, "must be a number, a string or a boolean")
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        raise _err(path, node.line, fieldname, "must be a finite number")
    return v


def _keyed(path, node, where, keys):
    """A mapping of ssdsim keys: (key, its line, its value node), each key checked."""
    for k, (line, v) in _mapping(path, node, where).items():
        if keys is not None and k not in keys:
            raise _err(path, line, f"{where}.{k}", "not an ssdsim configuration key ('ssdsim --list-keys' lists them)")
        yield k, v


def _settings(path, node, where, keys):
    return [Setting(k, _scalar(path, v, f"{where}.{k}"), v.line, v.raw) for k, v in _keyed(path, node, where, keys)]


def _grid(path, node, where, keys):
    axes = []
    for k, v in _keyed(path, node, where, keys):
        if not isinstance(v.value, list) or not v.value:
            raise _err(path, v.line, f"{where}.{k}", "must be a non-empty list of values")
        axes.append([Setting(k, _scalar(path, e, f"{where}.{k}"), e.line, e.raw) for e in v.value])
    return axes


def _points(path, node, where, keys):
    if not isinstance(node.value, list) or not node.value:
        raise _err(path, node.line, where, "must be a non-empty list of mappings")
    return [_settings(path, e, f"{where}[{i}]", keys) for i, e in enumerate(node.value)]


def _combine(axes_top, axes_group):
    """The grid's axes: the group's replace the top level's of the same key."""
    keys = {a[0].key for a in axes_group}
    return [a for a in axes_top if a[0].key not in keys] + axes_group


def read_spec(path, keys=None) -> Spec:
    """Reads and checks SPEC `path`. `keys`: ssdsim's configuration keys (None: not
    checked here)."""
    path = os.path.abspath(path)
    root = _load(path)
    top = _mapping(path, root, "SPEC")
    _check_fields(path, top, _TOP, "")
    name = os.path.splitext(os.path.basename(path))[0]
    if "name" in top:
        line, v = top["name"]
        if not isinstance(v.value, str) or not v.value:
            raise _err(path, v.line, "name", "must be a non-empty string")
        name = v.value
    preset = config = None
    preset_line = config_line = 1
    base_sets = []
    if "base" in top:
        _, b = top["base"]
        bm = _mapping(path, b, "base")
        _check_fields(path, bm, _BASE, "base.")
        if "preset" in bm:
            _, v = bm["preset"]
            if not isinstance(v.value, str):
                raise _err(path, v.line, "base.preset", "must be a preset's name")
            preset, preset_line = v.value, v.line
        if "config" in bm:
            _, v = bm["config"]
            if not isinstance(v.value, str):
                raise _err(path, v.line, "base.config", "must be a file name")
            config, config_line = os.path.join(os.path.dirname(path), v.value), v.line
            if not os.path.isfile(config):
                raise _err(path, v.line, "base.config", f"no such file: {config}")
        if "set" in bm:
            base_sets = _settings(path, bm["set"][1], "base.set", keys)
    top_grid = _grid(path, top["grid"][1], "grid", keys) if "grid" in top else []
    top_points = _points(path, top["points"][1], "points", keys) if "points" in top else [[]]
    seeds = [None]
    if "seeds" in top:
        line, v = top["seeds"]
        if isinstance(v.value, bool) or not isinstance(v.value, (int, list)):
            raise _err(path, v.line, "seeds", "must be a count or a list of seeds")
        if isinstance(v.value, int):
            if v.value < 1:
                raise _err(path, v.line, "seeds", "a count must be at least 1")
            seeds = [Setting("workload.seed", s, v.line, str(s)) for s in range(1, v.value + 1)]
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
    groups = [("", [], [], None)]  # (name, sets, grid axes, points)
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
            gsets = _settings(path, body["set"][1], where + ".set", keys) if "set" in body else []
            ggrid = _grid(path, body["grid"][1], where + ".grid", keys) if "grid" in body else []
            gpoints = _points(path, body["points"][1], where + ".points", keys) if "points" in body else None
            groups.append((gname, gsets, ggrid, gpoints))
    spec = Spec(path=path, name=name, preset=preset, config=config, requests_csv=requests_csv,
                preset_line=preset_line, config_line=config_line)
    for gname, gsets, ggrid, gpoints in groups:
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
