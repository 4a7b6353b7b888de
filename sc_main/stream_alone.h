// report.stream_alone: each stream of workload.streams run alone, for MQSim's slowdown
// (a stream's mean latency shared / alone) and fairness (lowest slowdown / highest).
// Each alone run is this program again, in a process of its own, on the effective
// configuration of the shared run with report.stream_only set: the same device, start
// state and queues, the other streams left out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sc_main/config.h"

namespace ssd {

// The mean latency (us, reads and writes) of each stream in `streams` run alone; throws
// std::runtime_error saying which run failed and why.
std::vector<double> stream_alone_means(const Config& cfg, const std::vector<std::size_t>& streams);

}  // namespace ssd
