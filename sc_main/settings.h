// The whole configuration, typed: every config struct of the model, each declaring its
// own keys beside its fields (common/params.h), gathered in one table (Settings::keys()),
// and the rules that span keys, declared in one list (rules()). sc_main/sim_config.cpp's
// make_config() declares the table's keys in a Config; Config::load<Settings>() fills
// the structs; check_rules() applies the rules (for --check and for the build alike).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/params.h"
#include "controller/firmware.h"
#include "controller/flash_sched.h"
#include "controller/ftl.h"
#include "controller/host_iface.h"
#include "controller/nvme_front_end.h"
#include "controller/policies.h"
#include "controller/sos_sched.h"
#include "controller/start_state.h"
#include "host/host_driver.h"
#include "host/request_source.h"
#include "sc_main/config.h"

namespace ssd {

// The VCD and the requests it follows (trace.*).
struct TraceConfig {
  std::string vcd;          // empty: tracing off
  double start_us = 0;
  double end_us = 0;        // 0: to the end
  std::string scopes;       // comma list of dotted scopes (empty: all)
  std::string request;      // comma list of host request ids
  unsigned request_pages = 16;
  static const param::Table<TraceConfig>& keys();
};

// What a run reports and how its statistics' window starts (report.*).
struct ReportConfig {
  std::uint64_t start_pilot_requests = 24000;
  double start_pilot_us = 2000000;
  bool calibrate_kernel = false;
  std::string requests_csv;
  bool audit = false;
  std::uint64_t warmup_requests = 0;
  double warmup_us = 0;
  std::string warmup = "default";  // default | auto | fixed
  std::uint64_t warmup_round_requests = 2000;
  unsigned warmup_window_rounds = 5;
  double interval_us = 0;
  bool timeline = true;
  unsigned timeline_max = 200;
  std::string request_timeline;
  bool stream_alone = false;  // workload.streams: each stream also run alone, for its slowdown
  int stream_only = -1;       // run only this stream of workload.streams (-1: all)
  static const param::Table<ReportConfig>& keys();
};

// Power cuts (power.*; docs/controller.md, "Power loss"): when they fall, and what the
// model does at each (probe: measures what the cut would lose and how long recovery would
// take, and the run goes on as if the power had held).
struct PowerConfig {
  std::string cut_at_us;        // comma list of simulated times, us
  std::uint64_t cuts = 0;       // seeded cuts, each after a drawn request is sent
  std::uint64_t cut_seed = 1;
  double cut_window_us = 1000;  // a seeded cut falls up to this long after its request is sent
  std::string cut_mode = "probe";
  bool on() const { return cuts > 0 || !cut_at_us.empty(); }
  static const param::Table<PowerConfig>& keys();
};
// power.cut_at_us's times, in us, ascending; throws std::invalid_argument saying what is wrong.
std::vector<double> cut_times(const std::string& list);

// One item of workload.streams: its workload and its stream keys.
struct StreamSettings {
  host::WorkloadConfig workload;
  host::StreamConfig stream;
};

// Every key of the model, in --list-keys order.
struct Settings {
  ctrl::FtlConfig ftl;              // nand.*, nand.fault.*, ftl.overprovisioning/allocation/gc_threshold
  ctrl::HostIfaceConfig hif;        // controller.ncq_depth, host.link_mb_s
  ctrl::SchedConfig sched;          // the scheduler block
  ctrl::PolicyChoice policy;        // the three seams' policies
  ctrl::SosConfig sos;
  ctrl::FirmwareConfig fw;
  ctrl::PreconditionConfig start;   // ftl.precondition*
  host::HostConfig host;
  host::WorkloadConfig workload;
  TraceConfig trace;
  ReportConfig report;
  PowerConfig power;
  ctrl::NvmeConfig nvme;            // nvme.*: host.interface = nvme
  PcieConfig pcie;                  // pcie.*
  // workload.streams, loaded by load_streams() (not a table part: a family of keys).
  // Empty: one workload, workload.*.
  std::vector<StreamSettings> streams;
  static const param::Table<Settings>& keys();
};

// A rule between keys: `broken` returns what is wrong (empty: the rule holds). `given`
// tells whether a key was set by a preset, a file or --set rather than left at its
// default.
struct Rule {
  std::vector<std::string> keys;  // every key it involves
  std::function<std::string(const Settings&, const std::function<bool(const std::string&)>& given)> broken;
};
const std::vector<Rule>& rules();
// The items of workload.streams: each key given for an item, else the top-level
// workload.* value (its seed workload.seed + its index unless given). Throws ConfigError
// for items not numbered from 0 without gaps, or for a stream's rule broken, naming its key.
std::vector<StreamSettings> load_streams(const Config& cfg, const Settings& s);
// The rules of workload.streams (throws ConfigError naming the key).
void check_streams(const Config& cfg, const Settings& s);

// Throws ConfigError for the first broken rule: its message, prefixed with where the
// first key it names was set, and every key involved with its value and origin.
// `involving`: only the rules that involve one of these keys (empty: all).
void check_rules(const Config& cfg, const Settings& s, const std::vector<std::string>& involving = {});

// A key's value as text, and where it was set ("name = value (origin)").
std::string key_at(const Config& cfg, const std::string& key);

}  // namespace ssd
