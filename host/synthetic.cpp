#include "host/synthetic.h"

#include <algorithm>
#include <sstream>

#include "host/request_source.h"

namespace ssd::host {

SyntheticWorkload::SyntheticWorkload(const SyntheticConfig& cfg)
    : cfg_(cfg), state_(cfg.seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {
  align_sectors_ = std::max<std::uint32_t>(1, (cfg.align_bytes ? cfg.align_bytes : cfg.size_bytes) / 512);
  const std::uint32_t max_sectors = std::max(cfg.size_bytes, cfg.size_max_bytes) / 512;
  slots_ = cfg.capacity_sectors > max_sectors ? (cfg.capacity_sectors - max_sectors) / align_sectors_ + 1 : 0;
  if (cfg.zipf_theta > 0 && slots_ > 1) {
    // zeta(n, theta) = sum_{i=1..n} 1/i^theta, once (about 0.1 s per 10^7 slots).
    const double t = cfg.zipf_theta;
    for (std::uint64_t i = 1; i <= slots_; ++i) zeta_n_ += 1.0 / std::pow(static_cast<double>(i), t);
    const double zeta2 = 1.0 + 1.0 / std::pow(2.0, t);
    alpha_ = 1.0 / (1.0 - t);
    eta_ = (1.0 - std::pow(2.0 / static_cast<double>(slots_), 1.0 - t)) / (1.0 - zeta2 / zeta_n_);
    half_pow_ = 1.0 + std::pow(0.5, t);
  }
}

std::uint64_t SyntheticWorkload::zipf_rank() {
  const double u = uniform();
  const double uz = u * zeta_n_;
  if (uz < 1.0) return 0;
  if (uz < half_pow_) return 1;
  const auto r = static_cast<std::uint64_t>(static_cast<double>(slots_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return std::min(r, slots_ - 1);
}

bool SyntheticWorkload::next(HostRequest& r, Tick& arrival) {
  if (flush_due_) {  // after the flush_every-th write, at its arrival
    flush_due_ = false;
    r = HostRequest{HostOp::Flush, 0, 0};
    arrival = last_arrival_;
    return true;
  }
  if (slots_ == 0) return false;
  if (cfg_.requests && issued_ == cfg_.requests) return false;
  arrival = 0;
  if (cfg_.rate_iops > 0) {  // Poisson arrivals: exponential gaps
    clock_ += -std::log(1.0 - uniform()) / cfg_.rate_iops * 1e12;
    if (cfg_.duration && clock_ >= static_cast<double>(cfg_.duration)) return false;
    if (!ps_to_input_tick(clock_, arrival)) {
      std::ostringstream os;
      using param::key;
      os << key(&WorkloadConfig::rate_iops) << " = " << cfg_.rate_iops << ": request " << issued_ + 1
         << " would arrive at " << clock_ / 1e12 << " s, past the simulated time range (2^63 ps, 106.7 days); raise "
         << "the rate, or lower " << key(&WorkloadConfig::requests) << " or set " << key(&WorkloadConfig::duration_us);
      throw InputError(os.str());
    }
  }
  ++issued_;
  // One draw chooses the kind: reads below read_ratio, then trims, then writes.
  const double u = uniform();
  r.op = u < cfg_.read_ratio ? HostOp::Read : u < cfg_.read_ratio + cfg_.trim_ratio ? HostOp::Trim : HostOp::Write;
  r.fua = false;
  if (r.op == HostOp::Write && cfg_.flush_every && ++writes_ == cfg_.flush_every) {
    writes_ = 0;
    flush_due_ = true;
    last_arrival_ = arrival;
  }
  std::uint32_t bytes = cfg_.size_bytes;
  if (cfg_.size_max_bytes > cfg_.size_bytes) {  // uniform in steps of the alignment (at least 512 B)
    const std::uint32_t step = align_sectors_ * 512;
    bytes += static_cast<std::uint32_t>(below((cfg_.size_max_bytes - cfg_.size_bytes) / step + 1)) * step;
  }
  r.sectors = bytes / 512;
  std::uint64_t slot;
  if (cfg_.sequential) {
    slot = cursor_ % slots_;
    cursor_ += (r.sectors + align_sectors_ - 1) / align_sectors_;
  } else if (cfg_.zipf_theta > 0) {
    // Scatter the ranks (a multiplicative hash) so that hot slots spread over the device.
    slot = static_cast<std::uint64_t>((static_cast<unsigned __int128>(zipf_rank()) * 0x9E3779B97F4A7C15ull) % slots_);
  } else {
    slot = below(slots_);
  }
  r.lba = slot * align_sectors_;
  if (r.op == HostOp::Write && cfg_.fua_ratio > 0) r.fua = uniform() < cfg_.fua_ratio;
  return true;
}

}  // namespace ssd::host
