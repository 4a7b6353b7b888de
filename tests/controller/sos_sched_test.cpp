// SOS's firmware scheduling policy (controller/sos_sched.h) without the kernel: a fake
// firmware outlet with one plane per chip, chips busy or idle as the test says.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/sos_sched.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

struct FakeOutlet final : FlashOutlet {
  Tick t = 0;
  std::vector<bool> busy_chip;
  std::vector<std::pair<std::uint64_t, Tick>> released;  // id, at
  std::vector<std::uint64_t> cancelled;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> moved;  // id, plane
  std::set<std::uint64_t> refuse_moves;                       // ids retarget refuses
  std::function<void()> during_move;                           // called inside a move (re-entry)
  std::map<std::uint64_t, std::uint64_t> newest;               // lpn -> id of its newest write
  std::uint64_t charged = 0;
  explicit FakeOutlet(unsigned chips) : busy_chip(chips, true), view_(*this) {}
  Tick now() const override { return t; }
  void release(FlashCommand& c, Tick at) override {
    released.emplace_back(c.id, at);
    busy_chip[c.chip] = true;
  }
  Tick charge(std::uint64_t cycles) override {
    charged += cycles;
    return t + cycles;  // a 1 MHz core: a cycle is a tick, for reading the tests
  }
  const FirmwareView& view() const override { return view_; }
  bool retarget(FlashCommand& c, std::uint32_t plane) override {
    if (refuse_moves.count(c.id)) return false;
    moved.emplace_back(c.id, plane);
    c.chip = static_cast<std::uint16_t>(plane);
    if (during_move) {
      auto f = std::move(during_move);
      during_move = nullptr;
      f();
    }
    return true;
  }
  bool cancel(FlashCommand& c) override {
    if (!view_.superseded(c)) return false;
    cancelled.push_back(c.id);
    return true;
  }
  bool release_together(FlashCommand* const*, unsigned, Tick) override { return false; }
  struct View final : FirmwareView {
    const FakeOutlet& o;
    explicit View(const FakeOutlet& out) : o(out) {}
    std::uint32_t chips() const override { return static_cast<std::uint32_t>(o.busy_chip.size()); }
    std::uint32_t planes() const override { return chips(); }
    std::uint32_t held_by_block(std::uint32_t chip) const override { return o.busy_chip[chip] ? 1 : 0; }
    std::uint32_t unbound_programs(std::uint32_t) const override { return 0; }
    std::uint32_t plane_of(const FlashCommand& c) const override { return c.chip; }
    std::uint32_t chip_of(const FlashCommand& c) const override { return c.chip; }
    bool superseded(const FlashCommand& c) const override {
      const auto it = o.newest.find(c.lpn);
      return c.origin == FlashOrigin::HostProgram && it != o.newest.end() && it->second != c.id;
    }
  } view_;
};

// A command for chip `chip`; its id is the page (or block) number of the paper's figure.
FlashCommand cmd(FlashOp op, std::uint16_t chip, std::uint64_t id, std::uint64_t lpn = kNoLpn) {
  FlashCommand c;
  c.op = op;
  c.chip = chip;
  c.id = id;
  c.lpn = lpn;
  c.plane_mask = 1;
  c.issuer.bound = op != FlashOp::Program;
  c.origin = op == FlashOp::Read ? FlashOrigin::HostRead
             : op == FlashOp::Erase ? FlashOrigin::GcErase
                                    : FlashOrigin::HostProgram;
  return c;
}

std::vector<std::uint64_t> ids(const SosScheduler& s, std::uint32_t chip) {
  std::vector<std::uint64_t> v;
  for (const FlashCommand* c : s.queue(chip)) v.push_back(c->id);
  return v;
}

}  // namespace

TEST_CASE("sos: Hahn Fig. 5, a write hit cancels the queued write of the same logical page", "[sos][whm]") {
  // Q0 = R(20), E(10), W(100); Q1 = E(200); Q2 = R(300), every chip busy. W(100) writes
  // logical page 101. The paper says once that a flag of '1' means a write of the page is
  // queued, and elsewhere '0' (set before a write is queued, '1' when it ends): the
  // mechanism is the second, so a queued write is a hit whatever the figure's wording.
  SosConfig cfg;
  cfg.qsl = false;
  SosScheduler s(cfg);
  FakeOutlet out(3);
  FlashCommand r20 = cmd(FlashOp::Read, 0, 20), e10 = cmd(FlashOp::Erase, 0, 10), w100 = cmd(FlashOp::Program, 0, 100, 101);
  FlashCommand e200 = cmd(FlashOp::Erase, 1, 200), r300 = cmd(FlashOp::Read, 2, 300);
  out.newest[101] = 100;
  for (FlashCommand* c : {&r20, &e10, &w100, &e200, &r300}) s.submit(*c, 0, out);
  REQUIRE(ids(s, 0) == std::vector<std::uint64_t>{20, 10, 100});
  // A new write of logical page 101, allocated to chip 2 at physical page 301.
  FlashCommand w301 = cmd(FlashOp::Program, 2, 301, 101);
  out.newest[101] = 301;
  s.submit(w301, 0, out);
  CHECK(out.cancelled == std::vector<std::uint64_t>{100});
  CHECK(ids(s, 0) == std::vector<std::uint64_t>{20, 10});
  CHECK(ids(s, 1) == std::vector<std::uint64_t>{200});
  CHECK(ids(s, 2) == std::vector<std::uint64_t>{300, 301});
  CHECK(s.write_hits() == 1);
  CHECK(out.released.empty());  // every chip busy
}

TEST_CASE("sos: a write already released is no hit: it runs and the new one queues", "[sos][whm]") {
  SosScheduler s(SosConfig{});
  FakeOutlet out(2);
  out.busy_chip[0] = false;
  FlashCommand w1 = cmd(FlashOp::Program, 0, 1, 7);
  out.newest[7] = 1;
  s.submit(w1, 0, out);  // chip 0 idle: released at once
  REQUIRE(out.released.size() == 1);
  FlashCommand w2 = cmd(FlashOp::Program, 0, 2, 7);
  out.newest[7] = 2;
  s.submit(w2, 0, out);
  CHECK(out.cancelled.empty());
  CHECK(s.write_hits() == 0);
  CHECK(ids(s, 0) == std::vector<std::uint64_t>{2});
}

TEST_CASE("sos: an idle chip takes its queue's head, one command at a time, after the decision's cycles",
          "[sos]") {
  SosConfig cfg;
  cfg.cycles_per_decision = 300;
  SosScheduler s(cfg);
  FakeOutlet out(2);
  FlashCommand a = cmd(FlashOp::Read, 1, 1), b = cmd(FlashOp::Read, 1, 2);
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

TEST_CASE("sos: QSL moves the last queued write of the longest queue with two or more to an idle empty chip",
          "[sos][qsl]") {
  SosScheduler s(SosConfig{});
  FakeOutlet out(4);
  // Chip 0: R1, W2, W3, R4 (two writes); chip 1: W5 (one write: no donor); chip 2: R6.
  FlashCommand r1 = cmd(FlashOp::Read, 0, 1), w2 = cmd(FlashOp::Program, 0, 2, 20), w3 = cmd(FlashOp::Program, 0, 3, 30),
               r4 = cmd(FlashOp::Read, 0, 4), w5 = cmd(FlashOp::Program, 1, 5, 50), r6 = cmd(FlashOp::Read, 2, 6);
  for (FlashCommand* c : {&r1, &w2, &w3, &r4, &w5, &r6}) s.submit(*c, 0, out);
  out.busy_chip[3] = false;
  s.chip_idle(3, out);  // empty queue: W3 moves to chip 3's plane and goes at once
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{3, 3}});
  REQUIRE(out.released.size() == 1);
  CHECK(out.released[0].first == 3);
  CHECK(ids(s, 0) == std::vector<std::uint64_t>{1, 2, 4});
  CHECK(s.qsl_moves() == 1);
  // Chip 0 now holds one write: no queue has two, nothing moves to an idle empty chip.
  out.busy_chip[3] = false;
  s.chip_idle(3, out);
  CHECK(s.qsl_moves() == 1);
  CHECK(out.released.size() == 1);
}

TEST_CASE("sos: without QSL an idle chip with an empty queue waits, and a refused move moves nothing", "[sos][qsl]") {
  SosConfig off;
  off.qsl = false;
  SosScheduler s(off);
  FakeOutlet out(2);
  FlashCommand w1 = cmd(FlashOp::Program, 0, 1, 10), w2 = cmd(FlashOp::Program, 0, 2, 20);
  s.submit(w1, 0, out);
  s.submit(w2, 0, out);
  out.busy_chip[1] = false;
  s.chip_idle(1, out);
  CHECK(out.moved.empty());
  CHECK(out.released.empty());

  SosScheduler q(SosConfig{});
  FakeOutlet o2(2);
  FlashCommand v1 = cmd(FlashOp::Program, 0, 1, 10), v2 = cmd(FlashOp::Program, 0, 2, 20);
  q.submit(v1, 0, o2);
  q.submit(v2, 0, o2);
  o2.refuse_moves.insert(2);  // e.g. writes wait for space on the idle chip's plane
  o2.busy_chip[1] = false;
  q.chip_idle(1, o2);
  CHECK(q.qsl_moves() == 0);
  CHECK(ids(q, 0) == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("sos: a move that brings another idle chip's QSL never hands it the program moving", "[sos][qsl]") {
  // A move frees a page where host writes wait and may start GC: new commands come in
  // during it, and with them another idle chip's turn. That chip's QSL must take another
  // program, never the one moving (it would be released twice).
  SosScheduler s(SosConfig{});
  FakeOutlet out(3);
  FlashCommand w1 = cmd(FlashOp::Program, 0, 1, 10), w2 = cmd(FlashOp::Program, 0, 2, 20),
               w3 = cmd(FlashOp::Program, 0, 3, 30);
  for (FlashCommand* c : {&w1, &w2, &w3}) s.submit(*c, 0, out);
  out.busy_chip[1] = out.busy_chip[2] = false;
  out.during_move = [&] { s.chip_idle(2, out); };
  s.chip_idle(1, out);
  // Chip 1 took W3 (the last); during that move chip 2 took W2; W1 stays.
  CHECK(out.moved == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{3, 1}, {2, 2}});
  std::multiset<std::uint64_t> released;
  for (const auto& r : out.released) released.insert(r.first);
  CHECK(released == std::multiset<std::uint64_t>{2, 3});
  CHECK(ids(s, 0) == std::vector<std::uint64_t>{1});
  CHECK(s.qsl_moves() == 2);
}
