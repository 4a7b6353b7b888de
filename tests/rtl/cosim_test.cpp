// The co-simulation (controller.rtl): the verilated block beside the C++ block in the
// whole model. `check` catches a block that decides differently, naming the cycle and
// both decisions. (The CLI checks run `on` and `check` on whole jobs: tests/cli_rtl.sh.)
#include <catch2/catch.hpp>

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
