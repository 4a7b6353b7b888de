"""ssdsim as the experiment scripts see it: its keys, a point's effective configuration
(from `--list-keys`, which applies the preset, the file and the --set values without
running), and the command line that runs a point."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess

from .spec import OUTPUTS, Point, Spec, SpecError, family_key

# Keys whose value changes how fast a run goes, not what it computes (identical results:
# tests/cli_same_builds.sh): left out of a point's identity, as are OUTPUTS (the keys
# naming files the run writes: a SPEC may not set them, the sweep sets them inside the
# point's directory).
SPEED_ONLY = {"host.lookahead", "host.lookahead_thread", "controller.decide_ahead", "report.calibrate_kernel"}

_LINE = re.compile(r'^(\S+)\s+(\S+)\s+("(?:[^"\\]|\\.)*"|\S+)(?:\s+\{([^}]*)\})?')


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
        keys = self._list([])
        self.types = {k: t for k, (t, _, _) in keys.items()}
        self.choices = {k: c for k, (_, _, c) in keys.items() if c}
        self.fingerprint = fingerprint(binary)

    def _list(self, args):
        """Every key as (type, effective value, its choices or [])."""
        p = subprocess.run([self.binary, *args, "--list-keys"], capture_output=True, text=True, env=_env())
        if p.returncode != 0:
            raise ValueError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}")
        out = {}
        for line in p.stdout.splitlines():
            m = _LINE.match(line)
            if m:
                out[m.group(1)] = (m.group(2), json.loads(m.group(3)), m.group(4).split("|") if m.group(4) else [])
        return out

    def value_text(self, key: str, value, raw: str) -> str:
        """A SPEC value as ssdsim's --set reads it. YAML reads `off`/`on`/`yes`/`no` as
        booleans: for a boolean key (or a choice of true and false among others, as
        host.lookahead_thread's auto|true|false) they mean true and false; for any other
        key, the text as written is meant."""
        if isinstance(value, bool):
            k = family_key(key)
            boolean = self.types.get(k) == "boolean" or "true" in self.choices.get(k, [])
            return ("true" if value else "false") if boolean else raw
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
            return {k: v for k, (_, v, _) in self._list(self.args(spec, point)).items()}
        except ValueError as e:
            raise self.spec_error(spec, point, str(e)) from None

    def check(self, spec: Spec, point: Point, argv: list):
        """`ssdsim ARGV --check` (ARGV: the point's arguments as it will run): None if
        ssdsim accepts the point with every rule a run applies (it reads its trace through),
        else the SpecError naming the SPEC line that produced it."""
        p = subprocess.run([*argv, "--check"], capture_output=True, text=True, env=_env())
        if p.returncode == 0:
            return None
        lines = p.stderr.strip().splitlines()
        at = next((i for i, x in enumerate(lines) if x.startswith("ssdsim: error: ")), None)
        # The error and the lines that continue it (an FTL configuration lists its faults).
        msg = " ".join(x.strip() for x in lines[at:]) if at is not None else (lines[-1] if lines else
                                                                              f"exit {p.returncode}")
        if p.returncode != 2:  # not bad input: ssdsim itself failed
            raise RuntimeError(f"ssdsim --check failed (exit {p.returncode}): {msg}")
        return self.spec_error(spec, point, msg)

    def spec_error(self, spec: Spec, point: Point, message: str) -> SpecError:
        """ssdsim's refusal of a point as a SpecError at the SPEC line that produced it: the
        line of the key it names (`--set: KEY`), of the file it names (a trace or script
        given as a point's value, as args() passes it), of the preset or config file, else
        the SPEC's."""
        msg = message.removeprefix("ssdsim: error: ")
        m = re.search(r"--set: ([\w.]+)", msg)
        # A file a point names (a trace, a script) that the message names: that line.
        by_file = [s for s in point.sets if isinstance(s.value, str) and s.value and
                   os.sep in self._resolve(spec, s.value) and self._resolve(spec, s.value) in msg]
        if m:
            line, where = point.line_of(m.group(1)) or spec.line, m.group(1)
        elif by_file:
            line, where = by_file[-1].line, by_file[-1].key
        elif msg.startswith("--preset"):
            line, where = spec.preset_line, "base"
        elif msg.startswith("--config"):
            line, where = spec.config_line, "base"
        else:
            line, where = spec.line, "base"
        return SpecError(f"{spec.path}:{line}: {where}: {msg}")

    @staticmethod
    def _resolve(spec: Spec, value: str) -> str:
        """A relative path as args() passes it: relative to the SPEC's folder."""
        if os.path.isabs(value) or not spec.path:
            return value
        return os.path.join(os.path.dirname(spec.path), value)


def point_id(effective: dict) -> str:
    """A point's identity: a hash of its effective configuration, apart from the keys
    that only change speed or name output files."""
    ident = {k: v for k, v in sorted(effective.items()) if k not in SPEED_ONLY and k not in OUTPUTS}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
