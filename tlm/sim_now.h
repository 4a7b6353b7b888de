// The current simulated time in ticks (picoseconds), inline. sc_time_stamp() is a
// call into the SystemC library; the model's hot paths ask for the time about twenty
// times per host request, and this reads the same field of the simulation context.
#pragma once

#include <systemc>

#include "tlm/flash_command.h"

namespace ssd {

inline Tick sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp().value(); }

}  // namespace ssd
