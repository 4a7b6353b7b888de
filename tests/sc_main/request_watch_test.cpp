// RequestWatch (trace.request, report.request_timeline) fed a request's life by hand:
// the stage it shows is its own until the firmware has commands out for it, then the
// earliest of theirs; the timeline prints one row per change; the VCD holds the same.
#include <catch2/catch.hpp>

#include <sstream>

#include "sc_main/request_watch.h"
#include "tests/vcd_read.h"

using namespace ssd;

namespace {

RequestWatch::Setup setup() {
  RequestWatch::Setup s;
  s.nand.channels = 2;
  s.nand.chips_per_channel = 2;
  s.nand.dies_per_chip = 2;
  s.nand.planes_per_die = 2;
  s.nand.page_bytes = 4096;
  s.sectors_per_page = 8;
  s.page_slots = 1;
  return s;
}

FlashCommand command(std::uint64_t id, std::uint64_t request, std::uint32_t page, FlashOp op, FlashOrigin origin) {
  FlashCommand c;
  c.id = id;
  c.request = request;
  c.host_page = page;
  c.op = op;
  c.origin = origin;
  c.channel = 1;
  c.chip = 0;
  c.die = 1;
  c.plane_mask = 0x2;  // plane 1
  return c;
}

constexpr Tick us = kTicksPerUs;

// Request 7: a read of two pages (lba 4..19); page 0 from flash, page 1 from the write
// buffer.
void live(RequestWatch& w) {
  w.request_arrived(1 * us, 7, HostOp::Read, 4, 16, 0);
  w.request_at(2 * us, 7, Stage::HostIface);
  w.request_at(3 * us, 7, Stage::Firmware);
  w.page_answered(3 * us, 7, 1);
  const FlashCommand c = command(41, 7, 0, FlashOp::Read, FlashOrigin::HostRead);
  w.command_at(3 * us, c, Stage::BlockQueue);
  w.command_at(5 * us, c, Stage::Bus);
  w.command_at(6 * us, c, Stage::Register);  // then the array, at the same time: one row
  w.command_at(6 * us, c, Stage::Array);
  w.command_at(81 * us, c, Stage::Register);
  w.command_at(90 * us, c, Stage::Bus);
  w.command_at(91 * us, c, Stage::Bus);  // a second segment of the same phase: no row
  w.command_at(95 * us, c, Stage::Done);
  w.request_at(95 * us, 7, Stage::HostIface);
  // Its parts, as the host tells them at its completion: printed after its rows.
  PartTicks parts{};
  parts[static_cast<unsigned>(Part::HostQueue)] = 2 * us;
  parts[static_cast<unsigned>(Part::NcqWait)] = 1 * us;
  parts[static_cast<unsigned>(Part::ConflictHostRead)] = 2 * us;
  parts[static_cast<unsigned>(Part::BusCommand)] = 1 * us;
  parts[static_cast<unsigned>(Part::Array)] = 75 * us;
  parts[static_cast<unsigned>(Part::BusWait)] = 9 * us;
  parts[static_cast<unsigned>(Part::BusData)] = 5 * us;
  parts[static_cast<unsigned>(Part::HostLinkOut)] = 2 * us;
  w.request_parts(97 * us, 7, parts);
  w.request_at(97 * us, 7, Stage::Done);
  // Another request, not watched: ignored.
  w.request_arrived(1 * us, 8, HostOp::Write, 0, 8, 1 * us);
  w.command_at(4 * us, command(42, 8, 0, FlashOp::Program, FlashOrigin::HostProgram), Stage::BlockQueue);
}

}  // namespace

TEST_CASE("request watch: the timeline has one row per change, the request's stage the earliest of its commands'",
          "[sc_main][request_watch]") {
  RequestWatch::Setup s = setup();
  s.timeline = {7, 9};
  RequestWatch w(s, nullptr);
  live(w);
  std::ostringstream os;
  w.print_timelines(os);
  const std::string want =
      "Request 7: READ lba 4, 16 sectors (3 pages); arrived 0.000 us, done 97.000 us, latency 97.000 us\n"
      "     time (us)  request (after)  page  command  origin        where                   command stage\n"
      "      1.000000  host queue\n"
      "      2.000000  host interface\n"
      "      3.000000  firmware\n"
      "      3.000000  firmware         1     -        no flash      -                       done\n"
      "      3.000000  block queue      0     41       host read     ch1.chip0.die1.plane1   block queue\n"
      "      5.000000  bus              0     41       host read     ch1.chip0.die1.plane1   bus\n"
      "      6.000000  array            0     41       host read     ch1.chip0.die1.plane1   array\n"
      "     81.000000  register         0     41       host read     ch1.chip0.die1.plane1   register\n"
      "     90.000000  bus              0     41       host read     ch1.chip0.die1.plane1   bus\n"
      "     95.000000  firmware         0     41       host read     ch1.chip0.die1.plane1   done\n"
      "     95.000000  host interface\n"
      "     97.000000  done\n"
      "  latency parts (us, docs/controller.md): host_queue 2.000000, ncq_wait 1.000000, conflict_host_read "
      "2.000000, bus_wait 9.000000, bus_command 1.000000, bus_data 5.000000, array 75.000000, host_link_out "
      "2.000000\n"
      "Request 9: not reached by this run\n";
  CHECK(os.str() == want);
  CHECK(w.unseen() == std::vector<std::uint64_t>{9});
}

TEST_CASE("request watch: the VCD's stage and page signals follow the same life", "[sc_main][request_watch]") {
  RequestWatch::Setup s = setup();
  s.traced = {7};
  {
    VcdWriter vcd(TraceOptions{"request_watch.vcd", 0, kNever, {}});
    RequestWatch w(s, &vcd);
    live(w);
    Tick a = 0, b = 0;
    REQUIRE(w.traced_span(a, b));
    CHECK(a == 1 * us);
    CHECK(b == 97 * us);
    // 3 pages, one slot: the rest are the timeline's only.
    CHECK(w.beyond_slots() == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{7, 3}});
    vcd.finish(100 * us);
  }
  const test::Vcd v = test::read_vcd("request_watch.vcd");
  CHECK_FALSE(v.has("ssd.request.r7.p1.stage"));
  const auto values = [&v](const std::string& name) {
    std::vector<std::pair<Tick, std::uint64_t>> out;
    for (const auto& [t, bits] : v.changes(name)) out.emplace_back(t, test::Vcd::value(bits));
    return out;
  };
  using S = std::vector<std::pair<Tick, std::uint64_t>>;
  const auto st = [](Stage x) { return static_cast<std::uint64_t>(x); };
  CHECK(values("ssd.request.r7.stage") == S{{0, 0},
                                              {1 * us, st(Stage::HostQueue)},
                                              {2 * us, st(Stage::HostIface)},
                                              {3 * us, st(Stage::BlockQueue)},
                                              {5 * us, st(Stage::Bus)},
                                              {6 * us, st(Stage::Array)},
                                              {81 * us, st(Stage::Register)},
                                              {90 * us, st(Stage::Bus)},
                                              {95 * us, st(Stage::HostIface)},
                                              {97 * us, st(Stage::Done)}});
  CHECK(values("ssd.request.r7.pages") == S{{0, 0}, {1 * us, 3}});
  CHECK(values("ssd.request.r7.p0.cmd") == S{{0, 0}, {3 * us, 41}});
  // Plane 1 of die 1 of chip 0 of channel 1: ((1 * 2 + 0) * 2 + 1) * 2 + 1, plus 1.
  CHECK(values("ssd.request.r7.p0.where") == S{{0, 0}, {3 * us, 12}});
  CHECK(values("ssd.request.r7.p0.origin") == S{{0, 0}, {3 * us, static_cast<std::uint64_t>(FlashOrigin::HostRead)}});
  CHECK(values("ssd.request.r7.commands") == S{{0, 0}, {3 * us, 1}, {95 * us, 0}});
}

TEST_CASE("request watch: the plane names of where.txt", "[sc_main][request_watch]") {
  RequestWatch w(setup(), nullptr);
  CHECK(w.where_values() == 17);
  CHECK(w.where_name(0) == "-");
  CHECK(w.where_name(1) == "ch0.chip0.die0.plane0");
  CHECK(w.where_name(12) == "ch1.chip0.die1.plane1");
  CHECK(w.where_name(16) == "ch1.chip1.die1.plane1");
  CHECK(w.where_name(17) == "-");
}
