// Park et al.'s request rescheduling through the scheduler block and a NAND channel:
// Fig. 3(b)'s reads pipelining through the cache register once the write moves after
// them, and Fig. 3(a)'s two reads merged into one two-plane read whose pages complete one
// by one, each with its data. Times computed by hand from the timing equations
// (docs/nand-timing.md). One model per process.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include <systemc>

#include "controller/flash_sched.h"
#include "controller/policies.h"
#include "nand/nand_device.h"
#include "tlm/payload_pool.h"

using namespace ssd;
using namespace ssd::ctrl;
using namespace sc_core;

namespace {

constexpr Tick ns = kTicksPerNs;

struct Send {
  FlashOp op;
  unsigned die, plane;
  std::uint32_t block, page;
  FlashOrigin origin = FlashOrigin::None;
};

// Plays the firmware: sends every command at time 0, in order, and notes each completion.
struct ScriptedFirmware : sc_module {
  FlashInitiatorSocket<ScriptedFirmware> socket;
  FlashPayloadPool pool{"scripted firmware"};
  std::vector<Send> sends;
  std::map<std::uint64_t, Tick> done, started;
  std::map<std::uint64_t, Token> data;
  std::map<std::uint64_t, unsigned> planes;  // each command's plane mask at its end
  SC_HAS_PROCESS(ScriptedFirmware);
  explicit ScriptedFirmware(sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_bw(this, &ScriptedFirmware::bw);
    SC_THREAD(run);
  }
  void run() {
    for (std::size_t i = 0; i < sends.size(); ++i) {
      const Send& s = sends[i];
      tlm::tlm_generic_payload* gp = pool.acquire();
      FlashCommand& c = flash_cmd(*gp);
      c.op = s.op;
      c.channel = 0;
      c.chip = 0;
      c.die = static_cast<std::uint16_t>(s.die);
      c.plane_mask = static_cast<std::uint8_t>(1u << s.plane);
      c.block[s.plane] = s.block;
      c.page = s.page;
      c.token[s.plane] = 0x500 + i;
      c.id = i + 1;
      c.origin = s.origin;
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time d = SC_ZERO_TIME;
      socket->nb_transport_fw(*gp, ph, d);
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
    if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    FlashCommand& c = flash_cmd(gp);
    REQUIRE(c.status == FlashStatus::Ok);
    done[c.id] = sc_time_stamp().value();
    started[c.id] = c.t_start;
    data[c.id] = c.token[c.first_plane()];
    planes[c.id] = c.plane_mask;
    gp.release();
    return tlm::TLM_COMPLETED;
  }
};

nand::NandConfig device(unsigned dies, unsigned planes) {
  nand::NandConfig n;
  n.channels = 1;
  n.chips_per_channel = 1;
  n.dies_per_chip = dies;
  n.planes_per_die = planes;
  n.blocks_per_plane = 4;
  n.pages_per_block = 8;
  n.page_bytes = 4096;
  n.bus_mts = 100;  // 10 ns a cycle: a read's command and address 70 ns, a page 40.96 us
  n.t_read_us = 50;
  n.t_prog_us = 500;
  n.t_erase_us = 1000;
  n.cache_read = true;
  n.cache_program = false;
  n.multiplane = planes > 1;
  return n;
}

struct Bench : sc_module {
  ScriptedFirmware fw;
  nand::NandDevice nand;
  FlashSched sched;
  static SchedConfig sched_config(const char* reschedule) {
    SchedConfig s;
    s.reschedule = parse_reschedule(reschedule, 8);
    return s;
  }
  static std::unique_ptr<SchedPolicy> policy(const char* reschedule, const nand::NandConfig& n) {
    return make_sched_policy("hos", n, false, true, parse_reschedule(reschedule, 8));
  }
  Bench(sc_module_name n, const char* reschedule, unsigned dies, unsigned planes)
      : sc_module(n), fw("fw"), nand("nand", device(dies, planes)), sched("sched", sched_config(reschedule), nand.config(), policy(reschedule, nand.config())) {
    fw.socket.bind(sched.target);
    sched.attach(nand);
    for (unsigned die = 0; die < dies; ++die)
      for (unsigned plane = 0; plane < planes; ++plane)
        for (std::uint32_t pg = 0; pg < 4; ++pg)
          nand.engine(0).backdoor_program(0, die, plane, 0, pg, 0x100 * (plane + 1) + pg);
  }
};

// Park Fig. 3(b): R1, R2 (a write), R3, R4, all to plane 0 of die 1.
const std::vector<Send> kFig3b = {{FlashOp::Read, 1, 0, 0, 0},
                                  {FlashOp::Program, 1, 0, 1, 0},
                                  {FlashOp::Read, 1, 0, 0, 1},
                                  {FlashOp::Read, 1, 0, 0, 2}};
constexpr Tick C = 70 * ns, D = 40960 * ns, tR = 50000 * ns, tPROG = 500000 * ns, W = 40960 * ns + 70 * ns;

}  // namespace

TEST_CASE("reschedule (NAND): Park Fig. 3(b) with pipeline rescheduling, the reads go first, the write last",
          "[controller][reschedule]") {
  Bench b("bench", "pipeline", 2, 1);
  b.fw.sends = kFig3b;
  sc_start();
  REQUIRE(b.fw.done.size() == 4);
  // R1, R3, R4, then R2. The block sends a die's next read when the die takes one: when
  // the previous read's tR has ended and its page moved to the cache register; that
  // page's data-out has then taken the bus (it became ready first), so the next read's
  // command follows it and nothing overlaps on one die: each read C + tR + D. (With the
  // reads queued in the channel together, the cache read overlaps them:
  // docs/nand-timing.md; docs/scheduler.md, Rescheduling, says why the block cannot.)
  const Tick read = C + tR + D;
  CHECK(b.fw.done[1] == read);
  CHECK(b.fw.done[3] == 2 * read);
  CHECK(b.fw.done[4] == 3 * read);
  CHECK(b.fw.done[2] == 3 * read + W + tPROG);
  CHECK(b.fw.data[1] == 0x100);
  CHECK(b.fw.data[3] == 0x101);
  CHECK(b.fw.data[4] == 0x102);
  const RescheduleCounters& rc = *b.sched.policy().reschedule_counters();
  CHECK(rc.switches_avoided == 2);
  CHECK(rc.type_switches == 1);
}

TEST_CASE("reschedule (NAND): Park Fig. 3(b) without rescheduling, in arrival order", "[controller][reschedule]") {
  Bench b("bench", "none", 2, 1);
  b.fw.sends = kFig3b;
  sc_start();
  REQUIRE(b.fw.done.size() == 4);
  const Tick read = C + tR + D;
  CHECK(b.fw.done[1] == read);
  CHECK(b.fw.done[2] == read + W + tPROG);
  CHECK(b.fw.done[3] == 2 * read + W + tPROG);
  CHECK(b.fw.done[4] == 3 * read + W + tPROG);
}

TEST_CASE("reschedule (NAND): Fig. 3(b) for writes, the read moves after the programs, whose data-in overlaps tPROG",
          "[controller][reschedule][cache]") {
  // P1, R, P2, P3 to plane 0 of die 0, cache program on. With pipeline rescheduling P2
  // and P3 go before R: P2's data-in runs during P1's tPROG (the cache register), P3's
  // during P2's; R goes when the programs are done.
  nand::NandConfig n = device(1, 1);
  n.cache_program = true;
  struct CacheBench : sc_module {
    ScriptedFirmware fw;
    nand::NandDevice nand;
    FlashSched sched;
    CacheBench(sc_module_name m, const nand::NandConfig& cfg)
        : sc_module(m), fw("fw"), nand("nand", cfg), sched("sched", Bench::sched_config("pipeline"), nand.config(), Bench::policy("pipeline", nand.config())) {
      fw.socket.bind(sched.target);
      sched.attach(nand);
      nand.engine(0).backdoor_program(0, 0, 0, 0, 0, 0x100);
    }
  } b("bench", n);
  b.fw.sends = {{FlashOp::Program, 0, 0, 1, 0},
                {FlashOp::Read, 0, 0, 0, 0},
                {FlashOp::Program, 0, 0, 1, 1},
                {FlashOp::Program, 0, 0, 1, 2}};
  sc_start();
  REQUIRE(b.fw.done.size() == 4);
  CHECK(b.fw.done[1] == W + tPROG);
  CHECK(b.fw.done[3] == W + 2 * tPROG);  // its data-in during P1's tPROG
  CHECK(b.fw.done[4] == W + 3 * tPROG);  // its data-in during P2's tPROG
  CHECK(b.fw.done[2] == W + 3 * tPROG + C + tR + D);
  CHECK(b.fw.data[2] == 0x100);
  // In arrival order R would end at W + tPROG + C + tR + D, and P3 at
  // (W + tPROG + C + tR + D) + W + 2 tPROG: the programs' pipeline broken by the read.
}

TEST_CASE("reschedule (NAND): Park Fig. 3(a), R1 and R4 run as one two-plane read, each page its own",
          "[controller][reschedule]") {
  Bench b("bench", "multiplane", 1, 2);
  // R1 (plane 0, page 1), R2 (a write to plane 1), R3 (plane 0, page 2), R4 (plane 1, page 1).
  // R4 is GC's read: the NAND counts its page as GC's inside the two-plane read the head
  // R1 (the host's) carries.
  b.fw.sends = {{FlashOp::Read, 0, 0, 0, 1, FlashOrigin::HostRead},
                {FlashOp::Program, 0, 1, 1, 0, FlashOrigin::HostProgram},
                {FlashOp::Read, 0, 0, 0, 2, FlashOrigin::HostRead},
                {FlashOp::Read, 0, 1, 0, 1, FlashOrigin::GcRead}};
  sc_start();
  REQUIRE(b.fw.done.size() == 4);
  const nand::ChannelCounters t = b.nand.totals();
  CHECK(t.pages_by_planes[0][0] == 1);  // R3
  CHECK(t.pages_by_planes[0][1] == 2);  // R1 and R4
  CHECK(t.gc_pages[0] == 1);
  CHECK(t.gc_multiplane_pages[0] == 1);
  CHECK(t.pages_by_planes[1][0] == 1);  // R2
  CHECK(t.gc_pages[1] == 0);
  // One two-plane read: its command (2 C: a command per plane), one tR, then both pages
  // out, plane 0's first.
  // The NAND completes the n-plane read when its last page is out: both parts then.
  const Tick array_end = 2 * C + tR;
  CHECK(b.fw.done[1] == array_end + 2 * D);
  CHECK(b.fw.done[4] == array_end + 2 * D);
  CHECK(b.fw.started[1] == b.fw.started[4]);
  CHECK(b.fw.data[1] == 0x101);  // plane 0, page 1
  CHECK(b.fw.data[4] == 0x201);  // plane 1, page 1
  // Each completes as the single-page command it was.
  CHECK(b.fw.planes[1] == 1);
  CHECK(b.fw.planes[4] == 2);
  const RescheduleCounters& rc = *b.sched.policy().reschedule_counters();
  CHECK(rc.merged_commands == 1);
  CHECK(b.sched.issued() == 3);  // the merged read, R2, R3
}
