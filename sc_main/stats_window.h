// The statistics window: every rate and utilization in the summary and stats.json is
// over one window, from its start (time 0: the host starts, the first request of a
// closed loop, a trace's times counted from 0; or, with a warm-up, the arrival of the
// first request after it) to the last host completion. Device work after it (GC that
// goes on, a program whose host command already completed elsewhere) is not in the
// window: its figures are taken at the window's end, when the host finishes, with the
// work under way then counted up to that instant; likewise at its start. The same
// snapshots, taken every report.interval_us, give the time series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/firmware_core.h"
#include "controller/host_front.h"
#include "nand/nand_device.h"

namespace ssd {

// The busy times behind the figures, up to an instant: figures over [a, b] are the
// differences of the snapshots at a and b.
struct WindowTicks {
  Tick at = 0;
  Tick chip_busy_sum = 0;                 // summed over the chips
  Tick any_chip_busy = 0;                 // time with at least one chip busy
  std::vector<Tick> chip_busy, chip_idle_while_others_busy, bus_busy;
  Tick core_busy = 0, link_busy = 0;
  double ncq_tag_ticks = 0;               // HostIface::tag_ticks
  Tick pcie_up_busy = 0, pcie_down_busy = 0;  // NVMe: the PCIe link's directions (0: SATA)
  unsigned ncq_depth = 0;                 // HostIface::depth (0: no host interface)
};
WindowTicks nand_ticks(const nand::NandDevice& nand, Tick at);
// The FTL's page and erase counts at an instant: GC figures over [a, b] are differences.
// With a map log (ftl.map_persist = journal), its pages programmed and blocks erased too;
// with cells of n > 1 bits, the filler pages that padded partial wordlines.
struct FtlCounters {
  std::uint64_t host_pages = 0, gc_pages = 0, gc_erases = 0, blocks_opened = 0;
  std::uint64_t map_pages = 0, map_erases = 0;
  std::uint64_t filler_pages = 0;
  // The SLC cache's: pages folded out of it, host pages written into it, its erases.
  std::uint64_t fold_pages = 0, slc_host_pages = 0, slc_erases = 0;
  static FtlCounters of(const ctrl::Ftl& f, const ctrl::MapLog* log = nullptr) {
    FtlCounters c{f.host_pages_written(), f.gc_pages_copied(), f.gc_erases(), f.blocks_opened()};
    c.fold_pages = f.fold_pages();
    c.slc_host_pages = f.slc_host_pages();
    c.slc_erases = f.slc_erases();
    if (log) {
      c.map_pages = log->counters().journal_pages + log->counters().checkpoint_pages;
      c.map_erases = log->counters().erases;
    }
    return c;
  }
  static FtlCounters of(const ctrl::Firmware& fw) {
    FtlCounters c = of(fw.ftl(), fw.map_log());
    c.filler_pages = fw.counters().padded_pages;
    return c;
  }
  FtlCounters operator-(const FtlCounters& o) const {
    return {host_pages - o.host_pages,       gc_pages - o.gc_pages,       gc_erases - o.gc_erases,
            blocks_opened - o.blocks_opened, map_pages - o.map_pages,     map_erases - o.map_erases,
            filler_pages - o.filler_pages,   fold_pages - o.fold_pages,   slc_host_pages - o.slc_host_pages,
            slc_erases - o.slc_erases};
  }
  // Pages programmed for `pages` per host page programmed; 0 without host pages.
  double per_host_page(std::uint64_t pages) const {
    return host_pages ? static_cast<double>(pages) / static_cast<double>(host_pages) : 0.0;
  }
  // Every page the device programmed (host, GC, filler, map log, folds) per host page.
  double write_amplification_all() const {
    return per_host_page(host_pages + gc_pages + filler_pages + map_pages + fold_pages);
  }
  // (host + GC pages programmed) / host pages programmed; 0 without host pages.
  double write_amplification() const { return per_host_page(host_pages + gc_pages); }
  // The same with the map log's pages: every page the device programmed per host page.
  double write_amplification_with_map() const { return per_host_page(host_pages + gc_pages + map_pages); }
};
WindowTicks full_ticks(const nand::NandDevice& nand, const ctrl::FirmwareCore& fw, const ctrl::HostFront& iface,
                       Tick at);

struct WindowFigures {
  Tick start = 0, end = 0;  // the window is [start, end]
  double chip_utilization = 0;             // chips busy on average over the window, in [0, chips]
  // Chips busy on average over the time at least one is (the PIQ paper's "number of flash
  // chips being accessed simultaneously"), in [0, chips]; 0 if none ever was.
  double chip_utilization_while_busy = 0;
  std::vector<double> chip_busy;           // per chip: busy time / end, in [0, 1]
  std::vector<double> chip_idle_while_others_busy;  // per chip, in [0, 1]
  std::vector<double> bus_utilization;     // per channel, in [0, 1]
  double core_utilization = 0;             // firmware core busy / end, in [0, 1]
  double link_utilization = 0;             // host link busy / end, in [0, 1]
  double ncq_tags_mean = 0;                // requests the device held (NCQ tags in use), time mean
  double pcie_up_utilization = 0, pcie_down_utilization = 0;  // NVMe: each direction busy / window
  unsigned ncq_depth = 0;                  // its bound
  std::size_t chips = 0;
};

// The figures over [from.at, to.at], checked (check_window).
WindowFigures window_between(const WindowTicks& from, const WindowTicks& to);
// The NAND's figures over [0, end] (called at `end`, or later for a NAND whose work all
// ended by then), checked.
WindowFigures nand_window(const nand::NandDevice& nand, Tick end);
// The whole controller's over [from.at, end], at `end` = now, checked.
WindowFigures full_window(const nand::NandDevice& nand, const ctrl::FirmwareCore& fw,
                          const ctrl::HostFront& iface, Tick end, const WindowTicks& from = WindowTicks{});
// Throws std::logic_error naming the figure if one is outside its range (a defect of
// the model's accounting, never of the input).
void check_window(const WindowFigures& w);

}  // namespace ssd
