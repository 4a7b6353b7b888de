// The recovery scan's time (sc_main/power_cuts.h) against the timing equations worked by
// hand, and the cut times' parsing (power.cut_at_us).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "sc_main/power_cuts.h"
#include "sc_main/settings.h"

using ssd::scan_recovery_us;

TEST_CASE("recovery scan: the busiest die, or the shared bus, of the slowest channel", "[power]") {
  ssd::nand::NandConfig n;
  n.channels = 2;
  n.chips_per_channel = 2;
  n.dies_per_chip = 1;
  n.t_read_us = 75;
  n.bus_mts = 333;
  n.cmd_addr_cycles = 7;
  // A spare record's data-out: (7 + 64) bytes at 333 MT/s = 0.213213 us.
  const double xfer = 71.0 / 333.0;
  // Channel 0: dies of 10 and 4 pages; the die dominates: 10 x 75 + one data-out.
  // Channel 1: 3 pages on one die: 3 x 75 + xfer.
  CHECK(scan_recovery_us(n, {10, 4, 3, 0}) == Approx(750.0 + xfer));
  // Nothing to scan: no time.
  CHECK(scan_recovery_us(n, {0, 0, 0, 0}) == 0.0);
  // A slow bus dominates: at 1 MT/s a data-out takes 71 us; channel 1's two dies of 2
  // pages each: the dies 2 x 75 + 71 = 221 us, the bus 75 + 4 x 71 = 359 us.
  n.bus_mts = 1;
  CHECK(scan_recovery_us(n, {0, 0, 2, 2}) == Approx(359.0));
}

TEST_CASE("power.cut_at_us: times sorted, bad items named", "[power]") {
  CHECK(ssd::cut_times("") == std::vector<double>{});
  CHECK(ssd::cut_times("2500, 100.5,7") == std::vector<double>{7, 100.5, 2500});
  CHECK_THROWS_WITH(ssd::cut_times("10,,20"), "item 2 ('') is not a number");
  CHECK_THROWS_WITH(ssd::cut_times("10,1e300"), Catch::Contains("item 2 (1e+300) is not within (0, "));
  CHECK_THROWS_WITH(ssd::cut_times("0"), Catch::Contains("item 1 (0) is not within"));
}
