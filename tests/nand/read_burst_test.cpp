// A burst of reads on an idle NAND (nand/read_burst.h), timed by hand from the equations
// of docs/nand-timing.md: C = cmd_addr_cycles / bus_mts, D' = out bytes / bus_mts.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "nand/read_burst.h"

using ssd::Tick;
using ssd::nand::NandConfig;
using ssd::nand::ReadBurst;

namespace {
NandConfig small() {
  NandConfig n;
  n.channels = 2;
  n.chips_per_channel = 2;
  n.dies_per_chip = 1;
  n.planes_per_die = 2;
  n.blocks_per_plane = 8;
  n.pages_per_block = 4;
  n.page_bytes = 4096;
  n.t_read_us = 75;
  n.bus_mts = 333;
  n.cmd_addr_cycles = 7;
  return n;
}
// Picoseconds of `bytes` bus cycles at 333 MT/s, rounded as a bus phase is.
Tick bus(double bytes) { return static_cast<Tick>(bytes / 333.0 * 1e6 + 0.5); }
constexpr Tick kTr = 75000000;
}  // namespace

TEST_CASE("read burst: one read is C + tR + D'", "[nand][power]") {
  ReadBurst b(small());
  CHECK(b.run() == 0);  // nothing to read: no time
  b.add(0, 0, 1, 64);
  CHECK(b.pending() == 1);
  CHECK(b.run() == bus(7) + kTr + bus(64));  // 75.213 us
  CHECK(b.pending() == 0);
  // A second burst starts from nothing: the same again.
  b.add(3, 2, 1, 64);
  CHECK(b.run() == bus(7) + kTr + bus(64));
}

TEST_CASE("read burst: one die's reads with cache read, N(C + tR) + D', wrapping past the block", "[nand][power]") {
  ReadBurst b(small());
  b.add(1, 2, 6, 64);  // pages 2, 3, 0, 1, 2, 3 of plane 1 (die 0)
  CHECK(b.run() == 6 * (bus(7) + kTr) + bus(64));
  NandConfig n = small();
  n.cache_read = false;  // one at a time: N(C + tR + D')
  ReadBurst plain(n);
  plain.add(1, 0, 6, 64);
  CHECK(plain.run() == 6 * (bus(7) + kTr + bus(64)));
}

TEST_CASE("read burst: dies sharing a bus, channels apart, the slowest channel's time", "[nand][power]") {
  // Channel 0's two dies read whole pages (D = 4,096 / 333 = 12.3 us), 3 each, die 0's
  // command first (issued first), die 1's a C later: both tRs end at C + tR and 2C + tR.
  // Die 0's data-out, ready first, takes the bus (after its next command: a command phase
  // goes first at equal times), so die 1's second command waits for it: die 1's second
  // tR starts D later. From then on each die's data-out fits in the other's tR, and die 1
  // ends at C + 3(C + tR) + 2D. Channel 1's one read ends sooner.
  ReadBurst b(small());
  b.add(0, 0, 2, 0);  // die 0 of channel 0 (its planes 0 and 1)
  b.add(1, 0, 1, 0);
  b.add(2, 0, 3, 0);  // die 1 of channel 0
  b.add(4, 0, 1, 64);  // channel 1
  CHECK(b.run() == bus(7) + 3 * (bus(7) + kTr) + 2 * bus(4096));
  // A slow bus dominates: at 1 MT/s a page's spare record (64 bytes) takes 64 us on the
  // bus, a command 7 us. Two dies of two reads each: the bus carries 4 commands and 4
  // data-outs, idle only until the first tR ends (C + tR) while it carries die 1's
  // first command: C + tR + (4 x 64 + 2 x 7) us, the data-outs and the two later commands.
  NandConfig slow = small();
  slow.bus_mts = 1;
  ReadBurst s(slow);
  s.add(0, 0, 2, 64);
  s.add(2, 0, 2, 64);
  const Tick us = 1000000;
  CHECK(s.run() == (7 + 75 + 4 * 64 + 2 * 7) * us);
}

TEST_CASE("read burst: reads outside the device are refused", "[nand][power]") {
  ReadBurst b(small());
  CHECK_THROWS_AS(b.add(8, 0, 1, 64), std::out_of_range);   // 8 planes: 0..7
  CHECK_THROWS_AS(b.add(0, 0, 1, 4097), std::out_of_range);  // more than a page
  CHECK_THROWS_AS(b.add(0, 0, 1, 64, true), std::out_of_range);  // SLC mode on one bit per cell
}

TEST_CASE("read burst: 3-bit cells, SLC-mode reads (the map log's) take tR of SLC mode, wrapping at n times fewer pages",
          "[nand][power]") {
  NandConfig n = small();
  n.bits_per_cell = 3;
  n.pages_per_block = 6;  // 2 wordlines; 2 pages in SLC mode
  n.t_read_slc_us = 30;
  constexpr Tick kTrSlc = 30000000;
  ReadBurst b(n);
  b.add(0, 0, 1, 64, true);
  CHECK(b.run() == bus(7) + kTrSlc + bus(64));  // 30.213 us
  b.add(0, 0, 1, 64);  // in the part's own mode, as before
  CHECK(b.run() == bus(7) + kTr + bus(64));
  // Pages 1, 0, 1 of the SLC block (it holds 2), with cache read: 3(C + tR) + D'.
  b.add(2, 1, 3, 64, true);
  CHECK(b.run() == 3 * (bus(7) + kTrSlc) + bus(64));
}
