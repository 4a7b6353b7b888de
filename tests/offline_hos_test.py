"""scripts/ssdexp/offline_hos.py: the paper's HOS, a trace reordered offline by the
out-of-order rule. Plain Python (standard library only):
`python3 tests/offline_hos_test.py` runs every test_* below and prints "ok"."""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))

from ssdexp.offline_hos import Device, Request, hos_order, msr_text, read_requests_csv, reorder  # noqa: E402

# Four chips, one per channel, one plane each: logical page k lives on chip k mod 4. Bus
# 1024 bytes per us: a 2 KiB page moves in 2 us, a command's 256 cycles take 0.25 us.
SMALL = Device(channels=4, chips_per_channel=1, dies_per_chip=1, planes_per_die=1, page_bytes=2048,
               allocation="CWDP", t_read_us=25.0, t_prog_us=200.0, bus_mts=1024.0, cmd_addr_cycles=256)
PAGE = 2048


def page(lpn: int, op: str = "R") -> Request:
    """A one-page request of logical page lpn (on chip lpn mod 4)."""
    return Request(0.0, op, lpn * PAGE, PAGE)


def test_busy_chip_is_overtaken():
    # A, A, B: the first read takes chip 0 (0.25 us command, 25 us tR, 2 us out: done at
    # 27.25); the second, for chip 0 too, waits for it, so the read for chip 1 overtakes it.
    order = hos_order([page(0), page(4), page(1)], SMALL)
    assert order == [(0, 0.0), (2, 0.0), (1, 27.25)], order


def test_idle_chips_keep_arrival_order():
    # Each for its own idle chip: nothing to overtake.
    assert [i for i, _ in hos_order([page(0), page(1), page(2), page(3)], SMALL)] == [0, 1, 2, 3]


def test_dependencies_keep_their_order():
    # 0 busies chip 0. 1 writes pages 4 and 5 (chips 0 and 1), so it waits for chip 0;
    # 2 reads page 5 on idle chip 1 but must stay after the write of it; 3, for idle chip
    # 2, overtakes both.
    reqs = [page(0), Request(0.0, "W", 4 * PAGE, 2 * PAGE), page(5), page(2)]
    assert [i for i, _ in hos_order(reqs, SMALL)] == [0, 3, 1, 2]


def test_queue_depth_bounds_the_lookahead():
    # With one request in the device at a time there is nothing to reorder.
    reqs = [page(0), page(4), page(1)]
    assert [i for i, _ in hos_order(reqs, SMALL, depth=1)] == [0, 1, 2]


def test_write_timing():
    # A whole-page write: data in (0.25 + 2 us), then tPROG; a partial one reads first.
    assert hos_order([page(0, "W"), page(4)], SMALL) == [(0, 0.0), (1, 202.25)]
    partial = Request(0.0, "W", 0, 512)
    assert hos_order([partial, page(4)], SMALL) == [(0, 0.0), (1, 27.25 + 2.25 + 200.0)]


def test_permutation_nothing_lost_and_deterministic():
    rng = random.Random(7)
    reqs = [Request(0.0, rng.choice("RW"), rng.randrange(0, 4000) * 512, rng.randrange(1, 17) * 512)
            for _ in range(2000)]
    order = hos_order(reqs, SMALL)
    assert sorted(i for i, _ in order) == list(range(len(reqs)))
    assert order == hos_order(list(reqs), SMALL)
    times = [t for _, t in order]
    assert times == sorted(times), "issue times go backwards"
    out = reorder(reqs, SMALL)
    assert sorted(r._replace(time_us=0.0) for r in out) == sorted(reqs)
    assert out != reqs, "nothing was reordered"
    # Two requests that share a logical page keep their order.
    pos = {i: k for k, (i, _) in enumerate(order)}
    for a in range(len(reqs)):
        for b in range(a + 1, min(a + 40, len(reqs))):
            if set(SMALL.lpns(reqs[a])) & set(SMALL.lpns(reqs[b])):
                assert pos[a] < pos[b], (a, b)


def test_layout_is_the_models():
    # The sos preset's geometry with CWDP: page k on channel k mod 4, chip (k / 4) mod 4,
    # plane (k / 16) mod 2; chip index channel x 4 + chip (controller/ftl.cpp).
    sos = Device(4, 4, 1, 2, 2048, "CWDP", 25.0, 200.0, 40.0, 7)
    assert [sos.chip_of_lpn(k) for k in (0, 1, 3, 4, 5, 15, 16, 31, 32)] == [0, 4, 12, 1, 5, 15, 0, 15, 0]
    # 3 KiB from byte 1024: the second half of page 0, all of page 1.
    assert sos.pages(Request(0.0, "W", 1024, 3072)) == [(0, False), (4, True)]


def test_request_csv_and_msr():
    # A run's request CSV, rows in completion order: read back in the order made (by id).
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("submit_us,complete_us,op,lba,bytes,latency_us,part_host_queue_us,id\n"
                "5.000000,90.000000,WRITE,16,1024,85.000000,0.000000,2\n"
                "1.500000,60.000000,READ,8,4096,58.500000,0.000000,1\n")
    try:
        assert read_requests_csv(f.name) == [Request(1.5, "R", 4096, 4096), Request(5.0, "W", 8192, 1024)]
    finally:
        os.remove(f.name)
    line = msr_text([Request(12.34, "W", 4096, 1024)])
    assert line == "123,ssdexp,0,Write,4096,1024,0\n", line


if __name__ == "__main__":
    for name, f in sorted(globals().items()):
        if name.startswith("test_"):
            f()
    print("ok")
