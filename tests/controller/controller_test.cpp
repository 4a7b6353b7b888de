// The controller modules with a scripted host: NCQ back-pressure, partial-page
// writes, the write buffer, TRIM and FLUSH, address errors. One model per process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include <systemc>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/host_iface.h"
#include "controller/policies.h"
#include "nand/nand_device.h"
#include "tlm/illegal_phase.h"
#include "tlm/payload_pool.h"

using namespace ssd;
using namespace ssd::ctrl;
using namespace sc_core;

namespace {

struct Item {
  HostOp op;
  std::uint64_t lba;
  std::uint32_t sectors;
  std::vector<Token> tokens;  // write: one per page
  bool wait_previous;         // send only after everything before it completed
};

struct Done {
  HostOp op;
  std::uint64_t lba;
  std::vector<Token> tokens;
  Tick t_done;
  bool ok;
  tlm::tlm_response_status status;
};

// A test bench host: sends the items in order (a stimulus thread is fine in a bench).
struct ScriptedHost : sc_module {
  HostInitiatorSocket<ScriptedHost> socket;
  HostPayloadPool pool{"scripted host"};
  std::vector<Item> items;
  std::vector<Done> done;  // in completion order
  std::vector<std::size_t> order;  // item index per completion
  sc_event end_req, completed;
  unsigned outstanding = 0;
  SC_HAS_PROCESS(ScriptedHost);
  explicit ScriptedHost(sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_bw(this, &ScriptedHost::bw);
    SC_THREAD(run);
  }
  void run() {
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Item& it = items[i];
      while (it.wait_previous && outstanding) wait(completed);
      tlm::tlm_generic_payload* gp = pool.acquire();
      HostCommand& c = host_cmd(*gp);
      c.op = it.op;
      c.lba = it.lba;
      c.sectors = it.sectors;
      c.tokens = it.tokens;
      c.id = i;
      ++outstanding;
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time d = SC_ZERO_TIME;
      if (socket->nb_transport_fw(*gp, ph, d) == tlm::TLM_ACCEPTED) wait(end_req);
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
    if (ph == tlm::END_REQ) {
      end_req.notify();
      return tlm::TLM_ACCEPTED;
    }
    HostCommand& c = host_cmd(gp);
    done.push_back({c.op, c.lba, c.tokens, sc_time_stamp().value(), gp.is_response_ok(), gp.get_response_status()});
    order.push_back(c.id);
    --outstanding;
    completed.notify();
    gp.release();
    return tlm::TLM_COMPLETED;
  }
};

struct Bench : sc_module {
  ScriptedHost host;
  HostIface iface;
  FirmwareCore fw;
  nand::NandDevice nand;  // before the scheduler, which is built from it
  FlashSched sched;
  static FtlConfig ftl_cfg() {
    FtlConfig f;
    f.nand.channels = 2;
    f.nand.chips_per_channel = 2;
    f.nand.dies_per_chip = 1;
    f.nand.planes_per_die = 2;
    f.nand.blocks_per_plane = 32;
    f.nand.pages_per_block = 32;
    f.nand.page_bytes = 8192;  // 16 sectors per page
    f.nand.bus_mts = 100;
    f.nand.t_read_us = 50;
    f.nand.t_prog_us = 500;
    f.nand.t_erase_us = 2000;
    f.overprovisioning = 0.2;
    f.gc_threshold = 0.1;
    return f;
  }
  // The timelines here are the NAND's and the protocol's: the firmware's work is free.
  // `batch_depth`: the firmware's batching into n-plane commands (FirmwareConfig).
  static FirmwareConfig free_firmware(std::uint32_t batch_depth = FirmwareConfig{}.batch_depth) {
    FirmwareConfig fw;
    fw.cycles_per_command = fw.cycles_per_page = fw.cycles_per_gc_page = 0;
    fw.batch_depth = batch_depth;
    return fw;
  }
  // `release`: the firmware's release policy (null: in order).
  Bench(sc_module_name n, unsigned ncq, std::uint32_t batch_depth = FirmwareConfig{}.batch_depth,
        std::unique_ptr<FirmwareScheduler> release = nullptr)
      : sc_module(n), host("host"), iface("hif", ncq, 0),
        fw("fw", ftl_cfg(), free_firmware(batch_depth), nullptr, std::move(release)), nand("nand", ftl_cfg().nand),
        sched("sched", SchedConfig{}, ftl_cfg().nand, make_sched_policy("hos", ftl_cfg().nand, false, true)) {
    host.socket.bind(iface.host);
    iface.firmware.bind(fw.host);
    fw.flash.bind(sched.target);
    sched.attach(nand);
  }
  const Done& find(std::size_t item) const {
    for (std::size_t i = 0; i < host.order.size(); ++i)
      if (host.order[i] == item) return host.done[i];
    FAIL("item " << item << " never completed");
    return host.done.front();
  }
};

constexpr Token A = 0xA1, B = 0xB2, C = 0xC3, D = 0xD4, E = 0xE5;

}  // namespace

TEST_CASE("controller: with 2 NCQ tags, END_REQ is withheld until a tag frees and nothing is dropped", "[controller][ncq]") {
  Bench b("b", 2);
  for (unsigned i = 0; i < 8; ++i) b.host.items.push_back({HostOp::Write, i * 16ull, 16, {Token(0x100 + i)}, false});
  sc_start();
  REQUIRE(b.host.done.size() == 8);
  for (const Done& d : b.host.done) CHECK(d.ok);
  CHECK(b.iface.max_tags_in_use() == 2);
  CHECK(b.iface.backpressure_events() >= 1);
  b.host.pool.check_all_returned();
  b.fw.pool().check_all_returned();
}

TEST_CASE("controller: partial-page writes merge with the old page, from flash or from the write buffer", "[controller][rmw]") {
  Bench b("b", 32);
  auto& it = b.host.items;
  it.push_back({HostOp::Write, 0, 8, {A}, true});    // 0: first half of page 0 (never written)
  it.push_back({HostOp::Write, 8, 8, {B}, true});    // 1: second half: old page read from flash
  it.push_back({HostOp::Read, 0, 16, {}, true});     // 2
  it.push_back({HostOp::Write, 16, 8, {C}, true});   // 3: page 1, first half
  it.push_back({HostOp::Write, 24, 8, {D}, false});  // 4: second half while 3 is in flight
  it.push_back({HostOp::Read, 16, 16, {}, true});    // 5
  sc_start();
  REQUIRE(b.host.done.size() == 6);
  const Token page0 = merge_tokens(merge_tokens(kUnwrittenToken, A), B);
  const Token page1 = merge_tokens(merge_tokens(kUnwrittenToken, C), D);
  CHECK(b.find(2).tokens == std::vector<Token>{page0});
  CHECK(b.find(5).tokens == std::vector<Token>{page1});
  CHECK(b.fw.counters().rmw_reads == 1);  // only item 1 read its old page from flash
}

TEST_CASE("controller: a read of a page with a write in flight is served from the write buffer", "[controller][buffer]") {
  Bench b("b", 32);
  b.host.items.push_back({HostOp::Write, 5 * 16, 16, {E}, true});
  b.host.items.push_back({HostOp::Read, 5 * 16, 16, {}, false});
  sc_start();
  REQUIRE(b.host.done.size() == 2);
  CHECK(b.find(1).tokens == std::vector<Token>{E});
  CHECK(b.find(1).t_done < b.find(0).t_done);  // did not wait for the program
  CHECK(b.fw.counters().flash_reads == 0);
  CHECK(b.fw.counters().buffer_hits == 1);
}

TEST_CASE("controller: TRIM unmaps the whole pages it covers and FLUSH completes", "[controller][trim]") {
  Bench b("b", 32);
  auto& it = b.host.items;
  it.push_back({HostOp::Write, 0, 64, {A, B, C, D}, true});  // pages 0..3
  it.push_back({HostOp::Trim, 8, 48, {}, true});             // covers pages 1, 2; parts of 0 and 3
  it.push_back({HostOp::Read, 0, 64, {}, true});
  it.push_back({HostOp::Flush, 0, 0, {}, true});
  sc_start();
  REQUIRE(b.host.done.size() == 4);
  CHECK(b.find(2).tokens == std::vector<Token>{A, kUnwrittenToken, kUnwrittenToken, D});
  CHECK(b.fw.counters().unwritten_reads == 2);
  CHECK(b.find(3).ok);
}

TEST_CASE("controller: a FLUSH completes when every write before it is on flash, not waiting for later ones",
          "[controller][flush]") {
  Bench b("b", 32);
  auto& it = b.host.items;
  it.push_back({HostOp::Flush, 0, 0, {}, false});            // 0: nothing in flight: at once
  it.push_back({HostOp::Write, 0, 16, {A}, false});          // 1
  it.push_back({HostOp::Write, 7 * 16, 32, {B, C}, false});  // 2
  it.push_back({HostOp::Flush, 0, 0, {}, false});            // 3: waits for 1 and 2
  it.push_back({HostOp::Write, 0, 16, {D}, false});          // 4: after the flush, to 1's plane
  it.push_back({HostOp::Flush, 0, 0, {}, false});            // 5: waits for 1, 2 and 4
  sc_start();
  REQUIRE(b.host.done.size() == 6);
  CHECK(b.find(0).t_done == 0);
  const Tick writes_before = std::max(b.find(1).t_done, b.find(2).t_done);
  CHECK(b.find(3).t_done == writes_before);  // as soon as the last of them is on flash
  CHECK(b.find(4).t_done > writes_before);   // (so 3 did not wait for the write after it)
  CHECK(b.find(5).t_done == std::max(writes_before, b.find(4).t_done));
  CHECK(b.fw.counters().host_flushes == 3);
  CHECK(b.fw.counters().flushes_waited == 2);
  for (const Done& d : b.host.done) CHECK(d.ok);
}

namespace {
// A firmware scheduling policy that holds a host read until the next read comes and
// sends the two as one two-plane read when they can be (else each alone).
struct PairReads final : ctrl::FirmwareScheduler {
  FwCommand* held = nullptr;
  Tick held_ready = 0;
  unsigned refused = 0;
  void submit(FwCommand& c, Tick ready, ctrl::FlashOutlet& out) override {
    if (c.cmd->origin != FlashOrigin::HostRead) return out.release(c, ready);
    if (!held) {
      held = &c;
      held_ready = ready;
      return;
    }
    FwCommand* both[2] = {held, &c};
    if (!out.release_together(both, 2, std::max(ready, held_ready))) {
      ++refused;
      out.release(*held, held_ready);
      out.release(c, ready);
    }
    held = nullptr;
  }
};

struct PairRun {
  std::vector<Tick> done;  // per item
  std::vector<std::vector<Token>> tokens;
  nand::ChannelCounters nand;
  std::uint64_t combined = 0;
  unsigned refused = 0;
};

// Writes logical pages 0 and 4 (with CWDP on 2 x 2 x 1 x 2 planes: planes 0 and 1 of
// ch0.chip0.die0, both at page 0 of their plane's first open block), then reads both at
// once, and page 1's plane (another channel) with page 0. Without the firmware's own
// batching unless `batch_depth` says.
PairRun pair_run(bool pair, const std::vector<std::uint64_t>& reads, std::uint32_t batch_depth = 0) {
  auto policy = std::make_unique<PairReads>();
  PairReads* p = policy.get();
  Bench b("b", 32, batch_depth, pair ? std::move(policy) : nullptr);
  b.host.items.push_back({HostOp::Write, 0, 16, {A}, false});
  b.host.items.push_back({HostOp::Write, 4 * 16, 16, {B}, false});
  b.host.items.push_back({HostOp::Write, 1 * 16, 16, {C}, false});
  for (std::size_t i = 0; i < reads.size(); ++i) b.host.items.push_back({HostOp::Read, reads[i] * 16, 16, {}, i == 0});
  sc_start();
  PairRun r;
  for (std::size_t i = 0; i < b.host.items.size(); ++i) {
    r.done.push_back(b.find(i).t_done);
    r.tokens.push_back(b.find(i).tokens);
  }
  r.nand = b.nand.totals();
  r.combined = b.fw.counters().combined_commands;
  r.refused = pair ? p->refused : 0;
  b.host.pool.check_all_returned();
  b.fw.pool().check_all_returned();
  return r;
}
}  // namespace

// From the reads' start (the writes done: the reads reach the block then), a two-plane
// read takes its command cycles, tR (50 us) once, and both pages out (8 KiB at 100 MT/s:
// 81.92 us each): 213.84 us and a few bus cycles. One read after the other on one die
// takes tR and a page out each: at least 263.84 us.
constexpr double kPairUs = 50 + 2 * 81.92, kAloneUs = 2 * (50 + 81.92);

double reads_took_us(const PairRun& r) {
  const Tick start = std::max({r.done[0], r.done[1], r.done[2]});
  return ticks_to_us(std::max(r.done[3], r.done[4]) - start);
}

TEST_CASE("controller: two reads released together run as one two-plane read, each page completed alone",
          "[controller][firmware_sched][multiplane]") {
  const PairRun r = pair_run(true, {0, 4});
  CHECK(r.tokens[3] == std::vector<Token>{A});
  CHECK(r.tokens[4] == std::vector<Token>{B});
  CHECK(r.combined == 1);
  CHECK(r.refused == 0);
  CHECK(r.nand.reads == 1);  // one NAND command, two pages
  CHECK(r.nand.pages(FlashOp::Read) == 2);
  CHECK(r.done[3] == r.done[4]);  // each page ends with the command
  CHECK(reads_took_us(r) >= kPairUs);
  CHECK(reads_took_us(r) < kPairUs + 1);
}

TEST_CASE("controller: the same two reads released in order run one after the other",
          "[controller][firmware_sched][multiplane]") {
  const PairRun r = pair_run(false, {0, 4});
  CHECK(r.tokens[3] == std::vector<Token>{A});
  CHECK(r.tokens[4] == std::vector<Token>{B});
  CHECK(r.combined == 0);
  CHECK(r.nand.reads == 2);
  CHECK(reads_took_us(r) >= kAloneUs);
}

TEST_CASE("controller: the firmware's batching sends the two reads of one instant as one two-plane read",
          "[controller][batching][multiplane]") {
  // Released in order, the two reads reach the batching at one instant, on the two
  // planes of one die at one offset: one command, as release_together made it above. The
  // two writes before them went as one two-plane program too.
  const PairRun r = pair_run(false, {0, 4}, 2);
  CHECK(r.tokens[3] == std::vector<Token>{A});
  CHECK(r.tokens[4] == std::vector<Token>{B});
  CHECK(r.combined == 2);
  CHECK(r.nand.reads == 1);
  CHECK(r.nand.pages(FlashOp::Read) == 2);
  CHECK(r.done[3] == r.done[4]);
  CHECK(reads_took_us(r) >= kPairUs);
  CHECK(reads_took_us(r) < kPairUs + 1);
}

TEST_CASE("controller: reads of two channels cannot be released together: each goes alone",
          "[controller][firmware_sched][multiplane]") {
  const PairRun r = pair_run(true, {0, 1});
  CHECK(r.combined == 0);
  CHECK(r.refused == 1);
  CHECK(r.tokens[3] == std::vector<Token>{A});
  CHECK(r.tokens[4] == std::vector<Token>{C});
  CHECK(r.nand.reads == 2);
}

TEST_CASE("controller: an access past the logical capacity gets an address error", "[controller][errors]") {
  Bench b("b", 32);
  const std::uint64_t sectors = b.fw.ftl().logical_pages() * 16;
  b.host.items.push_back({HostOp::Read, sectors - 8, 16, {}, true});
  sc_start();
  REQUIRE(b.host.done.size() == 1);
  CHECK(b.host.done[0].status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_CASE("controller: a phase a hop does not take is reported, naming the hop, never ignored", "[controller][protocol]") {
  // Each hop's callback is called through the socket bound to it with a base-protocol
  // phase that is not that hop's. The reports are captured (no exception thrown through
  // the test); each names its hop and the phase.
  static std::vector<std::string> reports;
  sc_report_handler::set_handler([](const sc_report& r, const sc_actions&) {
    if (std::string(r.get_msg_type()) == kIllegalPhase) reports.push_back(r.get_msg());
  });
  Bench b("b", 32);
  sc_start(SC_ZERO_TIME);  // elaborated
  HostPayloadPool hp("probe host");
  FlashPayloadPool fp("probe flash");
  tlm::tlm_generic_payload* h = hp.acquire();
  tlm::tlm_generic_payload* f = fp.acquire();
  sc_time d = SC_ZERO_TIME;
  tlm::tlm_phase p1 = tlm::BEGIN_RESP, p2 = tlm::END_REQ, p3 = tlm::BEGIN_RESP;
  tlm::tlm_phase p4 = tlm::END_RESP, p5 = tlm::END_RESP, p6 = tlm::BEGIN_REQ;
  CHECK(b.host.socket->nb_transport_fw(*h, p1, d) == tlm::TLM_COMPLETED);   // into the host interface
  CHECK(b.iface.firmware->nb_transport_fw(*h, p2, d) == tlm::TLM_COMPLETED);  // into the firmware
  CHECK(b.fw.flash->nb_transport_fw(*f, p3, d) == tlm::TLM_COMPLETED);      // into the scheduler block
  CHECK(b.fw.host->nb_transport_bw(*h, p4, d) == tlm::TLM_COMPLETED);       // back into the host interface
  CHECK(b.sched.target->nb_transport_bw(*f, p5, d) == tlm::TLM_COMPLETED);  // back into the firmware
  CHECK(b.nand.channel(0).socket->nb_transport_bw(*f, p6, d) == tlm::TLM_COMPLETED);  // back into the block
  REQUIRE(reports.size() == 6);
  CHECK(reports[0] == "host interface, from the host: illegal phase BEGIN_RESP");
  CHECK(reports[1] == "firmware, from the host interface: illegal phase END_REQ");
  CHECK(reports[2] == "scheduler block, from the firmware: illegal phase BEGIN_RESP");
  CHECK(reports[3] == "host interface, from the firmware: illegal phase END_RESP");
  CHECK(reports[4] == "firmware, from the scheduler block: illegal phase END_RESP");
  CHECK(reports[5] == "scheduler block, from a NAND channel: illegal phase BEGIN_REQ");
  h->release();
  f->release();
}


TEST_CASE("controller: a delay annotated on a call into the firmware or the block is reported, never dropped",
          "[controller][protocol]") {
  // The firmware takes a completion at the time of the call; a delay sent with one would
  // be lost, so it is an error naming the hop. (The probe payload is no command of the
  // firmware's, which it reports too.)
  static std::vector<std::string> reports;
  sc_report_handler::set_handler([](const sc_report& r, const sc_actions&) { reports.push_back(r.get_msg()); });
  Bench b("b", 32);
  sc_start(SC_ZERO_TIME);  // elaborated
  FlashPayloadPool fp("probe flash");
  tlm::tlm_generic_payload* f = fp.acquire();
  sc_time d(3, SC_NS);
  tlm::tlm_phase ph = tlm::BEGIN_RESP;
  b.sched.target->nb_transport_bw(*f, ph, d);
  REQUIRE(reports.size() == 2);
  CHECK(reports[0] == "firmware, from the scheduler block: an annotated delay of 3 ns (this hop takes transactions "
                      "at the time of the call)");
  CHECK(reports[1].rfind("a completion of a command it did not issue", 0) == 0);
  // On an END_RESP (to the block, which holds no response for it): the same.
  tlm::tlm_phase end = tlm::END_RESP;
  sc_time d2(2, SC_NS);
  b.fw.flash->nb_transport_fw(*f, end, d2);
  REQUIRE(reports.size() == 3);
  CHECK(reports[2] == "scheduler block, from the firmware: an annotated delay of 2 ns (this hop takes transactions "
                      "at the time of the call)");
  f->release();
}


// The firmware's policy seams with today's behaviour, without the kernel.
namespace {
struct RecordingOutlet final : ctrl::FlashOutlet {
  Tick t = 1000;
  std::vector<std::pair<std::uint64_t, Tick>> released;
  std::uint64_t charged = 0;
  Tick now() const override { return t; }
  void release(FwCommand& c, Tick at) override { released.emplace_back(c.cmd->id, at); }
  void hold(FwCommand&, Tick) override { FAIL("in-order release holds nothing"); }
  std::size_t take_out(FwCommand&) override { return 0; }
  void put_back(FwCommand&, std::size_t) override {}
  Tick charge(std::uint64_t cycles) override {
    charged += cycles;
    return t;
  }
  struct NoView final : ctrl::FirmwareView {  // in-order release looks at nothing
    std::uint32_t chips() const override { return 0; }
    std::uint32_t planes() const override { return 0; }
    std::uint32_t held_by_block(std::uint32_t) const override { return 0; }
    std::uint32_t unbound_programs(std::uint32_t) const override { return 0; }
    std::uint32_t plane_of(const FwCommand&) const override { return 0; }
    std::uint32_t chip_of(const FwCommand&) const override { return 0; }
    bool superseded(const FwCommand&) const override { return false; }
    std::uint32_t held(std::uint32_t) const override { return 0; }
    std::uint32_t held_programs(std::uint32_t) const override { return 0; }
    FwCommand* first_held(std::uint32_t) const override { return nullptr; }
    FwCommand* last_held(std::uint32_t) const override { return nullptr; }
    FwCommand* next_held(const FwCommand&) const override { return nullptr; }
    FwCommand* prev_held(const FwCommand&) const override { return nullptr; }
    bool in_queue(const FwCommand&) const override { return false; }
  } no_view;
  const ctrl::FirmwareView& view() const override { return no_view; }
  bool retarget(FwCommand&, std::uint32_t) override { return false; }
  bool cancel(FwCommand&) override { return false; }
  bool release_together(FwCommand* const*, unsigned, Tick) override { return false; }
};
struct FakeView final : ctrl::AllocationView {
  explicit FakeView(const nand::NandConfig& n) : n_(n), forecast_(n) {}
  const nand::NandConfig& nand() const override { return n_; }
  std::uint32_t planes() const override { return 8; }
  std::uint32_t chip_of_plane(std::uint32_t p) const override { return p / 2; }
  std::uint32_t free_blocks(std::uint32_t p) const override { return 10 + p; }
  std::uint32_t commands_outstanding(std::uint32_t chip) const override { return chip; }
  std::uint32_t unbound_programs(std::uint32_t) const override { return 0; }
  const ctrl::BusyForecast& forecast() const override { return forecast_; }
  Tick now() const override { return 0; }
  bool can_place(std::uint32_t) const override { return true; }
  std::uint32_t next_offset(std::uint32_t p) const override { return p; }
  DieLoad die_load(std::uint32_t die) const override { return {die, die, 0}; }
  nand::NandConfig n_;
  ctrl::BusyForecast forecast_;
};
}  // namespace

TEST_CASE("firmware scheduling: in order, each command goes on at its ready time, uncharged",
          "[controller][firmware_sched]") {
  ctrl::InOrderRelease policy;
  RecordingOutlet out;
  FlashCommand fa, fb, fc;
  fa.id = 1;
  fb.id = 2;
  fc.id = 3;
  FwCommand a, b, c;
  a.cmd = &fa;
  b.cmd = &fb;
  c.cmd = &fc;
  policy.submit(a, 1000, out);
  policy.submit(b, 5000, out);
  policy.completed(a, out);  // nothing held: nothing more goes on
  policy.submit(c, 1200, out);
  REQUIRE(out.released == std::vector<std::pair<std::uint64_t, Tick>>{{1, 1000}, {2, 5000}, {3, 1200}});
  CHECK(out.charged == 0);
}

TEST_CASE("write allocation: the static orders ignore the device's state", "[controller][allocation]") {
  nand::NandConfig n;
  n.channels = 2;
  n.chips_per_channel = 2;
  n.dies_per_chip = 1;
  n.planes_per_die = 2;
  // Plane index = ((channel * chips + chip) * dies + die) * planes + plane.
  ctrl::StaticAllocator cwdp(n, "CWDP"), pdwc(n, "PDWC");
  FakeView view(n);
  const std::uint32_t want_cwdp[8] = {0, 4, 2, 6, 1, 5, 3, 7};  // channel fastest, then chip, then plane
  const std::uint32_t want_pdwc[8] = {0, 1, 2, 3, 4, 5, 6, 7};  // plane fastest: the plane index itself
  for (std::uint64_t lpn = 0; lpn < 16; ++lpn) {
    CHECK(cwdp.plane_for(lpn, view) == want_cwdp[lpn % 8]);
    CHECK(pdwc.plane_for(lpn, view) == want_pdwc[lpn % 8]);
  }
  unsigned order[4];
  CHECK(ctrl::StaticAllocator::parse_order("WCPD", order));
  CHECK(order[0] == 1);
  CHECK(order[3] == 2);
  CHECK_FALSE(ctrl::StaticAllocator::parse_order("CWDD", order));
  CHECK_FALSE(ctrl::StaticAllocator::parse_order("CWD", order));
}
