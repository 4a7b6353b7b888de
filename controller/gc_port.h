// GC's port to the rest of the firmware, plain C++ (GcUnit::Port): it builds the commands
// the GC unit asks for, charges the core firmware.cycles_per_gc_page for each, hands them
// to the holding stage, and is their issuer: their ends go back to the unit, with what a
// failure means (docs/controller.md, "Faults and recovery"):
//  - a copy's read uncorrectable: the copy goes on (the model knows what the cells held)
//    and the logical page is poisoned, so that no read returns it as good data;
//  - a copy's program failed: its block is retired and the copy programmed again to the
//    GC stream's next page;
//  - an erase failed: the victim is retired instead of joining the free pool, and GC goes
//    on with another victim if the plane still needs one (GcUnit::next_run).
#pragma once

#include <cstdint>

#include "controller/core.h"
#include "controller/firmware_counters.h"
#include "controller/firmware_ports.h"
#include "controller/fw_command.h"
#include "controller/ftl.h"
#include "controller/gc_unit.h"
#include "controller/read_only.h"
#include "controller/read_recovery.h"
#include "controller/write_frontier.h"

namespace ssd::ctrl {

class HoldingStage;

class GcPort final : public GcUnit::Port {
 public:
  GcPort(Ftl& ftl, GcUnit& gc, HoldingStage& stage, WriteFrontier& frontier, Core& core, ReadRecovery& recovery,
         ReadOnly& read_only, Reports& reports, FaultCounters& faults, std::uint64_t cycles_per_gc_page);

  bool at_last_reserve(std::uint32_t plane) const override { return frontier_.at_last_reserve(plane); }
  bool writes_waiting(std::uint32_t plane) const override { return frontier_.writes_waiting(plane); }
  std::uint32_t copies_unbound(std::uint32_t plane) const override;
  void no_space(std::uint32_t plane) override { frontier_.fail_stalled(plane); }
  void wordlines_due(std::uint32_t plane) override;
  std::uint32_t commands_outstanding(std::uint32_t chip) const override;
  void copy_read(std::uint32_t plane, std::uint32_t from) override;
  void copy_program(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                    Token token) override;
  void erase(std::uint32_t plane, std::uint32_t victim) override;
  void erases(const std::uint32_t* planes, const std::uint32_t* victims, unsigned n, std::uint32_t lead) override;
  void set_listener(FirmwareListener* l) { listener_ = l; }

 private:
  // The issuers of GC's three kinds of command.
  struct CopyReads final : CommandIssuer {
    explicit CopyReads(GcPort& p) : port(p) {}
    void ended(FwCommand& f) override;
    GcPort& port;
  };
  struct CopyPrograms final : CommandIssuer {
    explicit CopyPrograms(GcPort& p) : port(p) {}
    void ended(FwCommand& f) override;
    void latched(FwCommand& f) override { port.gc_.copy_latched(f.plane, f.copy_from); }
    GcPort& port;
  };
  struct Erases final : CommandIssuer {
    explicit Erases(GcPort& p) : port(p) {}
    void ended(FwCommand& f) override;
    GcPort& port;
  };

  Ftl& ftl_;
  GcUnit& gc_;
  HoldingStage& stage_;
  WriteFrontier& frontier_;
  Core& core_;
  ReadRecovery& recovery_;
  ReadOnly& read_only_;
  Reports& reports_;
  FaultCounters& faults_;
  std::uint64_t cycles_;
  FirmwareListener* listener_ = nullptr;
  CopyReads reads_{*this};
  CopyPrograms programs_{*this};
  Erases erases_{*this};
};

}  // namespace ssd::ctrl
