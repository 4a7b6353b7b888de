// What the scheduler block sees of a NAND channel: a read-only view of its state, as of
// a time, through the channel's readiness rules (ChannelEngine: accept words, queue).
// at(now) brings the view up to `now`: a command-phase end the engine left to be taken
// when the channel is looked at (ChannelEngine::catch_up, a speed mechanism) is taken
// then. That changes nothing the engine simulates: the phase ended at its own time
// either way; the view only makes sure the state looked at is the state at `now`.
#pragma once

#include <cstdint>

#include "nand/channel_engine.h"

namespace ssd::nand {

class ChannelStatus {
 public:
  explicit ChannelStatus(ChannelEngine& engine) : engine_(&engine) {}
  // Not const: it may move the engine's bookkeeping (never its simulated state) forward.
  const ChannelStatus& at(Tick now) {
    engine_->catch_up(now);
    now_ = now;
    return *this;
  }
  // Commands accepted by the channel that wait for its bus (none: the bus is free for a
  // command the block issues now, if its die can take it).
  unsigned queued_total() const { return engine_->queued_total(); }
  // The die's word of what it could start now (FlashCommand::start_need()).
  std::uint32_t accept_word(unsigned chip, unsigned die) const { return engine_->accept_word(chip, die); }
  // All of them, chip by chip: accept_word(chip, die) at chip * dies_per_chip() + die.
  const std::uint32_t* accept_words() const { return engine_->accept_words(); }
  // Suspend and resume (controller.suspend): the die's offer of a read by suspension, what
  // it holds (ChannelEngine::suspend_word), and what a suspension would save, at the time
  // of the last at().
  std::uint32_t suspend_word(unsigned chip, unsigned die) const { return engine_->suspend_word(chip, die); }
  Tick suspend_margin(unsigned chip, unsigned die) const { return engine_->suspend_margin(chip, die, now_); }
  unsigned held_dies() const { return engine_->held_dies(); }  // dies holding a suspended operation
  unsigned dies_per_chip() const { return engine_->config().dies_per_chip; }
  // Whether `c` could start now: no command waits for the bus and its die accepts it.
  bool ready_for(const FlashCommand& c) const { return engine_->ready_for(c); }
  // A measurement, not an input to decisions: the command's die's work integrals up to
  // `now` (the latency attribution's start of its wait in the block).
  WaitMeter::Ticks wait_meter(const FlashCommand& c, Tick now) const {
    return engine_->wait_meter(c.chip, c.die, now);
  }

 private:
  ChannelEngine* engine_;
  Tick now_ = 0;
};

}  // namespace ssd::nand
