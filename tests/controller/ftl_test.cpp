// The FTL's data structures and decisions, without the SystemC kernel.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>

#include "controller/ftl.h"
#include "controller/victim.h"
#include "nand/channel_engine.h"
#include "tests/engine_backdoor.h"

using namespace ssd;
using namespace ssd::ctrl;
using ssd::ctrl::test::EngineBackdoor;

namespace {

FtlConfig small(const std::string& order = "CWDP") {
  FtlConfig f;
  f.nand.channels = 4;
  f.nand.chips_per_channel = 2;
  f.nand.dies_per_chip = 2;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 32;
  f.nand.pages_per_block = 16;
  f.nand.page_bytes = 4096;
  f.overprovisioning = 0.25;
  f.gc_threshold = 0.1;
  f.allocation = order;
  return f;
}

Token token_of(std::uint64_t lpn) { return static_cast<Token>(lpn * 2654435761u) | 1u; }

}  // namespace

TEST_CASE("ftl: static allocation stripes logical pages in the configured order", "[ftl][allocation]") {
  Ftl cwdp(small("CWDP"));
  // Channel first, then chip: lpn 0..3 on channels 0..3, lpn 4 on channel 0 chip 1.
  for (std::uint64_t lpn = 0; lpn < 4; ++lpn) {
    const PhysAddr a = cwdp.decode(cwdp.plane_of_lpn(lpn) * 32 * 16);
    CHECK(a.channel == lpn);
    CHECK(a.chip == 0);
  }
  PhysAddr a4 = cwdp.decode(cwdp.plane_of_lpn(4) * 32 * 16);
  CHECK((a4.channel == 0 && a4.chip == 1 && a4.die == 0 && a4.plane == 0));
  PhysAddr a8 = cwdp.decode(cwdp.plane_of_lpn(8) * 32 * 16);
  CHECK((a8.channel == 0 && a8.chip == 0 && a8.die == 1));
  Ftl pdwc(small("PDWC"));
  PhysAddr p1 = pdwc.decode(pdwc.plane_of_lpn(1) * 32 * 16);
  CHECK((p1.channel == 0 && p1.plane == 1));
  // Every one of the 24 orders maps the first `planes` logical pages onto all planes once.
  std::string order = "CDPW";
  std::sort(order.begin(), order.end());
  int orders = 0;
  do {
    Ftl f(small(order));
    std::set<std::uint32_t> seen;
    for (std::uint64_t lpn = 0; lpn < f.planes(); ++lpn) seen.insert(f.plane_of_lpn(lpn));
    CHECK(seen.size() == f.planes());
    // Further pages follow the same mixed radix, the first letter fastest (C: channel,
    // W: chip, D: die, P: plane), over the whole logical space.
    for (std::uint64_t lpn : {std::uint64_t{37}, std::uint64_t{1000}, std::uint64_t{12345}, f.logical_pages() - 1}) {
      std::uint64_t r = lpn;
      std::uint32_t coord[4] = {};  // channel, chip, die, plane
      const std::uint32_t size[4] = {4, 2, 2, 2};
      for (char d : order) {
        const int k = d == 'C' ? 0 : d == 'W' ? 1 : d == 'D' ? 2 : 3;
        coord[k] = static_cast<std::uint32_t>(r % size[k]);
        r /= size[k];
      }
      const PhysAddr a = f.decode(f.plane_of_lpn(lpn) * 32 * 16);
      INFO(order << " lpn " << lpn);
      CHECK((a.channel == coord[0] && a.chip == coord[1] && a.die == coord[2] && a.plane == coord[3]));
    }
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  CHECK(orders == 24);
}

TEST_CASE("ftl: mapping, overwrite invalidation, trim", "[ftl]") {
  Ftl f(small());
  const std::uint32_t pl = f.plane_of_lpn(5);
  const std::uint32_t p1 = f.allocate(pl, false);
  f.map(5, p1);
  CHECK(f.lookup(5) == p1);
  CHECK(f.owner(p1) == 5);
  CHECK(f.valid_pages(f.block_of_ppa(p1)) == 1);
  const std::uint32_t p2 = f.allocate(pl, false);
  CHECK(p2 == p1 + 1);  // next page of the open block
  f.map(5, p2);
  CHECK(f.owner(p1) == kUnmapped);
  CHECK(f.valid_pages(f.block_of_ppa(p1)) == 1);  // p2 is in the same block
  // A GC copy from p1 is stale: lpn 5 moved on.
  const std::uint32_t g = f.allocate(pl, true);
  CHECK_FALSE(f.relocate(5, g, p1));
  CHECK(f.lookup(5) == p2);
  CHECK(f.relocate(5, g, p2));
  CHECK(f.lookup(5) == g);
  f.trim(5);
  CHECK(f.lookup(5) == kUnmapped);
  CHECK(f.owner(g) == kUnmapped);
}

TEST_CASE("ftl: the greedy victim has the fewest valid pages, pending reads protect a block", "[ftl][gc]") {
  FtlConfig cfg = small();
  Ftl f(cfg);
  const std::uint32_t pl = 0;
  // Fill three blocks of plane 0 through lpns that live on it.
  std::vector<std::uint64_t> lpns;
  for (std::uint64_t lpn = 0; lpns.size() < 48; ++lpn)
    if (f.plane_of_lpn(lpn) == pl) lpns.push_back(lpn);
  std::vector<std::uint32_t> ppa;
  for (std::uint64_t lpn : lpns) {
    ppa.push_back(f.allocate(pl, false));
    f.programmed(ppa.back());
    f.map(lpn, ppa.back());
  }
  const std::uint32_t b0 = f.block_of_ppa(ppa[0]), b1 = f.block_of_ppa(ppa[16]), b2 = f.block_of_ppa(ppa[32]);
  // Invalidate 10 pages of b1 and 4 of b0 by trimming.
  for (int i = 0; i < 10; ++i) f.trim(lpns[16 + i]);
  for (int i = 0; i < 4; ++i) f.trim(lpns[i]);
  f.add_pending_read(ppa[20]);
  CHECK_THROWS_AS(f.make_victim(b1), std::logic_error);  // not a candidate while a read is pending
  CHECK(take_greedy_victim(f, pl) == b0);  // b1 has fewer valid pages but a pending read
  f.remove_pending_read(ppa[20]);
  CHECK(take_greedy_victim(f, pl) == b1);
  std::vector<std::uint32_t> valid;
  f.valid_ppas(b1, valid);
  CHECK(valid.size() == 6);
  (void)b2;
}

namespace {
// The logical pages of plane `pl`, the first n of them.
std::vector<std::uint64_t> lpns_of_plane(const Ftl& f, std::uint32_t pl, std::size_t n) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t lpn = 0; out.size() < n; ++lpn)
    if (f.plane_of_lpn(lpn) == pl) out.push_back(lpn);
  return out;
}
}  // namespace

// docs/controller.md, "Page and block states": each transition a GC victim depends on.
TEST_CASE("ftl: a full block with a program in flight is no GC candidate until the program ends",
          "[ftl][gc][states]") {
  Ftl f(small());
  const std::uint32_t pl = 0, ppb = f.config().nand.pages_per_block;
  const std::vector<std::uint64_t> lpns = lpns_of_plane(f, pl, ppb * 2);
  // Block A: every page allocated, programmed and mapped, then half of them trimmed.
  std::vector<std::uint32_t> a;
  for (std::uint32_t i = 0; i < ppb; ++i) {
    a.push_back(f.allocate(pl, false));
    f.programmed(a.back());
    f.map(lpns[i], a.back());
  }
  for (std::uint32_t i = 0; i < ppb / 2; ++i) f.trim(lpns[i]);
  const std::uint32_t block_a = f.block_of_ppa(a[0]);
  // Block B: every page allocated (the block is full), the programs still in flight:
  // none of its pages is valid yet, so greedy would take it first.
  std::vector<std::uint32_t> b;
  for (std::uint32_t i = 0; i < ppb; ++i) b.push_back(f.allocate(pl, false));
  const std::uint32_t block_b = f.block_of_ppa(b[0]);
  REQUIRE(block_b != block_a);
  CHECK(f.valid_pages(block_b) == 0);
  CHECK(f.programs_in_flight(block_b) == ppb);
  CHECK_FALSE(f.gc_candidate(block_b));
  CHECK(f.gc_candidate(block_a));
  // All but one program end: still no candidate.
  for (std::uint32_t i = 0; i + 1 < ppb; ++i) {
    f.programmed(b[i]);
    f.map(lpns[ppb + i], b[i]);
  }
  CHECK_FALSE(f.gc_candidate(block_b));
  // The last ends superseded (a newer write won): its page stays invalid, the block is a
  // candidate now, with ppb - 1 valid pages, so A (ppb / 2 valid) is still the victim.
  f.programmed(b.back());
  CHECK(f.gc_candidate(block_b));
  CHECK(f.valid_pages(block_b) == ppb - 1);
  CHECK(take_greedy_victim(f, pl) == block_a);
  CHECK_FALSE(f.gc_candidate(block_a));  // a victim is no candidate again
  // A program's end is counted once: a second one for the same page is refused.
  CHECK_THROWS_AS(f.programmed(b.back()), std::logic_error);
}

TEST_CASE("ftl: an open block is no GC candidate, however few its valid pages", "[ftl][gc][states]") {
  Ftl f(small());
  const std::uint32_t pl = 0;
  const std::uint32_t p = f.allocate(pl, false);
  f.programmed(p);
  CHECK_FALSE(f.gc_candidate(f.block_of_ppa(p)));
  CHECK(take_greedy_victim(f, pl) == kUnmapped);
}

TEST_CASE("ftl: a victim is erased only with no valid page, program or read left in it", "[ftl][gc][states]") {
  Ftl f(small());
  const std::uint32_t pl = 0, ppb = f.config().nand.pages_per_block;
  const std::vector<std::uint64_t> lpns = lpns_of_plane(f, pl, ppb);
  std::vector<std::uint32_t> a;
  for (std::uint32_t i = 0; i < ppb; ++i) {
    a.push_back(f.allocate(pl, false));
    f.programmed(a.back());
    f.map(lpns[i], a.back());
  }
  f.trim(lpns[0]);
  const std::uint32_t victim = take_greedy_victim(f, pl);
  REQUIRE(victim == f.block_of_ppa(a[0]));
  // Valid pages remain (their copies have not ended): erasing would lose them.
  CHECK_THROWS_AS(f.erased(victim), std::logic_error);
  // Copy each valid page; a host write of lpns[1] wins over its copy meanwhile.
  std::vector<std::uint32_t> valid;
  f.valid_ppas(victim, valid);
  REQUIRE(valid.size() == ppb - 1);
  const std::uint32_t newer = f.allocate(pl, false);
  for (std::uint32_t from : valid) {
    const std::uint64_t lpn = f.owner(from);
    const std::uint32_t to = f.allocate(pl, true);
    if (lpn == lpns[1]) {  // the host's program of lpns[1] ends first
      f.programmed(newer);
      f.map(lpn, newer);
    }
    f.add_pending_read(from);  // a host read of it is still in flight
    f.programmed(to);
    CHECK(f.relocate(lpn, to, from) == (lpn != lpns[1]));  // the stale copy does not move the mapping
    CHECK(f.lookup(lpn) == (lpn == lpns[1] ? newer : to));
  }
  CHECK(f.valid_pages(victim) == 0);
  CHECK_THROWS_AS(f.erased(victim), std::logic_error);  // reads still in flight
  for (std::uint32_t from : valid) f.remove_pending_read(from);
  f.erased(victim);
  CHECK(f.free_blocks(pl) > 0);
  CHECK_THROWS_AS(f.erased(victim), std::logic_error);  // a free block is no victim
}

TEST_CASE("ftl: the least-erased free block is opened first (dynamic wear leveling)", "[ftl][wear]") {
  FtlConfig cfg = small();
  Ftl f(cfg);
  EngineBackdoor nand(cfg.nand);
  // Heavy random overwrites through preconditioning cycle every block of every plane.
  f.precondition(f.logical_pages() / 2, f.logical_pages() * 8, 7, nand, token_of);
  std::uint32_t emin, emax;
  double emean;
  f.erase_stats(emin, emax, emean);
  INFO("erase counts min " << emin << " max " << emax << " mean " << emean);
  CHECK(emean > 2.0);
  // Without wear leveling the hot open blocks would take most erases; with it, every
  // block is within a few erases of the others.
  CHECK(emax - emin <= 3);
}

TEST_CASE("ftl: preconditioning fills and ages the device, the NAND holds every mapped page", "[ftl][precondition]") {
  FtlConfig cfg = small();
  Ftl f(cfg);
  EngineBackdoor nand(cfg.nand);
  const std::uint64_t fill = f.logical_pages() * 9 / 10;
  f.precondition(fill, fill * 2, 42, nand, token_of);
  std::uint64_t mapped = 0;
  for (std::uint64_t lpn = 0; lpn < f.logical_pages(); ++lpn) {
    const std::uint32_t ppa = f.lookup(lpn);
    if (lpn >= fill) {
      CHECK(ppa == kUnmapped);
      continue;
    }
    REQUIRE(ppa != kUnmapped);
    ++mapped;
    CHECK(f.owner(ppa) == lpn);
    if (nand.read(f.decode(ppa)) != token_of(lpn)) FAIL("token mismatch at lpn " << lpn);
  }
  CHECK(mapped == fill);
  std::uint32_t emin, emax;
  double emean;
  f.erase_stats(emin, emax, emean);
  CHECK(emax > 0);                  // GC history
  CHECK(emax - emin <= 4);          // wear leveled
  CHECK(f.gc_erases() == 0);        // counters start at zero for the run
  CHECK(f.host_pages_written() == 0);
  // Valid pages per block add up to the mapped pages.
  std::uint64_t valid = 0;
  for (std::uint32_t b = 0; b < f.planes() * cfg.nand.blocks_per_plane; ++b) valid += f.valid_pages(b);
  CHECK(valid == fill);
  for (std::uint32_t p = 0; p < f.planes(); ++p) CHECK_FALSE(f.writes_blocked(p));
}

TEST_CASE("ftl: configuration errors name the key", "[ftl][config]") {
  FtlConfig a = small("CWDX");
  CHECK_THAT(a.validate().at(0), Catch::Contains("ftl.allocation"));
  FtlConfig b = small();
  b.overprovisioning = 0.01;
  CHECK_THAT(b.validate().at(0), Catch::Contains("ftl.overprovisioning"));
}

TEST_CASE("ftl: steady-state preconditioning maps every filled page to its token, blocks full but the GC mark and two open", "[ftl][precondition]") {
  FtlConfig cfg = small();
  Ftl f(cfg);
  EngineBackdoor nand(cfg.nand);
  const std::uint64_t fill = f.logical_pages() * 3 / 4;
  f.precondition_image(fill, 2.0, 11, nand, token_of);
  for (std::uint64_t lpn = 0; lpn < f.logical_pages(); ++lpn) {
    const std::uint32_t ppa = f.lookup(lpn);
    if (lpn >= fill) {
      REQUIRE(ppa == kUnmapped);
      continue;
    }
    REQUIRE(ppa != kUnmapped);
    REQUIRE(f.owner(ppa) == lpn);
    REQUIRE(nand.read(f.decode(ppa)) == token_of(lpn));
  }
  const std::uint32_t B = cfg.nand.blocks_per_plane, ppb = cfg.nand.pages_per_block;
  std::uint64_t valid = 0;
  for (std::uint32_t p = 0; p < f.planes(); ++p) {
    CHECK_FALSE(f.gc_needed(p));  // exactly at the GC mark: the next block the host opens starts GC
    std::uint32_t full = 0, min_valid = ppb;
    for (std::uint32_t b = 0; b < B; ++b) {
      const std::uint32_t g = p * B + b;
      valid += f.valid_pages(g);
      if (nand.read(f.decode(g * ppb + ppb - 1)) != kErasedToken) {
        ++full;
        min_valid = std::min(min_valid, f.valid_pages(g));
      }
      CHECK(f.erase_count(g) >= 1);  // two drive writes of history
    }
    CHECK(full + f.free_blocks(p) + 2 == B);  // and the two streams' open blocks
    CHECK(min_valid < ppb);  // a victim with invalid pages exists
  }
  CHECK(valid == fill);
  // GC works from this state: a victim is found and its valid pages are listed.
  const std::uint32_t v = take_greedy_victim(f, 0);
  REQUIRE(v != kUnmapped);
  std::vector<std::uint32_t> pages;
  f.valid_ppas(v, pages);
  CHECK(pages.size() == f.valid_pages(v));
}

TEST_CASE("ftl: pages given back in reverse order are given again, across blocks, leaving no hole",
          "[ftl][late_binding]") {
  Ftl f(small());
  const std::uint32_t pl = 3, ppb = 16;
  const std::uint32_t free0 = f.free_blocks(pl);
  // 20 pages of the host stream: a whole block and 4 of the next.
  std::vector<std::uint32_t> got;
  for (int i = 0; i < 20; ++i) got.push_back(f.allocate(pl, false));
  CHECK(f.free_blocks(pl) == free0 - 2);
  const std::uint32_t first = f.block_of_ppa(got[0]), second = f.block_of_ppa(got[16]);
  REQUIRE(first != second);
  // Not the stream's last page: refused; another stream's: refused.
  CHECK_THROWS_AS(f.unallocate(got[18], false), std::logic_error);
  CHECK_THROWS_AS(f.unallocate(got[19], true), std::logic_error);
  // Back to 14 pages: the second block goes back to the free pool once empty.
  for (int i = 19; i >= 14; --i) f.unallocate(got[i], false);
  CHECK(f.free_blocks(pl) == free0 - 1);
  CHECK(f.programs_in_flight(first) == 14);
  // The stream goes on from page 14 of the first block, then opens a block again.
  for (int i = 14; i < 20; ++i) CHECK(f.allocate(pl, false) == got[i]);  // the same pages, the same blocks
  CHECK(f.free_blocks(pl) == free0 - 2);
  // Every page ends its program: no page left allocated and unprogrammed.
  for (std::uint32_t p : got) f.programmed(p);
  CHECK(f.programs_in_flight(first) == 0);
  CHECK(f.programs_in_flight(second) == 0);
  CHECK(got[15] == first * ppb + 15);
}

TEST_CASE("ftl: a multi-plane allocation gives one page offset on the die's planes, or nothing", "[ftl][multiplane]") {
  Ftl f(small());  // 2 dies per chip, 2 planes per die, 16-page blocks
  std::array<std::uint32_t, kMaxPlanes> got{};
  const std::uint32_t die = 5, p0 = die * 2, p1 = die * 2 + 1, ppb = 16;
  // Both planes open a block at offset 0, then go on together, across a block boundary.
  for (std::uint32_t i = 0; i < ppb + 3; ++i) {
    REQUIRE(f.allocate_multi(die, 0b11, false, got));
    CHECK(got[0] % ppb == i % ppb);
    CHECK(got[1] % ppb == i % ppb);
    CHECK(f.plane_of_ppa(got[0]) == p0);
    CHECK(f.plane_of_ppa(got[1]) == p1);
  }
  // Planes at different offsets: refused, nothing allocated; one plane alone is fine.
  const std::uint32_t single = f.allocate(p1, false);
  CHECK(single % ppb == 3);
  const std::uint32_t before0 = f.programs_in_flight(f.block_of_ppa(got[0]));
  const std::uint32_t before1 = f.programs_in_flight(f.block_of_ppa(single));
  CHECK_FALSE(f.allocate_multi(die, 0b11, false, got));
  CHECK(f.programs_in_flight(f.block_of_ppa(got[0])) == before0);
  CHECK(f.programs_in_flight(f.block_of_ppa(single)) == before1);
  REQUIRE(f.allocate_multi(die, 0b01, false, got));  // plane 0 catches up
  CHECK(got[0] % ppb == 3);
  REQUIRE(f.allocate_multi(die, 0b11, false, got));
  CHECK(got[0] % ppb == 4);
  CHECK(got[1] % ppb == 4);
  // The GC stream is a stream of its own; a mask past the die's planes is an error.
  REQUIRE(f.allocate_multi(die, 0b11, true, got));
  CHECK(got[0] % ppb == 0);
  CHECK_THROWS_AS(f.allocate_multi(die, 0b100, false, got), std::invalid_argument);
  CHECK_THROWS_AS(f.allocate_multi(f.planes() / 2, 0b01, false, got), std::invalid_argument);
}

TEST_CASE("ftl: a multi-plane allocation stops at the host stream's reserve like a single one", "[ftl][multiplane]") {
  Ftl f(small());
  std::array<std::uint32_t, kMaxPlanes> got{};
  std::uint32_t n = 0;
  while (f.allocate_multi(0, 0b11, false, got)) ++n;
  // Each plane gave its pages until only the GC reserve was left, as allocate() does.
  CHECK(f.allocate(0, false) == kUnmapped);
  CHECK(f.allocate(1, false) == kUnmapped);
  CHECK(f.free_blocks(0) == f.free_blocks(1));
  CHECK(f.free_blocks(0) > 0);                      // the reserve, left to GC
  CHECK(n == (32 - f.free_blocks(0)) * 16);          // every other block's pages, two at a time
  CHECK(f.allocate_multi(0, 0b11, true, got));  // the GC stream may take the reserve
}

TEST_CASE("ftl: a die's GC stream takes its planes in turn at one page offset, and opens their blocks together",
          "[ftl][multiplane][frontier]") {
  Ftl f(small());  // 2 planes per die, 16-page blocks
  const std::uint32_t die = 3, p0 = die * 2, p1 = die * 2 + 1, ppb = 16;
  const std::uint32_t free0 = f.free_blocks(p0), free1 = f.free_blocks(p1);
  // Both planes must open a block (offset 0): the lower plane first, then the other one,
  // which is then behind; so on, across the block boundary.
  for (std::uint32_t i = 0; i < 2 * ppb + 6; ++i) {
    const std::uint32_t ppa = f.allocate_in_die(die, true);
    REQUIRE(ppa != kUnmapped);
    CHECK(f.plane_of_ppa(ppa) == (i % 2 ? p1 : p0));
    CHECK(ppa % ppb == (i / 2) % ppb);
  }
  CHECK(f.free_blocks(p0) == free0 - 2);  // two blocks each: they opened theirs together
  CHECK(f.free_blocks(p1) == free1 - 2);
  CHECK(f.next_offset(p0, true) == 3);
  CHECK(f.next_offset(p1, true) == 3);
  // The die's host streams are streams of their own.
  CHECK(f.next_offset(p0, false) == 0);
}

TEST_CASE("ftl: a plane that cannot take a page never holds its die's GC stream back, and a retired block's "
          "plane is written until it meets the others", "[ftl][multiplane][frontier]") {
  Ftl f(small());
  const std::uint32_t die = 0, p0 = 0, p1 = 1, ppb = 16;
  // Plane 1's GC stream takes every free block of the plane: it cannot open another.
  while (f.free_blocks(p1) > 0 || f.next_offset(p1, true) != 0) REQUIRE(f.allocate(p1, true) != kUnmapped);
  for (std::uint32_t i = 0; i < ppb + 2; ++i) {  // plane 0 alone, across its block boundary
    const std::uint32_t ppa = f.allocate_in_die(die, true);
    REQUIRE(ppa != kUnmapped);
    CHECK(f.plane_of_ppa(ppa) == p0);
  }
  // With neither plane able to take a page, none is given.
  Ftl g(small());
  for (std::uint32_t p : {p0, p1})
    while (g.free_blocks(p) > 0 || g.next_offset(p, true) != 0) REQUIRE(g.allocate(p, true) != kUnmapped);
  CHECK(g.allocate_in_die(die, true) == kUnmapped);

  // Planes at offset 5; plane 0's open block fails (retired): it opens another, at 0, and
  // is written alone until it is at 5 again, then the two go on in turn.
  Ftl h(small());
  for (std::uint32_t i = 0; i < 10; ++i) REQUIRE(h.allocate_in_die(die, true) != kUnmapped);
  REQUIRE(h.next_offset(p0, true) == 5);
  const std::uint32_t failed = h.block_of_ppa(h.allocate(p0, true));  // plane 0 at 6, then its block fails
  h.retire(failed);
  REQUIRE(h.next_offset(p0, true) == 0);
  for (std::uint32_t i = 0; i < 5; ++i) {
    const std::uint32_t ppa = h.allocate_in_die(die, true);
    CHECK(h.plane_of_ppa(ppa) == p0);
    CHECK(ppa % ppb == i);
    CHECK(h.block_of_ppa(ppa) != failed);
  }
  for (std::uint32_t i = 0; i < 4; ++i) {
    const std::uint32_t ppa = h.allocate_in_die(die, true);
    CHECK(h.plane_of_ppa(ppa) == (i % 2 ? p1 : p0));
    CHECK(ppa % ppb == 5 + i / 2);
  }
}

// ---- the SLC cache (FtlConfig::slc_cache_fraction) ----
namespace {
// One die of two planes, 3-bit cells, 32 blocks of 24 pages per plane; a quarter of them
// SLC: 8 blocks of 8 pages per plane after the 24 blocks of 3-bit cells.
FtlConfig slc_part(bool wait = false) {
  FtlConfig f;
  f.nand.channels = 1;
  f.nand.chips_per_channel = 1;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 32;
  f.nand.pages_per_block = 24;
  f.nand.bits_per_cell = 3;
  f.nand.page_bytes = 4096;
  f.overprovisioning = 0.4;
  f.slc_cache_fraction = 0.25;
  f.slc_wait = wait;
  return f;
}
}  // namespace

TEST_CASE("ftl: the SLC cache's blocks are numbered after every plane's, its NAND blocks after the others",
          "[ftl][slc]") {
  Ftl f(slc_part());
  REQUIRE(f.slc_blocks() == 8);
  REQUIRE(f.config().nand.blocks_per_plane == 24);
  CHECK(f.slc_pages_per_block() == 8);
  // The logical capacity is that of every block, as without the cache.
  CHECK(f.logical_pages() == static_cast<std::uint64_t>(std::floor(2 * 32 * 24 * 0.6)) / 2 * 2);
  // Plane 1's SLC block 3: the FTL's block 2 * 24 + 8 + 3, the NAND's block 24 + 3.
  const std::uint32_t g = 2 * 24 + 8 + 3, ppa = g * 24 + 5;
  CHECK(f.slc_block(g));
  CHECK(!f.slc_block(2 * 24 - 1));
  CHECK(f.slc_page(ppa));
  CHECK(f.plane_of_ppa(ppa) == 1);
  CHECK(f.plane_of_block(g) == 1);
  CHECK(f.plane_of_ppa(47 * 24 + 23) == 1);  // the last page of plane 1's blocks of 3-bit cells
  const PhysAddr a = f.decode(ppa);
  CHECK(a.plane == 1);
  CHECK(a.block == 24 + 3);
  CHECK(a.page == 5);
  CHECK(f.encode(a) == ppa);
  CHECK(f.encode(f.decode(30 * 24 + 7)) == 30 * 24 + 7);
  CHECK(f.block_capacity(g) == 8);
  CHECK(f.block_capacity(3) == 24);
}

TEST_CASE("ftl: host writes fill the SLC cache first, then go direct to blocks of n-bit cells, and GC never writes there",
          "[ftl][slc]") {
  Ftl f(slc_part());
  const std::uint32_t first = 2 * 24;  // plane 0's first SLC block
  std::vector<std::uint32_t> pages;
  for (int i = 0; i < 8 * 8; ++i) {
    const std::uint32_t ppa = f.allocate(0, false);
    REQUIRE(f.slc_page(ppa));
    CHECK(f.plane_of_ppa(ppa) == 0);
    pages.push_back(ppa);
  }
  CHECK(pages.front() == first * 24);
  CHECK(pages[8] == (first + 1) * 24);  // a block holds 8 pages in SLC mode
  CHECK(f.block_full(first));
  CHECK(!f.slc_room(0));
  CHECK(f.slc_room(1));
  // Full: direct to the plane's blocks of 3-bit cells.
  const std::uint32_t direct = f.allocate(0, false);
  CHECK(!f.slc_page(direct));
  CHECK(f.plane_of_ppa(direct) == 0);
  CHECK(!f.slc_page(f.allocate(1, true)));  // GC's stream: never the cache
  // A fold: the block emptied and erased goes back to the cache's free blocks.
  for (std::uint32_t ppa : pages) f.programmed(ppa);
  for (std::uint32_t k = 0; k < 8; ++k) f.map(k, first * 24 + k);
  CHECK(fold_victim(f, 0) != first);  // the blocks with no valid page go first
  const std::uint32_t v = fold_victim(f, 0);
  CHECK(f.valid_pages(v) == 0);
  f.make_victim(v);
  f.erased(v);
  CHECK(f.slc_free_blocks(0) == 1);
  CHECK(f.slc_erases() == 1);
  CHECK(f.gc_erases() == 0);
  CHECK(f.slc_room(0));
  CHECK(f.allocate(0, false) == v * 24);
  // A page given back returns to the cache's stream.
  f.unallocate(v * 24, false);
  CHECK(f.allocate(0, false) == v * 24);
}

TEST_CASE("ftl: with ftl.slc_when_full = wait, host writes to a plane whose SLC blocks are full are blocked",
          "[ftl][slc]") {
  Ftl f(slc_part(true));
  for (int i = 0; i < 8 * 8; ++i) REQUIRE(f.slc_page(f.allocate(0, false)));
  CHECK(f.writes_blocked(0));
  CHECK(f.allocate(0, false) == kUnmapped);
  CHECK(!f.writes_blocked(1));
  CHECK(!f.slc_page(f.allocate(0, true)));  // GC (a fold's copies) still writes
}

TEST_CASE("ftl: the SLC cache is refused without cells of more bits, or with too few blocks", "[ftl][slc]") {
  FtlConfig one = slc_part();
  one.nand.bits_per_cell = 1;
  std::vector<std::string> e = one.validate();
  REQUIRE(!e.empty());
  CHECK(e.front().find("ftl.slc_cache_fraction = 0.250000: an SLC cache needs cells of more bits") != std::string::npos);
  FtlConfig tiny = slc_part();
  tiny.slc_cache_fraction = 0.03;
  e = tiny.validate();
  REQUIRE(!e.empty());
  CHECK(e.front().find("gives 0 SLC blocks per plane of 32") != std::string::npos);
}

// ---- mapping units smaller than a page (FtlConfig::mapping_unit_bytes) ----

namespace {
FtlConfig with_units(std::uint32_t page_bytes, std::uint32_t unit_bytes, std::uint32_t bits = 1) {
  FtlConfig f = small();
  f.nand.page_bytes = page_bytes;
  f.nand.bits_per_cell = bits;
  if (bits > 1) f.nand.pages_per_block = 12 * bits;
  f.mapping_unit_bytes = unit_bytes;
  return f;
}
}  // namespace

TEST_CASE("ftl: mapping units are the FTL's pages, U to a NAND page, unit u of page g its page g x U + u",
          "[ftl][units]") {
  const Ftl pages(with_units(16384, 0));
  const Ftl units(with_units(16384, 4096));
  CHECK(pages.units_per_page() == 1);
  REQUIRE(units.units_per_page() == 4);
  CHECK(units.logical_pages() == 4 * pages.logical_pages());
  CHECK(units.config().nand.pages_per_block == 64);
  CHECK(units.config().nand.page_bytes == 4096);
  CHECK(units.part().page_bytes == 16384);
  CHECK(units.part().pages_per_block == 16);
  CHECK(units.part().units_per_page == 4);
  CHECK(units.wordline_pages() == 4);
  CHECK(Ftl(with_units(16384, 8192, 3)).wordline_pages() == 6);
  // Block 37 (plane 1, block 5): every FTL page decodes to its NAND page and unit, and back.
  for (std::uint32_t k = 0; k < 64; ++k) {
    const std::uint32_t ppa = 37 * 64 + k;
    const PhysAddr a = units.decode(ppa);
    CHECK(a.plane == 1);
    CHECK(a.block == 5);
    CHECK(a.page == k / 4);
    CHECK(a.unit == k % 4);
    CHECK(units.encode(a) == ppa);
  }
  CHECK(pages.decode(37 * 16 + 3).unit == 0);
}

TEST_CASE("ftl: preconditioning with mapping units writes each unit's data into its page's place",
          "[ftl][units][precondition]") {
  for (std::uint32_t bits : {1u, 3u}) {
    const FtlConfig cfg = with_units(16384, 4096, bits);
    INFO("bits " << bits);
    {  // replayed: units written one by one, GC copying them
      Ftl f(cfg);
      EngineBackdoor nand(f.part());
      const std::uint64_t fill = f.logical_pages() * 9 / 10;
      f.precondition(fill, fill, 42, nand, token_of);
      for (std::uint64_t lpn = 0; lpn < fill; ++lpn) {
        const std::uint32_t ppa = f.lookup(lpn);
        REQUIRE(ppa != kUnmapped);
        if (nand.read(f.decode(ppa)) != token_of(lpn)) FAIL("token mismatch at unit " << lpn);
      }
      std::uint32_t emin, emax;
      double emean;
      f.erase_stats(emin, emax, emean);
      CHECK(emax > 0);  // GC ran
    }
    for (bool lazy : {false, true}) {  // the steady state's image, stored or read lazily
      Ftl f(cfg);
      EngineBackdoor nand(f.part(), lazy);
      const std::uint64_t fill = f.logical_pages() * 3 / 4;
      f.precondition_image(fill, 2.0, 11, nand, token_of);
      for (std::uint64_t lpn = 0; lpn < fill; ++lpn) {
        const std::uint32_t ppa = f.lookup(lpn);
        REQUIRE(ppa != kUnmapped);
        if (nand.read(f.decode(ppa)) != token_of(lpn)) FAIL("token mismatch at unit " << lpn << " lazy " << lazy);
      }
      // The open blocks' write points end whole wordlines of units.
      for (std::uint32_t p = 0; p < f.planes(); ++p)
        for (bool gc : {false, true})
          if (f.open_block(p, gc) != kUnmapped) CHECK(f.next_offset(p, gc) % f.wordline_pages() == 0);
    }
  }
}

TEST_CASE("ftl: a mapping unit that is not whole sectors dividing the page is refused", "[ftl][units][config]") {
  CHECK_THAT(with_units(16384, 3000).validate().at(0), Catch::Contains("ftl.mapping_unit_bytes = 3000"));
  CHECK_THAT(with_units(16384, 6144).validate().at(0), Catch::Contains("divides the page"));
  CHECK_THAT(with_units(16384, 512).validate().at(0), Catch::Contains("at most 16 to a page"));
  CHECK(with_units(16384, 1024).validate().empty());
  CHECK(with_units(16384, 16384).units_per_page() == 1);  // the page itself
}
