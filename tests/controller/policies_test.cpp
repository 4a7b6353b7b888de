// The policy factories (controller/policies.h): every name listed builds its policy, an
// unknown name is refused with the choices, and what is built behaves as its kind.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "controller/policies.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

FtlConfig small() {
  FtlConfig f;
  f.nand.channels = 2;
  f.nand.chips_per_channel = 2;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 16;
  f.nand.pages_per_block = 8;
  f.allocation = "PCWD";
  f.overprovisioning = 0.25;
  return f;
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("policies: each scheduler block policy listed is built, an unknown name refused") {
  const FtlConfig f = small();
  for (const PolicyName& p : sched_policies()) CHECK(make_sched_policy(p.name, f.nand, false, true) != nullptr);
  CHECK(choices(sched_policies()) == "ios | hos | pass");
  CHECK(refusal([&] { make_sched_policy("sos", f.nand, false, true); }) ==
        "controller.scheduler = sos: not one of ios | hos | pass");
  // The Verilog block's configuration for each: pass-through is HOS's rule in one class.
  const auto form = [&](const char* n) { return make_sched_policy(n, f.nand, true, true)->rtl_form(); };
  CHECK((form("ios").ios && !form("ios").read_first && !form("ios").by_priority));
  CHECK((!form("hos").ios && form("hos").read_first && form("hos").by_priority));
  CHECK((!form("pass").ios && !form("pass").read_first && !form("pass").by_priority));
  // IOS looks again at the next edge after issuing (its new head may be anywhere); HOS
  // re-decides a channel when it changes.
  CHECK(make_sched_policy("ios", f.nand, false, true)->decides_again_after_issue());
  CHECK_FALSE(make_sched_policy("hos", f.nand, false, true)->decides_again_after_issue());
}

TEST_CASE("policies: the firmware scheduler and the write allocator are built by name") {
  const FtlConfig f = small();
  const Ftl ftl(f);
  for (const PolicyName& p : firmware_schedulers()) CHECK(make_firmware_scheduler(p.name) != nullptr);
  for (const PolicyName& p : write_policies()) CHECK(make_write_allocator(p.name, ftl) != nullptr);
  CHECK(refusal([] { make_firmware_scheduler("later"); }) == "controller.firmware_sched = later: not one of in_order | sos");
  CHECK(refusal([&] { make_write_allocator("rrr", ftl); }) ==
        "ftl.write_policy = rrr: not one of static | rr | weight | delay | sqf | setf | stripe");
  // static follows ftl.allocation: plane fastest (PCWD), so pages 0 and 1 go to the two
  // planes of one die, page 2 to the next channel.
  auto a = make_write_allocator("static", ftl);
  struct NoView final : AllocationView {
    const nand::NandConfig& nand() const override { throw std::logic_error("not read"); }
    std::uint32_t planes() const override { return 0; }
    std::uint32_t chip_of_plane(std::uint32_t) const override { return 0; }
    std::uint32_t free_blocks(std::uint32_t) const override { return 0; }
    std::uint32_t commands_outstanding(std::uint32_t) const override { return 0; }
    std::uint32_t unbound_programs(std::uint32_t) const override { return 0; }
    const BusyForecast& forecast() const override { throw std::logic_error("not read"); }
    Tick now() const override { return 0; }
    bool can_place(std::uint32_t) const override { return true; }
    std::uint32_t next_offset(std::uint32_t) const override { return 0; }
    DieLoad die_load(std::uint32_t) const override { return {}; }
  } view;
  CHECK(a->plane_for(0, view) == 0);
  CHECK(a->plane_for(1, view) == 1);
  CHECK(a->plane_for(2, view) == 4);  // channel 1, chip 0: planes 4 and 5
  CHECK(a->plane_for(8, view) == 0);
}
