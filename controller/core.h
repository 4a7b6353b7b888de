// The embedded core the firmware runs on (firmware.clock_mhz): one piece of work at a
// time, in the order it is reserved (a reservation on its timeline, controller/timeline.h:
// no event per cycle). Plain C++.
#pragma once

#include <cmath>
#include <cstdint>

#include "controller/firmware_ports.h"
#include "controller/firmware_trace.h"
#include "controller/timeline.h"

namespace ssd::ctrl {

class Core {
 public:
  Core(const Clock& clock, double clock_mhz, FirmwareTrace& trace)
      : clock_(clock), cycle_ps_(1e6 / clock_mhz), trace_(trace) {}
  Tick ticks(std::uint64_t cycles) const {
    return static_cast<Tick>(std::llround(static_cast<double>(cycles) * cycle_ps_));
  }
  // Reserves `cycles` from when the core is next free; returns when they end.
  Tick charge(std::uint64_t cycles) {
    const Tick now = clock_.now();
    const Tick done = timeline_.reserve(now, ticks(cycles));
    trace_.core_reserved(now, done);
    return done;
  }
  // Busy time up to `now` (work reserved past it not counted).
  Tick busy(Tick now) const { return timeline_.busy(now); }

 private:
  const Clock& clock_;
  double cycle_ps_;
  FirmwareTrace& trace_;
  Timeline timeline_;
};

}  // namespace ssd::ctrl
