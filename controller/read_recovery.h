// Read recovery, plain C++ (docs/controller.md, "Faults and recovery"): the controller's
// ECC decode of every read (controller/ecc.h), the reads at further levels it takes, and
// the logical pages known lost.
//  - With ECC on (a NAND that reports bit errors), every read the firmware builds ends
//    here first (HoldingStage::route_reads): its decode takes decode_ticks after its data
//    is out (decodes()); then its verdict: decoded at its level (counted by tier and
//    levels; a read at a further level ends ReadRetried), read again at the next level
//    (a command of its own, built on the core, through the stage; the first read's ends
//    here), or Uncorrectable. A decoded or uncorrectable read goes on to its issuer
//    (FwCommand::then), which says what it does with the outcome.
//  - Poison: a logical page whose data an uncorrectable read showed lost (its own read,
//    or that of the page it was merged with or copied from) reads as a media error
//    without flash until a write of all of it, or a trim.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "controller/core.h"
#include "controller/ecc.h"
#include "controller/firmware_counters.h"
#include "controller/fw_command.h"

namespace ssd::ctrl {

class HoldingStage;

class ReadRecovery final : public CommandIssuer {
 public:
  ReadRecovery(const EccConfig& ecc, HoldingStage& stage, Core& core, std::uint64_t cycles_per_page,
               FaultCounters& faults);
  bool on() const { return ecc_.on(); }
  const EccDecoder& decoder() const { return ecc_; }

  // Whether read `c`'s data goes through the decoder before its end is handled: then its
  // decode time is charged (FwCommand::ecc_ticks, after its data is out) and the module
  // hands its end on once that time has passed. Once per command.
  bool decodes(FwCommand& c) {
    if (!ecc_.on() || c.cmd->op != FlashOp::Read || c.decoded) return false;
    c.decoded = true;
    c.ecc_ticks = ecc_.decode_ticks(c.cmd->read_level);
    return true;
  }
  void ended(FwCommand& c) override;

  void poison(std::uint64_t lpn) {
    if (lpn == kNoLpn || !poisoned_.insert(lpn).second) return;
    ++faults_.lost_pages;
  }
  void unpoison(std::uint64_t lpn) {
    if (!poisoned_.empty() && poisoned_.erase(lpn)) --faults_.lost_pages;
  }
  bool poisoned(std::uint64_t lpn) const { return !poisoned_.empty() && poisoned_.count(lpn) != 0; }

 private:
  void retry(const FwCommand& f);  // the page read again at the next level

  EccDecoder ecc_;
  HoldingStage& stage_;
  Core& core_;
  std::uint64_t cycles_per_page_;
  FaultCounters& faults_;
  std::unordered_set<std::uint64_t> poisoned_;
};

}  // namespace ssd::ctrl
