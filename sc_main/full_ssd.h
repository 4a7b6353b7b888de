// The whole controller as one module: host -> host interface (NCQ) -> firmware
// core (FTL) -> flash scheduler block -> NAND, built from a Config, with the device
// preconditioned before time 0.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <systemc>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/host_iface.h"
#include "controller/nvme_front_end.h"
#include "host/nvme_host.h"
#include "host/host_driver.h"
#include "nand/nand_device.h"
#include "nand/read_burst.h"
#include "sc_main/config.h"
#include "sc_main/settings.h"
#include "sc_main/kernel_calibrator.h"
#include "sc_main/power_cuts.h"
#include "sc_main/request_watch.h"
#include "sc_main/stats_window.h"
#include "sc_main/start_pilot.h"
#include "sc_main/steady_state.h"
#include "sc_main/time_series.h"
#include "common/vcd_writer.h"
#if SSD_ACCEL
#include "accel/block_ahead.h"
#include "accel/cpu_share.h"
#include "accel/lookahead.h"
#endif

namespace ssd {

struct FullSsd : sc_core::sc_module {
  std::unique_ptr<nand::NandDevice> nand;
  std::unique_ptr<ctrl::FirmwareCore> firmware;
  std::unique_ptr<ctrl::FlashSched> sched;
  std::unique_ptr<ctrl::HostIface> iface;       // host.interface = sata
  std::unique_ptr<ctrl::NvmeFrontEnd> nvme;     // host.interface = nvme, with nvme_host
  std::unique_ptr<host::NvmeHost> nvme_host;
  std::unique_ptr<host::HostDriver> host;
  // The controller's host interface, whichever it is.
  ctrl::HostFront& front() const {
    if (iface) return *iface;
    return *nvme;
  }
#if SSD_ACCEL
  std::unique_ptr<accel::Lookahead> lookahead;  // after host and firmware: destroyed first
  std::unique_ptr<accel::BlockAhead> block_ahead;  // after lookahead: destroyed before it
  accel::CpuShare cpu_share;      // read at construction, for host.lookahead_thread=auto
  bool lookahead_thread = false;  // host.lookahead_thread, auto decided
#endif
  // The speed-only mechanisms' counts, for stats.json's `run` (0 without accel/).
  struct AccelCounts {
    std::uint64_t lookahead_hints = 0, lookahead_thread_requests = 0, decisions_ahead = 0;
    bool image_results = false;  // the thread's table of the image's lookups was used
    std::uint64_t image_lookups_precomputed = 0, image_lookups_computed = 0;
    // Whether the lookahead thread ran, and what host.lookahead_thread=auto decided on.
    bool lookahead_thread = false;
    unsigned cpus_allowed = 0, cpus_online = 0;
    double load_average = 0;
  };
  AccelCounts accel_counts() const;
  std::unique_ptr<KernelCalibrator> calibrator;  // report.calibrate_kernel
  std::unique_ptr<TimeSeries> series;            // report.interval_us
  std::unique_ptr<RequestWatch> watch;           // trace.request, report.request_timeline
  // The window's start (time 0, or the end of the warm-up: report.warmup_*), with the
  // FTL's counters then: the GC figures count from it.
  WindowTicks window_start;
  // report.warmup resolved (auto or fixed); with auto, the rule fed a round every
  // report.warmup_round_requests completions until steady, and the first request of the
  // statistics' window then (0: steady state not reached with requests left to measure).
  std::string warmup = "fixed";
  std::unique_ptr<SteadyStateRule> steady;
  std::uint64_t steady_window_start_request = 0, steady_round_requests = 0;
  FtlCounters ftl_at_round;
  std::uint64_t round_ops_total[2] = {0, 0};  // reads and writes completed in the rounds so far
  void on_round(const host::HostDriver::Round& r);
  FtlCounters ftl_at_start, ftl_at_end;  // ... and at its end (GC after the last host completion is not in it)
  std::vector<std::uint32_t> free_at_finish;  // per plane, at the window's end
  StartPilot pilot;  // what resolve_start_state measured for this run (ran = false: none)
  double precondition_seconds = 0;
  // The statistics' figures at the last host completion (stats_window.h); taken when the
  // host finishes, or by window() at the end of a run in which it never did.
  WindowFigures window_at_finish;
  bool window_taken = false;
  void take_window();  // at the last host completion (now, when the host finishes)
  const WindowFigures& window() {
    if (!window_taken) take_window();
    return window_at_finish;
  }
  std::uint64_t preconditioned = 0;
  std::uint64_t precondition_gc_copies = 0;  // copies of the GC runs left under way at time 0, made before it
  std::uint64_t precondition_gc_pending = 0; // ... and left to make from time 0 (the backlog)
  // What time 0 looks like: none, written_once, or the aged state's ftl.precondition_free
  // (gc_mark, gc_running, reserve).
  std::string precondition_state = "none";
  // Wall clock from the start of simulation to the last request's completion.
  std::chrono::steady_clock::time_point sim_start, sim_end;
  double simulation_seconds() const { return std::chrono::duration<double>(sim_end - sim_start).count(); }

  // The end-of-run audit (report.audit): every logical page, as the FTL maps it and the
  // NAND holds it, against the host's shadow of what it last wrote.
  struct Audit {
    std::uint64_t pages = 0, mismatches = 0;
    std::string first;  // the first mismatch, described
  };
  Audit audit() const;

  // Power cuts (power.*): the host's ledger of what its writes are owed (null without
  // cuts) and what the cuts cost.
  std::unique_ptr<host::DurabilityLedger> ledger;
  PowerFigures power;
  std::string power_mode;  // power.cut_mode ("" without cuts)
  // The data of logical page `lpn` that would survive a power cut now: the version the
  // mapping holds on flash, and under a plp cache every acknowledged write of it in the
  // buffer (the hold-up programs them; a page's data as the host sent it while not yet
  // merged: the ledger knows both), from `buffered` (filled at the cut).
  void after_cut(std::uint64_t lpn, std::vector<Token>& out) const;
  // What page `ppa` holds on flash (kUnwrittenToken for kUnmapped): a read's data.
  Token flash_data(std::uint32_t ppa) const;
  std::unordered_multimap<std::uint64_t, Token> buffered_at_cut_;

  // The firmware's policies, when not those the configuration names (a test's own; null:
  // built by the factories of controller/policies.h from the configuration).
  struct Policies {
    std::unique_ptr<ctrl::WriteAllocator> allocator;    // ftl.write_policy
    std::unique_ptr<ctrl::FirmwareScheduler> release;   // controller.firmware_sched
  };
  // Throws ConfigError for an invalid configuration.
  // `out_dir`: where report.interval_us writes timeseries.csv (required with it).
  // check_only: built to check the configuration (ssdsim --check), never run: the device
  // is not preconditioned (the rules of preconditioning are checked all the same).
  FullSsd(sc_core::sc_module_name name, const Config& cfg, VcdWriter* vcd = nullptr, const std::string& out_dir = "",
          bool check_only = false, Policies policies = {});
  void start_of_simulation() override;

 private:
  // The steps of the constructor, in order (full_ssd.cpp).
  struct Built {  // what build_device hands to build_front
    nand::NandConfig nand;  // the NAND's (its blocks, bad ones included; the FTL sees the good ones)
    ctrl::SchedConfig sched;
    std::unique_ptr<ctrl::SchedPolicy> block_policy;
    ctrl::SchedPolicy::RtlForm form;
  };
  static ctrl::FtlConfig ftl_with_bad_blocks(const Config& cfg, const Settings& s);
  Built build_device(const Config& cfg, const Settings& s, VcdWriter* vcd, Policies policies);
  void precondition(const Config& cfg, const Settings& s, bool check_only);
  std::unique_ptr<host::RequestSource> make_source(const Config& cfg, const Settings& s);
  std::unique_ptr<host::RequestSource> make_source(const Config& cfg, const Settings& s, const host::WorkloadConfig& w,
                                                   bool limit_given, const std::string& item);
  void build_front(const Config& cfg, const Settings& s, Built& b, VcdWriter* vcd, const std::string& out_dir,
                   bool check_only);
  void build_reports(const Config& cfg, const Settings& s, const std::string& out_dir, bool check_only);
  void bind();
  void build_power(const Config& cfg, const Settings& s, VcdWriter* vcd);
  VcdWriter* vcd_ = nullptr;  // trace.vcd: ssd.power.cuts and ssd.power.recovery_ns
  int tv_cuts_ = VcdWriter::kNoVar, tv_recovery_ = VcdWriter::kNoVar;
  void on_cut();  // the process: the cuts due now
  void finish_cuts();  // the workload ended, the write buffer empty: the cuts still due are not made
  bool host_finished_ = false;
  bool buffer_drained() const;  // the write buffer holds nothing that will be programmed
  sc_core::sc_event cut_event_;
  std::vector<Tick> cuts_due_;  // a min-heap of the cuts' times
  std::vector<std::uint64_t> cut_requests_;  // sorted: seeded cuts' requests (k-th sent), one entry per cut
  std::uint64_t cut_sends_ = 0;              // requests sent so far, flushes not counted
  std::uint64_t cut_rng_ = 0;  // the seeded cuts' draws (splitmix64 state)
  Tick cut_window_ = 0;
  void arm_cut();
  std::unique_ptr<nand::ReadBurst> recovery_reads_;  // the recovery's reads, timed on the NAND's engines
};

}  // namespace ssd
