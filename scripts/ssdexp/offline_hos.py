"""HOS the way the SOS paper (Hahn, Lee, Kim, Sec. IV-A) built it: not as hardware, but by
"rearranging the sequences of I/O requests in I/O traces according to the out-of-order
scheduling algorithm"; the rearranged trace is then replayed in order on IOS
(`controller.scheduler=ios`). The model's own HOS (`controller.scheduler=hos`, per-chip
queues in the scheduler block, docs/scheduler.md) runs beside it on the same trace.

The out-of-order rule (`hos_order`), from the paper's HOS (one queue per chip, "whenever
an idle chip is found, HOS fetches a flash request from a corresponding queue", Sec. II-B;
"as long as data dependencies are not violated, out-of-order scheduling rearranges" the
requests, Sec. II-A, Fig. 1) and the model's (per-chip FIFOs, a command goes when its
chip can take it, docs/scheduler.md):

- the device holds at most `depth` (32, the NCQ's) requests: a closed loop, so a request
  enters as soon as one before it completes;
- of the requests waiting in the device, the one whose chips are all idle first goes
  next (ties: the oldest). So a request for a busy chip is overtaken by later requests
  for idle chips;
- except that a request never overtakes an earlier waiting one that touches one of its
  logical pages (the data dependencies: a read stays after the write it reads, two
  writes of a page keep their order).

Which chips are busy comes from an estimate, as an offline tool has no device: the
model's static allocation (`ftl.allocation`, controller/write_allocator.h: logical page ->
plane -> chip) and the nominal timing of each page command, one after the other on its
chip, with the channel's bus shared: a read is its command, tR, then the page out on the
bus; a write is the page in on the bus, then tPROG, after a read of the old page when it
writes part of a page (read-modify-write). It ignores GC, cache registers and the
firmware's time, as the firmware's own forecast (controller/busy_forecast.h) does.

A request is a whole host request: a trace can only be reordered request by request, so
a request that spans several chips waits until all of them are idle (the model's HOS
starts each of its pages as its own chip frees). For the same reason the rule does not
keep each chip's arrival order at request level: a request waiting for one busy chip
would then hold back every later request for any of its other chips, which per-chip
queues do not do (they hold back only that chip's pages).

Also here: a run's requests from its request CSV (`read_requests_csv`: how a workload,
synthetic or a trace, becomes a trace file the three arms share) and MSR text
(`msr_text`). Standard library only.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import NamedTuple


class Request(NamedTuple):
    time_us: float  # arrival in the trace (closed-loop replay ignores it)
    op: str         # "R" or "W"
    offset: int     # bytes, a multiple of 512
    size: int       # bytes, a multiple of 512


@dataclass(frozen=True)
class Device:
    """The geometry and nominal timing the estimate needs (ssdsim's keys)."""
    channels: int
    chips_per_channel: int
    dies_per_chip: int
    planes_per_die: int
    page_bytes: int
    allocation: str       # ftl.allocation, e.g. "CWDP"
    t_read_us: float
    t_prog_us: float
    bus_mts: float        # bytes per us on the 8-bit bus
    cmd_addr_cycles: int

    @classmethod
    def from_keys(cls, k: dict) -> "Device":
        return cls(k["nand.channels"], k["nand.chips_per_channel"], k["nand.dies_per_chip"],
                   k["nand.planes_per_die"],
                   k["nand.page_bytes"], k["ftl.allocation"], k["nand.t_read_us"],
                   k["nand.t_prog_us"], k["nand.bus_mts"], k["nand.cmd_addr_cycles"])

    @property
    def chips(self) -> int:
        return self.channels * self.chips_per_channel

    @property
    def planes(self) -> int:
        return self.chips * self.dies_per_chip * self.planes_per_die

    def chip_of_lpn(self, lpn: int) -> int:
        """The chip of a logical page: StaticAllocator's mixed radix over the planes
        (controller/write_allocator.h), then Ftl::chip_of_plane."""
        size = {"C": self.channels, "W": self.chips_per_channel, "D": self.dies_per_chip, "P": self.planes_per_die}
        coord = {}
        r = lpn % self.planes
        for d in self.allocation:  # fastest-varying first
            coord[d] = r % size[d]
            r //= size[d]
        return coord["C"] * self.chips_per_channel + coord["W"]

    def lpns(self, r: Request) -> range:
        """The logical pages a request touches."""
        return range(r.offset // self.page_bytes, (r.offset + r.size - 1) // self.page_bytes + 1)

    def pages(self, r: Request) -> list:
        """(chip, whole page?) for each page a request touches, in page order."""
        end = r.offset + r.size
        return [(self.chip_of_lpn(lpn), r.offset <= lpn * self.page_bytes and (lpn + 1) * self.page_bytes <= end)
                for lpn in self.lpns(r)]


def preset_device(preset: str) -> Device:
    """The Device of an ssdsim preset (its effective keys, from ssdsim --list-keys)."""
    from .spec import Point, Spec
    from .ssdsim import Ssdsim, find_binary
    from .sweep import ROOT

    sim = Ssdsim(find_binary(ROOT))
    return Device.from_keys(sim.effective(Spec(path="", name=preset, preset=preset, config=None), Point("", 0, [])))


def _issue(dev: Device, pages: list, op: str, t: float, chip_free: list, bus_free: list) -> float:
    """Books a request's page commands from time t on the estimate's chips and buses;
    returns when its last page is done."""
    cmd = dev.cmd_addr_cycles / dev.bus_mts
    xfer = dev.page_bytes / dev.bus_mts
    done = t
    for chip, whole in pages:
        bus = chip // dev.chips_per_channel
        at = max(t, chip_free[chip])  # the page's work on its chip goes on from here
        if op == "R" or not whole:  # a read, or a read-modify-write's read: tR, then the page out
            out = max(at + cmd + dev.t_read_us, bus_free[bus])
            bus_free[bus] = at = out + xfer
        if op == "W":  # the page in, then tPROG
            data_in = max(at, bus_free[bus])
            bus_free[bus] = data_in + cmd + xfer
            at = bus_free[bus] + dev.t_prog_us
        chip_free[chip] = at
        done = max(done, at)
    return done


def hos_order(reqs: list, dev: Device, depth: int = 32) -> list:
    """The order in which the out-of-order rule (module docstring) issues `reqs`, as
    (index into reqs, estimated issue time in us) in issue order. A pure function: the
    same input gives the same order; every request appears once."""
    pages = [dev.pages(r) for r in reqs]
    lpns = [set(dev.lpns(r)) for r in reqs]
    chip_free = [0.0] * dev.chips
    bus_free = [0.0] * dev.channels
    waiting: list = []   # indices in the device, not issued, in arrival order
    inflight: list = []  # heap of (estimated completion, index)
    order: list = []
    nxt, t = 0, 0.0
    while len(order) < len(reqs):
        while nxt < len(reqs) and len(waiting) + len(inflight) < depth:  # the closed loop refills the queue
            waiting.append(nxt)
            nxt += 1
        best = None  # (start time, index) of the request that can start first
        before = set()  # logical pages of the earlier waiting requests
        for i in waiting:
            if not lpns[i] & before:  # no dependency on an earlier waiting request
                start = max([t] + [chip_free[c] for c, _ in pages[i]])
                if best is None or start < best[0]:
                    best = (start, i)
            before |= lpns[i]
        # A completion before that start lets a new request in, which may go sooner.
        if inflight and (best is None or inflight[0][0] <= best[0]):
            t = max(t, heapq.heappop(inflight)[0])
            continue
        t, i = best
        waiting.remove(i)
        heapq.heappush(inflight, (_issue(dev, pages[i], reqs[i].op, t, chip_free, bus_free), i))
        order.append((i, t))
    return order


def reorder(reqs: list, dev: Device, depth: int = 32) -> list:
    """The requests rearranged by hos_order, each stamped with its estimated issue time
    (non-decreasing, as a trace's times must be)."""
    return [reqs[i]._replace(time_us=t) for i, t in hos_order(reqs, dev, depth)]


def read_requests_csv(path: str) -> list:
    """The requests of a run's request CSV (report.requests_csv: submit_us, op, lba, bytes,
    ..., id), in the order the host made them (by id): the requests exactly as ssdsim's
    workload gave them, after its own rounding and wrapping."""
    import csv

    with open(path, encoding="utf-8", newline="") as f:
        rows = sorted(csv.DictReader(f), key=lambda r: int(r["id"]))
    return [Request(float(r["submit_us"]), "R" if r["op"] == "READ" else "W", int(r["lba"]) * 512, int(r["bytes"]))
            for r in rows]


def msr_text(reqs: list) -> str:
    """The requests as an MSR Cambridge trace (workload.format=msr, host/trace_reader.cpp):
    Timestamp in 100 ns, Hostname, DiskNumber, Type, Offset, Size, ResponseTime (0)."""
    return "".join(f"{round(r.time_us * 10)},ssdexp,0,{'Read' if r.op == 'R' else 'Write'},{r.offset},{r.size},0\n"
                   for r in reqs)
