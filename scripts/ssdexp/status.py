"""A sweep point's status.json (written by the run, read by the sweep and the table)."""

from __future__ import annotations

import json
import os


def read_status(d: str):
    """The status of the point in directory d, or None if it has none (not run, or cut short)."""
    try:
        with open(os.path.join(d, "status.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
