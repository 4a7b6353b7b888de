// Pages of several data units (NandConfig::units_per_page: the FTL's mapping units,
// docs/nand-timing.md, "Data units"): a PROGRAM stores each unit's own data, a READ
// returns the unit it names and moves out the bytes it asks for; the backdoor writes a
// page unit by unit; torn and failed programs and erases spoil every unit; an image's
// blocks read their units from the image's unit numbering. Times by hand, in picoseconds.
//
// The part: 333 MT/s (one bus cycle 10^6/333 ps, each bus phase rounded to whole
// picoseconds), 16 KiB pages of four 4 KiB units: C = 7 cycles = 21,021 ps, a page's data
// D16 = 16,384 B = 49,201,201 ps, a unit's D4 = 4,096 B = 12,300,300 ps; tR = 75 us,
// tPROG = 750 us.
#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <vector>

#include "nand/page_image.h"
#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;

namespace {

constexpr Tick C = 21'021, D16 = 49'201'201, D4 = 12'300'300, us = 1'000'000;
constexpr Tick tR = 75 * us, tPROG = 750 * us;

NandConfig part(unsigned units, unsigned bits = 1) {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 1;
  c.dies_per_chip = 1;
  c.planes_per_die = 2;
  c.blocks_per_plane = 4;
  c.pages_per_block = 12;
  c.page_bytes = 16384;
  c.units_per_page = units;
  c.bits_per_cell = bits;
  return c;
}

// Each unit's token: its block, page, unit and plane.
Token unit_token(std::uint32_t block, std::uint32_t page, unsigned unit, unsigned plane) {
  return 0x10000u + block * 4096 + page * 64 + unit * 8 + plane;
}

// A program of `pages` pages from `page` on `mask`, each unit's data its own (`buf` holds
// them for the command's life, plane by plane).
FlashCommand& program(Harness& h, std::vector<Token>& buf, std::uint8_t mask, std::uint32_t block,
                      std::uint32_t page, unsigned pages) {
  const unsigned U = h.cfg.units_per_page, per_plane = pages * U;
  buf.assign(std::size_t{per_plane} * kMaxPlanes, 0);
  FlashCommand& c = h.make(FlashOp::Program, 0, 0, mask, block, page);
  for (unsigned p = 0; p < kMaxPlanes; ++p) {
    for (unsigned k = 0; k < pages; ++k)
      for (unsigned u = 0; u < U; ++u) buf[p * per_plane + k * U + u] = unit_token(block, page + k, u, p);
    c.unit_tokens[p] = buf.data() + p * per_plane;
  }
  c.unit_planes = mask;
  h.engine.submit(&c, h.now);
  return c;
}

FlashCommand& read(Harness& h, std::uint32_t block, std::uint32_t page, unsigned unit, std::uint32_t out_bytes,
                   std::uint8_t mask = 0b01) {
  FlashCommand& c = h.make(FlashOp::Read, 0, 0, mask, block, page);
  c.unit = static_cast<std::uint8_t>(unit);
  c.out_bytes = out_bytes;
  h.engine.submit(&c, h.now);
  return c;
}

}  // namespace

TEST_CASE("data units: a program stores each unit's data, a read returns its unit and moves out the bytes asked",
          "[nand][units]") {
  Harness h(part(4));
  std::vector<Token> buf;
  FlashCommand& w = program(h, buf, 0b11, 1, 0, 1);
  h.run();
  REQUIRE(w.status == FlashStatus::Ok);
  // A page of four units moves in as one page: 2(C + D16) for two planes, then tPROG.
  CHECK(w.t_done == 2 * (C + D16) + tPROG);
  for (unsigned p = 0; p < 2; ++p)
    for (unsigned u = 0; u < 4; ++u) CHECK(h.engine.backdoor_read(0, 0, p, 1, 0, u) == unit_token(1, 0, u, p));
  // Unit 2, its 4 KiB alone: C + tR + D4; the whole page: C + tR + D16. Each returns unit 2's data.
  const Tick t0 = h.now;
  FlashCommand& one = read(h, 1, 0, 2, 4096);
  h.run();
  REQUIRE(one.status == FlashStatus::Ok);
  CHECK(one.token[0] == unit_token(1, 0, 2, 0));
  CHECK(one.t_done - t0 == C + tR + D4);
  const Tick t1 = h.now;
  FlashCommand& whole = read(h, 1, 0, 3, 0, 0b11);  // two planes, unit 3 of each
  h.run();
  REQUIRE(whole.status == FlashStatus::Ok);
  CHECK(whole.token[0] == unit_token(1, 0, 3, 0));
  CHECK(whole.token[1] == unit_token(1, 0, 3, 1));
  CHECK(whole.t_done - t1 == 2 * C + tR + 2 * D16);
}

TEST_CASE("data units: a wordline of n pages carries n x U units per plane, lower page first", "[nand][units]") {
  for (unsigned n : {2u, 3u}) {
    Harness h(part(2, n));
    std::vector<Token> buf;
    FlashCommand& w = program(h, buf, 0b01, 2, 0, n);
    h.run();
    REQUIRE(w.status == FlashStatus::Ok);
    CHECK(h.engine.write_pointer(0, 0, 0, 2) == n);
    for (unsigned k = 0; k < n; ++k)
      for (unsigned u = 0; u < 2; ++u) CHECK(h.engine.backdoor_read(0, 0, 0, 2, k, u) == unit_token(2, k, u, 0));
  }
  // A plane not in unit_planes: every unit of page k holds token_of(k, p) (filler, the map log).
  Harness h(part(4, 3));
  FlashCommand& w = h.make(FlashOp::Program, 0, 0, 0b01, 0, 0);
  for (unsigned k = 0; k < 3; ++k) w.token_of(k, 0) = 0x700u + k;
  h.engine.submit(&w, h.now);
  h.run();
  REQUIRE(w.status == FlashStatus::Ok);
  for (unsigned k = 0; k < 3; ++k)
    for (unsigned u = 0; u < 4; ++u) CHECK(h.engine.backdoor_read(0, 0, 0, 0, k, u) == 0x700u + k);
}

TEST_CASE("data units: a unit past the page's is a protocol error naming it", "[nand][units]") {
  Harness h(part(4));
  std::vector<Token> buf;
  program(h, buf, 0b01, 0, 0, 1);
  h.run();
  FlashCommand& bad = read(h, 0, 0, 4, 4096);
  h.run();
  CHECK(bad.status == FlashStatus::ProtocolError);
  CHECK(bad.error.find("unit 4 does not exist (a page holds 4 units of data") != std::string::npos);
  // One unit per page (the default): unit 1 is refused the same way.
  Harness one(part(1));
  FlashCommand& r = one.make(FlashOp::Read, 0, 0, 0b01, 0, 0);
  r.unit = 1;
  one.engine.submit(&r, 0);
  one.run();
  CHECK(r.status == FlashStatus::ProtocolError);
  CHECK(r.error.find("unit 1 does not exist (a page holds 1 unit of data") != std::string::npos);
}

TEST_CASE("data units: the backdoor writes a page unit by unit, in order, and units not written read erased",
          "[nand][units]") {
  Harness h(part(4));
  h.engine.backdoor_program(0, 0, 0, 3, 0, 0xA0u, 0);
  h.engine.backdoor_program(0, 0, 0, 3, 0, 0xA1u, 1);
  CHECK(h.engine.write_pointer(0, 0, 0, 3) == 1);
  CHECK(h.engine.backdoor_read(0, 0, 0, 3, 0, 1) == 0xA1u);
  CHECK(h.engine.backdoor_read(0, 0, 0, 3, 0, 2) == kErasedToken);
  CHECK_THROWS_WITH(h.engine.backdoor_program(0, 0, 0, 3, 0, 0xA3u, 3),
                    "NAND backdoor: programming page 0 unit 3 of block 3 whose next page is 0 unit 2");
  CHECK_THROWS_WITH(h.engine.backdoor_program(0, 0, 0, 3, 1, 0xB0u, 0),
                    "NAND backdoor: programming page 1 unit 0 of block 3 whose next page is 0 unit 2");
  // A read of a unit not written is refused as a read of an erased page.
  FlashCommand& r = read(h, 3, 0, 2, 4096);
  h.run();
  CHECK(r.status == FlashStatus::ProtocolError);
  CHECK(r.error.find("reading unit 2 of page 0 of block 3 on plane 0, which is erased (the page's first 2 units are "
                     "written)") != std::string::npos);
  FlashCommand& ok = read(h, 3, 0, 1, 4096);
  h.run();
  CHECK(ok.status == FlashStatus::Ok);
  CHECK(ok.token[0] == 0xA1u);
  h.engine.backdoor_program(0, 0, 0, 3, 0, 0xA2u, 2);
  h.engine.backdoor_program(0, 0, 0, 3, 0, 0xA3u, 3);
  h.engine.backdoor_program(0, 0, 0, 3, 1, 0xB0u, 0);  // the page is whole: the next begins
  CHECK(h.engine.write_pointer(0, 0, 0, 3) == 2);
  // A block programmed whole from the backdoor: 6 units are a page and a half.
  const std::array<Token, 6> t{1, 2, 3, 4, 5, 6};
  h.engine.backdoor_program_block(0, 0, 1, 2, t.data(), 6);
  CHECK(h.engine.write_pointer(0, 0, 1, 2) == 2);
  CHECK(h.engine.backdoor_read(0, 0, 1, 2, 1, 1) == 6);
  CHECK(h.engine.backdoor_read(0, 0, 1, 2, 1, 2) == kErasedToken);
  h.engine.backdoor_program(0, 0, 1, 2, 1, 7, 2);  // on from there
  CHECK(h.engine.backdoor_read(0, 0, 1, 2, 1, 2) == 7);
}

TEST_CASE("data units: a power cut tears every unit of a program's pages, and of an erase's block",
          "[nand][units]") {
  Harness h(part(4, 3));
  std::vector<Token> buf;
  program(h, buf, 0b01, 1, 0, 3);
  h.run_until(3 * (C + D16) + 100 * us);  // in its tPROG
  std::vector<ChannelEngine::Completed> lost;
  h.engine.power_cut(h.now, lost);
  REQUIRE(lost.size() == 1);
  for (unsigned k = 0; k < 3; ++k)
    for (unsigned u = 0; u < 4; ++u) CHECK(h.engine.backdoor_read(0, 0, 0, 1, k, u) == kTornToken);
  h.done.clear();
  FlashCommand& e = h.make(FlashOp::Erase, 0, 0, 0b01, 1, 0);
  h.engine.submit(&e, h.now);
  h.run_until(h.now + 1000 * us);
  lost.clear();
  h.engine.power_cut(h.now, lost);
  REQUIRE(lost.size() == 1);
  CHECK(h.engine.write_pointer(0, 0, 0, 1) == 12);
  CHECK(h.engine.backdoor_read(0, 0, 0, 1, 11, 3) == kTornToken);
}

namespace {
// An image whose every unit's token is its index.
struct IndexImage final : PageImage {
  Token token(std::uint32_t unit) const override { return 0x40000u + unit; }
};
}  // namespace

TEST_CASE("data units: a block loaded from an image reads each unit at its index in the FTL's unit numbering",
          "[nand][units]") {
  Harness h(part(4));
  IndexImage image;
  h.engine.set_image(&image);
  // Block 2 of plane 1: device-wide block 1 x 4 + 2 = 6; 8 units = its pages 0 and 1.
  h.engine.backdoor_load_image(0, 0, 1, 2, 8, 5);
  CHECK(h.engine.write_pointer(0, 0, 1, 2) == 2);
  CHECK(h.engine.erase_count(0, 0, 1, 2) == 5);
  for (unsigned page = 0; page < 2; ++page)
    for (unsigned u = 0; u < 4; ++u)
      CHECK(h.engine.backdoor_read(0, 0, 1, 2, page, u) == 0x40000u + (6 * 12 + page) * 4 + u);
  FlashCommand& r = h.make(FlashOp::Read, 0, 0, 0b10, 2, 1);
  r.unit = 3;
  h.engine.submit(&r, h.now);
  h.run();
  CHECK(r.token[1] == 0x40000u + (6 * 12 + 1) * 4 + 3);
  CHECK_THROWS(h.engine.backdoor_load_image(0, 0, 1, 3, 6, 0));  // not whole pages
}
