// ssdsim: builds the model from one configuration and runs it.
//   ssdsim [--config FILE.json] [--preset NAME] [--set KEY=VALUE]... [--out DIR]
// Built-in defaults < preset < config file < --set. Exit status: 0 success,
// 1 the model failed (data mismatch, lost transaction, internal error),
// 2 bad input (command line, config, workload file, or a script command the
// NAND refuses).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <boost/program_options.hpp>
#include <systemc>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/host_iface.h"
#include "sc_main/stream_alone.h"
#include "host/host_driver.h"
#include "nand/nand_device.h"
#include "host/input_error.h"
#include "sc_main/run_outputs.h"
#include "sc_main/full_ssd.h"
#include "sc_main/start_pilot.h"
#include "sc_main/gtkw_view.h"
#include "common/activations.h"
#include "sc_main/nand_script_driver.h"
#include "sc_main/report.h"
#include "sc_main/settings.h"
#include "sc_main/sim_config.h"

namespace po = boost::program_options;
using namespace ssd;
using ssd::param::key;

namespace {

// The top of the hierarchy, so that every name starts with "ssd." in logs and waves.
struct Ssd : sc_core::sc_module {
  std::unique_ptr<NandScriptDriver> host;
  std::unique_ptr<nand::NandDevice> nand;
  Ssd(sc_core::sc_module_name name, const nand::NandConfig& ncfg, const std::string& script,
      std::size_t keep, VcdWriter* vcd)
      : sc_module(name) {
    host = std::make_unique<NandScriptDriver>("host", ncfg, script, keep);
    nand = std::make_unique<nand::NandDevice>("nand", ncfg, vcd);
    for (unsigned c = 0; c < ncfg.channels; ++c) host->sockets[c]->bind(nand->channel(c).socket);
    host->on_power_cut([this] { nand->power_cut(); });
    // A script that suspends: the waveform shows the suspend phases (a run without has the
    // variables of before).
    if (vcd && NandScriptReader::uses_suspend(script, ncfg))
      for (unsigned c = 0; c < ncfg.channels; ++c) nand->channel(c).enable_suspend();
  }
};

// The device's raw size in GiB, or MiB below 1 GiB (never "0 GiB").
std::string raw_size(const nand::NandConfig& n) {
  const std::uint64_t b = n.raw_bytes();
  return b >= (std::uint64_t{1} << 30) ? std::to_string(b >> 30) + " GiB" : std::to_string(b >> 20) + " MiB";
}

// The synthetic workload as it will run: count or duration, pattern and skew, the size
// range and alignment, the read share, and closed-loop depth or open-loop rate.
std::string describe_synthetic(const host::WorkloadConfig& w) {
  std::ostringstream os;
  const std::uint64_t n = w.requests, size = w.size_bytes, max = w.size_max_bytes, align = w.align_bytes;
  const double theta = w.zipf_theta, rate = w.rate_iops, duration = w.duration_us;
  if (n) os << n << ' ';
  os << w.pattern;
  if (theta > 0 && w.pattern == "random") os << " (Zipf " << theta << ")";
  os << " requests of " << size;
  if (max > size) os << "-" << max;
  os << " B";
  if (align && align != size) os << " aligned to " << align << " B";
  os << ", " << w.read_ratio * 100 << " % reads, ";
  if (rate > 0) os << "open loop at " << rate << " IOPS";
  else os << "QD " << w.queue_depth;
  if (duration > 0) os << ", for " << duration << " us";
  return os.str();
}

// Every file the run writes must differ from the others and from the file it reads:
// two outputs under one name would leave one of them, or a mix, and writing the trace or
// script being replayed would truncate it.
void check_outputs(const Config& cfg, const Settings& s, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> outputs = {
      {key(&TraceConfig::vcd), s.trace.vcd}, {key(&ReportConfig::requests_csv), s.report.requests_csv}};
  if (!out_dir.empty()) {
    const auto in_out = [&](const char* f) { outputs.emplace_back("--out " + out_dir, (fs::path(out_dir) / f).string()); };
    in_out("stats.json");
    in_out("config.json");
    if (s.report.interval_us > 0) in_out("timeseries.csv");
    if (!s.trace.vcd.empty()) in_out("view.gtkw");
    if (!s.trace.vcd.empty() && !s.trace.request.empty()) in_out("where.txt");
  }
  std::error_code ec;
  std::vector<fs::path> canon(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    canon[i] = fs::weakly_canonical(outputs[i].second, ec);
    if (ec) canon[i] = fs::absolute(outputs[i].second, ec).lexically_normal();
    for (std::size_t j = 0; j < i; ++j)
      if (!canon[j].empty() && canon[j] == canon[i])
        throw ConfigError(cfg.locate(outputs[j].first + " = " + outputs[j].second) + ": " + outputs[i].first +
                          " writes " + outputs[i].second + " too: give each output its own file");
  }
  const std::string& in = s.workload.path;
  if (in.empty() || s.workload.kind == "synthetic") return;
  const fs::path input = fs::weakly_canonical(in, ec);
  if (ec) return;  // the reader says what is wrong with it
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!canon[i].empty() && canon[i] == input)
      throw ConfigError(cfg.locate(outputs[i].first + " = " + outputs[i].second) +
                        ": the run would overwrite its input, " + key(&host::WorkloadConfig::path) + " = " + in);
}

// The VCD writer, if trace.vcd names a file; an unwritable one is bad input (exit 2).
std::unique_ptr<VcdWriter> open_vcd(const Config& cfg, const TraceOptions& topts) {
  if (topts.path.empty()) return nullptr;
  try {
    return std::make_unique<VcdWriter>(topts);
  } catch (const std::runtime_error& e) {
    throw ConfigError(cfg.locate(key(&TraceConfig::vcd) + ": " + std::string(e.what())));
  }
}

// Every trace.scopes prefix must name something the model traces: a typo would write a
// VCD with nothing in it.
void check_scopes(const Config& cfg, const VcdWriter* vcd) {
  if (!vcd) return;
  const std::vector<std::string> bad = vcd->unmatched_scopes();
  if (bad.empty()) return;
  std::string offered;
  for (const std::string& s : vcd->scopes_offered()) offered += (offered.empty() ? "" : ", ") + s;
  throw ConfigError(cfg.locate(key_at(cfg, key(&TraceConfig::scopes))) + ": '" + bad.front() +
                    "' matches nothing the model traces; it traces " + offered);
}

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// DIR/view.gtkw for a traced run (and DIR/where.txt, the filter naming the planes of
// the traced requests' pages). The window opens on the traced requests' lives, or on
// the first 200 us from the first request.
std::string write_view(const std::filesystem::path& out, const VcdWriter& vcd, const nand::NandConfig& n,
                       Tick first, const RequestWatch* watch, std::vector<std::string>& wrote) {
  namespace fs = std::filesystem;
  ViewSpec v;
  v.vcd_path = fs::absolute(vcd.path()).lexically_normal().string();
  v.filters_dir = fs::absolute(fs::path(data_dir()) / "waves").lexically_normal().string();
  v.vars = vcd.declared();
  v.channels = n.channels;
  std::ostringstream title;
  title << "ssdsim view of " << v.vcd_path << ": " << n.channels << " ch x " << n.chips_per_channel << " chips x "
        << n.dies_per_chip << " dies x " << n.planes_per_die << " planes";
  v.title = title.str();
  v.start = first == kNever ? 0 : first;
  v.window = 200 * kTicksPerUs;
  if (watch) {
    Tick a = 0, b = 0;
    if (watch->traced_span(a, b)) {
      const Tick life = std::max<Tick>(b - a, kTicksPerUs);
      v.start = a > life / 10 ? a - life / 10 : 0;
      v.window = life + life / 5;
      v.marker = a;
    }
    for (const auto& [id, pages] : watch->traced_pages())
      v.requests.emplace_back(id, std::min<unsigned>(pages, watch->page_slots()));
    const fs::path where = out / "where.txt";
    std::string text = "# GTKWave translate filter for ssd.request.rN.pK.where (decimal display): the plane\n0 -\n";
    for (std::uint32_t i = 1; i < watch->where_values(); ++i)
      text += std::to_string(i) + " " + watch->where_name(i) + "\n";
    write_file(where, text);
    wrote.push_back(where.string());
    v.where_filter = fs::absolute(where).lexically_normal().string();
  }
  const fs::path view = out / "view.gtkw";
  write_file(view, gtkw_view(v));
  wrote.push_back(view.string());
  return view.string();
}

// A relative path of a file the run writes (trace.vcd, report.requests_csv) is taken
// inside --out when --out is given, so that every file of a run is in its folder. Returns
// the keys' values as given: config.json keeps them (a run of that file with another
// --out writes into that one).
std::vector<std::pair<std::string, std::string>> outputs_under_out(Config& cfg, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> given;
  if (out_dir.empty()) return given;
  for (const std::string& k : {key(&TraceConfig::vcd), key(&ReportConfig::requests_csv)}) {
    const std::string v = cfg.get_string(k);
    if (v.empty() || fs::path(v).is_absolute()) continue;
    const fs::path inside = fs::path(v).lexically_normal();
    if (inside.empty() || *inside.begin() == "..")
      throw ConfigError(cfg.locate(key_at(cfg, k)) + ": a relative output path is taken inside --out " +
                        out_dir + " and may not leave it: give an absolute path");
    given.emplace_back(k, v);
    cfg.set_text(k, (fs::path(out_dir) / v).lexically_normal().string(), cfg.origin(k));
  }
  return given;
}

// config.json: the configuration with the output paths as they were given.
std::string config_json(Config& cfg, const std::vector<std::pair<std::string, std::string>>& given) {
  for (const auto& [k, v] : given) cfg.set_text(k, v, cfg.origin(k));
  return cfg.to_json();
}

// "  wrote A, B and C": every file the run wrote.
void print_wrote(std::ostream& os, const std::vector<std::string>& files) {
  if (files.empty()) return;
  os << "  wrote ";
  for (std::size_t i = 0; i < files.size(); ++i) os << (i == 0 ? "" : i + 1 == files.size() ? " and " : ", ") << files[i];
  os << '\n';
}

// --check: every rule a run applies, nothing run and nothing written. The model is built
// as for a run (without the preconditioned image, whose rules are checked before it is
// made), a trace or NAND script is read through with every record's rules, the output
// files are probed as a run probes them, and the VCD's scopes are matched on a VCD made
// in a scratch folder, which also stands for --out. Exit 0 and a line on stdout if valid;
// a ConfigError, TraceError or ScriptError (exit 2) otherwise.
int check_only(const Config& cfg, const std::string& out_dir) {
  namespace fs = std::filesystem;
  const Settings s = settings(cfg);  // the parse and validate steps of a run
  const nand::NandConfig& ncfg = s.ftl.nand;
  TraceOptions topts = trace_options(cfg);
  check_outputs(cfg, s, out_dir);
  // A file the run would write: writable, and left as it was.
  const auto probe = [&](const std::string& name, const std::string& path) {
    std::error_code ec;
    const fs::path parent = fs::absolute(path, ec).parent_path();
    // In the --out folder a run creates first: that folder is checked below.
    if (!out_dir.empty() && !fs::exists(parent, ec) && parent == fs::absolute(out_dir, ec)) return;
    const bool existed = fs::exists(path, ec);
    {
      std::ofstream f(path, std::ios::app);
      if (!f) throw ConfigError(cfg.locate(name + " = " + path) + ": cannot write it");
    }
    if (!existed) fs::remove(path, ec);
  };
  if (!out_dir.empty()) {  // as the run makes it: the first missing folder made and removed, or a file in it
    std::error_code ec;
    const fs::path want = fs::absolute(out_dir, ec);
    fs::path dir = want;
    while (!dir.empty() && !fs::exists(dir, ec) && dir != dir.parent_path()) dir = dir.parent_path();
    if (dir == want) {
      const fs::path f = want / (".ssdsim-check-" + std::to_string(getpid()));
      if (!fs::is_directory(want, ec)) throw ConfigError("--out " + out_dir + ": cannot create the directory: it is a file");
      if (!std::ofstream(f)) throw ConfigError("--out " + out_dir + ": cannot write in the directory");
      fs::remove(f, ec);
    } else {  // a folder of this process's own in the deepest one there is (checks run in parallel)
      const fs::path probe = dir / (".ssdsim-check-" + std::to_string(getpid()));
      if (!fs::create_directory(probe, ec) || ec)
        throw ConfigError("--out " + out_dir + ": cannot create the directory: " +
                          (ec ? ec.message() : std::string("not a directory")));
      fs::remove(probe, ec);
    }
  }
  if (!s.report.requests_csv.empty()) probe(key(&ReportConfig::requests_csv), s.report.requests_csv);
  // The scratch folder: the VCD and what --out would hold, removed at the end.
  struct Scratch {
    fs::path dir = fs::temp_directory_path() / ("ssdsim-check-" + std::to_string(getpid()));
    ~Scratch() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } scratch;
  std::error_code ec;
  fs::create_directories(scratch.dir, ec);
  if (ec) throw std::runtime_error("--check: cannot make its scratch folder " + scratch.dir.string());
  std::unique_ptr<VcdWriter> vcd;
  if (!topts.path.empty()) {
    probe(key(&TraceConfig::vcd), topts.path);
    topts.path = (scratch.dir / "check.vcd").string();
    vcd = open_vcd(cfg, topts);
  }
  std::uint64_t records = 0;
  const std::string& kind = s.workload.kind;
  if (kind == "nand_ops") {
    NandScriptReader r(s.workload.path, ncfg);
    ScriptCommand c;
    while (r.next(c)) ++records;
  } else {
    FullSsd top("ssd", cfg, vcd.get(), out_dir.empty() ? "" : scratch.dir.string(), /*check_only=*/true);
    check_scopes(cfg, vcd.get());
    if (kind == "trace") records = top.host->read_whole_workload();
  }
  vcd.reset();  // closed before its folder goes
  RunOutputs::discard();  // the files the model opened for a run that will not happen
  std::cout << "ssdsim: the configuration is valid";
  if (kind != "synthetic") std::cout << " (" << records << (kind == "trace" ? " requests" : " commands") << " read)";
  std::cout << '\n';
  return 0;
}

// --preset's help: the presets there are (the files of configs/presets), by name.
const std::string& preset_help() {
  static const std::string text = [] {
    std::string names;
    try {
      for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
    } catch (const std::exception&) {  // no presets folder: --preset says so when used
    }
    return "a preset, configs/presets/NAME.json" + (names.empty() ? std::string() : ": " + names) +
           " (--list-presets describes them)";
  }();
  return text;
}

int run(int argc, char** argv) {
  const auto wall_start = std::chrono::steady_clock::now();
  po::options_description opts("ssdsim options");
  std::string config_path, preset = "default", out_dir;
  std::vector<std::string> sets;
  const std::string vcd_key = key(&TraceConfig::vcd), csv_key = key(&ReportConfig::requests_csv);
  const std::string out_help = "write the run's files in DIR: stats.json, config.json, timeseries.csv (" +
                               key(&ReportConfig::interval_us) + "), view.gtkw and where.txt (" + vcd_key +
                               "); a relative " + vcd_key + " or " + csv_key + " goes inside DIR";
  opts.add_options()
      ("help,h", "show this help")
      ("config", po::value(&config_path), "JSON configuration file")
      ("preset", po::value(&preset), preset_help().c_str())
      ("set", po::value(&sets)->composing(), "KEY=VALUE, overrides the file (repeatable)")
      ("out", po::value(&out_dir), out_help.c_str())
      ("list-keys", po::value<std::string>()->implicit_value("text"),
       "list every configuration key with its value and range; --list-keys=markdown: as docs/keys.md's tables")
      ("check", "check the configuration with every rule a run applies, and read a trace or NAND script through, "
                "without running: exit 0 if valid, 2 with the error")
      ("list-presets", "list the presets (the files of configs/presets)")
      ("resolve-start", ("run the start pilot of " + key(&ctrl::PreconditionConfig::free) +
                         " = auto (docs/controller.md, \"The start state\"), print the " +
                         key(&ctrl::PreconditionConfig::free_blocks) +
                         " it chooses as a --set assignment, and exit (nothing printed when the configuration "
                         "needs no pilot)").c_str());
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
    // Options take their values after their names; a bare word is a mistake (most often
    // a config file given without --config), never ignored.
    for (const std::string& word : po::collect_unrecognized(parsed.options, po::include_positional))
      throw po::error("unexpected argument '" + word + "' (a config file goes after --config)");
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "ssdsim: error: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << "usage: ssdsim [--config FILE.json] [--preset NAME] [--set KEY=VALUE]... [--out DIR]\n"
              << opts;
    return 0;
  }
  if (vm.count("list-presets")) {
    for (const Preset& p : presets()) std::cout << p.name << ": " << p.description << '\n';
    return 0;
  }

  Config cfg = make_config();
  apply_preset(cfg, preset);
  if (!config_path.empty()) cfg.load_file(config_path);
  for (const std::string& s : sets) cfg.set_assignment(s);
  resolve_defaults(cfg);
  if (vm.count("list-keys")) {
    const std::string form = vm["list-keys"].as<std::string>();
    if (form != "text" && form != "markdown")
      throw ConfigError("--list-keys=" + form + ": expected text or markdown");
    std::cout << (form == "markdown" ? cfg.describe_markdown() : cfg.describe());
    return 0;
  }
  const std::vector<std::pair<std::string, std::string>> given = outputs_under_out(cfg, out_dir);
  if (vm.count("check")) return check_only(cfg, out_dir);
  if (vm.count("resolve-start")) {
    const StartPilot pilot = resolve_start_state(cfg);
    if (pilot.ran)
      std::cout << key(&ctrl::PreconditionConfig::free_blocks) << "=" << free_blocks_text(pilot.choice.free_blocks)
                << '\n';
    return 0;
  }
  const Settings s = settings(cfg);  // the parse and validate steps (the model's build repeats them)
  const nand::NandConfig& ncfg = s.ftl.nand;
  const TraceOptions topts = trace_options(cfg);
  check_outputs(cfg, s, out_dir);
  std::filesystem::path out;
  if (!out_dir.empty()) {
    out = out_dir;
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw ConfigError("--out " + out_dir + ": cannot create the directory: " + ec.message());
    for (const char* f : {"stats.json", "config.json"}) {  // refused now, not after the run
      std::ofstream probe(RunOutputs::partial((out / f).string()), std::ios::trunc);
      if (!probe) throw ConfigError("--out " + out_dir + ": cannot write " + (out / f).string());
    }
  }

  if (s.workload.kind != "nand_ops") {
    const auto wall0 = std::chrono::steady_clock::now();
    (void)wall0;
    std::unique_ptr<VcdWriter> vcd = open_vcd(cfg, topts);
    std::cerr << "ssdsim: " << ncfg.channels << " ch x " << ncfg.chips_per_channel << " chips x "
              << ncfg.dies_per_chip << " dies x " << ncfg.planes_per_die << " planes, "
              << raw_size(ncfg) << " raw; ";
    if (!s.streams.empty()) {  // workload.streams: each stream run, on a line of its own
      std::cerr << s.streams.size() << " streams" << (s.host.interface == "nvme" ? " over NVMe" : "") << '\n';
      for (std::size_t i = 0; i < s.streams.size(); ++i) {
        if (s.report.stream_only >= 0 && static_cast<std::size_t>(s.report.stream_only) != i) continue;
        const host::WorkloadConfig& w = s.streams[i].workload;
        std::cerr << "  stream " << i << ": ";
        if (w.kind == "trace") std::cerr << "trace " << w.path << " (" << w.format << "), " << w.replay << " replay";
        else std::cerr << describe_synthetic(w);
        if (s.host.interface == "nvme")
          std::cerr << "; " << s.streams[i].stream.queues << " queue" << (s.streams[i].stream.queues == 1 ? "" : "s")
                    << ", " << s.streams[i].stream.priority;
        std::cerr << '\n';
      }
    } else if (s.workload.kind == "trace")
      std::cerr << "trace " << s.workload.path << " (" << s.workload.format << "), " << s.workload.replay
                << " replay\n";
    else
      std::cerr << describe_synthetic(s.workload) << '\n';
    const StartPilot pilot = resolve_start_state(cfg);  // before this process's model: see start_pilot.h
    FullSsd top("ssd", cfg, vcd.get(), out_dir);
    top.pilot = pilot;
    check_scopes(cfg, vcd.get());
    sc_core::sc_start();
    if (vcd) vcd->finish(sc_core::sc_time_stamp().value());
    host::HostDriver& h = *top.host;
    for (const std::string& e : h.errors()) std::cerr << "ssdsim: error: " << e << '\n';
    if (h.input_error()) return 2;  // stopped on bad input: transactions were left in flight
    h.pool().check_all_returned();
    top.firmware->pool().check_all_returned();
    top.sched->resume_pool().check_all_returned();
    RunFigures fig;
    fig.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    fig.peak_rss_mb = peak_rss_mb();
    fig.precondition_seconds = top.precondition_seconds;
    fig.simulation_seconds = top.simulation_seconds();
    fig.process_activations = g_process_activations;
    for (int k = 0; k < kActSources; ++k) fig.activations_by[k] = g_activations_by[k];
    const FullSsd::AccelCounts accel = top.accel_counts();
    fig.lookahead_hints = accel.lookahead_hints;
    fig.lookahead_thread_requests = accel.lookahead_thread_requests;
    fig.lookahead_thread = accel.lookahead_thread;
    fig.cpus_allowed = accel.cpus_allowed;
    fig.cpus_online = accel.cpus_online;
    fig.load_average = accel.load_average;
    fig.decisions_ahead = accel.decisions_ahead;
    fig.image_results = accel.image_results;
    fig.image_lookups_precomputed = accel.image_lookups_precomputed;
    fig.image_lookups_computed = accel.image_lookups_computed;
    if (top.calibrator) {
      fig.kernel_activations_per_second = top.calibrator->activations_per_second();
      fig.kernel_peq_events_per_second = top.calibrator->peq_events_per_second();
      fig.wall_seconds -= top.calibrator->seconds();  // the calibration is not the model's time
    }
    FullSsd::Audit audit;
    if (s.report.audit) {
      audit = top.audit();
      fig.audited = true;
      fig.audited_pages = audit.pages;
      fig.audit_mismatches = audit.mismatches;
    }
    FullRun run{*top.host, top.front(), *top.firmware, *top.sched, *top.nand, top.window(), top.ftl_at_start,
                      top.ftl_at_end, top.precondition_state, s.policy.write_policy, top.warmup,
                      top.steady.get(), top.steady_window_start_request, top.steady_round_requests, &top.pilot,
                      &top.free_at_finish, top.precondition_gc_pending,
                      top.ledger ? &top.power : nullptr, top.power_mode, top.nvme.get(), {}};
    if (!s.streams.empty()) {  // workload.streams: the streams run, alone too with report.stream_alone
      std::vector<std::size_t> ran;
      for (std::size_t i = 0; i < s.streams.size(); ++i)
        if (s.report.stream_only < 0 || static_cast<std::size_t>(s.report.stream_only) == i) ran.push_back(i);
      std::vector<double> alone;
      if (s.report.stream_alone) {
        try {
          alone = stream_alone_means(cfg, ran);
        } catch (const std::exception& e) {
          std::cerr << "ssdsim: error: " << e.what() << '\n';
          return 1;
        }
      }
      for (std::size_t k = 0; k < ran.size(); ++k)
        run.streams.push_back({ran[k], s.streams[ran[k]].stream.priority, s.streams[ran[k]].stream.queues,
                               k < alone.size() ? alone[k] : -1.0});
    }
    print_full_summary(std::cout, run, fig);
    std::vector<std::string> wrote;  // besides the files of RunOutputs
    if (vcd) wrote.push_back(vcd->path());
    if (vcd) {
      std::cout << "  waveform            " << vcd->path() << " (" << vcd->changes_written() << " changes; view: ";
      if (!out.empty())
        std::cout << "gtkwave " << write_view(out, *vcd, ncfg, top.host->first_submit(), top.watch.get(), wrote)
                  << ")\n";
      else std::cout << "gtkwave " << vcd->path() << " " << data_dir() << "/waves/nand.gtkw, or give --out DIR)\n";
    }
    if (top.watch) {
      top.watch->print_timelines(std::cout);
      for (std::uint64_t id : top.watch->unseen())
        std::cerr << "ssdsim: warning: request " << id << " (" << key(&TraceConfig::request) << " or "
                  << key(&ReportConfig::request_timeline) << ") was not reached: the run has " << h.completed()
                  << " requests\n";
      for (const auto& [id, pages] : top.watch->beyond_slots())
        std::cerr << "ssdsim: note: traced request " << id << " has " << pages << " pages; the VCD shows the first "
                  << top.watch->page_slots() << " (" << key(&TraceConfig::request_pages) << "), its timeline all\n";
    }
    if (!out.empty()) {
      std::string stats;
      json::write(stats, full_stats(run, fig));
      write_file(RunOutputs::partial((out / "stats.json").string()), stats + "\n");
      write_file(RunOutputs::partial((out / "config.json").string()), config_json(cfg, given));
    }
    std::vector<std::string> files = RunOutputs::pending();
    RunOutputs::commit();  // the run completed: its files take their names
    if (top.series)
      for (std::string& f : files)
        if (std::filesystem::path(f).lexically_normal() == (out / "timeseries.csv").lexically_normal())
          f += " (" + std::to_string(top.series->rows()) + " rows)";
    files.insert(files.end(), wrote.begin(), wrote.end());
    print_wrote(std::cout, files);
    if (h.mismatches()) {
      std::cerr << "ssdsim: error: " << h.mismatches() << " data mismatches\n";
      return 1;
    }
    if (audit.mismatches) {
      std::cerr << "ssdsim: error: the audit found " << audit.mismatches << " logical pages lost or wrong; first: "
                << audit.first << '\n';
      return 1;
    }
    return h.errors().empty() ? 0 : 1;
  }

  // A flash command the script gets wrong is reported by the driver with its line.
  sc_core::sc_report_handler::set_actions(nand::NandChannel::kProtocolError, sc_core::SC_DO_NOTHING);
  // A failed run stops with sc_stop(); its own error message says why.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  std::unique_ptr<VcdWriter> vcd = open_vcd(cfg, topts);
  const std::size_t keep = s.report.timeline ? s.report.timeline_max : 0;
  Ssd top("ssd", ncfg, s.workload.path, keep, vcd.get());
  check_scopes(cfg, vcd.get());
  std::cerr << "ssdsim: " << ncfg.channels << " ch x " << ncfg.chips_per_channel << " chips x "
            << ncfg.dies_per_chip << " dies x " << ncfg.planes_per_die << " planes, "
            << raw_size(ncfg) << " raw; workload " << s.workload.kind << " " << s.workload.path << '\n';
  sc_core::sc_start();
  if (vcd) vcd->finish(sc_core::sc_time_stamp().value());

  NandScriptDriver& drv = *top.host;
  if (!drv.errors().empty()) {
    for (const std::string& e : drv.errors()) std::cerr << "ssdsim: error: " << e << '\n';
    // In a NAND script every error but a data mismatch is the script's own fault.
    return drv.mismatches() ? 1 : 2;
  }
  drv.pool().check_all_returned();

  RunFigures fig;
  fig.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  fig.peak_rss_mb = peak_rss_mb();
  if (keep > 0) print_timeline(std::cout, drv, keep);
  const WindowFigures win = nand_window(*top.nand, drv.last_completion());
  print_nand_ops_summary(std::cout, drv, *top.nand, win, fig);
  std::vector<std::string> wrote;
  if (vcd) wrote.push_back(vcd->path());
  if (vcd) {
    std::cout << "  waveform            " << vcd->path() << " (" << vcd->changes_written() << " changes; view: ";
    if (!out.empty()) std::cout << "gtkwave " << write_view(out, *vcd, ncfg, 0, nullptr, wrote) << ")\n";
    else std::cout << "gtkwave " << vcd->path() << " " << data_dir() << "/waves/nand.gtkw, or give --out DIR)\n";
  }
  if (!out.empty()) {
    std::string stats;
    json::write(stats, nand_ops_stats(drv, *top.nand, win, fig));
    write_file(RunOutputs::partial((out / "stats.json").string()), stats + "\n");
    write_file(RunOutputs::partial((out / "config.json").string()), config_json(cfg, given));
  }
  std::vector<std::string> files = RunOutputs::pending();
  RunOutputs::commit();
  files.insert(files.end(), wrote.begin(), wrote.end());
  print_wrote(std::cout, files);
  return 0;
}

}  // namespace

// The program's entry: SystemC's banner is turned off (the kernel prints it when its
// first object is made, unless SYSTEMC_DISABLE_COPYRIGHT_MESSAGE is set to anything),
// so that ssdsim's output is its own; then SystemC's own entry, which calls sc_main.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
  // Files of a run that did not complete are removed, whatever stopped it.
  struct Discard {
    ~Discard() { RunOutputs::discard(); }
  } discard;
  try {
    return run(argc, argv);
  } catch (const ConfigError& e) {
    std::cerr << "ssdsim: error: " << e.what() << '\n';
    return 2;
  } catch (const ScriptError& e) {
    std::cerr << "ssdsim: error: " << e.what() << '\n';
    return 2;
  } catch (const host::InputError& e) {  // a workload's record (ssdsim --check reads them all)
    std::cerr << "ssdsim: error: " << e.what() << '\n';
    return 2;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "ssdsim: error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ssdsim: error: " << e.what() << '\n';
    return 1;
  }
}
