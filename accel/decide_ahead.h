// Decisions taken ahead of their edge (controller.decide_ahead), for speed only. Most
// decisions of the scheduler block are asked for from the NAND array's process (a
// channel changed state, or the firmware queued a command from a completion). When, at
// the end of that process's activation, no process of the simulation can run before
// the decision's edge (nothing is pending now, nor until then), every input the block
// would sample at the edge is what it is now: the decision is taken now, as at the edge
// (FlashSched::decide_early), and the channels take its commands as at the edge too (an
// annotated delay: NandChannel::nb_transport_fw). This saves the kernel a time step per
// decision. Otherwise the block wakes at the edge as without it.
//
// It also has the NAND's page state for each command the block queues fetched while the
// command waits there (ChannelEngine::prefetch), with or without decisions ahead.
#pragma once

#include <cstdint>

#include <systemc>

#include "controller/flash_sched.h"
#include "nand/nand_device.h"

namespace ssd::accel {

class DecideAhead final : public ctrl::FlashSched::DecisionListener, public nand::NandDevice::RunListener {
 public:
  // Listens to both (they must outlive it); `ahead`: decisions taken ahead of their edge
  // (controller.decide_ahead), else only the fetching.
  DecideAhead(ctrl::FlashSched& sched, nand::NandDevice& device, bool ahead)
      : sched_(sched), device_(device), ahead_(ahead) {
    sched_.set_decision_listener(this);
    if (ahead_) device_.set_run_listener(this);
  }
  ~DecideAhead() override {
    sched_.set_decision_listener(nullptr);
    if (ahead_) device_.set_run_listener(nullptr);
  }
  DecideAhead(const DecideAhead&) = delete;
  DecideAhead& operator=(const DecideAhead&) = delete;
  // Decisions taken before their edge's time.
  std::uint64_t decided_ahead() const { return decided_ahead_; }

  // Asked while the NAND array's process runs: after_run() has it taken when it ends.
  bool decision_asked(Tick) override {
    if (!ahead_ || (!settling_ && !device_.running())) return false;
    deferred_ = true;
    return true;
  }
  void command_queued(const FlashCommand& c) override {
    if (c.channel < device_.channels()) device_.channel(c.channel).status().prefetch(c);
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
  bool ahead_;
  bool deferred_ = false;  // a decision asked for while the NAND array's process ran
  bool settling_ = false;  // in after_run()
  std::uint64_t decided_ahead_ = 0;
};

}  // namespace ssd::accel
