// HOS with independent plane reads (docs/scheduler.md, "Independent plane reads"), on a
// real NAND channel's accept words: a chip whose candidate is a read its die cannot start
// offers a later read of the candidate's die and class that it can; programs and erases
// are never passed so. Times by hand, in picoseconds (tests/nand_harness.h: C = 21,021 ps a command
// phase, D = 24,600,601 ps a page's data out; tR = 75 us).
#include <catch2/catch.hpp>

#include "controller/sched_policy.h"
#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::ctrl;
using ssd::nand::test::Harness;
using namespace ssd::nand::test::default_part;

namespace {

constexpr Tick tR = 75 * us;

nand::NandConfig part() {
  nand::NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 2;
  c.dies_per_chip = 2;
  c.planes_per_die = 2;
  c.blocks_per_plane = 4;
  c.pages_per_block = 8;
  c.independent_plane_reads = true;
  return c;
}

struct Rig {
  Harness h{part()};
  HosPolicy policy;
  std::vector<nand::ChannelStatus> view;
  std::vector<FlashCommand> cmds;
  std::vector<Grant> out;
  Rig(bool plane_reads, bool read_first = false, std::uint8_t suspend = 0) : policy(1, 2, read_first, true) {
    if (suspend) {
      h.engine.set_suspend_offers(true);
      policy.set_suspend(suspend, 0, false, false);
    }
    view.emplace_back(h.engine);
    policy.set_plane_reads(plane_reads);
    cmds.reserve(64);
    for (unsigned die = 0; die < 2; ++die)
      for (unsigned p = 0; p < 2; ++p)
        for (unsigned pg = 0; pg < 4; ++pg) h.engine.backdoor_program(0, die, p, 0, pg, 0x100 + pg);
  }
  FlashCommand& queue(FlashOp op, unsigned die, std::uint8_t plane_mask, std::uint32_t page,
                      FlashPriority pr = FlashPriority::Host) {
    FlashCommand& c = cmds.emplace_back();
    c.op = op;
    c.chip = 0;
    c.die = static_cast<std::uint16_t>(die);
    c.plane_mask = plane_mask;
    c.block.fill(op == FlashOp::Program ? 1 : 0);
    c.page = page;
    c.priority = pr;
    c.id = cmds.size();
    policy.push(&c);
    return c;
  }
  // The block's decision at `t` (what it grants goes to the channel), and whether the
  // block's shortcut agreed that it would issue.
  std::vector<Grant>& decide(Tick t) {
    h.run_until(t);
    agreed = policy.could_issue_on(0, view[0].at(t));
    out.clear();
    policy.decide_on(view, t, out, {0});
    for (Grant& g : out) {
      g.cmd->suspend = g.suspend;
      h.engine.submit(g.cmd, h.now);
    }
    if (agreed != !out.empty()) FAIL("could_issue_on disagrees with the decision at " << t);
    return out;
  }
  bool agreed = false;
};

}  // namespace

TEST_CASE("plane reads: a read on a free plane passes the chip's candidate read, which waits for its plane",
          "[sched][plane reads]") {
  for (const bool on : {false, true}) {
    INFO("plane reads " << on);
    Rig r(on);
    FlashCommand& a = r.queue(FlashOp::Read, 0, 0b01, 0);  // plane 0
    FlashCommand& b = r.queue(FlashOp::Read, 0, 0b01, 1);  // plane 0 again: waits for a's data register
    FlashCommand& c = r.queue(FlashOp::Read, 0, 0b10, 2);  // plane 1
    REQUIRE(r.decide(0).size() == 1);
    CHECK(r.out[0].cmd == &a);
    // At C a's command phase ends and the bus is free: b, the candidate, cannot start.
    std::vector<Grant>& g = r.decide(C);
    if (!on) {
      CHECK(g.empty());
      continue;
    }
    REQUIRE(g.size() == 1);
    CHECK(g[0].cmd == &c);
    CHECK(r.policy.plane_reads_granted() == 1);
    r.h.run();
    // c: command C .. 2C, tR from 2C, its data out after a's (C + tR .. C + tR + D): the
    // two reads end as if submitted together (tests/nand/plane_reads_test.cpp).
    CHECK(a.t_done == C + tR + D);
    CHECK(c.t_start == C);
    CHECK(c.t_array_start == 2 * C);
    CHECK(c.t_done == C + tR + 2 * D);
    CHECK(c.token[1] == 0x102);
    CHECK(r.policy.queued() == 1);  // b: the block grants it once plane 0 is free
    CHECK(r.cmds[1].id == b.id);
  }
}

TEST_CASE("plane reads: a read of another die of the chip does not pass the candidate read",
          "[sched][plane reads]") {
  Rig r(true);
  r.queue(FlashOp::Read, 0, 0b01, 0);
  r.queue(FlashOp::Read, 0, 0b01, 1);
  r.queue(FlashOp::Read, 1, 0b01, 3);  // die 1: free, but the chip's unit stays the queue
  FlashCommand& same = r.queue(FlashOp::Read, 0, 0b10, 2);
  REQUIRE(r.decide(0).size() == 1);
  std::vector<Grant>& g = r.decide(C);
  REQUIRE(g.size() == 1);
  CHECK(g[0].cmd == &same);  // the oldest read of the candidate's die on a free plane
}

TEST_CASE("plane reads: a program candidate is not passed, nor is a read of another class or marked keep_order",
          "[sched][plane reads]") {
  SECTION("the candidate is a program") {
    Rig r(true);
    r.queue(FlashOp::Read, 0, 0b01, 0);
    REQUIRE(r.decide(0).size() == 1);
    r.queue(FlashOp::Program, 0, 0b10, 0);  // older than the read below: the candidate
    r.queue(FlashOp::Read, 0, 0b10, 2);
    CHECK(r.decide(C).empty());  // the die runs a read: the program waits, and the read behind it
    CHECK(r.policy.plane_reads_granted() == 0);
  }
  SECTION("read first: the read is the candidate itself") {
    Rig r(true, true);
    r.queue(FlashOp::Read, 0, 0b01, 0);
    REQUIRE(r.decide(0).size() == 1);
    r.queue(FlashOp::Program, 0, 0b10, 0);
    FlashCommand& rd = r.queue(FlashOp::Read, 0, 0b10, 2);
    std::vector<Grant>& g = r.decide(C);
    REQUIRE(g.size() == 1);
    CHECK(g[0].cmd == &rd);
    CHECK(r.policy.plane_reads_granted() == 0);
  }
  SECTION("a background GC read behind a host read") {
    Rig r(true);
    r.queue(FlashOp::Read, 0, 0b01, 0);
    r.queue(FlashOp::Read, 0, 0b01, 1);
    r.queue(FlashOp::Read, 0, 0b10, 2, FlashPriority::BackgroundGc);
    REQUIRE(r.decide(0).size() == 1);
    CHECK(r.decide(C).empty());
  }
  SECTION("a read marked keep_order") {
    Rig r(true);
    r.queue(FlashOp::Read, 0, 0b01, 0);
    r.queue(FlashOp::Read, 0, 0b01, 1);
    r.queue(FlashOp::Read, 0, 0b10, 2).keep_order = true;
    FlashCommand& free = r.queue(FlashOp::Read, 0, 0b10, 3);
    REQUIRE(r.decide(0).size() == 1);
    std::vector<Grant>& g = r.decide(C);
    REQUIRE(g.size() == 1);
    CHECK(g[0].cmd == &free);  // the next read that may pass
  }
}

TEST_CASE("plane reads with suspend on: the plane read goes before a suspension", "[sched][plane reads][suspend]") {
  Rig r(true, false, 3);
  FlashCommand& a = r.queue(FlashOp::Read, 0, 0b01, 0);
  r.queue(FlashOp::Read, 0, 0b01, 1);
  FlashCommand& c = r.queue(FlashOp::Read, 0, 0b10, 2);
  REQUIRE(r.decide(0).size() == 1);
  CHECK(r.out[0].cmd == &a);
  std::vector<Grant>& g = r.decide(C);
  REQUIRE(g.size() == 1);
  CHECK(g[0].cmd == &c);
  CHECK(!g[0].suspend);
  r.h.run();
  CHECK(c.t_done == C + tR + 2 * D);
}
