// The map log's port to the rest of the firmware, plain C++ (MapLog::Port): it builds the
// log's programs and erases (origin MapLog, the host's class at the scheduler block),
// charges the core firmware.cycles_per_gc_page for each, hands them to the holding stage,
// and is their issuer: their ends go back to the log (a failed program or erase retires
// the log block: controller/map_log.h). A log spent by failures makes the device
// read-only.
#pragma once

#include <cstdint>

#include "controller/core.h"
#include "controller/firmware_ports.h"
#include "controller/fw_command.h"
#include "controller/ftl.h"
#include "controller/map_log.h"
#include "controller/read_only.h"

namespace ssd::ctrl {

class HoldingStage;

class MapPort final : public MapLog::Port, public CommandIssuer {
 public:
  MapPort(Ftl& ftl, HoldingStage& stage, Core& core, ReadOnly& read_only, Reports& reports,
          std::uint64_t cycles_per_page)
      : ftl_(ftl), stage_(stage), core_(core), read_only_(read_only), reports_(reports), cycles_(cycles_per_page) {}
  void set_log(MapLog* log) { log_ = log; }

  void program(std::uint32_t plane, std::uint32_t k, std::uint32_t page) override;
  void erase(std::uint32_t plane, std::uint32_t k) override;
  void spent(const std::string& why) override { read_only_.log_spent(why); }
  void ended(FwCommand& f) override;

 private:
  Ftl& ftl_;
  HoldingStage& stage_;
  Core& core_;
  ReadOnly& read_only_;
  Reports& reports_;
  std::uint64_t cycles_;
  MapLog* log_ = nullptr;
};

}  // namespace ssd::ctrl
