// report.interval_us: the run over time, one row of timeseries.csv per interval of
// simulated time, from time 0 to the last host completion (the last row ends there):
// host IOPS and MB/s, mean and p99 latency of the requests completed in the interval,
// chips busy (time average), bus utilization, GC erases and copies, host pages
// programmed and their write amplification, free blocks (minimum and mean over the
// planes, at the interval's end), NCQ tags in use and the host's queue length (at its
// end). One timed event per interval; rows go to the file as they are made, so memory
// stays bounded for any run length.
#pragma once

#include <fstream>
#include <string>

#include <systemc>

#include "controller/firmware_core.h"
#include "controller/host_front.h"
#include "host/host_driver.h"
#include "nand/nand_device.h"
#include "sc_main/stats_window.h"

namespace ssd {

class TimeSeries : public sc_core::sc_module {
 public:
  // Throws std::runtime_error if `path` cannot be written.
  TimeSeries(sc_core::sc_module_name name, const std::string& path, Tick interval, host::HostDriver& host,
             const ctrl::HostFront& iface, const ctrl::FirmwareCore& fw, const nand::NandDevice& nand);
  // The host finished at `now`: the last (partial) row, and no more.
  void finish(Tick now);
  std::uint64_t rows() const { return rows_; }
  // `slc`: with the SLC cache's columns (ftl.slc_cache_fraction).
  static std::string header(bool slc = false);

 private:
  void on_tick();
  void row(Tick now);

  std::ofstream out_;
  Tick interval_;
  host::HostDriver& host_;
  const ctrl::HostFront& iface_;
  const ctrl::FirmwareCore& fw_;
  const nand::NandDevice& nand_;
  sc_core::sc_event tick_;
  WindowTicks last_;
  FtlCounters ftl_last_;
  std::uint64_t rows_ = 0;
  bool done_ = false;
};

}  // namespace ssd
