// The cut times' parsing (power.cut_at_us). The recovery's time is the NAND's
// (tests/nand/read_burst_test.cpp).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "sc_main/power_cuts.h"
#include "sc_main/settings.h"

TEST_CASE("power.cut_at_us: times sorted, bad items named", "[power]") {
  CHECK(ssd::cut_times("") == std::vector<double>{});
  CHECK(ssd::cut_times("2500, 100.5,7") == std::vector<double>{7, 100.5, 2500});
  CHECK_THROWS_WITH(ssd::cut_times("10,,20"), "item 2 ('') is not a number");
  CHECK_THROWS_WITH(ssd::cut_times("10,1e300"), Catch::Contains("item 2 (1e+300) is not within (0, "));
  CHECK_THROWS_WITH(ssd::cut_times("0"), Catch::Contains("item 1 (0) is not within"));
}
