// The flash scheduler block as a SystemC module: a flash-protocol target for the
// firmware, one flash initiator socket per NAND channel; its queue discipline is the
// SchedPolicy it is given (built by name in sc_main: controller/policies.h,
// controller.scheduler), which it never asks about. Decisions
// happen at rising edges of the controller clock (controller.clock_mhz), and only
// at edges where something could change: a command was queued, or a NAND channel
// changed state. Idle cycles cost no simulation time. The block sees the NAND only
// through a read-only view per channel (nand/channel_status.h) and the channels'
// change callbacks, both wired with its socket by attach() where the model is built.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "controller/decision_model.h"
#include "controller/sched_policy.h"
#include "common/vcd_writer.h"
#include "nand/nand_device.h"
#include "tlm/request_life.h"
#include "tlm/flash_protocol.h"
#include "tlm/outbox.h"
#include "tlm/payload_pool.h"
#include "tlm/sim_now.h"

namespace ssd::ctrl {

struct SchedConfig {
  double clock_mhz = 1000.0;
  // The policy's rescheduling (controller.reschedule, the policy's own: make_sched_policy):
  // on, the block keeps the waits of the commands it grants (stats.json `reschedule`) and
  // merges the partners of a grant into one n-plane command.
  RescheduleConfig reschedule;
  // The policy's choices, its tie-breaks and the twin (built by FullSsd: policies.h, rtl/).
  bool read_first = false;     // HOS: the oldest read of a chip queue before its oldest command
  std::string rtl = "off";     // the decisions: off (C++), on (Verilog), check (both)
  bool decide_ahead = true;    // accel/: decide when the NAND activation asking for it ends
  // Suspend and resume (docs/scheduler.md): which operations a host read may suspend (bit 0
  // erase, bit 1 program; 0 off), the remaining array time beyond the suspend latency a
  // suspension must save, and whether GC's reads suspend too.
  std::uint8_t suspend = 0;
  std::uint32_t suspend_min_remaining_us = 0;
  bool suspend_gc_reads = false;
  bool suspend_hold_programs = false;  // a die's waiting read goes before a program to its cache register
  // With nand.independent_plane_reads: a chip whose candidate read waits for its plane offers a
  // later read of its die on a free plane (docs/scheduler.md, "Independent plane reads").
  bool plane_reads = true;
  static constexpr std::uint8_t kSuspendErase = 1, kSuspendProgram = 2;
  // Its keys (flash_sched.cpp).
  static const param::Table<SchedConfig>& keys();
};

// The wait of the commands the block granted, from the block taking each to its grant
// (kept with rescheduling on: stats.json `reschedule`).
struct BlockWaits {
  std::uint64_t granted = 0;
  Tick sum = 0;
  Tick max = 0;
};

class FlashSched : public sc_core::sc_module, private nand::NandChannel::Listener {
 public:
  FlashTargetSocket<FlashSched> target;  // from the firmware
  std::vector<std::unique_ptr<FlashInitiatorSocketTagged<FlashSched>>> nand;  // per channel

  // `policy`: the queue discipline (controller/policies.h: make_sched_policy).
  FlashSched(sc_core::sc_module_name name, const SchedConfig& cfg, const nand::NandConfig& nand,
             std::unique_ptr<SchedPolicy> policy);
  // Wires the block to the NAND, before the simulation starts: a socket to each channel,
  // each channel's change callbacks to the block, the views the block samples, and the
  // device's schedule (the block decides after the NAND's changes of an edge's time).
  void attach(nand::NandDevice& device);

  std::uint64_t issued() const { return issued_; }  // commands sent to the NAND (a merged one once)
  // With rescheduling on (SchedConfig::reschedule): the waits of the commands granted.
  const BlockWaits& waits() const { return waits_; }
  const SchedPolicy& policy() const { return *policy_; }
  const SchedConfig& config() const { return cfg_; }
  // What the C++ block's rescheduling did; null without rescheduling, and with
  // controller.rtl = on (the Verilog block decides, and keeps no such counts).
  const RescheduleCounters* reschedule_counters() const {
    return twin_ && twin_mode_ == Twin::On ? nullptr : policy_->reschedule_counters();
  }
  std::uint64_t decisions() const { return decisions_; }
  // controller.suspend: reads granted to suspend an operation, and RESUMEs sent.
  std::uint64_t suspend_grants() const { return suspend_grants_; }
  std::uint64_t resumes_sent() const { return resumes_sent_; }
  const PayloadPoolBase& resume_pool() const { return resumes_; }
  // When a decision is computed. The block asks for the decision of an edge whenever a
  // command is queued or a channel changes; by default it wakes at that edge. A helper
  // beside the model may take over a decision asked for: told of it
  // (decision_asked(edge) returns true), it later either has it taken at once as at its
  // edge (decide_early(): only when no input the block samples can change before the
  // edge) or has the block wake at the edge (wake_at_edge()).
  // The same helper is told of each command queued, and of each sent to its channel (it
  // may prepare the NAND's state for it; changes nothing).
  class DecisionListener {
   public:
    virtual ~DecisionListener() = default;
    virtual bool decision_asked(Tick edge) = 0;
    virtual void command_queued(const FlashCommand& c) = 0;
    virtual void command_issued(const FlashCommand& c) = 0;
  };
  void set_decision_listener(DecisionListener* l) { decision_listener_ = l; }
  Tick asked_edge() const { return next_edge_; }  // the edge of the decision asked for
  void decide_early();
  void wake_at_edge() { decide_event_.notify(sc_delay(next_edge_ - sim_now())); }
  std::size_t queued_on_chip(unsigned channel, unsigned chip) const {
    if (twin_decides()) {
      std::size_t n = 0;
      for (const auto& held : twin_held_) n += held.second.c->channel == channel && held.second.c->chip == chip;
      return n;
    }
    return policy_->queued_on_chip(channel, chip);
  }
  // Another model of the decisions (controller.rtl: the verilated Verilog block). `on`:
  // its grants are what the block issues (the C++ policy is left unused); `check`: the
  // C++ policy's are, and at every decision edge the two blocks' grants per channel are
  // compared; the first difference is an error naming the cycle and both decisions.
  enum class Twin { On, Check };
  void set_decision_model(std::unique_ptr<DecisionModel> m, Twin mode) {
    twin_ = std::move(m);
    twin_mode_ = mode;
  }
  std::uint64_t decisions_compared() const { return compared_; }
  Tick period() const { return period_; }  // the controller clock's, in ticks
  // Each issue as (cycle, command id, channel, chip): the log compared with rtl/.
  struct Issue {
    std::uint64_t cycle;
    std::uint64_t id;
    unsigned channel, chip;
  };
  void keep_issue_log(bool on) { log_on_ = on; }
  const std::vector<Issue>& issue_log() const { return log_; }
  // Waveforms (trace.vcd) under `scope`: per chip (chN.chipC.queued) the commands the
  // block holds for it; per channel (chN.grant) the id of the command granted at the
  // channel's last decision edge, 0 from the next edge that grants it nothing.
  void trace(VcdWriter& vcd, const std::string& scope);
  // Told of each command it queues (null: none).
  void set_life_listener(LifeListener* l) { life_ = l; }

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum bw(int ch, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void request_decision();
  void decide();              // the process, at an edge
  void decide_at(Tick now);   // the decision of the edge `now`
  void issue(Tick now);  // sends out_'s commands to their channels
  void send_resume(const Grant& g, Tick now);
  void channel_changed(unsigned channel) override;
  void end_of_elaboration() override;  // every channel attached
  bool could_issue(unsigned channel);
  bool decision_pending() const;
  // The time the block acts at: the kernel's, or the edge of a decision taken early.
  Tick at() const { return ahead_ != kNever ? ahead_ : sim_now(); }

  SchedConfig cfg_;
  std::vector<nand::ChannelStatus> nand_;  // per channel: what the block samples
  const nand::NandDevice* device_ = nullptr;
  std::unique_ptr<SchedPolicy> policy_;
  Tick period_;
  Tick next_edge_ = kNever;     // a decision is scheduled at this edge
  Tick last_decided_ = kNever;  // the edge of the last decision
  Tick ahead_ = kNever;         // while a decision is taken early: its edge
  DecisionListener* decision_listener_ = nullptr;
  sc_core::sc_event decide_event_;
  std::vector<Grant> out_;  // the commands granted at the edge
  // A bit per channel: no branch on whether it is already marked, and the decision
  // visits the channels in ascending order without sorting them.
  void mark_changed(unsigned ch) { changed_bits_[ch / 64] |= std::uint64_t{1} << (ch % 64); }
  std::vector<std::uint64_t> changed_bits_;  // channels changed since the last decision
  std::vector<unsigned> changed_;            // the same, listed for the policy at a decision
  std::uint64_t issued_ = 0, decisions_ = 0;
  bool log_on_ = false;
  std::vector<Issue> log_;
  // controller.rtl (set_decision_model). With `on` the block's queues are the model's:
  // the commands it holds by id, and how many per channel.
  std::unique_ptr<DecisionModel> twin_;
  Twin twin_mode_ = Twin::Check;
  bool twin_decides() const { return twin_ && twin_mode_ == Twin::On; }
  void twin_failed(const std::string& what);
  void twin_decision(Tick now);  // the model's decision of the edge: out_ (on) or compared (check)
  struct Held {
    FlashCommand* c;
    void* owner;
  };
  std::unordered_map<std::uint64_t, Held> twin_held_;
  std::vector<std::uint32_t> twin_on_channel_;
  std::vector<std::uint64_t> twin_granted_;
  std::uint64_t compared_ = 0;
  LifeListener* life_ = nullptr;
  BlockWaits waits_;
  // A head and its partners become one n-plane command (multi-plane rescheduling); the
  // block keeps what it changed of the head, and the partners, until its end.
  void merge(const Grant& g, Tick now);
  struct Merged {
    Grant grant;
    std::uint8_t own_mask;
    std::uint32_t own_out_bytes;
  };
  std::vector<Merged> merged_;  // in flight
  // Toward the firmware: its responses, one at a time until END_RESP.
  ResponseOutbox<FlashTargetSocket<FlashSched>> to_firmware_{target, "scheduler block, to the firmware"};
  // The RESUMEs the block sends (controller.suspend), back to the pool at their completion.
  FlashPayloadPool resumes_{"scheduler block: resume commands"};
  std::uint64_t resumes_sent_ = 0, suspend_grants_ = 0;
  VcdWriter* vcd_ = nullptr;
  unsigned chips_per_channel_ = 0, dies_per_chip_ = 0;
  std::vector<int> tv_queued_, tv_grant_;  // per chip, per channel
  std::vector<std::uint32_t> traced_queued_;  // per chip
  std::vector<unsigned> traced_granted_;      // channels whose grant shows an id
  void trace_issue(Tick now);
};

}  // namespace ssd::ctrl
