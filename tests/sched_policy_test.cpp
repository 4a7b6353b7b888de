// The scheduler block's decisions on small hand-made queues (docs/scheduler.md).
#include <catch2/catch.hpp>

#include <deque>
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
std::vector<std::uint64_t> ids(const std::vector<FlashCommand*>& v) {
  std::vector<std::uint64_t> r;
  for (FlashCommand* c : v) r.push_back(c->id);
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
  std::vector<FlashCommand*> out;
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
  std::vector<FlashCommand*> out;
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
  std::vector<FlashCommand*> out;
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
  std::vector<FlashCommand*> out;
  for (int i = 0; i < 3; ++i) hos.decide(ready, out);
  CHECK(ids(out) == std::vector<std::uint64_t>{2, 3, 1});
  // Without read_first: arrival order.
  Cmds k2;
  HosPolicy fifo(1, 1, false);
  fifo.push(k2.make(0, 0, FlashOp::Program));
  fifo.push(k2.make(0, 0, FlashOp::Read));
  std::vector<FlashCommand*> out2;
  fifo.decide(ready, out2);
  fifo.decide(ready, out2);
  CHECK(ids(out2) == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("sched: HOS read_first taking a queue's last command keeps later arrivals in order", "[sched][hos]") {
  Cmds k;
  HosPolicy hos(1, 1, true);
  auto ready = [](const FlashCommand&) { return true; };
  std::vector<FlashCommand*> out;
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
