#!/usr/bin/env bash
# Installs the dependencies if needed, then configures and builds into build/.
#   bash scripts/build.sh          everything: ssdsim and the test suite
#   bash scripts/build.sh ssdsim   only ssdsim and what it links (the model, the verilated
#                                  block), with only the packages it needs (scripts/ssdsim.sh)
# BUILD_DIR and CMAKE_BUILD_TYPE (default RelWithDebInfo) may be set.
# SSD_PGO: profile-guided and link-time optimisation (see CMakeLists.txt): 5-7 % faster
# simulations, identical results; a clean build takes several minutes longer (an
# instrumented build and its training runs first) and a change to the model's sources
# rebuilds all of it. Default: ON for the whole build; for `ssdsim` alone, what the build
# folder was configured with, else OFF (the light first run of scripts/ssdsim.sh).
# SSD_PGO=OFF for quick edit-build-test rounds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
case "${1:-all}" in
  ssdsim) what=ssdsim ;;
  all) what=all ;;
  *) echo "scripts/build.sh: expected 'ssdsim' or nothing, not '$1'" >&2; exit 2 ;;
esac
default=ON
if [ "$what" = ssdsim ]; then
  default=OFF
  if [ -f "$build/CMakeCache.txt" ] && grep -qx "SSD_PGO:BOOL=ON" "$build/CMakeCache.txt"; then default=ON; fi
fi
case "${SSD_PGO:-$default}" in
  ON|on|1|yes|true) pgo=ON ;;
  OFF|off|0|no|false) pgo=OFF ;;
  *) echo "scripts/build.sh: SSD_PGO must be ON or OFF, not '${SSD_PGO}'" >&2; exit 2 ;;
esac
if [ "$what" = ssdsim ]; then bash "$root/scripts/deps.sh" sim; else bash "$root/scripts/deps.sh"; fi
# Configured again when there is no build yet, SSD_PGO changed, or the test suite is
# wanted from a build configured without Catch2 (by scripts/ssdsim.sh's light first run).
if [ ! -f "$build/build.ninja" ] || ! grep -qx "SSD_PGO:BOOL=$pgo" "$build/CMakeCache.txt" ||
   { [ "$what" = all ] && grep -q "^Catch2_DIR:PATH=.*NOTFOUND" "$build/CMakeCache.txt"; }; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" -DSSD_PGO="$pgo" >&2
fi
if [ "$what" = ssdsim ]; then
  cmake --build "$build" -j "$(nproc)" --target ssdsim >&2
else
  cmake --build "$build" -j "$(nproc)" >&2
fi
