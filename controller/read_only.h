// Read-only (docs/controller.md, "Read-only"), plain C++: when a block of a plane fails
// (retiring, or retired) and the plane no longer keeps its spare (Ftl::keeps_spare), the
// whole device goes read-only, as drives do when their spare is spent: from then on host
// writes and trims are refused (HostStatus::WriteProtected), reads served. A warning
// names the plane and its counts. The same when failures spend the map log's blocks.
#pragma once

#include <string>

#include "controller/firmware_ports.h"
#include "controller/ftl.h"

namespace ssd::ctrl {

class ReadOnly {
 public:
  ReadOnly(const Ftl& ftl, const Clock& clock, Reports& reports) : ftl_(ftl), clock_(clock), reports_(reports) {}
  bool on() const { return at_ != kNever; }
  Tick at() const { return at_; }  // kNever: not read-only
  const std::string& reason() const { return reason_; }

  // The map log (controller/map_log.h) was spent by failures: the mapping can no longer be
  // persisted.
  void log_spent(const std::string& why) {
    if (on()) return;
    at_ = clock_.now();
    reason_ = why;
    reports_.warning("the device is read-only from " + std::to_string(ticks_to_us(at_)) + " us: " + reason_ +
                     "; host writes and trims are refused from now on");
  }
  // A block of `plane` failed.
  void block_failed(std::uint32_t plane) {
    if (on() || ftl_.keeps_spare(plane)) return;
    at_ = clock_.now();
    const nand::NandConfig& n = ftl_.config().nand;
    const PhysAddr a = ftl_.decode(static_cast<std::uint32_t>(std::uint64_t{plane} * n.blocks_per_plane * n.pages_per_block));
    reason_ = "plane ch" + std::to_string(a.channel) + ".chip" + std::to_string(a.chip) + ".die" +
              std::to_string(a.die) + ".plane" + std::to_string(a.plane) + " keeps " +
              std::to_string(ftl_.usable_blocks(plane)) + " usable blocks of " + std::to_string(n.blocks_per_plane) +
              ", needs " + std::to_string(ftl_.blocks_needed()) +
              " (its share of the logical space, the GC low mark and an open block)";
    reports_.warning("the device is read-only from " + std::to_string(ticks_to_us(at_)) + " us: " + reason_ +
                     "; host writes and trims are refused from now on");
  }

 private:
  const Ftl& ftl_;
  const Clock& clock_;
  Reports& reports_;
  Tick at_ = kNever;
  std::string reason_;
};

}  // namespace ssd::ctrl
