// Power cuts in a full run (power.*; docs/controller.md, "Power loss"): what each cut
// would cost, summed over the run. Plain C++; FullSsd makes the cuts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "host/durability_ledger.h"

namespace ssd {

// The bytes a recovery scan moves out per page: the spare area's record of the page (its
// logical page, its write's sequence number and their ECC), as an FTL that scans open
// blocks reads it (a column address past the data: the data itself stays in the die).
constexpr std::uint32_t kScanBytesPerPage = 64;

// The cuts of a run, summed.
struct PowerFigures {
  std::uint64_t cuts = 0;           // made (probed)
  std::uint64_t cuts_not_made = 0;  // due after the workload's end, the write buffer empty
  host::DurabilityLedger::Outcome lost;  // summed over the cuts
  double recovery_sum_us = 0, recovery_max_us = 0;
  std::uint64_t scan_pages_sum = 0, scan_pages_max = 0;
  std::uint64_t log_pages_sum = 0, log_pages_max = 0;  // the map log's pages read (journal)
  void add(const host::DurabilityLedger::Outcome& o, double recovery_us, std::uint64_t scan_pages,
           std::uint64_t log_pages = 0) {
    ++cuts;
    lost += o;
    recovery_sum_us += recovery_us;
    recovery_max_us = std::max(recovery_max_us, recovery_us);
    scan_pages_sum += scan_pages;
    scan_pages_max = std::max(scan_pages_max, scan_pages);
    log_pages_sum += log_pages;
    log_pages_max = std::max(log_pages_max, log_pages);
  }
  double recovery_mean_us() const { return cuts ? recovery_sum_us / static_cast<double>(cuts) : 0.0; }
};

}  // namespace ssd
