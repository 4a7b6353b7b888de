"""ssdsim as the experiment scripts see it: its keys, a point's effective configuration
(from `--list-keys`, which applies the preset, the file and the --set values without
running), and the command line that runs a point."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess

from .spec import Point, Spec, SpecError

# Keys whose value changes how fast a run goes, not what it computes (identical results:
# tests/cli_same_builds.sh): left out of a point's identity.
SPEED_ONLY = {"host.lookahead", "host.lookahead_thread", "controller.decide_ahead", "report.calibrate_kernel"}
# Keys naming files the run writes: the sweep sets them inside the point's directory.
OUTPUTS = {"report.requests_csv", "trace.vcd"}

_LINE = re.compile(r'^(\S+)\s+(\S+)\s+("(?:[^"\\]|\\.)*"|\S+)')


def find_binary(root: str) -> str:
    """The ssdsim to run: $SSDSIM, else the build directory's ($BUILD_DIR or build/)."""
    b = os.environ.get("SSDSIM") or os.path.join(os.environ.get("BUILD_DIR") or os.path.join(root, "build"), "ssdsim")
    return os.path.abspath(b)


def _env():
    env = dict(os.environ)
    env["SYSTEMC_DISABLE_COPYRIGHT_MESSAGE"] = "1"
    return env


def fingerprint(binary: str) -> str:
    """Which ssdsim this is: a hash of its bytes. A sweep's points record it, and a point
    made by another ssdsim is run again, never resumed."""
    h = hashlib.sha256()
    with open(binary, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


class Ssdsim:
    def __init__(self, binary: str):
        if not os.access(binary, os.X_OK):
            raise FileNotFoundError(f"no ssdsim at {binary} (build it: bash scripts/build.sh, or set SSDSIM)")
        self.binary = binary
        self.types = {k: t for k, (t, _) in self._list([]).items()}
        self.fingerprint = fingerprint(binary)

    def _list(self, args):
        p = subprocess.run([self.binary, *args, "--list-keys"], capture_output=True, text=True, env=_env())
        if p.returncode != 0:
            raise ValueError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}")
        out = {}
        for line in p.stdout.splitlines():
            m = _LINE.match(line)
            if m:
                out[m.group(1)] = (m.group(2), json.loads(m.group(3)))
        return out

    def value_text(self, key: str, value, raw: str) -> str:
        """A SPEC value as ssdsim's --set reads it. YAML reads `off`/`on`/`yes`/`no` as
        booleans: for a key that is not boolean, the text as written is meant."""
        if isinstance(value, bool):
            return ("true" if value else "false") if self.types.get(key) == "boolean" else raw
        if isinstance(value, float):
            return repr(value)
        return str(value)

    def args(self, spec: Spec, point: Point) -> list:
        """The configuration arguments of a point (no --out). Relative workload.path and
        config files are relative to the SPEC's folder. Parallel runs must not take a
        second core: host.lookahead_thread is off unless the SPEC sets it."""
        a = []
        if spec.preset:
            a += ["--preset", spec.preset]
        if spec.config:
            a += ["--config", spec.config]
        over = {}
        for s in point.sets:
            text = self.value_text(s.key, s.value, s.raw)
            if s.key == "workload.path" and text and not os.path.isabs(text):
                text = os.path.join(os.path.dirname(spec.path), text)
            over[s.key] = text
        over.setdefault("host.lookahead_thread", "false")
        for k, v in over.items():
            a += ["--set", f"{k}={v}"]
        return a

    def effective(self, spec: Spec, point: Point) -> dict:
        """The point's effective configuration (key -> value); a value ssdsim refuses
        is a SpecError naming the SPEC line that gave it."""
        try:
            return {k: v for k, (_, v) in self._list(self.args(spec, point)).items()}
        except ValueError as e:
            msg = str(e).removeprefix("ssdsim: error: ")
            m = re.search(r"--set: ([\w.]+)", msg)
            if m:
                line, where = point.line_of(m.group(1)) or spec.line, m.group(1)
            elif msg.startswith("--preset"):
                line, where = spec.preset_line, "base"
            elif msg.startswith("--config"):
                line, where = spec.config_line, "base"
            else:
                line, where = spec.line, "base"
            raise SpecError(f"{spec.path}:{line}: {where}: {msg}") from None


def point_id(effective: dict) -> str:
    """A point's identity: a hash of its effective configuration, apart from the keys
    that only change speed or name output files."""
    ident = {k: v for k, v in sorted(effective.items()) if k not in SPEED_ONLY and k not in OUTPUTS}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
