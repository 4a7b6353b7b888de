// A verilated parameterisation of the scheduler block as a ctrl::DecisionModel (the
// co-simulation's, rtl/rtl_model.cpp, and the tests' own). Includes Verilator's headers:
// not for a file that includes SystemC's (verilated.h would take SystemC's time).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controller/decision_model.h"
#include "nand/nand_config.h"
#include "rtl/rtl_block.h"
#include "rtl/rtl_model.h"

namespace ssd::rtl {

template <typename Model>
class VerilatedDecisions final : public ctrl::DecisionModel {
 public:
  VerilatedDecisions(const Shape& s, const nand::NandConfig& n, bool read_first, bool by_priority)
      : block_(s, read_first, by_priority),
        n_(n),
        held_(std::size_t{n.channels} * n.chips_per_channel, 0) {}
  void push(const FlashCommand& c) override {
    if (c.id > 0xFFFFFFFFull) {
      failure_ = "the RTL block's command ids are 32 bits: command " + std::to_string(c.id) + " does not fit";
      return;
    }
    block_.push(c);
    ++held_[std::size_t{c.channel} * n_.chips_per_channel + c.chip];
    if (block_.overflow() && failure_.empty())
      failure_ = "the RTL block's command memory is full (" + std::to_string(block_.shape().depth) +
                 " commands): command " + std::to_string(c.id) + " was lost";
  }
  bool would_grant(unsigned channel, const nand::ChannelStatus& st) override {
    sample(channel, st);
    return block_.would_grant(channel);
  }
  void decide(const std::vector<nand::ChannelStatus>& nand, std::vector<std::uint64_t>& granted) override {
    for (unsigned ch = 0; ch < n_.channels; ++ch) sample(ch, nand[ch]);
    block_.decide(grants_);
    granted.assign(n_.channels, 0);
    for (unsigned ch = 0; ch < n_.channels; ++ch) {
      if (!grants_[ch].valid) continue;
      granted[ch] = grants_[ch].id;
      --held_[std::size_t{ch} * n_.chips_per_channel + grants_[ch].chip];
    }
  }
  std::string failure() const override { return failure_; }

 private:
  // The pins a decision reads: a channel's open bit and its chips' accept words. Only the
  // chips that hold a command at the block are sampled (a decision reads no other chip's
  // word: those hold their last value); a channel with none is not sampled at all.
  void sample(unsigned ch, const nand::ChannelStatus& st) {
    const unsigned* held = &held_[std::size_t{ch} * n_.chips_per_channel];
    bool any = false;
    for (unsigned chip = 0; chip < n_.chips_per_channel; ++chip) {
      if (!held[chip]) continue;
      any = true;
      for (unsigned die = 0; die < n_.dies_per_chip; ++die) block_.set_accept(ch, chip, die, st.accept_word(chip, die));
    }
    if (any) block_.set_open(ch, st.queued_total() == 0);
  }
  RtlBlock<Model> block_;
  nand::NandConfig n_;
  std::vector<unsigned> held_;  // per chip, commands at the block
  std::vector<typename RtlBlock<Model>::Grant> grants_;
  std::string failure_;
};

template <typename Model>
std::unique_ptr<ctrl::DecisionModel> make_decision_model_of(const Shape& s, const nand::NandConfig& n,
                                                            bool read_first, bool by_priority) {
  return std::make_unique<VerilatedDecisions<Model>>(s, n, read_first, by_priority);
}

}  // namespace ssd::rtl
