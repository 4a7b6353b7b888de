// The scheduler block's suspend and resume decisions (docs/scheduler.md, "Suspend and
// resume"), on a real NAND channel's words: which read suspends what, and when the block
// sends a RESUME.
#include <catch2/catch.hpp>

#include "controller/sched_policy.h"
#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::ctrl;
using ssd::nand::test::Harness;

namespace {

nand::NandConfig part() {
  nand::NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 2;
  c.dies_per_chip = 2;
  c.planes_per_die = 2;
  c.blocks_per_plane = 4;
  c.pages_per_block = 8;
  return c;
}

constexpr Tick us = kTicksPerUs;

struct Rig {
  Harness h{part()};
  HosPolicy policy{1, 2, false, true};
  std::vector<nand::ChannelStatus> view;
  std::vector<FlashCommand> cmds;
  std::vector<Grant> out;
  Rig(std::uint8_t mode, std::uint32_t min_margin_us = 0, bool gc_reads = false, bool hold_programs = false) {
    h.engine.set_suspend_offers(true);
    view.emplace_back(h.engine);
    policy.set_suspend(mode, min_margin_us, gc_reads, hold_programs);
    cmds.reserve(64);
    for (unsigned chip = 0; chip < 2; ++chip)
      for (unsigned die = 0; die < 2; ++die)
        for (unsigned p = 0; p < 2; ++p) h.engine.backdoor_program(chip, die, p, 0, 0, 0x77);
  }
  // A command the block holds.
  FlashCommand& queue(FlashOp op, unsigned chip, unsigned die, std::uint8_t plane_mask, FlashPriority pr,
                      std::uint32_t block = 0, std::uint32_t page = 0) {
    FlashCommand& c = cmds.emplace_back();
    c.op = op;
    c.chip = static_cast<std::uint16_t>(chip);
    c.die = static_cast<std::uint16_t>(die);
    c.plane_mask = plane_mask;
    c.block.fill(block);
    c.page = page;
    c.priority = pr;
    c.id = cmds.size();
    policy.push(&c);
    return c;
  }
  // The block's decision at `t`; the grants it sends go to the channel.
  std::vector<Grant>& decide(Tick t) {
    h.run_until(t);
    out.clear();
    policy.decide_on(view, t, out, {0});
    for (Grant& g : out) {
      if (g.resume) {
        FlashCommand& r = h.make(FlashOp::Resume, g.chip, g.die, 1, 0, 0);
        h.engine.submit(&r, h.now);
      } else {
        g.cmd->suspend = g.suspend;
        h.engine.submit(g.cmd, h.now);
      }
    }
    return out;
  }
};

}  // namespace

TEST_CASE("suspend block: a host read suspends an erase only in the modes that name erases", "[sched][suspend]") {
  for (const std::uint8_t mode : {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}}) {
    Rig r(mode);
    r.h.submit(FlashOp::Erase, 0, 0, 0b01, 1, 0);  // tBERS from 15,015 ps
    FlashCommand& read = r.queue(FlashOp::Read, 0, 0, 0b10, FlashPriority::Host);
    std::vector<Grant>& g = r.decide(10 * us);
    INFO("mode " << unsigned{mode});
    if (mode & 1) {
      REQUIRE(g.size() == 1);
      CHECK(g[0].cmd == &read);
      CHECK(g[0].suspend);
    } else {
      CHECK(g.empty());
      CHECK(!r.policy.could_issue_on(0, r.view[0].at(10 * us)));
    }
  }
}

TEST_CASE("suspend block: no suspension below the threshold, nor for GC's reads without the key",
          "[sched][suspend]") {
  SECTION("threshold: 3,800 us of tBERS, 700 us of latency") {
    for (const std::uint32_t min_us : {3000u, 3090u, 3100u}) {
      Rig r(3, min_us);
      r.h.submit(FlashOp::Erase, 0, 0, 0b01, 1, 0);
      r.queue(FlashOp::Read, 0, 0, 0b10, FlashPriority::Host);
      // At 10 us the erase has 3,790.015015 us left: 3,090 whole us beyond the latency.
      const bool granted = !r.decide(10 * us).empty();
      CHECK(granted == (min_us < 3090));
    }
  }
  SECTION("GC reads") {
    for (const bool key : {false, true}) {
      Rig r(3, 0, key);
      r.h.submit(FlashOp::Erase, 0, 0, 0b01, 1, 0);
      r.queue(FlashOp::Read, 0, 0, 0b10, FlashPriority::BackgroundGc);
      std::vector<Grant>& g = r.decide(10 * us);
      CHECK(g.size() == (key ? 1u : 0u));
      if (key) CHECK(g[0].suspend);
    }
  }
}

TEST_CASE("suspend block: the held die's reads go first, then the RESUME", "[sched][suspend]") {
  Rig r(3);
  r.h.submit(FlashOp::Erase, 0, 0, 0b01, 1, 0);
  FlashCommand& r1 = r.queue(FlashOp::Read, 0, 0, 0b10, FlashPriority::Host);
  REQUIRE(r.decide(10 * us).size() == 1);
  // Held from 10 us + S + tESPD. Meanwhile an older command of the other die of the chip
  // (the candidate) and a second read of the held die queue up.
  FlashCommand& w = r.queue(FlashOp::Program, 0, 1, 0b01, FlashPriority::Host, 2, 0);
  FlashCommand& r2 = r.queue(FlashOp::Read, 0, 0, 0b01, FlashPriority::Host, 0, 0);
  std::vector<Grant>& g1 = r.decide(20 * us);  // the program: its die is idle
  REQUIRE(g1.size() == 1);
  CHECK(g1[0].cmd == &w);
  // R1's command goes at 710.009009 us; R2 waits for the die (cache read: tR of R1).
  const Tick held = 10 * us + 9'009 + 700 * us;
  CHECK(r.decide(held + 30 * us).empty());
  std::vector<Grant>& g2 = r.decide(held + 21'021 + 75 * us);  // R1's tR over: R2 on the held die
  REQUIRE(g2.size() == 1);
  CHECK(g2[0].cmd == &r2);
  CHECK(!g2[0].suspend);
  // Nothing else queued: once R1 and R2 are out, the RESUME.
  const auto until_done = [&r](const FlashCommand& c) {
    while (c.status == FlashStatus::Pending) r.h.run_until(r.h.engine.next_event());
  };
  until_done(r1);
  CHECK(r.decide(r.h.now).empty());  // R2 still under way
  until_done(r2);
  std::vector<Grant>& g3 = r.decide(r.h.now);
  REQUIRE(g3.size() == 1);
  CHECK(g3[0].resume);
  CHECK(g3[0].chip == 0);
  CHECK(g3[0].die == 0);
  r.h.run();
  CHECK(r.h.engine.counters().resumes == 1);
  CHECK(r.h.engine.in_flight() == 0);
  CHECK(r.h.engine.counters().protocol_errors == 0);
}

TEST_CASE("suspend block: a read whose die is idle goes as without suspend", "[sched][suspend]") {
  Rig r(3);
  FlashCommand& read = r.queue(FlashOp::Read, 1, 1, 0b01, FlashPriority::Host);
  std::vector<Grant>& g = r.decide(0);
  REQUIRE(g.size() == 1);
  CHECK(g[0].cmd == &read);
  CHECK(!g[0].suspend);
}

TEST_CASE("suspend block: a program suspends only where its cache register is free", "[sched][suspend]") {
  Rig r(2);
  r.h.submit(FlashOp::Program, 0, 0, 0b01, 1, 0);  // tPROG from 24.62 us
  r.h.submit(FlashOp::Program, 0, 0, 0b01, 1, 1);  // waits in plane 0's cache register
  FlashCommand& r0 = r.queue(FlashOp::Read, 0, 0, 0b01, FlashPriority::Host);
  CHECK(r.decide(60 * us).empty());  // plane 0's cache register holds the second program
  FlashCommand& r1 = r.queue(FlashOp::Read, 0, 0, 0b10, FlashPriority::Host);
  // R0, the host's oldest read, is the one that may suspend: R1 waits behind it.
  CHECK(r.decide(61 * us).empty());
  (void)r0;
  (void)r1;
}

TEST_CASE("suspend block: with suspend_hold_programs a read goes before a program to its die's cache register",
          "[sched][suspend]") {
  for (const bool hold : {false, true}) {
    Rig r(2, 0, false, hold);
    r.h.submit(FlashOp::Program, 0, 0, 0b01, 1, 0);  // tPROG from 24.62 us; the cache registers free
    FlashCommand& p2 = r.queue(FlashOp::Program, 0, 0, 0b01, FlashPriority::Host, 1, 1);
    FlashCommand& read = r.queue(FlashOp::Read, 0, 0, 0b01, FlashPriority::Host);
    std::vector<Grant>& g = r.decide(100 * us);
    INFO("hold " << hold);
    REQUIRE(g.size() == 1);
    if (hold) {  // the read suspends the program; the second program waits
      CHECK(g[0].cmd == &read);
      CHECK(g[0].suspend);
    } else {  // the older program takes plane 0's cache register: the read cannot suspend
      CHECK(g[0].cmd == &p2);
      CHECK(r.decide(101 * us).empty());
    }
  }
}
