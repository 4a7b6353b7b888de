// The NAND channel as a SystemC TLM module. Each test case runs in its own
// process (catch_discover_tests), because SystemC elaborates once per process.
#include <catch2/catch.hpp>

#include <map>

#include <systemc>

#include "nand/nand_device.h"
#include "tests/vcd_read.h"
#include "tlm/payload_pool.h"
#include "tlm/sim_now.h"

using namespace ssd;
using namespace ssd::nand;
using namespace sc_core;

namespace {

NandConfig small() {
  NandConfig c;
  c.channels = 2;
  c.chips_per_channel = 2;
  c.dies_per_chip = 2;
  c.planes_per_die = 2;
  c.blocks_per_plane = 8;
  c.pages_per_block = 16;
  c.page_bytes = 4096;
  c.bus_mts = 38;
  c.t_read_us = 20;
  c.t_prog_us = 200;
  c.t_erase_us = 1500;
  c.cache_read = false;
  c.cache_program = false;
  return c;
}

// A test initiator: sends commands at given times (a stimulus thread is fine in
// a test bench), records completion times, can answer BEGIN_RESP with
// TLM_ACCEPTED and send END_RESP later to exercise response exclusion.
struct Initiator : sc_module {
  std::vector<std::unique_ptr<FlashInitiatorSocketTagged<Initiator>>> sockets;
  FlashPayloadPool pool{"test initiator"};
  struct Item {
    Tick at;
    FlashCommand cmd;
    Tick delay = 0;  // the BEGIN_REQ's annotated delay
  };
  std::vector<Item> script;
  std::vector<FlashCommand> done;  // copies, in completion order
  std::vector<Tick> resp_times;
  bool accept_then_end = false;     // answer TLM_ACCEPTED, END_RESP after end_resp_delay
  sc_time end_resp_delay{1, SC_US};
  bool release = true;

  SC_HAS_PROCESS(Initiator);
  Initiator(sc_module_name n, unsigned channels) : sc_module(n) {
    for (unsigned c = 0; c < channels; ++c) {
      sockets.push_back(std::make_unique<FlashInitiatorSocketTagged<Initiator>>(
          ("s" + std::to_string(c)).c_str()));
      sockets.back()->register_nb_transport_bw(this, &Initiator::bw, static_cast<int>(c));
    }
    SC_THREAD(stimulus);
  }
  void stimulus() {
    for (Item& it : script) {
      const Tick now = sc_time_stamp().value();
      if (it.at > now) wait(sc_time::from_value(it.at - now));
      tlm::tlm_generic_payload* gp = pool.acquire();
      flash_cmd(*gp) = it.cmd;
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time d = sc_time::from_value(it.delay);
      tlm::tlm_sync_enum r = (*sockets[it.cmd.channel])->nb_transport_fw(*gp, ph, d);
      REQUIRE(r == tlm::TLM_UPDATED);
      REQUIRE(ph == tlm::END_REQ);
    }
  }
  std::vector<tlm::tlm_generic_payload*> pending_end;
  sc_event end_ev;
  void bw_end() {}
  tlm::tlm_sync_enum bw(int ch, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
    REQUIRE(ph == tlm::BEGIN_RESP);
    done.push_back(flash_cmd(gp));
    done.back().error = flash_cmd(gp).error;
    resp_times.push_back(sc_time_stamp().value());
    statuses.push_back(gp.get_response_status());
    if (accept_then_end) {
      REQUIRE(outstanding_resp == nullptr);  // response exclusion holds
      outstanding_resp = &gp;
      outstanding_ch = ch;
      sc_spawn([this] {
        wait(end_resp_delay);
        tlm::tlm_generic_payload* g = outstanding_resp;
        outstanding_resp = nullptr;
        tlm::tlm_phase p = tlm::END_RESP;
        sc_time d = SC_ZERO_TIME;
        (*sockets[outstanding_ch])->nb_transport_fw(*g, p, d);
        if (release) g->release();
      });
      return tlm::TLM_ACCEPTED;
    }
    if (release) gp.release();
    return tlm::TLM_COMPLETED;
  }
  std::vector<tlm::tlm_response_status> statuses;
  tlm::tlm_generic_payload* outstanding_resp = nullptr;
  int outstanding_ch = 0;

  void add(Tick at, FlashOp op, unsigned ch, unsigned chip, unsigned die, std::uint8_t mask,
           std::uint32_t block, std::uint32_t page) {
    Item it;
    it.at = at;
    it.cmd.op = op;
    it.cmd.channel = static_cast<std::uint16_t>(ch);
    it.cmd.chip = static_cast<std::uint16_t>(chip);
    it.cmd.die = static_cast<std::uint16_t>(die);
    it.cmd.plane_mask = mask;
    it.cmd.page = page;
    for (unsigned p = 0; p < kMaxPlanes; ++p) {
      it.cmd.block[p] = block;
      it.cmd.token[p] = 0xA000u + static_cast<Token>(script.size() * 8 + p);
    }
    it.cmd.id = script.size();
    script.push_back(it);
  }
};

struct Bench : sc_module {
  Initiator init;
  NandDevice nand;
  Bench(sc_module_name n, const NandConfig& cfg, VcdWriter* vcd = nullptr)
      : sc_module(n), init("init", cfg.channels), nand("nand", cfg, vcd) {
    for (unsigned c = 0; c < cfg.channels; ++c) init.sockets[c]->bind(nand.channel(c).socket);
  }
};

double us(Tick t) { return ticks_to_us(t); }
Approx at(double e) { return Approx(e).epsilon(0).margin(1e-5); }

}  // namespace

TEST_CASE("nand module: NandChannel over TLM gives the bus and array timeline of the equations", "[tlm][nand][channel]") {
  NandConfig cfg = small();
  Bench b("b", cfg);
  const double C = 7 / cfg.bus_mts, D = cfg.page_bytes / cfg.bus_mts;
  // Two chips of channel 0 program at 0; channel 1 programs at 0 too; reads later.
  b.init.add(0, FlashOp::Program, 0, 0, 0, 0b01, 1, 0);
  b.init.add(0, FlashOp::Program, 0, 1, 0, 0b01, 1, 0);
  b.init.add(0, FlashOp::Program, 1, 0, 0, 0b11, 1, 0);
  b.init.add(us_to_ticks(1000), FlashOp::Read, 0, 0, 0, 0b01, 1, 0);
  sc_start();
  REQUIRE(b.init.done.size() == 4);
  std::map<std::uint64_t, FlashCommand> by_id;
  for (const FlashCommand& c : b.init.done) by_id[c.id] = c;
  CHECK(us(by_id[0].t_done) == at(C + D + 200));
  CHECK(us(by_id[1].t_done) == at(2 * (C + D) + 200));      // waited for the bus
  CHECK(us(by_id[2].t_done) == at(2 * (C + D) + 200));      // other channel: two planes, no wait
  CHECK(us(by_id[3].t_done) == at(1000 + C + 20 + D));
  CHECK(by_id[3].token[0] == by_id[0].token[0]);             // the data came back
  // BEGIN_RESP arrives at the completion time.
  for (std::size_t i = 0; i < b.init.done.size(); ++i) CHECK(b.init.resp_times[i] == b.init.done[i].t_done);
  b.init.pool.check_all_returned();
  CHECK(b.init.pool.outstanding() == 0);
  CHECK(b.nand.activity().utilization(sc_time_stamp().value()) > 0);
}

TEST_CASE("nand module: completions at the same time on several channels are delivered in channel order", "[tlm][nand][device]") {
  NandConfig cfg = small();
  cfg.channels = 4;
  Bench b("b", cfg);
  // Identical erases, sent in the reverse channel order at the same time: they end in
  // the same picosecond, and the device runs its channels in index order.
  for (unsigned ch = 4; ch-- > 0;) b.init.add(0, FlashOp::Erase, ch, 0, 0, 0b01, 2, 0);
  sc_start();
  REQUIRE(b.init.done.size() == 4);
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(b.init.done[i].channel == i);
    CHECK(b.init.resp_times[i] == b.init.resp_times[0]);
  }
  b.init.pool.check_all_returned();
}

TEST_CASE("nand module: a BEGIN_REQ with an annotated delay starts its command after the delay", "[tlm][nand][channel]") {
  NandConfig cfg = small();
  Bench b("b", cfg);
  const double C = 7 / cfg.bus_mts, D = cfg.page_bytes / cfg.bus_mts;
  b.init.add(0, FlashOp::Program, 0, 0, 0, 0b01, 1, 0);
  b.init.script.back().delay = us_to_ticks(50);
  b.init.add(0, FlashOp::Program, 1, 0, 0, 0b01, 1, 0);  // no delay, other channel
  sc_start();
  REQUIRE(b.init.done.size() == 2);
  std::map<std::uint64_t, FlashCommand> by_id;
  for (const FlashCommand& c : b.init.done) by_id[c.id] = c;
  CHECK(us(by_id[0].t_start) == at(50));
  CHECK(us(by_id[0].t_done) == at(50 + C + D + 200));
  CHECK(us(by_id[1].t_done) == at(C + D + 200));
  b.init.pool.check_all_returned();
}

TEST_CASE("nand module: responses wait for END_RESP when the initiator answers TLM_ACCEPTED", "[tlm][nand]") {
  NandConfig cfg = small();
  Bench b("b", cfg);
  b.init.accept_then_end = true;
  b.init.end_resp_delay = sc_time(200, SC_US);
  // Two programs to two dies complete C + D apart; the second response must wait
  // for the END_RESP of the first, 200 us after it.
  b.init.add(0, FlashOp::Program, 0, 0, 0, 0b01, 0, 0);
  b.init.add(0, FlashOp::Program, 0, 0, 1, 0b01, 0, 0);
  sc_start();
  REQUIRE(b.init.done.size() == 2);
  const double C = 7 / cfg.bus_mts, D = cfg.page_bytes / cfg.bus_mts;
  CHECK(us(b.init.done[1].t_done) == at(2 * (C + D) + 200));
  // Completed at 2(C+D)+200 but delivered only at the END_RESP of the first, (C+D+200)+200.
  CHECK(us(b.init.resp_times[1]) == at(C + D + 200 + 200));
  b.init.pool.check_all_returned();
}

TEST_CASE("nand module: a payload that never comes back is reported by the pool", "[tlm][pool]") {
  NandConfig cfg = small();
  Bench b("b", cfg);
  b.init.release = false;  // leak them
  b.init.add(0, FlashOp::Program, 0, 0, 0, 0b01, 0, 0);
  sc_start();
  CHECK(b.init.pool.outstanding() == 1);
  CHECK_THROWS_WITH(b.init.pool.check_all_returned(), Catch::Contains("never released"));
}

TEST_CASE("nand module: a protocol error is an SC_REPORT_ERROR and an error response", "[tlm][nand][protocol]") {
  NandConfig cfg = small();
  Bench b("b", cfg);
  b.init.add(0, FlashOp::Read, 0, 0, 0, 0b01, 0, 0);  // erased page
  // The default action of an error throws out of sc_start.
  CHECK_THROWS_WITH(sc_start(), Catch::Contains("which is erased"));
}

TEST_CASE("nand module: with the error's action set to log only, the initiator sees TLM_GENERIC_ERROR_RESPONSE", "[tlm][nand][protocol]") {
  sc_report_handler::set_actions(NandChannel::kProtocolError, SC_DO_NOTHING);
  NandConfig cfg = small();
  Bench b("b", cfg);
  b.init.add(0, FlashOp::Program, 0, 0, 0, 0b01, 0, 3);  // out of order
  b.init.add(0, FlashOp::Program, 0, 0, 0, 0b01, 0, 0);
  sc_start();
  REQUIRE(b.init.statuses.size() == 2);
  CHECK(b.init.statuses[0] == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK_THAT(b.init.done[0].error, Catch::Contains("out of order"));
  CHECK(b.init.statuses[1] == tlm::TLM_OK_RESPONSE);
  CHECK(b.nand.totals().protocol_errors == 1);
}

TEST_CASE("nand module: the VCD records bus phases, owner chip, array state and registers at their times", "[trace][nand]") {
  NandConfig cfg = small();
  cfg.channels = 1;
  TraceOptions t;
  t.path = "trace_test.vcd";
  std::unique_ptr<VcdWriter> vcd = std::make_unique<VcdWriter>(t);
  Bench b("b", cfg, vcd.get());
  b.init.add(0, FlashOp::Program, 0, 1, 0, 0b10, 2, 0);
  sc_start();
  vcd->finish(sc_time_stamp().value());
  const test::Vcd v = test::read_vcd("trace_test.vcd");
  const std::string ch = "b.nand.ch0.";
  REQUIRE(v.has(ch + "bus_phase"));
  REQUIRE(v.has(ch + "chip1.die0.array"));
  REQUIRE(v.has(ch + "chip1.die0.plane1.data_reg"));
  const Tick C = cfg.bus_ticks(7), D = cfg.bus_ticks(cfg.page_bytes);
  const Tick P = us_to_ticks(200);
  // bus: cmd/addr (1) at 0, data-in (2) at C, idle (0) at C + D.
  std::vector<std::pair<Tick, std::string>> bus = {{0, "1"}, {C, "10"}, {C + D, "0"}};
  INFO("one value per variable and timestep (coalesced), starting with $dumpvars at 0");
  CHECK(v.changes(ch + "bus_phase") == bus);
  std::vector<std::pair<Tick, std::string>> owner = {{0, "1"}, {C + D, "11111111"}};
  CHECK(v.changes(ch + "bus_chip") == owner);
  // array: program (2) from C + D to C + D + tPROG.
  std::vector<std::pair<Tick, std::string>> arr = {{0, "0"}, {C + D, "10"}, {C + D + P, "0"}};
  CHECK(v.changes(ch + "chip1.die0.array") == arr);
  // data register of plane 1 holds program data (2) from the start to the end of tPROG.
  std::vector<std::pair<Tick, std::string>> reg = {{0, "10"}, {C + D + P, "0"}};
  CHECK(v.changes(ch + "chip1.die0.plane1.data_reg") == reg);
}
