// A PCIe link's timing, plain C++: how long a transfer takes on one direction of a link
// of a given generation and lane count, counted in transaction layer packets (TLPs) with
// their overhead, as NVMe moves commands, data and completions (issue 58).
//
// A direction's rate is lanes x the generation's transfer rate x its encoding's payload
// share (8b/10b for generations 1 and 2, 128b/130b from 3 on), in bytes: Gen3 x4 moves
// 4 x 8 GT/s x 128/130 / 8 = 3.938 bytes a ns. Each TLP carries at most max_payload bytes
// (the Max Payload Size; a read request's completions at most the read completion
// boundary's multiples, taken as max_payload here) and costs its header (3 doublewords for
// 32-bit addresses, 4 for 64-bit) and the data link and physical layers' framing: from
// generation 3 on a 4-byte STP token (holding the sequence number) and a 4-byte LCRC; before
// it a start and an end symbol (1 byte each), the 2-byte sequence number and the LCRC.
// DLLPs (acknowledgements, flow control credits) and SKP ordered sets are not counted: they
// take a few percent of a busy link.
#pragma once

#include <cstdint>

#include "common/params.h"

namespace ssd {

struct PcieConfig {
  unsigned generation = 3;         // 1..5
  unsigned lanes = 4;              // 1, 2, 4, 8, 16
  std::uint32_t max_payload = 256; // bytes a TLP carries at most: 128..4096, a power of 2
  bool address64 = true;           // 4-doubleword headers (64-bit addresses), else 3
  // Bytes one memory read request asks for at most (the Max Read Request Size): a device
  // read of more is that many requests; their completions come in TLPs of max_payload.
  std::uint32_t max_read_request = 512;
  static const param::Table<PcieConfig>& keys();  // pcie.* (pcie_link.cpp)
};

class PcieLink {
 public:
  // Throws std::invalid_argument for a generation, lane count or payload size out of range,
  // naming it.
  explicit PcieLink(const PcieConfig& cfg);

  // Bytes a TLP with `payload` bytes of data occupies on the link (header and framing
  // included).
  std::uint32_t tlp_bytes(std::uint32_t payload) const { return payload + overhead_; }
  // TLPs and link bytes to move `bytes` of data (split at max_payload).
  std::uint32_t tlps(std::uint64_t bytes) const {
    return bytes ? static_cast<std::uint32_t>((bytes + cfg_.max_payload - 1) / cfg_.max_payload) : 0;
  }
  std::uint64_t link_bytes(std::uint64_t bytes) const { return bytes + std::uint64_t{tlps(bytes)} * overhead_; }
  // Picoseconds that `link` bytes take on one direction (rounded up to whole ps).
  std::uint64_t time_ps(std::uint64_t link) const {
    return (link * ps_num_ + ps_den_ - 1) / ps_den_;
  }
  // The time `bytes` of data take, in TLPs of at most max_payload; a request without data
  // (a memory read request, a doorbell's 4 bytes are data) is one TLP of 0 bytes.
  std::uint64_t data_ps(std::uint64_t bytes) const { return time_ps(link_bytes(bytes)); }
  std::uint64_t request_ps() const { return time_ps(tlp_bytes(0)); }
  // The memory read requests a device read of `bytes` takes (at least one).
  std::uint32_t read_requests(std::uint64_t bytes) const {
    return bytes ? static_cast<std::uint32_t>((bytes + cfg_.max_read_request - 1) / cfg_.max_read_request) : 1;
  }

  // The per-TLP overhead in bytes, and the rate in bytes per ns.
  std::uint32_t overhead() const { return overhead_; }
  double bytes_per_ns() const { return static_cast<double>(ps_den_) / static_cast<double>(ps_num_) * 1000.0; }
  const PcieConfig& config() const { return cfg_; }

 private:
  PcieConfig cfg_;
  std::uint32_t overhead_ = 0;
  // A byte takes ps_num_ / ps_den_ ps: exact rationals, so that timelines are computed
  // by hand to the picosecond.
  std::uint64_t ps_num_ = 0, ps_den_ = 0;
};

}  // namespace ssd
