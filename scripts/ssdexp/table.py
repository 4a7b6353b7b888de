"""The sweep's table: one row per point, every effective configuration key and every
stats.json key as dotted columns."""

from __future__ import annotations

import json
import os

import pandas as pd

from .status import read_status

# The point's own columns, first in the table.
POINT_COLUMNS = ["sweep", "group", "point", "id", "seed", "overrides", "status", "exit_code", "wall_seconds",
                 "point_dir", "error"]


def flatten(d: dict, prefix="") -> dict:
    """{"a": {"b": 1}} -> {"a.b": 1}; lists become JSON text (one cell)."""
    out = {}
    for k, v in d.items():
        name = prefix + k
        if isinstance(v, dict):
            out.update(flatten(v, name + "."))
        elif isinstance(v, list):
            out[name] = json.dumps(v)
        else:
            out[name] = v
    return out


def _json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def row(spec, p) -> dict:
    status = read_status(p.dir)
    stats = _json(os.path.join(p.dir, "stats.json")) if status and status.get("exit") == 0 else None
    config = _json(os.path.join(p.dir, "config.json")) if stats else None
    r = {
        "sweep": spec.name,
        "group": p.point.group,
        "point": p.point.index,
        "id": p.id,
        "seed": p.point.seed,
        "overrides": " ".join(f"{s.key}={s.raw}" for s in p.point.sets),
        "status": "ok" if stats is not None else ("failed" if status else "not run"),
        "exit_code": status.get("exit") if status else None,
        "wall_seconds": status.get("wall_seconds") if status else None,
        "point_dir": p.dir,
        "error": "" if stats is not None else " | ".join((status or {}).get("stderr_tail", [])[-3:]),
    }
    cfg = flatten(config) if config else dict(p.effective)
    st = flatten(stats) if stats else {}
    clash = set(cfg) & set(st) | (set(cfg) | set(st)) & set(POINT_COLUMNS)
    if clash:
        raise RuntimeError(f"columns named twice (config and stats): {sorted(clash)}")
    r.update(cfg)
    r.update(st)
    return r


def collect(spec, planned, out: str) -> pd.DataFrame:
    df = pd.DataFrame([row(spec, p) for p in planned])
    df.to_parquet(os.path.join(out, "results.parquet"), index=False)
    df.to_csv(os.path.join(out, "results.csv"), index=False)
    return df


def load(path: str) -> pd.DataFrame:
    """A results table (parquet or CSV, or a sweep directory holding one)."""
    if os.path.isdir(path):
        path = os.path.join(path, "results.parquet")
    return pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
