// Cells of n bits (docs/nand-timing.md, "Cells of n bits"): a PROGRAM writes a wordline of
// n pages per plane in one tPROG, a read senses with its page type's tR, and cache program
// takes only a wordline's first page under the previous tPROG. Times computed by hand, in
// picoseconds.
//
// The part: 333 MT/s, one bus cycle 10^6/333 ps, each bus phase rounded to whole
// picoseconds: C = 7 cycles = 21,021 ps (command and address), D = 8192 B = 24,600,601 ps
// (a page). tPROG = 1,500 us per wordline; tR by page type 50, 60, 70 us (lower, middle,
// upper) where a test sets them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/nand_harness.h"
#include "tlm/latency_parts.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;
using namespace ssd::nand::test::default_part;

namespace {

constexpr Tick tPROG = 1'500 * us;

NandConfig part(unsigned bits) {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 2;
  c.dies_per_chip = 1;
  c.planes_per_die = 2;
  c.blocks_per_plane = 4;
  c.pages_per_block = 12;
  c.bits_per_cell = bits;
  c.t_prog_us = 1'500;
  return c;
}

// A wordline program of block `block` from page `page` on `mask`, each page's token its own.
FlashCommand& wordline(Harness& h, std::uint8_t mask, std::uint32_t block, std::uint32_t page) {
  FlashCommand& c = h.make(FlashOp::Program, 0, 0, mask, block, page);
  for (unsigned k = 0; k < kMaxBitsPerCell; ++k)
    for (unsigned p = 0; p < kMaxPlanes; ++p) c.token_of(k, p) = 0x5000u + (page + k) * 16 + p + block * 4096;
  h.engine.submit(&c, h.now);
  return c;
}

}  // namespace

TEST_CASE("cells of n bits: one PROGRAM moves a wordline's n pages in per plane, then one tPROG",
          "[nand][cells]") {
  for (unsigned n : {1u, 2u, 3u, 4u})
    for (std::uint8_t mask : {std::uint8_t{0b01}, std::uint8_t{0b11}})
      for (bool cache : {false, true}) {
        NandConfig cfg = part(n);
        cfg.cache_program = cache;
        Harness h(cfg);
        FlashCommand& w = wordline(h, mask, 1, 0);
        h.run();
        const Tick planes = mask == 0b11 ? 2 : 1, in = n * planes * (C + D);
        INFO("n " << n << " planes " << planes << " cache " << cache);
        REQUIRE(w.status == FlashStatus::Ok);
        CHECK(w.t_start == 0);
        CHECK(w.t_bus_end == in);  // command, address and a page of data, per page and plane
        CHECK(w.bus_cmd_ticks == n * planes * C);
        CHECK(w.t_array_start == in);
        CHECK(w.t_done == in + tPROG);  // one tPROG for the wordline
        CHECK(w.t_wordline_wait == 0);
        // Its pages all hold their data; the block's next page is the next wordline's.
        for (unsigned p = 0; p < 2; ++p) {
          if (!(mask >> p & 1u)) continue;
          CHECK(h.engine.write_pointer(0, 0, p, 1) == n);
          for (unsigned k = 0; k < n; ++k) CHECK(h.engine.backdoor_read(0, 0, p, 1, k) == w.token_of(k, p));
        }
        const auto& pages = h.engine.counters().pages_by_planes[static_cast<unsigned>(FlashOp::Program)];
        CHECK(pages[planes - 1] == n * planes);  // pages, not commands
        CHECK(h.engine.counters().programs == 1);
      }
}

TEST_CASE("cells of n bits, cache program: the next wordline's first page goes in under tPROG, its others "
          "once the array is free",
          "[nand][cells][cache program]") {
  const unsigned n = 3, N = 4;
  Harness h(part(n));
  std::vector<FlashCommand*> w;
  for (unsigned i = 0; i < N; ++i) w.push_back(&wordline(h, 0b01, 0, i * n));
  h.run();
  for (FlashCommand* c : w) REQUIRE(c->status == FlashStatus::Ok);
  // Wordline 0: its 3 pages in, 0 .. 3(C + D), then tPROG.
  CHECK(w[0]->t_array_start == 3 * (C + D));
  const Tick end0 = 3 * (C + D) + tPROG;
  CHECK(w[0]->t_done == end0);
  // Wordline 1: its first page into the cache register while wordline 0 programs,
  // 3(C + D) .. 4(C + D); its two others once the array is free (its first page then moves
  // to a data register), end0 .. end0 + 2(C + D); then its tPROG.
  CHECK(w[1]->t_start == 3 * (C + D));
  CHECK(w[1]->t_wordline_wait == end0 - 4 * (C + D));
  CHECK(w[1]->t_bus_end == end0 + 2 * (C + D));
  CHECK(w[1]->bus_cmd_ticks == 3 * C);
  CHECK(w[1]->t_array_start == end0 + 2 * (C + D));
  CHECK(w[1]->t_done == end0 + 2 * (C + D) + tPROG);
  // Wordline 2 takes the cache register once wordline 1's pages have all moved on: at its
  // array start. From then on one wordline per tPROG + 2(C + D).
  CHECK(w[2]->t_start == w[1]->t_array_start);
  for (unsigned i = 2; i < N; ++i) {
    INFO("wordline " << i);
    CHECK(w[i]->t_done - w[i - 1]->t_done == tPROG + 2 * (C + D));
  }
  CHECK(w[N - 1]->t_done == 3 * (C + D) + N * tPROG + (N - 1) * 2 * (C + D));
  // The latency attribution of wordline 1 (sent at 0): the bus held by wordline 0, its own
  // bus time (3 pages' command and data), the wait between its two phases and before its
  // array as register wait, then tPROG; the parts sum to its latency.
  PartTicks parts{};
  flash_path_parts(*w[1], 0, 0, w[1]->t_done, parts);
  auto part = [&](Part k) { return parts[static_cast<unsigned>(k)]; };
  CHECK(part(Part::BusWait) == 3 * (C + D));
  CHECK(part(Part::BusCommand) == 3 * C);
  CHECK(part(Part::BusData) == 3 * D);
  CHECK(part(Part::RegisterWait) == end0 - 4 * (C + D));
  CHECK(part(Part::Array) == tPROG);
  Tick sum = 0;
  for (Tick t : parts) sum += t;
  CHECK(sum == w[1]->t_done);
  for (unsigned k = 0; k < N * n; ++k) CHECK(h.engine.backdoor_read(0, 0, 0, 0, k) == w[k / n]->token_of(k % n, 0));
}

TEST_CASE("cells of n bits, cache program on a bus-bound part: a wordline's later pages follow its first at once",
          "[nand][cells][cache program]") {
  // tPROG 20 us, shorter than a page's command and data (24.6 us): the array of wordline i
  // ends while wordline i + 1's first page goes in, and its later pages follow with no
  // gap: the bus is busy throughout, one wordline per 3(C + D).
  NandConfig cfg = part(3);
  cfg.t_prog_us = 20;
  const Tick tP = 20 * us;
  Harness h(cfg);
  std::vector<FlashCommand*> w;
  for (unsigned i = 0; i < 4; ++i) w.push_back(&wordline(h, 0b01, 0, i * 3));
  h.run();
  CHECK(w[1]->t_wordline_wait == 0);  // its first page ended after wordline 0's array
  for (unsigned i = 0; i < 4; ++i) {
    INFO("wordline " << i);
    CHECK(w[i]->t_array_start == (i + 1) * 3 * (C + D));
    CHECK(w[i]->t_done == (i + 1) * 3 * (C + D) + tP);
  }
}

TEST_CASE("cells of n bits, no cache program: a wordline's data-in waits for the die to finish the last", "[nand][cells]") {
  NandConfig cfg = part(2);
  cfg.cache_program = false;
  Harness h(cfg);
  FlashCommand& a = wordline(h, 0b11, 0, 0);
  FlashCommand& b = wordline(h, 0b11, 0, 2);
  h.run();
  const Tick one = 2 * 2 * (C + D) + tPROG;  // 2 pages on 2 planes, then tPROG
  CHECK(a.t_done == one);
  CHECK(b.t_start == one);
  CHECK(b.t_done == 2 * one);
}

TEST_CASE("cells of n bits: a read senses with its page type's tR", "[nand][cells][read]") {
  NandConfig cfg = part(3);
  cfg.t_read_page_us = "50, 60,70";
  REQUIRE(cfg.validate().empty());
  Harness h(cfg);
  wordline(h, 0b01, 0, 0);
  wordline(h, 0b01, 0, 3);
  h.run();
  const Tick tr[3] = {50 * us, 60 * us, 70 * us};
  for (std::uint32_t page = 0; page < 6; ++page) {
    const Tick t0 = h.now;
    FlashCommand& r = h.submit(FlashOp::Read, 0, 0, 0b01, 0, page);
    h.run();
    INFO("page " << page);
    REQUIRE(r.status == FlashStatus::Ok);
    CHECK(r.t_array_start - t0 == C);
    CHECK(r.t_array_end - r.t_array_start == tr[page % 3]);
    CHECK(r.t_done - t0 == C + tr[page % 3] + D);
    CHECK(r.token[0] == 0x5000u + page * 16);
  }
  // Without the list, every page senses in nand.t_read_us.
  NandConfig plain = part(3);
  Harness g(plain);
  wordline(g, 0b01, 0, 0);
  g.run();
  FlashCommand& r = g.submit(FlashOp::Read, 0, 0, 0b01, 0, 2);
  g.run();
  CHECK(r.t_array_end - r.t_array_start == 75 * us);
}

TEST_CASE("protocol: with cells of n bits, a program that does not begin a wordline is an error naming the key",
          "[nand][cells][protocol]") {
  Harness h(part(3));
  FlashCommand& bad = wordline(h, 0b01, 0, 1);
  h.run();
  CHECK(bad.status == FlashStatus::ProtocolError);
  CHECK(bad.error.find("nand.bits_per_cell = 3") != std::string::npos);
  CHECK(bad.error.find("does not begin a wordline") != std::string::npos);
  // After wordline 0, the next program must start at page 3.
  wordline(h, 0b01, 0, 0);
  h.run();
  FlashCommand& skip = wordline(h, 0b01, 0, 6);
  h.run();
  CHECK(skip.status == FlashStatus::ProtocolError);
  CHECK(skip.error.find("the next page to program in that block is 3") != std::string::npos);
}

TEST_CASE("cells of n bits: the keys are checked, each message naming its key", "[nand][cells][config]") {
  auto first = [](const NandConfig& c) {
    const auto errs = c.validate();
    return errs.empty() ? std::string() : errs.front();
  };
  NandConfig c = part(3);
  c.pages_per_block = 256;
  CHECK(first(c) == "nand.pages_per_block = 256 is not a whole number of wordlines of nand.bits_per_cell = 3 pages");
  c = part(3);
  c.t_read_page_us = "50,60";
  CHECK(first(c) == "nand.t_read_page_us = '50,60': 2 times for nand.bits_per_cell = 3 page types (one per page "
                    "type, lower page first)");
  c.t_read_page_us = "50,6x,70";
  CHECK(first(c) == "nand.t_read_page_us = '50,6x,70': '6x' (item 2) is not a number");
  c.t_read_page_us = "50,0x3C,70";  // the number grammar of every reader: decimal only
  CHECK(first(c) == "nand.t_read_page_us = '50,0x3C,70': '0x3C' (item 2) is not a number");
  c.t_read_page_us = "50,,70";
  CHECK(first(c) == "nand.t_read_page_us = '50,,70': '' (item 2) is not a number");
  c.t_read_page_us = "50,60,0";
  CHECK(first(c) == "nand.t_read_page_us = '50,60,0': item 3 = 0 is out of range [0.001, 10000000]");
  c.t_read_page_us = "50,60,70";
  CHECK(first(c).empty());
  c.bits_per_cell = 5;
  CHECK(first(c) == "nand.bits_per_cell = 5 is out of range [1, 4]");
}

TEST_CASE("power cut: a wordline in tPROG is torn whole, the next one waiting for its later pages leaves its "
          "wordline erased",
          "[nand][cells][power]") {
  Harness h(part(3));
  FlashCommand& w0 = wordline(h, 0b01, 0, 0);
  FlashCommand& w1 = wordline(h, 0b01, 0, 3);
  // w0 in tPROG from 3(C + D); w1's first page in the cache register at 4(C + D).
  const Tick t = 3 * (C + D) + 100 * us;
  h.run_until(t);
  REQUIRE(w0.t_array_start == 3 * (C + D));
  std::vector<ChannelEngine::Completed> lost;
  h.engine.power_cut(h.now, lost);
  REQUIRE(lost.size() == 2);
  CHECK(w0.failed_planes == 0b01);
  CHECK(w1.failed_planes == 0);
  for (std::uint32_t k = 0; k < 3; ++k) CHECK(h.engine.backdoor_read(0, 0, 0, 0, k) == kTornToken);
  CHECK(h.engine.write_pointer(0, 0, 0, 0) == 3);  // w1's wordline erased: programmed next
  CHECK(h.engine.torn_pages() == 3);

  // Cut while the later pages wait for the bus after the array ended: erased too.
  Harness g(part(3));
  wordline(g, 0b01, 0, 0);
  FlashCommand& v1 = wordline(g, 0b01, 0, 3);
  g.run_until(3 * (C + D) + tPROG);  // wordline 0 done; v1's later pages on the bus
  REQUIRE(v1.t_array_start == 0);
  CHECK(v1.t_wordline_wait == tPROG - (C + D));  // its second phase began
  lost.clear();
  g.engine.power_cut(g.now, lost);
  CHECK(lost.size() == 1);
  CHECK(v1.failed_planes == 0);
  CHECK(g.engine.write_pointer(0, 0, 0, 0) == 3);
  CHECK(g.engine.backdoor_read(0, 0, 0, 0, 2) != kTornToken);  // wordline 0 completed
}

namespace {
FlashCommand& slc(Harness& h, FlashOp op, std::uint8_t mask, std::uint32_t block, std::uint32_t page) {
  FlashCommand& c = h.make(op, 0, 0, mask, block, page);
  c.slc = true;
  h.engine.submit(&c, h.now);
  return c;
}
}  // namespace

TEST_CASE("SLC mode: a block erased in SLC mode holds a page per wordline, each programmed in tPROG_SLC and read "
          "in tR_SLC",
          "[nand][cells][slc]") {
  const Tick tPs = 200 * us, tRs = 30 * us;  // the defaults: nand.t_prog_slc_us, nand.t_read_slc_us
  Harness h(part(3));
  FlashCommand& e = slc(h, FlashOp::Erase, 0b01, 2, 0);
  h.run();
  REQUIRE(e.status == FlashStatus::Ok);
  // Two pages (cache program): page 0 in at C + D, tPROG_SLC; page 1's data under it.
  Tick t0 = h.now;
  FlashCommand& p0 = slc(h, FlashOp::Program, 0b01, 2, 0);
  FlashCommand& p1 = slc(h, FlashOp::Program, 0b01, 2, 1);
  h.run();
  REQUIRE(p1.status == FlashStatus::Ok);
  CHECK(p0.t_done - t0 == C + D + tPs);
  CHECK(p1.t_start - t0 == C + D);
  CHECK(p1.t_array_start - t0 == C + D + tPs);
  CHECK(p1.t_done - t0 == C + D + 2 * tPs);
  CHECK(p1.t_wordline_wait == 0);
  CHECK(h.engine.write_pointer(0, 0, 0, 2) == 2);
  CHECK(h.engine.counters().pages_by_planes[static_cast<unsigned>(FlashOp::Program)][0] == 2);
  t0 = h.now;
  FlashCommand& r = slc(h, FlashOp::Read, 0b01, 2, 1);
  h.run();
  REQUIRE(r.status == FlashStatus::Ok);
  CHECK(r.t_done - t0 == C + tRs + D);
  CHECK(r.token[0] == p1.token[0]);
  // Four pages in all (12 pages / 3 bits): a fifth is refused.
  slc(h, FlashOp::Program, 0b01, 2, 2);
  slc(h, FlashOp::Program, 0b01, 2, 3);
  FlashCommand& over = slc(h, FlashOp::Program, 0b01, 2, 4);
  h.run();
  CHECK(over.status == FlashStatus::ProtocolError);
  CHECK(over.error.find("a block in SLC mode holds 4 pages (nand.pages_per_block / nand.bits_per_cell)") !=
        std::string::npos);
  // Commands without SLC mode are refused by the block, and SLC ones by a block not in it.
  FlashCommand& plain = h.submit(FlashOp::Read, 0, 0, 0b01, 2, 0);
  FlashCommand& slc_read = slc(h, FlashOp::Read, 0b01, 3, 0);
  h.run();
  CHECK(plain.error.find("block 2 on plane 0 is in SLC mode (its last erase set it): a READ without SLC mode") !=
        std::string::npos);
  CHECK(slc_read.error.find("block 3 on plane 0 is not in SLC mode: a READ in SLC mode") != std::string::npos);
  // An erase without SLC mode gives the block its wordlines back.
  h.submit(FlashOp::Erase, 0, 0, 0b01, 2, 0);
  FlashCommand& w = wordline(h, 0b01, 2, 0);
  h.run();
  CHECK(w.status == FlashStatus::Ok);
  CHECK(h.engine.write_pointer(0, 0, 0, 2) == 3);
}

TEST_CASE("SLC mode after a wordline: its one page goes in under the wordline's tPROG, no second phase",
          "[nand][cells][slc][cache program]") {
  const Tick tPs = 200 * us;
  Harness h(part(3));
  slc(h, FlashOp::Erase, 0b01, 1, 0);
  h.run();
  const Tick t0 = h.now;
  FlashCommand& w = wordline(h, 0b01, 0, 0);
  FlashCommand& s = slc(h, FlashOp::Program, 0b01, 1, 0);
  h.run();
  CHECK(w.t_done - t0 == 3 * (C + D) + tPROG);
  CHECK(s.t_start - t0 == 3 * (C + D));
  CHECK(s.t_bus_end - t0 == 4 * (C + D));
  CHECK(s.t_array_start == w.t_done);
  CHECK(s.t_done == w.t_done + tPs);
}

TEST_CASE("protocol: SLC mode on a part of one bit per cell is an error naming the key", "[nand][cells][slc][protocol]") {
  Harness h(part(1));
  FlashCommand& e = slc(h, FlashOp::Erase, 0b01, 0, 0);
  h.run();
  CHECK(e.status == FlashStatus::ProtocolError);
  CHECK(e.error.find("SLC mode on a part of one bit per cell (nand.bits_per_cell = 1)") != std::string::npos);
}

TEST_CASE("cells of n bits: a wordline's later pages that wait for another chip's bus phase wait as bus wait",
          "[nand][cells][cache program]") {
  Harness h(part(3));
  FlashCommand& w0 = wordline(h, 0b01, 0, 0);
  FlashCommand& w1 = wordline(h, 0b01, 0, 3);
  const Tick end0 = 3 * (C + D) + tPROG;
  // Chip 1's program takes the bus 10 us before wordline 0's tPROG ends: its 3 pages,
  // end0 - 10 us .. end0 - 10 us + 3(C + D); wordline 1's later pages follow it.
  h.run_until(end0 - 10 * us);
  FlashCommand& other = h.make(FlashOp::Program, 1, 0, 0b01, 0, 0);
  for (unsigned k = 0; k < 3; ++k) other.token_of(k, 0) = 0x7000u + k;
  h.engine.submit(&other, h.now);
  h.run();
  REQUIRE(w0.t_done == end0);
  CHECK(other.t_start == end0 - 10 * us);
  CHECK(w1.t_wordline_wait == end0 - 4 * (C + D));         // the array held the data registers
  CHECK(w1.t_wordline_bus_wait == 3 * (C + D) - 10 * us);  // then chip 1 held the bus
  CHECK(w1.t_array_start == end0 - 10 * us + 5 * (C + D));
  PartTicks parts{};
  flash_path_parts(w1, 0, 0, w1.t_done, parts);
  CHECK(parts[static_cast<unsigned>(Part::BusWait)] == 3 * (C + D) + w1.t_wordline_bus_wait);
  CHECK(parts[static_cast<unsigned>(Part::BusData)] == 3 * D);
  Tick sum = 0;
  for (Tick t : parts) sum += t;
  CHECK(sum == w1.t_done);
}

TEST_CASE("power cut: an erase in SLC mode tears the block's SLC pages only", "[nand][cells][slc][power]") {
  Harness h(part(3));
  FlashCommand& e = slc(h, FlashOp::Erase, 0b01, 1, 0);
  h.run_until(100 * us);  // in tBERS
  std::vector<ChannelEngine::Completed> lost;
  h.engine.power_cut(h.now, lost);
  REQUIRE(lost.size() == 1);
  CHECK(e.failed_planes == 0b01);
  CHECK(h.engine.write_pointer(0, 0, 0, 1) == 4);  // 12 pages / 3 bits
  CHECK(h.engine.torn_pages() == 4);
  CHECK(h.engine.backdoor_read(0, 0, 0, 1, 3) == kTornToken);
}
