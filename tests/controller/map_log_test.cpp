// The map log (controller/map_log.h), without the kernel: its pages' places and order, the
// checkpoints and the erases behind them, failures, what recovery reads; and the blocks the
// FTL leaves to it.
#include <catch2/catch.hpp>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller/ftl.h"
#include "controller/map_log.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

// 2 channels x 1 chip x 1 die x 2 planes: 4 planes of 32 blocks of 4 pages of 512 bytes
// (64 journal entries a page). Logical: 4 x 32 x 4 x 0.6 = 307 -> 304 pages; a checkpoint
// is 304 x 4 / 512 -> 3 pages; a stripe is 4 planes x 4 pages.
FtlConfig tiny(std::uint32_t log_blocks = 4) {
  FtlConfig f;
  f.nand.channels = 2;
  f.nand.chips_per_channel = 1;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 32;
  f.nand.pages_per_block = 4;
  f.nand.page_bytes = 512;
  f.overprovisioning = 0.4;
  f.gc_threshold = 0.1;
  f.map_journal = true;
  f.map_log_blocks = log_blocks;
  return f;
}

// The flash the log writes: each command kept until the test ends it; a block's pages
// must come in order from its last erase, one command per plane at a time.
struct Flash final : MapLog::Port {
  struct Cmd {
    bool erase;
    std::uint32_t plane, k, page;
  };
  std::deque<Cmd> issued;               // in flight, in issue order
  std::vector<Cmd> log;                 // every command, in issue order
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> wp;  // (plane, k) -> next page
  std::set<std::uint32_t> busy;         // planes with a command in flight
  std::set<std::pair<std::uint32_t, std::uint32_t>> fail;  // (plane, k): its next program fails
  std::set<std::pair<std::uint32_t, std::uint32_t>> fail_erase;  // (plane, k): its next erase fails
  std::size_t erase_failed_at = 0;  // the last failed erase's place in `log`
  MapLog* mlog = nullptr;
  std::vector<std::string> errors;

  void program(std::uint32_t plane, std::uint32_t k, std::uint32_t page) override {
    if (!busy.insert(plane).second) errors.push_back("two commands in flight on plane " + std::to_string(plane));
    if (wp[{plane, k}] != page)
      errors.push_back("plane " + std::to_string(plane) + " block " + std::to_string(k) + ": page " +
                       std::to_string(page) + " programmed, " + std::to_string(wp[{plane, k}]) + " expected");
    wp[{plane, k}] = page + 1;
    issued.push_back({false, plane, k, page});
    log.push_back(issued.back());
  }
  std::vector<std::string> spent_why;
  void spent(const std::string& why) override { spent_why.push_back(why); }
  void erase(std::uint32_t plane, std::uint32_t k) override {
    if (!busy.insert(plane).second) errors.push_back("two commands in flight on plane " + std::to_string(plane));
    wp[{plane, k}] = 0;
    issued.push_back({true, plane, k, 0});
    log.push_back(issued.back());
  }
  // Ends the oldest command in flight.
  void end_one() {
    const Cmd c = issued.front();
    issued.pop_front();
    busy.erase(c.plane);
    if (c.erase) {
      const bool ok = fail_erase.erase({c.plane, c.k}) == 0;
      if (!ok)
        for (std::size_t i = log.size(); i-- > 0;)
          if (log[i].erase && log[i].plane == c.plane && log[i].k == c.k) {
            erase_failed_at = i;
            break;
          }
      mlog->erase_ended(c.plane, ok);
    } else {
      mlog->program_ended(c.plane, fail.erase({c.plane, c.k}) == 0);
    }
  }
  void drain() {
    while (!issued.empty()) end_one();
  }
};

struct Rig {
  explicit Rig(const FtlConfig& cfg) : ftl(cfg), log(ftl, clock, flash) { flash.mlog = &log; }
  // `n` mapping updates to pages of block `block`.
  void updates(std::uint64_t n, std::uint32_t block = 0) {
    for (std::uint64_t i = 0; i < n; ++i) log.changed(block * ftl.config().nand.pages_per_block);
  }
  Clock clock;
  Ftl ftl;
  Flash flash;
  MapLog log;
};

}  // namespace

TEST_CASE("map log: the FTL leaves a plane's last good blocks to it and keeps its capacity", "[map_log]") {
  FtlConfig instant = tiny();
  instant.map_journal = false;
  const Ftl plain(instant);
  const Ftl ftl(tiny());
  CHECK(ftl.logical_pages() == plain.logical_pages());
  CHECK(ftl.logical_pages() == 304);
  CHECK(ftl.config().nand.blocks_per_plane == 28);
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t k = 0; k < 4; ++k) {
      const PhysAddr a = ftl.map_log_address(p, k, 1);
      CHECK(a.block == 28 + k);
      CHECK(a.page == 1);
      CHECK(ftl.encode(a) == ssd::ctrl::kUnmapped);  // the FTL does not see the log's blocks
      CHECK(ftl.encode(ftl.decode(p * 28 * 4)) == p * 28 * 4);
      CHECK(a.channel == ftl.decode(p * 28 * 4).channel);
      CHECK(a.plane == ftl.decode(p * 28 * 4).plane);
    }
  // With factory bad blocks: the last good ones, past the bad.
  FtlConfig bad = tiny();
  for (std::uint32_t p = 0; p < 4; ++p) bad.factory_bad.push_back({p == 1 ? 31u : 2u});
  const Ftl with_bad(bad);
  CHECK(with_bad.logical_pages() == 4u * 31 * 4 * 6 / 10 / 4 * 4);
  CHECK(with_bad.config().nand.blocks_per_plane == 27);
  CHECK(with_bad.map_log_address(0, 3, 0).block == 31);
  CHECK(with_bad.map_log_address(1, 0, 0).block == 27);
  CHECK(with_bad.map_log_address(1, 3, 0).block == 30);
  // No FTL block decodes to a log block.
  for (std::uint32_t b = 0; b < 27; ++b) CHECK(with_bad.decode(1 * 27 * 4 + b * 4).block < 27);
  // The blocks the FTL does not see encode to no page: plane 0's bad block 2, its log's.
  PhysAddr bad_block = with_bad.decode(0);
  bad_block.block = 2;
  CHECK(with_bad.encode(bad_block) == kUnmapped);
  CHECK(with_bad.encode(with_bad.map_log_address(0, 0, 5)) == kUnmapped);
  bad_block.block = 3;  // the FTL's block 2
  CHECK(with_bad.encode(bad_block) == 2 * 4);
}

TEST_CASE("map log: a config whose log or spare is too small is refused by key", "[map_log][config]") {
  std::vector<std::string> e = tiny(3).validate();
  REQUIRE(e.size() == 1);
  CHECK(e[0].find("ftl.map_log_blocks = 3: the map log needs at least 4 blocks per plane") != std::string::npos);
  FtlConfig f = tiny();
  f.overprovisioning = 0.2;  // 28 - 2 (GC) - 2 of 32 blocks for 80 % of them
  e = f.validate();
  REQUIRE_FALSE(e.empty());
  CHECK(e[0].find("ftl.overprovisioning") != std::string::npos);
  CHECK(e[0].find("ftl.map_log_blocks = 4 of them the map log's") != std::string::npos);
  f.map_journal = false;  // the same spare suffices without the log
  CHECK(f.validate().empty());
}

TEST_CASE("map log: a page of entries is programmed, striped channel first, one per plane at a time",
          "[map_log]") {
  Rig r(tiny());
  CHECK(r.log.entries_per_page() == 64);
  CHECK(r.log.checkpoint_size() == 3);
  r.updates(63);
  CHECK(r.flash.log.empty());
  r.updates(1);
  REQUIRE(r.flash.log.size() == 1);
  // Stripe order: plane 0 (ch0), plane 2 (ch1), plane 1 (ch0), plane 3 (ch1).
  r.updates(64 * 4);
  REQUIRE(r.flash.log.size() == 4);  // the fifth page waits for plane 0
  const std::uint32_t order[] = {0, 2, 1, 3};
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(r.flash.log[i].plane == order[i]);
    CHECK(r.flash.log[i].k == 0);
    CHECK(r.flash.log[i].page == 0);
  }
  CHECK(r.log.in_flight() == 4);
  r.flash.end_one();  // plane 0's page 0 ends: its page 1 goes
  REQUIRE(r.flash.log.size() == 5);
  CHECK(r.flash.log[4].plane == 0);
  CHECK(r.flash.log[4].page == 1);
  r.flash.drain();
  CHECK(r.log.counters().journal_pages == 5);
  CHECK(r.log.counters().entries == 64 * 5);
  CHECK(r.flash.errors.empty());
}

TEST_CASE("map log: a checkpoint by interval, recovery reads it and the journal since it began", "[map_log]") {
  FtlConfig f = tiny();
  f.checkpoint_interval_updates = 64 * 4;
  Rig r(f);
  r.updates(64 * 3);
  r.flash.drain();
  CHECK(r.log.reads().checkpoint_pages == 3);  // the start state's
  CHECK(r.log.reads().journal_pages == 3);
  r.updates(64);  // the 256th update: a checkpoint starts, then the 4th journal page is placed
  CHECK(r.log.checkpoint_under_way());
  r.flash.drain();
  CHECK_FALSE(r.log.checkpoint_under_way());
  CHECK(r.log.counters().checkpoints == 1);
  CHECK(r.log.counters().checkpoints_forced == 0);
  CHECK(r.log.counters().checkpoint_pages == 3);
  CHECK(r.log.reads().checkpoint_pages == 3);
  CHECK(r.log.reads().journal_pages == 1);  // the 4th page came after the checkpoint began
  r.updates(64 * 2);
  r.flash.drain();
  CHECK(r.log.reads().journal_pages == 3);
  CHECK(r.flash.errors.empty());
}

TEST_CASE("map log: a full ring forces checkpoints and erases the stripes behind them, in order", "[map_log]") {
  Rig r(tiny());  // no interval: checkpoints only for want of room
  for (int page = 0; page < 200; ++page) {
    r.updates(64);
    r.flash.drain();
  }
  const MapLog::Counters& c = r.log.counters();
  CHECK(c.journal_pages == 200);
  CHECK(c.checkpoints > 5);
  CHECK(c.checkpoints_forced == c.checkpoints);
  CHECK(c.checkpoint_pages == 3 * c.checkpoints);
  CHECK(c.erases > 0);
  CHECK(c.erases % 4 == 0);  // whole stripes
  // Every log page written: 200 + 3 per checkpoint, in 4 stripes of 16 pages reused.
  std::uint64_t programs = 0;
  for (const Flash::Cmd& x : r.flash.log) programs += !x.erase;
  CHECK(programs == 200 + c.checkpoint_pages);
  CHECK(r.flash.errors.empty());
  CHECK(r.log.reads().journal_pages < 64);
}

TEST_CASE("map log: a failed program retires its block for the stripe and the page goes elsewhere", "[map_log]") {
  Rig r(tiny());
  r.flash.fail.insert({0, 0});  // the first program to plane 0's block 0 fails
  r.updates(64);
  r.flash.end_one();  // failed: placed again on plane 2
  REQUIRE(r.flash.log.size() == 2);
  CHECK(r.flash.log[1].plane == 2);
  r.flash.drain();
  CHECK(r.log.counters().program_failures == 1);
  CHECK(r.log.counters().journal_pages == 1);
  // The ring goes round: plane 0's block 0 is never programmed again, nor erased.
  for (int page = 0; page < 120; ++page) {
    r.updates(64);
    r.flash.drain();
  }
  int later = 0;
  for (std::size_t i = 1; i < r.flash.log.size(); ++i)
    later += r.flash.log[i].plane == 0 && r.flash.log[i].k == 0;
  CHECK(later == 0);
  CHECK(r.log.counters().journal_pages == 121);
  CHECK(r.log.counters().erases > 0);
  CHECK(r.flash.errors.empty());
}

TEST_CASE("map log: a failed erase retires the block, the ring goes on without it", "[map_log]") {
  Rig r(tiny());
  while (r.log.counters().erases == 0) {
    r.updates(64);
    r.flash.drain();
  }
  r.flash.fail_erase.insert({3, 1});  // the next erase of plane 3's block 1 fails
  std::uint64_t pages = r.log.counters().journal_pages;
  for (int page = 0; page < 150; ++page) {
    r.updates(64);
    r.flash.drain();
  }
  pages += 150;
  CHECK(r.log.counters().erase_failures == 1);
  CHECK(r.flash.fail_erase.empty());
  CHECK(r.log.counters().journal_pages == pages);
  std::size_t failed_at = 0;
  for (std::size_t i = 0; i < r.flash.log.size(); ++i)
    if (r.flash.log[i].erase && r.flash.log[i].plane == 3 && r.flash.log[i].k == 1) failed_at = i;
  REQUIRE(failed_at > 0);
  // Nothing went to that block after: the erase that failed was its last command.
  CHECK(r.flash.erase_failed_at == failed_at);
  std::size_t later = 0;
  for (std::size_t i = failed_at + 1; i < r.flash.log.size(); ++i)
    later += r.flash.log[i].plane == 3 && r.flash.log[i].k == 1;
  CHECK(later == 0);
  CHECK(r.flash.log.size() > failed_at + 100);
  CHECK(r.flash.errors.empty());
}

TEST_CASE("map log: the blocks whose updates no programmed journal page holds", "[map_log]") {
  Rig r(tiny());
  r.log.changed(5 * 4 + 1);
  r.log.changed(5 * 4 + 2);
  r.log.changed(9 * 4);
  r.log.changed(kUnmapped);  // a trim names no block
  std::vector<std::uint32_t> b;
  r.log.unjournaled_blocks(b);
  CHECK(b == std::vector<std::uint32_t>{5, 9});
  r.updates(60, 7);  // the page fills (64 entries): in flight, still not journaled
  b.clear();
  r.log.unjournaled_blocks(b);
  CHECK(b == std::vector<std::uint32_t>{5, 7, 9});
  r.flash.drain();
  b.clear();
  r.log.unjournaled_blocks(b);
  CHECK(b.empty());
  r.updates(1, 3);
  r.log.unjournaled_blocks(b);
  CHECK(b == std::vector<std::uint32_t>{3});
}

// The log under load as the flash gives it: bursts of updates, commands ended in any order,
// one plane much slower than the others, programs and erases that fail. Every command
// keeps its block's page order; no erase takes a page recovery needs (at or after the
// last complete checkpoint's start); the last complete checkpoint's pages are all on
// flash; the journal pages recovery reads are those programmed since; the log never
// stalls with room to make (a failing NAND may spend it: then read-only, no stall).
TEST_CASE("map log: bursts ended in any order, a slow plane, failures: order kept, nothing needed erased",
          "[map_log]") {
  struct Page {
    MapLog::Placed what;
    int state = 0;  // 0 in flight, 1 programmed, 2 failed
  };
  struct Nand final : MapLog::Port {
    MapLog* log = nullptr;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Page>> blocks;  // (plane, k)
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> busy;       // plane -> (k, page or ~0: erase)
    std::vector<std::string> errors;
    int spent_count = 0;
    void program(std::uint32_t plane, std::uint32_t k, std::uint32_t page) override {
      if (busy.count(plane)) errors.push_back("two commands on a plane");
      std::vector<Page>& b = blocks[{plane, k}];
      if (b.size() != page) errors.push_back("a page out of order");
      b.push_back({log->in_flight_on(plane), 0});
      busy[plane] = {k, page};
    }
    void erase(std::uint32_t plane, std::uint32_t k) override {
      if (busy.count(plane)) errors.push_back("two commands on a plane");
      for (const Page& p : blocks[{plane, k}])
        if (p.state == 1 && p.what.seq >= log->tail_seq()) errors.push_back("a page recovery needs erased");
      busy[plane] = {k, ~0u};
    }
    void spent(const std::string&) override { ++spent_count; }
  };
  for (const std::uint32_t page_bytes : {512u, 2048u})
    for (const std::uint64_t interval : {0ull, 50ull, 700ull})
      for (const double fail : {0.0, 0.02})
        for (const unsigned seed : {1u, 2u}) {
          FtlConfig f = tiny();
          f.nand.page_bytes = page_bytes;
          f.checkpoint_interval_updates = interval;
          const std::vector<std::string> invalid = f.validate();
          REQUIRE(invalid.empty());
          Clock clock;
          Ftl ftl(f);
          Nand nand;
          MapLog log(ftl, clock, nand);
          nand.log = &log;
          std::mt19937_64 rng(seed);
          std::uniform_real_distribution<double> u(0, 1);
          std::uint64_t ends = 0;
          INFO("page bytes " << page_bytes << ", interval " << interval << ", failures " << fail << ", seed " << seed);
          for (int step = 0; step < 20000 && nand.errors.empty(); ++step) {
            if (nand.busy.empty() || u(rng) < 0.4) {
              const int n = 1 + static_cast<int>(rng() % 150);
              for (int i = 0; i < n; ++i)
                REQUIRE_NOTHROW(log.changed(static_cast<std::uint32_t>(rng() % ftl.planes()) *
                                            ftl.config().nand.blocks_per_plane * 4));
              continue;
            }
            std::vector<std::uint32_t> planes;
            for (const auto& b : nand.busy)
              if (b.first != 2 || u(rng) < 0.1) planes.push_back(b.first);  // plane 2 is slow
            if (planes.empty()) continue;
            const std::uint32_t plane = planes[rng() % planes.size()];
            const auto [k, page] = nand.busy[plane];
            nand.busy.erase(plane);
            const bool ok = u(rng) >= fail;
            ++ends;
            if (page == ~0u) {
              if (ok) nand.blocks[{plane, k}].clear();
              REQUIRE_NOTHROW(log.erase_ended(plane, ok));
            } else {
              nand.blocks[{plane, k}][page].state = ok ? 1 : 2;
              REQUIRE_NOTHROW(log.program_ended(plane, ok));
            }
            // What recovery reads is on flash.
            std::uint64_t ckpt = 0, journal = 0;
            for (const auto& b : nand.blocks)
              for (const Page& p : b.second) {
                if (p.state != 1) continue;
                if (p.what.checkpoint && p.what.item == log.last_checkpoint()) ++ckpt;
                if (!p.what.checkpoint && p.what.seq >= log.tail_seq()) ++journal;
              }
            if (log.last_checkpoint() > 0 && ckpt != log.checkpoint_size()) nand.errors.push_back("a checkpoint lost");
            if (journal != log.reads().journal_pages) nand.errors.push_back("the journal since it miscounted");
          }
          CHECK(nand.errors.empty());
          if (!nand.errors.empty()) FAIL_CHECK(nand.errors.front());
          CHECK(nand.spent_count <= 1);
          CHECK(nand.spent_count == (log.spent() ? 1 : 0));
          if (!log.spent()) CHECK(ends > 1000);  // spent: read-only, no more log work
          if (fail == 0) {
            CHECK(log.counters().checkpoints > 3);
            CHECK(log.counters().erases > 0);
            CHECK_FALSE(log.spent());
          }
        }
}

TEST_CASE("map log: a complete checkpoint covers the updates made before it began: no scan for them",
          "[map_log]") {
  FtlConfig f = tiny();
  f.checkpoint_interval_updates = 70;
  Rig r(f);
  r.updates(64, 5);  // a journal page, in flight
  r.updates(5, 6);
  r.updates(1, 7);   // the 70th update: a checkpoint begins
  r.updates(2, 8);   // after it began
  std::vector<std::uint32_t> b;
  r.log.unjournaled_blocks(b);
  CHECK(b == std::vector<std::uint32_t>{5, 6, 7, 8});
  r.flash.drain();  // the journal page and the checkpoint programmed
  CHECK(r.log.counters().checkpoints == 1);
  b.clear();
  r.log.unjournaled_blocks(b);
  CHECK(b == std::vector<std::uint32_t>{8});
}
