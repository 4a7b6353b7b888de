// Park et al.'s request rescheduling in the scheduler block (controller/reschedule.h,
// docs/scheduler.md "Rescheduling") on hand-made queues: the paper's Fig. 3 examples, the
// data dependencies that keep their order, and the window that bounds the reordering.
#include <catch2/catch.hpp>

#include <deque>
#include <vector>

#include "controller/combined_command.h"
#include "controller/sched_policy.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

struct Cmds {
  std::deque<FlashCommand> all;
  // A single-page command on channel 0, chip 0.
  FlashCommand* make(FlashOp op, unsigned die, unsigned plane, std::uint32_t block, std::uint32_t page,
                     std::uint64_t lpn = kNoLpn) {
    FlashCommand& c = all.emplace_back();
    c.op = op;
    c.die = static_cast<std::uint16_t>(die);
    c.plane_mask = static_cast<std::uint8_t>(1u << plane);
    c.block[plane] = block;
    c.page = page;
    c.lpn = lpn;
    c.id = all.size();
    return &c;
  }
};

// Pushes `c` as the firmware sends it: marked keep_order when it conflicts with a command
// sent before and not completed (`sent`).
void send(HosPolicy& h, HazardKeys& sent, FlashCommand* c) {
  c->keep_order = sent.conflicts(*c);
  sent.add(*c);
  h.push(c);
}

HosPolicy make(const char* setting, std::uint32_t window = 8, bool read_first = false, unsigned dies = 2) {
  HosPolicy h(1, 1, read_first, false);
  h.set_reschedule(parse_reschedule(setting, window), dies);
  return h;
}

// Every command ready (the die offers every plane).
const auto all_ready = [](const FlashCommand&) { return true; };

// The ids granted at one edge, a merged command as its head then its partners.
std::vector<std::uint64_t> grant(HosPolicy& h) {
  std::vector<Grant> out;
  h.decide(all_ready, out);
  std::vector<std::uint64_t> ids;
  for (const Grant& g : out) {
    ids.push_back(g.cmd->id);
    for (unsigned k = 0; k < g.partners; ++k) ids.push_back(g.part[k]->id);
  }
  return ids;
}

// Grants one command per edge until the queue is empty: the order of the heads.
std::vector<std::uint64_t> drain(HosPolicy& h) {
  std::vector<std::uint64_t> order;
  while (h.queued()) {
    std::vector<Grant> out;
    h.decide(all_ready, out);
    REQUIRE(out.size() == 1);
    order.push_back(out[0].cmd->id);
    for (unsigned k = 0; k < out[0].partners; ++k) order.push_back(out[0].part[k]->id);
  }
  return order;
}

}  // namespace

TEST_CASE("reschedule: Park Fig. 3(a), R4 joins R1 as one two-plane read, R2 (a write) cannot",
          "[sched][reschedule]") {
  for (const char* setting : {"none", "multiplane"}) {
    INFO(setting);
    Cmds k;
    HosPolicy h = make(setting);
    h.push(k.make(FlashOp::Read, 0, 0, 10, 5));     // R1: die 0, plane 0, page 5
    h.push(k.make(FlashOp::Program, 0, 1, 20, 5));  // R2: a write to plane 1
    h.push(k.make(FlashOp::Read, 0, 0, 11, 5));     // R3: plane 0 again
    h.push(k.make(FlashOp::Read, 0, 1, 12, 5));     // R4: a read of plane 1 at page 5
    const bool mp = std::string(setting) == "multiplane";
    CHECK(grant(h) == (mp ? std::vector<std::uint64_t>{1, 4} : std::vector<std::uint64_t>{1}));
    if (mp) {
      const RescheduleCounters& rc = *h.reschedule_counters();
      CHECK(rc.merged_commands == 1);
      CHECK(rc.merged_parts == 1);
      CHECK(rc.merged_sizes[2] == 1);
      // R4 left R2 and R3 behind: a distance of 2; R1 none.
      CHECK(rc.reordered == 1);
      CHECK(rc.distance_max == 2);
      CHECK(rc.distance_sum == 2);
    } else {
      CHECK(h.reschedule_counters() == nullptr);
    }
  }
}

TEST_CASE("reschedule: a partner needs the same operation, die and page offset, and the first of its plane",
          "[sched][reschedule]") {
  Cmds k;
  HosPolicy h = make("multiplane");
  h.push(k.make(FlashOp::Read, 0, 0, 10, 5));  // 1: head
  h.push(k.make(FlashOp::Read, 1, 1, 12, 5));  // 2: another die
  h.push(k.make(FlashOp::Read, 0, 1, 12, 6));  // 3: plane 1, another page: first of plane 1, not a partner
  h.push(k.make(FlashOp::Read, 0, 1, 13, 5));  // 4: plane 1 at page 5, but 3 of its plane came first
  CHECK(grant(h) == std::vector<std::uint64_t>{1});
  // Erases join on any block; programs at the same page offset.
  Cmds e;
  HosPolicy g = make("multiplane", 8, false, 1);
  g.push(e.make(FlashOp::Erase, 0, 0, 3, 0));
  g.push(e.make(FlashOp::Erase, 0, 1, 7, 0));
  CHECK(grant(g) == std::vector<std::uint64_t>{1, 2});
  g.push(e.make(FlashOp::Program, 0, 0, 4, 2));
  g.push(e.make(FlashOp::Program, 0, 1, 8, 2));
  CHECK(grant(g) == std::vector<std::uint64_t>{3, 4});
}

TEST_CASE("reschedule: partners are sought within the window and only on planes the die offers",
          "[sched][reschedule]") {
  Cmds k;
  HosPolicy h = make("multiplane", 2, false, 2);
  h.push(k.make(FlashOp::Read, 0, 0, 10, 5));  // 1: head
  h.push(k.make(FlashOp::Read, 1, 0, 10, 5));  // 2, 3: other die
  h.push(k.make(FlashOp::Read, 1, 0, 10, 6));
  h.push(k.make(FlashOp::Read, 0, 1, 12, 5));  // 4: third after the head: outside a window of 2
  CHECK(grant(h) == std::vector<std::uint64_t>{1});
  // The die offers plane 0 only: no partner on plane 1.
  Cmds m;
  HosPolicy g = make("multiplane");
  g.push(m.make(FlashOp::Read, 0, 0, 10, 5));
  g.push(m.make(FlashOp::Read, 0, 1, 12, 5));
  std::vector<Grant> out;
  g.decide([](const FlashCommand& c) { return c.plane_mask == 1; }, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].cmd->id == 1);
  CHECK(out[0].partners == 0);
  CHECK(out[0].cmd->plane_mask == 1);
}

TEST_CASE("reschedule: Park Fig. 3(b), the write R2 moves after R4 so that R1, R3 and R4 pipeline",
          "[sched][reschedule]") {
  for (const char* setting : {"none", "pipeline"}) {
    INFO(setting);
    Cmds k;
    HosPolicy h = make(setting);
    // R1, R2 (write), R3, R4 to plane 0 of die 1.
    h.push(k.make(FlashOp::Read, 1, 0, 10, 1));
    h.push(k.make(FlashOp::Program, 1, 0, 20, 0));
    h.push(k.make(FlashOp::Read, 1, 0, 10, 2));
    h.push(k.make(FlashOp::Read, 1, 0, 10, 3));
    const bool pl = std::string(setting) == "pipeline";
    CHECK(drain(h) == (pl ? std::vector<std::uint64_t>{1, 3, 4, 2} : std::vector<std::uint64_t>{1, 2, 3, 4}));
    if (pl) {
      const RescheduleCounters& rc = *h.reschedule_counters();
      CHECK(rc.switches_avoided == 2);
      CHECK(rc.type_switches == 1);  // R4 to R2 only
      CHECK(rc.distance_max == 1);
      CHECK(rc.reordered == 2);
    }
  }
}

TEST_CASE("reschedule: pipelining passes an older command at most `window` times in a row",
          "[sched][reschedule]") {
  // A read, then a program, then reads: with a window of 3 the program waits for three
  // reads beyond the first, then goes; the remaining reads follow.
  Cmds k;
  HosPolicy h = make("pipeline", 3);
  h.push(k.make(FlashOp::Read, 0, 0, 10, 0));     // 1
  h.push(k.make(FlashOp::Program, 0, 0, 20, 0));  // 2
  for (std::uint32_t p = 1; p <= 6; ++p) h.push(k.make(FlashOp::Read, 0, 0, 10, p));  // 3..8
  CHECK(drain(h) == std::vector<std::uint64_t>{1, 3, 4, 5, 2, 6, 7, 8});
  // Without a die's last operation to continue, nothing moves: the first grant is by age.
  Cmds m;
  HosPolicy g = make("pipeline", 3);
  g.push(m.make(FlashOp::Program, 0, 0, 20, 0));
  g.push(m.make(FlashOp::Read, 0, 0, 10, 0));
  CHECK(drain(g) == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("reschedule: pipelining keeps the older command's die in mind", "[sched][reschedule]") {
  // Die 0 last read, die 1 last programmed. The older program is on die 1 (it continues
  // its die); the younger read on die 0: nothing to gain, the program goes first.
  Cmds k;
  HosPolicy h = make("pipeline");
  h.push(k.make(FlashOp::Read, 0, 0, 10, 0));
  h.push(k.make(FlashOp::Program, 1, 0, 20, 0));
  CHECK(drain(h) == std::vector<std::uint64_t>{1, 2});
  h.push(k.make(FlashOp::Program, 1, 0, 20, 1));  // 3: continues die 1
  h.push(k.make(FlashOp::Read, 0, 0, 10, 1));     // 4: continues die 0
  CHECK(drain(h) == std::vector<std::uint64_t>{3, 4});
}

TEST_CASE("reschedule: a read of a page keeps its order behind the program that writes it",
          "[sched][reschedule][dependency]") {
  for (const char* setting : {"pipeline", "both"}) {
    INFO(setting);
    Cmds k;
    HosPolicy h = make(setting);
    HazardKeys hz;
    send(h, hz, k.make(FlashOp::Read, 0, 0, 10, 0));     // 1: the die reads
    send(h, hz, k.make(FlashOp::Program, 0, 0, 20, 4));  // 2: writes block 20 page 4
    send(h, hz, k.make(FlashOp::Read, 0, 0, 20, 4));     // 3: reads it: must not pass 2
    CHECK(drain(h) == std::vector<std::uint64_t>{1, 2, 3});
    CHECK(h.reschedule_counters()->held_by_dependency > 0);
  }
  // The same with a read of another page: it passes.
  Cmds k;
  HosPolicy h = make("pipeline");
  HazardKeys hz;
  send(h, hz, k.make(FlashOp::Read, 0, 0, 10, 0));
  send(h, hz, k.make(FlashOp::Program, 0, 0, 20, 4));
  send(h, hz, k.make(FlashOp::Read, 0, 0, 20, 3));
  CHECK(drain(h) == std::vector<std::uint64_t>{1, 3, 2});
}

TEST_CASE("reschedule: an erase keeps its order behind the reads of its block", "[sched][reschedule][dependency]") {
  // Reads of block 7 on plane 1, then its erase; an erase of plane 0 goes first. Without
  // the dependency, multi-plane rescheduling would join the two erases and pass the reads.
  Cmds k;
  HosPolicy h = make("both", 8, false, 1);
  HazardKeys hz;
  send(h, hz, k.make(FlashOp::Erase, 0, 0, 3, 0));  // 1
  send(h, hz, k.make(FlashOp::Read, 0, 1, 7, 0));   // 2: a read of block 7
  send(h, hz, k.make(FlashOp::Read, 0, 1, 7, 1));   // 3
  send(h, hz, k.make(FlashOp::Erase, 0, 1, 7, 0));  // 4: block 7's erase
  CHECK(grant(h) == std::vector<std::uint64_t>{1});
  CHECK(drain(h) == std::vector<std::uint64_t>{2, 3, 4});
  // Another block's erase joins.
  Cmds m;
  HosPolicy g = make("both", 8, false, 1);
  HazardKeys gz;
  send(g, gz, m.make(FlashOp::Erase, 0, 0, 3, 0));
  send(g, gz, m.make(FlashOp::Read, 0, 1, 7, 0));
  send(g, gz, m.make(FlashOp::Erase, 0, 1, 8, 0));
  CHECK(grant(g) == std::vector<std::uint64_t>{1, 3});
}

TEST_CASE("reschedule: commands of one logical page keep their order", "[sched][reschedule][dependency]") {
  // Host page 42 programmed on plane 1 (2), then read through the read it replaced (3,
  // another block): the read may not join the head's two-plane read ahead of 2.
  Cmds k;
  HosPolicy h = make("both", 8, false, 1);
  HazardKeys hz;
  send(h, hz, k.make(FlashOp::Read, 0, 0, 10, 5));           // 1
  send(h, hz, k.make(FlashOp::Program, 0, 1, 20, 0, 42));    // 2: lpn 42
  send(h, hz, k.make(FlashOp::Read, 0, 1, 30, 5, 42));       // 3: lpn 42 too
  CHECK(grant(h) == std::vector<std::uint64_t>{1});
  CHECK(drain(h) == std::vector<std::uint64_t>{2, 3});
  // Another logical page joins.
  Cmds m;
  HosPolicy g = make("both", 8, false, 1);
  HazardKeys gz;
  send(g, gz, m.make(FlashOp::Read, 0, 0, 10, 5));
  send(g, gz, m.make(FlashOp::Program, 0, 1, 20, 0, 42));
  send(g, gz, m.make(FlashOp::Read, 0, 1, 30, 5, 43));
  CHECK(grant(g) == std::vector<std::uint64_t>{1, 3});
}

TEST_CASE("reschedule: the firmware's hazard keys: page, erased block, logical page, until completion",
          "[sched][reschedule][dependency]") {
  Cmds k;
  HazardKeys hz;
  FlashCommand* prog = k.make(FlashOp::Program, 0, 1, 20, 4, 42);
  CHECK_FALSE(hz.conflicts(*prog));
  hz.add(*prog);
  CHECK(hz.conflicts(*k.make(FlashOp::Read, 0, 1, 20, 4)));         // the page it writes
  CHECK_FALSE(hz.conflicts(*k.make(FlashOp::Read, 0, 1, 20, 3)));   // another page of its block
  CHECK_FALSE(hz.conflicts(*k.make(FlashOp::Read, 0, 0, 20, 4)));   // the same page of another plane
  CHECK(hz.conflicts(*k.make(FlashOp::Read, 0, 0, 30, 1, 42)));     // its logical page, anywhere on its chip
  CHECK(hz.conflicts(*k.make(FlashOp::Erase, 0, 1, 20, 0)));        // an erase of its block
  FlashCommand* other_chip = k.make(FlashOp::Read, 0, 0, 30, 1, 42);
  other_chip->chip = 1;
  CHECK_FALSE(hz.conflicts(*other_chip));  // the block reorders nothing across chips
  FlashCommand* erase = k.make(FlashOp::Erase, 1, 0, 7, 0);
  hz.add(*erase);
  CHECK(hz.conflicts(*k.make(FlashOp::Read, 1, 0, 7, 5)));  // any page of an erased block
  hz.remove(*prog);
  hz.remove(*erase);
  CHECK(hz.empty());
  CHECK_FALSE(hz.conflicts(*k.make(FlashOp::Read, 0, 1, 20, 4)));
}

TEST_CASE("reschedule: the hazard keys of a command the firmware combined, counted part by part",
          "[sched][reschedule][dependency]") {
  // A two-plane read made of two parts (controller/combined_command.h): the holding stage
  // adds each part's page and logical page, and removes both when the command ends.
  Cmds k;
  FlashCommand* a = k.make(FlashOp::Read, 0, 0, 10, 3, 7);
  FlashCommand* b = k.make(FlashOp::Read, 0, 1, 11, 3, 8);
  HazardKeys hz;
  hz.add(*a);
  hz.add(*b);
  CHECK(hz.conflicts(*k.make(FlashOp::Program, 0, 1, 11, 3)));      // part b's page
  CHECK(hz.conflicts(*k.make(FlashOp::Read, 0, 0, 40, 0, 8)));      // part b's logical page
  CHECK(hz.conflicts(*k.make(FlashOp::Erase, 0, 0, 10, 0)));        // part a's block
  CHECK_FALSE(hz.conflicts(*k.make(FlashOp::Read, 0, 1, 10, 3)));   // a's block number on b's plane
  hz.remove(*a);
  hz.remove(*b);
  CHECK(hz.empty());
}
