// The time a burst of page reads takes on an otherwise idle NAND, as the channel engine
// (nand/channel_engine.h) runs them: the reads a firmware issues at power-on to rebuild
// its mapping (docs/controller.md, "Power loss"). Plain C++; the engines are its own
// (one per channel that has reads, idle between bursts), so nothing of a running device
// is touched.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nand/channel_engine.h"
#include "nand/nand_config.h"

namespace ssd::nand {

class ReadBurst {
 public:
  explicit ReadBurst(const NandConfig& cfg);
  ~ReadBurst();
  ReadBurst(const ReadBurst&) = delete;
  ReadBurst& operator=(const ReadBurst&) = delete;

  // Adds `count` single-plane reads of plane `plane` (device-wide: (((channel x chips +
  // chip) x dies + die) x planes + plane), of pages first_page, first_page + 1, ... (past
  // the block's last page, from its first again), each moving `bytes` out (0: the page).
  // A die reads its pages in the order they were added. `slc`: reads in SLC mode (n > 1
  // bits per cell; nand.t_read_slc_us), pages of a block in that mode (1/n of a block's).
  void add(std::uint32_t plane, std::uint32_t first_page, std::uint64_t count, std::uint32_t bytes, bool slc = false);
  std::uint64_t pending() const { return pending_; }

  // Issues the reads added since the last run, all at once: per channel, one of each die
  // in turn (die order within the channel) until every die's are issued, so that the
  // bus's arbitration (first ready, then first issued) serves the dies alike; then runs
  // the engines until the last completes. Returns that time, counted from the issue, in
  // ticks (0 without reads).
  Tick run();

 private:
  struct Read {
    std::uint8_t plane;  // within its die
    std::uint32_t page;
    std::uint32_t bytes;
    bool slc;
  };
  NandConfig cfg_;
  std::uint64_t pending_ = 0;
  std::vector<std::vector<Read>> per_die_;  // device-wide die index
  struct Channel;
  std::vector<std::unique_ptr<Channel>> channels_;  // built at its first read
};

}  // namespace ssd::nand
