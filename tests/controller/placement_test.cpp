// Write placement (controller/write_policies.h) and batching into n-plane commands
// (controller/die_batcher.h), on hand-made device states; Chen et al.'s bus equations
// against the configured timing, and the NAND's own timeline of a k x p write batch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <vector>

#include "controller/die_batcher.h"
#include "controller/policies.h"
#include "controller/write_policies.h"
#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

// A device state made by hand: what each plane can take, its host stream's next offset,
// each die's queued commands, and the forecast (driven by issuing commands to it).
struct FakeView final : AllocationView {
  nand::NandConfig n;
  std::vector<char> placeable;
  std::vector<std::uint32_t> offsets;
  std::vector<DieLoad> loads;
  BusyForecast fc;
  Tick t = 0;
  explicit FakeView(const nand::NandConfig& c)
      : n(c),
        placeable(planes(), 1),
        offsets(planes(), 0),
        loads(c.chips() * c.dies_per_chip),
        fc(c) {}
  const nand::NandConfig& nand() const override { return n; }
  std::uint32_t planes() const override {
    return static_cast<std::uint32_t>(n.chips() * n.dies_per_chip * n.planes_per_die);
  }
  std::uint32_t chip_of_plane(std::uint32_t plane) const override { return plane / (n.dies_per_chip * n.planes_per_die); }
  std::uint32_t free_blocks(std::uint32_t) const override { return 10; }
  std::uint32_t commands_outstanding(std::uint32_t) const override { return 0; }
  std::uint32_t unbound_programs(std::uint32_t) const override { return 0; }
  const BusyForecast& forecast() const override { return fc; }
  Tick now() const override { return t; }
  bool can_place(std::uint32_t plane) const override { return placeable[plane] != 0; }
  std::uint32_t next_offset(std::uint32_t plane) const override { return offsets[plane]; }
  DieLoad die_load(std::uint32_t die) const override { return loads[die]; }
  // Issues a one-plane command of `op` to die (chip * dies + die) into the forecast and
  // the die's queue.
  void issue(FlashOp op, std::uint32_t die) {
    FlashCommand c;
    c.op = op;
    const std::uint32_t chip = die / n.dies_per_chip;
    c.channel = static_cast<std::uint16_t>(chip / n.chips_per_channel);
    c.chip = static_cast<std::uint16_t>(chip % n.chips_per_channel);
    c.die = static_cast<std::uint16_t>(die % n.dies_per_chip);
    c.plane_mask = 1;
    fc.issued(c, t);
    (op == FlashOp::Read ? loads[die].reads : op == FlashOp::Program ? loads[die].programs : loads[die].erases)++;
  }
};

// 2 channels x 2 chips x 2 dies x 2 planes: 8 dies, 16 planes.
nand::NandConfig small() {
  nand::NandConfig n;
  n.channels = 2;
  n.chips_per_channel = 2;
  n.dies_per_chip = 2;
  n.planes_per_die = 2;
  n.blocks_per_plane = 16;
  n.pages_per_block = 8;
  n.page_bytes = 4096;
  n.bus_mts = 38;
  n.t_read_us = 20;
  n.t_prog_us = 200;
  return n;
}

FtlConfig ftl_of(const nand::NandConfig& n) {
  FtlConfig f;
  f.nand = n;
  f.overprovisioning = 0.25;
  return f;
}

std::uint32_t die_of_plane(const nand::NandConfig& n, std::uint32_t plane) { return plane / n.planes_per_die; }
std::uint32_t channel_of_plane(const nand::NandConfig& n, std::uint32_t plane) {
  return plane / (n.chips_per_channel * n.dies_per_chip * n.planes_per_die);
}

}  // namespace

TEST_CASE("placement: Chen's bus equations at 38 MB/s, 4 KiB pages, 7 cycles", "[placement][chen]") {
  nand::NandConfig n = small();
  const double C = ticks_to_us(n.bus_ticks(n.cmd_addr_cycles));  // Eq. 2
  const double D = ticks_to_us(n.bus_ticks(n.page_bytes));       // Eq. 3
  CHECK(C == Approx(0.184).margin(0.0005));
  CHECK(D == Approx(107.8).margin(0.05));
  // Eq. 1: a write batch of k x p = 4 pages on the channel; Eq. 6 with tPROG 200 us;
  // Eq. 7: a two-plane read batch with tR 20 us (the paper prints 235.9, truncated).
  CHECK(4 * (C + D) == Approx(431.9).margin(0.05));
  CHECK(4 * (C + D) + n.t_prog_us == Approx(631.9).margin(0.05));
  CHECK(2 * (C + D) + n.t_read_us == Approx(235.95).margin(0.05));
  // The firmware's forecast (what `delay` weighs) charges each command C + D of bus per
  // page, the channel's one command at a time: a batch of k x p = 4 pages as two-plane
  // programs on the chip's two dies ends its bus time at Eq. 1 and its last die at Eq. 6.
  BusyForecast f(n);
  for (std::uint16_t die = 0; die < 2; ++die) {
    FlashCommand c;
    c.op = FlashOp::Program;
    c.die = die;
    c.plane_mask = 0b11;
    f.issued(c, 0);
  }
  CHECK(ticks_to_us(f.channel_end(0)) == Approx(4 * (C + D)).margin(0.001));
  CHECK(ticks_to_us(f.die_end(0, 1)) == Approx(4 * (C + D) + n.t_prog_us).margin(0.001));
}

TEST_CASE("placement: the NAND's timeline of a write batch of 1..k x p pages is Chen's Eq. 6", "[placement][chen]") {
  // k = 2 dies x p = 2 planes of one chip: the batch's pages go to die 0's planes, then
  // die 1's, as n-plane programs; the last ends at N (C + D) + tPROG.
  nand::NandConfig n = small();
  n.channels = 1;
  n.chips_per_channel = 1;
  n.cache_program = false;
  const double C = ticks_to_us(n.bus_ticks(n.cmd_addr_cycles)), D = ticks_to_us(n.bus_ticks(n.page_bytes));
  for (unsigned pages = 1; pages <= 4; ++pages) {
    nand::test::Harness h(n);
    const unsigned on0 = std::min(pages, 2u), on1 = pages - on0;
    FlashCommand& a = h.submit(FlashOp::Program, 0, 0, static_cast<std::uint8_t>((1u << on0) - 1), 1, 0);
    FlashCommand* b = on1 ? &h.submit(FlashOp::Program, 0, 1, static_cast<std::uint8_t>((1u << on1) - 1), 1, 0) : nullptr;
    h.run();
    REQUIRE(a.status == FlashStatus::Ok);
    const Tick end = b ? std::max(a.t_done, b->t_done) : a.t_done;
    INFO("batch of " << pages << " pages");
    CHECK(ticks_to_us(end) == Approx(pages * (C + D) + n.t_prog_us).margin(0.001));
  }
}

TEST_CASE("placement: the multi-level stripe, Park's formula on Park's geometry", "[placement][park]") {
  nand::NandConfig n;  // 16 channels x 2 packages x 4 dies x 4 planes
  n.channels = 16;
  n.chips_per_channel = 2;
  n.dies_per_chip = 4;
  n.planes_per_die = 4;
  StripeAllocator s(n, StaticAllocator(n, "CWDP"));
  // Request i = 37: channel 37 mod 16 = 5, package (37 / 16) mod 2 = 0, die (37 / 32)
  // mod 4 = 1, plane (37 / 128) mod 4 = 0.
  const std::uint32_t plane = s.plane_of_write(37);
  const std::uint32_t ppd = 4, dpc = 4, cpc = 2;
  CHECK(plane % ppd == 0);
  CHECK(plane / ppd % dpc == 1);
  CHECK(plane / (ppd * dpc) % cpc == 0);
  CHECK(plane / (ppd * dpc * cpc) == 5);
  // And it places writes in that order, whatever their logical pages.
  FakeView v(n);
  for (std::uint64_t i = 0; i < 300; ++i) CHECK(s.plane_for(1000 - i, v) == s.plane_of_write(i));
}

TEST_CASE("placement: SQF takes the die with the fewest queued commands, SETF the earliest-ending", "[placement][park]") {
  const nand::NandConfig n = small();
  const Ftl ftl(ftl_of(n));
  FakeView v(n);
  // Every die but 5 has a queued program; die 2 has two reads only (ends soonest of the
  // busy ones), die 5 has three programs.
  for (std::uint32_t d = 0; d < 8; ++d)
    if (d != 5 && d != 2) v.issue(FlashOp::Program, d);
  v.issue(FlashOp::Read, 2);
  v.issue(FlashOp::Read, 2);
  for (int i = 0; i < 3; ++i) v.issue(FlashOp::Program, 5);
  auto sqf = make_write_allocator("sqf", ftl);
  auto setf = make_write_allocator("setf", ftl);
  // SQF: one queued command on every die but 2 (two) and 5 (three): a tie among 0, 1, 3,
  // 4, 6, 7, to the first in the rotation, which starts at die 0 and goes channel first
  // (die 0 is channel 0's chip 0, die 4 channel 1's chip 0).
  CHECK(die_of_plane(n, sqf->plane_for(0, v)) == 0);
  CHECK(die_of_plane(n, sqf->plane_for(0, v)) == 4);
  // SETF, with B = C + D: a channel moves one command's bytes at a time, so on channel 0
  // die 0's program ends at B + tPROG (308 us), die 1's at 2B + tPROG, die 3's at
  // 3B + tPROG and die 2's reads at 5B + 2 tR; on channel 1 dies 4, 6, 7 alike, die 5
  // last. Dies 0 and 4 tie: the rotation's first, die 0.
  CHECK(die_of_plane(n, setf->plane_for(0, v)) == 0);
  // A die whose planes cannot place is never chosen: without dies 0 and 4, dies 6 and 1
  // tie at 2B + tPROG, and the rotation (channel first, from after die 0) meets die 6
  // first.
  for (std::uint32_t die : {0u, 4u}) v.placeable[die * 2] = v.placeable[die * 2 + 1] = 0;
  CHECK(die_of_plane(n, setf->plane_for(0, v)) == 6);
}

TEST_CASE("placement: weight and delay choose the channel, then its earliest-free die", "[placement][chen]") {
  const nand::NandConfig n = small();
  const Ftl ftl(ftl_of(n));
  FakeView v(n);
  // Channel 0 (dies 0-3): three reads, weight 3. Channel 1 (dies 4-7): two programs,
  // weight 4, on dies 4 and 5.
  v.issue(FlashOp::Read, 0);
  v.issue(FlashOp::Read, 0);
  v.issue(FlashOp::Read, 1);
  v.issue(FlashOp::Program, 4);
  v.issue(FlashOp::Program, 5);
  auto weight = make_write_allocator("weight", ftl);
  const std::uint32_t w = weight->plane_for(0, v);
  CHECK(channel_of_plane(n, w) == 0);
  CHECK(die_of_plane(n, w) == 2);  // dies 2 and 3 idle: the first
  // Delay: the predicted waits (B = C + D). On channel 0 the second read of die 0 waits
  // for the first (B + tR), die 1's read for the two reads' bus time (2B); on channel 1
  // die 5's program waits for die 4's bus time (B): channel 1 has the less total delay.
  auto delay = make_write_allocator("delay", ftl);
  const Tick B = n.bus_ticks(n.cmd_addr_cycles) + n.bus_ticks(n.page_bytes), tR = us_to_ticks(n.t_read_us);
  CHECK(v.fc.channel_delay(0) == (B + tR) + 2 * B);
  CHECK(v.fc.channel_delay(1) == B);
  const std::uint32_t d = delay->plane_for(0, v);
  CHECK(channel_of_plane(n, d) == 1);
  CHECK(die_of_plane(n, d) == 6);  // dies 6 and 7 idle: the first
  // Round robin, one write per instant: channel 0, then 1, then 0.
  auto rr = make_write_allocator("rr", ftl);
  for (unsigned want : {0u, 1u, 0u}) {
    ++v.t;
    CHECK(channel_of_plane(n, rr->plane_for(0, v)) == want);
  }
}

TEST_CASE("placement: rr is plain round robin, channels and then each channel's dies in turn", "[placement][chen]") {
  const nand::NandConfig n = small();  // 2 channels of 4 dies
  const Ftl ftl(ftl_of(n));
  FakeView v(n);
  v.issue(FlashOp::Program, 0);  // die 0 busy: rr does not look
  auto rr = make_write_allocator("rr", ftl);
  CHECK_FALSE(rr->uses_forecast());
  CHECK(rr->groups() == nullptr);
  // Pages of one instant as of any: channel 0 die 0, channel 1 die 4, channel 0 die 1, ...
  const std::uint32_t want[10] = {0, 4, 1, 5, 2, 6, 3, 7, 0, 4};
  for (std::uint32_t w : want) CHECK(die_of_plane(n, rr->plane_for(0, v)) == w);
  // A die that cannot place is passed over, the rotation going on after it.
  v.placeable[2] = v.placeable[3] = 0;  // die 1
  CHECK(die_of_plane(n, rr->plane_for(0, v)) == 2);  // channel 0: die 1 skipped
  CHECK(die_of_plane(n, rr->plane_for(0, v)) == 5);
}

TEST_CASE("placement: Chen's write group, its size from the bus time until its flash is free", "[placement][chen]") {
  // One channel, one chip of k = 2 dies x p = 2 planes. Two programs issued at t = 0: the
  // bus carries them one after the other (B = C + D each), die 0 ends at B + tPROG, die 1
  // at 2B + tPROG. A group opened at t = 0 on the earliest-free die, 0, starts at the
  // later of the channel's end (2B) and die 0's (B + tPROG = 307.9 us) and holds
  // 1 + floor(307.9 / 107.9) = 3 pages.
  nand::NandConfig n = small();
  n.channels = 1;
  n.chips_per_channel = 1;
  const Ftl ftl(ftl_of(n));
  const Tick B = n.bus_ticks(n.cmd_addr_cycles) + n.bus_ticks(n.page_bytes), P = us_to_ticks(n.t_prog_us);
  for (const char* name : {"weight", "delay"}) {
    INFO(name);
    FakeView v(n);
    v.issue(FlashOp::Program, 0);
    v.issue(FlashOp::Program, 1);
    REQUIRE(v.fc.die_end(0, 0) == B + P);
    auto a = make_write_allocator(name, ftl);
    REQUIRE(a->uses_forecast());
    CHECK(ChannelFirstAllocator::group_size(0, B + P, B, 4) == 3);
    std::uint32_t p = a->plane_for(0, v);
    CHECK(die_of_plane(n, p) == 0);
    CHECK(a->group_note().opened);
    CHECK(a->group_note().until == B + P);
    CHECK_FALSE(a->group_note().last);
    v.offsets[p]++;
    // Pages of later requests join until the group's start: die 0's other plane at
    // 100 us, then die 1 at its start.
    v.t = us_to_ticks(100);
    p = a->plane_for(0, v);
    CHECK(p == 1);
    CHECK_FALSE(a->group_note().opened);
    CHECK(a->group_note().id == 1);
    v.offsets[p]++;
    v.t = B + P;
    p = a->plane_for(0, v);
    CHECK(die_of_plane(n, p) == 1);
    CHECK(a->group_note().last);  // the third: full
    v.offsets[p]++;
    // Full at 3: the next page opens a group, on die 0 again (it ends first); one page
    // past the start opens one too.
    p = a->plane_for(0, v);
    CHECK(a->group_note().opened);
    CHECK(a->group_note().id == 2);
    const Tick second = a->group_note().until;
    v.t = second + 1;
    a->plane_for(0, v);
    CHECK(a->group_note().opened);
    CHECK(a->group_note().id == 3);
    // Groups by pages formed: one of 3, two of 1 so far; by size predicted, the first 3.
    const WriteGroupCounters* g = a->groups();
    REQUIRE(g != nullptr);
    CHECK(g->formed[3] == 1);
    CHECK(g->formed[1] == 2);
    CHECK(g->predicted[3] == 1);
    CHECK(g->predicted[1] + g->predicted[2] + g->predicted[3] + g->predicted[4] == 3);
  }
}

TEST_CASE("placement: an idle flash gets groups of one page, a busy one up to k x p", "[placement][chen]") {
  const nand::NandConfig n = small();  // k = 2, p = 2
  const Ftl ftl(ftl_of(n));
  const Tick B = n.bus_ticks(n.cmd_addr_cycles) + n.bus_ticks(n.page_bytes);
  CHECK(ChannelFirstAllocator::group_size(0, 0, B, 4) == 1);
  CHECK(ChannelFirstAllocator::group_size(0, B - 1, B, 4) == 1);
  CHECK(ChannelFirstAllocator::group_size(0, B, B, 4) == 2);
  CHECK(ChannelFirstAllocator::group_size(5, 5 + 100 * B, B, 4) == 4);
  CHECK(ChannelFirstAllocator::group_size(10, 5, B, 4) == 1);  // a start already past
  // Idle device: delay's pages of one instant go one to a channel, to the earliest-free
  // die of each (no group waits on an idle flash).
  FakeView v(n);
  auto a = make_write_allocator("delay", ftl);
  CHECK(channel_of_plane(n, a->plane_for(0, v)) == 0);
  CHECK(channel_of_plane(n, a->plane_for(0, v)) == 1);
  // Every die of the device busy for a long time: a group of k x p pages, the die's two
  // planes and then the chip's other die, all at one instant.
  for (std::uint32_t d = 0; d < 8; ++d)
    for (int i = 0; i < 4; ++i) v.issue(FlashOp::Program, d);
  ++v.t;
  auto b = make_write_allocator("delay", ftl);
  std::vector<std::uint32_t> got;
  for (int i = 0; i < 5; ++i) {
    got.push_back(b->plane_for(0, v));
    v.offsets[got.back()]++;
  }
  CHECK(die_of_plane(n, got[0]) == die_of_plane(n, got[1]));
  CHECK(got[0] != got[1]);
  CHECK(die_of_plane(n, got[2]) == die_of_plane(n, got[3]));
  CHECK(die_of_plane(n, got[2]) / 2 == die_of_plane(n, got[0]) / 2);  // the same chip
  CHECK(die_of_plane(n, got[2]) != die_of_plane(n, got[0]));
  CHECK(b->groups()->formed[4] == 1);
  CHECK(b->groups()->formed[1] == 1);  // the fifth page: a new group
}

TEST_CASE("placement: queueTotalDelay counts each command's delay from its request's arrival (Eq. 9)",
          "[placement][chen]") {
  // Two reads of die 0 issued at 50 us, their requests arrived at 0 and at 30 us: the first
  // starts at 50 us (delay 50), the second after the first's bus and tR (delay 20 + B + tR).
  const nand::NandConfig n = small();
  BusyForecast f(n);
  const Tick us = us_to_ticks(1), B = n.bus_ticks(n.cmd_addr_cycles) + n.bus_ticks(n.page_bytes);
  FlashCommand c;
  c.op = FlashOp::Read;
  c.plane_mask = 1;
  const Tick d1 = f.issued(c, 50 * us, 0);
  const Tick d2 = f.issued(c, 50 * us, 30 * us);
  CHECK(d1 == 50 * us);
  CHECK(d2 == 20 * us + B + us_to_ticks(n.t_read_us));
  CHECK(f.channel_delay(0) == d1 + d2);
  f.completed(c, 60 * us, d1);
  CHECK(f.channel_delay(0) == d2);
}

TEST_CASE("placement: inside a die, the plane whose host stream is furthest behind", "[placement]") {
  const nand::NandConfig n = small();
  const Ftl ftl(ftl_of(n));
  FakeView v(n);
  for (std::uint32_t p = 0; p < v.planes(); ++p) v.offsets[p] = 5;
  v.offsets[1] = 4;  // die 0: plane 1 behind
  auto sqf = make_write_allocator("sqf", ftl);
  CHECK(sqf->plane_for(0, v) == 1);
}

TEST_CASE("placement: a die's planes meet again at one offset after a plane opens a block", "[placement]") {
  // The offsets go around the block (8 pages): plane 0 has just filled its block and
  // reports 0 (its next page opens a block), plane 1 has one page left at 7. Plane 1 is
  // behind and writes next; the lowest raw offset would take plane 0 for the rest of
  // its next block and leave plane 1 at 7.
  const nand::NandConfig n = small();
  const Ftl ftl(ftl_of(n));
  for (const PolicyName& p : write_policies()) {
    if (std::string(p.name) == "static" || std::string(p.name) == "stripe") continue;
    INFO(p.name);
    FakeView v(n);
    for (std::uint32_t q = 0; q < v.planes(); ++q) v.offsets[q] = q % 2 == 0 ? 0 : 7;
    auto a = make_write_allocator(p.name, ftl);
    CHECK(a->plane_for(0, v) % 2 == 1);
    // Page by page over ten blocks, every die's two planes stay within one page of each
    // other (around the block): every placed page advances its plane's offset, as the
    // FTL's allocation does.
    FakeView w(n);
    auto b = make_write_allocator(p.name, ftl);
    const std::uint32_t ppb = n.pages_per_block;
    for (int i = 0; i < static_cast<int>(10 * ppb * w.planes()); ++i) {
      const std::uint32_t plane = b->plane_for(static_cast<std::uint64_t>(i), w);
      w.offsets[plane] = (w.offsets[plane] + 1) % ppb;
      for (std::uint32_t d = 0; d < w.planes() / 2; ++d) {
        const std::uint32_t o0 = w.offsets[2 * d], o1 = w.offsets[2 * d + 1];
        const std::uint32_t apart = std::min((o0 + ppb - o1) % ppb, (o1 + ppb - o0) % ppb);
        if (apart > 1) FAIL("die " << d << " planes at offsets " << o0 << " and " << o1 << " after " << i + 1 << " pages");
      }
    }
  }
}

TEST_CASE("placement: four planes around the block, and a plane that cannot place left out", "[placement]") {
  nand::NandConfig n = small();
  n.planes_per_die = 4;
  const Ftl ftl(ftl_of(n));
  const std::uint32_t ppb = n.pages_per_block;  // 8
  auto at = [&](std::vector<std::uint32_t> offsets, std::vector<int> placeable = {1, 1, 1, 1}) {
    FakeView v(n);
    for (std::uint32_t q = 0; q < v.planes(); ++q) {
      v.offsets[q] = offsets[q % 4];
      v.placeable[q] = placeable[q % 4];
    }
    return make_write_allocator("sqf", ftl)->plane_for(0, v) % 4;
  };
  // Planes 0 and 1 have opened their next blocks (0 and 1), plane 2 is at its block's
  // last page, plane 3 one before: plane 3 is the furthest behind, around the block.
  CHECK(at({0, 1, ppb - 1, ppb - 2}) == 3);
  CHECK(at({0, 1, ppb - 1, ppb - 1}) == 2);  // ties: the lower plane
  CHECK(at({2, 2, 2, 2}) == 0);
  CHECK(at({3, 1, 2, 3}) == 1);
  // Plane 1, behind, cannot place: the next behind of the others.
  CHECK(at({3, 1, 2, 3}, {1, 0, 1, 1}) == 2);
  // An offset given as the block's size is its first page (a full block's stream).
  CHECK(at({ppb, 1, 1, 1}) == 0);
  // From 4 aligned planes, page by page: a turn over the four, at one offset.
  FakeView w(n);
  auto a = make_write_allocator("sqf", ftl);
  for (int i = 0; i < static_cast<int>(3 * ppb * w.planes()); ++i) {
    const std::uint32_t plane = a->plane_for(static_cast<std::uint64_t>(i), w);
    w.offsets[plane] = (w.offsets[plane] + 1) % ppb;
    // Each plane's offset from plane 0's, around the block, in [-1, ppb - 2].
    const std::uint32_t die = plane / 4;
    int lo = 0, hi = 0;
    for (std::uint32_t q = 1; q < 4; ++q) {
      const int d = static_cast<int>((w.offsets[die * 4 + q] + ppb - w.offsets[die * 4]) % ppb);
      const int o = d == static_cast<int>(ppb) - 1 ? -1 : d;
      lo = std::min(lo, o);
      hi = std::max(hi, o);
    }
    if (hi - lo > 1) FAIL("die " << die << " planes more than a page apart after " << i + 1 << " pages");
  }
}

TEST_CASE("placement: no policy places a page on a plane that cannot take one", "[placement]") {
  const nand::NandConfig n = small();
  const Ftl ftl(ftl_of(n));
  for (const PolicyName& p : write_policies()) {
    if (std::string(p.name) == "static") continue;
    FakeView v(n);
    std::fill(v.placeable.begin(), v.placeable.end(), 0);
    v.placeable[13] = 1;  // one plane left
    auto a = make_write_allocator(p.name, ftl);
    INFO(p.name);
    for (int i = 0; i < 40; ++i) CHECK(a->plane_for(static_cast<std::uint64_t>(i), v) == 13);
    // None left: the static plane, where the write waits for space.
    v.placeable[13] = 0;
    CHECK(a->plane_for(7, v) == ftl.plane_of_lpn(7));
  }
}

namespace {

// A command as the holding stage keeps it: the protocol's and the firmware's record.
struct Held {
  FlashCommand f;
  FwCommand r;
  Held(FlashOp op, unsigned plane, std::uint32_t page, FlashPriority pr = FlashPriority::Host) {
    f.op = op;
    f.plane_mask = static_cast<std::uint8_t>(1u << plane);
    f.page = page;
    f.priority = pr;
    r.cmd = &f;
  }
  Held(const Held&) = delete;
};
const auto page_of = [](const FwCommand& c) { return c.cmd->page; };

}  // namespace

TEST_CASE("batching: a die's planes at one offset and one operation go as one command", "[batching]") {
  DieBatcher b(1, 2, 1, {true, true});
  Held c[4] = {Held(FlashOp::Program, 0, 7), Held(FlashOp::Program, 0, 8), Held(FlashOp::Program, 1, 7),
               Held(FlashOp::Read, 1, 3)};
  b.push(0, 0, c[0].r);
  b.push(0, 0, c[1].r);
  b.push(0, 1, c[2].r);
  b.push(0, 1, c[3].r);
  FwCommand* out[kMaxPlanes];
  // Read-first: plane 1's read is the head; plane 0's first (a program) cannot join.
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[3].r);
  b.sent(0, c[3].f);
  // The die has one command in the block: no room at depth 1.
  CHECK(b.take(0, out, page_of) == 0);
  b.completed(0, c[3].f);
  // The oldest program (plane 0, page 7) with plane 1's page 7; then plane 0's page 8.
  REQUIRE(b.take(0, out, page_of) == 2);
  CHECK(out[0] == &c[0].r);
  CHECK(out[1] == &c[2].r);
  b.sent(0, c[0].f);
  b.completed(0, c[0].f);
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[1].r);
  b.sent(0, c[1].f);
  b.completed(0, c[1].f);
  CHECK_FALSE(b.holds(0));
}

TEST_CASE("batching: no partner at another offset, of another class, or past its plane's order", "[batching]") {
  DieBatcher b(1, 2, 4, {true, false});
  Held c[4] = {Held(FlashOp::Program, 0, 7), Held(FlashOp::Program, 1, 6), Held(FlashOp::Program, 1, 7),
               Held(FlashOp::Program, 0, 2, FlashPriority::BackgroundGc)};
  for (Held& x : c) b.push(0, x.f.first_plane(), x.r);
  FwCommand* out[kMaxPlanes];
  // Plane 1's first is page 6: plane 0's page 7 goes alone (page 7 of plane 1 may not
  // pass page 6 of its plane).
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[0].r);
  b.sent(0, c[0].f);
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[1].r);
  b.sent(0, c[1].f);
  // Plane 1's page 7 (host) and plane 0's background GC program at another class.
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[2].r);
  b.sent(0, c[2].f);
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[3].r);
}

TEST_CASE("batching: the depth counts a class and the more urgent ones only", "[batching]") {
  DieBatcher b(1, 2, 1, {true, false});
  Held gc(FlashOp::Program, 0, 1, FlashPriority::BackgroundGc);
  Held host(FlashOp::Read, 1, 3);
  Held gc2(FlashOp::Program, 0, 2, FlashPriority::BackgroundGc);
  FwCommand* out[kMaxPlanes];
  b.push(0, 0, gc.r);
  REQUIRE(b.take(0, out, page_of) == 1);
  b.sent(0, gc.f);
  // Background GC in the block does not hold back the host's read; it holds back more GC.
  b.push(0, 1, host.r);
  b.push(0, 0, gc2.r);
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &host.r);
  b.sent(0, host.f);
  CHECK(b.take(0, out, page_of) == 0);
  b.completed(0, host.f);
  CHECK(b.take(0, out, page_of) == 0);  // the GC program still in the block
  b.completed(0, gc.f);
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &gc2.r);
}

TEST_CASE("batching: reads at different read levels are not batched (a die senses at one level)",
          "[batching][faults]") {
  DieBatcher b(1, 2, 4, {true, false});
  Held c[3] = {Held(FlashOp::Read, 0, 3), Held(FlashOp::Read, 1, 3), Held(FlashOp::Read, 1, 3)};
  c[0].f.read_level = 2;  // a read-retry step
  c[2].f.read_level = 2;
  b.push(0, 0, c[0].r);
  b.push(0, 1, c[1].r);
  FwCommand* out[kMaxPlanes];
  REQUIRE(b.take(0, out, page_of) == 1);  // plane 1's read is at the default level: alone
  CHECK(out[0] == &c[0].r);
  b.sent(0, c[0].f);
  REQUIRE(b.take(0, out, page_of) == 1);
  CHECK(out[0] == &c[1].r);
  b.sent(0, c[1].f);
  b.push(0, 0, c[0].r);  // again, now with a partner at its level
  b.push(0, 1, c[2].r);
  REQUIRE(b.take(0, out, page_of) == 2);
}
