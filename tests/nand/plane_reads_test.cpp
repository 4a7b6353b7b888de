// Independent plane reads (docs/nand-timing.md, "Independent plane reads"): reads on
// different planes of one die sense at once, each at its own page, and share the bus.
// Times computed by hand, in picoseconds.
//
// The part: 333 MT/s, one bus cycle 10^6/333 ps, each bus phase rounded to whole
// picoseconds: C = 7 cycles = 21,021 ps, D = 8192 B = 24,600,601 ps; tR = 75 us,
// tPROG = 750 us; four planes.
#include <catch2/catch.hpp>

#include <vector>

#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;
using namespace ssd::nand::test::default_part;

namespace {

constexpr Tick tR = 75 * us, tPROG = 750 * us;

NandConfig part(bool independent, bool cache_read = true) {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 1;
  c.dies_per_chip = 1;
  c.planes_per_die = 4;
  c.blocks_per_plane = 4;
  c.pages_per_block = 8;
  c.independent_plane_reads = independent;
  c.cache_read = cache_read;
  return c;
}

// Fills block 0 of every plane (pages 0..7); the tests time from the harness's time then.
void filled(Harness& h) { h.fill(0, 0, 0b1111, 0, 8); }

}  // namespace

TEST_CASE("independent plane reads: two planes sense different pages at once, their data out in turn",
          "[nand][plane reads]") {
  for (bool cache_read : {true, false}) {
    INFO("cache read " << cache_read);
    Harness h(part(true, cache_read));
    filled(h);
    const Tick base = h.now;
    FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 5);
    FlashCommand& r1 = h.submit(FlashOp::Read, 0, 0, 0b0010, 0, 2);
    h.run();
    REQUIRE(r0.status == FlashStatus::Ok);
    REQUIRE(r1.status == FlashStatus::Ok);
    // r0: command 0 .. C, tR, data out C + tR .. C + tR + D. r1: its command right after
    // r0's (its plane's data register is free), tR from 2C, its data out after r0's.
    CHECK(r0.t_array_start - base == C);
    CHECK(r0.t_done - base == C + tR + D);
    CHECK(r1.t_start - base == C);
    CHECK(r1.t_array_start - base == 2 * C);
    CHECK(r1.t_array_end - base == 2 * C + tR);
    CHECK(r1.t_out_start - base == C + tR + D);
    CHECK(r1.t_done - base == C + tR + 2 * D);
    CHECK(r0.token[0] == h.engine.backdoor_read(0, 0, 0, 0, 5));
    CHECK(r1.token[1] == h.engine.backdoor_read(0, 0, 1, 0, 2));
  }
}

TEST_CASE("independent plane reads off: the second plane's read waits for the first's tR", "[nand][plane reads]") {
  Harness h(part(false));
  filled(h);
  const Tick base = h.now;
  FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 5);
  FlashCommand& r1 = h.submit(FlashOp::Read, 0, 0, 0b0010, 0, 2);
  h.run();
  // Cache read: r1's command once r0's tR ends (its page moved to the cache register),
  // before r0's data out (a command phase first at equal times).
  CHECK(r1.t_start - base == C + tR);
  CHECK(r0.t_done - base == 2 * C + tR + D);
  CHECK(r1.t_done - base == 2 * (C + tR) + D);
}

TEST_CASE("independent plane reads: four planes, four pages, against one four-plane read", "[nand][plane reads]") {
  Harness h(part(true));
  filled(h);
  const Tick base = h.now;
  std::vector<FlashCommand*> r;
  for (unsigned p = 0; p < 4; ++p) r.push_back(&h.submit(FlashOp::Read, 0, 0, static_cast<std::uint8_t>(1u << p), 0, 7 - p));
  h.run();
  // Read k: its command at kC, tR to (k + 1)C + tR; the data outs back to back from C + tR
  // (D > C): the last done at C + tR + 4D, as a four-plane read at one page would take
  // 4C + tR + 4D.
  for (unsigned k = 0; k < 4; ++k) {
    INFO("read " << k);
    CHECK(r[k]->t_array_start - base == (k + 1) * C);
    CHECK(r[k]->t_done - base == C + tR + (k + 1) * D);
  }
  // A second read on plane 0 waits for its data register (the cache register takes the
  // first page at its tR's end), and its command goes before the first one's data.
  const Tick b2 = h.now;
  FlashCommand& a = h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 1);
  FlashCommand& b = h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 2);
  h.run();
  CHECK(b.t_start - b2 == C + tR);
  CHECK(a.t_done - b2 == 2 * C + tR + D);
  CHECK(b.t_done - b2 == 2 * (C + tR) + D);
}

TEST_CASE("independent plane reads: a program waits for the die's reads, and reads for its program",
          "[nand][plane reads]") {
  Harness h(part(true));
  filled(h);
  const Tick base = h.now;
  FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 0);
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b0010, 1, 0);
  FlashCommand& r1 = h.submit(FlashOp::Read, 0, 0, 0b0100, 0, 0);
  h.run();
  CHECK(r0.t_done - base == C + tR + D);
  CHECK(w.t_start - base == C + tR + D);  // in order: after the read's data is out
  CHECK(w.t_done - base == C + tR + D + C + D + tPROG);
  CHECK(r1.t_start == w.t_done);  // behind the program (in order per die)
}

namespace {
// The array notices of a die, as a waveform or a request timeline hears them.
struct ArrayLog : NandObserver {
  struct Note {
    Tick t;
    const FlashCommand* c;
    ArrayState s;
  };
  std::vector<Note> notes;
  void on_bus(Tick, BusPhase, const FlashCommand*) override {}
  void on_array(Tick t, const FlashCommand& c, ArrayState s) override { notes.push_back({t, &c, s}); }
  void on_registers(Tick, unsigned, unsigned, unsigned, RegState, RegState) override {}
  void on_queue(Tick, unsigned, unsigned, unsigned) override {}
};
}  // namespace

TEST_CASE("independent plane reads: each read's tR end is told to the observer, the die's signal stays READ while "
          "another senses",
          "[nand][plane reads][observer]") {
  Harness h(part(true));
  filled(h);
  ArrayLog log;
  h.engine.set_observer(&log);
  const Tick base = h.now;
  FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 5);
  FlashCommand& r1 = h.submit(FlashOp::Read, 0, 0, 0b0010, 0, 2);
  h.run();
  h.engine.set_observer(nullptr);
  // r0 senses C .. C + tR, r1 2C .. 2C + tR.
  std::vector<ArrayLog::Note> want = {{base + C, &r0, ArrayState::Read},
                                      {base + 2 * C, &r1, ArrayState::Read},
                                      {base + C + tR, &r0, ArrayState::Idle},
                                      {base + C + tR, &r1, ArrayState::Read},
                                      {base + 2 * C + tR, &r1, ArrayState::Idle}};
  REQUIRE(log.notes.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    INFO("note " << k);
    CHECK(log.notes[k].t == want[k].t);
    CHECK(log.notes[k].c == want[k].c);
    CHECK(log.notes[k].s == want[k].s);
  }
}

TEST_CASE("independent plane reads: a power cut ends reads sensing at once, and the die starts afresh",
          "[nand][plane reads][power]") {
  Harness h(part(true));
  filled(h);
  const Tick base = h.now;
  h.submit(FlashOp::Read, 0, 0, 0b0001, 0, 5);
  h.submit(FlashOp::Read, 0, 0, 0b0010, 0, 2);
  h.run_until(base + 2 * C + 10 * us);  // both in tR
  std::vector<ChannelEngine::Completed> lost;
  h.engine.power_cut(h.now, lost);
  REQUIRE(lost.size() == 2);
  for (const auto& l : lost) CHECK(l.cmd->status == FlashStatus::PowerLoss);
  CHECK(h.engine.die_idle(0, 0));
  CHECK(h.engine.next_event() == kNever);
  const Tick t0 = h.now;
  FlashCommand& r = h.submit(FlashOp::Read, 0, 0, 0b0100, 0, 1);
  h.run();
  CHECK(r.status == FlashStatus::Ok);
  CHECK(r.t_done - t0 == C + tR + D);
  CHECK(r.token[2] == h.engine.backdoor_read(0, 0, 2, 0, 1));
}
