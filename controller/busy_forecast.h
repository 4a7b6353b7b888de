// The firmware's forecast of when the flash work it has issued will end, per channel,
// chip and die: what a dynamic write allocation weighs (AllocationView). The firmware
// sees no NAND state; it knows what it has issued and not yet seen complete, and the
// NAND's nominal timing. Each command issued adds its nominal time after the later of
// now and the forecast end of what it occupies:
//   its die:     bus time + array time (a read's tR then its data out, a program's data
//                in then tPROG, an erase's command then tBERS);
//   its channel: bus time (command and address cycles, and the page's bytes per plane).
// A die (a channel) with nothing outstanding any more is idle from the completion that
// emptied it: the forecast is corrected there, not at each completion. It ignores how
// the scheduler block interleaves the dies on the bus and the cache registers: an
// estimate, as a firmware's would be. Plain C++.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nand/nand_config.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

class BusyForecast {
 public:
  explicit BusyForecast(const nand::NandConfig& n)
      : n_(n),
        t_read_(us_to_ticks(n.t_read_us)),
        t_prog_(us_to_ticks(n.t_prog_us)),
        t_erase_(us_to_ticks(n.t_erase_us)),
        page_bus_(n.bus_ticks(n.page_bytes)),
        cmd_bus_(n.bus_ticks(n.cmd_addr_cycles)),
        erase_bus_(n.bus_ticks(n.erase_cmd_cycles)),
        die_(n.chips() * n.dies_per_chip),
        channel_(n.channels) {}

  // Command `c` was issued at `now` (its address inside the geometry).
  void issued(const FlashCommand& c, Tick now) {
    const unsigned planes = plane_count(c.plane_mask);
    Tick bus = 0, array = 0;
    switch (c.op) {
      case FlashOp::Read: bus = cmd_bus_ + planes * page_bus_; array = t_read_; break;
      case FlashOp::Program: bus = cmd_bus_ + planes * page_bus_; array = t_prog_; break;
      case FlashOp::Erase: bus = erase_bus_ * planes; array = t_erase_; break;
    }
    Resource& d = die_[die_index(c)];
    d.end = std::max(d.end, now) + bus + array;
    ++d.outstanding;
    Resource& ch = channel_[c.channel];
    ch.end = std::max(ch.end, now) + bus;
    ++ch.outstanding;
  }
  // Command `c`, issued before, completed at `now`.
  void completed(const FlashCommand& c, Tick now) {
    Resource& d = die_[die_index(c)];
    if (--d.outstanding == 0) d.end = now;
    Resource& ch = channel_[c.channel];
    if (--ch.outstanding == 0) ch.end = now;
  }

  // When the work issued to each part is forecast to end (a time already past: idle,
  // nothing outstanding), and how many of its commands are outstanding.
  Tick die_end(std::uint32_t chip, std::uint32_t die) const { return die_[chip * n_.dies_per_chip + die].end; }
  Tick chip_end(std::uint32_t chip) const {
    Tick e = 0;
    for (std::uint32_t d = 0; d < n_.dies_per_chip; ++d) e = std::max(e, die_end(chip, d));
    return e;
  }
  Tick channel_end(std::uint32_t channel) const { return channel_[channel].end; }
  std::uint32_t die_outstanding(std::uint32_t chip, std::uint32_t die) const {
    return die_[chip * n_.dies_per_chip + die].outstanding;
  }
  std::uint32_t channel_outstanding(std::uint32_t channel) const { return channel_[channel].outstanding; }

 private:
  struct Resource {
    Tick end = 0;
    std::uint32_t outstanding = 0;
  };
  static unsigned plane_count(std::uint8_t mask) {
    unsigned n = 0;
    for (; mask; mask &= static_cast<std::uint8_t>(mask - 1)) ++n;
    return n;
  }
  std::size_t die_index(const FlashCommand& c) const {
    return (std::size_t{c.channel} * n_.chips_per_channel + c.chip) * n_.dies_per_chip + c.die;
  }

  nand::NandConfig n_;
  Tick t_read_, t_prog_, t_erase_, page_bus_, cmd_bus_, erase_bus_;
  std::vector<Resource> die_;      // by (channel * chips_per_channel + chip) * dies + die
  std::vector<Resource> channel_;
};

}  // namespace ssd::ctrl
