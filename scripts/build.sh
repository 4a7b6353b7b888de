#!/usr/bin/env bash
# Installs the dependencies if needed, then configures and builds into build/.
# BUILD_DIR and CMAKE_BUILD_TYPE (default RelWithDebInfo) may be set.
# SSD_PGO (default ON): profile-guided and link-time optimisation (see CMakeLists.txt):
# 5-7 % faster simulations, identical results; a clean build takes about a minute
# longer and a change to the model's sources rebuilds all of it (about a minute on two
# cores). SSD_PGO=OFF for quick edit-build-test rounds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
case "${SSD_PGO:-ON}" in
  ON|on|1|yes|true) pgo=ON ;;
  OFF|off|0|no|false) pgo=OFF ;;
  *) echo "scripts/build.sh: SSD_PGO must be ON or OFF, not '${SSD_PGO}'" >&2; exit 2 ;;
esac
bash "$root/scripts/deps.sh"
if [ ! -f "$build/build.ninja" ] || ! grep -qx "SSD_PGO:BOOL=$pgo" "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" -DSSD_PGO="$pgo" >&2
fi
cmake --build "$build" -j "$(nproc)" >&2
