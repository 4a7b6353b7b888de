// The generated GTKWave view (sc_main/gtkw_view.h): what it shows, in which order, with
// which filters, and the initial window.
#include <catch2/catch.hpp>

#include <sstream>

#include "sc_main/gtkw_view.h"

using namespace ssd;

namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

ViewSpec spec() {
  ViewSpec v;
  v.vcd_path = "/runs/a/trace.vcd";
  v.filters_dir = "/repo/waves";
  v.where_filter = "/runs/a/where.txt";
  v.channels = 2;
  v.start = 5 * kTicksPerUs;
  v.window = 200 * kTicksPerUs;
  v.title = "test view";
  // In declaration order, as the model declares them (NAND first).
  for (const char* n : {"ssd.nand.ch0.bus_phase", "ssd.nand.ch0.chip0.die0.array", "ssd.nand.ch0.chip0.die0.request",
                        "ssd.nand.ch1.bus_phase", "ssd.firmware.busy", "ssd.firmware.ch0.chip0.die0.plane0.gc",
                        "ssd.sched.ch0.grant", "ssd.sched.ch0.chip0.queued", "ssd.host.outstanding",
                        "ssd.request.r9.stage", "ssd.request.r9.p0.stage", "ssd.request.r9.p0.where",
                        "ssd.request.r9.p1.stage"})
    v.vars.push_back({n, std::string(n).find("busy") != std::string::npos ||
                                 std::string(n).find(".gc") != std::string::npos
                             ? 1u
                             : 8u});
  v.requests = {{9, 1}};  // one page slot shown
  return v;
}

}  // namespace

TEST_CASE("view: rows in order, groups per channel collapsed, filters by absolute path", "[sc_main][view]") {
  const std::vector<std::string> l = lines(gtkw_view(spec()));
  std::vector<std::string> rows;  // signal rows and group/comment titles
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (l[i].rfind("+{", 0) == 0 || l[i].rfind("-", 0) == 0) rows.push_back(l[i]);
  }
  const std::vector<std::string> want = {
      "-request 9",
      "+{stage} ssd.request.r9.stage[7:0]",
      "+{page 0 stage} ssd.request.r9.p0.stage[7:0]",
      "+{page 0 where} ssd.request.r9.p0.where[7:0]",
      "-request 9",
      "-host",
      "+{host outstanding} ssd.host.outstanding[7:0]",
      "-fw",
      "+{fw busy} ssd.firmware.busy",
      "-block: grant per channel",
      "+{ch0 grant} ssd.sched.ch0.grant[7:0]",
      "-channel 0 bus",
      "+{ch0 bus_phase} ssd.nand.ch0.bus_phase[7:0]",
      "-channel 1 bus",
      "+{ch1 bus_phase} ssd.nand.ch1.bus_phase[7:0]",
      "-channel 0",
      "+{block chip0 queued} ssd.sched.ch0.chip0.queued[7:0]",
      "+{chip0 die0 array} ssd.nand.ch0.chip0.die0.array[7:0]",
      "+{chip0 die0 request} ssd.nand.ch0.chip0.die0.request[7:0]",
      "+{fw chip0 die0 plane0 gc} ssd.firmware.ch0.chip0.die0.plane0.gc",
      "-channel 0",
  };
  CHECK(rows == want);
  const std::string text = gtkw_view(spec());
  // The channel's group is collapsed (GTKWave's closed-group flags); the request's open.
  CHECK(text.find("@c00200\n-channel 0\n") != std::string::npos);
  CHECK(text.find("@1400200\n-channel 0\n") != std::string::npos);
  CHECK(text.find("@800200\n-request 9\n") != std::string::npos);
  // Filters by absolute path, each file numbered once.
  CHECK(text.find("^1 /repo/waves/stage.txt\n") != std::string::npos);
  CHECK(text.find("^2 /runs/a/where.txt\n") != std::string::npos);
  CHECK(text.find("/repo/waves/bus_phase.txt") != std::string::npos);
  CHECK(text.find("/repo/waves/id.txt") != std::string::npos);  // the die's request
  CHECK(text.find("[dumpfile] \"/runs/a/trace.vcd\"") != std::string::npos);
  CHECK(text.find("[timestart] 5000000\n") != std::string::npos);
}

TEST_CASE("view: the zoom shows the window asked for", "[sc_main][view]") {
  // Measured in GTKWave: zoom -28 shows 1.3 ms, -20 shows 5.09 us.
  CHECK_THAT(gtkw_zoom_for(1302000000), Catch::Matchers::WithinAbs(-28.0, 0.01));
  CHECK_THAT(gtkw_zoom_for(5086000), Catch::Matchers::WithinAbs(-20.0, 0.01));
  // Each halving of the window is one step in.
  CHECK_THAT(gtkw_zoom_for(100 * kTicksPerUs) - gtkw_zoom_for(200 * kTicksPerUs),
             Catch::Matchers::WithinAbs(1.0, 1e-9));
}
