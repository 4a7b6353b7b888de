// A synthetic workload, plain C++ and deterministic for a seed on every platform (its
// own integer arithmetic, no std distributions):
//  - sizes fixed, or uniform between size_bytes and size_max_bytes in steps of align;
//  - start offsets multiples of align_bytes (0: of the request size);
//  - addresses random (uniform, or Zipf-skewed with exponent zipf_theta over the slots,
//    scattered over the device by a hash so that hot data is not all at the start) or
//    sequential;
//  - closed loop, or open loop with Poisson arrivals at rate_iops;
//  - a request count and/or a duration limit (open loop: arrivals after it are not made);
//  - trims, a share of the requests drawn as reads and writes are (sizes and addresses
//    alike), and flushes, one after every flush_every writes at that write's arrival.
//    With neither, the draws are those of a workload of reads and writes only, and the
//    flushes take no draw: a run with flushes issues the same reads, writes and trims.
//  - FUA writes: a share fua_ratio of the writes, by a draw of its own after the write's
//    (none when the share is 0, so the other draws are those of a run without FUA).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/splitmix.h"
#include "host/input_error.h"
#include "tlm/host_protocol.h"

namespace ssd::host {

struct SyntheticConfig {
  std::uint64_t requests = 100000;   // 0: no count limit (needs a duration)
  double read_ratio = 0.7;
  double trim_ratio = 0.0;           // the share of trims (the rest after reads and trims: writes)
  std::uint64_t flush_every = 0;     // > 0: a flush after every this many writes (not counted in requests)
  double fua_ratio = 0.0;            // the share of writes with Force Unit Access
  std::uint32_t size_bytes = 4096;
  std::uint32_t size_max_bytes = 0;  // > size_bytes: uniform sizes
  std::uint32_t align_bytes = 0;     // 0: aligned to the request size
  bool sequential = false;
  double zipf_theta = 0.0;           // 0: uniform random addresses
  double rate_iops = 0.0;            // > 0: open loop, Poisson arrivals
  Tick duration = 0;                 // > 0: no arrival after this time (open loop)
  std::uint64_t seed = 1;
  std::uint64_t capacity_sectors = 0;  // the device's logical capacity
};

struct HostRequest {
  HostOp op;
  std::uint64_t lba;
  std::uint32_t sectors;
  bool fua = false;  // a write with Force Unit Access
};

class SyntheticWorkload {
 public:
  explicit SyntheticWorkload(const SyntheticConfig& cfg);
  // The next request and its arrival time (0 in closed loop); false at the end.
  bool next(HostRequest& r, Tick& arrival);
  std::uint64_t issued() const { return issued_; }

 private:
  std::uint64_t rand() { return splitmix64::next(state_); }
  double uniform() { return splitmix64::unit(rand()); }
  std::uint64_t below(std::uint64_t n) { return splitmix64::below(rand(), n); }
  std::uint64_t zipf_rank();  // 0 = the hottest

  SyntheticConfig cfg_;
  std::uint64_t state_;
  std::uint32_t align_sectors_;
  std::uint64_t slots_;  // aligned start positions
  std::uint64_t cursor_ = 0;
  std::uint64_t issued_ = 0;
  std::uint64_t writes_ = 0;      // since the last flush
  bool flush_due_ = false;        // the next request is a flush
  Tick last_arrival_ = 0;
  double clock_ = 0;  // open loop: the last arrival, in ps
  // Zipf (Gray et al.'s method, as in YCSB): constants over slots_ items.
  double zeta_n_ = 0, alpha_ = 0, eta_ = 0, half_pow_ = 0;
};

}  // namespace ssd::host
