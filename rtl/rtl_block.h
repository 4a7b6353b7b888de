// The Verilog scheduler block (rtl/sched_block.v), verilated, behind plain C++ calls: the
// pin boundary, in one place (the co-simulation, rtl/rtl_model.h, and the tests,
// tests/rtl/). `Model` is a class Verilator made of one parameterisation of the block;
// `Shape` says which (the parameters it was verilated with).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <verilated.h>

#include "controller/decision_model.h"
#include "controller/reschedule.h"
#include "rtl/rtl_model.h"
#include "tlm/flash_command.h"

namespace ssd::rtl {

// Bits [lo, lo + width) of a port (width <= 32), whether Verilator made it an integer or
// a wide array of 32-bit words.
template <typename Port>
void set_bits(Port& port, unsigned lo, unsigned width, std::uint32_t value) {
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
  if constexpr (std::is_integral_v<Port>) {
    port = static_cast<Port>((static_cast<std::uint64_t>(port) & ~(mask << lo)) | (std::uint64_t{value} & mask) << lo);
  } else {
    const unsigned w = lo / 32, b = lo % 32;
    std::uint64_t pair = port[w] | (b + width > 32 ? std::uint64_t{port[w + 1]} << 32 : 0);
    pair = (pair & ~(mask << b)) | (std::uint64_t{value} & mask) << b;
    port[w] = static_cast<std::uint32_t>(pair);
    if (b + width > 32) port[w + 1] = static_cast<std::uint32_t>(pair >> 32);
  }
}
template <typename Port>
std::uint32_t get_bits(const Port& port, unsigned lo, unsigned width) {
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
  if constexpr (std::is_integral_v<Port>) {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(port) >> lo & mask);
  } else {
    const unsigned w = lo / 32, b = lo % 32;
    const std::uint64_t pair = port[w] | (b + width > 32 ? std::uint64_t{port[w + 1]} << 32 : 0);
    return static_cast<std::uint32_t>(pair >> b & mask);
  }
}

// Whether Verilator's model of this version keeps the clock as its last evaluation saw
// it, for the rising edge's trigger, in a member the wrapper can set (Verilator 5.0xx:
// the root's __Vtrigrprev__TOP__clk). Later versions name it otherwise: then the wrapper
// evaluates the model with the clock low instead (the same edges, one more evaluation).
template <typename Root, typename = void>
struct HasClockMemory : std::false_type {};
template <typename Root>
struct HasClockMemory<Root, std::void_t<decltype(std::declval<Root&>().__Vtrigrprev__TOP__clk)>> : std::true_type {};
// Whether the root class is complete here (its ___024root.h included): without it
// HasClockMemory would say false in one file and true in another for the same model.
template <typename T, typename = void>
struct IsComplete : std::false_type {};
template <typename T>
struct IsComplete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

template <typename Model>
class RtlBlock {
 public:
  static constexpr unsigned kAcceptBits = 3 * kStartBits;
  static constexpr unsigned kSuspendBits = 28;  // a die's suspend word, with its margin
  static constexpr unsigned kParts = kMaxPlanes - 1;  // partners of a grant, at most
  struct Grant {
    bool valid = false;
    std::uint64_t id = 0;
    unsigned chip = 0;
    unsigned parts = 0;                             // multi-plane rescheduling: its partners
    std::array<std::uint64_t, kParts> part_id{};   // in the order they joined
    bool suspend = false, resume = false;           // suspend: the read suspends; a RESUME of `die`
    unsigned die = 0;
  };

  RtlBlock(const Shape& s, bool read_first, bool by_priority, const ctrl::RescheduleConfig& r = {},
           const ctrl::SuspendForm& sf = {})
      : s_(s),
        cpw_(bits_for(s.chips)),
        dw_(bits_for(s.dies)),
        accept_(std::size_t{s.channels} * s.chips * s.dies, 0),
        soffer_(std::size_t{s.channels} * s.chips * s.dies, 0),
        open_(s.channels, 0),
        model_(std::make_unique<Model>(&context_)) {
    model_->read_first = read_first;
    model_->by_priority = by_priority;
    model_->resched_mp = r.multiplane;
    model_->resched_pipe = r.pipeline;
    model_->window = r.window;
    model_->susp_mode = sf.mode;
    model_->susp_gc = sf.gc_reads;
    model_->susp_hold = sf.hold_programs;
    model_->min_margin = static_cast<std::uint16_t>(std::min<std::uint32_t>(sf.min_margin_us, 65535));
    model_->rst = 1;
    model_->push = 0;
    model_->decide = 0;
    // The first evaluation, with the clock low: it takes Verilator's initial values, the
    // clock's last value among them (so a value set before it would be overwritten, and
    // the reset edge lost).
    settle();
    tick();
    model_->rst = 0;
    changed_ = true;
  }
  const Shape& shape() const { return s_; }
  // One edge that queues `c` (its address inside the shape; ids fit 32 bits).
  void push(const FlashCommand& c) {
    model_->push = 1;
    model_->push_id = static_cast<std::uint32_t>(c.id);
    model_->push_channel = c.channel;
    model_->push_chip = c.chip;
    model_->push_die = c.die;
    model_->push_op = static_cast<unsigned>(c.op);
    model_->push_planes = c.plane_mask;
    model_->push_class = static_cast<unsigned>(c.priority);
    // Its page offset, above it its read level, and above that its cell mode: partners
    // share all three (a die senses an n-plane read at one level, and runs an n-plane
    // command in one mode: controller/combined_command.h), an erase's partners the mode.
    // The cell mode's byte carries a read's data unit above it (FlashCommand::unit < 16): the
    // block joins reads of one unit only (why_not_joined).
    model_->push_page = c.page | std::uint32_t{c.read_level} << 16 | (std::uint32_t{c.slc} | std::uint32_t{c.unit} << 1) << 24;
    model_->push_keep = c.keep_order;
    tick();
    model_->push = 0;
  }
  // What the block samples: whether a channel is open, and a die's accept word (held
  // until set again). Only a change reaches the pins.
  void set_open(unsigned channel, bool open) {
    if (open_[channel] == open) return;
    open_[channel] = open;
    set_bits(model_->open, channel, 1, open);
    changed_ = true;
  }
  void set_accept(unsigned channel, unsigned chip, unsigned die, std::uint32_t word) {
    set_die_pin(accept_, model_->accept, kAcceptBits, channel, chip, die, word);
  }
  // A die's suspend word (ChannelEngine::suspend_word, its margin in us at bit 12).
  void set_suspend_word(unsigned channel, unsigned chip, unsigned die, std::uint32_t word) {
    set_die_pin(soffer_, model_->soffer, kSuspendBits, channel, chip, die, word);
  }
  // Whether a decision now would grant on `channel` (no edge: the inputs settle).
  bool would_grant(unsigned channel) {
    if (changed_) settle();
    return get_bits(model_->ready_any, channel, 1) != 0;
  }
  // One decision edge with the inputs set; the grants per channel.
  void decide(std::vector<Grant>& out) {
    model_->decide = 1;
    tick();
    model_->decide = 0;
    out.assign(s_.channels, Grant{});
    for (unsigned ch = 0; ch < s_.channels; ++ch) {
      if (!get_bits(model_->grant, ch, 1)) continue;
      out[ch].valid = true;
      out[ch].id = get_bits(model_->grant_id, ch * 32, 32);
      out[ch].chip = get_bits(model_->grant_chip, ch * cpw_, cpw_);
      out[ch].suspend = get_bits(model_->grant_suspend, ch, 1) != 0;
      out[ch].resume = get_bits(model_->grant_resume, ch, 1) != 0;
      out[ch].die = get_bits(model_->grant_die, ch * dw_, dw_);
      for (unsigned k = 0; k < kParts; ++k) {
        if (!get_bits(model_->grant_part, ch * kParts + k, 1)) break;  // slots fill in order
        out[ch].part_id[out[ch].parts++] = get_bits(model_->grant_part_id, (ch * kParts + k) * 32, 32);
      }
    }
  }
  bool overflow() const { return model_->overflow; }
  // The status pins (for the waveforms), per queue q (HOS: channel * chips + chip; IOS:
  // 0): whether a command waits in it, and whether its candidate could start with the
  // inputs as set now (settled first: this is what a decision edge now would sample).
  bool queue_held(unsigned q) {
    if (changed_) settle();
    return get_bits(model_->queue_held, q, 1) != 0;
  }
  bool queue_ready(unsigned q) {
    if (changed_) settle();
    return get_bits(model_->queue_ready, q, 1) != 0;
  }
  // The input pins as last driven: a die's accept word, a channel's open bit, and the
  // last command pushed.
  std::uint32_t accept_pin(unsigned channel, unsigned chip, unsigned die) const {
    return accept_[(std::size_t{channel} * s_.chips + chip) * s_.dies + die];
  }
  bool open_pin(unsigned channel) const { return open_[channel] != 0; }
  Model& model() { return *model_; }

 private:
  static unsigned bits_for(unsigned n) {  // the block's width of an index below n
    unsigned b = 0;
    while ((1u << b) < n) ++b;
    return b ? b : 1;
  }
  // A die's field of `width` bits in a per-die port, and its copy in `pins`: only a change
  // reaches the port.
  template <typename Port>
  void set_die_pin(std::vector<std::uint32_t>& pins, Port& port, unsigned width, unsigned channel, unsigned chip,
                   unsigned die, std::uint32_t word) {
    const std::size_t i = (std::size_t{channel} * s_.chips + chip) * s_.dies + die;
    if (pins[i] == word) return;
    pins[i] = word;
    set_bits(port, static_cast<unsigned>(i) * width, width, word);
    changed_ = true;
  }
  // The clock stays low between edges. Before each rising edge the model must have seen
  // it low, or it would not see the edge. An evaluation with it low (settle()) does that,
  // but Verilator 5.0xx evaluates all of the block's input-driven logic at every
  // evaluation, and its results are recomputed by the edge's own evaluation (its
  // input-combinational region runs first, so inputs set since are sampled as set): where
  // the model keeps the clock's last value in reach (HasClockMemory), the wrapper sets it
  // low instead, which is what that evaluation would leave of it. The falling edge needs
  // no evaluation of its own: the block has no logic on it, and its outputs hold what the
  // rising edge computed. settle() stays for what reads outputs between edges.
  using Root = std::remove_const_t<std::remove_pointer_t<std::remove_const_t<decltype(std::declval<Model&>().rootp)>>>;
  static_assert(IsComplete<Root>::value, "include the verilated model's ___024root.h beside its header");
  static constexpr bool kClockMemory = HasClockMemory<Root>::value;
  void settle() {
    model_->clk = 0;
    model_->eval();
    low_seen_ = true;
    changed_ = false;
  }
  void tick() {
    if (!low_seen_) {
      if constexpr (kClockMemory) model_->rootp->__Vtrigrprev__TOP__clk = 0;
      else settle();
    }
    model_->clk = 1;
    model_->eval();
    model_->clk = 0;
    low_seen_ = false;
    changed_ = false;
  }
  Shape s_;
  unsigned cpw_, dw_;
  std::vector<std::uint32_t> accept_, soffer_;  // the pins' values, per die and per channel
  std::vector<char> open_;
  bool low_seen_ = false;  // evaluated with the clock low since the last rising edge
  bool changed_ = true;    // an input that outputs depend on changed since the last evaluation
  VerilatedContext context_;
  std::unique_ptr<Model> model_;
};

}  // namespace ssd::rtl
