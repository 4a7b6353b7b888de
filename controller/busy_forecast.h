// The firmware's forecast of when the flash work it has issued will end, per channel,
// chip and die: what a dynamic write allocation weighs (AllocationView). The firmware
// sees no NAND state; it knows what it has issued and not yet seen complete, and the
// NAND's nominal timing. The channel is a queue of bus work (Chen et al.: a channel moves
// one command's bytes at a time, Eq. 1): each command issued takes the channel's next
// bus time after the bus work before it, and starts at the later of that and its die's
// forecast end; it adds its nominal time:
//   its die:     bus time + array time (a read's tR then its data out, a program's data
//                in then tPROG, an erase's command then tBERS);
//   its channel: bus time (per plane: command and address cycles, and the page's bytes),
//                packed after the channel's earlier bus work (a wait of its die's does
//                not hold the bus: another die's work fills it).
// A die (a channel) with nothing outstanding any more is idle from the completion that
// emptied it: the forecast is corrected there, not at each completion. It ignores how
// the scheduler block interleaves the dies on the bus and the cache registers: an
// estimate, as a firmware's would be. With cells of n > 1 bits a page's program costs
// its die 1/n of its wordline's tPROG (each of the wordline's pages is issued, the
// filler's too), a read the tR of its page type, and a command in SLC mode SLC mode's
// times. Plain C++.
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
      : bits_(n.bits_per_cell),
        dies_per_chip_(n.dies_per_chip),
        chips_per_channel_(n.chips_per_channel),
        die_(n.chips() * n.dies_per_chip),
        channel_(n.channels) {
    const Tick page = n.bus_ticks(n.page_bytes), cmd = n.bus_ticks(n.cmd_addr_cycles);
    cost_[static_cast<unsigned>(FlashOp::Read)] = {cmd, page, us_to_ticks(n.t_read_us)};
    cost_[static_cast<unsigned>(FlashOp::Program)] = {cmd, page, us_to_ticks(n.t_prog_us)};
    cost_[static_cast<unsigned>(FlashOp::Erase)] = {n.bus_ticks(n.erase_cmd_cycles), 0, us_to_ticks(n.t_erase_us)};
    if (bits_ > 1) {
      cost_[static_cast<unsigned>(FlashOp::Program)].array = us_to_ticks(n.t_prog_us / bits_);
      for (const double t : n.read_times_us()) read_type_.push_back(us_to_ticks(t));
      prog_slc_ = us_to_ticks(n.t_prog_slc_us);
      read_slc_ = us_to_ticks(n.t_read_slc_us);
    }
  }

  // Command `c` was issued at `now` (its address inside the geometry), for a request that
  // arrived at the controller at `arrived` (no later than now). Returns its predicted
  // delay, from its arrival to the forecast start of its work (Chen et al. Eq. 9: delay =
  // predicted end - arrival - its own time), which the caller keeps with the command and
  // gives back at its completion.
  Tick issued(const FlashCommand& c, Tick now, Tick arrived) {
    const Cost& k = cost_[static_cast<unsigned>(c.op)];
    const unsigned planes = plane_count(c.plane_mask);
    const Tick bus = planes * (k.cmd + k.page);  // an erase moves no page (page 0)
    Resource& d = die_[die_index(c)];
    Resource& ch = channel_[c.channel];
    const Tick bus_at = std::max(ch.end, now);
    const Tick start = std::max(d.end, bus_at);
    d.end = start + bus + array_time(c);
    ++d.outstanding;
    ch.end = bus_at + bus;
    ++ch.outstanding;
    const Tick delay = start - std::min(arrived, now);
    ch.waits += delay;
    return delay;
  }
  Tick issued(const FlashCommand& c, Tick now) { return issued(c, now, now); }
  // Command `c`, issued before with predicted wait `predicted`, completed at `now`.
  void completed(const FlashCommand& c, Tick now, Tick predicted = 0) {
    Resource& d = die_[die_index(c)];
    if (--d.outstanding == 0) d.end = now;
    Resource& ch = channel_[c.channel];
    if (--ch.outstanding == 0) ch.end = now;
    ch.waits -= predicted;
  }
  // Commands issued to a die as parts of one n-plane command (`planes` of them, after
  // being issued one by one): their array time is paid once, not `planes` times.
  void combined(const FlashCommand& whole, unsigned planes) {
    if (planes < 2) return;
    Resource& d = die_[die_index(whole)];
    const Tick saved = (planes - 1) * array_time(whole);
    d.end = d.end > saved ? d.end - saved : 0;
  }

  // When the work issued to each part is forecast to end (a time already past: idle,
  // nothing outstanding), and how many of its commands are outstanding.
  Tick die_end(std::uint32_t chip, std::uint32_t die) const { return die_[chip * dies_per_chip_ + die].end; }
  Tick chip_end(std::uint32_t chip) const {
    Tick e = 0;
    for (std::uint32_t d = 0; d < dies_per_chip_; ++d) e = std::max(e, die_end(chip, d));
    return e;
  }
  Tick channel_end(std::uint32_t channel) const { return channel_[channel].end; }
  std::uint32_t die_outstanding(std::uint32_t chip, std::uint32_t die) const {
    return die_[chip * dies_per_chip_ + die].outstanding;
  }
  std::uint32_t channel_outstanding(std::uint32_t channel) const { return channel_[channel].outstanding; }
  // Chen et al.'s queueTotalDelay (Eq. 8): the predicted delays (Eq. 9, from arrival) of
  // the commands outstanding on the channel, summed.
  Tick channel_delay(std::uint32_t channel) const { return channel_[channel].waits; }

 private:
  struct Resource {
    Tick end = 0;
    std::uint32_t outstanding = 0;
    Tick waits = 0;  // a channel: the predicted delays of its outstanding commands
  };
  struct Cost {
    Tick cmd = 0, page = 0, array = 0;  // command and address cycles, a plane's data, array time
  };
  static unsigned plane_count(std::uint8_t mask) {
    if (!(mask & (mask - 1))) return 1;  // the firmware's commands: one plane
    unsigned n = 0;
    for (; mask; mask &= static_cast<std::uint8_t>(mask - 1)) ++n;
    return n;
  }
  std::size_t die_index(const FlashCommand& c) const {
    return (std::size_t{c.channel} * chips_per_channel_ + c.chip) * dies_per_chip_ + c.die;
  }

  // The array time of command `c` on its die (with n > 1 bits: see the header).
  Tick array_time(const FlashCommand& c) const {
    if (bits_ == 1) return cost_[static_cast<unsigned>(c.op)].array;
    switch (c.op) {
      case FlashOp::Read: return c.slc ? read_slc_ : read_type_[c.page % bits_];
      case FlashOp::Program: return c.slc ? prog_slc_ : cost_[static_cast<unsigned>(FlashOp::Program)].array;
      default: return cost_[static_cast<unsigned>(c.op)].array;
    }
  }

  std::uint32_t bits_, dies_per_chip_, chips_per_channel_;
  Cost cost_[3];  // by FlashOp (a program with n > 1 bits: its page's share of the wordline's tPROG)
  std::vector<Tick> read_type_;      // n > 1: tR by page type
  Tick prog_slc_ = 0, read_slc_ = 0;  // n > 1: SLC mode's tPROG and tR
  std::vector<Resource> die_;      // by (channel * chips_per_channel + chip) * dies + die
  std::vector<Resource> channel_;
};

}  // namespace ssd::ctrl
