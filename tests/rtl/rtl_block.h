// The Verilog scheduler block (rtl/sched_block.v), verilated, behind plain C++ calls: the
// pin-level boundary for the tests (rtl_test.cpp). `Model` is a class Verilator made of
// one parameterisation of the block (tests/CMakeLists.txt names them).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <verilated.h>

#include "tlm/flash_command.h"

namespace ssd::test {

// Bits [lo, lo + width) of a port, whether Verilator made it an integer or a wide array.
template <typename Port>
void set_bits(Port& port, unsigned lo, unsigned width, std::uint64_t value) {
  for (unsigned b = 0; b < width; ++b) {
    const bool bit = value >> b & 1u;
    const unsigned at = lo + b;
    if constexpr (std::is_integral_v<Port>) {
      if (bit) port |= static_cast<Port>(Port{1} << at);
      else port &= static_cast<Port>(~(Port{1} << at));
    } else {
      if (bit) port[at / 32] |= 1u << (at % 32);
      else port[at / 32] &= ~(1u << (at % 32));
    }
  }
}
template <typename Port>
std::uint64_t get_bits(const Port& port, unsigned lo, unsigned width) {
  std::uint64_t v = 0;
  for (unsigned b = 0; b < width; ++b) {
    const unsigned at = lo + b;
    bool bit;
    if constexpr (std::is_integral_v<Port>) bit = static_cast<std::uint64_t>(port) >> at & 1u;
    else bit = port[at / 32] >> (at % 32) & 1u;
    v |= std::uint64_t{bit} << b;
  }
  return v;
}

// The geometry a model was verilated with (its parameters).
struct RtlGeometry {
  unsigned channels, chips, dies, depth;
  bool ios, read_first, by_priority;
};

template <typename Model>
class RtlBlock {
 public:
  static constexpr unsigned kAcceptBits = 3 * kStartBits;
  struct Grant {
    bool valid = false;
    std::uint64_t id = 0;
    unsigned chip = 0;
  };

  explicit RtlBlock(const RtlGeometry& g) : g_(g), model_(std::make_unique<Model>(&context_)) {
    model_->rst = 1;
    model_->push = 0;
    model_->decide = 0;
    tick();
    model_->rst = 0;
  }
  // One edge that queues `c`.
  void push(const FlashCommand& c) {
    model_->push = 1;
    model_->push_id = static_cast<std::uint32_t>(c.id);
    model_->push_channel = c.channel;
    model_->push_chip = c.chip;
    model_->push_die = c.die;
    model_->push_op = static_cast<unsigned>(c.op);
    model_->push_planes = c.plane_mask;
    model_->push_class = static_cast<unsigned>(c.priority);
    tick();
    model_->push = 0;
  }
  // One decision edge, the channels open or not (`open` bit per channel) and each die's
  // accept word (by (channel * chips + chip) * dies + die); the grants per channel.
  std::vector<Grant> decide(std::uint64_t open, const std::vector<std::uint32_t>& accept) {
    model_->decide = 1;
    model_->open = open;
    for (unsigned i = 0; i < accept.size(); ++i) set_bits(model_->accept, i * kAcceptBits, kAcceptBits, accept[i]);
    tick();
    model_->decide = 0;
    const unsigned cpw = g_.chips > 1 ? bits_for(g_.chips) : 1;
    std::vector<Grant> out(g_.channels);
    for (unsigned ch = 0; ch < g_.channels; ++ch) {
      out[ch].valid = get_bits(model_->grant, ch, 1);
      out[ch].id = get_bits(model_->grant_id, ch * 32, 32);
      out[ch].chip = static_cast<unsigned>(get_bits(model_->grant_chip, ch * cpw, cpw));
    }
    return out;
  }
  bool overflow() const { return model_->overflow; }

 private:
  static unsigned bits_for(unsigned n) {  // $clog2(n)
    unsigned b = 0;
    while ((1u << b) < n) ++b;
    return b;
  }
  void tick() {
    model_->clk = 0;
    model_->eval();
    model_->clk = 1;
    model_->eval();
  }
  RtlGeometry g_;
  VerilatedContext context_;
  std::unique_ptr<Model> model_;
};

}  // namespace ssd::test
