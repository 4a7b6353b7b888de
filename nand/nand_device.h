// All channels of the NAND array, with the device-wide chip activity and the
// optional waveform trace. One flash target socket per channel.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "nand/chip_activity.h"
#include "nand/nand_channel.h"

namespace ssd::nand {

class NandDevice : public sc_core::sc_module {
 public:
  NandDevice(sc_core::sc_module_name name, const NandConfig& cfg, VcdWriter* vcd = nullptr);

  NandChannel& channel(unsigned i) { return *channels_[i]; }
  const NandChannel& channel(unsigned i) const { return *channels_[i]; }
  ChannelEngine& engine(unsigned i) { return channels_[i]->engine(); }
  unsigned channels() const { return static_cast<unsigned>(channels_.size()); }
  const ChipActivity& activity() const { return activity_; }
  const NandConfig& config() const { return cfg_; }
  // Sum of the channels' counters.
  ChannelCounters totals() const;

 private:
  NandConfig cfg_;
  ChipActivity activity_;
  std::vector<std::unique_ptr<NandChannel>> channels_;
};

}  // namespace ssd::nand
