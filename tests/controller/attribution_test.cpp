// The latency attribution's flash path (tlm/latency_parts.h) through the scheduler block
// and a NAND channel, against times computed by hand from the timing equations: a read
// that waits in the block behind a GC erase and then another host read on its chip, then
// at the channel for the bus; a read on an idle chip that waits in the block while another
// chip holds the bus; and the block holding back a program that could not start when the
// bus frees, so that it blocks no other chip. One model per process.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include <systemc>

#include "controller/flash_sched.h"
#include "controller/policies.h"
#include "host/latency_attribution.h"
#include "nand/nand_device.h"
#include "tlm/latency_parts.h"
#include "tlm/payload_pool.h"

using namespace ssd;
using namespace ssd::ctrl;
using namespace sc_core;

namespace {

constexpr Tick ns = kTicksPerNs;

struct Send {
  Tick at;
  FlashOp op;
  FlashOrigin origin;
  unsigned chip;
  std::uint32_t block, page;
  unsigned plane = 0;
};

// Plays the firmware: sends each command at its time, and takes each command's parts from
// its sending to its completion (the firmware's flash path, flash_path_parts).
struct ScriptedFirmware : sc_module {
  FlashInitiatorSocket<ScriptedFirmware> socket;
  FlashPayloadPool pool{"scripted firmware"};
  std::vector<Send> sends;
  std::map<std::uint64_t, PartTicks> parts;  // by command id
  std::map<std::uint64_t, Tick> sent, done;
  SC_HAS_PROCESS(ScriptedFirmware);
  explicit ScriptedFirmware(sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_bw(this, &ScriptedFirmware::bw);
    SC_THREAD(run);
  }
  void run() {
    for (std::size_t i = 0; i < sends.size(); ++i) {
      const Send& s = sends[i];
      const Tick now = sc_time_stamp().value();
      if (s.at > now) wait(sc_time(static_cast<double>(s.at - now), SC_PS));
      tlm::tlm_generic_payload* gp = pool.acquire();
      FlashCommand& c = flash_cmd(*gp);
      c.op = s.op;
      c.origin = s.origin;
      c.channel = 0;
      c.chip = static_cast<std::uint16_t>(s.chip);
      c.die = 0;
      c.plane_mask = static_cast<std::uint8_t>(1u << s.plane);
      c.block[s.plane] = s.block;
      c.page = s.page;
      c.token[s.plane] = 0x100 + s.page;
      c.id = i + 1;
      c.request = i + 1;  // serving a host request: the block meters its wait
      sent[c.id] = s.at;
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time d = SC_ZERO_TIME;
      socket->nb_transport_fw(*gp, ph, d);
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
    if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
    FlashCommand& c = flash_cmd(gp);
    REQUIRE(c.status == FlashStatus::Ok);
    const Tick now = sc_time_stamp().value();
    PartTicks p{};
    flash_path_parts(c, 0, sent[c.id], now, p);
    parts[c.id] = p;
    done[c.id] = now;
    gp.release();
    return tlm::TLM_COMPLETED;
  }
};

struct Bench : sc_module {
  ScriptedFirmware fw;
  nand::NandDevice nand;
  FlashSched sched;
  static nand::NandConfig cfg(unsigned planes = 1, bool cache_program = false) {
    nand::NandConfig n;
    n.channels = 1;
    n.chips_per_channel = 3;
    n.dies_per_chip = 1;
    n.planes_per_die = planes;
    n.blocks_per_plane = 4;
    n.pages_per_block = 8;
    n.page_bytes = 4096;
    n.bus_mts = 100;  // 10 ns a cycle: command and address 70 ns, erase command 50 ns, a page 40.96 us
    n.t_read_us = 50;
    n.t_prog_us = 500;
    n.t_erase_us = 1000;
    n.cache_read = false;
    n.cache_program = cache_program;
    return n;
  }
  explicit Bench(sc_module_name n, unsigned planes = 1, bool cache_program = false)
      : sc_module(n), fw("fw"), nand("nand", cfg(planes, cache_program)), sched("sched", SchedConfig{}, nand.config(), make_sched_policy("hos", nand.config(), false, true)) {
    fw.socket.bind(sched.target);
    sched.attach(nand);
    for (unsigned chip = 0; chip < 3; ++chip)
      for (std::uint32_t pg = 0; pg < 2; ++pg) nand.engine(0).backdoor_program(chip, 0, 0, 0, pg, 0x100 + pg);
  }
};

Tick part(const PartTicks& p, Part k) { return p[static_cast<unsigned>(k)]; }

}  // namespace

TEST_CASE("attribution: a read behind a GC erase and a host read on its chip, then the bus, part by part",
          "[controller][attribution]") {
  Bench b("bench");
  // t = 0: an erase (GC), a read R1, the read T, all on chip 0. At 1,010 us a read X on
  // chip 1, whose data waits for R1's data-out and then holds the bus when T is sent. At
  // 1,100 us a read Y on idle chip 2, which the block cannot send while T waits for the bus.
  b.fw.sends = {{0, FlashOp::Erase, FlashOrigin::GcErase, 0, 1, 0},
                {0, FlashOp::Read, FlashOrigin::HostRead, 0, 0, 0},
                {0, FlashOp::Read, FlashOrigin::HostRead, 0, 0, 1},
                {1010000 * ns, FlashOp::Read, FlashOrigin::HostRead, 1, 0, 0},
                {1100000 * ns, FlashOp::Read, FlashOrigin::HostRead, 2, 0, 0}};
  sc_start();
  REQUIRE(b.fw.done.size() == 5);
  const Tick cmd = 70 * ns, ecmd = 50 * ns, data = 40960 * ns, tR = 50000 * ns, tBERS = 1000000 * ns;
  // The erase: 0 to 50 ns its command, then tBERS. R1 goes at its end (a clock edge):
  const Tick e_done = ecmd + tBERS;                  // 1,000,050 ns
  const Tick r1_done = e_done + cmd + tR + data;     // 1,091,080 ns: R1's data out
  // X: sent at 1,010,000 ns on idle chip 1 with the bus idle; its data is ready at
  // 1,060,070 ns and goes out when R1's has: [1,091,080, 1,132,040] ns.
  const Tick x_at = 1010000 * ns, x_ready = x_at + cmd + tR, x_done = r1_done + data;
  // T: in the block while chip 0 erases, then while it reads R1; sent when R1 is done, it
  // waits for X's data-out, then command, tR, and its own data-out.
  const Tick t_start = x_done, t_done = t_start + cmd + tR + data;  // 1,223,070 ns
  CHECK(b.fw.done[2] == r1_done);
  CHECK(b.fw.done[4] == x_done);
  CHECK(b.fw.done[3] == t_done);
  const PartTicks& t = b.fw.parts[3];
  CHECK(part(t, Part::ConflictErase) == e_done);
  CHECK(part(t, Part::ConflictHostRead) == r1_done - e_done);
  CHECK(part(t, Part::BusWait) == x_done - r1_done);
  CHECK(part(t, Part::BusCommand) == cmd);
  CHECK(part(t, Part::Array) == tR);
  CHECK(part(t, Part::BusData) == data);
  for (Part k : {Part::FirmwareSched, Part::ConflictHostWrite, Part::ConflictGcRead, Part::ConflictGcProgram,
                 Part::BlockQueue, Part::RegisterWait, Part::Completion})
    CHECK(part(t, k) == 0);
  CHECK(host::LatencyAttribution::check(t, t_done).empty());
  // R1: behind the erase only.
  CHECK(part(b.fw.parts[2], Part::ConflictErase) == e_done);
  CHECK(host::LatencyAttribution::check(b.fw.parts[2], r1_done).empty());
  // X: its data waited for the bus (R1's data-out).
  const PartTicks& x = b.fw.parts[4];
  CHECK(part(x, Part::BusWait) == r1_done - x_ready);
  CHECK(part(x, Part::BlockQueue) == 0);
  CHECK(host::LatencyAttribution::check(x, x_done - x_at).empty());
  // Y: chip 2 idle, but T waits at the channel for the bus (held by X) until X's data is
  // out: the block holds Y back meanwhile (bus wait in the block), then Y waits for T's
  // command phase, runs its own, and its data waits for T's data-out.
  const Tick y_at = 1100000 * ns, y_sent = x_done, y_start = y_sent + cmd;
  const Tick y_ready = y_start + cmd + tR, y_done = t_done + data;
  const PartTicks& y = b.fw.parts[5];
  CHECK(b.fw.done[5] == y_done);
  CHECK(part(y, Part::BusWait) == (y_sent - y_at) + cmd + (t_done - y_ready));
  CHECK(part(y, Part::BlockQueue) == 0);
  CHECK(part(y, Part::ConflictHostRead) == 0);
  CHECK(host::LatencyAttribution::check(y, y_done - y_at).empty());
}

TEST_CASE("scheduler: a program behind a busy array and a data-in holds no other chip's command back",
          "[controller][attribution][cache]") {
  // Two planes, cache program. Chip 0: P1 (plane 0) goes to tPROG after its data-in; P2
  // (plane 1) sends its data meanwhile, to wait in its cache register; P3 (plane 0) could
  // only start when P1's tPROG ends and P2 moves on. A read R on idle chip 1, sent while P2
  // sends its data, must go as soon as the bus frees, not wait behind P3 for P1's tPROG
  // (the channel takes one waiting command at a time).
  Bench b("bench", 2, true);
  const Tick cmd = 70 * ns, data = 40960 * ns, tR = 50000 * ns, tPROG = 500000 * ns;
  const Tick r_at = cmd + data + 1000 * ns;  // P2's data-in is [C + D, 2 (C + D)]
  b.fw.sends = {{0, FlashOp::Program, FlashOrigin::HostProgram, 0, 1, 0, 0},
                {0, FlashOp::Program, FlashOrigin::HostProgram, 0, 1, 0, 1},
                {0, FlashOp::Program, FlashOrigin::HostProgram, 0, 1, 1, 0},
                {r_at, FlashOp::Read, FlashOrigin::HostRead, 1, 0, 0, 0}};
  sc_start();
  REQUIRE(b.fw.done.size() == 4);
  const Tick p2_end = 2 * (cmd + data);
  // R: sent at once, it waits only for P2's data-in to end, then command, tR, data out.
  const Tick r_done = p2_end + cmd + tR + data;
  CHECK(b.fw.done[4] == r_done);
  CHECK(part(b.fw.parts[4], Part::BlockQueue) == 0);
  CHECK(part(b.fw.parts[4], Part::BusWait) == p2_end - r_at);
  // The programs: P1 at C + D + tPROG; P2's tPROG follows; P3's data goes in during P2's
  // tPROG once the bus is free (after R's command phase at P1's end... R is long done).
  CHECK(b.fw.done[1] == cmd + data + tPROG);
  CHECK(b.fw.done[2] == cmd + data + 2 * tPROG);
  CHECK(b.fw.done[3] == cmd + data + 3 * tPROG);
  for (std::uint64_t id = 1; id <= 4; ++id)
    CHECK(host::LatencyAttribution::check(b.fw.parts[id], b.fw.done[id] - b.fw.sent[id]).empty());
}
