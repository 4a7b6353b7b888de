// All channels of the NAND array, with the device-wide chip activity and the
// optional waveform trace. One flash target socket per channel.
//
// One SC_METHOD runs the channels: each channel names the time it next needs to run,
// and the device keeps one timed notification, at the earliest of them. At a time,
// the channels due run in channel order within one activation: ties between channels
// do not depend on the kernel's event order, and the kernel's timed queue holds one
// entry for the whole array instead of one per channel.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "nand/chip_activity.h"
#include "nand/nand_channel.h"

namespace ssd::nand {

class NandDevice : public sc_core::sc_module, private ChannelWaker {
 public:
  NandDevice(sc_core::sc_module_name name, const NandConfig& cfg, VcdWriter* vcd = nullptr);

  NandChannel& channel(unsigned i) { return *channels_[i]; }
  const NandChannel& channel(unsigned i) const { return *channels_[i]; }
  ChannelEngine& engine(unsigned i) { return channels_[i]->engine(); }
  unsigned channels() const { return static_cast<unsigned>(channels_.size()); }
  const ChipActivity& activity() const { return activity_; }
  const NandConfig& config() const { return cfg_; }
  // The fault model (null: a NAND that never fails: nand.fault.* all off).
  const FaultModel* faults() const { return faults_.get(); }
  // Sum of the channels' counters.
  ChannelCounters totals() const;
  // The power fails now: every channel's commands end unfinished (NandChannel::power_cut),
  // in channel order.
  void power_cut();
  std::uint64_t torn_pages() const;  // pages cut programs and erases left torn
  // Whether the device's process is running (its channels' callbacks come from it).
  bool running() const { return running_; }
  // Whether its process has yet to run at `now` (the current time): a channel is due then.
  bool due_at(Tick now) const { return !running_ && earliest_ <= now; }
  // Told at the end of each activation of the device's process, once the channels have
  // run and the next wake-up is armed (the scheduler block takes the decisions they
  // asked for there).
  class RunListener {
   public:
    virtual ~RunListener() = default;
    virtual void after_run(Tick now) = 0;
  };
  void set_run_listener(RunListener* l) { run_listener_ = l; }

 private:
  void request(unsigned channel, Tick t) override;
  void run();
  void arm(Tick now);  // the notification for the earliest due channel

  NandConfig cfg_;
  std::unique_ptr<FaultModel> faults_;
  ChipActivity activity_;
  std::vector<std::unique_ptr<NandChannel>> channels_;
  std::vector<Tick> due_;  // per channel: when it next needs to run (kNever: not)
  Tick earliest_ = kNever;  // min of due_ (kept exact)
  Tick earliest_due() const;
  sc_core::sc_event now_, at_;  // delta notifications; timed notifications
  Tick armed_ = kNever;  // time of at_'s pending notification (pending iff > now)
  bool running_ = false;
  RunListener* run_listener_ = nullptr;
  unsigned current_ = 0;  // the channel run() is running
  // While run() runs: a bit per channel still to run in this activation (found with no
  // branch per channel: which of 64 channels are due is data the branch predictor
  // cannot learn).
  std::vector<std::uint64_t> due_now_;
};

}  // namespace ssd::nand
