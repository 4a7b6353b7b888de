#!/usr/bin/env bash
# Makes the project's Python virtual environment (SSD_VENV, default .venv at the
# repository root) with scripts/requirements.txt, if it is missing or the requirements
# changed since; prints its python. Sourced or run: scripts/sweep, plot, reproduce and
# scripts/test.sh call it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${SSD_VENV:-$root/.venv}"
req="$root/scripts/requirements.txt"
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$stamp"; then
  echo "pyenv: setting up $venv from scripts/requirements.txt" >&2
  if ! python3 -m venv "$venv" >&2 2>/dev/null; then
    rm -rf "$venv"
    bash "$root/scripts/deps.sh" python  # Debian's python3 needs python3-venv
    python3 -m venv "$venv" >&2
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
  cp "$req" "$stamp"
fi
echo "$venv/bin/python"
