#include "nand/nand_device.h"

#include <algorithm>
#include <string>

#include "common/activations.h"
#include "tlm/sim_now.h"

namespace ssd::nand {

NandDevice::NandDevice(sc_core::sc_module_name name, const NandConfig& cfg, VcdWriter* vcd)
    : sc_module(name), cfg_(cfg), activity_(cfg.chips()) {
  if (cfg.fault.on())
    faults_ = std::make_unique<FaultModel>(cfg.fault, cfg.channels, cfg.chips_per_channel, cfg.dies_per_chip,
                                           cfg.planes_per_die, cfg.blocks_per_plane, cfg.pages_per_block);
  for (unsigned c = 0; c < cfg.channels; ++c) {
    const std::string n = "ch" + std::to_string(c);
    channels_.push_back(std::make_unique<NandChannel>(n.c_str(), cfg, c, static_cast<ChannelWaker&>(*this), &activity_,
                                                      vcd, faults_.get()));
  }
  due_.assign(cfg.channels, kNever);
  due_now_.assign((cfg.channels + 63) / 64, 0);
  SC_HAS_PROCESS(NandDevice);
  SC_METHOD(run);
  sensitive << now_ << at_;
  dont_initialize();
}

void NandDevice::request(unsigned channel, Tick t) {
  const Tick before = due_[channel];
  due_[channel] = t;
  if (running_) {  // run() takes the earliest again and arms once at its end
    // A later channel due now runs in this activation, as when its turn comes.
    if (channel > current_ && t <= sim_now()) due_now_[channel / 64] |= std::uint64_t{1} << (channel % 64);
    return;
  }
  if (t <= earliest_) {
    earliest_ = t;
  } else if (before == earliest_) {  // the earliest may have moved later
    earliest_ = earliest_due();
  }
  arm(sim_now());
}

// The minimum of due_, without a branch per channel (which min_element's compiles to,
// and mispredicts: the channels' times are in no order).
Tick NandDevice::earliest_due() const {
  Tick m = kNever;
  for (const Tick t : due_) m = t < m ? t : m;
  return m;
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
  if (earliest_ != kNever) at_.notify(sc_delay(earliest_ - now));
}

void NandDevice::run() {
  count_activation(kActNand);
  const Tick now = sim_now();
  running_ = true;
  const unsigned n = static_cast<unsigned>(due_.size());
  for (unsigned w = 0; w < due_now_.size(); ++w) {
    std::uint64_t bits = 0;
    for (unsigned c = w * 64, end = std::min(n, c + 64); c < end; ++c)
      bits |= std::uint64_t{due_[c] <= now} << (c % 64);
    due_now_[w] = bits;
  }
  // In channel order; a channel's run may make a later one due now (request() adds its
  // bit) or move a due one later (checked again here).
  for (unsigned w = 0; w < due_now_.size(); ++w) {
    while (const std::uint64_t bits = due_now_[w]) {
      due_now_[w] = bits & (bits - 1);
      const unsigned c = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
      if (due_[c] > now) continue;
      due_[c] = kNever;
      current_ = c;
      channels_[c]->run(now);  // asks for its next run
    }
  }
  earliest_ = earliest_due();
  running_ = false;
  arm(now);
  if (run_listener_) run_listener_->after_run(now);
}

void NandDevice::power_cut() {
  const Tick now = sc_core::sc_time_stamp().value();
  for (auto& ch : channels_) ch->power_cut(now);
  for (auto& ch : channels_) ch->after_cut(now);
}

std::uint64_t NandDevice::torn_pages() const {
  std::uint64_t n = 0;
  for (const auto& ch : channels_) n += ch->status().torn_pages();
  return n;
}

ChannelCounters NandDevice::totals() const {
  ChannelCounters t;
  for (const auto& ch : channels_) {
    const ChannelCounters& c = ch->status().counters();
    t.reads += c.reads;
    t.programs += c.programs;
    t.erases += c.erases;
    for (unsigned op = 0; op < 3; ++op) {
      for (unsigned n = 0; n < kMaxPlanes; ++n) t.pages_by_planes[op][n] += c.pages_by_planes[op][n];
      t.gc_pages[op] += c.gc_pages[op];
      t.gc_multiplane_pages[op] += c.gc_multiplane_pages[op];
    }
    t.protocol_errors += c.protocol_errors;
    t.failed_programs += c.failed_programs;
    t.failed_erases += c.failed_erases;
    t.retry_reads += c.retry_reads;
    t.soft_reads += c.soft_reads;
    t.bus_busy += c.bus_busy;
    for (unsigned k = 0; k < 2; ++k) t.suspends[k] += c.suspends[k];
    t.suspends_void += c.suspends_void;
    t.suspend_ignored += c.suspend_ignored;
    t.resumes += c.resumes;
    t.suspended_ticks += c.suspended_ticks;
    t.max_suspended_ticks = std::max(t.max_suspended_ticks, c.max_suspended_ticks);
  }
  return t;
}

}  // namespace ssd::nand
