// The scheduler block's work done ahead, for speed only: its decisions, and the NAND
// state its commands will read.
//
// Decisions taken ahead of their edge (controller.decide_ahead). Most
// decisions of the scheduler block are asked for from the NAND array's process (a
// channel changed state, or the firmware queued a command from a completion). When, at
// the end of that process's activation, no process of the simulation can run before
// the decision's edge (nothing is pending now, nor until then), every input the block
// would sample at the edge is what it is now: the decision is taken now, as at the edge
// (FlashSched::decide_early), and the channels take its commands as at the edge too (an
// annotated delay: NandChannel::nb_transport_fw). This saves the kernel a time step per
// decision. Otherwise the block wakes at the edge as without it.
//
// Whether or not decisions are taken ahead, each command has the NAND state it will read
// fetched early: its blocks' page state when the block queues it, read when it starts
// (ChannelEngine::block_state_read_by), and for a read, when the block sends it to its
// channel, the stored token it returns at its array end (ChannelEngine::tokens_read_by;
// for a page still the image's, its owner in the lookahead thread's table, if that runs:
// a GC read may wait long at the block, and a line fetched when it is queued would be
// gone by then).
#pragma once

#include <cstdint>

#include <systemc>

#include "accel/lookahead.h"
#include "accel/prefetch.h"
#include "controller/flash_sched.h"
#include "nand/nand_device.h"

namespace ssd::accel {

class BlockAhead final : public ctrl::FlashSched::DecisionListener,
                         public nand::NandDevice::RunListener,
                         public nand::NandChannel::AcceptAhead {
 public:
  // Listens to both (they, and `lookahead`, must outlive it); `ahead`: decisions taken
  // ahead of their edge (controller.decide_ahead), else only the fetching.
  BlockAhead(ctrl::FlashSched& sched, nand::NandDevice& device, const Lookahead& lookahead, bool ahead)
      : sched_(sched), device_(device), lookahead_(lookahead), ahead_(ahead) {
    sched_.set_decision_listener(this);
    if (!ahead_) return;
    device_.set_run_listener(this);
    for (unsigned ch = 0; ch < device_.channels(); ++ch) device_.channel(ch).set_accept_ahead(this);
  }
  ~BlockAhead() override {
    sched_.set_decision_listener(nullptr);
    if (!ahead_) return;
    device_.set_run_listener(nullptr);
    for (unsigned ch = 0; ch < device_.channels(); ++ch) device_.channel(ch).set_accept_ahead(nullptr);
  }
  // The channels take a command sent ahead at once when nothing can run before its time.
  bool nothing_runs_within(const sc_core::sc_time& delay) const override {
    return sc_core::sc_time_to_pending_activity() > delay;
  }
  BlockAhead(const BlockAhead&) = delete;
  BlockAhead& operator=(const BlockAhead&) = delete;
  // Decisions taken before their edge's time.
  std::uint64_t decided_ahead() const { return decided_ahead_; }

  // Asked while the NAND array's process runs: after_run() has it taken when it ends.
  bool decision_asked(Tick) override {
    if (!ahead_ || (!settling_ && !device_.running())) return false;
    deferred_ = true;
    return true;
  }
  void command_queued(const FlashCommand& c) override {
    if (c.channel < device_.channels()) device_.channel(c.channel).status().block_state_read_by(c, prefetch);
  }
  void command_issued(const FlashCommand& c) override {
    if (c.op != FlashOp::Read || c.channel >= device_.channels()) return;
    const ImageResultTable* table = lookahead_.results();
    device_.channel(c.channel).status().tokens_read_by(c, prefetch, [table](std::uint32_t page) {
      if (table) prefetch(table->p2l_address(page));
    });
  }
  void after_run(Tick kernel) override {
    settling_ = true;
    while (deferred_) {
      deferred_ = false;
      const Tick edge = sched_.asked_edge();
      if (sc_core::sc_time_to_pending_activity() > sc_delay(edge - kernel)) {
        if (edge > kernel) ++decided_ahead_;
        sched_.decide_early();  // may ask for the next edge's decision (deferred_ again)
      } else {
        sched_.wake_at_edge();
      }
    }
    settling_ = false;
  }

 private:
  ctrl::FlashSched& sched_;
  nand::NandDevice& device_;
  const Lookahead& lookahead_;
  bool ahead_;
  bool deferred_ = false;  // a decision asked for while the NAND array's process ran
  bool settling_ = false;  // in after_run()
  std::uint64_t decided_ahead_ = 0;
};

}  // namespace ssd::accel
