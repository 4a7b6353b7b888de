#!/usr/bin/env bash
# The sanitizer pass (CI runs it after the test suite): builds into build-san/ (or
# SAN_BUILD_DIR) with SSD_SANITIZE=ON (-fsanitize=address,undefined,float-cast-overflow,
# every finding fatal) and SSD_PGO=OFF, then under the sanitizers runs
#  1. the test suite (CTest);
#  2. each reader's fuzzer (tests/fuzz_readers.cpp), and the sweep SPEC reader's
#     (tests/fuzz_specs.py), for FUZZ_SECONDS (default 10) seconds;
#  3. whole runs: the default job with the end-of-run audit, large mixed requests on the
#     PIQ device with IOS, a trace replay, and the bundled NAND script.
# Exit status: that of the first step that fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SAN_BUILD_DIR:-$root/build-san}"
seconds="${FUZZ_SECONDS:-10}"
case "$seconds" in ''|*[!0-9]*) echo "scripts/sanitize.sh: FUZZ_SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
bash "$root/scripts/deps.sh"
# Without the co-simulation's verilated blocks (SSD_RTL=OFF): generated code, checked in
# the normal pass, that takes the sanitizers' compiler many minutes per file. The tests'
# small verilated blocks are still built and run here.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSSD_PGO=OFF -DSSD_SANITIZE=ON -DSSD_RTL=OFF >&2
cmake --build "$build" -j "$(nproc)" >&2
echo "sanitize: set up and built in $SECONDS s" >&2
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# Two tests are left out. One checks an exception that libsystemc (not instrumented) throws
# through Catch's matcher, and AddressSanitizer reports the stack the uninstrumented
# throw left poisoned (a false stack-buffer-overflow in the matcher's string copy).
# The steady-state checks run the bench job at 1M requests: minutes under the sanitizers,
# for figures the plain build already checks. The experiment scripts' tests check the
# Python scripts around ssdsim, which the normal pass runs.
(cd "$build" && ctest -j "$(nproc)" --output-on-failure -E "a payload that never comes back|steady-state checks|^experiments:")
echo "sanitize: test suite done, $SECONDS s in" >&2
for reader in msr spc disksim mqsim blkparse nand_ops json set; do
  (cd "$build/tests" && ./fuzz_readers "$reader" "$root/tests/fuzz_corpus/$reader" --seconds "$seconds" --seed "$RANDOM")
done
(cd "$build/tests" && "$(bash "$root/scripts/pyenv.sh")" "$root/tests/fuzz_specs.py" "$root/tests/fuzz_corpus/spec" \
   --seconds "$seconds" --seed "$RANDOM")
ssdsim="$build/ssdsim"
run() {
  echo "sanitize: ssdsim $*"
  "$ssdsim" "$@" > "$build/run.log" 2>&1 || { tail -n 30 "$build/run.log"; echo "sanitize: run failed" >&2; exit 1; }
  grep -E "integrity|audit" "$build/run.log" || true
}
run --set report.audit=true --set workload.requests=20000
run --preset piq --set controller.scheduler=ios --set workload.read_ratio=0.5 --set workload.size_max_bytes=1048576 \
    --set workload.align_bytes=4096 --set workload.queue_depth=64 --set workload.requests=3000 \
    --set nand.blocks_per_plane=32 --set ftl.overprovisioning=0.15 --set report.audit=true
if [ -f "$root/../shared/traces/msr_hm_0_excerpt.csv" ]; then
  run --set workload.kind=trace --set workload.path="$root/../shared/traces/msr_hm_0_excerpt.csv" --set ftl.precondition=0.5
fi
run --set workload.kind=nand_ops
echo "sanitize: every step passed"
