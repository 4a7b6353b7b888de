// The scheduler block's decisions on small hand-made queues (docs/scheduler.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <random>
#include <set>

#include "controller/sched_policy.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {
struct Cmds {
  std::deque<FlashCommand> all;
  FlashCommand* make(unsigned ch, unsigned chip, FlashOp op = FlashOp::Read) {
    FlashCommand& c = all.emplace_back();
    c.channel = static_cast<std::uint16_t>(ch);
    c.chip = static_cast<std::uint16_t>(chip);
    c.op = op;
    c.id = all.size();
    return &c;
  }
};
std::vector<std::uint64_t> ids(const std::vector<Grant>& v) {
  std::vector<std::uint64_t> r;
  for (const Grant& g : v) r.push_back(g.cmd->id);
  return r;
}
}  // namespace

TEST_CASE("sched: IOS issues only the head, one per edge, and blocks behind a busy chip", "[sched][ios]") {
  Cmds k;
  IosPolicy ios(2, 2);
  ios.push(k.make(0, 0));  // 1
  ios.push(k.make(0, 0));  // 2: same chip as 1
  ios.push(k.make(1, 1));  // 3: another channel, idle
  std::set<unsigned> busy;  // chips (channel*2+chip) busy
  auto ready = [&](const FlashCommand& c) { return !busy.count(c.channel * 2u + c.chip); };
  std::vector<Grant> out;
  ios.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{1});
  busy.insert(0);  // chip 0 of channel 0 now busy with command 1
  out.clear();
  ios.decide(ready, out);
  CHECK(out.empty());  // 2 waits for chip 0, and 3 waits behind it (head-of-line blocking)
  busy.clear();
  ios.decide(ready, out);
  ios.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{2, 3});
  CHECK(ios.queued() == 0);
}

TEST_CASE("sched: HOS grants one chip per channel per edge, round-robin from the last granted", "[sched][hos]") {
  Cmds k;
  HosPolicy hos(2, 3, false);
  // Channel 0: chips 0, 1, 2 each have work; channel 1: chip 2 only.
  hos.push(k.make(0, 0));  // 1
  hos.push(k.make(0, 1));  // 2
  hos.push(k.make(0, 2));  // 3
  hos.push(k.make(1, 2));  // 4
  hos.push(k.make(0, 0));  // 5
  auto all_ready = [](const FlashCommand&) { return true; };
  std::vector<Grant> out;
  hos.decide(all_ready, out);  // reset: pointer at the last chip, chip 0 first
  CHECK(ids(out) == std::vector<std::uint64_t>{1, 4});
  out.clear();
  hos.decide(all_ready, out);  // channel 0 continues after chip 0: chip 1
  CHECK(ids(out) == std::vector<std::uint64_t>{2});
  out.clear();
  hos.decide(all_ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{3});
  out.clear();
  hos.decide(all_ready, out);  // wraps to chip 0
  CHECK(ids(out) == std::vector<std::uint64_t>{5});
  CHECK(hos.queued() == 0);
}

TEST_CASE("sched: HOS skips a chip that is not ready without blocking the others", "[sched][hos]") {
  Cmds k;
  HosPolicy hos(1, 4, false);
  hos.push(k.make(0, 0));  // 1, chip 0 busy
  hos.push(k.make(0, 1));  // 2
  hos.push(k.make(0, 3));  // 3
  auto ready = [](const FlashCommand& c) { return c.chip != 0; };
  std::vector<Grant> out;
  hos.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{2});
  out.clear();
  hos.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{3});
  out.clear();
  hos.decide(ready, out);
  CHECK(out.empty());  // only chip 0 has work and it is busy
  CHECK(hos.queued_on_chip(0, 0) == 1);
}

TEST_CASE("sched: HOS with read_first takes a chip's oldest read before older writes", "[sched][hos]") {
  Cmds k;
  HosPolicy hos(1, 1, true);
  hos.push(k.make(0, 0, FlashOp::Program));  // 1
  hos.push(k.make(0, 0, FlashOp::Read));     // 2
  hos.push(k.make(0, 0, FlashOp::Read));     // 3
  auto ready = [](const FlashCommand&) { return true; };
  std::vector<Grant> out;
  for (int i = 0; i < 3; ++i) hos.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{2, 3, 1});
  // Without read_first: arrival order.
  Cmds k2;
  HosPolicy fifo(1, 1, false);
  fifo.push(k2.make(0, 0, FlashOp::Program));
  fifo.push(k2.make(0, 0, FlashOp::Read));
  std::vector<Grant> out2;
  fifo.decide(ready, out2);
  fifo.decide(ready, out2);
  CHECK(ids(out2) == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("sched: HOS read_first taking a queue's last command keeps later arrivals in order", "[sched][hos]") {
  Cmds k;
  HosPolicy hos(1, 1, true);
  auto ready = [](const FlashCommand&) { return true; };
  std::vector<Grant> out;
  hos.push(k.make(0, 0, FlashOp::Program));  // 1
  hos.push(k.make(0, 0, FlashOp::Read));     // 2: the queue's last, taken first
  hos.decide(ready, out);
  CHECK(hos.queued_on_chip(0, 0) == 1);
  hos.push(k.make(0, 0, FlashOp::Program));  // 3: behind 1
  hos.push(k.make(0, 0, FlashOp::Read));     // 4
  for (int i = 0; i < 3; ++i) hos.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{2, 4, 1, 3});
  CHECK(hos.queued_on_chip(0, 0) == 0);
  hos.push(k.make(0, 0, FlashOp::Program));  // 5: into the emptied queue
  hos.decide(ready, out);
  CHECK(ids(out).back() == 5);
}

// A deliberately naive HOS, written from docs/scheduler.md alone: every chip queue a
// list in arrival order, its candidate found by scanning the list at every decision.
namespace {
struct NaiveHos {
  unsigned channels, chips;
  bool read_first, by_priority;
  std::vector<std::vector<FlashCommand*>> q;  // per chip, arrival order
  std::vector<unsigned> last;                 // per channel: the chip last granted
  NaiveHos(unsigned ch, unsigned cp, bool rf, bool bp)
      : channels(ch), chips(cp), read_first(rf), by_priority(bp), q(ch * cp), last(ch, cp - 1) {}
  unsigned cls(const FlashCommand& c) const { return by_priority ? static_cast<unsigned>(c.priority) : 1u; }
  FlashCommand* candidate(const std::vector<FlashCommand*>& l) const {
    bool urgent = false;
    for (FlashCommand* c : l) urgent |= cls(*c) == 0;
    if (urgent)  // while urgent GC waits, the host's oldest read goes first
      for (FlashCommand* c : l)
        if (cls(*c) == 1 && c->op == FlashOp::Read) return c;
    for (unsigned k = 0; k < kPriorityClasses; ++k) {
      FlashCommand* first = nullptr;
      FlashCommand* first_read = nullptr;
      for (FlashCommand* c : l) {
        if (cls(*c) != k) continue;
        if (!first) first = c;
        if (!first_read && c->op == FlashOp::Read) first_read = c;
      }
      if (first) return read_first && first_read ? first_read : first;
    }
    return nullptr;
  }
  template <typename Ready>
  void decide(Ready&& ready, const bool* open, std::vector<Grant>& out) {
    for (unsigned ch = 0; ch < channels; ++ch) {
      if (!open[ch]) continue;
      for (unsigned k = 1; k <= chips; ++k) {
        const unsigned chip = (last[ch] + k) % chips;
        auto& l = q[ch * chips + chip];
        FlashCommand* c = candidate(l);
        if (!c || !ready(*c)) continue;
        l.erase(std::find(l.begin(), l.end(), c));
        last[ch] = chip;
        out.emplace_back(c);
        break;
      }
    }
  }
};
}  // namespace

TEST_CASE("sched: HOS decides as a naive reading of its rules, on accept words and on a callable", "[sched][hos]") {
  // Three copies of one random command stream: the naive reference, HosPolicy on a
  // readiness callable (decide) and on the dies' accept words (decide_on_offers). Random
  // offers, open channels, priorities; every channel decides at every edge.
  constexpr unsigned kCh = 3, kChips = 5, kDies = 2;
  for (const bool read_first : {false, true}) {
    for (const bool by_priority : {false, true}) {
      INFO("read_first " << read_first << ", by_priority " << by_priority);
      Cmds ka, kb, kn;
      HosPolicy a(kCh, kChips, read_first, by_priority), b(kCh, kChips, read_first, by_priority);
      NaiveHos naive(kCh, kChips, read_first, by_priority);
      std::mt19937_64 rng(77);
      std::uint32_t offer[kCh][kChips][kDies];
      struct Offers {
        const std::uint32_t (*words)[kDies];
        std::uint32_t accept_word(unsigned chip, unsigned die) const { return words[chip][die]; }
      };
      std::vector<unsigned> all;
      for (unsigned ch = 0; ch < kCh; ++ch) all.push_back(ch);
      std::vector<Grant> out_a, out_b, out_n;
      std::size_t issued = 0;
      for (int edge = 0; edge < 20000; ++edge) {
        for (int n = static_cast<int>(rng() % 4); n > 0; --n) {
          const unsigned ch = rng() % kCh, chip = rng() % kChips;
          const auto op = static_cast<FlashOp>(rng() % 3);
          const auto die = static_cast<std::uint16_t>(rng() % kDies);
          const auto mask = static_cast<std::uint8_t>(rng() % 4);
          const auto prio = static_cast<FlashPriority>(rng() % 3);
          for (auto [k, pol] : {std::pair<Cmds*, HosPolicy*>{&ka, &a}, {&kb, &b}}) {
            FlashCommand* x = k->make(ch, chip, op);
            x->die = die;
            x->plane_mask = mask;
            x->priority = prio;
            pol->push(x);
          }
          FlashCommand* y = kn.make(ch, chip, op);
          y->die = die;
          y->plane_mask = mask;
          y->priority = prio;
          naive.q[ch * kChips + chip].push_back(y);
        }
        for (auto& per_ch : offer)
          for (auto& per_chip : per_ch)
            for (std::uint32_t& w : per_chip) w = static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());
        bool open[kCh];
        for (unsigned ch = 0; ch < kCh; ++ch) open[ch] = rng() % 5 != 0;
        auto ready = [&](const FlashCommand& c) { return (c.start_need() & ~offer[c.channel][c.chip][c.die]) == 0; };
        auto is_open = [&](unsigned ch) { return open[ch]; };
        out_a.clear();
        out_b.clear();
        out_n.clear();
        a.decide(ready, is_open, out_a, &all);
        b.decide_on_offers([&](unsigned ch) { return Offers{offer[ch]}; }, is_open, out_b, all);
        naive.decide(ready, open, out_n);
        REQUIRE(ids(out_a) == ids(out_n));
        REQUIRE(ids(out_b) == ids(out_n));
        for (unsigned ch = 0; ch < kCh; ++ch) {
          const bool ra = open[ch] && a.any_ready(ch, ready);
          const bool rb = open[ch] && b.any_ready_on_offers(ch, Offers{offer[ch]});
          REQUIRE(ra == rb);
        }
        issued += out_a.size();
      }
      CHECK(issued > 5000);
      CHECK(a.queued() == b.queued());
    }
  }
}

TEST_CASE("sched: HOS with priorities serves host reads, urgent GC, the host's others, then background GC", "[sched][hos]") {
  Cmds k;
  HosPolicy hos(1, 1, false, true);
  auto make = [&k](FlashOp op, FlashPriority p) {
    FlashCommand* c = k.make(0, 0, op);
    c->priority = p;
    return c;
  };
  hos.push(make(FlashOp::Read, FlashPriority::BackgroundGc));     // 1
  hos.push(make(FlashOp::Program, FlashPriority::Host));          // 2
  hos.push(make(FlashOp::Read, FlashPriority::Host));             // 3
  hos.push(make(FlashOp::Erase, FlashPriority::BackgroundGc));    // 4
  hos.push(make(FlashOp::Program, FlashPriority::UrgentGc));      // 5
  auto ready = [](const FlashCommand&) { return true; };
  std::vector<Grant> out;
  for (int i = 0; i < 5; ++i) hos.decide(ready, out);
  // While urgent GC waits, the host's reads go first (they take no free space), then the
  // urgent GC; then the host's others in arrival order; background GC last, in arrival order.
  CHECK(ids(out) == std::vector<std::uint64_t>{3, 5, 2, 1, 4});
  // With read_first, inside a class: the host's read before its older program.
  Cmds k2;
  HosPolicy rf(1, 1, true, true);
  for (auto [op, p] : {std::pair{FlashOp::Read, FlashPriority::BackgroundGc}, std::pair{FlashOp::Program, FlashPriority::Host},
                       std::pair{FlashOp::Read, FlashPriority::Host}}) {
    FlashCommand* c = k2.make(0, 0, op);
    c->priority = p;
    rf.push(c);
  }
  std::vector<Grant> out2;
  for (int i = 0; i < 3; ++i) rf.decide(ready, out2);
  CHECK(ids(out2) == std::vector<std::uint64_t>{3, 2, 1});
}

// A chip queue's candidate by the rule, as a walk of the whole queue in arrival order.
// Without priorities: with read_first the oldest read, else the oldest command (the
// definition before the candidate was kept in O(1)). With priorities: while an urgent GC
// command waits, the oldest host read; else the first non-empty class (urgent GC, host,
// background GC), in it the oldest command, or with read_first its oldest read. The
// O(1) candidate must pick the same command at every decision of a random stream.
TEST_CASE("sched: HOS in O(1) picks what a walk of the whole queue by the rule picks", "[sched][hos]") {
  for (const bool by_priority : {false, true}) {
    for (const bool read_first : {true, false}) {
      std::mt19937_64 rng((by_priority ? 7 : 5) + (read_first ? 0 : 1));
      Cmds k;
      HosPolicy hos(2, 3, read_first, by_priority);
      std::vector<std::deque<FlashCommand*>> ref(6);  // per chip, arrival order
      std::size_t urgent_reads_first = 0;
      for (int step = 0; step < 20000; ++step) {
        if (rng() % 3 != 0) {
          const unsigned ch = rng() % 2, chip = rng() % 3;
          FlashCommand* c = k.make(ch, chip, static_cast<FlashOp>(rng() % 3));
          c->priority = static_cast<FlashPriority>(rng() % 3);  // ignored without priorities
          hos.push(c);
          ref[ch * 3 + chip].push_back(c);
          continue;
        }
        // A random readiness pattern: some chips not ready.
        const unsigned busy = static_cast<unsigned>(rng() % 64);
        auto ready = [busy](const FlashCommand& c) { return !(busy >> (c.channel * 3 + c.chip) & 1u); };
        std::vector<Grant> out;
        hos.decide(ready, out);
        for (const Grant& g : out) {
          FlashCommand* c = g.cmd;
          std::deque<FlashCommand*>& q = ref[c->channel * 3 + c->chip];
          auto first_of = [&q](auto pred) {
            for (auto it = q.begin(); it != q.end(); ++it)
              if (pred(**it)) return it;
            return q.end();
          };
          auto in_class = [by_priority](const FlashCommand& x, FlashPriority p) { return !by_priority || x.priority == p; };
          auto want = q.end();
          if (by_priority &&
              first_of([](const FlashCommand& x) { return x.priority == FlashPriority::UrgentGc; }) != q.end()) {
            want = first_of([](const FlashCommand& x) { return x.priority == FlashPriority::Host && x.op == FlashOp::Read; });
            if (want != q.end()) ++urgent_reads_first;
          }
          for (FlashPriority p : {FlashPriority::UrgentGc, FlashPriority::Host, FlashPriority::BackgroundGc}) {
            if (want != q.end()) break;
            if (read_first) want = first_of([&](const FlashCommand& x) { return in_class(x, p) && x.op == FlashOp::Read; });
            if (want == q.end()) want = first_of([&](const FlashCommand& x) { return in_class(x, p); });
          }
          REQUIRE(want != q.end());
          REQUIRE(*want == c);
          q.erase(want);
        }
      }
      if (by_priority) CHECK(urgent_reads_first > 100);  // the exception was exercised
    }
  }
}
