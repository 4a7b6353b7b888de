// The statistics' window figures and their range checks (sc_main/stats_window.h).
#include <catch2/catch.hpp>

#include "sc_main/stats_window.h"

using namespace ssd;

TEST_CASE("stats window: a figure outside its range is refused by name", "[stats]") {
  WindowFigures w;
  w.end = 1000;
  w.chips = 2;
  w.chip_utilization = 1.5;
  w.chip_busy = {0.5, 1.0};
  w.chip_idle_while_others_busy = {0.5, 0.0};
  w.bus_utilization = {0.25};
  w.core_utilization = 0.1;
  CHECK_NOTHROW(check_window(w));
  w.chip_utilization = 2.5;  // more chips busy than there are
  CHECK_THROWS_WITH(check_window(w), Catch::Contains("nand.chip_utilization = 2.5 is outside [0, 2]"));
  w.chip_utilization = 1.5;
  w.chip_busy[1] = 1.96;
  CHECK_THROWS_WITH(check_window(w), Catch::Contains("nand.chip_busy_ratio[1] = 1.96"));
  w.chip_busy[1] = 1.0;
  w.link_utilization = -0.1;
  CHECK_THROWS_WITH(check_window(w), Catch::Contains("controller.link_utilization"));
}
