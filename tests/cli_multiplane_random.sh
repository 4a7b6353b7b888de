#!/usr/bin/env bash
# cli_multiplane_random.sh SSDSIM DIR: random 4 KiB writes (4 KiB pages) at queue depth 32
# on one tPROG-bound die of two planes (tPROG 1 ms, 256 blocks of 16 pages), empty at
# time 0, 3,000 writes: no GC, and the planes fill 6 blocks each, so their streams open
# blocks again and again. Under the dynamic write policies the die's two planes must stay
# at one page offset through those openings, so that nearly every program is a two-plane
# one and the write IOPS double: at least x1.8 over nand.multiplane=false. (Before the
# plane choice took offsets around the block, delay and sqf gave x1.00: once a plane
# opened a block, it took every page and its partner waited at its old block's end.)
# static places by address and pairs when its planes' queues happen to line up (x1.91).
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
for policy in static delay sqf; do
  for mp in false true; do
    "$ssdsim" --set nand.channels=1 --set nand.chips_per_channel=1 --set nand.dies_per_chip=1 \
      --set nand.planes_per_die=2 --set nand.page_bytes=4096 --set nand.t_prog_us=1000 \
      --set nand.blocks_per_plane=256 --set nand.pages_per_block=16 --set ftl.precondition=0 \
      --set workload.read_ratio=0 --set workload.size_bytes=4096 --set workload.queue_depth=32 \
      --set workload.requests=3000 --set ftl.write_policy=$policy --set nand.multiplane=$mp \
      --out "$dir/${policy}_$mp" > "$dir/${policy}_$mp.log" 2>&1 ||
      { cat "$dir/${policy}_$mp.log"; echo "cli_multiplane_random: ssdsim failed ($policy, nand.multiplane=$mp)" >&2; exit 1; }
  done
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
bad = []
for policy in ("static", "delay", "sqf"):
    one, two = (json.load(open(f"{d}/{policy}_{m}/stats.json")) for m in ("false", "true"))
    assert one["ftl"]["gc_erases"] == 0 and two["ftl"]["gc_erases"] == 0, "the runs must be without GC"
    r = two["write"]["iops"] / one["write"]["iops"]
    share = two["batching"]["multiplane_share"]
    print(f"{policy}: one plane {one['write']['iops']:.0f} IOPS, two planes {two['write']['iops']:.0f} IOPS: "
          f"x{r:.2f}, multi-plane share {share:.3f} (the NAND's pages: "
          f"{two['nand']['multiplane_page_share']['program']:.3f})")
    # The NAND's own count: pages by the plane count of their command, GC's apart.
    for run, mp in ((one, False), (two, True)):
        n = run["nand"]
        assert sum(n["pages_by_planes"]["program"]) == n["programmed_pages"], n["pages_by_planes"]
        assert n["multiplane_page_share_gc"]["program"] == 0
        s = n["multiplane_page_share"]["program"]
        assert (s >= 0.9 if mp and policy != "static" else True) and (s == 0 if not mp else True), (policy, mp, s)
        assert s == n["multiplane_page_share_host"]["program"]
    if r < 1.8:
        bad.append(f"{policy}: x{r:.2f} < x1.8")
assert not bad, "; ".join(bad)
PY
