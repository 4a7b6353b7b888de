// NAND timing against the equations of docs/nand-timing.md, computed here from
// the configuration. All times in microseconds; C = cmd/addr bus time,
// D = one page of data on the bus, t_bus = 1 / bus_mts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>

#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;

namespace {

// Chen et al.'s device (16 x 8, dual-die two-plane, 4 KiB pages, 38 MB/s, 20/200 us).
NandConfig chen() {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 2;
  c.dies_per_chip = 2;
  c.planes_per_die = 2;
  c.blocks_per_plane = 16;
  c.pages_per_block = 128;
  c.page_bytes = 4096;
  c.bus_mts = 38;
  c.cmd_addr_cycles = 7;
  c.erase_cmd_cycles = 5;
  c.t_read_us = 20;
  c.t_prog_us = 200;
  c.t_erase_us = 1500;
  c.cache_read = false;
  c.cache_program = false;
  return c;
}

double us(Tick t) { return ticks_to_us(t); }
// Each bus phase lasts a whole number of picoseconds (rounded to nearest), so a
// timeline of n bus phases may differ from the exact formula by n x 0.5 ps.
Approx at(double expected_us, unsigned bus_phases = 8) {
  return Approx(expected_us).epsilon(0).margin(bus_phases * 0.5e-6 + 1e-9);
}

struct Times {
  double C, E, D, tR, tP, tB;
  explicit Times(const NandConfig& c)
      : C(c.cmd_addr_cycles / c.bus_mts),      // Eq. 2: N_commands x T_bus
        E(c.erase_cmd_cycles / c.bus_mts),
        D(c.page_bytes / c.bus_mts),           // Eq. 3: S_page x T_bus
        tR(c.t_read_us), tP(c.t_prog_us), tB(c.t_erase_us) {}
};

// The readiness rules as docs/nand-timing.md states them, one branch per rule: the
// reference the engine's accept words are checked against.
bool can_start(const NandConfig& cfg, const ChannelEngine::DieState& d, const FlashCommand& c) {
  switch (c.op) {
    case FlashOp::Read:
      // Independent plane reads: only reads in flight, and the data registers of its planes
      // free (whatever the other planes do).
      if (cfg.independent_plane_reads) return d.inflight == d.inflight_reads && !(d.data_busy & c.plane_mask);
      if (!cfg.cache_read) return d.inflight == 0;
      // Cache read: only reads in flight, none in its command phase, the array idle and
      // the data registers free.
      return !d.array_busy && !d.in_cmd_phase && d.inflight == d.inflight_reads && !(d.data_busy & c.plane_mask);
    case FlashOp::Program:
      if (!cfg.cache_program) return d.inflight == 0;
      // Cache program: only programs in flight, none already waiting in a cache register
      // nor in its data-in while the array is busy (it will wait there), and the cache
      // registers of the target planes free.
      return d.inflight == d.inflight_programs && !d.waiting_programs && !(d.in_cmd_phase && d.array_busy) &&
             !(d.cache_busy & c.plane_mask);
    case FlashOp::Erase:
      return d.inflight == 0;
    case FlashOp::Resume:
      return false;
  }
  return false;
}

}  // namespace

TEST_CASE("nand: isolated READ takes 7 cmd/addr cycles + tR + page data-out", "[nand][read]") {
  for (double mts : {38.0, 50.0, 333.0}) {
    NandConfig cfg = chen();
    cfg.bus_mts = mts;
    Harness h(cfg);
    Times t(cfg);
    h.fill(0, 0, 0b01, 3, 5);
    h.run_until(h.now + us_to_ticks(1000));  // idle
    FlashCommand& r = h.submit(FlashOp::Read, 0, 0, 0b01, 3, 4);
    h.run();
    REQUIRE(r.status == FlashStatus::Ok);
    CHECK(us(r.t_done - r.t_submit) == at(t.C + t.tR + t.D));
    CHECK(us(r.t_array_start - r.t_submit) == at(t.C));
    CHECK(us(r.t_array_end - r.t_array_start) == at(t.tR));
  }
}

TEST_CASE("partial read: tR of the whole page, data-out of the bytes asked for only", "[nand][read][partial]") {
  // ONFI random data out: the read's address cycles carry the column, so a read that
  // needs 1 KiB of a 4 KiB page pays C + tR + 1024 bus cycles; on each plane of a
  // multi-plane read alike; a 3-page cache-read stream at the shorter data-out period.
  NandConfig cfg = chen();
  Times t(cfg);
  for (std::uint32_t bytes : {512u, 1024u, 2048u, 4096u}) {
    Harness h(cfg);
    h.fill(0, 0, 0b11, 3, 5);
    auto read = [&](std::uint8_t mask, std::uint32_t page) -> FlashCommand& {  // alone, after an idle time
      h.run_until(h.now + us_to_ticks(1000));
      FlashCommand& c = h.make(FlashOp::Read, 0, 0, mask, 3, page);
      c.out_bytes = bytes;
      h.engine.submit(&c, h.now);
      h.run();
      REQUIRE(c.status == FlashStatus::Ok);
      return c;
    };
    const double out = bytes / cfg.bus_mts;
    INFO(bytes << " bytes");
    FlashCommand& one = read(0b01, 4);
    CHECK(us(one.t_done - one.t_submit) == at(t.C + t.tR + out));
    CHECK(one.token[0] == h.cmds[4].token[0]);  // the data is the page's, whatever part moves
    FlashCommand& two = read(0b11, 2);
    CHECK(us(two.t_done - two.t_submit) == at(2 * t.C + t.tR + 2 * out));
  }
  cfg.cache_read = true;
  cfg.t_read_us = 50;  // bus-bound with whole pages (D = 107.8 us), array-bound with 1 KiB (26.9 us)
  Harness h(cfg);
  h.fill(0, 0, 0b01, 0, 3);
  const Tick t0 = h.now;
  std::vector<FlashCommand*> r;
  for (unsigned k = 0; k < 3; ++k) {
    FlashCommand& c = h.make(FlashOp::Read, 0, 0, 0b01, 0, k);
    c.out_bytes = 1024;
    h.engine.submit(&c, h.now);
    r.push_back(&c);
  }
  h.run();
  const double out = 1024 / cfg.bus_mts;
  // Array-bound: period C + tR; the last page's data-out after its tR (whole pages:
  // C + tR + 2 (C + D) + D = 373.8 us).
  CHECK(us(r.back()->t_done - t0) == at(3 * (t.C + cfg.t_read_us) + out, 6));
}

TEST_CASE("protocol: a read moving out more than its page is an error", "[nand][read][partial][protocol]") {
  Harness h(chen());
  h.fill(0, 0, 0b01, 3, 1);
  FlashCommand& c = h.make(FlashOp::Read, 0, 0, 0b01, 3, 0);
  c.out_bytes = 4096 + 512;
  h.engine.submit(&c, h.now);
  h.run();
  CHECK(c.status == FlashStatus::ProtocolError);
  CHECK(c.error.find("moves out 4608 bytes of a 4096-byte page") != std::string::npos);
}

TEST_CASE("nand: isolated PROGRAM takes 7 cmd/addr cycles + page data-in + tPROG", "[nand][program]") {
  NandConfig cfg = chen();
  Harness h(cfg);
  Times t(cfg);
  FlashCommand& w = h.submit(FlashOp::Program, 1, 1, 0b10, 7, 0);
  h.run();
  REQUIRE(w.status == FlashStatus::Ok);
  CHECK(us(w.t_done) == at(t.C + t.D + t.tP));
  CHECK(us(w.t_array_start) == at(t.C + t.D));
}

TEST_CASE("nand: isolated ERASE takes its cmd/addr cycles + tBERS", "[nand][erase]") {
  NandConfig cfg = chen();
  Harness h(cfg);
  Times t(cfg);
  h.fill(0, 0, 0b01, 2, 3);
  const Tick t0 = h.now;
  FlashCommand& e = h.submit(FlashOp::Erase, 0, 0, 0b01, 2, 0);
  h.run();
  REQUIRE(e.status == FlashStatus::Ok);
  CHECK(us(e.t_done - t0) == at(t.E + t.tB));
  CHECK(h.engine.write_pointer(0, 0, 0, 2) == 0);
  CHECK(h.engine.erase_count(0, 0, 0, 2) == 1);
  // The block programs again from page 0.
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b01, 2, 0);
  h.run();
  CHECK(w.status == FlashStatus::Ok);
}

TEST_CASE("nand: Chen Eq. 6, a write batch of N pages on one die (multi-plane)", "[nand][multi-plane][chen]") {
  NandConfig cfg = chen();
  cfg.planes_per_die = 4;
  for (unsigned n = 1; n <= cfg.planes_per_die; ++n) {
    Harness h(cfg);
    Times t(cfg);
    const auto mask = static_cast<std::uint8_t>((1u << n) - 1);
    FlashCommand& w = h.submit(FlashOp::Program, 0, 0, mask, 1, 0);
    h.run();
    REQUIRE(w.status == FlashStatus::Ok);
    // Eq. 6: T_flash_w = N_request_batch x (T_commands + T_data) + T_PROG
    CHECK(us(w.t_done) == at(n * (t.C + t.D) + t.tP));
  }
}

TEST_CASE("nand: Chen Eq. 7, a read batch of N pages on one die (multi-plane)", "[nand][multi-plane][chen]") {
  NandConfig cfg = chen();
  cfg.planes_per_die = 4;
  for (unsigned n = 1; n <= cfg.planes_per_die; ++n) {
    Harness h(cfg);
    Times t(cfg);
    const auto mask = static_cast<std::uint8_t>((1u << n) - 1);
    h.fill(0, 0, mask, 1, 1);
    const Tick t0 = h.now;
    FlashCommand& r = h.submit(FlashOp::Read, 0, 0, mask, 1, 0);
    h.run();
    REQUIRE(r.status == FlashStatus::Ok);
    // Eq. 7: T_flash_r = N_request_batch x (T_commands + T_data) + T_R
    CHECK(us(r.t_done - t0) == at(n * (t.C + t.D) + t.tR));
    // N command phases, then one array time, then N data phases.
    CHECK(us(r.t_array_start - t0) == at(n * t.C));
    CHECK(us(r.t_done - r.t_array_end) == at(n * t.D));
  }
}

TEST_CASE("multi-plane: PROGRAM and READ over P planes pay P data phases and one array time", "[nand][multi-plane]") {
  NandConfig cfg = chen();
  Harness h(cfg);
  Times t(cfg);
  const unsigned P = cfg.planes_per_die;
  FlashCommand& w = h.submit(FlashOp::Program, 0, 1, 0b11, 4, 0);
  h.run();
  CHECK(us(w.t_done) == at(P * (t.C + t.D) + t.tP));
  const Tick t0 = h.now;
  FlashCommand& r = h.submit(FlashOp::Read, 0, 1, 0b11, 4, 0);
  h.run();
  CHECK(us(r.t_done - t0) == at(P * t.C + t.tR + P * t.D));
  // Against P single-plane commands: P array times.
  Harness s(cfg);
  FlashCommand& a = s.submit(FlashOp::Program, 0, 1, 0b01, 4, 0);
  FlashCommand& b = s.submit(FlashOp::Program, 0, 1, 0b10, 4, 0);
  s.run();
  CHECK(us(a.t_done) == at(t.C + t.D + t.tP));
  CHECK(us(b.t_done) == at(2 * (t.C + t.D + t.tP)));
  // Both planes return what each was programmed with.
  CHECK(r.token[0] == w.token[0]);
  CHECK(r.token[1] == w.token[1]);
}

TEST_CASE("multi-plane: the NAND counts pages by their command's planes, GC's by each plane's part",
          "[nand][multi-plane]") {
  NandConfig cfg = chen();
  Harness h(cfg);
  // A two-plane program joined from a host part (plane 0) and GC's (plane 1): named by
  // its host part, counted plane by plane.
  FlashCommand& joined = h.make(FlashOp::Program, 0, 1, 0b11, 4, 0);
  joined.origin = FlashOrigin::HostProgram;
  joined.gc_plane_mask = 0b10;
  h.engine.submit(&joined, h.now);
  FlashCommand& gc = h.make(FlashOp::Program, 0, 1, 0b01, 4, 1);
  gc.origin = FlashOrigin::GcProgram;
  h.engine.submit(&gc, h.now);
  FlashCommand& host = h.make(FlashOp::Program, 0, 1, 0b10, 4, 1);
  host.origin = FlashOrigin::HostProgram;
  host.gc_plane_mask = 0b10;  // not joined: one plane is named by its origin alone
  h.engine.submit(&host, h.now);
  h.run();
  const ChannelCounters& k = h.engine.counters();
  CHECK(k.pages_by_planes[1][0] == 2);
  CHECK(k.pages_by_planes[1][1] == 2);
  CHECK(k.gc_pages[1] == 2);
  CHECK(k.gc_multiplane_pages[1] == 1);
  CHECK(k.pages_by_planes[0][0] + k.pages_by_planes[0][1] + k.gc_pages[0] + k.gc_pages[2] == 0);
}

TEST_CASE("multi-plane: refused when nand.multiplane is off", "[nand][multi-plane][protocol]") {
  NandConfig cfg = chen();
  cfg.multiplane = false;
  Harness h(cfg);
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b11, 0, 0);
  h.run();
  CHECK(w.status == FlashStatus::ProtocolError);
  CHECK_THAT(w.error, Catch::Contains("nand.multiplane"));
}

TEST_CASE("channel: two chips of one channel, the second data transfer waits for the bus", "[nand][channel]") {
  NandConfig cfg = chen();
  Harness h(cfg);
  Times t(cfg);
  FlashCommand& w0 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& w1 = h.submit(FlashOp::Program, 1, 0, 0b01, 0, 0);
  h.run();
  CHECK(us(w0.t_done) == at(t.C + t.D + t.tP));
  CHECK(us(w1.t_start) == at(t.C + t.D));  // waited for chip 0's data-in
  CHECK(us(w1.t_done) == at(2 * (t.C + t.D) + t.tP));
  // Reads: commands back to back, arrays overlap, the second data-out waits.
  const Tick t0 = h.now;
  FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b01, 0, 0);
  FlashCommand& r1 = h.submit(FlashOp::Read, 1, 0, 0b01, 0, 0);
  h.run();
  CHECK(us(r0.t_done - t0) == at(t.C + t.tR + t.D));
  CHECK(us(r1.t_array_start - t0) == at(2 * t.C));
  CHECK(us(r1.t_done - t0) == at(t.C + t.tR + 2 * t.D));  // D > C here: the bus is the bottleneck
  // Chip utilization counts both chips while they overlap.
  CHECK(h.activity.busy_ticks(0, h.now) > 0);
  CHECK(h.activity.busy_ticks(1, h.now) > 0);
}

TEST_CASE("channel: two channels overlap fully", "[nand][channel]") {
  NandConfig cfg = chen();
  cfg.channels = 2;
  ChipActivity act(cfg.chips());
  ChannelEngine a(cfg, 0, &act), b(cfg, 1, &act);
  Times t(cfg);
  FlashCommand wa, wb;
  wa.op = wb.op = FlashOp::Program;
  wa.plane_mask = wb.plane_mask = 0b01;
  wa.channel = 0;
  wb.channel = 1;
  a.submit(&wa, 0);
  b.submit(&wb, 0);
  std::vector<ChannelEngine::Completed> done;
  for (ChannelEngine* e : {&a, &b})
    while (e->next_event() != kNever) e->advance(e->next_event(), done);
  CHECK(us(wa.t_done) == at(t.C + t.D + t.tP));
  CHECK(us(wb.t_done) == at(t.C + t.D + t.tP));
  // Two chips busy at once for the whole time: utilization 2.
  CHECK(act.utilization(wa.t_done) == Approx(2.0));
}

TEST_CASE("die: two dies of one chip overlap their array times, bus phases serialize", "[nand][die]") {
  NandConfig cfg = chen();
  Harness h(cfg);
  Times t(cfg);
  FlashCommand& w0 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& w1 = h.submit(FlashOp::Program, 0, 1, 0b01, 0, 0);
  h.run();
  CHECK(us(w1.t_start) == at(t.C + t.D));
  CHECK(us(w1.t_array_start) == at(2 * (t.C + t.D)));
  CHECK(w1.t_array_start < w0.t_array_end);  // die interleaving
  CHECK(us(w1.t_done) == at(2 * (t.C + t.D) + t.tP));
  // Two programs to the same die (no cache program): strictly one after the other.
  Harness s(cfg);
  FlashCommand& a = s.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& b = s.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);
  s.run();
  CHECK(b.t_start == a.t_done);
  CHECK(us(b.t_done) == at(2 * (t.C + t.D + t.tP)));
}

TEST_CASE("cache program: N pages to one plane, one page per max(tPROG, cmd + data-in)", "[nand][cache program][plane]") {
  const unsigned N = 16;
  for (double tprog : {200.0, 50.0}) {  // array-bound and bus-bound
    NandConfig cfg = chen();
    cfg.t_prog_us = tprog;
    Times t(cfg);
    for (bool cache : {true, false}) {
      cfg.cache_program = cache;
      Harness h(cfg);
      std::vector<FlashCommand*> w;
      for (unsigned k = 0; k < N; ++k) w.push_back(&h.submit(FlashOp::Program, 0, 0, 0b01, 0, k));
      h.run();
      for (FlashCommand* c : w) REQUIRE(c->status == FlashStatus::Ok);
      double expect;
      if (!cache)
        expect = N * (t.C + t.D + t.tP);        // each page: command + data-in + tPROG
      else if (t.tP >= t.C + t.D)
        expect = (t.C + t.D) + N * t.tP;        // data-in of page k+1 hides under tPROG of page k
      else
        expect = N * (t.C + t.D) + t.tP;        // the bus is the bottleneck
      INFO("tPROG " << tprog << " cache " << cache);
      CHECK(us(w.back()->t_done) == at(expect, 2 * N));
      if (cache) {  // steady state: consecutive completions one period apart
        const double period = std::max(t.tP, t.C + t.D);
        CHECK(us(w[N - 1]->t_done - w[N - 2]->t_done) == at(period));
      }
    }
  }
}

TEST_CASE("cache read: N sequential pages, the cache register streams page n while the array reads n+1", "[nand][cache read][plane]") {
  const unsigned N = 16;
  for (double tread : {200.0, 20.0}) {  // array-bound (tR > D) and bus-bound (tR < D)
    NandConfig cfg = chen();
    cfg.t_read_us = tread;
    Times t(cfg);
    for (bool cache : {true, false}) {
      cfg.cache_read = cache;
      Harness h(cfg);
      h.fill(0, 0, 0b01, 0, N);
      const Tick t0 = h.now;
      std::vector<FlashCommand*> r;
      for (unsigned k = 0; k < N; ++k) r.push_back(&h.submit(FlashOp::Read, 0, 0, 0b01, 0, k));
      h.run();
      for (FlashCommand* c : r) REQUIRE(c->status == FlashStatus::Ok);
      double expect;
      if (!cache)
        expect = N * (t.C + t.tR + t.D);                     // one read at a time
      else if (t.tR >= t.D)
        expect = N * (t.C + t.tR) + t.D;                     // period C + tR; last page's data-out
      else
        expect = t.C + t.tR + (N - 1) * (t.C + t.D) + t.D;   // period C + D after the first tR
      INFO("tR " << tread << " cache " << cache);
      CHECK(us(r.back()->t_done - t0) == at(expect, 2 * N));
      if (cache) {
        const double period = std::max(t.C + t.tR, t.C + t.D);
        CHECK(us(r[N - 2]->t_done - r[N - 3]->t_done) == at(period));
      }
      for (unsigned k = 0; k < N; ++k) CHECK(r[k]->token[0] == h.cmds[k].token[0]);
    }
  }
}

TEST_CASE("protocol: programming a page that is not erased is an error", "[nand][protocol]") {
  Harness h(chen());
  h.fill(0, 0, 0b01, 5, 2);
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b01, 5, 1);
  h.run();
  CHECK(w.status == FlashStatus::ProtocolError);
  CHECK_THAT(w.error, Catch::Contains("not erased"));
  CHECK(h.engine.counters().protocol_errors == 1);
}

TEST_CASE("protocol: programming the pages of a block out of order is an error", "[nand][protocol]") {
  Harness h(chen());
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b01, 5, 3);
  h.run();
  CHECK(w.status == FlashStatus::ProtocolError);
  CHECK_THAT(w.error, Catch::Contains("out of order"));
  CHECK(h.engine.write_pointer(0, 0, 0, 5) == 0);  // nothing was written
}

TEST_CASE("protocol: reading an erased page is an error", "[nand][protocol]") {
  Harness h(chen());
  h.fill(0, 0, 0b01, 5, 2);
  FlashCommand& r = h.submit(FlashOp::Read, 0, 0, 0b01, 5, 2);
  FlashCommand& e = h.submit(FlashOp::Erase, 0, 0, 0b01, 5, 0);
  FlashCommand& r2 = h.submit(FlashOp::Read, 0, 0, 0b01, 5, 0);
  h.run();
  CHECK(r.status == FlashStatus::ProtocolError);
  CHECK_THAT(r.error, Catch::Contains("erased"));
  CHECK(e.status == FlashStatus::Ok);
  CHECK(r2.status == FlashStatus::ProtocolError);  // erased by the ERASE before it
}

TEST_CASE("protocol: addresses outside the geometry are errors naming the config key", "[nand][protocol]") {
  Harness h(chen());
  FlashCommand& a = h.submit(FlashOp::Read, 2, 0, 0b01, 0, 0);
  FlashCommand& b = h.submit(FlashOp::Read, 0, 2, 0b01, 0, 0);
  FlashCommand& c = h.submit(FlashOp::Read, 0, 0, 0b100, 0, 0);
  FlashCommand& d = h.submit(FlashOp::Read, 0, 0, 0b01, 16, 0);
  FlashCommand& e = h.submit(FlashOp::Read, 0, 0, 0b01, 0, 128);
  FlashCommand& f = h.submit(FlashOp::Read, 0, 0, 0, 0, 0);
  h.run();
  CHECK_THAT(a.error, Catch::Contains("nand.chips_per_channel"));
  CHECK_THAT(b.error, Catch::Contains("nand.dies_per_chip"));
  CHECK_THAT(c.error, Catch::Contains("nand.planes_per_die"));
  CHECK_THAT(d.error, Catch::Contains("nand.blocks_per_plane"));
  CHECK_THAT(e.error, Catch::Contains("nand.pages_per_block"));
  CHECK_THAT(f.error, Catch::Contains("no plane"));
  CHECK(h.engine.counters().protocol_errors == 6);
  CHECK(h.engine.in_flight() == 0);
}

TEST_CASE("nand: random soak returns every page's last written token, and the dies' accept words follow the rules, under every cache setting", "[nand][integrity]") {
  // variant & 4: cells of 3 bits, wordline programs; variant & 8: independent plane reads
  for (int variant = 0; variant < 16; ++variant) {
    NandConfig cfg = chen();
    cfg.independent_plane_reads = variant & 8;
    cfg.cache_read = variant & 1;
    cfg.cache_program = variant & 2;
    cfg.blocks_per_plane = 4;
    cfg.pages_per_block = 8;
    if (variant & 4) {
      cfg.bits_per_cell = 3;
      cfg.pages_per_block = 9;
      cfg.t_read_page_us = "20,25,30";
    }
    const unsigned n = cfg.bits_per_cell;
    Harness h(cfg);
    std::mt19937_64 rng(1234 + variant);
    // Shadow of each block: tokens written so far (in submission order per die).
    const unsigned planes = cfg.chips_per_channel * cfg.dies_per_chip * cfg.planes_per_die;
    std::vector<std::vector<std::vector<Token>>> shadow(
        planes, std::vector<std::vector<Token>>(cfg.blocks_per_plane));
    struct Expect { FlashCommand* c; Token t[kMaxPlanes]; };
    std::vector<Expect> reads;
    // The die's accept word (what a scheduler tests with bits) agrees with the rules as
    // written in docs/nand-timing.md (can_start, on the die's state) at every step, for
    // every die, operation and plane mask (an empty one and one naming a plane the die
    // does not have included).
    std::size_t probes = 0, disagree = 0;
    FlashCommand probe;
    auto check_offers = [&] {
      for (unsigned chip = 0; chip < cfg.chips_per_channel; ++chip)
        for (unsigned die = 0; die < cfg.dies_per_chip; ++die)
          for (FlashOp op : {FlashOp::Read, FlashOp::Program, FlashOp::Erase})
            for (std::uint8_t mask : {0, 1, 2, 3, 4}) {
              probe.op = op;
              probe.chip = static_cast<std::uint16_t>(chip);
              probe.die = static_cast<std::uint16_t>(die);
              probe.plane_mask = mask;
              ++probes;
              if (ChannelEngine::accepts(h.engine.accept_word(chip, die), probe.start_need()) !=
                  can_start(cfg, h.engine.die_state(chip, die), probe))
                ++disagree;
            }
    };
    for (int i = 0; i < 20000; ++i) {
      const unsigned chip = rng() % cfg.chips_per_channel, die = rng() % cfg.dies_per_chip;
      std::uint8_t mask = static_cast<std::uint8_t>(1 + rng() % 3);  // planes {0}, {1} or {0,1}
      const std::uint32_t block = static_cast<std::uint32_t>(rng() % cfg.blocks_per_plane);
      auto sh = [&](unsigned p) -> std::vector<Token>& {
        return shadow[(chip * cfg.dies_per_chip + die) * cfg.planes_per_die + p][block];
      };
      // All planes of the command share the page offset: use the common fill level.
      const std::size_t lvl0 = sh(0).size(), lvl1 = sh(1).size();
      if (mask == 3 && lvl0 != lvl1) mask = lvl0 < lvl1 ? 1 : 2;
      const std::size_t lvl = (mask & 1) ? lvl0 : lvl1;
      const unsigned kind = rng() % 10;
      if (kind < 4 && lvl < cfg.pages_per_block) {
        FlashCommand& c = h.make(FlashOp::Program, chip, die, mask, block, static_cast<std::uint32_t>(lvl));
        for (unsigned k = 0; k < n; ++k)
          for (unsigned p = 0; p < 2; ++p) {
            c.token_of(k, p) = static_cast<Token>(rng() | 1);
            if (mask >> p & 1) sh(p).push_back(c.token_of(k, p));
          }
        h.engine.submit(&c, h.now);
      } else if (kind < 9 && lvl > 0) {
        const auto page = static_cast<std::uint32_t>(rng() % lvl);
        FlashCommand& c = h.make(FlashOp::Read, chip, die, mask, block, page);
        Expect e{&c, {}};
        for (unsigned p = 0; p < 2; ++p) if (mask >> p & 1) e.t[p] = sh(p)[page];
        reads.push_back(e);
        h.engine.submit(&c, h.now);
      } else if (kind == 9) {
        FlashCommand& c = h.make(FlashOp::Erase, chip, die, mask, block, 0);
        for (unsigned p = 0; p < 2; ++p) if (mask >> p & 1) sh(p).clear();
        h.engine.submit(&c, h.now);
      }
      check_offers();
      h.run_until(h.now + us_to_ticks(static_cast<double>(rng() % 100)));
      check_offers();
    }
    h.run();
    INFO("variant " << variant);
    CHECK(disagree == 0);
    CHECK(probes == 2 * 20000 * std::size_t{4 * 3 * 5});
    CHECK(h.engine.counters().protocol_errors == 0);
    CHECK(h.engine.in_flight() == 0);
    std::size_t bad = 0, upper = 0;
    for (const Expect& e : reads) {
      for (unsigned p = 0; p < 2; ++p)
        if ((e.c->plane_mask >> p & 1) && e.c->token[p] != e.t[p]) ++bad;
      upper += e.c->page % n == n - 1 && n > 1;
    }
    CHECK(bad == 0);
    CHECK(reads.size() > 5000);
    if (n > 1) CHECK(upper > reads.size() / 5);  // every page type read
    // Independent plane reads: reads of one die sensed at once (the next read by start
    // time began before the last one's tR ended), and never without the key.
    std::map<unsigned, std::vector<std::pair<Tick, Tick>>> sensed;  // per die: tR intervals
    for (const Expect& e : reads) sensed[e.c->chip * cfg.dies_per_chip + e.c->die].push_back({e.c->t_array_start, e.c->t_array_end});
    std::size_t overlaps = 0;
    for (auto& [die, v] : sensed) {
      std::sort(v.begin(), v.end());
      for (std::size_t k = 1; k < v.size(); ++k) overlaps += v[k].first < v[k - 1].second;
    }
    if (cfg.independent_plane_reads) CHECK(overlaps > 100);
    else CHECK(overlaps == 0);
    // Completion order per die equals submission order per die (in-order dies).
  }
}

TEST_CASE("nand: bus busy time counts a command phase to its end, whether or not its end was taken yet",
          "[nand][statistics]") {
  // An erase alone: its command phase's end starts only the array, so the engine leaves
  // it to be taken when the channel is next looked at (catch_up). Bus utilization must
  // not depend on whether it has been.
  NandConfig cfg = chen();
  Harness lazy(cfg), looked(cfg);
  Times t(cfg);
  for (Harness* h : {&lazy, &looked}) {
    h->submit(FlashOp::Erase, 0, 0, 0b01, 3, 0);
    h->engine.advance(h->now, h->done);  // the command phase starts
  }
  const Tick during_array = us_to_ticks(t.E + 100.0);
  REQUIRE(lazy.engine.next_event() > during_array);  // the phase's end was skipped
  looked.engine.catch_up(during_array);
  CHECK(us(looked.engine.bus_busy_ticks(during_array)) == at(t.E, 1));
  CHECK(us(lazy.engine.bus_busy_ticks(during_array)) == at(t.E, 1));
}
