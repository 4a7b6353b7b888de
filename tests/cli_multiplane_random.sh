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
# Then the same on the aged device (ftl.precondition_age=1, at its GC reserve), where GC
# copies about 4.4 pages per host page: the die's GC runs put their copies on its planes
# at one offset and erase their victims together (docs/scheduler.md, "The die-aligned
# frontier"), so at least x1.5 under each policy, and most of GC's programs and erases
# are two-plane commands. (With GC copying inside each plane, x1.00 to x1.01.)
set -u
ssdsim="$1"; dir="$2"
rm -rf "$dir"; mkdir -p "$dir"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
for age in fresh aged; do
  start=(--set ftl.precondition=0)
  [ "$age" = aged ] && start=(--set ftl.precondition=1 --set ftl.precondition_age=1)
  for policy in static delay sqf; do
    for mp in false true; do
      out="$dir/${age}_${policy}_$mp"
      "$ssdsim" --set nand.channels=1 --set nand.chips_per_channel=1 --set nand.dies_per_chip=1 \
        --set nand.planes_per_die=2 --set nand.page_bytes=4096 --set nand.t_prog_us=1000 \
        --set nand.blocks_per_plane=256 --set nand.pages_per_block=16 "${start[@]}" \
        --set workload.read_ratio=0 --set workload.size_bytes=4096 --set workload.queue_depth=32 \
        --set workload.requests=3000 --set ftl.write_policy=$policy --set nand.multiplane=$mp \
        --out "$out" > "$out.log" 2>&1 ||
        { cat "$out.log"; echo "cli_multiplane_random: ssdsim failed ($age, $policy, nand.multiplane=$mp)" >&2; exit 1; }
    done
  done
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
bad = []
for age in ("fresh", "aged"):
    for policy in ("static", "delay", "sqf"):
        one, two = (json.load(open(f"{d}/{age}_{policy}_{m}/stats.json")) for m in ("false", "true"))
        r = two["write"]["iops"] / one["write"]["iops"]
        share = two["batching"]["multiplane_share"]
        n2 = two["nand"]
        print(f"{age} {policy}: one plane {one['write']['iops']:.0f} IOPS, two planes {two['write']['iops']:.0f} IOPS: "
              f"x{r:.2f}, multi-plane share {share:.3f} (the NAND's pages: program "
              f"{n2['multiplane_page_share']['program']:.3f}, GC's {n2['multiplane_page_share_gc']['program']:.3f}, "
              f"erase {n2['multiplane_page_share']['erase']:.3f}; write amplification "
              f"{two['ftl']['write_amplification']:.2f})")
        # The NAND's own count: pages by the plane count of their command, GC's apart.
        for run, mp in ((one, False), (two, True)):
            n = run["nand"]
            assert sum(n["pages_by_planes"]["program"]) == n["programmed_pages"], n["pages_by_planes"]
            s = n["multiplane_page_share"]["program"]
            assert s == 0 or mp, (age, policy, mp, s)
            if age == "fresh":
                assert run["ftl"]["gc_erases"] == 0, "the fresh runs must be without GC"
                assert n["multiplane_page_share_gc"]["program"] == 0
                assert (s >= 0.9 if mp and policy != "static" else True), (policy, mp, s)
                assert s == n["multiplane_page_share_host"]["program"]
            elif mp:
                assert run["ftl"]["gc_erases"] > 500, "the aged runs must collect"
                for key, share in (("GC's programs", n["multiplane_page_share_gc"]["program"]),
                                   ("erases", n["multiplane_page_share"]["erase"])):
                    if share < 0.5:
                        bad.append(f"aged {policy}: {key} two-plane share {share:.3f} < 0.5")
        want = 1.8 if age == "fresh" else 1.5
        if r < want:
            bad.append(f"{age} {policy}: x{r:.2f} < x{want}")
assert not bad, "; ".join(bad)
PY
