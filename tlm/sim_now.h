// The current simulated time in ticks (picoseconds), inline. sc_time_stamp() is a
// call into the SystemC library; the model's hot paths ask for the time about twenty
// times per host request, and this reads the same field of the simulation context.
// And the other way, a delay in ticks as an sc_time, inline (sc_delay).
#pragma once

#include <systemc>

#include "tlm/flash_command.h"

namespace ssd {

inline Tick sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp().value(); }

// sc_time::from_value(ticks) without its library call (some 25 instructions, made for
// about nine notifications per host request): sc_time's inline multiplication by a
// double (plus 0.5, truncated) is exact below 2^52 ticks (75 minutes at 1 ps); a longer
// delay takes the call.
inline sc_core::sc_time sc_delay(Tick ticks) {
  static const sc_core::sc_time one_tick = sc_core::sc_time::from_value(1);
  if (ticks >= (Tick{1} << 52)) return sc_core::sc_time::from_value(ticks);
  return one_tick * static_cast<double>(ticks);
}

}  // namespace ssd
