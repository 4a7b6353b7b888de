// The start state of an aged device for ftl.precondition_free = auto: a pilot run of the
// workload measures how fast it writes and how fast GC copies, and GcBalance
// (controller/start_state.h) turns that into the mean free blocks per plane that the run
// starts with (ftl.precondition_free_blocks).
//
// The pilot is the workload's first requests (report.start_pilot_requests, at most
// report.start_pilot_us of simulated time, the same whatever the run's length; its rates
// over the second half of its simulated time) on the same device, started with a GC run
// under way on every plane (gc_running), in a child process (fork) before the run builds
// its own model: a SystemC kernel elaborates once per process. It is deterministic like any run: the same configuration and seed give
// the same pilot and the same start. Its figures go to stats.json (run.start_pilot).
#pragma once

#include <cstdint>
#include <string>

#include "controller/ftl.h"
#include "controller/start_state.h"
#include "sc_main/config.h"

namespace ssd {

struct StartPilot {
  bool ran = false;
  double wall_seconds = 0;        // the pilot's own wall time (fork to its answer)
  std::uint64_t requests = 0;     // the pilot's requests completed
  double seconds = 0;             // the simulated time its rates are over (its second half)
  double host_pages_per_s = 0;    // per plane
  double copies_per_s = 0;        // per plane with a GC run under way
  double collecting = 0;          // planes with a run under way, time-weighted mean share
  double write_amplification = 0; // over the pilot's window
  ctrl::GcBalance::Choice choice;
};

// Whether `cfg` asks for the pilot: an aged device (ftl.precondition > 0,
// ftl.precondition_age > 0) with ftl.precondition_free = auto and
// ftl.precondition_free_blocks unset (0), and a workload with host requests.
bool start_pilot_needed(const Config& cfg);

// The balance of a preconditioned FTL (`preconditioned` pages over its planes).
ctrl::GcBalance gc_balance(const ctrl::Ftl& ftl, std::uint64_t preconditioned);

// Runs the pilot when start_pilot_needed(cfg), and sets ftl.precondition_free_blocks in
// `cfg` to its choice. Throws ConfigError for what the configuration's own run would
// refuse (the pilot builds the same model) and std::runtime_error if the pilot fails.
StartPilot resolve_start_state(Config& cfg);

// ftl.precondition_free_blocks as resolve_start_state sets it (and --resolve-start prints it).
std::string free_blocks_text(double mean);

}  // namespace ssd
