// The PIQ paper's own examples (Gao et al., Section IV), plain C++.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "host/conflict_tracker.h"
#include "host/io_scheduler.h"

using namespace ssd;
using namespace ssd::host;

namespace {
// Channel first, chip second: chip index = page % N_C (Formula 1).
LocationMapper mapper(unsigned chips, std::uint32_t page_bytes) {
  return LocationMapper(chips, page_bytes, [chips](std::uint64_t p) { return static_cast<unsigned>(p % chips); });
}
IoScheduler::Entry entry(std::uint64_t id, HostOp op, const LocationVector& v) { return {id, op, v, 0, 0}; }
// The queue of Figs. 6 and 7: reads of a, b, c, then writes of a, b, c, ids from `first`.
void fig7_queue(IoScheduler& s, const LocationVector& a, const LocationVector& b, const LocationVector& c,
                std::uint64_t first) {
  std::uint64_t id = first;
  for (HostOp op : {HostOp::Read, HostOp::Write})
    for (const LocationVector* v : {&a, &b, &c}) s.push(entry(id++, op, *v));
}

// Service cycles in dispatch order: a cycle is a run of same-type requests that do not
// conflict with each other (what the paper's Figs. 6 and 7 count).
std::pair<int, int> cycles(IoScheduler& s) {
  int reads = 0, writes = 0;
  bool open = false;
  HostOp op = HostOp::Read;
  LocationVector cur;
  IoScheduler::Entry e;
  while (s.pop(e)) {
    if (!open || e.op != op || cur.conflicts(e.v)) {
      (e.op == HostOp::Read ? reads : writes)++;
      cur = e.v;
      op = e.op;
      open = true;
    } else {
      cur.merge(e.v);
    }
  }
  return {reads, writes};
}
}  // namespace

TEST_CASE("piq: Formula 1 location vectors, the paper's example (chips 6 and 7 = 3)", "[piq][formula1]") {
  // N_C = 8, 4 KiB pages, a read of two 4 KiB blocks at block 14854.
  LocationMapper m = mapper(8, 4096);
  CHECK(m.vector(14854ull * 8, 16).value() == 3);
  CHECK(m.vector(14854ull * 8, 8).value() == 2);      // one page: chip 6
  CHECK(m.vector(14854ull * 8 + 1, 8).value() == 3);  // unaligned: touches pages 14854 and 14855
  CHECK(m.vector(0, 8 * 8 * 3).value() == 255);       // more than N_C pages: every chip
}

TEST_CASE("piq: Fig. 5 conflicts (1-3 at chip 5, 2-4 at chip 1, 3-5 at chip 6)", "[piq][formula2]") {
  // 4 channels x 2 chips, channel first and chip second, 2 KiB pages (4 sectors).
  LocationMapper m = mapper(8, 2048);
  const LocationVector v[6] = {LocationVector(8), m.vector(16, 8), m.vector(4, 4), m.vector(20, 8), m.vector(4, 8),
                               m.vector(24, 8)};
  CHECK(v[1].value() == 12);
  CHECK(v[2].value() == 64);
  CHECK(v[3].value() == 6);
  CHECK(v[4].value() == 96);
  CHECK(v[5].value() == 3);
  CHECK((v[1].value() & v[3].value()) == 4);   // chip 5
  CHECK((v[2].value() & v[4].value()) == 64);  // chip 1
  CHECK((v[3].value() & v[5].value()) == 2);   // chip 6
  std::vector<std::pair<int, int>> pairs;
  for (int i = 1; i <= 5; ++i)
    for (int j = i + 1; j <= 5; ++j)
      if (v[i].conflicts(v[j])) pairs.push_back({i, j});
  CHECK(pairs == std::vector<std::pair<int, int>>{{1, 3}, {2, 4}, {3, 5}});
}

TEST_CASE("piq: Algorithm 1 step by step (R0 = 3, R1 = 6, R2 = 12 -> batches 15 and 6)", "[piq][algorithm1]") {
  LocationMapper m = mapper(4, 4096);  // 4 chips, one per channel; each request 2 pages
  IoScheduler s(SchedulerKind::Piq, 4);
  const LocationVector r0 = m.vector(2 * 8, 16), r1 = m.vector(1 * 8, 16), r2 = m.vector(0, 16);
  REQUIRE(r0.value() == 3);
  REQUIRE(r1.value() == 6);
  REQUIRE(r2.value() == 12);
  s.push(entry(0, HostOp::Read, r0));
  CHECK(s.batch_values(0) == std::vector<std::uint64_t>{3});        // a new batch, B0 = 3
  s.push(entry(1, HostOp::Read, r1));
  CHECK(s.batch_values(0) == std::vector<std::uint64_t>{3, 6});     // B0 & R1 = 2: a new batch B1 = 6
  s.push(entry(2, HostOp::Read, r2));
  CHECK(s.batch_values(0) == std::vector<std::uint64_t>{15, 6});    // B0 & R2 = 0: joins B0, B0 = 15
  IoScheduler::Entry e;
  std::vector<std::uint64_t> order;
  while (s.pop(e)) order.push_back(e.id);
  CHECK(order == std::vector<std::uint64_t>{0, 2, 1});  // batches in creation order
}

TEST_CASE("piq: Figs. 6 and 7, NOOP needs three read and three write cycles, PIQ two and two", "[piq][noop]") {
  LocationMapper m = mapper(4, 4096);
  const LocationVector a = m.vector(2 * 8, 16), b = m.vector(1 * 8, 16), c = m.vector(0, 16);  // 3, 6, 12
  const auto fill = [&](IoScheduler& s) { fig7_queue(s, a, b, c, 0); };
  IoScheduler noop(SchedulerKind::Noop, 4), rws(SchedulerKind::Rws, 4), piq(SchedulerKind::Piq, 4),
      piq_r(SchedulerKind::PiqR, 4), piq_w(SchedulerKind::PiqW, 4);
  for (IoScheduler* s : {&noop, &rws, &piq, &piq_r, &piq_w}) fill(*s);
  CHECK(cycles(noop) == std::pair<int, int>{3, 3});
  CHECK(cycles(rws) == std::pair<int, int>{3, 3});
  CHECK(cycles(piq) == std::pair<int, int>{2, 2});
  CHECK(cycles(piq_r) == std::pair<int, int>{2, 3});
  CHECK(cycles(piq_w) == std::pair<int, int>{3, 2});
}

TEST_CASE("piq: batch dispatch issues Fig. 7's batches whole, two read and two write cycles",
          "[piq][dispatch]") {
  // Algorithm 1, line 23, "Issue Batch_List.Head": under host.dispatch=batch the next batch
  // goes only when every request of the one before it has completed.
  LocationMapper m = mapper(4, 4096);
  const LocationVector a = m.vector(2 * 8, 16), b = m.vector(1 * 8, 16), c = m.vector(0, 16);  // 3, 6, 12
  IoScheduler s(SchedulerKind::Piq, 4, DispatchKind::Batch);
  fig7_queue(s, a, b, c, 1);
  // Each cycle: what pop gives until it holds, then those requests complete.
  std::vector<std::vector<std::uint64_t>> issued;
  for (int cycle = 0; cycle < 6; ++cycle) {
    std::vector<std::uint64_t> ids;
    IoScheduler::Entry e;
    while (s.pop(e)) ids.push_back(e.id);
    if (ids.empty()) break;
    for (std::uint64_t id : ids) s.complete(id, id <= 3 ? HostOp::Read : HostOp::Write);
    issued.push_back(ids);
  }
  CHECK(issued == std::vector<std::vector<std::uint64_t>>{{1, 3}, {2}, {4, 6}, {5}});
  CHECK(s.batches_served(0) == 2);
  CHECK(s.batches_served(1) == 2);
  CHECK(s.empty());

  // Held: while the issued batch has a member outstanding, nothing else goes, not even
  // the other kind's batches (the phase does not end early) or an arrival.
  IoScheduler h(SchedulerKind::Piq, 4, DispatchKind::Batch);
  h.push(entry(1, HostOp::Read, a));
  h.push(entry(2, HostOp::Read, c));
  h.push(entry(3, HostOp::Write, b));
  IoScheduler::Entry e;
  REQUIRE(h.pop(e));
  REQUIRE(h.pop(e));  // the batch 3|12 = 15, whole
  CHECK_FALSE(h.pop(e));
  h.push(entry(4, HostOp::Read, b));  // next round's batch
  h.complete(1, HostOp::Read);
  CHECK_FALSE(h.pop(e));  // 2 still outstanding
  h.complete(2, HostOp::Read);
  REQUIRE(h.pop(e));
  CHECK(e.id == 3);  // the write batch present when the round began, then the new read
  CHECK_FALSE(h.pop(e));
  h.complete(3, HostOp::Write);
  REQUIRE(h.pop(e));
  CHECK(e.id == 4);

  // Under NCQ dispatch the same queue goes out without waiting for completions.
  IoScheduler n(SchedulerKind::Piq, 4, DispatchKind::Ncq);
  n.push(entry(1, HostOp::Read, a));
  n.push(entry(2, HostOp::Read, c));
  n.push(entry(3, HostOp::Write, b));
  std::vector<std::uint64_t> ids;
  while (n.pop(e)) ids.push_back(e.id);
  CHECK(ids == std::vector<std::uint64_t>{1, 2, 3});

  // An unbatched list has no batch to hold: RWS under batch dispatch is RWS.
  IoScheduler r(SchedulerKind::Rws, 4, DispatchKind::Batch);
  r.push(entry(1, HostOp::Read, a));
  r.push(entry(2, HostOp::Read, a));
  ids.clear();
  while (r.pop(e)) ids.push_back(e.id);
  CHECK(ids == std::vector<std::uint64_t>{1, 2});
  CHECK_THROWS_AS(parse_dispatch("batches"), std::invalid_argument);
}

TEST_CASE("piq: a read sent before a write that arrived earlier counts as prioritized (Fig. 9)",
          "[piq][fig9]") {
  LocationMapper m = mapper(4, 4096);
  const LocationVector a = m.vector(0, 8);
  for (SchedulerKind k : {SchedulerKind::Noop, SchedulerKind::Rws, SchedulerKind::Piq}) {
    IoScheduler s(k, 4);
    s.push(entry(1, HostOp::Read, a));   // before any write: not prioritized
    s.push(entry(2, HostOp::Write, a));
    s.push(entry(3, HostOp::Read, a));   // overtakes write 2 under RWS and PIQ
    IoScheduler::Entry e;
    std::vector<std::uint64_t> ids;
    while (s.pop(e)) ids.push_back(e.id);
    if (k == SchedulerKind::Noop) {
      CHECK(ids == std::vector<std::uint64_t>{1, 2, 3});
      CHECK(s.prioritized_reads() == 0);
    } else {
      CHECK(ids == std::vector<std::uint64_t>{1, 3, 2});
      CHECK(s.prioritized_reads() == 1);
    }
  }
}

TEST_CASE("piq: outstanding requests keep their chips in their batch until they complete", "[piq][outstanding]") {
  LocationMapper m = mapper(4, 4096);
  IoScheduler s(SchedulerKind::Piq, 4);
  const LocationVector a = m.vector(2 * 8, 16);  // 3
  s.push(entry(0, HostOp::Read, a));
  IoScheduler::Entry e;
  REQUIRE(s.pop(e));  // dispatched, outstanding
  s.push(entry(1, HostOp::Read, a));  // conflicts with the outstanding request: a new batch
  CHECK(s.batch_values(0) == std::vector<std::uint64_t>{3, 3});
  s.complete(0, HostOp::Read);  // the first batch is done and leaves
  CHECK(s.batch_values(0) == std::vector<std::uint64_t>{3});
  s.push(entry(2, HostOp::Read, m.vector(0, 16)));  // 12: joins the remaining batch
  CHECK(s.batch_values(0) == std::vector<std::uint64_t>{15});
}

TEST_CASE("piq: reads go first but writes are not starved (rounds)", "[piq][fairness]") {
  LocationMapper m = mapper(4, 4096);
  const LocationVector a = m.vector(0, 8);
  for (SchedulerKind k : {SchedulerKind::Rws, SchedulerKind::Piq}) {
    IoScheduler s(k, 4);
    s.push(entry(100, HostOp::Write, a));
    s.push(entry(0, HostOp::Read, a));
    IoScheduler::Entry e;
    REQUIRE(s.pop(e));
    CHECK(e.id == 0);  // the pending read first
    // Reads keep arriving; the write still goes after the reads that were present.
    s.push(entry(1, HostOp::Read, a));
    REQUIRE(s.pop(e));
    CHECK(e.id == 100);
    REQUIRE(s.pop(e));
    CHECK(e.id == 1);
  }
  // NOOP: arrival order.
  IoScheduler n(SchedulerKind::Noop, 4);
  n.push(entry(100, HostOp::Write, a));
  n.push(entry(0, HostOp::Read, a));
  IoScheduler::Entry e;
  REQUIRE(n.pop(e));
  CHECK(e.id == 100);
}

TEST_CASE("piq: an arrival that could join the phase under way waits for the next round",
          "[piq][fairness][starvation]") {
  // A read phase is under way with one batch (chip 0); a write waits. Reads keep arriving,
  // one at a time, each on chip 1: none conflicts with the running batch, so each could join
  // it and keep the phase going for ever. The write must go next, within one round; RWS,
  // PIQ and PIQ_R alike (PIQ_W: reads FIFO, the same bound).
  LocationMapper m = mapper(4, 4096);
  const LocationVector chip0 = m.vector(0, 8), chip1 = m.vector(8, 8);
  for (SchedulerKind k : {SchedulerKind::Rws, SchedulerKind::PiqR, SchedulerKind::PiqW, SchedulerKind::Piq}) {
    IoScheduler s(k, 4);
    s.push(entry(0, HostOp::Read, chip0));
    s.push(entry(100, HostOp::Write, chip0));
    IoScheduler::Entry e;
    REQUIRE(s.pop(e));
    CHECK(e.id == 0);  // the read phase: the read present at its start
    std::uint64_t write_after = 0;  // reads sent before the write
    for (std::uint64_t id = 1; id <= 50; ++id) {
      s.push(entry(id, HostOp::Read, chip1));
      REQUIRE(s.pop(e));
      if (e.id == 100) break;
      ++write_after;
      s.complete(e.id, e.op);
    }
    CHECK(e.id == 100);
    CHECK(write_after == 0);
  }
}

TEST_CASE("piq: conflict requests kept per chip count as the test of every pair does", "[piq][conflicts]") {
  // The paper's Fig. 5 first (as in the test above): requests 1-5 present together, and
  // 1-3, 2-4, 3-5 conflict, so all five are conflict requests, each counted once.
  {
    LocationMapper m = mapper(8, 2048);
    ConflictTracker t(8);
    CHECK_FALSE(t.admit(1, 0, m.vector(16, 8)));
    CHECK_FALSE(t.admit(2, 1, m.vector(4, 4)));
    CHECK(t.admit(3, 0, m.vector(20, 8)));  // with 1
    CHECK(t.admit(4, 1, m.vector(4, 8)));   // with 2
    CHECK(t.admit(5, 0, m.vector(24, 8)));  // with 3, already counted
    CHECK(t.conflicts(0) == 3);
    CHECK(t.conflicts(1) == 2);
    t.complete(3);
    t.complete(1);
    CHECK_FALSE(t.admit(6, 0, m.vector(16, 8)));  // 1's chips: nobody left on them
    CHECK(t.admit(7, 1, m.vector(24, 8)));         // 5's chips
    CHECK(t.conflicts(0) == 3);  // 5 was counted already
    CHECK(t.conflicts(1) == 3);
  }
  // Then random arrivals and completions on 1 to 3 chips each, on 12 and on 130 chips
  // (three words of the location vector), against the definition: a request conflicts
  // with every present request whose vector it meets.
  for (unsigned chips : {12u, 130u}) {
    ConflictTracker t(chips);
    struct P {
      std::uint64_t id;
      int op;
      LocationVector v;
      bool counted;
    };
    std::vector<P> present;
    std::uint64_t expect[2] = {0, 0}, x = 0x2545F4914F6CDD1Dull + chips;
    auto rnd = [&x](std::uint64_t n) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x % n;
    };
    for (std::uint64_t id = 1; id <= 30000; ++id) {
      while (!present.empty() && (present.size() > 40 || rnd(3) == 0)) {  // completions, in any order
        const std::size_t i = rnd(present.size());
        t.complete(present[i].id);
        present[i] = present.back();
        present.pop_back();
      }
      LocationVector v(chips);
      for (std::uint64_t k = 0, n = 1 + rnd(3); k < n; ++k) v.set_chip(static_cast<unsigned>(rnd(chips)));
      const int op = static_cast<int>(rnd(2));
      bool conflicted = false;
      for (P& p : present) {
        if (!p.v.conflicts(v)) continue;
        conflicted = true;
        if (!p.counted) {
          p.counted = true;
          ++expect[p.op];
        }
      }
      if (conflicted) ++expect[op];
      REQUIRE(t.admit(id, op, v) == conflicted);
      present.push_back({id, op, v, conflicted});
      REQUIRE(t.conflicts(0) == expect[0]);
      REQUIRE(t.conflicts(1) == expect[1]);
    }
    CHECK(expect[0] > 1000);
    CHECK(expect[1] > 1000);
  }
}

TEST_CASE("piq: location vectors copy and compare every chip's word, and only those", "[piq][formula1]") {
  for (unsigned chips : {1u, 12u, 64u, 65u, 130u, 1024u}) {
    LocationVector a(chips);
    CHECK(a.empty());
    CHECK(a == LocationVector());  // no chip set: equal to the empty vector of no chips
    for (unsigned k = 0; k < chips; k += 7) a.set_chip(k);
    a.set_chip(chips - 1);
    const LocationVector b = a;  // copied
    LocationVector c(3);
    c = b;  // assigned over a vector of one word
    for (const LocationVector* v : {&b, static_cast<const LocationVector*>(&c)}) {
      CHECK(*v == a);
      CHECK(v->conflicts(a));
      std::vector<unsigned> set;
      v->for_each_chip([&set](unsigned k) { set.push_back(k); });
      std::vector<unsigned> expect;
      for (unsigned k = 0; k < chips; ++k)
        if (k % 7 == 0 || k == chips - 1) expect.push_back(k);
      std::sort(set.begin(), set.end());
      CHECK(set == expect);
    }
    LocationVector d(chips);
    d.set_chip(chips - 1);  // chip n - 1 is bit 0 of the first word
    CHECK(d.value() == 1u);
    CHECK_FALSE(d == LocationVector(chips));
    LocationVector e(chips);
    e.merge(d);
    CHECK(e == d);
  }
}

TEST_CASE("host protocol: a command's page span and the pages it covers in part", "[host][span]") {
  // 16 sectors per page.
  CHECK(page_span(0, 16, 16).first == 0);
  CHECK(page_span(0, 16, 16).count == 1);
  CHECK(page_span(8, 16, 16).count == 2);    // sectors 8-23: pages 0 and 1
  CHECK(page_span(15, 2, 16).first == 0);
  CHECK(page_span(15, 2, 16).end() == 2);
  CHECK(page_span(32, 1, 16).first == 2);
  CHECK(page_span(32, 1, 16).count == 1);
  CHECK(page_span(40, 0, 16).count == 0);    // no sectors (a flush): no pages, never a wrapped range
  CHECK(page_span(0, 0, 16).end() == 0);
  CHECK(page_span(~0ull - 20, 16, 16).count == 2);  // near the top of the sector space
  CHECK_FALSE(covers_part(16, 16, 1, 16));   // page 1 exactly
  CHECK(covers_part(17, 15, 1, 16));         // starts inside it
  CHECK(covers_part(16, 15, 1, 16));         // ends inside it
  CHECK_FALSE(covers_part(0, 48, 1, 16));    // page 1 in the middle of a longer command
  CHECK(covers_part(8, 16, 0, 16));
  CHECK(covers_part(8, 16, 1, 16));
}

TEST_CASE("host schedulers: a flush or a trim is never sent ahead of a write that arrived before it",
          "[piq][flush][trim]") {
  // Writes on chips 0 (W1), 0 and 1 (W2), then a flush and a trim (no chip: empty vectors,
  // which would join the first batch), then a write W5 on chip 1. Every scheduler and
  // dispatch sends the flush after W1 and W2, and the trim after the flush.
  for (SchedulerKind k : {SchedulerKind::Noop, SchedulerKind::Rws, SchedulerKind::PiqR, SchedulerKind::PiqW,
                          SchedulerKind::Piq})
    for (DispatchKind d : {DispatchKind::Ncq, DispatchKind::Batch}) {
      CAPTURE(static_cast<int>(k), static_cast<int>(d));
      IoScheduler s(k, 8, d);
      LocationVector c0(8), c01(8), none(8), c1(8);
      c0.set_chip(0);
      c01.set_chip(0);
      c01.set_chip(1);
      c1.set_chip(1);
      s.push(entry(1, HostOp::Write, c0));
      s.push(entry(2, HostOp::Write, c01));
      s.push(entry(3, HostOp::Flush, none));
      s.push(entry(4, HostOp::Trim, none));
      s.push(entry(5, HostOp::Write, c1));
      s.push(entry(6, HostOp::Read, c0));
      std::vector<std::uint64_t> order;
      IoScheduler::Entry e;
      for (int guard = 0; guard < 20 && order.size() < 6; ++guard) {
        std::vector<IoScheduler::Entry> sent;
        while (s.pop(e)) sent.push_back(e);
        for (const IoScheduler::Entry& x : sent) {
          order.push_back(x.id);
          s.complete(x.id, x.op);  // batch dispatch: the next batch goes when this one completed
        }
      }
      REQUIRE(order.size() == 6);
      const auto pos = [&](std::uint64_t id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
      CHECK(pos(3) > pos(1));
      CHECK(pos(3) > pos(2));
      CHECK(pos(4) > pos(3));
    }
}
