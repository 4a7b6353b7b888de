#!/usr/bin/env bash
# tests/experiments/run.sh SSDSIM WORK NAME [FILE]: one check of tests/experiments/check.py
# (or FILE there, such as check_plots.py), with
# the project's Python environment (scripts/pyenv.sh makes it if it is missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export SSDSIM="$1" WORK="$2"
py="$(bash "$root/scripts/pyenv.sh")"
exec "$py" "$root/tests/experiments/${4:-check.py}" "$3"
