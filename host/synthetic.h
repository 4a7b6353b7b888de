// A synthetic workload: random or sequential, a read ratio, a fixed request size
// aligned to itself, a request count and a seed. Plain C++; deterministic for a
// seed on every platform (its own integer arithmetic, no std distributions).
#pragma once

#include <cstdint>
#include <string>

#include "tlm/host_protocol.h"

namespace ssd::host {

struct SyntheticConfig {
  std::uint64_t requests = 100000;
  double read_ratio = 0.7;
  std::uint32_t size_bytes = 4096;
  bool sequential = false;
  std::uint64_t seed = 1;
  std::uint64_t capacity_sectors = 0;  // the device's logical capacity
};

struct HostRequest {
  HostOp op;
  std::uint64_t lba;
  std::uint32_t sectors;
};

class SyntheticWorkload {
 public:
  explicit SyntheticWorkload(const SyntheticConfig& cfg)
      : cfg_(cfg), state_(cfg.seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull),
        sectors_(cfg.size_bytes / 512), slots_(cfg.capacity_sectors / (cfg.size_bytes / 512)) {}

  bool next(HostRequest& r) {
    if (issued_ == cfg_.requests || slots_ == 0) return false;
    ++issued_;
    const double u = static_cast<double>(rand() >> 11) * (1.0 / 9007199254740992.0);
    r.op = u < cfg_.read_ratio ? HostOp::Read : HostOp::Write;
    r.sectors = sectors_;
    const std::uint64_t slot = cfg_.sequential ? cursor_++ % slots_ : rand() % slots_;
    r.lba = slot * sectors_;
    return true;
  }
  std::uint64_t issued() const { return issued_; }

 private:
  std::uint64_t rand() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  SyntheticConfig cfg_;
  std::uint64_t state_;
  std::uint32_t sectors_;
  std::uint64_t slots_;
  std::uint64_t cursor_ = 0;
  std::uint64_t issued_ = 0;
};

}  // namespace ssd::host
