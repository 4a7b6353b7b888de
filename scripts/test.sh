#!/usr/bin/env bash
# Sets everything up (packages, build) and runs the whole test suite through CTest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh"
echo "test.sh: set up and built in $SECONDS s" >&2
bash "$root/scripts/pyenv.sh" >/dev/null  # the experiment scripts' Python environment
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
cd "$build"
ctest -j "$(nproc)" --output-on-failure "$@"
