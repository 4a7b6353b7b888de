// Time-integrated chip activity across the whole device (plain C++).
//
// A chip is busy from the first bus cycle of a command on any of its dies until
// that command completes; it stays busy while any command of it is in flight.
// From the busy/idle transitions this keeps, in O(1) per transition:
//  - chip utilization = time average of the number of chips busy at once
//    (PIQ paper, Table I "utilized chips");
//  - per chip, its busy time (busy ratio) and its idle time while at least one
//    other chip is busy (SOS paper, Fig. 7): that is any_busy_time - busy_time,
//    because whenever some chip is busy and this one is idle, the busy one is another.
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/flash_command.h"

namespace ssd::nand {

class ChipActivity {
 public:
  explicit ChipActivity(std::size_t chips) : chips_(chips) {}

  void set_busy(std::size_t chip, Tick now) {
    Chip& c = chips_[chip];
    if (c.busy) return;
    integrate(now);
    c.busy = true;
    c.since = now;
    ++busy_count_;
  }
  void set_idle(std::size_t chip, Tick now) {
    Chip& c = chips_[chip];
    if (!c.busy) return;
    integrate(now);
    c.busy = false;
    c.busy_ticks += now - c.since;
    --busy_count_;
  }

  // All figures up to time `now` (chips busy now are counted up to now).
  double utilization(Tick now) const {
    if (now == 0) return 0.0;
    return static_cast<double>(busy_chip_ticks_ + busy_count_ * (now - last_)) /
           static_cast<double>(now);
  }
  Tick busy_ticks(std::size_t chip, Tick now) const {
    const Chip& c = chips_[chip];
    return c.busy_ticks + (c.busy ? now - c.since : 0);
  }
  Tick any_busy_ticks(Tick now) const { return any_busy_ticks_ + (busy_count_ ? now - last_ : 0); }
  Tick idle_while_others_busy_ticks(std::size_t chip, Tick now) const {
    return any_busy_ticks(now) - busy_ticks(chip, now);
  }
  std::size_t chips() const { return chips_.size(); }
  std::size_t busy_now() const { return busy_count_; }

 private:
  void integrate(Tick now) {
    busy_chip_ticks_ += busy_count_ * (now - last_);
    if (busy_count_) any_busy_ticks_ += now - last_;
    last_ = now;
  }
  struct Chip {
    bool busy = false;
    Tick since = 0;
    Tick busy_ticks = 0;
  };
  std::vector<Chip> chips_;
  std::uint64_t busy_count_ = 0;
  Tick last_ = 0;
  unsigned __int128 busy_chip_ticks_ = 0;  // integral of the busy count over time
  Tick any_busy_ticks_ = 0;
};

}  // namespace ssd::nand
