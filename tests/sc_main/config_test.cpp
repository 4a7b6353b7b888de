// Configuration and presets: plain C++, no SystemC kernel.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "sc_main/settings.h"
#include "sc_main/sim_config.h"
#include "tests/temp_file.h"

using namespace ssd;
using ssd::test::write_temp;

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
  CHECK_THROWS_WITH(c.set_assignment("nand.bus_mts=fast"), Catch::Contains("--set: nand.bus_mts: expected a decimal number"));
  CHECK_THROWS_WITH(c.set_assignment("nand.bus_mts"), Catch::Contains("expected KEY=VALUE"));
  CHECK_THROWS_WITH(c.set_assignment("workload.kind=magic"), Catch::Contains("not one of: synthetic, trace, nand_ops"));
  CHECK_THROWS_WITH(apply_preset(c, "fast"), Catch::Contains("presets are: bench, default, delay, mx500, nvme_tlc, park, piq, sos"));
  // Nothing above changed a value.
  CHECK(c.get_int("nand.channels") == 8);
}

TEST_CASE("config: the effective configuration written as JSON reads back to the same values", "[config]") {
  Config a = make_config();
  apply_preset(a, "park");
  a.set_assignment("nand.t_prog_us=123.25");
  a.set_assignment("trace.scopes=ssd.nand.ch0, ssd.nand.ch1");
  a.set_assignment("trace.vcd=roundtrip.vcd");
  Config b = make_config();
  b.load_file(write_temp("cfg_roundtrip.json", a.to_json()));
  CHECK(a.to_json() == b.to_json());
  CHECK(b.get_double("nand.t_prog_us") == 123.25);
  CHECK(trace_options(b).scopes == std::vector<std::string>{"ssd.nand.ch0", "ssd.nand.ch1"});
}

namespace {
// The dotted keys a config file sets (its "preset" notes aside).
void leaves(const json::Value& v, const std::string& prefix, std::set<std::string>& out) {
  for (const auto& [name, child] : v.members) {
    if (prefix.empty() && name == kNotesSection) continue;
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    if (child.kind == json::Value::Kind::Object) leaves(child, key, out);
    else out.insert(key);
  }
}
}  // namespace

TEST_CASE("config: the presets are the files of configs/presets, each value with its source", "[config][preset]") {
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"bench", "default", "delay", "mx500", "nvme_tlc", "park", "piq", "sos"});
  for (const Preset& p : presets()) {
    INFO(p.path);
    CHECK_FALSE(p.description.empty());
    const json::Value root = json::parse_file(p.path);
    std::set<std::string> set, sourced;
    leaves(root, "", set);
    for (const auto& [name, v] : root.members)
      if (name == kNotesSection)
        for (const auto& [note, m] : v.members)
          if (note == "sources")
            for (const auto& [key, text] : m.members) {
              sourced.insert(key);
              CHECK_FALSE(text.str.empty());
            }
    CHECK(set == sourced);  // every value says where it comes from, and only those
  }
  // A file's notes are checked: an unknown note, a source for a key it does not set.
  Config c = make_config();
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_notes1.json", "{\n  \"preset\": {\n    \"comment\": \"x\"\n  }\n}\n")),
                    Catch::Contains("cfg_notes1.json:3: preset.comment: unknown note"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_notes2.json",
                                           "{\"preset\": {\"sources\": {\"nand.channels\": \"Table 1\"}},\n"
                                           " \"nand\": {\"t_read_us\": 30}}\n")),
                    Catch::Contains("cfg_notes2.json:1: preset.sources.nand.channels: a source for a key this file "
                                    "does not set"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_notes3.json", "{\"preset\": 3}")),
                    Catch::Contains("cfg_notes3.json:1: preset: an object of notes"));
  // A user's copy of a preset file is a config file: the same values as the preset.
  Config a = make_config(), b = make_config();
  apply_preset(a, "sos");
  b.load_file(presets_dir() + "/sos.json");
  CHECK(a.to_json() == b.to_json());
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

TEST_CASE("config: ftl.precondition_free modes, and ftl.precondition_free_blocks only with auto", "[config][steady]") {
  auto free_for = [](const std::vector<std::string>& sets) {
    Config c = make_config();
    for (const std::string& s : sets) c.set_assignment(s);
    return precondition_free_blocks(c, 52);
  };
  CHECK(free_for({"ftl.precondition_free=gc_mark"}) == 52);
  CHECK(free_for({"ftl.precondition_free=gc_running", "workload.queue_depth=1"}) == 51);
  CHECK(free_for({"ftl.precondition_free=reserve"}) == 2);
  Config c = make_config();
  CHECK(precondition_free_mode(c) == "auto");
  c.set_assignment("ftl.precondition_free=gc_running");
  CHECK(precondition_free_blocks(c, 2) == 2);  // never under the last reserve + 1
  c.set_assignment("ftl.precondition_free_blocks=10");
  CHECK_THROWS_WITH(precondition_free_mode(c), Catch::Contains("ftl.precondition_free_blocks") &&
                                                   Catch::Contains("gc_running"));
}

TEST_CASE("config: report.warmup default is auto for synthetic workloads, fixed otherwise", "[config][steady]") {
  auto mode = [](const std::vector<std::string>& sets) {
    Config c = make_config();
    for (const std::string& s : sets) c.set_assignment(s);
    return warmup_mode(c);
  };
  CHECK(mode({}) == "auto");
  CHECK(mode({"report.warmup_requests=100"}) == "fixed");  // an explicit warm-up is kept
  CHECK(mode({"report.warmup_us=5"}) == "fixed");
  CHECK(mode({"workload.kind=trace"}) == "fixed");
  CHECK(mode({"workload.kind=trace", "report.warmup=auto"}) == "auto");
  CHECK(mode({"report.warmup=fixed"}) == "fixed");
  CHECK_THROWS_WITH(mode({"report.warmup=auto", "report.warmup_requests=100"}),
                    Catch::Contains("report.warmup = auto") && Catch::Contains("--set"));
  CHECK_THROWS_WITH(mode({"workload.kind=nand_ops", "report.warmup=auto"}), Catch::Contains("nand_ops"));
}

TEST_CASE("config: strict JSON, one value per key whatever its spelling, no object for a value",
          "[config][json]") {
  Config c = make_config();
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_zero.json", "{\"nand\": {\"channels\": 01}}")),
                    Catch::Contains("cfg_zero.json:1:") && Catch::Contains("leading zero"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_obj.json", "{\"controller\": {\n  \"rtl\": {}\n}}")),
                    Catch::Contains("cfg_obj.json:2: controller.rtl: an object where a value is due"));
  CHECK_THROWS_WITH(
      c.load_file(write_temp("cfg_two.json", "{\"nand.channels\": 2,\n \"nand\": {\"channels\": 3}}")),
      Catch::Contains("cfg_two.json:2: nand.channels is set twice in this file (also at line 1)"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_bom_mid.json", "{\"nand\": \xEF\xBB\xBF{}}")),
                    Catch::Contains("byte-order mark"));
  c.load_file(write_temp("cfg_bom.json", "\xEF\xBB\xBF{\"nand\": {\"channels\": 4}}"));  // a leading BOM: skipped
  CHECK(c.get_int("nand.channels") == 4);
}

TEST_CASE("config: comma lists have no empty item, trace.scopes needs trace.vcd, time keys print their bound",
          "[config]") {
  Config c = make_config();
  c.set_assignment("trace.vcd=t.vcd");
  c.set_assignment("trace.request=,,,");
  CHECK_THROWS_WITH(request_ids(c, "trace.request"), Catch::Contains("--set: trace.request = ',,,': an empty item"));
  c.set_assignment("trace.request=3,,4");
  CHECK_THROWS_WITH(request_ids(c, "trace.request"), Catch::Contains("an empty item"));
  c.set_assignment("trace.request= 3, 4 ");
  CHECK(request_ids(c, "trace.request") == std::vector<std::uint64_t>{3, 4});
  Config d = make_config();
  d.set_assignment("trace.scopes=ssd.nand.ch1");
  CHECK_THROWS_WITH(trace_options(d), Catch::Contains("trace.scopes chooses what the VCD shows: set trace.vcd too"));
  // The range --list-keys prints is the range checked: its bound is accepted, past it refused.
  Config e = make_config();
  e.set_assignment("workload.duration_us=9.2e12");
  CHECK(e.get_double("workload.duration_us") == 9.2e12);
  CHECK_THROWS_WITH(e.set_assignment("workload.duration_us=1e15"), Catch::Contains("is out of range [0, 9200000000000]"));
  CHECK_THAT(e.describe(), Catch::Contains("[0, 9200000000000]"));
}

TEST_CASE("config: every rule between keys names declared keys, and its error names each with its origin",
          "[config][rules]") {
  const Config c = make_config();
  for (const Rule& r : rules()) {
    REQUIRE(!r.keys.empty());
    for (const std::string& k : r.keys) CHECK(c.has(k));
  }
  Config s = make_config();
  s.set_assignment("workload.read_ratio=0.8");
  s.set_assignment("workload.trim_ratio=0.3");
  CHECK_THROWS_WITH(settings(s), Catch::Contains("--set: workload.trim_ratio = 0.3 with workload.read_ratio = 0.8") &&
                                     Catch::Contains("[workload.read_ratio = 0.8 (--set); workload.trim_ratio = 0.3 (--set)]"));
  // A rule holds for the defaults, and load<Settings>() gives each struct its own defaults.
  const Settings d = settings(make_config());
  CHECK(d.ftl.nand.channels == nand::NandConfig{}.channels);
  CHECK(d.workload.read_ratio == host::WorkloadConfig{}.read_ratio);
  CHECK(d.policy.scheduler == ctrl::PolicyChoice{}.scheduler);
}

TEST_CASE("config: a struct's fields filled from --set through its declarations", "[config][rules]") {
  Config c = make_config();
  c.set_assignment("controller.gc_priority=fifo");
  c.set_assignment("controller.reschedule=pipeline");
  c.set_assignment("nand.fault.retry_steps=7");
  c.set(&host::HostConfig::queue_length, "5", "test");
  const Settings s = c.load<Settings>();
  CHECK(!s.fw.gc_yields);
  CHECK(s.sched.reschedule.pipeline);
  CHECK(!s.sched.reschedule.multiplane);
  CHECK(s.ftl.nand.fault.retry_steps == 7);
  CHECK(s.host.queue_length == 5);
  CHECK(c.origin("host.queue_length") == "test");
  CHECK(c.is_default(&host::HostConfig::scheduler));
}

TEST_CASE("config: a family's items exist once set, from --set or a JSON array, and read back", "[config][family]") {
  Config c;
  param::Key rate{"rate", param::Type::Double, "a rate", 0, 0, 0, 10, {}, ""};
  param::Key kind{"kind", param::Type::Enum, "a kind", 0, 0, 0, 0, {"a", "b"}, ""};
  param::Value rate_def, kind_def;
  rate_def.d = 1.5;
  kind_def.s = "a";
  c.declare_family("w.items", 4, {rate, kind}, {rate_def, kind_def});
  CHECK(c.family_items("w.items") == 0);
  c.set_assignment("w.items.1.rate=3");
  CHECK(c.get_double("w.items.1.rate") == 3);
  CHECK(c.origin("w.items.1.rate") == "--set");
  CHECK_FALSE(c.has("w.items.1.kind"));  // an item's other keys: not set, not there
  // Items are numbered from 0 without gaps.
  CHECK_THROWS_WITH(c.family_items("w.items"), Catch::Contains("w.items.0 is not given"));
  c.load_file(write_temp("cfg_family.json",
                         "{\"w\": {\"items\": [\n  {\"kind\": \"b\"},\n  {\"rate\": 4}\n]}}\n"));
  CHECK(c.get_string("w.items.0.kind") == "b");
  CHECK(c.get_double("w.items.1.rate") == 4);
  CHECK(c.family_items("w.items") == 2);
  // The effective configuration writes the items as objects "0", "1", which read back.
  Config d;
  d.declare_family("w.items", 4, {rate, kind}, {rate_def, kind_def});
  d.load_file(write_temp("cfg_family_back.json", c.to_json()));
  CHECK(d.get_string("w.items.0.kind") == "b");
  CHECK(d.get_double("w.items.1.rate") == 4);
  // A key an item does not have, an item past the count, a value out of range: refused.
  CHECK_THROWS_WITH(c.set_assignment("w.items.0.speed=1"), Catch::Contains("an item of w.items has the keys rate, kind"));
  CHECK_THROWS_WITH(c.set_assignment("w.items.4.rate=1"), Catch::Contains("unknown key 'w.items.4.rate'"));
  CHECK_THROWS_WITH(c.set_assignment("w.items.2.rate=11"), Catch::Contains("w.items.2.rate = 11 is out of range"));
  CHECK_THROWS_WITH(c.load_file(write_temp("cfg_family_bad.json", "{\"w\": {\"items\": [3]}}")),
                    Catch::Contains("w.items[0]: an object of keys"));
}
