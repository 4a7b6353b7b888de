// What the rest of the model reads of the controller's host interface, whichever it is:
// SATA NCQ (host_iface.h) or NVMe (nvme_front_end.h). "Tags" are the commands the device
// holds (an NCQ tag each, or an NVMe command slot each: fetched and not yet completed).
#pragma once

#include <cstdint>
#include <string>

#include "common/vcd_writer.h"
#include "tlm/request_life.h"
#include "tlm/sim_now.h"

namespace ssd::ctrl {

class HostFront {
 public:
  virtual ~HostFront() = default;
  virtual unsigned tags_in_use() const = 0;
  virtual unsigned max_tags_in_use() const = 0;
  virtual unsigned depth() const = 0;  // tags the device has
  // Tags in use integrated over time up to `at`, tag-picoseconds.
  virtual double tag_ticks(Tick at) const = 0;
  // Commands held back because every tag was in use.
  virtual std::uint64_t backpressure_events() const = 0;
  // Busy time of the host link up to `now` (its busier direction).
  virtual Tick link_busy(Tick now) const = 0;
  virtual void trace(VcdWriter& vcd, const std::string& scope) = 0;
  virtual void set_life_listener(LifeListener* l) = 0;
};

// Tags in use over time: their count and its integral (HostFront::tag_ticks).
class TagCount {
 public:
  unsigned in_use() const { return in_use_; }
  unsigned max() const { return max_; }
  // An `at` before the last change counts as that change's time (a window that starts at
  // a past arrival loses at most the tags held since it, a request's wait). A double:
  // tags x ps overflow 64 bits within simulated minutes at the largest depths.
  double ticks(Tick at) const {
    return ticks_ + static_cast<double>(in_use_) * static_cast<double>(at > since_ ? at - since_ : 0);
  }
  void change(int by) {
    const Tick now = sim_now();
    ticks_ += static_cast<double>(in_use_) * static_cast<double>(now - since_);
    since_ = now;
    in_use_ = static_cast<unsigned>(static_cast<int>(in_use_) + by);
    if (in_use_ > max_) max_ = in_use_;
  }

 private:
  unsigned in_use_ = 0, max_ = 0;
  double ticks_ = 0;
  Tick since_ = 0;
};

}  // namespace ssd::ctrl
