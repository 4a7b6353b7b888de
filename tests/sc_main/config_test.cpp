// Configuration, presets, the NAND command script reader and the latency
// histogram: plain C++, no SystemC kernel.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <random>

#include "sc_main/nand_script.h"
#include "sc_main/sim_config.h"
#include "sc_main/stats_window.h"
#include "common/latency_histogram.h"

using namespace ssd;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  std::ofstream(name) << text;
  return name;
}
}  // namespace

TEST_CASE("config: defaults < preset < file < --set, each source recorded", "[config]") {
  Config c = make_config();
  CHECK(c.get_int("nand.channels") == 8);
  apply_preset(c, "delay");
  CHECK(c.get_int("nand.channels") == 16);
  CHECK(c.get_double("nand.bus_mts") == 38);
  c.load_file(write_temp("cfg_layer.json", "{\n  \"nand\": {\"channels\": 4, \"t_read_us\": 30.5}\n}\n"));
  CHECK(c.get_int("nand.channels") == 4);
  CHECK(c.get_double("nand.t_read_us") == 30.5);
  CHECK(c.get_int("nand.chips_per_channel") == 8);  // still the preset's
  c.set_assignment("nand.channels=2");
  c.set_assignment("nand.cache_read=false");
  CHECK(c.get_int("nand.channels") == 2);
  CHECK_FALSE(c.get_bool("nand.cache_read"));
}

TEST_CASE("config: a bad key or value is refused naming the file, line and key", "[config]") {
  Config c = make_config();
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bad1.json", "{\n  \"nand\": {\n    \"chanels\": 4\n  }\n}\n")),
                    Catch::Contains("cfg_bad1.json:3: unknown key 'nand.chanels' (did you mean 'nand.channels'?)"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bad2.json", "{\"nand\": {\"channels\": 4.5}}")),
                    Catch::Contains("cfg_bad2.json:1: nand.channels: expected an integer, got a number"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bad3.json", "{\"nand\": {\"multiplane\": 1}}")),
                    Catch::Contains("nand.multiplane: expected true or false"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bad4.json", "{\n\"nand\": {\"channels\": 4,}\n}")),
                    Catch::Contains("cfg_bad4.json:2:"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bad5.json", "{\"nand\": {\"channels\": 0}}")),
                    Catch::Contains("nand.channels = 0 is out of range [1, 1024]"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bad6.json", "{\"bogus\": {\"x\": 1}}")),
                    Catch::Contains("unknown key 'bogus'"));
  CHECK_THROWS_WITH(c.load_file("no_such_config.json"), Catch::Contains("no_such_config.json: cannot open"));
  CHECK_THROWS_WITH(c.set_assignment("nand.bus_mts=fast"), Catch::Contains("--set: nand.bus_mts: expected a number"));
  CHECK_THROWS_WITH(c.set_assignment("nand.bus_mts"), Catch::Contains("expected KEY=VALUE"));
  CHECK_THROWS_WITH(c.set_assignment("workload.kind=magic"), Catch::Contains("not one of: synthetic, trace, nand_ops"));
  CHECK_THROWS_WITH(apply_preset(c, "fast"), Catch::Contains("presets are: default, bench, piq, delay, park, sos"));
  // Nothing above changed a value.
  CHECK(c.get_int("nand.channels") == 8);
}

TEST_CASE("config: the effective configuration written as JSON reads back to the same values", "[config]") {
  Config a = make_config();
  apply_preset(a, "park");
  a.set_assignment("nand.t_prog_us=123.25");
  a.set_assignment("trace.scopes=ssd.nand.ch0, ssd.nand.ch1");
  Config b = make_config();
  b.load_file(write_temp("cfg_roundtrip.json", a.to_json()));
  CHECK(a.to_json() == b.to_json());
  CHECK(b.get_double("nand.t_prog_us") == 123.25);
  CHECK(trace_options(b).scopes == std::vector<std::string>{"ssd.nand.ch0", "ssd.nand.ch1"});
}

TEST_CASE("config: every preset is a valid NAND configuration with the paper's geometry", "[config][preset]") {
  for (const Preset& p : presets()) {
    Config c = make_config();
    apply_preset(c, p.name);
    INFO(p.name);
    const nand::NandConfig n = nand_config(c);
    CHECK(n.validate().empty());
  }
  Config piq = make_config();
  apply_preset(piq, "piq");
  const nand::NandConfig n = nand_config(piq);
  CHECK(n.chips() == 64);
  CHECK(n.raw_bytes() == 128ull << 30);  // 128 GiB, 2 KiB pages, 64-page blocks
  Config def = make_config();
  CHECK(nand_config(def).raw_bytes() >= 256ull << 30);  // holds the shared traces (233 GB)
}

TEST_CASE("config: NAND combinations the model cannot hold are refused by key", "[config]") {
  Config c = make_config();
  c.set_assignment("nand.blocks_per_plane=16777216");
  c.set_assignment("nand.channels=1024");
  CHECK_THROWS_WITH(nand_config(c), Catch::Contains("nand.blocks_per_plane"));
  Config t = make_config();
  t.set_assignment("trace.start_us=10");
  t.set_assignment("trace.end_us=5");
  CHECK_THROWS_WITH(trace_options(t), Catch::Contains("trace.end_us"));
}

TEST_CASE("script: commands, plane lists, page ranges and comments", "[script]") {
  const std::string path = write_temp("script_ok.ops",
                                      "# comment\n"
                                      "0 program 1 2 1 0,1 7 0-2   # three commands\n"
                                      "\n"
                                      "10.5 read 0 0 0 all 7 1\n"
                                      "20 erase 0 0 0 1 7 -\n");
  NandScriptReader r(path, nand::NandConfig{});
  ScriptCommand c;
  for (std::uint32_t pg = 0; pg < 3; ++pg) {
    REQUIRE(r.next(c));
    CHECK(c.op == FlashOp::Program);
    CHECK(c.channel == 1);
    CHECK(c.chip == 2);
    CHECK(c.die == 1);
    CHECK(c.plane_mask == 0b11);
    CHECK(c.block == 7);
    CHECK(c.page == pg);
    CHECK(c.line == 2);
  }
  REQUIRE(r.next(c));
  CHECK(c.op == FlashOp::Read);
  CHECK(c.time == us_to_ticks(10.5));
  CHECK(c.plane_mask == 0b11);
  REQUIRE(r.next(c));
  CHECK(c.op == FlashOp::Erase);
  CHECK(c.plane_mask == 0b10);
  CHECK_FALSE(r.next(c));
}

TEST_CASE("script: malformed lines are refused naming file, line and field", "[script]") {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"0 read 0 0 0 0 0\n", "bad.ops:1: field 'pages': missing"},
      {"x read 0 0 0 0 0 0\n", "bad.ops:1: field 'time_us': not a number"},
      {"-1 read 0 0 0 0 0 0\n", "field 'time_us': negative"},
      {"5 read 0 0 0 0 0 0\n1 read 0 0 0 0 0 0\n", "bad.ops:2: field 'time_us': time 1 goes backwards"},
      {"0 raed 0 0 0 0 0 0\n", "field 'op': unknown operation 'raed'"},
      {"0 read -1 0 0 0 0 0\n", "field 'channel'"},
      {"0 read 0 x 0 0 0 0\n", "field 'chip'"},
      {"0 read 0 0 0.5 0 0 0\n", "field 'die'"},
      {"0 read 0 0 0 9 0 0\n", "field 'planes': not a plane number: '9'"},
      {"0 read 0 0 0 0 b 0\n", "field 'block'"},
      {"0 read 0 0 0 0 0 5-2\n", "field 'pages': not a page range"},
      {"0 read 0 0 0 0 0 0 extra\n", "unexpected text after the 8th field"},
  };
  for (const Case& k : cases) {
    INFO(k.text);
    const std::string path = write_temp("bad.ops", k.text);
    NandScriptReader r(path, nand::NandConfig{});
    ScriptCommand c;
    CHECK_THROWS_WITH([&] { while (r.next(c)) {} }(), Catch::Contains(k.expect));
  }
  CHECK_THROWS_WITH(NandScriptReader("missing.ops", nand::NandConfig{}), Catch::Contains("missing.ops: cannot open"));
}

TEST_CASE("histogram: percentiles within 1/256 of the exact value, exact mean and max", "[stats]") {
  LatencyHistogram h;
  std::vector<std::uint64_t> xs;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(18.0, 1.5);  // picoseconds: ~65 us median
  for (int i = 0; i < 200000; ++i) {
    const auto v = static_cast<std::uint64_t>(dist(rng));
    xs.push_back(v);
    h.record(v);
  }
  std::sort(xs.begin(), xs.end());
  long double sum = 0;
  for (std::uint64_t v : xs) sum += v;
  CHECK(h.mean() == Approx(static_cast<double>(sum / xs.size())).epsilon(1e-12));
  CHECK(h.max() == xs.back());
  CHECK(h.min() == xs.front());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const std::uint64_t exact = xs[static_cast<std::size_t>(q * xs.size() + 0.5) - 1];
    const std::uint64_t got = h.quantile(q);
    INFO("q " << q << " exact " << exact << " got " << got);
    CHECK(got >= exact);
    CHECK(static_cast<double>(got - exact) <= static_cast<double>(exact) / 256.0 + 1);
  }
  // Small values are exact; bucket edges are consistent with the index.
  for (std::uint64_t v : {0ull, 1ull, 255ull, 256ull, 257ull, 1000ull, 123456789ull, ~0ull}) {
    const std::size_t i = LatencyHistogram::index(v);
    CHECK(LatencyHistogram::upper_edge(i) >= v);
    if (i > 0) CHECK(LatencyHistogram::upper_edge(i - 1) < v);
  }
}

TEST_CASE("stats window: a figure outside its range is refused by name", "[stats]") {
  WindowFigures w;
  w.end = 1000;
  w.chips = 2;
  w.chip_utilization = 1.5;
  w.chip_busy = {0.5, 1.0};
  w.chip_idle_while_others_busy = {0.5, 0.0};
  w.bus_utilization = {0.25};
  w.core_utilization = 0.1;
  CHECK_NOTHROW(check_window(w));
  w.chip_utilization = 2.5;  // more chips busy than there are
  CHECK_THROWS_WITH(check_window(w), Catch::Contains("nand.chip_utilization = 2.5 is outside [0, 2]"));
  w.chip_utilization = 1.5;
  w.chip_busy[1] = 1.96;
  CHECK_THROWS_WITH(check_window(w), Catch::Contains("nand.chip_busy_ratio[1] = 1.96"));
  w.chip_busy[1] = 1.0;
  w.link_utilization = -0.1;
  CHECK_THROWS_WITH(check_window(w), Catch::Contains("controller.link_utilization"));
}

TEST_CASE("json: 100,000 keys parse, and a duplicate among them is refused by line", "[config][json]") {
  // The duplicate test was once quadratic (34 s for 100,000 keys); it is a hash set now.
  std::string text = "{\n";
  for (int i = 0; i < 100000; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",\n";
  const json::Value v = json::parse(text + "\"last\": 0\n}\n", "many.json");
  CHECK(v.members.size() == 100001);
  CHECK_THROWS_WITH(json::parse(text + "\"k5\": 1\n}\n", "dup.json"),
                    Catch::Contains("dup.json:100002") && Catch::Contains("duplicate key \"k5\""));
}

TEST_CASE("json: an integer is one when it fits in 64 bits, to the last digit", "[config][json]") {
  // The fuzzer found it: workload.seed = 2^63 - 1 was written to config.json and refused
  // when loaded back ("expected an integer, got a number").
  const json::Value v = json::parse("{\"a\": 9223372036854775807, \"b\": 9223372036854775808, \"c\": -9223372036854775808}", "n.json");
  CHECK(v.members[0].second.is_integer);
  CHECK(v.members[0].second.integer == INT64_MAX);
  CHECK_FALSE(v.members[1].second.is_integer);
  CHECK(v.members[2].second.is_integer);
  Config c = make_config();
  c.set_text("workload.seed", "9223372036854775807", "--set");
  Config d = make_config();
  d.load_json(json::parse(c.to_json(), "config.json"), "config.json");
  CHECK(d.get_int("workload.seed") == INT64_MAX);
}

TEST_CASE("config: ftl.precondition_free=auto puts GC runs under way for closed loops deeper than 1", "[config][steady]") {
  auto free_for = [](const std::vector<std::string>& sets) {
    Config c = make_config();
    for (const std::string& s : sets) c.set_assignment(s);
    return precondition_free_blocks(c, 52);
  };
  CHECK(free_for({}) == 51);  // the default job: QD 32, closed loop
  CHECK(free_for({"workload.queue_depth=1"}) == 52);
  CHECK(free_for({"workload.rate_iops=1000"}) == 52);
  CHECK(free_for({"workload.kind=trace"}) == 52);  // timed replay
  CHECK(free_for({"workload.kind=trace", "workload.replay=closed"}) == 51);
  CHECK(free_for({"workload.kind=trace", "workload.replay=closed", "workload.queue_depth=1"}) == 52);
  CHECK(free_for({"ftl.precondition_free=gc_mark"}) == 52);
  CHECK(free_for({"ftl.precondition_free=gc_running", "workload.queue_depth=1"}) == 51);
  CHECK(free_for({"ftl.precondition_free=reserve"}) == 2);
  Config c = make_config();
  c.set_assignment("ftl.precondition_free=gc_running");
  CHECK(precondition_free_blocks(c, 2) == 2);  // never under the last reserve + 1
}
