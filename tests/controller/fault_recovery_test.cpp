// The controller's side of NAND failures, without the SystemC kernel
// (docs/controller.md, "Faults and recovery"): the ECC decoder's tiers, the FTL's
// retirement of blocks, the factory bad blocks it never uses, GC that empties a retiring
// block and retires it instead of erasing it, and the read-only rule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <set>
#include <vector>

#include "controller/ecc.h"
#include "controller/gc_unit.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

FtlConfig device() {
  FtlConfig f;
  f.nand.channels = 1;
  f.nand.chips_per_channel = 1;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 32;
  f.nand.pages_per_block = 16;
  f.nand.page_bytes = 4096;
  f.overprovisioning = 0.25;
  f.gc_threshold = 0.1;  // GC below 4 free blocks
  return f;
}

struct FakeFirmware final : GcUnit::Port {
  std::vector<char> kinds;
  std::vector<std::uint32_t> ppas, froms;
  std::vector<std::uint64_t> lpns;
  bool at_last_reserve(std::uint32_t) const override { return false; }
  std::uint32_t commands_outstanding(std::uint32_t) const override { return 0; }
  void copy_read(std::uint32_t, std::uint32_t from) override { push('r', from, from, kNoLpn); }
  void copy_program(std::uint32_t, std::uint32_t to, std::uint32_t from, std::uint64_t lpn, Token) override {
    push('p', to, from, lpn);
  }
  void erase(std::uint32_t, std::uint32_t victim) override { push('e', victim, 0, 0); }
  void push(char k, std::uint32_t ppa, std::uint32_t from, std::uint64_t lpn) {
    kinds.push_back(k);
    ppas.push_back(ppa);
    froms.push_back(from);
    lpns.push_back(lpn);
  }
};

void write(Ftl& f, std::uint64_t lpn, std::uint32_t plane) {
  const std::uint32_t ppa = f.allocate(plane, false);
  REQUIRE(ppa != kUnmapped);
  f.programmed(ppa);
  f.map(lpn, ppa);
}

}  // namespace

TEST_CASE("ecc: hard decode, read-retry steps, soft decode, then uncorrectable", "[faults][ecc]") {
  EccConfig c;
  c.on = true;
  c.hard_bits = 40;
  c.soft_bits = 80;
  c.retry_steps = 3;
  c.hard_decode_us = 2;
  c.soft_decode_us = 12;
  const EccDecoder e(c);
  using V = EccDecoder::Verdict;
  CHECK(e.verdict(40, 0) == V::Decoded);
  CHECK(e.verdict(41, 0) == V::Retry);
  CHECK(e.verdict(41, 3) == V::Retry);  // the last retry step: the soft read is next
  CHECK(e.verdict(80, 4) == V::Decoded);  // soft decision corrects more
  CHECK(e.verdict(81, 4) == V::Uncorrectable);
  CHECK(e.tier(0) == 0);
  CHECK(e.tier(2) == 1);
  CHECK(e.tier(4) == 2);
  CHECK(e.decode_ticks(1) == us_to_ticks(2));
  CHECK(e.decode_ticks(4) == us_to_ticks(12));
}

TEST_CASE("ftl: factory bad blocks are never allocated, and the capacity comes from the good ones", "[faults][ftl]") {
  FtlConfig c = device();
  const Ftl whole(c);
  std::vector<std::vector<std::uint32_t>> bad = {{0, 5, 31}, {2, 3, 4}};
  c.factory_bad = bad;
  Ftl f(c);
  CHECK(f.config().nand.blocks_per_plane == 29);
  CHECK(f.logical_pages() == static_cast<std::uint64_t>(whole.logical_pages() * 29 / 32) / 2 * 2);
  std::set<std::uint32_t> seen[2];
  for (std::uint32_t plane = 0; plane < 2; ++plane) {
    for (std::uint32_t ppa; (ppa = f.allocate(plane, true)) != kUnmapped;) {
      f.programmed(ppa);
      const PhysAddr a = f.decode(ppa);
      CHECK(a.plane == plane);
      CHECK(std::find(bad[plane].begin(), bad[plane].end(), a.block) == bad[plane].end());
      CHECK(f.encode(a) == ppa);
      seen[plane].insert(a.block);
    }
    CHECK(seen[plane].size() == 29);  // every good block, no bad one
  }
}

TEST_CASE("ftl: a block whose program failed is closed, collected first, then retired", "[faults][ftl][gc]") {
  Ftl f(device());
  FakeFirmware fw;
  FirmwareCounters counters;
  GcUnit gc(f, true, 0, true, fw, counters);
  for (std::uint64_t lpn = 0; lpn < 40; ++lpn) write(f, lpn, 0);  // blocks 0, 1 full; 2 open with 8
  const std::uint32_t open = f.block_of_ppa(f.lookup(39));
  CHECK(f.next_offset(0, false) == 8);
  f.retire(open);  // a program to it failed
  CHECK(f.retiring(open));
  CHECK(f.next_offset(0, false) == 0);  // its stream opens another block
  const std::uint32_t next = f.allocate(0, false);
  CHECK(f.block_of_ppa(next) != open);
  f.programmed(next);
  f.map(40, next);
  // Not yet needed by the free pool, GC runs for the retiring block and picks it first.
  REQUIRE(f.gc_needed(0));
  gc.maybe_start(0);
  REQUIRE(gc.active(0));
  CHECK(fw.kinds.size() == 8);  // its 8 valid pages, whatever fewer-valid blocks there are
  for (std::size_t i = 0; i < fw.kinds.size(); ++i) CHECK(f.block_of_ppa(fw.froms[i]) == open);
  for (std::size_t i = 0; i < fw.kinds.size(); ++i)
    if (fw.kinds[i] == 'r') gc.copy_read_ended(0, fw.froms[i], 1);
  for (std::size_t i = 0; i < fw.kinds.size(); ++i)
    if (fw.kinds[i] == 'p') gc.copy_program_ended(0, fw.ppas[i], fw.froms[i], fw.lpns[i], FlashPriority::BackgroundGc);
  // No erase: it left use for good.
  CHECK(std::count(fw.kinds.begin(), fw.kinds.end(), 'e') == 0);
  CHECK_FALSE(gc.active(0));
  CHECK(f.bad(open));
  CHECK(f.retired_blocks(0) == 1);
  CHECK(counters.gc_retired == 1);
  CHECK(counters.gc_retire_copies == 8);
  for (std::uint64_t lpn = 32; lpn < 40; ++lpn) CHECK(f.block_of_ppa(f.lookup(lpn)) != open);
  CHECK_FALSE(f.gc_needed(0));
}

TEST_CASE("gc: a failed copy program is copied again to another page, and a failed erase retires the victim", "[faults][gc]") {
  FtlConfig c = device();
  c.failures = true;
  Ftl f(c);
  FakeFirmware fw;
  FirmwareCounters counters;
  GcUnit gc(f, true, 1, true, fw, counters);
  // Fill the plane until GC is needed: every page written, then half of them again.
  const std::uint64_t per_plane = f.logical_pages() / 2;
  for (std::uint64_t lpn = 0; lpn < per_plane; ++lpn) write(f, lpn, 0);
  for (std::uint64_t lpn = 0; !f.gc_needed(0); lpn += 2) write(f, lpn % per_plane, 0);
  gc.maybe_start(0);
  REQUIRE(fw.kinds.size() == 1);
  gc.copy_read_ended(0, fw.froms[0], 5);
  REQUIRE(fw.kinds.back() == 'p');
  const std::uint32_t failed = fw.ppas.back();
  f.retire(f.block_of_ppa(failed));
  gc.copy_program_failed(0, failed, fw.froms[0], fw.lpns.back(), 5, FlashPriority::BackgroundGc);
  REQUIRE(fw.kinds.back() == 'p');
  CHECK(fw.ppas.back() != failed);
  CHECK(f.block_of_ppa(fw.ppas.back()) != f.block_of_ppa(failed));  // its stream opened another block
  CHECK(fw.froms.back() == fw.froms[0]);
  // The rest of the run, copies ending as asked.
  for (std::size_t i = fw.kinds.size() - 1; i < fw.kinds.size(); ++i) {
    if (fw.kinds[i] == 'r') gc.copy_read_ended(0, fw.froms[i], 5);
    else if (fw.kinds[i] == 'p') gc.copy_program_ended(0, fw.ppas[i], fw.froms[i], fw.lpns[i], FlashPriority::BackgroundGc);
  }
  REQUIRE(fw.kinds.back() == 'e');
  const std::uint32_t victim = fw.ppas.back();
  const std::uint32_t free_before = f.free_blocks(0);
  gc.erase_failed(0);
  CHECK(f.bad(victim));
  CHECK(f.free_blocks(0) == free_before);  // not back in the pool
  CHECK_FALSE(gc.active(0));
  // The plane still needs GC: its die's next run begins, on another victim.
  REQUIRE(f.gc_needed(0));
  gc.next_run(0);
  CHECK(gc.active(0));
  REQUIRE(fw.kinds.back() == 'r');
  CHECK(f.block_of_ppa(fw.froms.back()) != victim);
}

TEST_CASE("ftl: a plane keeps its spare while its usable blocks hold its share, the low mark and an open block",
          "[faults][ftl]") {
  Ftl f(device());  // 32 blocks of 16 pages, 384 logical pages a plane: 24 blocks; low mark 4
  REQUIRE(f.blocks_needed() == 24 + 4 + 1);
  CHECK(f.usable_blocks(0) == 32);
  for (std::uint64_t lpn = 0; lpn < 16 * 4; ++lpn) write(f, lpn, 0);  // 4 full blocks
  for (std::uint32_t b = 0; b < 3; ++b) f.retire(b);
  CHECK(f.usable_blocks(0) == 29);
  CHECK(f.keeps_spare(0));
  f.retire(3);
  CHECK_FALSE(f.keeps_spare(0));
  CHECK(f.keeps_spare(1));
}

namespace {
// A firmware whose host writes wait for space in every plane, counting what GC tells it.
struct WaitingFirmware final : GcUnit::Port {
  std::vector<std::uint32_t> no_space_planes, read_from, erased;
  std::uint32_t reads = 0;
  bool at_last_reserve(std::uint32_t) const override { return true; }
  bool writes_waiting(std::uint32_t) const override { return true; }
  std::uint32_t commands_outstanding(std::uint32_t) const override { return 0; }
  void copy_read(std::uint32_t, std::uint32_t from) override {
    ++reads;
    read_from.push_back(from);
  }
  void copy_program(std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t, Token) override {}
  void erase(std::uint32_t, std::uint32_t victim) override { erased.push_back(victim); }
  void no_space(std::uint32_t plane) override { no_space_planes.push_back(plane); }
};

// The device with failures on, and GC (yielding, one copy in flight, by plane) over it,
// with plane 0 written with distinct logical pages (more than its share, as after blocks
// failed) through `streams` until none can open a block.
struct FullPlane {
  Ftl f;
  WaitingFirmware fw;
  FirmwareCounters counters;
  GcUnit gc{f, true, 1, false, fw, counters};
  explicit FullPlane(std::initializer_list<bool> streams) : f(config()) {
    std::uint64_t lpn = 0;
    for (const bool gc_stream : streams)
      for (std::uint32_t ppa; (ppa = f.allocate(0, gc_stream)) != kUnmapped; ++lpn) {
        f.programmed(ppa);
        f.map(lpn, ppa);
      }
  }
  static FtlConfig config() {
    FtlConfig c = device();
    c.failures = true;
    return c;
  }
};
}  // namespace

TEST_CASE("gc: host writes waiting on a plane with no block worth collecting fail, unless work in flight may "
          "give one", "[faults][gc]") {
  // The host stream can open no block, and each full block holds only valid pages
  // (collecting one frees nothing).
  FullPlane p({false});
  Ftl& f = p.f;
  WaitingFirmware& fw = p.fw;
  GcUnit& gc = p.gc;
  REQUIRE(f.gc_needed(0));
  REQUIRE(f.writes_blocked(0));
  // A read in flight from a full block: when it ends GC looks again (maybe_start), so the
  // writes still wait.
  const std::uint32_t some = f.lookup(0);
  f.add_pending_read(some);
  gc.maybe_start(0);
  CHECK(fw.no_space_planes.empty());
  CHECK_FALSE(gc.active(0));
  // It ended: nothing in flight can give the plane a victim: its writes fail.
  gc.read_ended(some);
  CHECK(fw.no_space_planes == std::vector<std::uint32_t>{0});
  CHECK(fw.reads == 0);
}

TEST_CASE("gc: a run whose copies find no page is stuck: the plane's waiting writes fail, and it collects again "
          "only for a victim that needs no copy", "[faults][gc]") {
  // Both streams full: no free block left, every page valid.
  FullPlane p({false, true});
  Ftl& f = p.f;
  WaitingFirmware& fw = p.fw;
  GcUnit& gc = p.gc;
  const FirmwareCounters& counters = p.counters;
  REQUIRE(f.free_blocks(0) == 0);
  // Three pages of the first block trimmed: the greedy victim, with 13 pages to copy.
  const std::uint32_t victim = f.block_of_ppa(f.lookup(0));
  for (std::uint64_t l = 0; l < 3; ++l) f.trim(l);
  gc.maybe_start(0);
  REQUIRE(fw.reads == 1);
  CHECK(f.block_of_ppa(fw.read_from[0]) == victim);
  // Its copy finds no free page: dropped, the run ends without an erase, and the writes
  // waiting for the plane fail.
  gc.copy_read_ended(0, fw.read_from[0], 5);
  CHECK(counters.gc_dropped_copies == 13);
  CHECK_FALSE(gc.active(0));
  CHECK(fw.erased.empty());
  CHECK(fw.no_space_planes == std::vector<std::uint32_t>{0});
  // Stuck: another look issues no copy and fails the writes again.
  gc.maybe_start(0);
  CHECK(fw.reads == 1);
  CHECK(fw.no_space_planes.size() == 2);
  // Every page of the victim trimmed: it needs no copy, so the plane collects it.
  for (std::uint64_t l = 3; l < 16; ++l) {
    REQUIRE(f.block_of_ppa(f.lookup(l)) == victim);
    f.trim(l);
  }
  gc.maybe_start(0);
  CHECK(fw.reads == 1);
  CHECK(fw.erased == std::vector<std::uint32_t>{victim});
  CHECK(fw.no_space_planes.size() == 2);
  // Erased: the plane is no longer stuck.
  gc.erase_ended(0);
  CHECK(f.free_blocks(0) == 1);
}
