#!/usr/bin/env bash
# The SystemC kernel's cost of one timed process activation, in instructions: the loop
# that report.calibrate_kernel times (one SC_METHOD re-notifying itself 1 ns ahead),
# built alone against Debian's libsystemc and counted at two lengths, the difference
# divided by the activations between them (start-up cancelled). The counter is the
# CPU's (perf stat -e instructions:u) where there is one, else callgrind. Prints one
# number. docs/performance.md ("The floor") multiplies it by the activations a request
# needs at least.
#   bash scripts/kernel_cost.sh
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/loop.cpp" <<'CPP'
#include <cstdlib>
#include <systemc>
struct Loop : sc_core::sc_module {
  sc_core::sc_event ev;
  unsigned long n = 0, last;
  SC_HAS_PROCESS(Loop);
  Loop(sc_core::sc_module_name name, unsigned long activations) : sc_module(name), last(activations) {
    SC_METHOD(step);
    sensitive << ev;
    dont_initialize();
  }
  void start_of_simulation() override { ev.notify(1, sc_core::SC_NS); }
  void step() {
    if (++n < last) ev.notify(1, sc_core::SC_NS);
  }
};
int sc_main(int argc, char** argv) {
  Loop loop("loop", std::strtoul(argv[1], nullptr, 10));
  sc_core::sc_start();
  return 0;
}
CPP
g++ -O2 -std=c++17 "$work/loop.cpp" -o "$work/loop" -lsystemc ||
  { echo "scripts/kernel_cost.sh: could not build the loop against libsystemc (Debian's libsystemc-dev)" >&2; exit 1; }
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
probe="$(perf stat -x, -e instructions:u true 2>&1 >/dev/null || true)"
count() {  # count N: instructions of the loop of N activations
  if command -v perf >/dev/null && [[ "$probe" =~ ^[0-9] ]]; then
    perf stat -x, -e instructions:u "$work/loop" "$1" 2>&1 >/dev/null |
      awk -F, '$3 ~ /instructions/ && $1 ~ /^[0-9]+$/ {s += $1} END {printf "%.0f", s}'
  else
    command -v valgrind >/dev/null || { echo "scripts/kernel_cost.sh: neither CPU counters nor valgrind here" >&2; exit 1; }
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" "$work/loop" "$1" >/dev/null 2>&1
    sed -n 's/^totals: \([0-9]*\).*/\1/p' "$work/cg.$1"
  fi
}
a="$(count 200000)"
b="$(count 1200000)"
[[ "$a" =~ ^[0-9]+$ && "$b" =~ ^[0-9]+$ ]] || { echo "scripts/kernel_cost.sh: no instruction count ('$a', '$b')" >&2; exit 1; }
awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0f\n", (b - a) / 1000000}'
