// The co-simulation (controller.rtl): the verilated block beside the C++ block in the
// whole model. `check` catches a block that decides differently, naming the cycle and
// both decisions. (The CLI checks run `on` and `check` on whole jobs: tests/cli_rtl.sh.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "sc_main/config.h"
#include "sc_main/full_ssd.h"
#include "sc_main/sim_config.h"
#include "tests/rtl/faulty_block.h"
#include "tests/vcd_read.h"
#include "tlm/sim_now.h"

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

#if SSD_RTL
namespace {

// The value a variable holds at `t` (its last change at or before t).
std::uint64_t value_at(const test::Vcd::Changes& c, Tick t) {
  std::uint64_t v = 0;
  for (const auto& [when, bits] : c) {
    if (when > t) break;
    v = test::Vcd::value(bits);
  }
  return v;
}

// A traced run with the verilated block deciding; its VCD and the block's issue log.
struct TracedRun {
  test::Vcd vcd;
  std::vector<ctrl::FlashSched::Issue> log;
  nand::NandConfig nand;
  Tick period;
};
TracedRun traced_run(const std::string& preset, const std::vector<std::string>& sets, const std::string& path) {
  Config cfg = make_config();
  apply_preset(cfg, preset);
  for (const std::string& s : sets) cfg.set_assignment(s);
  cfg.set_assignment("controller.rtl=on");
  TraceOptions t;
  t.path = path;
  auto* vcd = new VcdWriter(t);
  FullSsd* m = new FullSsd("ssd", cfg, vcd);  // SystemC modules live to the end of the process
  m->sched->keep_issue_log(true);
  sc_core::sc_start();
  vcd->finish(sim_now());
  delete vcd;
  return {test::read_vcd(path), m->sched->issue_log(), m->nand->config(), m->sched->period()};
}

// Per channel, the grants the waveform shows (time, command id) are the block's issues.
void check_grants(const TracedRun& r) {
  const std::string s = "ssd.sched.rtl.";
  std::size_t grants = 0;
  for (unsigned ch = 0; ch < r.nand.channels; ++ch) {
    const std::string c = s + "ch" + std::to_string(ch) + ".";
    std::vector<std::pair<Tick, std::uint64_t>> drawn, issued;
    for (const auto& [t, bits] : r.vcd.changes(c + "grant_id")) {
      if (test::Vcd::value(bits) != 0) {
        drawn.push_back({t, test::Vcd::value(bits)});
      } else {  // a decision that granted nothing on the channel
        CHECK(value_at(r.vcd.changes(c + "grant"), t) == 0);
        CHECK(value_at(r.vcd.changes(c + "grant_chip"), t) == 0xff);
      }
    }
    for (const auto& i : r.log)
      if (i.channel == ch) {
        issued.push_back({i.cycle * r.period, i.id});
        CHECK(value_at(r.vcd.changes(c + "grant_chip"), i.cycle * r.period) == i.chip);
        CHECK(value_at(r.vcd.changes(c + "grant"), i.cycle * r.period) == 1);
        CHECK((value_at(r.vcd.changes(s + "edge"), i.cycle * r.period) & 2) != 0);
      }
    INFO("channel " << ch);
    CHECK(drawn == issued);
    grants += drawn.size();
  }
  CHECK(grants == r.log.size());
  // `edges` flips at every time the block's clock has an edge: at every grant.
  std::set<Tick> edges;
  for (const auto& [t, bits] : r.vcd.changes(s + "edges")) edges.insert(t);
  for (const auto& i : r.log) CHECK(edges.count(i.cycle * r.period) == 1);
  CHECK(grants > 1000);
}

// At every time a chip's count or status changes, the block's status pin `held` says
// what the adapter's count of pushes minus grants says.
void check_held(const test::Vcd& vcd, const std::string& held, const std::vector<std::string>& queued) {
  std::vector<Tick> times;
  for (const auto& [t, bits] : vcd.changes(held)) times.push_back(t);
  for (const std::string& q : queued)
    for (const auto& [t, bits] : vcd.changes(q)) times.push_back(t);
  for (Tick t : times) {
    std::uint64_t n = 0;
    for (const std::string& q : queued) n += value_at(vcd.changes(q), t);
    INFO(held << " at " << t);
    CHECK(value_at(vcd.changes(held), t) == (n > 0));
  }
}

}  // namespace

TEST_CASE("rtl co-simulation: the block's waveforms show its grants, queues and round robin", "[rtl][cosim][trace]") {
  const TracedRun r = traced_run("sos", {"ftl.precondition=0", "workload.requests=3000", "host.lookahead_thread=false"},
                                 "rtl_hos.vcd");
  const std::string s = "ssd.sched.rtl.";
  for (const char* v : {"edges", "edge", "overflow", "push.id", "push.channel", "push.chip", "push.die", "push.op",
                        "push.planes", "push.class"})
    CHECK(r.vcd.has(s + v));
  for (unsigned ch = 0; ch < r.nand.channels; ++ch) {
    const std::string c = s + "ch" + std::to_string(ch) + ".";
    for (const char* v : {"open", "grant", "grant_id", "grant_chip"}) CHECK(r.vcd.has(c + v));
    for (unsigned chip = 0; chip < r.nand.chips_per_channel; ++chip) {
      const std::string p = c + "chip" + std::to_string(chip) + ".";
      for (const char* v : {"queued", "held", "ready"}) CHECK(r.vcd.has(p + v));
      for (unsigned die = 0; die < r.nand.dies_per_chip; ++die) CHECK(r.vcd.has(p + "die" + std::to_string(die) + ".accept"));
      check_held(r.vcd, p + "held", {p + "queued"});
    }
    // No chip of the block past the device's is drawn.
    CHECK_FALSE(r.vcd.has(c + "chip" + std::to_string(r.nand.chips_per_channel) + ".queued"));
  }
  check_grants(r);
  // Each grant as the waveform draws it follows the round robin over the chips whose
  // `ready` the decision sampled: the granted chip is ready, and none between the chip
  // granted last on the channel and it is.
  const unsigned chips = r.nand.chips_per_channel;
  std::vector<unsigned> rr(r.nand.channels, chips - 1);
  for (const auto& i : r.log) {
    const Tick t = i.cycle * r.period;
    const std::string c = s + "ch" + std::to_string(i.channel) + ".";
    const auto ready = [&](unsigned chip) { return value_at(r.vcd.changes(c + "chip" + std::to_string(chip) + ".ready"), t); };
    INFO("cycle " << i.cycle << ", channel " << i.channel << ", chip " << i.chip);
    CHECK(ready(i.chip) == 1);
    for (unsigned k = (rr[i.channel] + 1) % chips; k != i.chip; k = (k + 1) % chips) CHECK(ready(k) == 0);
    rr[i.channel] = i.chip;
  }
}

TEST_CASE("rtl co-simulation: the IOS block's waveforms show its grants and its one queue", "[rtl][cosim][trace]") {
  const TracedRun r = traced_run("sos", {"ftl.precondition=0", "workload.requests=3000", "host.lookahead_thread=false",
                                         "controller.scheduler=ios"},
                                 "rtl_ios.vcd");
  const std::string s = "ssd.sched.rtl.";
  for (const char* v : {"queue.queued", "queue.held", "queue.ready"}) CHECK(r.vcd.has(s + v));
  std::vector<std::string> queued;
  for (unsigned ch = 0; ch < r.nand.channels; ++ch)
    for (unsigned chip = 0; chip < r.nand.chips_per_channel; ++chip) {
      const std::string p = s + "ch" + std::to_string(ch) + ".chip" + std::to_string(chip) + ".";
      CHECK(r.vcd.has(p + "queued"));
      CHECK_FALSE(r.vcd.has(p + "held"));
      queued.push_back(p + "queued");
    }
  check_held(r.vcd, s + "queue.held", queued);
  check_held(r.vcd, s + "queue.held", {s + "queue.queued"});
  check_grants(r);
  for (const auto& i : r.log) CHECK(value_at(r.vcd.changes(s + "queue.ready"), i.cycle * r.period) == 1);
}
#endif
