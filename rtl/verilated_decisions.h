// A verilated parameterisation of the scheduler block as a ctrl::DecisionModel (the
// co-simulation's, rtl/rtl_model.cpp, and the tests' own). Includes Verilator's headers:
// not for a file that includes SystemC's (verilated.h would take SystemC's time).
#pragma once

#include <algorithm>
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
  VerilatedDecisions(const Shape& s, const nand::NandConfig& n, bool read_first, bool by_priority,
                     const ctrl::RescheduleConfig& r, const ctrl::SuspendForm& sf = {})
      : block_(s, read_first, by_priority, r, sf),
        n_(n),
        held_(std::size_t{n.channels} * n.chips_per_channel, 0),
        held_on_(n.channels, 0),
        seen_(std::size_t{n.channels} * n.chips_per_channel * n.dies_per_chip, 0),
        fresh_(n.channels, 1),
        suspend_(sf.mode != 0) {}
  void push(const FlashCommand& c, Tick now) override {
    if (c.id > 0xFFFFFFFFull) {
      failure_ = "the RTL block's command ids are 32 bits: command " + std::to_string(c.id) + " does not fit";
      return;
    }
    block_.push(c);
    if (held_[std::size_t{c.channel} * n_.chips_per_channel + c.chip]++ == 0) fresh_[c.channel] = 1;
    ++held_on_[c.channel];
    if (vcd_) trace_push(c, now);
    if (block_.overflow() && failure_.empty())
      failure_ = "the RTL block's command memory is full (" + std::to_string(block_.shape().depth) +
                 " commands): command " + std::to_string(c.id) + " was lost";
  }
  bool would_grant(unsigned channel, const nand::ChannelStatus& st) override {
    sample(channel, st);
    return block_.would_grant(channel);
  }
  void decide(Tick now, const std::vector<nand::ChannelStatus>& nand, std::vector<std::uint64_t>& granted) override {
    for (unsigned ch = 0; ch < n_.channels; ++ch) sample(ch, nand[ch]);
    if (vcd_) trace_sampled(now);
    block_.decide(grants_);
    granted.assign(std::size_t{n_.channels} * kMaxPlanes, 0);
    for (unsigned ch = 0; ch < n_.channels; ++ch) {
      const auto& g = grants_[ch];
      if (!g.valid) continue;
      if (g.resume) {  // no command of the block's
        granted[ch * kMaxPlanes] = ctrl::kSlotResume | g.chip << 8 | g.die;
        continue;
      }
      granted[ch * kMaxPlanes] = g.id | (g.suspend ? ctrl::kSlotSuspend : 0);
      for (unsigned k = 0; k < g.parts; ++k) granted[ch * kMaxPlanes + 1 + k] = g.part_id[k];
      held_[std::size_t{ch} * n_.chips_per_channel + g.chip] -= 1 + g.parts;
      held_on_[ch] -= 1 + g.parts;
    }
    if (vcd_) trace_decided(now);
  }
  void trace(VcdWriter& vcd, const std::string& scope) override;
  std::string failure() const override { return failure_; }

 private:
  // The pins a decision reads: a channel's open bit and its chips' accept words. Only the
  // chips that hold a command at the block are sampled (a decision reads no other chip's
  // word: those hold their last value); a channel with none is not sampled at all.
  // With suspend, every chip's words and suspend words (a die holding a suspended operation
  // may have nothing queued: its RESUME is decided all the same), and the open bit.
  // A channel whose words are those of its last sample, and none of whose chips came to
  // hold a command since (fresh_), has its pins as sampling would set them: only its open
  // bit is looked at (every decision edge samples every channel).
  void sample(unsigned ch, const nand::ChannelStatus& st) {
    if (suspend_) {
      for (unsigned chip = 0; chip < n_.chips_per_channel; ++chip)
        for (unsigned die = 0; die < n_.dies_per_chip; ++die) {
          block_.set_accept(ch, chip, die, st.accept_word(chip, die));
          const Tick margin_us = std::min<Tick>(st.suspend_margin(chip, die) / kTicksPerUs, 65535);
          block_.set_suspend_word(ch, chip, die, st.suspend_word(chip, die) | static_cast<std::uint32_t>(margin_us) << 12);
        }
      block_.set_open(ch, st.queued_total() == 0);
      return;
    }
    if (!held_on_[ch]) return;
    const std::size_t per = std::size_t{n_.chips_per_channel} * n_.dies_per_chip;
    const std::uint32_t* words = st.accept_words();
    std::uint32_t* seen = &seen_[ch * per];
    if (fresh_[ch] || !std::equal(words, words + per, seen)) {
      std::copy(words, words + per, seen);
      fresh_[ch] = 0;
      const unsigned* held = &held_[std::size_t{ch} * n_.chips_per_channel];
      for (unsigned chip = 0; chip < n_.chips_per_channel; ++chip) {
        if (!held[chip]) continue;
        for (unsigned die = 0; die < n_.dies_per_chip; ++die)
          block_.set_accept(ch, chip, die, words[chip * n_.dies_per_chip + die]);
      }
    }
    block_.set_open(ch, st.queued_total() == 0);
  }
  void trace_push(const FlashCommand& c, Tick now);
  void trace_sampled(Tick now);
  void trace_decided(Tick now);
  void trace_queue(unsigned channel, unsigned chip, Tick now);
  void mark_edge(Tick now, unsigned kind) {
    if (now != edge_time_) {
      edge_bits_ = 0;
      edge_toggle_ = !edge_toggle_;
    }
    edge_bits_ |= kind;
    edge_time_ = now;
    vcd_->change(edges_, now, edge_toggle_);
    vcd_->change(edge_, now, edge_bits_);
  }
  RtlBlock<Model> block_;
  nand::NandConfig n_;
  std::vector<unsigned> held_;  // per chip, commands at the block
  std::vector<unsigned> held_on_;  // per channel, the same
  std::vector<std::uint32_t> seen_;  // per die, its accept word as the channel's last sample read it
  std::vector<char> fresh_;  // per channel: a chip came to hold a command since its last sample
  bool suspend_;
  std::vector<typename RtlBlock<Model>::Grant> grants_;
  std::string failure_;
  // The waveforms (trace()): variable numbers, kNoVar where trace.scopes leaves them out.
  VcdWriter* vcd_ = nullptr;
  struct PushVars {
    int id, channel, chip, die, op, planes, cls;
  } push_vars_{};
  int edges_ = VcdWriter::kNoVar, edge_ = VcdWriter::kNoVar, overflow_ = VcdWriter::kNoVar;
  Tick edge_time_ = kNever;  // the time of the last edge, and what it did (1 push, 2 decision)
  unsigned edge_bits_ = 0;
  bool edge_toggle_ = false;
  struct ChannelVars {
    int open, grant, grant_id, grant_chip;
  };
  std::vector<ChannelVars> channel_vars_;
  struct QueueVars {
    int queued, held, ready;
  };
  std::vector<QueueVars> queue_vars_;  // HOS: per chip of the device; IOS: the one queue
  std::vector<int> chip_queued_;       // IOS: per chip, the commands the block holds for it
  std::vector<int> accept_vars_;       // per die of the device
};

// The block's waveforms, under `scope`: its pins and its queues' state, written at its
// clock edges (the controller's clock: edges where nothing changes are not simulated,
// and not drawn).
//   edges                  flips at each time the block's clock has an edge (only the
//                          edges that change something are simulated)
//   edge                   what the edges at that time did: 1 a push, 2 a decision,
//                          3 both (two edges of the co-simulation's clock at one time)
//   push.id .. push.class  the push pins as driven at the last push
//   overflow               sticky: a push found the command memory full
//   chN.open               the channel's open pin, as the last decision sampled it
//   chN.grant, grant_id, grant_chip   the registered grant of the last decision (none:
//                          id 0, chip 255)
//   chN.chipM.queued       commands the block holds for the chip (pushed minus granted)
//   chN.chipM.held         HOS: the chip's queue is not empty (the block's status pin)
//   chN.chipM.ready        HOS: its candidate could start, as the last decision sampled
//   chN.chipM.dieK.accept  the die's accept word (what it offers: 9 bits per operation)
//   queue.held, queue.ready   IOS: the same for the one queue (its head)
template <typename Model>
void VerilatedDecisions<Model>::trace(VcdWriter& vcd, const std::string& scope) {
  vcd_ = &vcd;
  const std::string s = scope + ".";
  edges_ = vcd.declare(s + "edges", 1);
  edge_ = vcd.declare(s + "edge", 2);
  overflow_ = vcd.declare(s + "overflow", 1);
  push_vars_ = {vcd.declare(s + "push.id", 32),    vcd.declare(s + "push.channel", 8), vcd.declare(s + "push.chip", 8),
                vcd.declare(s + "push.die", 8),    vcd.declare(s + "push.op", 2),      vcd.declare(s + "push.planes", 8),
                vcd.declare(s + "push.class", 2)};
  const bool ios = block_.shape().ios;
  for (unsigned ch = 0; ch < n_.channels; ++ch) {
    const std::string c = s + "ch" + std::to_string(ch) + ".";
    channel_vars_.push_back({vcd.declare(c + "open", 1), vcd.declare(c + "grant", 1), vcd.declare(c + "grant_id", 32),
                             vcd.declare(c + "grant_chip", 8, 0xff)});
    for (unsigned chip = 0; chip < n_.chips_per_channel; ++chip) {
      const std::string p = c + "chip" + std::to_string(chip) + ".";
      if (ios)
        chip_queued_.push_back(vcd.declare(p + "queued", 16));
      else
        queue_vars_.push_back({vcd.declare(p + "queued", 16), vcd.declare(p + "held", 1), vcd.declare(p + "ready", 1)});
      for (unsigned die = 0; die < n_.dies_per_chip; ++die)
        accept_vars_.push_back(vcd.declare(p + "die" + std::to_string(die) + ".accept", RtlBlock<Model>::kAcceptBits));
    }
  }
  if (ios) queue_vars_.push_back({vcd.declare(s + "queue.queued", 16), vcd.declare(s + "queue.held", 1),
                                  vcd.declare(s + "queue.ready", 1)});
}

template <typename Model>
void VerilatedDecisions<Model>::trace_push(const FlashCommand& c, Tick now) {
  VcdWriter& v = *vcd_;
  mark_edge(now, 1);
  v.change(push_vars_.id, now, c.id);
  v.change(push_vars_.channel, now, c.channel);
  v.change(push_vars_.chip, now, c.chip);
  v.change(push_vars_.die, now, c.die);
  v.change(push_vars_.op, now, static_cast<unsigned>(c.op));
  v.change(push_vars_.planes, now, c.plane_mask);
  v.change(push_vars_.cls, now, static_cast<unsigned>(c.priority));
  v.change(overflow_, now, block_.overflow());
  trace_queue(c.channel, c.chip, now);
}

// Before the decision edge, with its inputs set: what it samples.
template <typename Model>
void VerilatedDecisions<Model>::trace_sampled(Tick now) {
  VcdWriter& v = *vcd_;
  const unsigned chips = block_.shape().chips;
  std::size_t d = 0;
  for (unsigned ch = 0; ch < n_.channels; ++ch) {
    v.change(channel_vars_[ch].open, now, block_.open_pin(ch));
    for (unsigned chip = 0; chip < n_.chips_per_channel; ++chip) {
      if (!block_.shape().ios) v.change(queue_vars_[ch * n_.chips_per_channel + chip].ready, now,
                                        block_.queue_ready(ch * chips + chip));
      for (unsigned die = 0; die < n_.dies_per_chip; ++die) v.change(accept_vars_[d++], now, block_.accept_pin(ch, chip, die));
    }
  }
  if (block_.shape().ios) v.change(queue_vars_[0].ready, now, block_.queue_ready(0));
}

// A chip's queue after an edge that changed it.
template <typename Model>
void VerilatedDecisions<Model>::trace_queue(unsigned channel, unsigned chip, Tick now) {
  VcdWriter& v = *vcd_;
  const std::size_t i = std::size_t{channel} * n_.chips_per_channel + chip;
  if (block_.shape().ios) {
    v.change(chip_queued_[i], now, held_[i]);
    std::uint64_t queued = 0;
    for (unsigned h : held_) queued += h;
    v.change(queue_vars_[0].queued, now, queued);
    v.change(queue_vars_[0].held, now, block_.queue_held(0));
    return;
  }
  v.change(queue_vars_[i].queued, now, held_[i]);
  v.change(queue_vars_[i].held, now, block_.queue_held(channel * block_.shape().chips + chip));
}

// After it: the grants, and the queues they took from.
template <typename Model>
void VerilatedDecisions<Model>::trace_decided(Tick now) {
  VcdWriter& v = *vcd_;
  mark_edge(now, 2);
  for (unsigned ch = 0; ch < n_.channels; ++ch) {
    const auto& g = grants_[ch];
    v.change(channel_vars_[ch].grant, now, g.valid);
    v.change(channel_vars_[ch].grant_id, now, g.valid ? g.id : 0);
    v.change(channel_vars_[ch].grant_chip, now, g.valid ? g.chip : 0xffu);
    if (g.valid) trace_queue(ch, g.chip, now);
  }
}

template <typename Model>
std::unique_ptr<ctrl::DecisionModel> make_decision_model_of(const Shape& s, const nand::NandConfig& n,
                                                            bool read_first, bool by_priority,
                                                            const ctrl::RescheduleConfig& r = {},
                                                            const ctrl::SuspendForm& sf = {}) {
  return std::make_unique<VerilatedDecisions<Model>>(s, n, read_first, by_priority, r, sf);
}

}  // namespace ssd::rtl
