// The co-simulation (controller.rtl): the verilated block beside the C++ block in the
// whole model. `check` catches a block that decides differently, naming the cycle and
// both decisions. (The CLI checks run `on` and `check` on whole jobs: tests/cli_rtl.sh.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sc_main/config.h"
#include "sc_main/full_ssd.h"
#include "sc_main/sim_config.h"
#include "tests/rtl/faulty_block.h"

using namespace ssd;

TEST_CASE("rtl co-simulation: check ends the run at the first decision a faulty block takes differently",
          "[rtl][cosim]") {
  Config cfg = make_config();
  for (const char* s : {"nand.channels=2", "nand.chips_per_channel=2", "nand.dies_per_chip=1", "nand.blocks_per_plane=64",
                        "nand.pages_per_block=64", "ftl.overprovisioning=0.15", "ftl.precondition=0",
                        "workload.requests=2000",
                        "workload.queue_depth=8"})
    cfg.set_assignment(s);
  FullSsd* m = new FullSsd("ssd", cfg);  // SystemC modules live to the end of the process
  m->sched->set_decision_model(test::faulty_block(m->nand->config(), false, true), ctrl::FlashSched::Twin::Check);
  std::string error;
  try {
    sc_core::sc_start();
  } catch (const sc_core::sc_report& r) {
    error = r.what();
  }
  INFO(error);
  CHECK(error.find("controller.rtl: check: cycle ") != std::string::npos);
  CHECK(error.find("the C++ block granted command ") != std::string::npos);
  CHECK(error.find("the RTL block command ") != std::string::npos);
  CHECK(m->sched->decisions_compared() > 0);
}

#if SSD_RTL  // controller.rtl needs the verilated blocks of rtl/
TEST_CASE("rtl co-simulation: the verilated block deciding holds the commands the C++ block would hold",
          "[rtl][cosim]") {
  // The same job twice in one simulation, the C++ block deciding in one and the
  // verilated block in the other: at each step both hold the same commands per chip.
  Config off = make_config();
  apply_preset(off, "sos");
  for (const char* s : {"ftl.precondition=0", "workload.requests=3000", "host.lookahead_thread=false"}) off.set_assignment(s);
  Config on = off;
  on.set_assignment("controller.rtl=on");
  FullSsd* a = new FullSsd("cpp", off);  // SystemC modules live to the end of the process
  FullSsd* b = new FullSsd("rtl", on);
  const nand::NandConfig& n = a->nand->config();
  std::size_t most = 0;
  for (int step = 0; step < 200; ++step) {
    sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_US));
    for (unsigned ch = 0; ch < n.channels; ++ch)
      for (unsigned chip = 0; chip < n.chips_per_channel; ++chip) {
        REQUIRE(b->sched->queued_on_chip(ch, chip) == a->sched->queued_on_chip(ch, chip));
        most = std::max(most, a->sched->queued_on_chip(ch, chip));
      }
  }
  CHECK(most > 1);  // the queues were not always empty
}
#endif
