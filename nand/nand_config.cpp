#include "nand/nand_config.h"

#include <sstream>

namespace ssd::nand {

std::vector<std::string> NandConfig::validate() const {
  std::vector<std::string> errs;
  auto range = [&](const char* key, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
    if (v < lo || v > hi) {
      std::ostringstream os;
      os << key << " = " << v << " is out of range [" << lo << ", " << hi << "]";
      errs.push_back(os.str());
    }
  };
  range("nand.channels", channels, 1, 1024);
  range("nand.chips_per_channel", chips_per_channel, 1, 1024);
  range("nand.dies_per_chip", dies_per_chip, 1, 64);
  range("nand.planes_per_die", planes_per_die, 1, kMaxPlanes);
  range("nand.blocks_per_plane", blocks_per_plane, 1, 1u << 24);
  range("nand.pages_per_block", pages_per_block, 1, 65535);
  range("nand.page_bytes", page_bytes, 1, 1u << 20);
  range("nand.cmd_addr_cycles", cmd_addr_cycles, 1, 1000);
  range("nand.erase_cmd_cycles", erase_cmd_cycles, 1, 1000);
  auto positive = [&](const char* key, double v, double hi) {
    if (!(v > 0.0) || v > hi || !std::isfinite(v)) {
      std::ostringstream os;
      os << key << " = " << v << " must be > 0 and <= " << hi;
      errs.push_back(os.str());
    }
  };
  positive("nand.bus_mts", bus_mts, 1e5);
  positive("nand.t_read_us", t_read_us, 1e7);
  positive("nand.t_prog_us", t_prog_us, 1e7);
  positive("nand.t_erase_us", t_erase_us, 1e7);
  if (errs.empty() && page_bytes % 512 != 0) {
    std::ostringstream os;
    os << "nand.page_bytes = " << page_bytes << " is not a multiple of the 512-byte sector";
    errs.push_back(os.str());
  }
  // The token store holds 4 bytes per physical page; refuse geometries this machine
  // cannot hold rather than failing deep inside an allocation. Counted in 128 bits: the
  // ranges above allow a product of 2^69 pages.
  const unsigned __int128 pages128 = static_cast<unsigned __int128>(channels) * chips_per_channel * dies_per_chip *
                                     planes_per_die * blocks_per_plane * pages_per_block;
  if (errs.empty() && pages128 > (std::uint64_t{1} << 34)) {
    std::ostringstream os;
    os << "nand geometry has more than 2^34 pages (nand.channels x chips_per_channel x dies_per_chip x "
          "planes_per_die x blocks_per_plane x pages_per_block = "
       << static_cast<long double>(pages128) << "): its page state would need more than 64 GiB; reduce "
          "nand.blocks_per_plane or nand.channels";
    errs.push_back(os.str());
  }
  for (std::string& e : fault.validate()) errs.push_back(std::move(e));
  return errs;
}

}  // namespace ssd::nand
