// Commands of several pages (controller/combined_command.h), without the kernel: which
// single-page commands may join, what the combined command carries, and what each part
// takes back at its end. (The firmware's own rules for joining the commands it holds:
// tests/controller/holding_stage_test.cpp.)
#include <catch2/catch.hpp>

#include "controller/combined_command.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

FlashCommand page(unsigned plane, std::uint32_t block, Token t = 0) {
  FlashCommand c;
  c.op = FlashOp::Read;
  c.channel = 1;
  c.chip = 2;
  c.die = 0;
  c.page = 5;
  c.plane_mask = static_cast<std::uint8_t>(1u << plane);
  c.block[plane] = block;
  c.token[plane] = t;
  c.origin = FlashOrigin::GcRead;
  return c;
}

}  // namespace

TEST_CASE("combined command: only single-page commands of one operation, die and offset join",
          "[combined]") {
  FlashCommand a = page(0, 10), whole;
  begin_combined(whole, a);
  CHECK(why_not_joined(whole, a).empty());
  join(whole, a);
  FlashCommand same_plane = page(0, 11);
  CHECK(why_not_joined(whole, same_plane) == "a plane the command has already");
  FlashCommand other_die = page(1, 10);
  other_die.die = 1;
  CHECK(why_not_joined(whole, other_die) == "another die");
  FlashCommand other_chip = page(1, 10);
  other_chip.chip = 3;
  CHECK(why_not_joined(whole, other_chip) == "another die");
  FlashCommand other_page = page(1, 10);
  other_page.page = 6;
  CHECK(why_not_joined(whole, other_page) == "another page offset");
  FlashCommand program = page(1, 10);
  program.op = FlashOp::Program;
  CHECK(why_not_joined(whole, program) == "another operation");
  FlashCommand two = page(1, 10);
  two.plane_mask = 0x6;
  CHECK(why_not_joined(whole, two) == "not a single-page command");
  FlashCommand retried = page(1, 10);
  retried.read_level = 2;
  CHECK(why_not_joined(whole, retried) == "another read level");
  // Erases join at any block offset: their page is not part of the command.
  FlashCommand e0 = page(0, 3), e1 = page(1, 9), erase;
  e0.op = e1.op = FlashOp::Erase;
  e1.page = 0;
  begin_combined(erase, e0);
  join(erase, e0);
  CHECK(why_not_joined(erase, e1).empty());
  // A die runs an n-plane command in one cell mode: an SLC-mode page (the map log's with
  // n > 1 bits per cell) never joins one in the part's own mode, erases included.
  FlashCommand slc = page(1, 10);
  slc.slc = true;
  CHECK(why_not_joined(whole, slc) == "another cell mode");
  FlashCommand slc_erase = e1;
  slc_erase.slc = true;
  CHECK(why_not_joined(erase, slc_erase) == "another cell mode");
  FlashCommand slc_whole;
  begin_combined(slc_whole, slc);
  CHECK(slc_whole.slc);
  join(slc_whole, slc);
  FlashCommand slc_too = page(0, 4);
  slc_too.slc = true;
  CHECK(why_not_joined(slc_whole, slc_too).empty());
}

TEST_CASE("combined command: planes, blocks, data, bytes out and class come from its parts", "[combined]") {
  FlashCommand a = page(0, 10, 0xA), b = page(2, 77, 0xB), whole;
  a.out_bytes = 2048;
  b.out_bytes = 2048;
  a.priority = FlashPriority::BackgroundGc;
  b.priority = FlashPriority::Host;
  b.origin = FlashOrigin::HostRead;
  b.request = 42;
  b.host_page = 3;
  b.lpn = 900;
  begin_combined(whole, a);
  join(whole, a);
  CHECK(whole.request == 0);
  join(whole, b);
  CHECK(whole.plane_mask == 0x5);
  CHECK(whole.block[0] == 10);
  CHECK(whole.block[2] == 77);
  CHECK(whole.out_bytes == 2048);
  CHECK(whole.priority == FlashPriority::Host);  // the most urgent class of its parts
  // The first part serving a host request names the command (its wait is measured).
  CHECK(whole.request == 42);
  CHECK(whole.origin == FlashOrigin::HostRead);
  CHECK(whole.lpn == 900);
  CHECK(whole.host_page == 3);
  // Named by its host part, the command still knows which of its planes are GC work
  // (the NAND counts n-plane pages by origin with it): plane 0, not plane 2.
  CHECK(whole.gc_mask() == 0x1);
  CHECK(a.gc_mask() == 0x1);
  CHECK(b.gc_mask() == 0x0);
  FlashCommand c = page(1, 4), d = page(3, 4);
  c.out_bytes = 1024;
  FlashCommand w2;
  begin_combined(w2, c);
  join(w2, c);
  join(w2, d);  // d moves its whole page: so does the command
  CHECK(w2.out_bytes == 0);
}

TEST_CASE("combined command: each part takes the outcome, times, wait and its plane's data", "[combined]") {
  FlashCommand a = page(0, 10), b = page(1, 11), whole;
  begin_combined(whole, a);
  join(whole, a);
  join(whole, b);
  whole.status = FlashStatus::ReadRetried;
  whole.t_queued = 5;
  whole.t_submit = 10;
  whole.t_start = 11;
  whole.t_bus_end = 12;
  whole.t_array_start = 13;
  whole.t_array_end = 14;
  whole.t_out_ready = 15;
  whole.t_out_start = 16;
  whole.t_done = 17;
  whole.bus_cmd_ticks = 3;
  whole.waited = {1, 2, 3, 4, 5, 6};
  whole.metered = true;
  whole.token[0] = 0x100;
  whole.token[1] = 0x101;
  hand_out(whole, a);
  hand_out(whole, b);
  for (const FlashCommand* p : {&a, &b}) {
    CHECK(p->status == FlashStatus::ReadRetried);
    CHECK((p->t_queued == 5 && p->t_submit == 10 && p->t_start == 11 && p->t_bus_end == 12));
    CHECK((p->t_array_start == 13 && p->t_array_end == 14 && p->t_out_ready == 15 && p->t_out_start == 16));
    CHECK((p->t_done == 17 && p->bus_cmd_ticks == 3 && p->metered));
    CHECK(p->waited == whole.waited);
  }
  CHECK(a.token[0] == 0x100);
  CHECK(b.token[1] == 0x101);
}
