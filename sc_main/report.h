// Statistics output: a readable summary for people, stats.json for scripts
// (key names per DESIGN.md section 10).
#pragma once

#include <iosfwd>
#include <string>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/host_front.h"
#include "controller/nvme_front_end.h"
#include "host/host_driver.h"
#include "nand/nand_device.h"
#include "sc_main/power_cuts.h"
#include "sc_main/json.h"
#include "sc_main/nand_script_driver.h"
#include "sc_main/stats_window.h"
#include "sc_main/start_pilot.h"
#include "sc_main/steady_state.h"
#include "common/activations.h"

namespace ssd {

struct RunFigures {
  double wall_seconds = 0;
  double peak_rss_mb = 0;
  double precondition_seconds = 0;
  double simulation_seconds = 0;         // start of simulation to the last completion
  double kernel_activations_per_second = 0;  // 0: not calibrated
  double kernel_peq_events_per_second = 0;   // the same kernel's rate for a peq_with_get loop
  std::uint64_t process_activations = 0;  // the model's own SC_METHOD activations
  std::uint64_t activations_by[kActSources] = {};  // ... by module
  // The speed-only mechanisms (accel/lookahead.h): requests whose lookups were announced
  // ahead, and those the lookahead thread read ahead.
  std::uint64_t lookahead_hints = 0, lookahead_thread_requests = 0;
  // Whether the lookahead thread ran, and the machine's share host.lookahead_thread=auto
  // read: CPUs the process may use, CPUs online, one-minute load average.
  bool lookahead_thread = false;
  unsigned cpus_allowed = 0, cpus_online = 0;
  double load_average = 0;
  // The image's lookups answered from the lookahead thread's table, and computed (only
  // when the table was used: image_results).
  bool image_results = false;
  std::uint64_t image_lookups_precomputed = 0, image_lookups_computed = 0;
  std::uint64_t decisions_ahead = 0;  // scheduler decisions taken ahead of their edge (accel/block_ahead.h)
  bool audited = false;  // report.audit: every logical page read back after the run
  std::uint64_t audited_pages = 0, audit_mismatches = 0;
};

// The parts of a whole-controller run.
struct FullRun {
  const host::HostDriver& host;
  const ctrl::HostFront& iface;
  const ctrl::FirmwareCore& firmware;
  const ctrl::FlashSched& sched;
  const nand::NandDevice& nand;
  const WindowFigures& window;  // every rate's window (stats_window.h)
  // The FTL's counters at the window's start (a warm-up's end; zeros without one) and end.
  FtlCounters ftl_start, ftl_end;
  std::string precondition_state;  // FullSsd::precondition_state
  std::string write_policy;        // ftl.write_policy
  // report.warmup resolved, and with auto its rule (null otherwise) and the first request
  // of the statistics' window (0: the window is the whole run).
  std::string warmup = "fixed";
  const SteadyStateRule* steady = nullptr;
  std::uint64_t steady_window_start_request = 0;
  std::uint64_t steady_round_requests = 0;  // report.warmup_round_requests (auto)
  const StartPilot* pilot = nullptr;                 // ftl.precondition_free = auto's pilot (null: none)
  const std::vector<std::uint32_t>* free_at_end = nullptr;  // free blocks per plane at the window's end
  std::uint64_t gc_copies_pending_at_start = 0;  // the GC runs under way at time 0: their copies left
  const PowerFigures* power = nullptr;  // power cuts (null: none configured)
  std::string power_mode;               // power.cut_mode
  const ctrl::NvmeFrontEnd* nvme = nullptr;  // host.interface = nvme (null: SATA)
  // workload.streams: each stream run (the host's stream k is streams[k]), its index in
  // workload.streams, class and queues, and its mean latency alone (report.stream_alone;
  // negative: not run).
  struct Stream {
    std::size_t index = 0;
    std::string priority;
    std::uint32_t queues = 0;
    double alone_mean_us = -1;
  };
  std::vector<Stream> streams;
};
json::Value full_stats(const FullRun& f, const RunFigures& run);
void print_full_summary(std::ostream& os, const FullRun& f, const RunFigures& run);

double peak_rss_mb();

// `win`: the statistics' window, nand_window(nand, the script's last completion), which
// ends all of the NAND's work.
json::Value nand_ops_stats(const NandScriptDriver& drv, const nand::NandDevice& nand, const WindowFigures& win,
                           const RunFigures& run);
void print_nand_ops_summary(std::ostream& os, const NandScriptDriver& drv, const nand::NandDevice& nand,
                            const WindowFigures& win, const RunFigures& run);
void print_timeline(std::ostream& os, const NandScriptDriver& drv, std::size_t max_lines);

}  // namespace ssd
