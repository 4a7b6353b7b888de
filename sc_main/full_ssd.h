// The whole controller as one module: host -> host interface (NCQ) -> firmware
// core (FTL) -> flash scheduler block -> NAND, built from a Config, with the device
// preconditioned before time 0.
#pragma once

#include <memory>

#include <systemc>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/host_iface.h"
#include "host/host_driver.h"
#include "nand/nand_device.h"
#include "sc_main/config.h"
#include "tlm/vcd_writer.h"

namespace ssd {

struct FullSsd : sc_core::sc_module {
  std::unique_ptr<nand::NandDevice> nand;
  std::unique_ptr<ctrl::FirmwareCore> firmware;
  std::unique_ptr<ctrl::FlashSched> sched;
  std::unique_ptr<ctrl::HostIface> iface;
  std::unique_ptr<host::HostDriver> host;
  double precondition_seconds = 0;
  std::uint64_t preconditioned = 0;

  // Throws ConfigError for an invalid configuration.
  FullSsd(sc_core::sc_module_name name, const Config& cfg, VcdWriter* vcd = nullptr);
};

}  // namespace ssd
