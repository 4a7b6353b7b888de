#include "nand/nand_device.h"

#include <algorithm>
#include <string>

#include "tlm/activations.h"
#include "tlm/sim_now.h"

namespace ssd::nand {

NandDevice::NandDevice(sc_core::sc_module_name name, const NandConfig& cfg, VcdWriter* vcd)
    : sc_module(name), cfg_(cfg), activity_(cfg.chips()) {
  for (unsigned c = 0; c < cfg.channels; ++c) {
    const std::string n = "ch" + std::to_string(c);
    channels_.push_back(std::make_unique<NandChannel>(n.c_str(), cfg, c, static_cast<ChannelWaker&>(*this), &activity_, vcd));
  }
  due_.assign(cfg.channels, kNever);
  SC_HAS_PROCESS(NandDevice);
  SC_METHOD(run);
  sensitive << now_ << at_;
  dont_initialize();
}

void NandDevice::request(unsigned channel, Tick t) {
  const Tick before = due_[channel];
  due_[channel] = t;
  if (running_) {  // run() recomputes the earliest and arms once at its end
    if (channel != current_) rescan_ = true;
    return;
  }
  if (t <= earliest_) {
    earliest_ = t;
  } else if (before == earliest_) {  // the earliest may have moved later
    earliest_ = *std::min_element(due_.begin(), due_.end());
  }
  arm(sim_now());
}

void NandDevice::arm(Tick now) {
  if (earliest_ <= now) {
    now_.notify(sc_core::SC_ZERO_TIME);  // a no-op while one is pending
    return;
  }
  const Tick armed = armed_ > now ? armed_ : kNever;
  if (earliest_ == armed) return;
  if (armed != kNever) at_.cancel();
  armed_ = earliest_;
  if (earliest_ != kNever) at_.notify(sc_core::sc_time::from_value(earliest_ - now));
}

void NandDevice::run() {
  count_activation(kActNand);
  const Tick now = sim_now();
  running_ = true;
  rescan_ = false;
  Tick earliest = kNever;
  for (unsigned c = 0; c < due_.size(); ++c) {
    if (due_[c] <= now) {
      due_[c] = kNever;
      current_ = c;
      channels_[c]->run(now);  // asks for its next run
    }
    earliest = std::min(earliest, due_[c]);
  }
  // A channel's run asks only for its own next run; should another channel's request
  // come in meanwhile, the minimum is taken again.
  earliest_ = rescan_ ? *std::min_element(due_.begin(), due_.end()) : earliest;
  running_ = false;
  arm(now);
}

ChannelCounters NandDevice::totals() const {
  ChannelCounters t;
  for (const auto& ch : channels_) {
    const ChannelCounters& c = ch->status().counters();
    t.reads += c.reads;
    t.programs += c.programs;
    t.erases += c.erases;
    t.read_pages += c.read_pages;
    t.programmed_pages += c.programmed_pages;
    t.erased_blocks += c.erased_blocks;
    t.protocol_errors += c.protocol_errors;
    t.bus_busy += c.bus_busy;
  }
  return t;
}

}  // namespace ssd::nand
