#!/usr/bin/env bash
# Lints the scheduler block in both simulators the project uses, with no waivers, over
# parameterisations that reach every generate branch (HOS and IOS, one and many chips,
# dies and classes, a chip count that is not a power of two, the fault option):
# verilator --lint-only -Wall and iverilog -g2012 -Wall must print nothing.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
sets=(
  ""
  "MODE=1"
  "CHANNELS=4 CHIPS=4 DIES=2 POOL=32"
  "CHANNELS=1 CHIPS=1 DIES=1 POOL=2"
  "CHANNELS=3 CHIPS=3 DIES=2 POOL=16"
  "CHANNELS=2 CHIPS=4 DIES=2 POOL=64 MODE=1"
  "CHIPS=3 FAULT=1"
  "CHANNELS=16 CHIPS=8 POOL=32"
  "CHANNELS=2 CHIPS=2 DIES=2 POOL=16 WMAX=4"
  "CHANNELS=2 CHIPS=2 POOL=16 RESCHED=0"
  "CHANNELS=2 CHIPS=2 DIES=4 POOL=16 SUSPEND=0"
  "CHANNELS=2 CHIPS=3 DIES=4 POOL=16 RESCHED=0"
)
# The memory's writes at a decision edge (per channel, a grant, its partners and their
# unlinks) are loops Verilator must unroll: its default limits are for smaller ones.
unroll="--unroll-count 1024 --unroll-stmts 100000"
status=0
for s in "${sets[@]}"; do
  vargs=() iargs=()
  for kv in $s; do vargs+=("-G$kv"); iargs+=("-Psched_block.$kv"); done
  out=$(verilator --lint-only -Wall $unroll "${vargs[@]}" sched_block.v 2>&1)
  if [ -n "$out" ]; then echo "verilator [$s]:"; echo "$out"; status=1; fi
  if command -v iverilog >/dev/null; then
    out=$(iverilog -g2012 -Wall "${iargs[@]}" -o /dev/null sched_block.v 2>&1)
    if [ -n "$out" ]; then echo "iverilog [$s]:"; echo "$out"; status=1; fi
  else
    echo "iverilog not found (Debian package 'iverilog'; scripts/deps.sh installs it)"; status=1
  fi
done
[ $status -eq 0 ] && echo "lint clean: ${#sets[@]} parameter sets, verilator and iverilog"
exit $status
