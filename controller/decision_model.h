// Another model of the scheduler block's decisions, behind the inputs the C++ block
// samples: the Verilog block (rtl/), verilated (controller.rtl). FlashSched keeps the
// time (decision edges, TLM) and hands it every command queued and, at each decision
// edge, the NAND's state; it answers with the commands it grants. With controller.rtl =
// on its grants are what the block issues; with check, the C++ block's are, and the two
// are compared at every decision edge. Plain C++.
//
// Times are the controller's: `now` is the time of the block's clock edge (a push's, or
// a decision edge's), for the model's waveforms; they do not decrease.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/vcd_writer.h"
#include "nand/channel_status.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

// Suspend and resume as the models decide them (controller.suspend: docs/scheduler.md):
// the operations a read may suspend (bit 0 erase, bit 1 program; 0 off), whether GC's reads
// may, and the whole us a suspension must save. In a decision's slot 0: a read granted by
// suspension is its id with kSlotSuspend; a RESUME is kSlotResume | chip << 8 | die.
struct SuspendForm {
  std::uint8_t mode = 0;
  bool gc_reads = false;
  std::uint32_t min_margin_us = 0;
  bool hold_programs = false;
};
constexpr std::uint64_t kSlotSuspend = std::uint64_t{1} << 62, kSlotResume = std::uint64_t{1} << 63;

class DecisionModel {
 public:
  virtual ~DecisionModel() = default;
  // `c` is queued at `now` (its id, address, operation, planes and class).
  virtual void push(const FlashCommand& c, Tick now) = 0;
  // Whether a decision now would grant a command on `channel`, whose state is `st`
  // (brought up to now).
  virtual bool would_grant(unsigned channel, const nand::ChannelStatus& st) = 0;
  // The decision edge at `now`, every channel's state `nand` brought up to now: per
  // channel kMaxPlanes slots, granted[ch * kMaxPlanes + k]: slot 0 the id of the command
  // granted, 0 for none (ids start at 1), or a suspension or a RESUME (SuspendForm); then
  // the partners granted with it as one n-plane command (multi-plane rescheduling), in the
  // order they joined, 0 after the last.
  virtual void decide(Tick now, const std::vector<nand::ChannelStatus>& nand, std::vector<std::uint64_t>& granted) = 0;
  // Declares its waveforms in `vcd` under the dotted `scope` (before the run; the model
  // then writes them at its edges).
  virtual void trace(VcdWriter& vcd, const std::string& scope) = 0;
  // Non-empty once a command was lost (a queue full): the run cannot go on.
  virtual std::string failure() const = 0;
};

}  // namespace ssd::ctrl
