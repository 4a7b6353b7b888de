// A power cut at the NAND (docs/nand-timing.md, "Power loss"): what each command held
// leaves behind, at times computed by hand from the timing equations, in picoseconds.
//
// The default part (nand_config.h): 333 MT/s, one bus cycle 10^6/333 ps, each bus phase
// rounded to whole picoseconds:
//   C = 7 cycles = 21,021 ps (command and address), D = 8192 B = 24,600,601 ps (a page),
//   E = 5 cycles = 15,015 ps (erase command), tR = 75 us, tPROG = 750 us, tBERS = 3,800 us.
// Cache read and cache program are on.
#include <catch2/catch.hpp>

#include <array>
#include <map>
#include <random>

#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;
using namespace ssd::nand::test::default_part;

namespace {

constexpr Tick tR = 75'000'000, tPROG = 750'000'000, tBERS = 3'800'000'000;

NandConfig part() {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 2;
  c.dies_per_chip = 1;
  c.planes_per_die = 2;
  c.blocks_per_plane = 4;
  c.pages_per_block = 8;
  return c;
}

void cut(Harness& h, Tick t, std::vector<ChannelEngine::Completed>& lost) {
  h.run_until(t);
  h.engine.power_cut(h.now, lost);
}

}  // namespace

TEST_CASE("power cut: a program in tPROG is torn, the next one still in the cache register leaves its page erased",
          "[nand][power]") {
  Harness h(part());
  // Page 0: command and data-in 0 .. C + D, tPROG to C + D + tPROG. Page 1: its data-in
  // follows into the cache register, C + D .. 2(C + D), and waits for the array.
  FlashCommand& p0 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& p1 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);
  FlashCommand& queued = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 2);  // waits for a register
  h.run_until(C + D + 100 * us);
  REQUIRE(p0.t_array_start == C + D);
  REQUIRE(h.done.empty());
  std::vector<ChannelEngine::Completed> lost;
  const Tick t = C + D + 400 * us;
  cut(h, t, lost);
  REQUIRE(lost.size() == 3);
  CHECK(lost[0].cmd == &p0);  // submission order
  CHECK(lost[1].cmd == &p1);
  CHECK(lost[2].cmd == &queued);
  for (const auto& l : lost) {
    CHECK(l.cmd->status == FlashStatus::PowerLoss);
    CHECK(l.cmd->t_done == t);
  }
  CHECK(p0.failed_planes == 0b01);  // torn
  CHECK(p1.failed_planes == 0);     // its data never reached the cells
  CHECK(queued.failed_planes == 0);
  CHECK(h.engine.backdoor_read(0, 0, 0, 0, 0) == kTornToken);
  CHECK(h.engine.write_pointer(0, 0, 0, 0) == 1);  // page 1 is erased: programmed next
  CHECK(h.engine.in_flight() == 0);
  CHECK(h.engine.next_event() == kNever);
  CHECK(h.engine.counters().programs == 0);
  CHECK(h.engine.torn_pages() == 1);
  CHECK(h.engine.die_idle(0, 0));
  CHECK(h.activity.busy_ticks(0, t + us) == h.activity.busy_ticks(0, t));  // the chip idle from the cut

  // Powered again: page 1 takes a program at once (the die idle, the bus free), and reads
  // back; page 0 reads as torn.
  FlashCommand& again = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);
  h.run();
  CHECK(again.status == FlashStatus::Ok);
  CHECK(again.t_done == t + C + D + tPROG);
  FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b01, 0, 0);
  h.run();
  CHECK(r0.token[0] == kTornToken);
  CHECK(r0.t_done == again.t_done + C + tR + D);
}

TEST_CASE("power cut: an erase under way leaves its blocks torn to the end, a read only stops",
          "[nand][power]") {
  Harness h(part());
  h.fill(0, 0, 0b11, 1, 3);  // block 1 of both planes: pages 0..2
  h.engine.backdoor_program(1, 0, 0, 2, 0, 0x777u);
  const Tick t0 = h.now;
  FlashCommand& er = h.submit(FlashOp::Erase, 0, 0, 0b11, 1, 0);  // E, then tBERS
  FlashCommand& rd = h.submit(FlashOp::Read, 1, 0, 0b01, 2, 0);   // chip 1: C, tR, then data-out
  std::vector<ChannelEngine::Completed> lost;
  cut(h, t0 + E + C + 10 * us, lost);  // the erase in tBERS, the read in tR
  REQUIRE(lost.size() == 2);
  CHECK(er.status == FlashStatus::PowerLoss);
  CHECK(er.failed_planes == 0b11);
  CHECK(rd.status == FlashStatus::PowerLoss);
  CHECK(rd.failed_planes == 0);
  for (unsigned plane = 0; plane < 2; ++plane) {
    CHECK(h.engine.write_pointer(0, 0, plane, 1) == 8);  // no program until erased again
    CHECK(h.engine.backdoor_read(0, 0, plane, 1, 0) == kTornToken);
    CHECK(h.engine.backdoor_read(0, 0, plane, 1, 7) == kTornToken);
    CHECK(h.engine.erase_count(0, 0, plane, 1) == 1);  // the cut erase counts
  }
  CHECK(h.engine.backdoor_read(1, 0, 0, 2, 0) == 0x777u);  // a read changes nothing
  CHECK(h.engine.torn_pages() == 16);
  // A program of the torn block is refused until it is erased again.
  FlashCommand& bad = h.submit(FlashOp::Program, 0, 0, 0b01, 1, 0);
  h.run();
  CHECK(bad.status == FlashStatus::ProtocolError);
  const Tick t1 = h.now;
  FlashCommand& er2 = h.submit(FlashOp::Erase, 0, 0, 0b01, 1, 0);
  FlashCommand& ok = h.submit(FlashOp::Program, 0, 0, 0b01, 1, 0);
  h.run();
  CHECK(er2.t_done == t1 + E + tBERS);
  CHECK(ok.status == FlashStatus::Ok);
  CHECK(h.engine.erase_count(0, 0, 0, 1) == 2);
}

TEST_CASE("power cut: a suspended program is torn, and the read that suspended it is lost",
          "[nand][power][suspend]") {
  Harness h(part());
  h.engine.backdoor_program(0, 0, 1, 3, 0, 0x55u);
  FlashCommand& pr = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  h.run_until(C + D + 200 * us);
  FlashCommand& r = h.make(FlashOp::Read, 0, 0, 0b10, 3, 0);
  r.suspend = true;
  h.engine.submit(&r, h.now);
  h.run_until(C + D + 350 * us);  // SUSPEND, 100 us latency: held; the read in tR
  REQUIRE(h.engine.held_dies() == 1);
  std::vector<ChannelEngine::Completed> lost;
  h.engine.power_cut(h.now, lost);
  REQUIRE(lost.size() == 2);
  CHECK(pr.status == FlashStatus::PowerLoss);
  CHECK(pr.failed_planes == 0b01);
  CHECK(r.status == FlashStatus::PowerLoss);
  CHECK(h.engine.held_dies() == 0);
  CHECK(h.engine.backdoor_read(0, 0, 0, 0, 0) == kTornToken);
  CHECK(h.engine.die_idle(0, 0));
  // The die takes a new program as an idle one.
  const Tick t = h.now;
  FlashCommand& p1 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);
  h.run();
  CHECK(p1.t_done == t + C + D + tPROG);
}

TEST_CASE("power cut: a random soak with cuts reads every page as its last program, torn, or erased left it",
          "[nand][power][integrity]") {
  for (int variant = 0; variant < 4; ++variant) {
    NandConfig cfg = part();
    cfg.dies_per_chip = 2;
    cfg.cache_read = variant & 1;
    cfg.cache_program = variant & 2;
    Harness h(cfg);
    std::mt19937_64 rng(77 + variant);
    const unsigned ppb = cfg.pages_per_block;
    // Per plane and block, what each page holds (in submission order per die).
    using Pages = std::vector<Token>;
    std::vector<std::vector<Pages>> shadow(cfg.chips_per_channel * cfg.dies_per_chip * cfg.planes_per_die,
                                           std::vector<Pages>(cfg.blocks_per_plane));
    struct Expect {
      FlashCommand* c;
      Token t[2];
    };
    std::vector<Expect> reads;
    std::map<const FlashCommand*, std::array<Pages, 2>> before_erase;
    std::uint64_t cuts = 0, lost_total = 0, torn = 0, reverted = 0, restored = 0;
    for (int i = 0; i < 20000; ++i) {
      const unsigned chip = rng() % cfg.chips_per_channel, die = rng() % cfg.dies_per_chip;
      std::uint8_t mask = static_cast<std::uint8_t>(1 + rng() % 3);
      const auto block = static_cast<std::uint32_t>(rng() % cfg.blocks_per_plane);
      auto sh = [&](unsigned c, unsigned d, unsigned p, std::uint32_t b) -> Pages& {
        return shadow[(c * cfg.dies_per_chip + d) * cfg.planes_per_die + p][b];
      };
      const std::size_t lvl0 = sh(chip, die, 0, block).size(), lvl1 = sh(chip, die, 1, block).size();
      if (mask == 3 && lvl0 != lvl1) mask = lvl0 < lvl1 ? 1 : 2;
      const std::size_t lvl = (mask & 1) ? lvl0 : lvl1;
      const unsigned kind = rng() % 10;
      if (kind < 4 && lvl < ppb) {
        FlashCommand& c = h.make(FlashOp::Program, chip, die, mask, block, static_cast<std::uint32_t>(lvl));
        for (unsigned p = 0; p < 2; ++p) {
          c.token[p] = static_cast<Token>(rng() | 1);
          if (mask >> p & 1) sh(chip, die, p, block).push_back(c.token[p]);
        }
        h.engine.submit(&c, h.now);
      } else if (kind < 9 && lvl > 0) {
        const auto page = static_cast<std::uint32_t>(rng() % lvl);
        FlashCommand& c = h.make(FlashOp::Read, chip, die, mask, block, page);
        Expect e{&c, {}};
        for (unsigned p = 0; p < 2; ++p)
          if (mask >> p & 1) e.t[p] = sh(chip, die, p, block)[page];
        reads.push_back(e);
        h.engine.submit(&c, h.now);
      } else if (kind == 9) {
        FlashCommand& c = h.make(FlashOp::Erase, chip, die, mask, block, 0);
        auto& saved = before_erase[&c];
        for (unsigned p = 0; p < 2; ++p)
          if (mask >> p & 1) {
            saved[p] = sh(chip, die, p, block);
            sh(chip, die, p, block).clear();
          }
        h.engine.submit(&c, h.now);
      }
      h.run_until(h.now + us_to_ticks(static_cast<double>(rng() % 100)));
      if (rng() % 500 == 0) {  // the power fails: the shadow follows what each lost command left
        std::vector<ChannelEngine::Completed> lost;
        h.engine.power_cut(h.now, lost);
        ++cuts;
        lost_total += lost.size();
        for (auto it = lost.rbegin(); it != lost.rend(); ++it) {  // the newest first: pages come off the top
          FlashCommand& c = *it->cmd;
          REQUIRE(c.status == FlashStatus::PowerLoss);
          for (unsigned p = 0; p < 2; ++p) {
            if (!(c.plane_mask >> p & 1)) continue;
            Pages& pages = sh(c.chip, c.die, p, c.block[p]);
            const bool left_torn = c.failed_planes >> p & 1;
            if (c.op == FlashOp::Program && left_torn) {
              pages.at(c.page) = kTornToken;
              ++torn;
            } else if (c.op == FlashOp::Program) {
              REQUIRE(pages.size() == c.page + 1u);  // still erased: the block's top page
              pages.pop_back();
              ++reverted;
            } else if (c.op == FlashOp::Erase && left_torn) {
              pages.assign(ppb, kTornToken);
            } else if (c.op == FlashOp::Erase) {
              pages = before_erase.at(&c)[p];  // never began: the block keeps its pages
              ++restored;
            }
          }
        }
        CHECK(h.engine.in_flight() == 0);
        CHECK(h.engine.next_event() == kNever);
      }
    }
    h.run();
    INFO("variant " << variant);
    CHECK(h.engine.counters().protocol_errors == 0);
    CHECK(h.engine.in_flight() == 0);
    std::size_t bad = 0, checked = 0;
    for (const Expect& e : reads) {
      if (e.c->status == FlashStatus::PowerLoss) continue;
      for (unsigned p = 0; p < 2; ++p) {
        if (!(e.c->plane_mask >> p & 1)) continue;
        ++checked;
        if (e.c->token[p] != e.t[p]) ++bad;
      }
    }
    CHECK(bad == 0);
    CHECK(checked > 2000);
    CHECK(cuts >= 20);
    CHECK(lost_total > 100);  // what the cuts found held: each case reached
    CHECK(torn > 0);
    CHECK(reverted > 0);
    CHECK(restored > 0);
    WARN("variant " << variant << ": " << cuts << " cuts, " << lost_total << " commands lost, " << torn
                    << " pages torn, " << reverted << " left erased, " << restored << " erases undone; "
                    << checked << " page reads checked");
  }
}
