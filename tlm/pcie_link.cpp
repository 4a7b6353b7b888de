#include "tlm/pcie_link.h"

#include <stdexcept>
#include <string>

namespace ssd {

PcieLink::PcieLink(const PcieConfig& cfg) : cfg_(cfg) {
  if (cfg.generation < 1 || cfg.generation > 5)
    throw std::invalid_argument("PCIe generation " + std::to_string(cfg.generation) + ": 1..5");
  if (cfg.lanes == 0 || cfg.lanes > 16 || (cfg.lanes & (cfg.lanes - 1)) != 0)
    throw std::invalid_argument("PCIe lanes " + std::to_string(cfg.lanes) + ": 1, 2, 4, 8 or 16");
  if (cfg.max_payload < 128 || cfg.max_payload > 4096 || (cfg.max_payload & (cfg.max_payload - 1)) != 0)
    throw std::invalid_argument("PCIe max payload " + std::to_string(cfg.max_payload) +
                                " bytes: 128, 256, 512, 1024, 2048 or 4096");
  if (cfg.max_read_request < 128 || cfg.max_read_request > 4096 ||
      (cfg.max_read_request & (cfg.max_read_request - 1)) != 0)
    throw std::invalid_argument("PCIe max read request " + std::to_string(cfg.max_read_request) +
                                " bytes: 128, 256, 512, 1024, 2048 or 4096");
  // Framing: STP token (4) and LCRC (4) from generation 3 on; start and end symbols (1
  // each), the sequence number (2) and LCRC (4) before: 8 bytes either way, plus the header.
  overhead_ = 8 + (cfg.address64 ? 16 : 12);
  // Transfer rate in half GT/s: 2.5, 5, 8, 16, 32 GT/s; encoding 8b/10b, then 128b/130b.
  static constexpr std::uint64_t half_gt[] = {5, 10, 16, 32, 64};
  const bool g3 = cfg.generation >= 3;
  const std::uint64_t enc_num = g3 ? 128 : 8, enc_den = g3 ? 130 : 10;
  // ps a byte = 1000 ps/ns x 8 bits / (GT/s x encoding's share x lanes).
  ps_num_ = 1000 * 8 * enc_den * 2;
  ps_den_ = half_gt[cfg.generation - 1] * enc_num * cfg.lanes;
}

const param::Table<PcieConfig>& PcieConfig::keys() {
  static const param::Table<PcieConfig> t = [] {
    using P = PcieConfig;
    param::Table<P> k;
    k.integer("pcie.generation", &P::generation, 1, 5,
              "PCIe generation of the NVMe link (host.interface = nvme): 2.5, 5, 8, 16 or 32 GT/s a lane; 8b/10b "
              "encoding for 1 and 2, 128b/130b from 3")
        .integer("pcie.lanes", &P::lanes, 1, 16, "PCIe lanes of the NVMe link: 1, 2, 4, 8 or 16").unit("lanes")
        .integer("pcie.max_payload_bytes", &P::max_payload, 128, 4096,
                 "the most data one TLP carries (Max Payload Size, a power of 2): each TLP costs 24 bytes more (20 "
                 "with pcie.address64 = false)").unit("bytes")
        .integer("pcie.max_read_request_bytes", &P::max_read_request, 128, 4096,
                 "the most data one memory read request asks for (Max Read Request Size, a power of 2)").unit("bytes")
        .flag("pcie.address64", &P::address64, "64-bit addresses: 4-doubleword TLP headers (else 3)");
    return k;
  }();
  return t;
}

}  // namespace ssd
