#include "sc_main/full_ssd.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/splitmix.h"
#include "sc_main/nand_backdoor.h"
#include "controller/policies.h"
#include "controller/read_unit.h"
#include "sc_main/run_outputs.h"
#include "sc_main/settings.h"
#include "sc_main/sim_config.h"
#if SSD_RTL
#include "rtl/rtl_model.h"
#endif

namespace ssd {

using param::key;

// The composition root: parse and validate (settings(): every key into its struct, the
// rules between keys), build the NAND and the firmware with its policies, precondition
// (time 0's image: simulation work, timed apart), build the scheduler block, host
// interface, host and reports, and bind the sockets.
FullSsd::FullSsd(sc_core::sc_module_name name, const Config& cfg, VcdWriter* vcd, const std::string& out_dir,
                 bool check_only, Policies policies)
    : sc_module(name) {
  const Settings s = settings(cfg);
  Built b = build_device(cfg, s, vcd, std::move(policies));
  precondition(cfg, s, check_only);
  build_front(cfg, s, b, vcd, out_dir, check_only);
  build_power(cfg, s, vcd);
  bind();
}

// The FTL's view of the NAND: the good blocks only (the factory bad-block marks, read
// before time 0).
ctrl::FtlConfig FullSsd::ftl_with_bad_blocks(const Config& cfg, const Settings& s) {
  ctrl::FtlConfig fcfg = s.ftl;
  fcfg.failures = fcfg.nand.fault.failures();
  if (fcfg.nand.fault.bad_block_fraction <= 0) return fcfg;
  const std::string& bad_key = key(&nand::FaultConfig::bad_block_fraction);
  const nand::NandConfig& n = fcfg.nand;
  const nand::FaultModel marks(n.fault, n.channels, n.chips_per_channel, n.dies_per_chip, n.planes_per_die,
                               n.blocks_per_plane, n.pages_per_block);
  if (marks.bad_blocks_per_plane() + 4 > n.blocks_per_plane)
    throw ConfigError(cfg.locate(bad_key + " leaves " + std::to_string(n.blocks_per_plane - marks.bad_blocks_per_plane()) +
                                 " good blocks per plane: the FTL needs at least 4"));
  ctrl::FtlConfig good = fcfg;  // the FTL sees the good blocks only
  good.nand.blocks_per_plane -= marks.bad_blocks_per_plane();
  const std::vector<std::string> errs = good.validate();
  if (!errs.empty())
    throw ConfigError(cfg.locate(bad_key + " leaves " + std::to_string(good.nand.blocks_per_plane) +
                                 " good blocks per plane: " + errs.front()));
  for (std::uint32_t p = 0; p < n.chips() * n.dies_per_chip * n.planes_per_die; ++p)
    fcfg.factory_bad.push_back(marks.bad_blocks(p));
  return fcfg;
}

FullSsd::Built FullSsd::build_device(const Config& cfg, const Settings& s, VcdWriter* vcd, Policies policies) {
  Built b;
  // The latency parts of suspend and resume are this run's if it suspends, the map log's
  // if it journals, the wordline wait with cells of n bits or mapping units smaller than a
  // page (latency_parts.h).
  optional_parts() = (s.sched.suspend ? 0b11u : 0u) | (s.ftl.map_journal ? 0b100u : 0u) |
                     (s.ftl.nand.bits_per_cell > 1 || s.ftl.units_per_page() > 1 ? 0b1000u : 0u);
  ctrl::FtlConfig fcfg = ftl_with_bad_blocks(cfg, s);
  fcfg.nand.units_per_page = fcfg.units_per_page();  // the NAND keeps each mapping unit's data
  b.nand = fcfg.nand;
  ctrl::FirmwareConfig fw = s.fw;
  fw.ecc.on = fcfg.nand.fault.bit_errors();
  fw.ecc.retry_steps = fcfg.nand.fault.retry_steps;
  b.sched = s.sched;
  if (b.sched.reschedule.on()) {
    // The block holds the whole queue and finds the n-plane commands itself (the rules
    // refuse a batch depth given with it).
    fw.batch_depth = 0;
    fw.mark_hazards = true;
  }
  try {
    b.block_policy = ctrl::make_sched_policy(s.policy.scheduler, fcfg.nand, s.sched.read_first, fw.gc_yields,
                                             b.sched.reschedule);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(cfg.locate(e.what()));
  }
  // Independent plane reads: the block's unit for reads is a plane (docs/scheduler.md).
  if (fcfg.nand.independent_plane_reads && s.sched.plane_reads) b.block_policy->set_plane_reads(true);
  b.form = b.block_policy->rtl_form();
  fw.batch_order.by_priority = b.form.by_priority;  // the stage's batching keeps the block's order
  fw.batch_order.read_first = b.form.read_first;
  nand = std::make_unique<nand::NandDevice>("nand", fcfg.nand, vcd);
  firmware = std::make_unique<ctrl::FirmwareCore>(
      "firmware", fcfg, fw,
      policies.allocator ? std::move(policies.allocator) : ctrl::make_write_allocator(s.policy.write_policy, fcfg),
      policies.release ? std::move(policies.release) : ctrl::make_firmware_scheduler(s.policy.firmware_sched, s.sos));
  return b;
}

void FullSsd::precondition(const Config& cfg, const Settings& s, bool check_only) {
  ctrl::Ftl& ftl = firmware->ftl();
  const ctrl::PreconditionConfig& st = s.start;
  const auto t0 = std::chrono::steady_clock::now();
  preconditioned = static_cast<std::uint64_t>(st.fraction * static_cast<double>(ftl.logical_pages()));
  if (preconditioned) {
    const std::uint32_t free_blocks = precondition_free_blocks(st.free, ftl.gc_low_mark(), ftl.gc_reserve());
    // auto: the planes start around the mean the start pilot chose (sc_main/start_pilot.h).
    const double mean_free = st.free_blocks;
    const bool by_mean = st.age > 0 && st.free == "auto";
    const std::string& mean_key = key(&ctrl::PreconditionConfig::free_blocks);
    if (by_mean && mean_free > 0 && (mean_free < ftl.gc_reserve() + 1 || mean_free > ftl.gc_low_mark()))
      throw ConfigError(cfg.locate(mean_key + " = " + std::to_string(mean_free) + " is outside [" +
                                   std::to_string(ftl.gc_reserve() + 1) + ", " + std::to_string(ftl.gc_low_mark()) +
                                   "] (the last reserve + 1 to the GC low mark of this device)"));
    if (by_mean && mean_free == 0 && !check_only)
      throw ConfigError(cfg.locate(key(&ctrl::PreconditionConfig::free) +
                                   " = auto starts the planes where a pilot run of the workload puts them: run "
                                   "resolve_start_state (ssdsim does) or set " + mean_key));
    if (!check_only) {
      ctrl::NandBackdoor backdoor(*nand);
      const std::uint64_t seed = s.workload.seed;
      auto token = [](std::uint64_t lpn) { return precondition_token(lpn); };
      if (by_mean) ftl.precondition_image_mean(preconditioned, st.age, seed, backdoor, token, mean_free);
      else ftl.precondition_image(preconditioned, st.age, seed, backdoor, token, free_blocks);
      if (st.age > 0) {
        precondition_gc_copies = firmware->resume_gc(seed, backdoor);
        precondition_gc_pending = firmware->firmware().gc().copies_pending();
      }
      precondition_state = st.age > 0 ? (by_mean ? "workload" : st.free) : "written_once";
    }
  }
  if (!check_only) {  // the map log's and the SLC cache's blocks as the firmware keeps them (SLC mode)
    ctrl::NandBackdoor backdoor(*nand);
    ftl.format_map_log(backdoor);
    ftl.format_slc(backdoor);
  }
  precondition_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<host::RequestSource> FullSsd::make_source(const Config& cfg, const Settings& s) {
  return make_source(cfg, s, s.workload, !cfg.is_default(&host::WorkloadConfig::requests), "");
}

// `w`: the workload (workload.*, or a stream's); `limit_given`: whether its request count
// was set (a trace replays whole unless asked); `item`: the stream's key prefix for errors
// ("" for workload.*).
std::unique_ptr<host::RequestSource> FullSsd::make_source(const Config& cfg, const Settings& s,
                                                          const host::WorkloadConfig& w, bool limit_given,
                                                          const std::string& item) {
  using host::WorkloadConfig;
  // A key of `w` as the user wrote it: workload.NAME, or the stream's item.NAME.
  const auto wkey = [&item](auto WorkloadConfig::*m) {
    const std::string k = key(m);
    return item.empty() ? k : item + k.substr(std::string("workload.").size());
  };
  const std::uint64_t capacity_sectors = firmware->ftl().logical_pages() * firmware->sectors_per_page();
  std::unique_ptr<host::RequestSource> source;
  if (w.kind == "trace") {
    host::TraceSourceConfig t;
    t.path = w.path;
    t.format = host::parse_trace_format(w.format);
    t.device = w.device;
    t.timed = w.replay == "timed";
    t.time_scale = w.time_scale;
    t.limit = limit_given ? w.requests : 0;  // a trace replays whole unless asked
    t.out_of_range = w.out_of_range == "wrap"   ? host::OutOfRange::Wrap
                     : w.out_of_range == "skip" ? host::OutOfRange::Skip
                                                : host::OutOfRange::Error;
    t.capacity_sectors = capacity_sectors;
    try {
      source = std::make_unique<host::TraceSource>(t);
    } catch (const host::TraceError& e) {
      throw ConfigError(wkey(&WorkloadConfig::path) + ": " + e.what());
    }
  } else {
    const std::uint64_t largest = std::max(w.size_bytes, w.size_max_bytes);
    if (largest > capacity_sectors * 512)
      throw ConfigError(cfg.locate((w.size_max_bytes > w.size_bytes ? wkey(&WorkloadConfig::size_max_bytes) : wkey(&WorkloadConfig::size_bytes)) +
                                   " = " + std::to_string(largest) +
                                   " is larger than the device's logical capacity of " +
                                   std::to_string(capacity_sectors * 512) + " bytes"));
    if (w.duration_us > kMaxInputUs) {
      std::ostringstream os;
      os << wkey(&WorkloadConfig::duration_us) << " = " << w.duration_us
         << " is past the simulated time range (2^63 ps, " << kMaxInputUs << " us)";
      throw ConfigError(cfg.locate(os.str()));
    }
    host::SyntheticConfig g;
    g.requests = w.requests;
    g.size_max_bytes = w.size_max_bytes;
    g.align_bytes = w.align_bytes;
    g.zipf_theta = w.zipf_theta;
    g.rate_iops = w.rate_iops;
    g.duration = us_to_ticks(w.duration_us);
    g.read_ratio = w.read_ratio;
    g.trim_ratio = w.trim_ratio;
    g.flush_every = w.flush_every;
    g.fua_ratio = w.fua_ratio;
    g.size_bytes = w.size_bytes;
    g.sequential = w.pattern == "sequential";
    g.seed = w.seed;
    g.capacity_sectors = capacity_sectors;
    source = std::make_unique<host::SyntheticSource>(g);
  }
  // What the host interface carries at most in one command: larger requests are split.
  return std::make_unique<host::SplitSource>(std::move(source), s.host.max_transfer_sectors);
}

void FullSsd::build_front(const Config& cfg, const Settings& s, Built& b, VcdWriter* vcd, const std::string& out_dir,
                          bool check_only) {
  const nand::NandConfig& ncfg = b.nand;
  sched = std::make_unique<ctrl::FlashSched>("sched", b.sched, ncfg, std::move(b.block_policy));
  const std::string& rtl = s.sched.rtl;
  if (rtl != "off") {
    const std::string& rtl_key = key(&ctrl::SchedConfig::rtl);
    if (ncfg.independent_plane_reads && s.sched.plane_reads && !b.form.ios)
      throw ConfigError(cfg.locate(rtl_key + " = " + rtl + " with " + key(&nand::NandConfig::independent_plane_reads) +
                                   " = true: the Verilog block does not have the plane reads of HOS yet (a chip's "
                                   "later read passing its candidate read, docs/scheduler.md); use " +
                                   key(&ctrl::SchedConfig::plane_reads) + " = false, or " + rtl_key + " = off"));
#if SSD_RTL
    std::string why;
    auto model = rtl::make_decision_model(ncfg, b.form.ios, b.form.read_first, b.form.by_priority,
                                          b.sched.reschedule, why,
                                          {b.sched.suspend, b.sched.suspend_gc_reads, b.sched.suspend_min_remaining_us,
                                           b.sched.suspend_hold_programs});
    if (!model) throw ConfigError(cfg.locate(rtl_key + " = " + rtl + ": " + why));
    if (vcd) model->trace(*vcd, std::string(sched->name()) + ".rtl");
    sched->set_decision_model(std::move(model), rtl == "on" ? ctrl::FlashSched::Twin::On : ctrl::FlashSched::Twin::Check);
#else
    throw ConfigError(cfg.locate(rtl_key + " = " + rtl + ": this build has no verilated block (built with -DSSD_RTL=OFF)"));
#endif
  }
  // workload.streams (report.stream_only: one of them, its queues as in the shared run).
  std::vector<std::size_t> run_streams;
  for (std::size_t i = 0; i < s.streams.size(); ++i)
    if (s.report.stream_only < 0 || static_cast<std::size_t>(s.report.stream_only) == i) run_streams.push_back(i);
  if (s.host.interface == "nvme") {
    ctrl::NvmeConfig nc = s.nvme;
    if (!s.streams.empty()) {
      using P = ctrl::NvmeArbiter::Priority;
      nc.queue_classes.clear();
      for (const StreamSettings& st : s.streams) {
        const std::string& p = st.stream.priority;
        const P c = p == "urgent" ? P::Urgent : p == "high" ? P::High : p == "low" ? P::Low : P::Medium;
        nc.queue_classes.insert(nc.queue_classes.end(), st.stream.queues, c);
        if (st.stream.weight && c == P::High) nc.weight_high = st.stream.weight;
        if (st.stream.weight && c == P::Medium) nc.weight_medium = st.stream.weight;
        if (st.stream.weight && c == P::Low) nc.weight_low = st.stream.weight;
      }
    }
    try {
      nvme = std::make_unique<ctrl::NvmeFrontEnd>("hif", nc, s.pcie);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(cfg.locate(key(&host::HostConfig::interface) + " = nvme: " + e.what()));
    }
    nvme_host = std::make_unique<host::NvmeHost>("nvme_host", s.nvme.queues, s.nvme.queue_depth);
    if (!s.streams.empty()) {  // host stream k (of those run) writes to its stream's queues
      std::vector<std::uint32_t> base(s.streams.size()), first, count;
      for (std::size_t i = 1; i < s.streams.size(); ++i) base[i] = base[i - 1] + s.streams[i - 1].stream.queues;
      for (const std::size_t i : run_streams) {
        first.push_back(base[i]);
        count.push_back(s.streams[i].stream.queues);
      }
      nvme_host->set_stream_queues(std::move(first), std::move(count));
    }
  } else {
    iface = std::make_unique<ctrl::HostIface>("hif", s.hif.ncq_depth, s.hif.link_mb_s);
  }
  std::vector<std::unique_ptr<host::RequestSource>> more;  // streams after the first run
  std::vector<unsigned> more_qd;
  std::unique_ptr<host::RequestSource> source;
  unsigned first_qd = s.workload.queue_depth;
  if (s.streams.empty()) {
    source = make_source(cfg, s);
  } else {
    for (const std::size_t i : run_streams) {
      const std::string item = std::string(host::kStreamsPrefix) + "." + std::to_string(i) + ".";
      const host::WorkloadConfig& w = s.streams[i].workload;
      const std::string req = item + "requests";  // a trace stream replays whole unless its own is given
      auto src = make_source(cfg, s, w, cfg.has(req) && !cfg.is_default(req), item);
      if (!source) {
        source = std::move(src);
        first_qd = w.queue_depth;
      } else {
        more.push_back(std::move(src));
        more_qd.push_back(w.queue_depth);
      }
    }
  }
  host::HostDriver::SchedulerSetup hs;
  hs.kind = host::parse_scheduler(s.host.scheduler);
  hs.dispatch = host::parse_dispatch(s.host.dispatch);
  hs.queue_length = s.host.queue_length;
  hs.window_counts_outstanding = s.host.queue_window == "waiting_and_outstanding";
  // Location vectors follow the device's static allocation (Formula 1 for channel first,
  // chip second); GC and wear leveling keep data in its chip.
  const ctrl::Ftl* f = &firmware->ftl();
  hs.locations = std::make_shared<host::LocationMapper>(
      static_cast<unsigned>(ncfg.chips()), ncfg.page_bytes,
      [f](std::uint64_t page) { return f->chip_of_plane(f->plane_of_lpn(page)); });
  if (ncfg.chips() > host::LocationVector::kMaxChips)
    throw ConfigError("the host schedulers handle at most 1024 chips (" + key(&nand::NandConfig::channels) + " x " +
                      key(&nand::NandConfig::chips_per_channel) + ")");
#if SSD_ACCEL
  // The lookahead thread reads the workload a second time, from its own source; auto:
  // only where a second core is free for it (accel/cpu_share.h).
  cpu_share = accel::read_cpu_share();
  const std::string& thread_mode = s.host.lookahead_thread;
  lookahead_thread = s.host.lookahead && s.streams.size() <= 1 &&
                     (thread_mode == "true" || (thread_mode == "auto" && accel::second_core_free(cpu_share)));
  std::unique_ptr<host::RequestSource> replica;
  if (lookahead_thread) replica = source->reopen();
#endif
  host = std::make_unique<host::HostDriver>("host", std::move(source), first_qd,
                                            firmware->ftl().logical_pages(),
                                            static_cast<std::uint32_t>(firmware->sectors_per_page()), preconditioned, hs);
  for (std::size_t k = 0; k < more.size(); ++k) host->add_stream(std::move(more[k]), more_qd[k]);
  host->set_progress(3.0);  // a progress line every 3 s of wall time
  if (s.workload.duration_us > 0) host->set_time_limit(us_to_ticks(s.workload.duration_us));
  build_reports(cfg, s, out_dir, check_only);
#if SSD_ACCEL
  accel::LookaheadConfig la;
  la.hints = s.host.lookahead;
  la.thread = lookahead_thread;
  lookahead = std::make_unique<accel::Lookahead>(*host, *firmware, std::move(replica), la);
  block_ahead = std::make_unique<accel::BlockAhead>(*sched, *nand, *lookahead, s.sched.decide_ahead);
#endif
  if (vcd) {  // every layer's signals, under its module's name (trace.scopes filters)
    host->trace(*vcd, host->name());
    front().trace(*vcd, nvme ? nvme->name() : iface->name());
    firmware->trace(*vcd, firmware->name());
    sched->trace(*vcd, sched->name());
  }
  RequestWatch::Setup ws;
  ws.traced = request_ids(cfg, key(&TraceConfig::request));
  ws.timeline = request_ids(cfg, key(&ReportConfig::request_timeline));
  if (!ws.traced.empty() && !vcd)  // a caller that gives trace.vcd but no writer
    throw ConfigError(cfg.locate(key(&TraceConfig::request) + " shows requests in the VCD: it needs a VCD writer"));
  if (!ws.traced.empty() || !ws.timeline.empty()) {
    ws.page_slots = s.trace.request_pages;
    ws.nand = ncfg;
    ws.sectors_per_page = firmware->sectors_per_page();
    watch = std::make_unique<RequestWatch>(ws, vcd);
    host->set_life_listener(watch.get());
    front().set_life_listener(watch.get());
    firmware->set_life_listener(watch.get());
    sched->set_life_listener(watch.get());
    for (unsigned c = 0; c < ncfg.channels; ++c) nand->channel(c).set_life_listener(watch.get());
  }
}

// The statistics' window, its warm-up, the request CSV, the time series and the kernel
// calibration.
void FullSsd::build_reports(const Config& cfg, const Settings& s, const std::string& out_dir, bool check_only) {
  const ReportConfig& r = s.report;
  if (!check_only && !r.requests_csv.empty()) {  // --check probes it itself
    try {
      host->write_requests_csv(RunOutputs::partial(r.requests_csv));
    } catch (const std::runtime_error&) {
      throw ConfigError(key(&ReportConfig::requests_csv) + ": cannot write " + r.requests_csv);
    }
  }
  if (r.calibrate_kernel) calibrator = std::make_unique<KernelCalibrator>("calibrator", 400000, 10);
  if (r.warmup_us > kMaxInputUs)
    throw ConfigError(cfg.locate(key(&ReportConfig::warmup_us) + " is past the simulated time range (2^63 ps)"));
  auto start_window = [this](Tick now) {
    window_start = full_ticks(*nand, *firmware, front(), now);
    ftl_at_start = FtlCounters::of(firmware->firmware());
  };
  warmup = warmup_mode(s);
  if (warmup == "auto") {
    steady = std::make_unique<SteadyStateRule>(
        std::vector<std::string>{"write_amplification", "iops", "read_mean_us", "write_mean_us"},
        r.warmup_window_rounds);
    host->set_warmup(0, 0, start_window);
    steady_round_requests = r.warmup_round_requests;
    host->set_rounds(steady_round_requests, [this](const host::HostDriver::Round& round) { on_round(round); });
  } else if (r.warmup_requests || r.warmup_us > 0) {
    host->set_warmup(r.warmup_requests, us_to_ticks(r.warmup_us), start_window);
  }
  if (r.interval_us > 0) {
    const std::string& interval_key = key(&ReportConfig::interval_us);
    if (out_dir.empty())
      throw ConfigError(cfg.locate(interval_key + " writes timeseries.csv into the --out directory: give --out DIR"));
    if (r.interval_us > kMaxInputUs)
      throw ConfigError(cfg.locate(interval_key + " is past the simulated time range (2^63 ps)"));
    const Tick interval = us_to_ticks(r.interval_us);
    if (interval == 0) throw ConfigError(cfg.locate(interval_key + " is below the model's resolution of 1 ps"));
    try {
      series = std::make_unique<TimeSeries>("series", RunOutputs::partial((std::filesystem::path(out_dir) / "timeseries.csv").string()), interval,
                                            *host, front(), *firmware, *nand);
    } catch (const std::runtime_error& e) {
      throw ConfigError(interval_key + ": " + e.what());
    }
  }
  host->on_finished([this] {
    sim_end = std::chrono::steady_clock::now();
    take_window();
    firmware->end_of_workload();
#if SSD_ACCEL
    lookahead->end_of_workload();
#endif
    if (series) series->finish(host->last_completion());
    if (calibrator) calibrator->start();
    if (ledger) {
      host_finished_ = true;
      if (buffer_drained()) finish_cuts();
    }
  });
}

void FullSsd::bind() {
  if (nvme) {
    host->socket.bind(nvme_host->upper);
    nvme_host->mmio.bind(nvme->mmio);
    nvme->memory.bind(nvme_host->memory);
    nvme->firmware.bind(firmware->host);
    host->set_commit_later(true);  // the device takes commands in the order it fetches them
    host::HostDriver* h = host.get();
    nvme_host->on_fetched([h](tlm::tlm_generic_payload& gp) { h->commit(gp); });
  } else {
    host->socket.bind(iface->host);
    iface->firmware.bind(firmware->host);
  }
  firmware->flash.bind(sched->target);
  sched->attach(*nand);
}

void FullSsd::start_of_simulation() {
#if SSD_ACCEL
  lookahead->start();
#endif
  sim_start = sim_end = std::chrono::steady_clock::now();
}

FullSsd::AccelCounts FullSsd::accel_counts() const {
  AccelCounts c;
#if SSD_ACCEL
  c.lookahead_hints = lookahead->hints();
  c.lookahead_thread_requests = lookahead->thread_requests();
  c.lookahead_thread = lookahead->thread_running();
  c.cpus_allowed = cpu_share.allowed;
  c.cpus_online = cpu_share.online;
  c.load_average = cpu_share.load;
  c.decisions_ahead = block_ahead->decided_ahead();
  if (const accel::ImageResultTable* t = lookahead->results()) {
    c.image_results = true;
    c.image_lookups_precomputed = t->hits();
    c.image_lookups_computed = t->misses();
  }
#endif
  return c;
}

void FullSsd::on_round(const host::HostDriver::Round& r) {
  const FtlCounters now = FtlCounters::of(firmware->firmware());
  const FtlCounters d = now - ftl_at_round;
  ftl_at_round = now;
  round_ops_total[0] += r.count[0];
  round_ops_total[1] += r.count[1];
  const std::uint64_t completed = host->completed();  // this round's last included
  SteadyStateRule::Round round;
  round.first_completion = completed - r.completed + 1;
  round.last_completion = completed;
  round.start_us = ticks_to_us(r.start);
  round.end_us = ticks_to_us(r.end);
  const double seconds = (round.end_us - round.start_us) / 1e6;
  // Write amplification: missing from a round without host pages programmed. A mean
  // latency: tracked for an op that is at least 5 % of the requests so far (a rarer one's
  // mean over a round is noise), missing from a round without it.
  const double wa = d.host_pages ? d.write_amplification() : SteadyStateRule::kMissing;
  double mean[2];
  for (int k = 0; k < 2; ++k)
    mean[k] = r.count[k] && 20 * round_ops_total[k] >= completed
                  ? ticks_to_us(r.latency_sum[k]) / static_cast<double>(r.count[k])
                  : SteadyStateRule::kMissing;
  round.values = {wa, seconds > 0 ? static_cast<double>(r.completed) / seconds : SteadyStateRule::kMissing, mean[0],
                  mean[1]};
  if (!steady->add(std::move(round))) return;
  host->stop_rounds();
  // Steady: the window starts at the next request's arrival, if one is left to come.
  const std::uint64_t expected = host->source().expected();
  if (expected && host->admitted() >= expected) return;
  steady_window_start_request = host->end_warmup_now();
}

void FullSsd::take_window() {
  const Tick end = std::max(host->last_completion(), window_start.at);
  window_at_finish = full_window(*nand, *firmware, front(), end, window_start);
  ftl_at_end = FtlCounters::of(firmware->firmware());
  const ctrl::Ftl& ftl = firmware->ftl();
  free_at_finish.resize(ftl.planes());
  for (std::uint32_t p = 0; p < ftl.planes(); ++p) free_at_finish[p] = ftl.free_blocks(p);
  window_taken = true;
}

// Power cuts (docs/controller.md, "Power loss"): the ledger the host keeps, the cuts'
// times (given, or drawn: a request of the workload and a time after its sending), and
// the process that makes them.
void FullSsd::build_power(const Config& cfg, const Settings& s, VcdWriter* vcd) {
  const PowerConfig& p = s.power;
  if (!p.on()) return;
  if (vcd) {  // the cuts made, and the last one's recovery scan (ns)
    vcd_ = vcd;
    tv_cuts_ = vcd->declare("ssd.power.cuts", 32);
    tv_recovery_ = vcd->declare("ssd.power.recovery_ns", 40);
  }
  power_mode = p.cut_mode;
  recovery_reads_ = std::make_unique<nand::ReadBurst>(firmware->ftl().part());
  const ctrl::CacheMode cache = s.fw.write_cache;
  ledger = std::make_unique<host::DurabilityLedger>(cache != ctrl::CacheMode::Volatile);
  host->set_ledger(ledger.get());
  for (double us : cut_times(p.cut_at_us)) cuts_due_.push_back(us_to_ticks(us));
  std::make_heap(cuts_due_.begin(), cuts_due_.end(), std::greater<>());
  if (p.cuts) {
    const std::uint64_t requests = host->source().expected();
    if (!requests)
      throw ConfigError(cfg.locate(key(&PowerConfig::cuts) +
                                   " draws requests of the workload to cut after: it needs a workload of a known "
                                   "number of requests (" + key(&host::WorkloadConfig::requests) + ", or a trace), not one bounded by time"));
    cut_rng_ = p.cut_seed;
    cut_window_ = us_to_ticks(p.cut_window_us);
    for (std::uint64_t i = 0; i < p.cuts; ++i)
      cut_requests_.push_back(1 + splitmix64::below(splitmix64::next(cut_rng_), requests));
    std::sort(cut_requests_.begin(), cut_requests_.end());
    // The k-th request sent, flushes not counted (workload.flush_every adds them beyond
    // the workload's count): a cut may fall anywhere in the workload.
    host->set_dispatch_hook([this](const HostCommand& c) {
      if (c.op == HostOp::Flush) return;
      const std::uint64_t k = ++cut_sends_;
      auto it = std::lower_bound(cut_requests_.begin(), cut_requests_.end(), k);
      bool any = false;
      for (; it != cut_requests_.end() && *it == k; ++it) {
        const Tick offset = splitmix64::below(splitmix64::next(cut_rng_), cut_window_ + 1);
        cuts_due_.push_back(sim_now() + offset);
        std::push_heap(cuts_due_.begin(), cuts_due_.end(), std::greater<>());
        any = true;
      }
      if (any) arm_cut();
    });
  }
  SC_HAS_PROCESS(FullSsd);
  SC_METHOD(on_cut);  // runs at initialization: arms the first cut
  sensitive << cut_event_;
}

void FullSsd::arm_cut() {
  if (!cuts_due_.empty()) cut_event_.notify(sc_delay(cuts_due_.front() - sim_now()));
}

void FullSsd::on_cut() {
  const Tick now = sim_now();
  // After the workload: cuts are made while the write buffer still holds pages (a cache
  // acknowledged them before they were on flash), not on a quiet device.
  if (host_finished_ && buffer_drained()) {
    finish_cuts();
    return;
  }
  while (!cuts_due_.empty() && cuts_due_.front() <= now) {
    std::pop_heap(cuts_due_.begin(), cuts_due_.end(), std::greater<>());
    cuts_due_.pop_back();
    buffered_at_cut_.clear();
    if (firmware->write_cache().protected_by_holdup())
      firmware->write_buffer().for_each_op([this](const ctrl::WritePath::Op& o) {
        if (o.ack == ctrl::WritePath::Ack::Given && !o.failed) buffered_at_cut_.emplace(o.lpn, o.known ? o.token : o.fresh);
      });
    const host::DurabilityLedger::Outcome o =
        ledger->audit([this](std::uint64_t lpn, std::vector<Token>& out) { after_cut(lpn, out); });
    // Recovery, its reads run on the NAND's engines (nand/read_burst.h): with a map log,
    // its last complete checkpoint and the journal since, read whole; then, once they are
    // in, the scan of the spare areas: the programmed pages of every plane's open blocks
    // (host and GC streams), and with a map log of every block holding a page whose
    // mapping update no programmed journal page holds.
    const ctrl::Ftl& ftl = firmware->ftl();
    const nand::NandConfig& n = ftl.config().nand;
    std::uint64_t log_pages = 0;
    Tick recovery = 0;
    const ctrl::MapLog* log = firmware->firmware().map_log();
    if (log) {
      const ctrl::MapLog::Reads r = log->reads();
      log_pages = r.checkpoint_pages + r.journal_pages;
      // The log is striped over every plane in its order (channel first): the pages past
      // a whole number per plane go to its first places.
      const std::uint32_t planes = ftl.planes();
      // With n > 1 bits per cell they are read in SLC mode.
      const bool slc = n.bits_per_cell > 1;
      for (std::uint32_t plane = 0; plane < planes; ++plane)
        recovery_reads_->add(plane, 0, log_pages / planes, 0, slc);
      for (std::uint32_t k = 0; k < log_pages % planes; ++k) recovery_reads_->add(log->plane_in_order(k), 0, 1, 0, slc);
      recovery += recovery_reads_->run();
    }
    std::uint64_t scan = 0;
    // The open blocks' written pages (the SLC cache's in SLC mode).
    const auto written = [&ftl](std::uint32_t b) { return b == ctrl::kUnmapped ? 0u : ftl.written_pages(b); };
    for (std::uint32_t plane = 0; plane < ftl.planes(); ++plane) {
      const std::uint64_t pages = written(ftl.open_block(plane, false)) + written(ftl.open_block(plane, true));
      recovery_reads_->add(plane, 0, pages, kScanBytesPerPage);
      scan += pages;
      if (const std::uint32_t slc = written(ftl.open_slc_block(plane))) {
        recovery_reads_->add(plane, 0, slc, kScanBytesPerPage, true);
        scan += slc;
      }
    }
    if (log) {
      std::vector<std::uint32_t> blocks;
      log->unjournaled_blocks(blocks);
      for (const std::uint32_t b : blocks) {
        const std::uint32_t plane = ftl.plane_of_block(b);
        if (b == ftl.open_block(plane, false) || b == ftl.open_block(plane, true) || b == ftl.open_slc_block(plane))
          continue;  // counted
        const std::uint64_t pages = ftl.written_pages(b);
        recovery_reads_->add(plane, 0, pages, kScanBytesPerPage, ftl.slc_block(b));
        scan += pages;
      }
    }
    recovery += recovery_reads_->run();
    power.add(o, ticks_to_us(recovery), scan, log_pages);
    if (vcd_) {
      vcd_->change(tv_cuts_, now, power.cuts);
      vcd_->change(tv_recovery_, now, static_cast<std::uint64_t>((recovery + 500) / 1000));
    }
  }
  arm_cut();
}

bool FullSsd::buffer_drained() const {
  const ctrl::WritePath& b = firmware->write_buffer();
  return b.in_flight() == b.failed_kept();  // what is left never programs
}

void FullSsd::finish_cuts() {
  power.cuts_not_made += cuts_due_.size();
  // Seeded cuts whose request was never sent (the workload ended before it).
  power.cuts_not_made += static_cast<std::uint64_t>(
      cut_requests_.end() - std::upper_bound(cut_requests_.begin(), cut_requests_.end(), cut_sends_));
  cuts_due_.clear();
  cut_requests_.clear();
  cut_event_.cancel();
}

Token FullSsd::flash_data(std::uint32_t ppa) const {
  return ppa == ctrl::kUnmapped ? kUnwrittenToken : ctrl::NandBackdoor(*nand).read(firmware->ftl().decode(ppa));
}

void FullSsd::after_cut(std::uint64_t lpn, std::vector<Token>& out) const {
  out.push_back(flash_data(firmware->ftl().lookup(lpn)));
  const auto range = buffered_at_cut_.equal_range(lpn);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
}

FullSsd::Audit FullSsd::audit() const {
  Audit a;
  const ctrl::Ftl& ftl = firmware->ftl();
  // What a read returns: a page's data kept in the write buffer (a write that failed for
  // want of space: controller/write_path.h), else the flash's.
  const ctrl::WritePath& buffer = firmware->write_buffer();
  const bool buffered = buffer.failed_kept() != 0;
  for (std::uint64_t lpn = 0; lpn < ftl.logical_pages(); ++lpn) {
    const std::uint32_t ppa = ftl.lookup(lpn);
    Token held;
    if (!buffered || !buffer.buffered(lpn, held))
      held = flash_data(ppa);
    const Token want = host->shadow().current(lpn);
    ++a.pages;
    if (held == want) continue;
    if (!a.mismatches++) {
      std::ostringstream os;
      os << "logical page " << lpn << " holds token " << held << " at ppa " << ppa << ", the host last wrote " << want;
      a.first = os.str();
    }
  }
  return a;
}

}  // namespace ssd
