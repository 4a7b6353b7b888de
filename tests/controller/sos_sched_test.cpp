// SOS's release policy (controller/sos_sched.h) without the kernel: a fake holding stage
// with one plane per chip, chips busy or idle as the test says. (SOS on the real stage,
// with the rest of the firmware: tests/controller/firmware_units_test.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/sos_sched.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

// A command as the firmware holds it: the protocol's, and the firmware's record.
struct Cmd {
  FlashCommand f;
  FwCommand r;
  Cmd() { r.cmd = &f; }
  Cmd(const Cmd&) = delete;
  Cmd& operator=(const Cmd&) = delete;
  // Another command in the same place (the firmware reuses a payload and its record).
  void reset(const FlashCommand& c) {
    f = c;
    r = FwCommand{};
    r.cmd = &f;
  }
};
constexpr std::uint8_t kSubmitted = 1, kHeld = 2, kTakenOut = 3;

// A fake holding stage: the chips' queues (hold), one plane per chip, chips busy or idle
// as the test says.
struct FakeOutlet final : FlashOutlet {
  Tick t = 0;
  std::vector<bool> busy_chip;
  std::vector<std::deque<FwCommand*>> queues;                  // per chip, as held
  std::vector<std::pair<std::uint64_t, Tick>> released;  // id, at
  std::vector<std::uint64_t> cancelled;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> moved;  // id, plane
  std::set<std::uint64_t> refuse_moves;                       // ids retarget refuses
  std::function<void()> during_move;                           // called inside a move (re-entry)
  std::function<void()> during_cancel;                         // called inside a cancel (re-entry)
  std::map<std::uint64_t, std::uint64_t> newest;               // lpn -> id of its newest write
  std::uint64_t charged = 0;
  explicit FakeOutlet(unsigned chips) : busy_chip(chips, true), queues(chips), view_(*this) {}
  Tick now() const override { return t; }
  std::deque<FwCommand*>& queue_of(const FwCommand& c) { return queues[c.cmd->chip]; }
  std::size_t unqueue(FwCommand& c) {
    auto& q = queue_of(c);
    const auto it = std::find(q.begin(), q.end(), &c);
    REQUIRE(it != q.end());
    const std::size_t at = static_cast<std::size_t>(it - q.begin());
    q.erase(it);
    return at;
  }
  void release(FwCommand& c, Tick at) override {
    if (c.where == kHeld) unqueue(c);
    c.where = kSubmitted;
    released.emplace_back(c.cmd->id, at);
    busy_chip[c.cmd->chip] = true;
  }
  void hold(FwCommand& c, Tick ready) override {
    c.ready = ready;
    queue_of(c).push_back(&c);
    c.where = kHeld;
  }
  std::size_t take_out(FwCommand& c) override {
    const std::size_t at = unqueue(c);
    c.where = kTakenOut;
    return at;
  }
  void put_back(FwCommand& c, std::size_t at) override {
    auto& q = queue_of(c);
    q.insert(q.begin() + static_cast<std::ptrdiff_t>(at), &c);
    c.where = kHeld;
  }
  Tick charge(std::uint64_t cycles) override {
    charged += cycles;
    return t + cycles;  // a 1 MHz core: a cycle is a tick, for reading the tests
  }
  const FirmwareView& view() const override { return view_; }
  bool retarget(FwCommand& c, std::uint32_t plane) override {
    if (refuse_moves.count(c.cmd->id)) return false;
    moved.emplace_back(c.cmd->id, plane);
    c.cmd->chip = static_cast<std::uint16_t>(plane);
    if (during_move) {
      auto f = std::move(during_move);
      during_move = nullptr;
      f();
    }
    return true;
  }
  bool cancel(FwCommand& c) override {
    if (!view_.superseded(c)) return false;
    if (c.where == kHeld) unqueue(c);
    c.where = 0;
    cancelled.push_back(c.cmd->id);
    if (during_cancel) {
      auto f = std::move(during_cancel);
      during_cancel = nullptr;
      f();
    }
    return true;
  }
  bool release_together(FwCommand* const*, unsigned, Tick) override { return false; }
  struct View final : FirmwareView {
    const FakeOutlet& o;
    explicit View(const FakeOutlet& out) : o(out) {}
    std::uint32_t chips() const override { return static_cast<std::uint32_t>(o.busy_chip.size()); }
    std::uint32_t planes() const override { return chips(); }
    std::uint32_t held_by_block(std::uint32_t chip) const override { return o.busy_chip[chip] ? 1 : 0; }
    std::uint32_t unbound_programs(std::uint32_t) const override { return 0; }
    std::uint32_t plane_of(const FwCommand& c) const override { return c.cmd->chip; }
    std::uint32_t chip_of(const FwCommand& c) const override { return c.cmd->chip; }
    bool superseded(const FwCommand& c) const override {
      const auto it = o.newest.find(c.cmd->lpn);
      return c.cmd->origin == FlashOrigin::HostProgram && it != o.newest.end() && it->second != c.cmd->id;
    }
    std::uint32_t held(std::uint32_t chip) const override { return static_cast<std::uint32_t>(o.queues[chip].size()); }
    std::uint32_t held_programs(std::uint32_t chip) const override {
      std::uint32_t n = 0;
      for (const FwCommand* c : o.queues[chip]) n += c->cmd->origin == FlashOrigin::HostProgram;
      return n;
    }
    FwCommand* first_held(std::uint32_t chip) const override { return o.queues[chip].empty() ? nullptr : o.queues[chip].front(); }
    FwCommand* last_held(std::uint32_t chip) const override { return o.queues[chip].empty() ? nullptr : o.queues[chip].back(); }
    FwCommand* next_held(const FwCommand& c) const override { return step(c, +1); }
    FwCommand* prev_held(const FwCommand& c) const override { return step(c, -1); }
    bool in_queue(const FwCommand& c) const override { return c.where == kHeld; }
    FwCommand* step(const FwCommand& c, int d) const {
      const auto& q = o.queues[c.cmd->chip];
      const auto it = std::find(q.begin(), q.end(), &c);
      if (it == q.end()) return nullptr;
      const std::ptrdiff_t k = (it - q.begin()) + d;
      return k < 0 || k >= static_cast<std::ptrdiff_t>(q.size()) ? nullptr : q[static_cast<std::size_t>(k)];
    }
  } view_;
};

// A command for chip `chip`; its id is the page (or block) number of the paper's figure.
FlashCommand command(FlashOp op, std::uint16_t chip, std::uint64_t id, std::uint64_t lpn = kNoLpn) {
  FlashCommand c;
  c.op = op;
  c.chip = chip;
  c.id = id;
  c.lpn = lpn;
  c.plane_mask = 1;
  c.origin = op == FlashOp::Read ? FlashOrigin::HostRead
             : op == FlashOp::Erase ? FlashOrigin::GcErase
                                    : FlashOrigin::HostProgram;
  return c;
}
// The commands of a test, in stable storage.
struct Cmds {
  std::deque<Cmd> all;
  FwCommand& make(FlashOp op, std::uint16_t chip, std::uint64_t id, std::uint64_t lpn = kNoLpn) {
    all.emplace_back().reset(command(op, chip, id, lpn));
    all.back().r.bound = op != FlashOp::Program;
    return all.back().r;
  }
};

std::vector<std::uint64_t> ids(const FakeOutlet& out, std::uint32_t chip) {
  std::vector<std::uint64_t> v;
  for (const FwCommand* c : out.queues[chip]) v.push_back(c->cmd->id);
  return v;
}

}  // namespace

TEST_CASE("sos: Hahn Fig. 5, a write hit cancels the queued write of the same logical page", "[sos][whm]") {
  Cmds k;
  // Q0 = R(20), E(10), W(100); Q1 = E(200); Q2 = R(300), every chip busy. W(100) writes
  // logical page 101. The paper says once that a flag of '1' means a write of the page is
  // queued, and elsewhere '0' (set before a write is queued, '1' when it ends): the
  // mechanism is the second, so a queued write is a hit whatever the figure's wording.
  SosConfig cfg;
  cfg.qsl = false;
  SosScheduler s(cfg);
  FakeOutlet out(3);
  FwCommand& r20 = k.make(FlashOp::Read, 0, 20);
  FwCommand& e10 = k.make(FlashOp::Erase, 0, 10);
  FwCommand& w100 = k.make(FlashOp::Program, 0, 100, 101);
  FwCommand& e200 = k.make(FlashOp::Erase, 1, 200);
  FwCommand& r300 = k.make(FlashOp::Read, 2, 300);
  out.newest[101] = 100;
  for (FwCommand* c : {&r20, &e10, &w100, &e200, &r300}) s.submit(*c, 0, out);
  REQUIRE(ids(out, 0) == std::vector<std::uint64_t>{20, 10, 100});
  // A new write of logical page 101, allocated to chip 2 at physical page 301.
  FwCommand& w301 = k.make(FlashOp::Program, 2, 301, 101);
  out.newest[101] = 301;
  s.submit(w301, 0, out);
  CHECK(out.cancelled == std::vector<std::uint64_t>{100});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{20, 10});
  CHECK(ids(out, 1) == std::vector<std::uint64_t>{200});
  CHECK(ids(out, 2) == std::vector<std::uint64_t>{300, 301});
  CHECK(s.write_hits() == 1);
  CHECK(out.released.empty());  // every chip busy
}

TEST_CASE("sos: a write already released is no hit: it runs and the new one queues", "[sos][whm]") {
  Cmds k;
  SosScheduler s(SosConfig{});
  FakeOutlet out(2);
  out.busy_chip[0] = false;
  FwCommand& w1 = k.make(FlashOp::Program, 0, 1, 7);
  out.newest[7] = 1;
  s.submit(w1, 0, out);  // chip 0 idle: released at once
  REQUIRE(out.released.size() == 1);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 7);
  out.newest[7] = 2;
  s.submit(w2, 0, out);
  CHECK(out.cancelled.empty());
  CHECK(s.write_hits() == 0);
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{2});
}

TEST_CASE("sos: an idle chip takes its queue's head, one command at a time, after the decision's cycles",
          "[sos]") {
  Cmds k;
  SosConfig cfg;
  cfg.cycles_per_decision = 300;
  SosScheduler s(cfg);
  FakeOutlet out(2);
  FwCommand& a = k.make(FlashOp::Read, 1, 1);
  FwCommand& b = k.make(FlashOp::Read, 1, 2);
  s.submit(a, 100, out);
  s.submit(b, 100, out);
  CHECK(out.released.empty());
  out.t = 1000;
  out.busy_chip[1] = false;
  s.chip_idle(1, out);
  REQUIRE(out.released.size() == 1);
  CHECK(out.released[0] == std::make_pair(std::uint64_t{1}, Tick{1300}));  // decided when the core is free
  s.chip_idle(1, out);  // busy again (a released): nothing more
  CHECK(out.released.size() == 1);
  out.busy_chip[1] = false;
  s.chip_idle(1, out);
  CHECK(out.released.back().first == 2);
  CHECK(s.decisions() == 2);
  CHECK(out.charged == 600);
}

TEST_CASE("sos: an idle chip takes its host commands before its background GC, urgent GC before host writes",
          "[sos][gc]") {
  // controller.gc_priority = host_first: GC's commands carry their class. A chip's queue
  // built GC read, GC erase, host read, host write (the order GC and the host built them).
  Cmds k;
  SosScheduler s(SosConfig{});
  FakeOutlet out(1);
  auto gc = [&](FlashOp op, std::uint64_t id, FlashPriority p) -> FwCommand& {
    FwCommand& c = k.make(op, 0, id);
    c.cmd->origin = op == FlashOp::Read ? FlashOrigin::GcRead : FlashOrigin::GcErase;
    c.cmd->priority = p;
    return c;
  };
  FwCommand& g1 = gc(FlashOp::Read, 1, FlashPriority::BackgroundGc);
  FwCommand& g2 = gc(FlashOp::Erase, 2, FlashPriority::BackgroundGc);
  FwCommand& r3 = k.make(FlashOp::Read, 0, 3);
  FwCommand& w4 = k.make(FlashOp::Program, 0, 4, 40);
  for (FwCommand* c : {&g1, &g2, &r3, &w4}) s.submit(*c, 0, out);
  std::vector<std::uint64_t> order;
  for (int i = 0; i < 4; ++i) {
    out.busy_chip[0] = false;
    s.chip_idle(0, out);
    REQUIRE(out.released.size() == order.size() + 1);
    order.push_back(out.released.back().first);
  }
  CHECK(order == std::vector<std::uint64_t>{3, 4, 1, 2});  // the host's first, each class oldest first

  // Urgent GC (its plane at the last reserve) goes before the host's write, not its read.
  FakeOutlet o2(1);
  SosScheduler t(SosConfig{});
  FwCommand& w5 = k.make(FlashOp::Program, 0, 5, 50);
  FwCommand& u6 = gc(FlashOp::Read, 6, FlashPriority::UrgentGc);
  FwCommand& r7 = k.make(FlashOp::Read, 0, 7);
  for (FwCommand* c : {&w5, &u6, &r7}) t.submit(*c, 0, o2);
  std::vector<std::uint64_t> o2order;
  for (int i = 0; i < 3; ++i) {
    o2.busy_chip[0] = false;
    t.chip_idle(0, o2);
    o2order.push_back(o2.released.back().first);
  }
  CHECK(o2order == std::vector<std::uint64_t>{7, 6, 5});
}

TEST_CASE("sos: QSL moves the last queued write of the longest queue with two or more to an idle empty chip",
          "[sos][qsl]") {
  Cmds k;
  SosScheduler s(SosConfig{});
  FakeOutlet out(4);
  // Chip 0: R1, W2, W3, R4 (two writes); chip 1: W5 (one write: no donor); chip 2: R6.
  FwCommand& r1 = k.make(FlashOp::Read, 0, 1);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 20);
  FwCommand& w3 = k.make(FlashOp::Program, 0, 3, 30);
  FwCommand& r4 = k.make(FlashOp::Read, 0, 4);
  FwCommand& w5 = k.make(FlashOp::Program, 1, 5, 50);
  FwCommand& r6 = k.make(FlashOp::Read, 2, 6);
  for (FwCommand* c : {&r1, &w2, &w3, &r4, &w5, &r6}) s.submit(*c, 0, out);
  out.busy_chip[3] = false;
  s.chip_idle(3, out);  // empty queue: W3 moves to chip 3's plane and goes at once
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{3, 3}});
  REQUIRE(out.released.size() == 1);
  CHECK(out.released[0].first == 3);
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{1, 2, 4});
  CHECK(s.qsl_moves() == 1);
  // Chip 0 now holds one write: no queue has two, nothing moves to an idle empty chip.
  out.busy_chip[3] = false;
  s.chip_idle(3, out);
  CHECK(s.qsl_moves() == 1);
  CHECK(out.released.size() == 1);
}

TEST_CASE("sos: without QSL an idle chip with an empty queue waits, and a refused move moves nothing", "[sos][qsl]") {
  Cmds k;
  SosConfig off;
  off.qsl = false;
  SosScheduler s(off);
  FakeOutlet out(2);
  FwCommand& w1 = k.make(FlashOp::Program, 0, 1, 10);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 20);
  s.submit(w1, 0, out);
  s.submit(w2, 0, out);
  out.busy_chip[1] = false;
  s.chip_idle(1, out);
  CHECK(out.moved.empty());
  CHECK(out.released.empty());

  SosScheduler q(SosConfig{});
  FakeOutlet o2(2);
  FwCommand& v1 = k.make(FlashOp::Program, 0, 1, 10);
  FwCommand& v2 = k.make(FlashOp::Program, 0, 2, 20);
  q.submit(v1, 0, o2);
  q.submit(v2, 0, o2);
  o2.refuse_moves.insert(2);  // e.g. writes wait for space on the idle chip's plane
  o2.busy_chip[1] = false;
  q.chip_idle(1, o2);
  CHECK(q.qsl_moves() == 0);
  CHECK(ids(o2, 0) == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("sos: a move that brings another idle chip's QSL never hands it the program moving", "[sos][qsl]") {
  Cmds k;
  // A move frees a page where host writes wait and may start GC: new commands come in
  // during it, and with them another idle chip's turn. That chip's QSL must take another
  // program, never the one moving (it would be released twice).
  SosScheduler s(SosConfig{});
  FakeOutlet out(3);
  FwCommand& w1 = k.make(FlashOp::Program, 0, 1, 10);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 20);
  FwCommand& w3 = k.make(FlashOp::Program, 0, 3, 30);
  for (FwCommand* c : {&w1, &w2, &w3}) s.submit(*c, 0, out);
  out.busy_chip[1] = out.busy_chip[2] = false;
  out.during_move = [&] { s.chip_idle(2, out); };
  s.chip_idle(1, out);
  // Chip 1 took W3 (the last); during that move chip 2 took W2; W1 stays.
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{3, 1}, {2, 2}});
  std::multiset<std::uint64_t> released;
  for (const auto& r : out.released) released.insert(r.first);
  CHECK(released == std::multiset<std::uint64_t>{2, 3});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{1});
  CHECK(s.qsl_moves() == 2);
}

namespace {

// Runs SOS on the fake outlet with each released command taking its chip for a fixed
// time (tR = 1 tick, tPROG = 10; no bus), as the firmware would see it: a chip's
// completion, then its chip_idle. Returns when each command ended, by id.
std::map<std::uint64_t, Tick> run_timed(SosScheduler& s, FakeOutlet& out, std::deque<Cmd>& cmds) {
  std::map<std::uint64_t, FwCommand*> by_id;
  for (Cmd& c : cmds) by_id[c.f.id] = &c.r;
  std::map<std::uint64_t, Tick> ended;
  std::map<std::pair<Tick, std::uint32_t>, std::uint64_t> running;  // (end, chip) -> id
  std::size_t seen = 0;
  const auto start_released = [&] {
    for (; seen < out.released.size(); ++seen) {
      const auto [id, at] = out.released[seen];
      const FlashCommand& c = *by_id.at(id)->cmd;
      running[{std::max(at, out.t) + (c.op == FlashOp::Read ? 1 : 10), c.chip}] = id;
    }
  };
  for (Cmd& c : cmds) {
    s.submit(c.r, 0, out);
    start_released();
  }
  while (!running.empty()) {
    const auto [key, id] = *running.begin();
    running.erase(running.begin());
    out.t = key.first;
    ended[id] = out.t;
    out.busy_chip[key.second] = false;
    s.completed(*by_id.at(id), out);
    s.chip_idle(key.second, out);
    start_released();
  }
  return ended;
}

SosConfig free_sos(bool qsl, bool whm) {
  SosConfig cfg;
  cfg.qsl = qsl;
  cfg.whm = whm;
  cfg.cycles_per_decision = cfg.cycles_per_qsl_move = cfg.cycles_per_whm_lookup = 0;
  return cfg;
}

}  // namespace

TEST_CASE("sos: Hahn Fig. 4 on a layout where it can happen, QSL ends the write two tPROG earlier",
          "[sos][qsl]") {
  // The figure cannot happen as drawn: QSL moves a write only to a chip whose queue is
  // empty, yet W0 and W4 go to chips 1 and 2, which hold R0, R1 and W1, W2. Its point on
  // four chips, kept: a read of three pages (R0, R1 on chip 1, R2 on chip 2) and a write
  // of five pages, four of them (W0..W3) on chip 0 and W4 on chip 2, every chip idle.
  // Without QSL chip 0 programs four pages in a row: the write ends at 4 tPROG = 40.
  // With it, W2 moves to chip 3 (idle, nothing queued) when it is queued behind W1, and
  // W3 to chip 1 when chip 1's reads end (t = 2): the write ends with W1, at 20.
  const auto layout = [](std::deque<Cmd>& v) {
    v.emplace_back().reset(command(FlashOp::Read, 1, 100, 0));
    v.emplace_back().reset(command(FlashOp::Read, 1, 101, 1));
    v.emplace_back().reset(command(FlashOp::Read, 2, 102, 2));
    for (std::uint64_t k = 0; k < 4; ++k) v.emplace_back().reset(command(FlashOp::Program, 0, k, 10 + k));
    v.emplace_back().reset(command(FlashOp::Program, 2, 4, 14));
    for (Cmd& c : v) c.r.bound = c.f.op != FlashOp::Program;
  };
  const auto write_end = [](const std::map<std::uint64_t, Tick>& ended) {
    Tick t = 0;
    for (std::uint64_t w = 0; w < 5; ++w) t = std::max(t, ended.at(w));
    return t;
  };
  std::deque<Cmd> a, b;
  layout(a);
  layout(b);
  FakeOutlet oa(4), ob(4);
  std::fill(oa.busy_chip.begin(), oa.busy_chip.end(), false);
  std::fill(ob.busy_chip.begin(), ob.busy_chip.end(), false);
  SosScheduler without(free_sos(false, false)), with(free_sos(true, false));
  const auto ea = run_timed(without, oa, a);
  const auto eb = run_timed(with, ob, b);
  CHECK(oa.moved.empty());
  CHECK(write_end(ea) == 40);
  CHECK(ob.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{2, 3}, {3, 1}});
  CHECK(eb.at(2) == 10);  // on chip 3 from t = 0
  CHECK(eb.at(3) == 12);  // on chip 1 from t = 2
  CHECK(write_end(eb) == 20);
  CHECK(write_end(ea) - write_end(eb) == 2 * 10);
  CHECK(eb.at(101) == ea.at(101));  // the reads lose nothing
  CHECK(with.qsl_moves() == 2);
}

TEST_CASE("sos: a page's completion flag is 0 from its write's queueing to its release, then 1",
          "[sos][whm]") {
  Cmds k;
  // Chip 0 busy: W1 of page 7 queued (flag 0); W2 of page 7 cancels it and is queued
  // (flag 0); chip 0 idles and W2 is released (flag 1: it can no longer be cancelled);
  // W3 of page 7 is queued and not a hit; W4 of page 7 cancels W3.
  SosScheduler s(free_sos(false, true));
  FakeOutlet out(1);
  FwCommand& w1 = k.make(FlashOp::Program, 0, 1, 7);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 7);
  FwCommand& w3 = k.make(FlashOp::Program, 0, 3, 7);
  FwCommand& w4 = k.make(FlashOp::Program, 0, 4, 7);
  out.newest[7] = 1;
  s.submit(w1, 0, out);
  out.newest[7] = 2;
  s.submit(w2, 0, out);
  CHECK(out.cancelled == std::vector<std::uint64_t>{1});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{2});
  out.busy_chip[0] = false;
  s.chip_idle(0, out);
  REQUIRE(out.released.size() == 1);
  CHECK(out.released[0].first == 2);
  out.newest[7] = 3;
  s.submit(w3, 0, out);
  CHECK(out.cancelled == std::vector<std::uint64_t>{1});  // W2 runs: no hit
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{3});
  out.newest[7] = 4;
  s.submit(w4, 0, out);
  CHECK(out.cancelled == std::vector<std::uint64_t>{1, 3});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{4});
  CHECK(s.write_hits() == 2);
}

TEST_CASE("sos: QSL never moves a program ahead of an older queued program of its page", "[sos][qsl]") {
  Cmds k;
  // Without WHM two programs of page 5 can be queued. Chip 0 holds W1 (page 5), W2
  // (page 6), W3 (page 5); chip 1 idles with nothing queued: the last program, W3, would
  // overtake W1 of its page, so W2 moves. Then chip 2 idles: W3 still has W1 before it,
  // and W1 is the only other program: W1 moves (its page's oldest), never W3.
  SosScheduler s(free_sos(true, false));
  FakeOutlet out(3);
  FwCommand& w1 = k.make(FlashOp::Program, 0, 1, 5);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 6);
  FwCommand& w3 = k.make(FlashOp::Program, 0, 3, 5);
  for (FwCommand* c : {&w1, &w2, &w3}) s.submit(*c, 0, out);
  REQUIRE(ids(out, 0) == std::vector<std::uint64_t>{1, 2, 3});
  out.busy_chip[1] = false;
  s.chip_idle(1, out);
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{2, 1}});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{1, 3});
  out.busy_chip[2] = false;
  s.chip_idle(2, out);
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{2, 1}, {1, 2}});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{3});
  // A queue whose every program has an older one of its page elsewhere gives none.
  SosScheduler t(free_sos(true, false));
  FakeOutlet o2(3);
  FwCommand& a = k.make(FlashOp::Program, 2, 10, 9);
  FwCommand& b = k.make(FlashOp::Program, 0, 11, 9);
  FwCommand& c = k.make(FlashOp::Program, 0, 12, 9);
  for (FwCommand* x : {&a, &b, &c}) t.submit(*x, 0, o2);
  o2.busy_chip[1] = false;
  t.chip_idle(1, o2);
  CHECK(o2.moved.empty());
  CHECK(t.qsl_moves() == 0);
}

TEST_CASE("sos: a cancelled program's command reused inside the cancel leaves the queues right",
          "[sos][whm][qsl]") {
  Cmds k;
  // The firmware frees a cancelled program's payload and may build a stalled write in it
  // at once, submitting it before the cancel returns. Chip 0 busy holds W1 (page 5) and
  // X (page 7); W2 of page 5 cancels W1, whose command comes back as W4 of page 8. Then
  // chip 1 idles: W2, the last queued program and the only one of page 5, moves (had W1's
  // number stayed in page 5's record, W2 would seem to overtake it and W4 would move).
  SosScheduler s(free_sos(true, true));
  FakeOutlet out(3);
  FwCommand& w1 = k.make(FlashOp::Program, 0, 1, 5);
  FwCommand& x = k.make(FlashOp::Program, 0, 3, 7);
  FwCommand& w2 = k.make(FlashOp::Program, 0, 2, 5);
  out.newest[5] = 1;
  out.newest[7] = 3;
  s.submit(w1, 0, out);
  s.submit(x, 0, out);
  out.newest[5] = 2;
  out.during_cancel = [&] {
    k.all.front().reset(command(FlashOp::Program, 0, 4, 8));  // the same command, reused
    out.newest[8] = 4;
    s.submit(w1, 0, out);
  };
  s.submit(w2, 0, out);
  REQUIRE(out.cancelled == std::vector<std::uint64_t>{1});
  REQUIRE(ids(out, 0) == std::vector<std::uint64_t>{3, 4, 2});
  out.busy_chip[1] = false;
  s.chip_idle(1, out);
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{2, 1}});
  CHECK(ids(out, 0) == std::vector<std::uint64_t>{3, 4});
}
