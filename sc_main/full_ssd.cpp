#include "sc_main/full_ssd.h"

#include <chrono>
#include <sstream>

#include "sc_main/nand_backdoor.h"
#include "controller/policies.h"
#include "controller/read_unit.h"
#include "sc_main/run_outputs.h"
#include "sc_main/sim_config.h"
#if SSD_RTL
#include "rtl/rtl_model.h"
#endif

namespace ssd {

FullSsd::FullSsd(sc_core::sc_module_name name, const Config& cfg, VcdWriter* vcd, const std::string& out_dir,
                 bool check_only, Policies policies)
    : sc_module(name) {
    ctrl::FtlConfig fcfg = ftl_config(cfg);
    fcfg.failures = fcfg.nand.fault.failures();
    if (fcfg.nand.fault.bad_block_fraction > 0) {  // the FTL reads the bad-block marks before time 0
      const nand::NandConfig& n = fcfg.nand;
      const nand::FaultModel marks(n.fault, n.channels, n.chips_per_channel, n.dies_per_chip, n.planes_per_die,
                                   n.blocks_per_plane, n.pages_per_block);
      if (marks.bad_blocks_per_plane() + 4 > n.blocks_per_plane)
        throw ConfigError(cfg.locate("nand.fault.bad_block_fraction leaves " +
                                     std::to_string(n.blocks_per_plane - marks.bad_blocks_per_plane()) +
                                     " good blocks per plane: the FTL needs at least 4"));
      ctrl::FtlConfig good = fcfg;  // the FTL sees the good blocks only
      good.nand.blocks_per_plane -= marks.bad_blocks_per_plane();
      const std::vector<std::string> errs = good.validate();
      if (!errs.empty())
        throw ConfigError(cfg.locate("nand.fault.bad_block_fraction leaves " +
                                     std::to_string(good.nand.blocks_per_plane) + " good blocks per plane: " +
                                     errs.front()));
      for (std::uint32_t p = 0; p < n.chips() * n.dies_per_chip * n.planes_per_die; ++p)
        fcfg.factory_bad.push_back(marks.bad_blocks(p));
    }
    ctrl::FirmwareConfig fw;
    fw.clock_mhz = cfg.get_double("firmware.clock_mhz");
    fw.cycles_per_command = static_cast<std::uint64_t>(cfg.get_int("firmware.cycles_per_command"));
    fw.cycles_per_page = static_cast<std::uint64_t>(cfg.get_int("firmware.cycles_per_page"));
    fw.cycles_per_gc_page = static_cast<std::uint64_t>(cfg.get_int("firmware.cycles_per_gc_page"));
    ctrl::SosConfig sos;
    sos.qsl = cfg.get_bool("controller.sos_qsl");
    sos.whm = cfg.get_bool("controller.sos_whm");
    sos.cycles_per_decision = static_cast<std::uint64_t>(cfg.get_int("firmware.cycles_per_decision"));
    sos.cycles_per_qsl_move = static_cast<std::uint64_t>(cfg.get_int("firmware.cycles_per_qsl_move"));
    sos.cycles_per_whm_lookup = static_cast<std::uint64_t>(cfg.get_int("firmware.cycles_per_whm_lookup"));
    fw.gc_yields = cfg.get_string("controller.gc_priority") == "host_first";
    fw.gc_copies_in_flight = static_cast<std::uint32_t>(cfg.get_int("ftl.gc_copies_in_flight"));
    fw.gc_in_die = cfg.get_string("ftl.gc_destination") == "die";
    fw.delay_from_release = cfg.get_string("ftl.queue_delay_from") == "release";
    fw.read_unit_bytes = static_cast<std::uint32_t>(cfg.get_int("controller.read_unit_bytes"));
    fw.ecc.on = fcfg.nand.fault.bit_errors();
    fw.ecc.retry_steps = fcfg.nand.fault.retry_steps;
    fw.ecc.hard_bits = static_cast<std::uint32_t>(cfg.get_int("controller.ecc_hard_bits"));
    fw.ecc.soft_bits = static_cast<std::uint32_t>(cfg.get_int("controller.ecc_soft_bits"));
    fw.ecc.hard_decode_us = cfg.get_double("controller.ecc_hard_decode_us");
    fw.ecc.soft_decode_us = cfg.get_double("controller.ecc_soft_decode_us");
    if (!ctrl::read_unit_fits(fw.read_unit_bytes, fcfg.nand.page_bytes))
      throw ConfigError(cfg.locate("controller.read_unit_bytes = " + std::to_string(fw.read_unit_bytes) +
                                   " is not a multiple of 512 that divides nand.page_bytes = " +
                                   std::to_string(fcfg.nand.page_bytes)));
    // The policies of the three seams (controller/policies.h), built here and handed to
    // their modules, with the rules that span keys.
    const std::string scheduler = cfg.get_string("controller.scheduler");
    const std::string firmware_sched = cfg.get_string("controller.firmware_sched");
    if (firmware_sched == "sos" && scheduler != "pass")
      throw ConfigError(cfg.locate("controller.firmware_sched = sos needs controller.scheduler = pass (it is " +
                                   scheduler + "): SOS schedules in the firmware, the block passes through"));
    ctrl::SchedConfig sc;
    sc.clock_mhz = cfg.get_double("controller.clock_mhz");
    fw.batch_depth = static_cast<std::uint32_t>(cfg.get_int("ftl.batch_depth"));
    const ctrl::RescheduleConfig reschedule = ctrl::parse_reschedule(
        cfg.get_string("controller.reschedule"), static_cast<std::uint32_t>(cfg.get_int("controller.reschedule_window")));
    sc.reschedule = reschedule;
    if (reschedule.on()) {
      // The block holds the whole queue and finds the n-plane commands itself.
      if (!cfg.is_default("ftl.batch_depth") && fw.batch_depth != 0)
        throw ConfigError(cfg.locate("controller.reschedule = " + std::string(reschedule.name()) +
                                     " replaces the firmware's batching: leave ftl.batch_depth unset or 0"));
      fw.batch_depth = 0;
      fw.mark_hazards = true;
    }
    std::unique_ptr<ctrl::SchedPolicy> block_policy;
    try {
      block_policy = ctrl::make_sched_policy(scheduler, fcfg.nand, cfg.get_bool("controller.read_first"), fw.gc_yields,
                                             reschedule);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(cfg.locate(e.what()));
    }
    const ctrl::SchedPolicy::RtlForm form = block_policy->rtl_form();
    fw.batch_order.by_priority = form.by_priority;  // the stage's batching keeps the block's order
    fw.batch_order.read_first = form.read_first;

    nand = std::make_unique<nand::NandDevice>("nand", fcfg.nand, vcd);
    firmware = std::make_unique<ctrl::FirmwareCore>(
        "firmware", fcfg, fw,
        policies.allocator ? std::move(policies.allocator) : ctrl::make_write_allocator(cfg.get_string("ftl.write_policy"), fcfg),
        policies.release ? std::move(policies.release) : ctrl::make_firmware_scheduler(firmware_sched, sos));
    ctrl::Ftl& ftl = firmware->ftl();
    const auto t0 = std::chrono::steady_clock::now();
    preconditioned = static_cast<std::uint64_t>(cfg.get_double("ftl.precondition") * static_cast<double>(ftl.logical_pages()));
    if (preconditioned) {
      const std::string mode = precondition_free_mode(cfg);
      const std::uint32_t free_blocks = precondition_free_blocks(mode, ftl.gc_low_mark(), ftl.gc_reserve());
      const double age = cfg.get_double("ftl.precondition_age");
      // auto: the planes start around the mean the start pilot chose (sc_main/start_pilot.h).
      const double mean_free = cfg.get_double("ftl.precondition_free_blocks");
      const bool by_mean = age > 0 && mode == "auto";
      if (by_mean && mean_free > 0 && (mean_free < ftl.gc_reserve() + 1 || mean_free > ftl.gc_low_mark()))
        throw ConfigError(cfg.locate("ftl.precondition_free_blocks = " + std::to_string(mean_free) +
                                     " is outside [" + std::to_string(ftl.gc_reserve() + 1) + ", " +
                                     std::to_string(ftl.gc_low_mark()) +
                                     "] (the last reserve + 1 to the GC low mark of this device)"));
      if (by_mean && mean_free == 0 && !check_only)
        throw ConfigError(cfg.locate("ftl.precondition_free = auto starts the planes where a pilot run of the workload "
                                     "puts them: run resolve_start_state (ssdsim does) or set ftl.precondition_free_blocks"));
      if (!check_only) {
        ctrl::NandBackdoor backdoor(*nand);
        const auto seed = static_cast<std::uint64_t>(cfg.get_int("workload.seed"));
        auto token = [](std::uint64_t lpn) { return precondition_token(lpn); };
        if (by_mean) ftl.precondition_image_mean(preconditioned, age, seed, backdoor, token, mean_free);
        else ftl.precondition_image(preconditioned, age, seed, backdoor, token, free_blocks);
        if (age > 0) {
          precondition_gc_copies = firmware->resume_gc(seed, backdoor);
          precondition_gc_pending = firmware->firmware().gc().copies_pending();
        }
        precondition_state = age > 0 ? (by_mean ? "workload" : mode) : "written_once";
      }
    }
    precondition_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sched = std::make_unique<ctrl::FlashSched>("sched", sc, fcfg.nand, std::move(block_policy));
    const std::string rtl = cfg.get_string("controller.rtl");
    if (rtl != "off") {
#if SSD_RTL
      std::string why;
      auto model = rtl::make_decision_model(fcfg.nand, form.ios, form.read_first, form.by_priority, reschedule, why);
      if (!model) throw ConfigError(cfg.locate("controller.rtl = " + rtl + ": " + why));
      if (vcd) model->trace(*vcd, std::string(sched->name()) + ".rtl");
      sched->set_decision_model(std::move(model), rtl == "on" ? ctrl::FlashSched::Twin::On : ctrl::FlashSched::Twin::Check);
#else
      throw ConfigError(cfg.locate("controller.rtl = " + rtl + ": this build has no verilated block (built with -DSSD_RTL=OFF)"));
#endif
    }
    iface = std::make_unique<ctrl::HostIface>("hif", static_cast<unsigned>(cfg.get_int("controller.ncq_depth")),
                                              cfg.get_double("host.link_mb_s"));
    const std::uint64_t capacity_sectors = ftl.logical_pages() * firmware->sectors_per_page();
    std::unique_ptr<host::RequestSource> source;
    std::uint64_t requests = static_cast<std::uint64_t>(cfg.get_int("workload.requests"));
    if (cfg.get_string("workload.kind") == "trace") {
      host::TraceSourceConfig t;
      t.path = cfg.get_string("workload.path");
      if (t.path.empty()) throw ConfigError(cfg.locate("workload.kind = trace needs workload.path (the trace file)"));
      t.format = host::parse_trace_format(cfg.get_string("workload.format"));
      t.device = cfg.get_int("workload.device");
      t.timed = cfg.get_string("workload.replay") == "timed";
      t.time_scale = cfg.get_double("workload.time_scale");
      t.limit = cfg.is_default("workload.requests") ? 0 : requests;  // a trace replays whole unless asked
      const std::string& oor = cfg.get_string("workload.out_of_range");
      t.out_of_range = oor == "wrap" ? host::OutOfRange::Wrap : oor == "skip" ? host::OutOfRange::Skip : host::OutOfRange::Error;
      t.capacity_sectors = capacity_sectors;
      try {
        source = std::make_unique<host::TraceSource>(t);
      } catch (const host::TraceError& e) {
        throw ConfigError(std::string("workload.path: ") + e.what());
      }
    } else {
      const double duration_us = cfg.get_double("workload.duration_us");
      if (requests == 0 && duration_us <= 0)
        throw ConfigError(cfg.locate("workload.requests = 0 needs workload.duration_us > 0 for a synthetic workload"));
      const std::int64_t size = cfg.get_int("workload.size_bytes"), size_max = cfg.get_int("workload.size_max_bytes");
      const std::int64_t align = cfg.get_int("workload.align_bytes");
      if (align % 512 != 0)
        throw ConfigError(cfg.locate("workload.align_bytes = " + std::to_string(align) + " is not a multiple of 512"));
      if (size_max % 512 != 0)
        throw ConfigError(cfg.locate("workload.size_max_bytes = " + std::to_string(size_max) + " is not a multiple of 512"));
      if (size_max != 0 && size_max < size)
        throw ConfigError(cfg.locate("workload.size_max_bytes must be 0 or at least workload.size_bytes"));
      const std::uint64_t largest = static_cast<std::uint64_t>(std::max(size, size_max));
      if (largest > capacity_sectors * 512)
        throw ConfigError(cfg.locate((size_max > size ? "workload.size_max_bytes = " : "workload.size_bytes = ") +
                                     std::to_string(largest) + " is larger than the device's logical capacity of " +
                                     std::to_string(capacity_sectors * 512) + " bytes"));
      if (duration_us > kMaxInputUs) {
        std::ostringstream os;
        os << "workload.duration_us = " << duration_us << " is past the simulated time range (2^63 ps, "
           << kMaxInputUs << " us)";
        throw ConfigError(cfg.locate(os.str()));
      }
      host::SyntheticConfig w;
      w.requests = requests;
      w.size_max_bytes = static_cast<std::uint32_t>(size_max);
      w.align_bytes = static_cast<std::uint32_t>(align);
      w.zipf_theta = cfg.get_double("workload.zipf_theta");
      w.rate_iops = cfg.get_double("workload.rate_iops");
      w.duration = us_to_ticks(duration_us);
      w.read_ratio = cfg.get_double("workload.read_ratio");
      w.trim_ratio = cfg.get_double("workload.trim_ratio");
      if (w.read_ratio + w.trim_ratio > 1.0) {
        std::ostringstream os;
        os << "workload.trim_ratio = " << w.trim_ratio << " with workload.read_ratio = " << w.read_ratio
           << " leaves a negative share of writes (their sum must be at most 1)";
        throw ConfigError(cfg.locate(os.str()));
      }
      w.flush_every = static_cast<std::uint64_t>(cfg.get_int("workload.flush_every"));
      w.size_bytes = static_cast<std::uint32_t>(cfg.get_int("workload.size_bytes"));
      w.sequential = cfg.get_string("workload.pattern") == "sequential";
      w.seed = static_cast<std::uint64_t>(cfg.get_int("workload.seed"));
      w.capacity_sectors = capacity_sectors;
      source = std::make_unique<host::SyntheticSource>(w);
    }
    // What the host interface carries at most in one command: larger requests are split.
    source = std::make_unique<host::SplitSource>(std::move(source),
                                                 static_cast<std::uint32_t>(cfg.get_int("host.max_transfer_sectors")));
    host::HostDriver::SchedulerSetup hs;
    hs.kind = host::parse_scheduler(cfg.get_string("host.scheduler"));
    hs.dispatch = host::parse_dispatch(cfg.get_string("host.dispatch"));
    hs.queue_length = static_cast<unsigned>(cfg.get_int("host.queue_length"));
    hs.window_counts_outstanding = cfg.get_string("host.queue_window") == "waiting_and_outstanding";
    // Location vectors follow the device's static allocation (Formula 1 for channel first,
    // chip second); GC and wear leveling keep data in its chip.
    const ctrl::Ftl* f = &ftl;
    hs.locations = std::make_shared<host::LocationMapper>(
        static_cast<unsigned>(fcfg.nand.chips()), fcfg.nand.page_bytes,
        [f](std::uint64_t page) { return f->chip_of_plane(f->plane_of_lpn(page)); });
    if (fcfg.nand.chips() > host::LocationVector::kMaxChips)
      throw ConfigError("the host schedulers handle at most 1024 chips (nand.channels x nand.chips_per_channel)");
#if SSD_ACCEL
    // The lookahead thread reads the workload a second time, from its own source; auto:
    // only where a second core is free for it (accel/cpu_share.h).
    cpu_share = accel::read_cpu_share();
    const std::string& thread_mode = cfg.get_string("host.lookahead_thread");
    lookahead_thread =
        cfg.get_bool("host.lookahead") &&
        (thread_mode == "true" || (thread_mode == "auto" && accel::second_core_free(cpu_share)));
    std::unique_ptr<host::RequestSource> replica;
    if (lookahead_thread) replica = source->reopen();
#endif
    host = std::make_unique<host::HostDriver>("host", std::move(source),
                                              static_cast<unsigned>(cfg.get_int("workload.queue_depth")),
                                              ftl.logical_pages(),
                                              static_cast<std::uint32_t>(firmware->sectors_per_page()), preconditioned, hs);
    host->set_progress(3.0);  // a progress line every 3 s of wall time
    if (cfg.get_double("workload.duration_us") > 0) host->set_time_limit(us_to_ticks(cfg.get_double("workload.duration_us")));
    if (!check_only && !cfg.get_string("report.requests_csv").empty()) {  // --check probes it itself
      try {
        host->write_requests_csv(RunOutputs::partial(cfg.get_string("report.requests_csv")));
      } catch (const std::runtime_error&) {
        throw ConfigError("report.requests_csv: cannot write " + cfg.get_string("report.requests_csv"));
      }
    }
    if (cfg.get_bool("report.calibrate_kernel"))
      calibrator = std::make_unique<KernelCalibrator>("calibrator", 400000, 10);
    const std::uint64_t warm_requests = static_cast<std::uint64_t>(cfg.get_int("report.warmup_requests"));
    const double warm_us = cfg.get_double("report.warmup_us");
    if (warm_us > kMaxInputUs) throw ConfigError(cfg.locate("report.warmup_us is past the simulated time range (2^63 ps)"));
    auto start_window = [this](Tick now) {
      window_start = full_ticks(*nand, *firmware, *iface, now);
      ftl_at_start = FtlCounters::of(firmware->ftl());
    };
    warmup = warmup_mode(cfg);
    if (warmup == "auto") {
      steady = std::make_unique<SteadyStateRule>(
          std::vector<std::string>{"write_amplification", "iops", "read_mean_us", "write_mean_us"},
          static_cast<unsigned>(cfg.get_int("report.warmup_window_rounds")));
      host->set_warmup(0, 0, start_window);
      steady_round_requests = static_cast<std::uint64_t>(cfg.get_int("report.warmup_round_requests"));
      host->set_rounds(steady_round_requests, [this](const host::HostDriver::Round& r) { on_round(r); });
    } else if (warm_requests || warm_us > 0) {
      host->set_warmup(warm_requests, us_to_ticks(warm_us), start_window);
    }
    const double interval_us = cfg.get_double("report.interval_us");
    if (interval_us > 0) {
      if (out_dir.empty())
        throw ConfigError(cfg.locate("report.interval_us writes timeseries.csv into the --out directory: give --out DIR"));
      if (interval_us > kMaxInputUs) throw ConfigError(cfg.locate("report.interval_us is past the simulated time range (2^63 ps)"));
      const Tick interval = us_to_ticks(interval_us);
      if (interval == 0) throw ConfigError(cfg.locate("report.interval_us is below the model's resolution of 1 ps"));
      try {
        series = std::make_unique<TimeSeries>("series", RunOutputs::partial(out_dir + "/timeseries.csv"), interval,
                                              *host, *iface, *firmware, *nand);
      } catch (const std::runtime_error& e) {
        throw ConfigError(e.what());
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
    });
#if SSD_ACCEL
    accel::LookaheadConfig la;
    la.hints = cfg.get_bool("host.lookahead");
    la.thread = lookahead_thread;
    lookahead = std::make_unique<accel::Lookahead>(*host, *firmware, std::move(replica), la);
    block_ahead = std::make_unique<accel::BlockAhead>(*sched, *nand, *lookahead, cfg.get_bool("controller.decide_ahead"));
#endif
    if (vcd) {  // every layer's signals, under its module's name (trace.scopes filters)
      host->trace(*vcd, host->name());
      iface->trace(*vcd, iface->name());
      firmware->trace(*vcd, firmware->name());
      sched->trace(*vcd, sched->name());
    }
    RequestWatch::Setup ws;
    ws.traced = request_ids(cfg, "trace.request");
    ws.timeline = request_ids(cfg, "report.request_timeline");
    if (!ws.traced.empty() && !vcd)
      throw ConfigError(cfg.locate("trace.request shows requests in the VCD: set trace.vcd too"));
    if (!ws.traced.empty() || !ws.timeline.empty()) {
      ws.page_slots = static_cast<unsigned>(cfg.get_int("trace.request_pages"));
      ws.nand = fcfg.nand;
      ws.sectors_per_page = firmware->sectors_per_page();
      watch = std::make_unique<RequestWatch>(ws, vcd);
      host->set_life_listener(watch.get());
      iface->set_life_listener(watch.get());
      firmware->set_life_listener(watch.get());
      sched->set_life_listener(watch.get());
      for (unsigned c = 0; c < fcfg.nand.channels; ++c) nand->channel(c).set_life_listener(watch.get());
    }
    host->socket.bind(iface->host);
    iface->firmware.bind(firmware->host);
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
  const FtlCounters now = FtlCounters::of(firmware->ftl());
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
  window_at_finish = full_window(*nand, *firmware, *iface, end, window_start);
  ftl_at_end = FtlCounters::of(firmware->ftl());
  const ctrl::Ftl& ftl = firmware->ftl();
  free_at_finish.resize(ftl.planes());
  for (std::uint32_t p = 0; p < ftl.planes(); ++p) free_at_finish[p] = ftl.free_blocks(p);
  window_taken = true;
}

FullSsd::Audit FullSsd::audit() const {
  Audit a;
  const ctrl::Ftl& ftl = firmware->ftl();
  const ctrl::NandBackdoor nandb(*nand);
  for (std::uint64_t lpn = 0; lpn < ftl.logical_pages(); ++lpn) {
    const std::uint32_t ppa = ftl.lookup(lpn);
    const Token held = ppa == ctrl::kUnmapped ? kUnwrittenToken : nandb.read(ftl.decode(ppa));
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
