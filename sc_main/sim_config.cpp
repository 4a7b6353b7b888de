#include "sc_main/sim_config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/policies.h"
#include "sc_main/settings.h"

#ifndef SSD_DATA_DIR
#define SSD_DATA_DIR "."
#endif

namespace ssd {

using param::key;

std::string data_dir() {
  if (const char* d = std::getenv("SSDSIM_DATA_DIR")) return d;
  return SSD_DATA_DIR;
}

Config make_config() {
  Config c;
  c.declare(Settings::keys());  // every key, declared beside its struct's fields
  host::StreamKeys streams = host::stream_keys();
  c.declare_family(host::kStreamsPrefix, host::kMaxStreams, std::move(streams.keys), std::move(streams.defaults));
  return c;
}

std::string presets_dir() { return data_dir() + "/configs/presets"; }

// The presets' names: the files NAME.json of presets_dir(), sorted.
static std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(presets_dir(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  if (ec) throw ConfigError(presets_dir() + ": cannot read the presets folder (" + ec.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

static std::string preset_path(const std::string& name) { return presets_dir() + "/" + name + ".json"; }

// Each preset file with its "preset" section's description (read for --list-presets;
// a run reads only the file of its own preset).
const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> found;
    for (const std::string& name : preset_names()) {
      Preset p{name, "", preset_path(name)};
      json::Value root;
      try {
        root = json::parse_file(p.path);
      } catch (const json::ParseError& err) {
        throw ConfigError(err.what());
      }
      for (const auto& [section, v] : root.members)
        if (section == kNotesSection)
          for (const auto& [note, text] : v.members)
            if (note == "description" && text.kind == json::Value::Kind::String) p.description = text.str;
      found.push_back(std::move(p));
    }
    return found;
  }();
  return all;
}

void apply_preset(Config& cfg, const std::string& name) {
  const std::vector<std::string> names = preset_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) {
    cfg.load_file(preset_path(name));
    return;
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw ConfigError("--preset " + name + ": unknown preset; presets are: " + list + " (the files of " + presets_dir() +
                    ")");
}

nand::NandConfig nand_config(const Config& cfg) {
  nand::NandConfig n = cfg.load<nand::NandConfig>();
  nand::FaultConfig& f = n.fault;
  if (!f.script.empty()) {
    errno = 0;
    std::ifstream in(f.script);
    if (!in) {
      // The key takes a file's path; a value that reads as injections gets told so.
      std::string why = errno ? std::strerror(errno) : "not a readable file";
      for (const char* kind : {"program_fail", "erase_fail", "read_retry"})
        if (f.script.rfind(kind, 0) == 0)
          why += "; the key takes the path of a file of injections, not the injections themselves";
      throw ConfigError(cfg.locate(key(&nand::FaultConfig::script) + " = " + f.script + ": cannot be read (" + why +
                                   ")"));
    }
    std::stringstream text;
    text << in.rdbuf();
    try {
      f.injections = nand::parse_fault_script(text.str(), f.script);
      // Injections outside the geometry: found by building the model once.
      nand::FaultModel probe(f, n.channels, n.chips_per_channel, n.dies_per_chip, n.planes_per_die,
                             n.blocks_per_plane, n.pages_per_block);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
  std::vector<std::string> errs = n.validate();
  if (!errs.empty()) {
    std::string msg = "invalid NAND configuration:";
    for (const std::string& e : errs) msg += "\n  " + cfg.locate(e);
    throw ConfigError(msg);
  }
  return n;
}

std::string warmup_mode(const Settings& s) {
  const ReportConfig& r = s.report;
  const bool explicit_warmup = r.warmup_requests > 0 || r.warmup_us > 0;
  if (r.warmup == "default") return s.workload.kind == "synthetic" && !explicit_warmup ? "auto" : "fixed";
  return r.warmup;
}

std::string warmup_mode(const Config& cfg) {
  const Settings s = cfg.load<Settings>();
  check_rules(cfg, s, {key(&ReportConfig::warmup)});
  return warmup_mode(s);
}

std::string precondition_free_mode(const Config& cfg) {
  const Settings s = cfg.load<Settings>();
  check_rules(cfg, s, {key(&ctrl::PreconditionConfig::free)});
  return s.start.free;
}

std::uint32_t precondition_free_blocks(const Config& cfg, std::uint32_t gc_low, std::uint32_t reserve) {
  return precondition_free_blocks(precondition_free_mode(cfg), gc_low, reserve);
}

// `reserve`: the free blocks only GC may take (Ftl::gc_reserve).
std::uint32_t precondition_free_blocks(const std::string& mode, std::uint32_t gc_low, std::uint32_t reserve) {
  if (mode == "reserve") return reserve + 1;
  if (mode == "gc_running") return std::max<std::uint32_t>(gc_low - 1, reserve + 1);  // the last reserve + 1 at least
  return gc_low;
}

namespace {
// FtlConfig's checks, each error located.
void check_ftl(const Config& cfg, const ctrl::FtlConfig& f) {
  std::vector<std::string> errs = f.validate();
  if (errs.empty()) return;
  std::string msg = "invalid FTL configuration:";
  for (const std::string& e : errs) msg += "\n  " + cfg.locate(e);
  throw ConfigError(msg);
}
}  // namespace

void resolve_defaults(Config& cfg) {
  using host::WorkloadConfig;
  const Settings s = cfg.load<Settings>();
  const std::string at = "default";  // still the built-in default, as resolved
  if (s.workload.kind == "nand_ops" && s.workload.path.empty())
    cfg.set(&WorkloadConfig::path, data_dir() + "/configs/nand_demo.ops", at);
  if (s.workload.kind == "trace" && cfg.is_default(&WorkloadConfig::requests))
    cfg.set(&WorkloadConfig::requests, "0", at);  // the whole trace
  if (s.sched.reschedule.on() && cfg.is_default(&ctrl::FirmwareConfig::batch_depth))
    cfg.set(&ctrl::FirmwareConfig::batch_depth, "0", at);  // the block batches instead
}

Settings settings(const Config& cfg) {
  Settings s = cfg.load<Settings>();
  s.ftl.nand = nand_config(cfg);
  if (s.workload.kind != "nand_ops") check_ftl(cfg, s.ftl);  // a NAND script runs without an FTL
  check_rules(cfg, s);
  s.streams = load_streams(cfg, s);
  check_streams(cfg, s);
  return s;
}

namespace {
// The non-empty items of a comma-separated list, spaces removed.
// The items of a comma-separated list (spaces around them dropped); an empty list is
// empty, an empty item (",,", a leading or trailing comma) is an error naming the key.
std::vector<std::string> comma_list(const Config& cfg, const std::string& key) {
  const std::string& text = cfg.get_string(key);
  std::vector<std::string> items;
  if (text.find_first_not_of(' ') == std::string::npos) return items;
  std::string cur;
  for (char ch : text + ",") {
    if (ch == ',') {
      if (cur.empty()) throw ConfigError(cfg.locate(key + " = '" + text + "': an empty item in the comma list"));
      items.push_back(cur);
      cur.clear();
    } else if (ch != ' ') {
      cur.push_back(ch);
    }
  }
  return items;
}
}  // namespace

std::vector<std::uint64_t> request_ids(const Config& cfg, const std::string& key) {
  std::vector<std::uint64_t> ids;
  for (const std::string& item : comma_list(cfg, key)) {
    std::uint64_t v = 0;
    bool ok = item.size() <= 19;
    for (char d : item) {
      if (d < '0' || d > '9') ok = false;
      else v = v * 10 + static_cast<std::uint64_t>(d - '0');
    }
    if (!ok || v == 0)
      throw ConfigError(cfg.locate(key + ": '" + item + "' is not a request id (a whole number from 1, below 10^19)"));
    ids.push_back(v);
  }
  return ids;
}

TraceOptions trace_options(const Config& cfg) {
  const Settings s = cfg.load<Settings>();
  check_rules(cfg, s, param::names(TraceConfig::keys()));
  TraceOptions t;
  t.path = s.trace.vcd;
  t.start = us_to_ticks(s.trace.start_us);
  t.end = s.trace.end_us > 0 ? us_to_ticks(s.trace.end_us) : kNever;
  t.scopes = comma_list(cfg, key(&TraceConfig::scopes));
  return t;
}

}  // namespace ssd
