// WaitMeter (nand/wait_meter.h) by hand on one chip of two dies: a die takes its own
// oldest command's kind, else its chip's oldest, else it is idle and counts the bus time;
// a newer command or the release of one that is not its die's oldest changes nothing; the
// release of a die's oldest moves both dies to what is oldest then; a read before a die's
// last change is refused.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "nand/wait_meter.h"

using namespace ssd;
using namespace ssd::nand;

namespace {
constexpr unsigned kHostRead = 0, kHostWrite = 1, kErase = 4, kBus = kWaitKinds - 1;
}  // namespace

TEST_CASE("wait meter: own work first, then the chip's oldest, then the bus while idle", "[nand][wait_meter]") {
  WaitMeter m(1, 2);
  Tick bus_now = 0;  // the channel's bus busy time, as the engine would give it
  const auto bus = [&bus_now] { return bus_now; };
  bus_now = 3;                              // by t = 10 the bus was busy 3 ticks (another chip)
  m.occupy(0, 0, 1, kErase, 10, bus);       // die 0 erases; die 1, idle, follows its chip
  WaitMeter::Ticks snap = m.at(0, 1, 15, bus_now);
  m.occupy(0, 1, 2, kHostRead, 20, bus);    // die 1 reads for itself
  m.occupy(0, 0, 3, kHostWrite, 30, bus);   // newer than die 0's erase: no change
  m.release(0, 0, 3, 40, bus);              // not die 0's oldest: no change
  m.growth(0, 1, 45, bus_now, snap);        // die 1 from 15 to 45: 5 of erase, 25 of read
  CHECK(snap[kErase] == 5);
  CHECK(snap[kHostRead] == 25);
  CHECK(snap[kHostWrite] == 0);
  CHECK(snap[kBus] == 0);
  m.release(0, 0, 1, 50, bus);              // the erase ends: die 0 follows die 1's read
  m.release(0, 1, 2, 60, bus);              // the chip is idle from 60
  bus_now = 8;                              // 5 more ticks of another chip's bus by 80
  const WaitMeter::Ticks d0 = m.at(0, 0, 80, bus_now), d1 = m.at(0, 1, 80, bus_now);
  CHECK(d0[kErase] == 40);     // [10, 50]
  CHECK(d0[kHostRead] == 10);  // [50, 60]
  CHECK(d0[kHostWrite] == 0);
  CHECK(d0[kBus] == 3 + 5);    // idle [0, 10] and [60, 80]
  CHECK(d1[kErase] == 10);     // [10, 20]
  CHECK(d1[kHostRead] == 40);  // [20, 60]
  CHECK(d1[kBus] == 8);
  // A read before a die's last change (60) would give integrals too high: refused.
  CHECK_THROWS_AS(m.at(0, 0, 59, bus_now), std::logic_error);
}
