#!/usr/bin/env bash
# Installs the dependencies if needed, then configures and builds into build/.
# BUILD_DIR and CMAKE_BUILD_TYPE (default RelWithDebInfo) may be set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
bash "$root/scripts/deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" >&2
fi
cmake --build "$build" -j "$(nproc)" >&2
