#include "sc_main/time_series.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "tlm/sim_now.h"

namespace ssd {

TimeSeries::TimeSeries(sc_core::sc_module_name name, const std::string& path, Tick interval, host::HostDriver& host,
                       const ctrl::HostFront& iface, const ctrl::FirmwareCore& fw, const nand::NandDevice& nand)
    : sc_module(name), out_(path), interval_(interval), host_(host), iface_(iface), fw_(fw), nand_(nand) {
  if (!out_) throw std::runtime_error("cannot write " + path);
  if (interval_ == 0) throw std::runtime_error("the interval must be > 0");
  out_ << header(fw_.ftl().slc_blocks() > 0) << '\n';
  host_.enable_intervals();
  SC_HAS_PROCESS(TimeSeries);
  SC_METHOD(on_tick);
  sensitive << tick_;
  dont_initialize();
  tick_.notify(sc_delay(interval_));
}

std::string TimeSeries::header(bool slc) {
  std::string h =
      "start_us,end_us,read_iops,write_iops,read_mb_s,write_mb_s,read_mean_us,read_p99_us,write_mean_us,"
      "write_p99_us,chips_busy,bus_utilization,gc_erases,gc_copies,host_pages_programmed,write_amplification,"
      "free_blocks_min,free_blocks_mean,ncq_tags_in_use,host_queue_length";
  // The SLC cache: the share of its blocks holding data (mean over the planes, at the
  // interval's end), host pages written into it and pages folded out of it.
  if (slc) h += ",slc_occupancy,slc_host_pages,fold_pages";
  // The latency parts' means over the requests completed in the interval (tlm/latency_parts.h).
  for (const char* op : {"read", "write"})
    for (unsigned k = 0; k < kParts; ++k)
      if (part_shown(k)) h += std::string(",") + op + "_part_" + part_name(k) + "_us";
  return h;
}

void TimeSeries::on_tick() {
  if (done_) return;
  row(sim_now());
  tick_.notify(sc_delay(interval_));
}

void TimeSeries::finish(Tick now) {
  if (done_) return;
  if (now > last_.at) row(now);
  done_ = true;
  tick_.cancel();
  out_.flush();
}

void TimeSeries::row(Tick now) {
  const WindowTicks t = full_ticks(nand_, fw_, iface_, now);
  const WindowFigures w = window_between(last_, t);
  host::HostDriver::Interval& in = *host_.interval();
  const double s = static_cast<double>(now - last_.at) / 1e12;
  const ctrl::Ftl& ftl = fw_.ftl();
  const FtlCounters now_ftl = FtlCounters::of(fw_.firmware()), d = now_ftl - ftl_last_;
  std::uint32_t fmin = ~0u;
  double fsum = 0;
  for (std::uint32_t p = 0; p < ftl.planes(); ++p) {
    fmin = std::min(fmin, ftl.free_blocks(p));
    fsum += ftl.free_blocks(p);
  }
  double bus = 0;
  for (double b : w.bus_utilization) bus += b;
  if (!w.bus_utilization.empty()) bus /= static_cast<double>(w.bus_utilization.size());
  char line[512];
  std::snprintf(line, sizeof line,
                "%.3f,%.3f,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%llu,%llu,%llu,%.4f,%u,%.2f,%u,%zu",
                ticks_to_us(last_.at), ticks_to_us(now), s > 0 ? static_cast<double>(in.latency[0].count()) / s : 0.0,
                s > 0 ? static_cast<double>(in.latency[1].count()) / s : 0.0, s > 0 ? in.bytes[0] / 1e6 / s : 0.0,
                s > 0 ? in.bytes[1] / 1e6 / s : 0.0, in.latency[0].mean() / 1e6,
                static_cast<double>(in.latency[0].quantile(0.99)) / 1e6, in.latency[1].mean() / 1e6,
                static_cast<double>(in.latency[1].quantile(0.99)) / 1e6, w.chip_utilization, bus,
                static_cast<unsigned long long>(d.gc_erases), static_cast<unsigned long long>(d.gc_pages),
                static_cast<unsigned long long>(d.host_pages), d.write_amplification(),
                ftl.planes() ? fmin : 0u, ftl.planes() ? fsum / ftl.planes() : 0.0, iface_.tags_in_use(),
                host_.host_queue_length());
  std::string parts;
  if (const std::uint32_t S = ftl.slc_blocks()) {
    double used = 0;
    for (std::uint32_t p = 0; p < ftl.planes(); ++p) used += S - ftl.slc_free_blocks(p);
    char v[96];
    std::snprintf(v, sizeof v, ",%.4f,%llu,%llu", used / S / ftl.planes(),
                  static_cast<unsigned long long>(d.slc_host_pages), static_cast<unsigned long long>(d.fold_pages));
    parts += v;
  }
  for (int op = 0; op < 2; ++op) {
    const double n = static_cast<double>(in.latency[op].count());
    for (unsigned k = 0; k < kParts; ++k) {
      if (!part_shown(k)) continue;
      char v[32];
      std::snprintf(v, sizeof v, ",%.3f", n > 0 ? static_cast<double>(in.part_sum[op][k]) / n / 1e6 : 0.0);
      parts += v;
    }
  }
  out_ << line << parts << '\n';
  ++rows_;
  last_ = t;
  ftl_last_ = now_ftl;
  in = host::HostDriver::Interval{};
}

}  // namespace ssd
