// Power cuts in a full run (power.*; docs/controller.md, "Power loss"): what each cut
// would cost, summed over the run. Plain C++; FullSsd makes the cuts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "host/durability_ledger.h"
#include "nand/nand_config.h"

namespace ssd {

// The bytes a recovery scan moves out per page: the spare area's record of the page (its
// logical page, its write's sequence number and their ECC), as an FTL that scans open
// blocks reads it (a column address past the data: the data itself stays in the die).
constexpr std::uint32_t kScanBytesPerPage = 64;

// The time a recovery scan takes, us: each die reads `pages[die]` pages one after
// another (tR each; the dies in global order, dies_per_chip per chip), each read's spare
// record moving out over its channel's bus, which the channel's dies share; a die's
// next read overlaps the previous one's data-out (cache read). Per channel, the longer of
// its busiest die (its reads, then the last data-out) and its bus (every data-out after
// the first tR); the device's time is its slowest channel's.
// `bytes`: what each read moves out (the map log's pages are read whole: read_recovery_us).
inline double scan_recovery_us(const nand::NandConfig& n, const std::vector<std::uint64_t>& pages,
                               std::uint32_t bytes = kScanBytesPerPage) {
  const double xfer = static_cast<double>(n.cmd_addr_cycles + bytes) / n.bus_mts;
  const std::uint32_t dies_per_channel = n.chips_per_channel * n.dies_per_chip;
  double worst = 0;
  for (std::uint32_t c = 0; c < n.channels; ++c) {
    std::uint64_t busiest = 0, total = 0;
    for (std::uint32_t d = 0; d < dies_per_channel; ++d) {
      const std::uint64_t p = pages[c * dies_per_channel + d];
      busiest = std::max(busiest, p);
      total += p;
    }
    if (!total) continue;
    const double die = static_cast<double>(busiest) * n.t_read_us + xfer;
    const double bus = n.t_read_us + static_cast<double>(total) * xfer;
    worst = std::max(worst, std::max(die, bus));
  }
  return worst;
}

// The time recovery takes to read `pages` whole pages per die (the map log's checkpoint
// and journal), us: as scan_recovery_us, each read's page moved out.
inline double read_recovery_us(const nand::NandConfig& n, const std::vector<std::uint64_t>& pages) {
  return scan_recovery_us(n, pages, n.page_bytes);
}

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
