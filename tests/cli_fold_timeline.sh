#!/usr/bin/env bash
# cli_fold_timeline.sh SSDSIM DIR
# A fold of the SLC cache timed by hand (docs/controller.md, "The SLC cache"), on one die of
# one plane, 3-bit cells, 12 pages a block (4 in SLC mode), 4 KiB pages, the cache 4 of its
# 32 blocks: tests/data/slc_fold.msr writes logical pages 0..3 at 0, 1, 2 and 3 ms, which
# fill an SLC block; with ftl.slc_fold_threshold = 0 it is folded as soon as it is full.
# The VCD's die array, bus and the plane's GC signal must change at these times, to the
# picosecond:
#   C = 7 cycles of the 333 MT/s bus (21,021 ps), D = 4,096 bytes (12,300,300 ps),
#   an erase's C = 5 cycles (15,015 ps); tR(SLC) 30 us, tPROG 750 us (a wordline),
#   tPROG(SLC) 200 us, tBERS 3,800 us; the core charges 1,000 cycles at 500 MHz (2 us)
#   per copy and per erase; the scheduler block grants at its 1 GHz clock's next edge.
#  - The 4th host write (at 3 ms): 4 us of core, C + D, tPROG(SLC): T0 = 3,216.321321 us.
#    The block is full: the fold (a GC run of the plane) begins, the GC signal rises.
#  - Copy reads 1..4 (SLC): read 1 built with 2 us of core, granted at the next edge S1.
#    Read k: C, tR(SLC), D out: it ends at E_k = S_k + C + tR + D. The block grants read
#    k + 1 at the edge after read k's tR, when read k's data already holds the bus: its
#    command follows that data out, S_k+1 = E_k.
#  - Wordline 0 of the GC block takes copies 1..3 (their programs built at E_1..E_3, 2 us of
#    core each); the die is reading until E_4: granted at the edge after E_4; data in
#    3(C + D), then tPROG.
#  - Wordline 1: copy 4 (built at E_4) and two filler pages: with no copy left to read, it
#    is padded at once, and the die takes it when wordline 0's tPROG starts (its cache
#    register frees): the first page, C + D, into the cache register; the other two pages
#    after wordline 0's tPROG, 2(C + D); then its tPROG.
#  - The erase of the SLC block: built when wordline 1's program ends (2 us of core),
#    granted at the next edge; C, tBERS. The GC signal falls at its end.
set -u
ssdsim="$1"; dir="$2"
data="$(cd "$(dirname "$0")" && pwd)/data"
rm -rf "$dir"; mkdir -p "$dir"
"$ssdsim" --set workload.kind=trace --set workload.path="$data/slc_fold.msr" --set nand.page_bytes=4096 \
  --set ftl.precondition=0 --set nand.channels=1 --set nand.chips_per_channel=1 --set nand.dies_per_chip=1 \
  --set nand.planes_per_die=1 --set nand.blocks_per_plane=32 --set nand.pages_per_block=12 \
  --set nand.bits_per_cell=3 --set ftl.overprovisioning=0.25 --set ftl.slc_cache_fraction=0.125 \
  --set trace.vcd="$dir/fold.vcd" --out "$dir" >"$dir/out.txt" 2>&1 \
  || { cat "$dir/out.txt"; echo "cli_fold_timeline: ssdsim failed" >&2; exit 1; }
exec python3 - "$dir/fold.vcd" "$(cd "$(dirname "$0")" && pwd)" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import vcd_changes
US = 1000000  # ps
C, D, CE = round(7e6 / 333), round(4096e6 / 333), round(5e6 / 333)
T_R, T_PROG, T_PROG_SLC, T_BERS, CORE = 30 * US, 750 * US, 200 * US, 3800 * US, 2 * US
edge = lambda t: -(-t // 1000) * 1000  # the block's next 1 GHz edge (or this one)

# By hand (the script's head).
want = {}
t0 = 3000 * US + 4 * US + C + D + T_PROG_SLC
want["gc rises"] = t0
s = edge(t0 + CORE)
ends = []
for k in range(1, 5):
    want[f"read {k} command"] = s
    want[f"read {k} tR"] = (s + C, s + C + T_R)
    e = s + C + T_R + D
    ends.append(e)
    s = e
w0 = edge(ends[3])
want["wordline 0 data in"] = w0
w0_prog = w0 + 3 * (C + D)
want["wordline 0 tPROG"] = (w0_prog, w0_prog + T_PROG)
w1 = edge(w0_prog)
want["wordline 1 first page in"] = (w1, w1 + C + D)
w1_prog = w0_prog + T_PROG + 2 * (C + D)
want["wordline 1 tPROG"] = (w1_prog, w1_prog + T_PROG)
er = edge(w1_prog + T_PROG + CORE)
want["erase command"] = er
want["erase tBERS"] = (er + CE, er + CE + T_BERS)
want["gc falls"] = er + CE + T_BERS

# The VCD: the die's array (1 read, 2 program, 3 erase) and the bus phase (1 command,
# 2 data in, 3 data out) from the 4th host write's end, and the plane's GC signal.
changes = vcd_changes.changes(sys.argv[1])
signal = lambda suffix: [(t, v) for n, c in changes.items() if n.endswith(suffix) for t, v in c if t >= want["gc rises"]]
arr, bus, gc = signal("die0.array"), signal("ch0.bus_phase"), signal("plane0.gc")
spans = lambda xs, kind: [(a, b) for (a, v), (b, _) in zip(xs, xs[1:]) if v == kind]
reads, progs, erases = spans(arr, 1), spans(arr, 2), spans(arr, 3)
cmd_starts = [a for a, v in bus if v == 1]
got = {}
got["gc rises"] = next((a for a, v in gc if v == 1), None)
got["gc falls"] = next((a for a, v in gc if v == 0), None)
for k in range(4):
    got[f"read {k + 1} tR"] = reads[k] if k < len(reads) else None
    got[f"read {k + 1} command"] = reads[k][0] - C if k < len(reads) else None
got["wordline 0 tPROG"] = progs[0] if progs else None
got["wordline 0 data in"] = progs[0][0] - 3 * (C + D) if progs else None
got["wordline 1 tPROG"] = progs[1] if len(progs) > 1 else None
w1_start = next((a for a in cmd_starts if want["wordline 0 tPROG"][0] <= a < want["wordline 0 tPROG"][1]), None)
first_out = next((b for a, b in spans(bus, 2) if w1_start is not None and a >= w1_start), None)
got["wordline 1 first page in"] = (w1_start, first_out) if w1_start is not None else None
got["erase tBERS"] = erases[0] if erases else None
got["erase command"] = erases[0][0] - CE if erases else None

fmt = lambda x: "-" if x is None else "-".join(f"{v / US:.6f}" for v in x) if isinstance(x, tuple) else f"{x / US:.6f}"
bad = 0
print(f"{'event':28} {'by hand (us)':>30} {'the model (us)':>30}")
for k, v in want.items():
    ok = got.get(k) == v
    bad += not ok
    print(f"{k:28} {fmt(v):>30} {fmt(got.get(k)):>30}{'' if ok else '   <- differs'}")
if bad:
    sys.exit(f"cli_fold_timeline: {bad} events differ from the hand timeline")
print("cli_fold_timeline: the fold's timeline is the hand one")
PY
