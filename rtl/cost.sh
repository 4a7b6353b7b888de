#!/usr/bin/env bash
# Hardware cost of the scheduler block for co-design reviews: synthesises sched_block.v
# with Yosys' generic flow (synth, then abc to simple gates) in HOS mode, 2 dies per
# chip and a command memory of 32 commands per chip, for each geometry given, and prints
# per geometry: logic gates (Yosys' simple gate cells), flip-flops, the command memory (kept as RAM: its bits and
# ports, `ram_block`), and the longest combinational path in gate levels (Yosys ltp,
# flip-flops excluded; an estimate of the critical path before placement). Each geometry
# in four forms: HOS alone (RESCHED=0 SUSPEND=0), with the rescheduling hardware
# (controller.reschedule: docs/scheduler.md) for windows of up to 4 and up to 16 commands
# (WMAX; the walk for multi-plane partners has a stage per command of the window), and
# with the suspend hardware (controller.suspend; SUSPEND=1, no rescheduling).
#   bash rtl/cost.sh [CHANNELSxCHIPS ...]     (default: 4x4 8x8 16x8)
#   RTL_COST_FORMS="hos" bash rtl/cost.sh 4x4   (only some forms: hos, resched4, resched16, suspend)
# Debian's `yosys`; takes minutes per geometry (scripts/deps.sh installs it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v yosys >/dev/null || { echo "rtl/cost.sh: yosys not found (Debian package 'yosys')" >&2; exit 2; }
geometries=("$@")
[ ${#geometries[@]} -gt 0 ] || geometries=(4x4 8x8 16x8)
for g in "${geometries[@]}"; do
  if ! [[ "$g" =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]]; then
    echo "rtl/cost.sh: a geometry is CHANNELSxCHIPS (e.g. 8x8), not '$g'" >&2; exit 2
  fi
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
forms=(${RTL_COST_FORMS:-hos resched4 resched16 suspend})
for f in "${forms[@]}"; do
  case "$f" in hos|resched4|resched16|suspend) ;;
    *) echo "rtl/cost.sh: a form is hos, resched4, resched16 or suspend, not '$f'" >&2; exit 2 ;;
  esac
done
printf '%-9s %-10s %6s %9s %10s %9s %11s %13s\n' geometry form memory gates "flip-flops" "RAM bits" "RAM ports" "path (levels)"
for g in "${geometries[@]}"; do
 for f in "${forms[@]}"; do
  ch=${g%x*} chips=${g#*x} pool=$((${g%x*} * ${g#*x} * 32))
  case "$f" in
    hos) extra="-set RESCHED 0 -set SUSPEND 0" ;;
    resched4) extra="-set RESCHED 1 -set WMAX 4 -set SUSPEND 0" ;;
    resched16) extra="-set RESCHED 1 -set WMAX 16 -set SUSPEND 0" ;;
    suspend) extra="-set RESCHED 0 -set SUSPEND 1" ;;
  esac
  yosys -q -l "$work/$g.log" -p "
    read_verilog $here/sched_block.v
    chparam -set CHANNELS $ch -set CHIPS $chips -set DIES 2 -set POOL $pool -set MODE 0 $extra sched_block
    synth -top sched_block -flatten -run begin:fine
    opt -fast -full
    memory_map -attr !ram_block
    opt -full
    techmap
    opt -fast
    abc
    opt -fast
    tee -q -o $work/$g.stat stat
    tee -q -o $work/$g.ltp ltp -noff
    tee -q -o $work/$g.mem dump t:\$mem_v2" >/dev/null || { cat "$work/$g.log" >&2; echo "rtl/cost.sh: yosys failed on $g" >&2; exit 1; }
  ffs=$(awk '/\$_(S|A)?DFF/ {n += $2} END {print n + 0}' "$work/$g.stat")
  gates=$(awk -v f="$ffs" '/Number of cells:/ {n = $4} / \$mem_v2 / {m = $2} END {print n - m - f}' "$work/$g.stat")
  # Per RAM: WIDTH x SIZE bits; ports: read and write ports over all RAMs.
  read -r bits ports < <(awk '
    /^ *cell .\$mem_v2/ {w = s = r = x = 0}
    /parameter .WIDTH / {w = $3} /parameter .SIZE / {s = $3}
    /parameter .RD_PORTS / {r = $3} /parameter .WR_PORTS / {x = $3}
    /^ *end$/ && w {bits += w * s; rd += r; wr += x; w = 0}
    END {printf "%d %dR/%dW\n", bits, rd, wr}' "$work/$g.mem")
  levels=$(sed -n 's/.*Longest topological path in sched_block (length=\([0-9]*\)).*/\1/p' "$work/$g.ltp")
  printf '%-9s %-10s %6s %9s %10s %9s %11s %13s\n' "$g" "$f" "$pool" "$gates" "$ffs" "$bits" "$ports" "$levels"
 done
done
