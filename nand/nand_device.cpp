#include "nand/nand_device.h"

#include <string>

namespace ssd::nand {

NandDevice::NandDevice(sc_core::sc_module_name name, const NandConfig& cfg, VcdWriter* vcd)
    : sc_module(name), cfg_(cfg), activity_(cfg.chips()) {
  for (unsigned c = 0; c < cfg.channels; ++c) {
    const std::string n = "ch" + std::to_string(c);
    channels_.push_back(std::make_unique<NandChannel>(n.c_str(), cfg, c, &activity_, vcd));
  }
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
