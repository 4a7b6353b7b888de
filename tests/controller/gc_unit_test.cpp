// GC as its own unit (controller/gc_unit.h), without the SystemC kernel: a real FTL on a
// small device and a fake firmware that records the commands GC asks for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "controller/firmware_counters.h"
#include "controller/gc_unit.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

FtlConfig one_plane_device() {
  FtlConfig f;
  f.nand.channels = 1;
  f.nand.chips_per_channel = 1;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 1;
  f.nand.blocks_per_plane = 32;
  f.nand.pages_per_block = 16;
  f.nand.page_bytes = 4096;
  f.overprovisioning = 0.25;  // 384 logical pages
  f.gc_threshold = 0.1;       // GC below 4 free blocks
  return f;
}

struct FakeFirmware final : GcUnit::Port {
  struct Cmd {
    char kind;  // 'r' copy read, 'p' copy program, 'e' erase
    std::uint32_t plane, ppa, from;
    std::uint64_t lpn;
  };
  std::vector<Cmd> cmds;
  bool last_reserve = false;
  std::uint32_t outstanding = 0;
  bool at_last_reserve(std::uint32_t) const override { return last_reserve; }
  std::uint32_t commands_outstanding(std::uint32_t) const override { return outstanding; }
  void copy_read(std::uint32_t plane, std::uint32_t from) override { cmds.push_back({'r', plane, from, from, kNoLpn}); }
  void copy_program(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn, Token) override {
    cmds.push_back({'p', plane, to, from, lpn});
  }
  void erase(std::uint32_t plane, std::uint32_t victim) override { cmds.push_back({'e', plane, victim, 0, 0}); }
  std::vector<unsigned> erase_groups;  // erases(): how many went together, and for whose run
  std::uint32_t erase_lead = kUnmapped;
  void erases(const std::uint32_t* planes, const std::uint32_t* victims, unsigned n, std::uint32_t lead) override {
    erase_groups.push_back(n);
    erase_lead = lead;
    for (unsigned i = 0; i < n; ++i) erase(planes[i], victims[i]);
  }
  std::vector<std::uint32_t> due;  // wordlines_due(): the planes whose GC wordlines were to be padded
  void wordlines_due(std::uint32_t plane) override { due.push_back(plane); }
  std::uint32_t unbound = 0;  // copy programs asked for and not yet bound (UnitsRig)
  std::uint32_t copies_unbound(std::uint32_t) const override { return unbound; }
  std::size_t count(char k) const {
    std::size_t n = 0;
    for (const Cmd& c : cmds) n += c.kind == k;
    return n;
  }
};

// A host write of `lpn` to its static plane, its program ended.
void write(Ftl& f, std::uint64_t lpn) {
  const std::uint32_t ppa = f.allocate(f.plane_of_lpn(lpn), false);
  REQUIRE(ppa != kUnmapped);
  f.programmed(ppa);
  f.map(lpn, ppa);
}

// Writes every logical page once (24 blocks), then every other one of the first 192 again:
// blocks 0-11 keep 8 valid pages each, 30 blocks are used, 2 free: GC is needed.
void age(Ftl& f) {
  for (std::uint64_t lpn = 0; lpn < f.logical_pages(); ++lpn) write(f, lpn);
  for (std::uint64_t lpn = 0; lpn < 192; lpn += 2) write(f, lpn);
  REQUIRE(f.gc_needed(0));
}

// Ends copy reads in issue order until none is outstanding, each program as soon as it
// is asked for; returns the commands handled.
void run_copies(GcUnit& gc, FakeFirmware& fw, std::size_t& handled) {
  while (handled < fw.cmds.size()) {
    const FakeFirmware::Cmd c = fw.cmds[handled++];
    if (c.kind == 'r') gc.copy_read_ended(c.plane, c.from, 1);
    else if (c.kind == 'p') gc.copy_program_ended(c.plane, c.ppa, c.from, c.lpn, FlashPriority::BackgroundGc);
  }
}

// A GcUnit on the one-plane device, with its fake firmware and counters; `aged`: the
// device as age() leaves it, GC needed.
struct Rig {
  Ftl ftl{one_plane_device()};
  FakeFirmware fw;
  FirmwareCounters counters;
  GcUnit gc;
  Rig(bool yields, std::uint32_t copies_in_flight, bool aged = true) : gc(ftl, yields, copies_in_flight, true, fw, counters) {
    if (aged) age(ftl);
  }
};

}  // namespace

TEST_CASE("gc: a run copies the greedy victim's valid pages, a few at a time, then erases it", "[gc][controller]") {
  Rig rig(true, 3);
  auto& [ftl, fw, counters, gc] = rig;
  const std::uint32_t free_before = ftl.free_blocks(0);
  gc.maybe_start(0);
  REQUIRE(gc.active(0));
  REQUIRE(fw.cmds.size() == 3);  // three copies in flight, no more
  for (const auto& c : fw.cmds) CHECK(c.kind == 'r');
  const std::uint32_t victim = ftl.block_of_ppa(fw.cmds[0].from);
  CHECK(victim == 0);  // the first of the blocks with the fewest valid pages (8)
  // Copies end in issue order (read, then its program); each end of a program lets the
  // next read go: never more than three copies in flight.
  std::size_t handled = 0, programs_ended = 0;
  while (handled < fw.cmds.size()) {
    const FakeFirmware::Cmd c = fw.cmds[handled++];
    if (c.kind == 'r') {
      const std::uint64_t owner = ftl.owner(c.from);
      gc.copy_read_ended(c.plane, c.from, 7);
      REQUIRE(fw.cmds.back().kind == 'p');
      CHECK(fw.cmds.back().lpn == owner);  // the program carries the page's logical page
      CHECK(fw.cmds.back().from == c.from);
    } else if (c.kind == 'p') {
      gc.copy_program_ended(c.plane, c.ppa, c.from, c.lpn, FlashPriority::BackgroundGc);
      ++programs_ended;
      CHECK(ftl.lookup(c.lpn) == c.ppa);  // the copy moved the mapping
      CHECK(ftl.plane_of_ppa(c.ppa) == 0);  // inside the plane
    }
    CHECK(fw.count('r') - programs_ended <= 3);
  }
  CHECK(counters.gc_copies == 8);
  CHECK(counters.gc_runs == 1);
  REQUIRE(fw.cmds.back().kind == 'e');
  CHECK(fw.cmds.back().ppa == victim);
  CHECK(ftl.valid_pages(victim) == 0);
  gc.erase_ended(0);
  CHECK_FALSE(gc.active(0));
  // The victim joins the free pool; the GC stream took one block for its copies.
  CHECK(ftl.free_blocks(0) == free_before);
}

TEST_CASE("gc: the victim waits for a host read of it before its erase", "[gc][controller]") {
  Rig rig(true, 0 /* every copy at once */);
  auto& [ftl, fw, counters, gc] = rig;
  gc.maybe_start(0);
  REQUIRE(fw.count('r') == 8);
  ftl.add_pending_read(fw.cmds[0].from);  // a host read of the victim, in flight
  std::size_t handled = 0;
  run_copies(gc, fw, handled);
  CHECK(fw.count('e') == 0);
  ftl.remove_pending_read(fw.cmds[0].from);
  gc.host_read_ended(0);
  CHECK(fw.count('e') == 1);
}

TEST_CASE("gc: a page rewritten before its copy is issued is skipped", "[gc][controller]") {
  Rig rig(true, 1);
  auto& [ftl, fw, counters, gc] = rig;
  gc.maybe_start(0);
  REQUIRE(fw.cmds.size() == 1);
  // The victim's other valid pages: trim the next one (the host no longer needs it).
  std::vector<std::uint32_t> valid;
  ftl.valid_ppas(ftl.block_of_ppa(fw.cmds[0].from), valid);
  REQUIRE(valid.size() == 8);
  ftl.trim(ftl.owner(valid[1]));
  std::size_t handled = 0;
  run_copies(gc, fw, handled);
  CHECK(counters.gc_skipped_copies == 1);
  CHECK(counters.gc_copies == 7);
  CHECK(fw.count('e') == 1);
}

TEST_CASE("gc: without yielding, a run waits for its chip to be idle unless the plane is at its last reserve",
          "[gc][controller]") {
  Rig rig(false, 8);
  auto& [ftl, fw, counters, gc] = rig;
  fw.outstanding = 2;
  gc.maybe_start(0);
  CHECK(fw.cmds.empty());
  CHECK(gc.issue_class(FlashOrigin::GcRead, 0, 0) == FlashPriority::Host);  // one class with the host's
  fw.outstanding = 0;
  gc.chip_idle(0);
  CHECK(fw.count('r') == 8);
  CHECK(counters.gc_foreground == 0);

  Rig rig2(false, 8);
  auto& [ftl2, fw2, c2, gc2] = rig2;
  fw2.outstanding = 2;
  fw2.last_reserve = true;  // host writes wait: GC goes at once, in the foreground
  gc2.maybe_start(0);
  CHECK(fw2.count('r') == 8);
  CHECK(c2.gc_foreground == 1);
}

TEST_CASE("gc: yielding GC is background work, urgent at the last reserve, programs kept in order",
          "[gc][controller]") {
  Rig rig(true, 8, false);
  auto& [ftl, fw, counters, gc] = rig;
  CHECK(gc.issue_class(FlashOrigin::GcRead, 0, 0) == FlashPriority::BackgroundGc);
  CHECK(gc.issue_class(FlashOrigin::GcProgram, 0, 0) == FlashPriority::BackgroundGc);  // one in flight
  fw.last_reserve = true;
  CHECK(gc.issue_class(FlashOrigin::GcRead, 0, 0) == FlashPriority::UrgentGc);
  // A program may not overtake the plane's background programs still queued.
  CHECK(gc.issue_class(FlashOrigin::GcProgram, 0, 0) == FlashPriority::BackgroundGc);
  CHECK(counters.gc_urgent_commands == 1);
}

TEST_CASE("gc: no run starts once the workload has ended", "[gc][controller]") {
  Rig rig(true, 8);
  auto& [ftl, fw, counters, gc] = rig;
  gc.end_of_workload();
  gc.maybe_start(0);
  CHECK_FALSE(gc.active(0));
  CHECK(fw.cmds.empty());
}

TEST_CASE("gc: a trimmed page is never copied, nor mapped again by a copy in flight", "[gc][controller][trim]") {
  Rig rig(true, 0 /* every copy at once */);
  auto& [ftl, fw, counters, gc] = rig;
  // Block 0 holds 8 valid pages (the fewest, with blocks 1-11): trim 5 of them before GC
  // starts, so that it is the victim with 3 valid pages.
  std::vector<std::uint32_t> valid;
  ftl.valid_ppas(0, valid);
  REQUIRE(valid.size() == 8);
  std::vector<std::uint64_t> trimmed;
  for (int i = 0; i < 5; ++i) trimmed.push_back(ftl.owner(valid[i]));
  for (std::uint64_t lpn : trimmed) ftl.trim(lpn);
  gc.maybe_start(0);
  REQUIRE(fw.count('r') == 3);
  for (const auto& c : fw.cmds) {
    CHECK(ftl.block_of_ppa(c.from) == 0);
    CHECK(std::find(valid.begin(), valid.begin() + 5, c.from) == valid.begin() + 5);  // not a trimmed page
  }
  // A trim of a page whose copy read is in flight: the data read is programmed (the
  // firmware does not look again), but the copy is stale: it maps nothing.
  const std::uint64_t late = ftl.owner(fw.cmds[0].from);
  ftl.trim(late);
  trimmed.push_back(late);
  std::size_t handled = 0;
  run_copies(gc, fw, handled);
  CHECK(fw.count('p') == 3);
  CHECK(counters.gc_copies == 2);
  CHECK(counters.gc_stale_copies == 1);
  REQUIRE(fw.count('e') == 1);
  for (std::uint64_t lpn : trimmed) CHECK(ftl.lookup(lpn) == kUnmapped);
  CHECK(ftl.valid_pages(0) == 0);
}

namespace {

// One die of two planes, each as age() leaves the one-plane device but for `rewrites[p]`
// overwrites of its first 192 logical pages (8 per block: 96 leave 2 free blocks, 80
// leave 3; GC below 4).
FtlConfig two_plane_device() {
  FtlConfig f = one_plane_device();
  f.nand.planes_per_die = 2;
  return f;
}
void age_two(Ftl& f, std::uint32_t rewrites0, std::uint32_t rewrites1) {
  for (std::uint64_t lpn = 0; lpn < f.logical_pages(); ++lpn) write(f, lpn);
  std::uint32_t done[2] = {0, 0};
  const std::uint32_t want[2] = {rewrites0, rewrites1};
  for (std::uint64_t lpn = 0; lpn < 384; lpn += 1) {  // lpn % 2: the plane; every other one of each
    const std::uint32_t p = f.plane_of_lpn(lpn);
    if ((lpn / 2) % 2 == 0 && done[p] < want[p]) {
      write(f, lpn);
      ++done[p];
    }
  }
}

struct DieRig {
  Ftl ftl{two_plane_device()};
  FakeFirmware fw;
  FirmwareCounters counters;
  GcUnit gc{ftl, true, 0 /* every copy at once */, true, fw, counters};
};

}  // namespace

TEST_CASE("gc: a die's run takes a victim in each plane that needs GC, lines its copies up over the planes "
          "and erases its victims together", "[gc][controller][frontier]") {
  DieRig rig;
  Ftl& ftl = rig.ftl;
  FakeFirmware& fw = rig.fw;
  age_two(ftl, 96, 96);
  REQUIRE(ftl.free_blocks(0) == 2);
  REQUIRE(ftl.free_blocks(1) == 2);
  rig.gc.maybe_start(0);
  CHECK(rig.gc.active(0));
  CHECK(rig.gc.active(1));  // as needy as plane 0: in the run
  CHECK(rig.counters.gc_runs == 2);
  REQUIRE(fw.count('r') == 16);
  // Every read ended: the copies' pages take the die's planes in turn at one offset,
  // whichever victim they come from.
  const std::size_t reads = fw.cmds.size();
  for (std::size_t i = 0; i < reads; ++i) rig.gc.copy_read_ended(fw.cmds[i].plane, fw.cmds[i].from, 1);
  REQUIRE(fw.count('p') == 16);
  for (std::size_t k = 0; k < 16; ++k) {
    const FakeFirmware::Cmd& c = fw.cmds[reads + k];
    CHECK(ftl.plane_of_ppa(c.ppa) == k % 2);
    CHECK(c.ppa % 16 == k / 2);
  }
  // Plane 0's victim emptied first: its erase waits for plane 1's.
  for (std::size_t k = 0; k < 16; ++k) {
    const FakeFirmware::Cmd c = fw.cmds[reads + k];
    if (c.plane == 0) rig.gc.copy_program_ended(c.plane, c.ppa, c.from, c.lpn, FlashPriority::BackgroundGc);
  }
  CHECK(fw.count('e') == 0);
  for (std::size_t k = 0; k < 16; ++k) {
    const FakeFirmware::Cmd c = fw.cmds[reads + k];
    if (c.plane == 1) rig.gc.copy_program_ended(c.plane, c.ppa, c.from, c.lpn, FlashPriority::BackgroundGc);
  }
  REQUIRE(fw.erase_groups == std::vector<unsigned>{2});  // both at once
  CHECK(fw.count('e') == 2);
  // Both erased: each plane has its victim back, less the GC block it opened; both still
  // need GC, so the die's next run begins after the last erase (its writes woken), not
  // before.
  rig.gc.erase_ended(0);
  rig.gc.next_run(0);
  CHECK_FALSE(rig.gc.active(0));
  rig.gc.erase_ended(1);
  CHECK_FALSE(rig.gc.active(0));
  rig.gc.next_run(1);
  CHECK(rig.gc.active(0));
  CHECK(rig.gc.active(1));
  CHECK(rig.counters.gc_runs == 4);
  CHECK(ftl.free_blocks(0) == 2);
  CHECK(ftl.free_blocks(1) == 2);
  CHECK(rig.counters.gc_copies == 16);
}

TEST_CASE("gc: a plane better off than the one that begins its die's run waits for a run of its own",
          "[gc][controller][frontier]") {
  DieRig rig;
  Ftl& ftl = rig.ftl;
  FakeFirmware& fw = rig.fw;
  age_two(ftl, 96, 80);
  REQUIRE(ftl.free_blocks(0) == 2);
  REQUIRE(ftl.free_blocks(1) == 3);
  REQUIRE(ftl.gc_needed(1));
  rig.gc.maybe_start(0);
  CHECK(rig.gc.active(0));
  CHECK_FALSE(rig.gc.active(1));  // 3 free blocks against 2: not in this run
  rig.gc.maybe_start(1);          // nor alone while the die's run is under way
  CHECK_FALSE(rig.gc.active(1));
  std::size_t handled = 0;
  run_copies(rig.gc, fw, handled);
  REQUIRE(fw.erase_groups == std::vector<unsigned>{1});
  // Its erase ends the die's run: the neediest plane begins the next one, and plane 0,
  // no better off than plane 1, joins it.
  rig.gc.erase_ended(0);
  rig.gc.next_run(0);
  CHECK(rig.gc.active(1));
  CHECK(rig.gc.active(0) == (ftl.gc_needed(0) && ftl.free_blocks(0) <= ftl.free_blocks(1)));

  // Begun by the better-off plane, the run takes the needier one too.
  DieRig rig2;
  age_two(rig2.ftl, 96, 80);
  rig2.gc.maybe_start(1);
  CHECK(rig2.gc.active(0));
  CHECK(rig2.gc.active(1));
}

TEST_CASE("gc: a die's erases go in the class of the run that is at its last reserve", "[gc][controller][frontier]") {
  DieRig rig;
  age_two(rig.ftl, 96, 96);
  rig.gc.maybe_start(1);
  std::size_t handled = 0;
  run_copies(rig.gc, rig.fw, handled);
  REQUIRE(rig.fw.erase_groups == std::vector<unsigned>{2});
  CHECK(rig.fw.erase_lead == 0);  // none at its last reserve: the first plane's
}

TEST_CASE("gc: a plane at its last reserve joins its die's run under way", "[gc][controller][frontier]") {
  DieRig rig;
  age_two(rig.ftl, 96, 80);
  rig.gc.maybe_start(0);
  REQUIRE_FALSE(rig.gc.active(1));  // better off: not in the run
  rig.fw.last_reserve = true;       // now its host writes wait for space
  rig.gc.maybe_start(1);
  CHECK(rig.gc.active(1));
  CHECK(rig.counters.gc_foreground == 1);
  std::size_t handled = 0;
  run_copies(rig.gc, rig.fw, handled);
  CHECK(rig.fw.erase_groups == std::vector<unsigned>{2});  // the run's erases, together
}

TEST_CASE("gc: in a die's run, a retiring victim is retired, never erased, whatever the other plane does",
          "[gc][controller][frontier][faults]") {
  DieRig rig;
  Ftl& ftl = rig.ftl;
  for (std::uint64_t lpn = 0; lpn < ftl.logical_pages(); ++lpn) write(ftl, lpn);
  // Each plane's first block emptied (its 16 logical pages written again), then four
  // blocks' worth of others: 3 free blocks a plane, GC needed.
  for (std::uint64_t lpn = 0; lpn < 32; ++lpn) write(ftl, lpn);
  for (std::uint64_t lpn = 32; lpn < 32 + 4 * 32; ++lpn) write(ftl, lpn);
  REQUIRE(ftl.free_blocks(0) == 3);
  REQUIRE(ftl.free_blocks(1) == 3);
  const std::uint32_t b0 = 0, b1 = ftl.config().nand.blocks_per_plane;  // plane 0's and plane 1's first block
  REQUIRE(ftl.valid_pages(b0) == 0);
  REQUIRE(ftl.valid_pages(b1) == 0);
  ftl.retire(b1);  // a program to it failed: it leaves use once collected
  rig.gc.maybe_start(0);
  REQUIRE(rig.gc.active(0) != rig.gc.active(1));  // plane 1's run ended at once: retired
  CHECK(ftl.bad(b1));
  CHECK(rig.counters.gc_retired == 1);
  // Plane 0's empty victim is erased alone; plane 1's retired block never is.
  REQUIRE(rig.fw.erase_groups == std::vector<unsigned>{1});
  CHECK(rig.fw.cmds.back().kind == 'e');
  CHECK(rig.fw.cmds.back().ppa == b0);
  CHECK(rig.fw.count('e') == 1);
}

// Mapping units of 1 KiB in 4 KiB pages: a wordline of 4 units. The stage's part played by
// hand: a copy's program ends with the wordline's last unit, the others latch until then.
namespace {
struct UnitsRig {
  static FtlConfig config() {
    FtlConfig f = one_plane_device();
    f.mapping_unit_bytes = 1024;  // 64 units a block, 1,536 logical units
    return f;
  }
  Ftl ftl{config()};
  FakeFirmware fw;
  FirmwareCounters counters;
  GcUnit gc{ftl, true, 0, false, fw, counters};
  std::vector<FakeFirmware::Cmd> latched;  // copy programs waiting for their wordline
  std::size_t handled = 0;
  // Every unit written once (24 blocks), then `rewritten` units of each of blocks 0-7
  // again: with 34, those blocks keep 30 valid units each (7 wordlines and 2 units), and 3
  // blocks are free.
  explicit UnitsRig(std::uint64_t rewritten = 34) {
    REQUIRE(ftl.wordline_pages() == 4);
    for (std::uint64_t lpn = 0; lpn < ftl.logical_pages(); ++lpn) write(ftl, lpn);
    for (std::uint64_t b = 0; b < 8; ++b)
      for (std::uint64_t j = 0; j < rewritten; ++j) write(ftl, b * 64 + j);
    REQUIRE(ftl.gc_needed(0));
    REQUIRE(ftl.valid_pages(0) == 64 - rewritten);
  }
  // Ends the commands GC asked for, in order: reads at once, programs with their
  // wordline's last unit; `until`: stop once it holds.
  template <typename Until>
  void step(Until until) {
    while (handled < fw.cmds.size() && !until()) {
      const FakeFirmware::Cmd c = fw.cmds[handled++];
      fw.unbound = 0;  // the programs after this one (this one binds now)
      for (std::size_t i = handled; i < fw.cmds.size(); ++i) fw.unbound += fw.cmds[i].kind == 'p';
      if (c.kind == 'r') {
        gc.copy_read_ended(c.plane, c.from, 1);
      } else if (c.kind == 'p' && c.ppa % 4 != 3) {
        latched.push_back(c);
        gc.copy_latched(c.plane, c.from);
      } else if (c.kind == 'p') {
        const std::vector<FakeFirmware::Cmd> lower = std::move(latched);
        latched.clear();
        for (const auto& l : lower) gc.copy_program_ended(l.plane, l.ppa, l.from, l.lpn, FlashPriority::BackgroundGc, true);
        gc.copy_program_ended(c.plane, c.ppa, c.from, c.lpn, FlashPriority::BackgroundGc);
      }
      if (pad && !fw.due.empty() && !latched.empty()) {  // padded: the latched copies end
        fw.due.clear();
        const std::vector<FakeFirmware::Cmd> lower = std::move(latched);
        latched.clear();
        for (const auto& l : lower) gc.copy_program_ended(l.plane, l.ppa, l.from, l.lpn, FlashPriority::BackgroundGc, true);
      }
    }
  }
  bool pad = false;  // step() pads a partial wordline when GC asks (wordlines_due)
  void step() {
    step([] { return false; });
  }
  std::size_t erases_of(std::uint32_t block) const {
    std::size_t n = 0;
    for (const auto& c : fw.cmds) n += c.kind == 'e' && c.ppa == block;
    return n;
  }
};
}  // namespace

TEST_CASE("gc: a run whose last copies wait in a partial wordline is parked, the next run fills it",
          "[gc][controller][units]") {
  UnitsRig rig;
  Ftl& ftl = rig.ftl;
  FakeFirmware& fw = rig.fw;
  GcUnit& gc = rig.gc;
  gc.maybe_start(0);
  rig.step();
  // Block 0's 30 copies: 7 wordlines programmed, 2 copies latched in the 8th. GC goes on
  // (the plane still needs it), so the run is parked and the next begins at once, with
  // block 1, instead of padding the wordline with 2 filler units: block 1's first 2 copies
  // fill it, block 0 is erased then, and its other 28 make 7 wordlines, none latched, so
  // block 1's run ends with its erase. Nothing is padded.
  CHECK(rig.counters.gc_carried_wordlines == 1);
  CHECK(rig.counters.gc_runs == 2);
  CHECK(fw.due.empty());
  CHECK(rig.latched.empty());
  CHECK(rig.counters.gc_copies == 60);
  std::size_t erase0 = 0, erase1 = 0, reads1 = 0, third_read1 = 0;
  for (std::size_t i = 0; i < fw.cmds.size(); ++i) {
    const auto& c = fw.cmds[i];
    if (c.kind == 'e') (c.ppa == 0 ? erase0 : erase1) = i;
    if (c.kind == 'r' && ftl.block_of_ppa(c.from) == 1 && ++reads1 == 3) third_read1 = i;
  }
  CHECK(reads1 == 30);
  REQUIRE(erase0 != 0);
  REQUIRE(erase1 != 0);
  CHECK(erase0 < erase1);
  CHECK(third_read1 < erase0);  // block 0 waited for block 1's copies, not for a pad
  CHECK(rig.erases_of(0) == 1);
  CHECK(rig.erases_of(1) == 1);
  // The erases end: block 0's (parked) leaves block 1's run to its own.
  CHECK(gc.active(0));
  gc.erase_ended(0, 0);
  CHECK(ftl.valid_pages(0) == 0);
  CHECK(gc.active(0));
  gc.erase_ended(0, 1);
  CHECK_FALSE(gc.active(0));
}

TEST_CASE("gc: a run's partial wordline is padded at its end when no run goes on", "[gc][controller][units]") {
  UnitsRig rig;
  rig.gc.maybe_start(0);
  rig.gc.end_of_workload();  // no run starts from now on
  rig.step();
  CHECK(rig.counters.gc_carried_wordlines == 0);
  CHECK(rig.fw.due == std::vector<std::uint32_t>{0});  // padded now
  CHECK(rig.latched.size() == 2);
  CHECK(rig.counters.gc_runs == 1);
  CHECK(rig.erases_of(0) == 0);  // waits for its copies' wordline
}

TEST_CASE("gc: a host read's end lets each parked victim that waited for reads be erased",
          "[gc][controller][units]") {
  // Blocks of 29 valid units (7 wordlines and 1): every run leaves a copy latched and is
  // parked, the next run's first copies filling its wordline.
  UnitsRig rig(35);
  rig.pad = true;
  Ftl& ftl = rig.ftl;
  rig.gc.maybe_start(0);
  // Host reads of blocks 0 and 1 in flight while GC collects them (each taken after its
  // block became the victim: a block with a read in flight is not chosen).
  const std::uint32_t read0 = 40, read1 = 64 + 40;
  ftl.add_pending_read(read0);
  rig.step([&] { return rig.counters.gc_runs == 2; });
  ftl.add_pending_read(read1);
  rig.step();  // GC runs on while the plane needs it (the fake ends no erase)
  // Runs 1 and 2 parked, their copies all ended (the next runs' filled their wordlines):
  // they wait for the host reads alone.
  REQUIRE(rig.counters.gc_carried_wordlines >= 2);
  REQUIRE(ftl.valid_pages(0) == 0);
  REQUIRE(ftl.valid_pages(1) == 0);
  CHECK(rig.erases_of(0) == 0);
  CHECK(rig.erases_of(1) == 0);
  // Block 1's read ends first: block 1 is erased, though block 0 (parked earlier) still
  // waits for its own.
  rig.gc.read_ended(read1);
  CHECK(rig.erases_of(1) == 1);
  CHECK(rig.erases_of(0) == 0);
  rig.gc.read_ended(read0);
  CHECK(rig.erases_of(0) == 1);
}
