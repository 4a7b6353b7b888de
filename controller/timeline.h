// A resource that serves one piece of work at a time, in the order the work is reserved:
// the host link, the firmware core. A reservation is a time range on its timeline, not an
// event per unit of work. Plain C++.
#pragma once

#include <algorithm>

#include "tlm/flash_command.h"  // Tick

namespace ssd::ctrl {

class Timeline {
 public:
  // Work of `duration` reserved at `now`: it starts when the resource is free (now, or
  // when the work reserved before it ends) and the end is returned. 0 = the time the
  // resource is next free.
  Tick reserve(Tick now, Tick duration) {
    free_ = std::max(now, free_) + duration;
    busy_ += duration;
    return free_;
  }
  // Busy time up to `now` (work reserved past it not counted).
  Tick busy(Tick now) const { return busy_ - (free_ > now ? free_ - now : 0); }

 private:
  Tick free_ = 0, busy_ = 0;
};

}  // namespace ssd::ctrl
