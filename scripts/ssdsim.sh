#!/usr/bin/env bash
# Sets everything up (packages, build) and runs ssdsim with the given arguments;
# with none, the built-in default configuration and the bundled workload.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build.sh" ssdsim
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
exec "${BUILD_DIR:-$root/build}/ssdsim" "$@"
