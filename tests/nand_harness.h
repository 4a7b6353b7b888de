// Drives a ChannelEngine directly (no SystemC kernel) for the timing tests.
#pragma once

#include <deque>
#include <vector>

#include "nand/channel_engine.h"

namespace ssd::nand::test {

// The default part's bus times in picoseconds (nand_config.h: 333 MT/s, one bus cycle
// 10^6/333 ps, each bus phase rounded to whole picoseconds): C = 7 cycles (command and
// address), D = 8192 B (a page), E = 5 cycles (an erase command); and one microsecond.
namespace default_part {
constexpr Tick C = 21'021, D = 24'600'601, E = 15'015;
constexpr Tick us = 1'000'000;
}  // namespace default_part

struct Harness {
  NandConfig cfg;
  ChipActivity activity;
  ChannelEngine engine;
  std::deque<FlashCommand> cmds;  // stable addresses
  std::vector<ChannelEngine::Completed> done;
  Tick now = 0;

  explicit Harness(const NandConfig& c, unsigned channel = 0, FaultModel* faults = nullptr)
      : cfg(c), activity(c.chips()), engine(c, channel, &activity, faults) {}

  FlashCommand& make(FlashOp op, unsigned chip, unsigned die, std::uint8_t mask,
                     std::uint32_t block, std::uint32_t page) {
    FlashCommand& c = cmds.emplace_back();
    c.op = op;
    c.channel = static_cast<std::uint16_t>(engine.channel());
    c.chip = static_cast<std::uint16_t>(chip);
    c.die = static_cast<std::uint16_t>(die);
    c.plane_mask = mask;
    c.page = page;
    for (unsigned p = 0; p < kMaxPlanes; ++p) {
      c.block[p] = block;
      c.token[p] = 0x1000u + static_cast<Token>(cmds.size() * 16 + p);
    }
    c.id = cmds.size();
    return c;
  }
  // Submits at the current time.
  FlashCommand& submit(FlashOp op, unsigned chip, unsigned die, std::uint8_t mask,
                       std::uint32_t block, std::uint32_t page) {
    FlashCommand& c = make(op, chip, die, mask, block, page);
    engine.submit(&c, now);
    return c;
  }
  // Runs until nothing is left to do.
  void run() { run_until(kNever); }
  // Runs every event at or before t, then sets the time to t (if t is finite).
  void run_until(Tick t) {
    while (engine.next_event() != kNever && engine.next_event() <= t) {
      now = engine.next_event();
      engine.advance(now, done);
    }
    if (t != kNever) now = t;
  }
  // Programs pages [0, n) of `block` on `mask` of (chip, die) and waits until done.
  void fill(unsigned chip, unsigned die, std::uint8_t mask, std::uint32_t block, std::uint32_t n) {
    for (std::uint32_t pg = 0; pg < n; ++pg) submit(FlashOp::Program, chip, die, mask, block, pg);
    run();
  }
};

}  // namespace ssd::nand::test
