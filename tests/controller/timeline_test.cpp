// The link and core reservations (controller/timeline.h).
#include <catch2/catch.hpp>

#include "controller/timeline.h"

using namespace ssd;

TEST_CASE("timeline: work is served one at a time in reservation order, busy time counted up to now", "[controller][timeline]") {
  ctrl::Timeline t;
  CHECK(t.reserve(100, 50) == 150);  // idle: starts at once
  CHECK(t.reserve(120, 30) == 180);  // waits for the first
  CHECK(t.reserve(120, 0) == 180);   // nothing to do: when the resource is next free
  CHECK(t.busy(130) == 30);          // 100-130 of the first; the rest is reserved past 130
  CHECK(t.busy(180) == 80);
  CHECK(t.reserve(500, 10) == 510);  // idle again from 180
  CHECK(t.busy(1000) == 90);
}
