#include "nand/nand_config.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "common/text_fields.h"

namespace ssd::nand {

const param::Table<NandConfig>& NandConfig::keys() {
  static const param::Table<NandConfig> t = [] {
    using N = NandConfig;
    param::Table<N> k;
    k.integer("nand.channels", &N::channels, 1, 1024, "channels (independent buses)")
        .integer("nand.chips_per_channel", &N::chips_per_channel, 1, 1024, "chips sharing a channel's bus")
        .integer("nand.dies_per_chip", &N::dies_per_chip, 1, 64, "dies per chip (array operations overlap)")
        .integer("nand.planes_per_die", &N::planes_per_die, 1, kMaxPlanes, "planes per die (multi-plane commands)")
        .integer("nand.blocks_per_plane", &N::blocks_per_plane, 1, 1 << 24, "erase blocks per plane").unit("blocks")
        .integer("nand.pages_per_block", &N::pages_per_block, 1, 65535, "pages per block").unit("pages")
        .integer("nand.page_bytes", &N::page_bytes, 512, 1 << 20, "page data bytes moved on the bus").unit("bytes")
        .integer("nand.bits_per_cell", &N::bits_per_cell, 1, kMaxBitsPerCell,
                 "bits per cell: a wordline holds this many pages, programmed together in one tPROG")
        .number("nand.bus_mts", &N::bus_mts, 0.001, 100000, "bus rate, MT/s on an 8-bit bus (one byte per transfer)")
        .unit("MT/s")
        .integer("nand.cmd_addr_cycles", &N::cmd_addr_cycles, 1, 1000, "command+address bus cycles of a read or program")
        .unit("bus cycles")
        .integer("nand.erase_cmd_cycles", &N::erase_cmd_cycles, 1, 1000, "command+address bus cycles of an erase")
        .unit("bus cycles")
        .number("nand.t_read_us", &N::t_read_us, 0.001, 1e7, "tR: array to data register, us").unit("us")
        .text("nand.t_read_page_us", &N::t_read_page_us,
              "tR per page type, lower page first: nand.bits_per_cell numbers in us, comma-separated (empty: "
              "nand.t_read_us for every page)")
        .number("nand.t_prog_us", &N::t_prog_us, 0.001, 1e7,
                "tPROG: data registers to array, of a wordline (its nand.bits_per_cell pages at once), us")
        .unit("us")
        .number("nand.t_prog_slc_us", &N::t_prog_slc_us, 0.001, 1e7,
                "tPROG of a page of a block in SLC mode (nand.bits_per_cell > 1), us")
        .unit("us")
        .number("nand.t_read_slc_us", &N::t_read_slc_us, 0.001, 1e7,
                "tR of a page of a block in SLC mode (nand.bits_per_cell > 1), us")
        .unit("us")
        .number("nand.t_erase_us", &N::t_erase_us, 0.001, 1e7, "tBERS: block erase, us").unit("us")
        .flag("nand.cache_read", &N::cache_read, "cache read: stream page n out while reading n+1")
        .flag("nand.cache_program", &N::cache_program, "cache program: data-in of the next page during tPROG")
        .flag("nand.multiplane", &N::multiplane, "multi-plane read/program/erase commands allowed")
        .flag("nand.independent_plane_reads", &N::independent_plane_reads,
              "reads on different planes of a die sense at once, each at its own page offset")
        .number("nand.t_suspend_program_us", &N::t_suspend_program_us, 0.001, 1e7,
                "program suspend latency: from the SUSPEND until the die takes a read, us (MQSim's default)")
        .unit("us")
        .number("nand.t_suspend_erase_us", &N::t_suspend_erase_us, 0.001, 1e7,
                "erase suspend latency: from the SUSPEND until the die takes a read, us (MQSim's default)")
        .unit("us")
        .number("nand.suspend_penalty_us", &N::suspend_penalty_us, 0, 1e7,
                "time a resumed program or erase takes beyond its remaining array time, us")
        .unit("us")
        .integer("nand.max_suspends", &N::max_suspends, 1, 255, "the most times one program or erase is suspended")
        .integer("nand.suspend_cmd_cycles", &N::suspend_cmd_cycles, 1, 1000,
                 "bus cycles of a SUSPEND or RESUME command (MQSim: 3)")
        .unit("bus cycles")
        .flag("nand.program_in_erase_suspend", &N::program_in_erase_suspend,
              "a die with a suspended erase also takes programs (not into the erasing block)")
        .part(&N::fault, FaultConfig::keys());
    return k;
  }();
  return t;
}

namespace {
// The numbers of a comma-separated list, in the number grammar of every reader
// (common/text_fields.h); false (with `why`) at the first item that is not one.
bool parse_times(const std::string& list, std::vector<double>& out, std::string& why) {
  out.clear();
  for (const std::string& item : comma_items(list)) {
    double v = 0;
    if (!parse_real(item, v)) {
      why = "'" + item + "' (item " + std::to_string(out.size() + 1) + ") is not a number";
      return false;
    }
    out.push_back(v);
  }
  return true;
}
}  // namespace

std::vector<double> NandConfig::read_times_us() const {
  if (t_read_page_us.empty()) return std::vector<double>(bits_per_cell, t_read_us);
  std::vector<double> v;
  std::string why;
  if (!parse_times(t_read_page_us, v, why) || v.size() != bits_per_cell)
    throw std::logic_error("NandConfig::read_times_us on a config that does not validate");
  return v;
}

std::vector<std::string> NandConfig::validate() const {
  std::vector<std::string> errs = param::check(*this);
  using param::key;
  if (errs.empty() && pages_per_block % bits_per_cell != 0) {
    std::ostringstream os;
    os << key(&NandConfig::pages_per_block) << " = " << pages_per_block << " is not a whole number of wordlines of "
       << key(&NandConfig::bits_per_cell) << " = " << bits_per_cell << " pages";
    errs.push_back(os.str());
  }
  if (errs.empty() && units_per_page != 1 &&
      (units_per_page < 1 || units_per_page > kMaxUnitsPerPage || page_bytes % units_per_page != 0 ||
       page_bytes / units_per_page % 512 != 0)) {
    std::ostringstream os;
    os << "pages of " << units_per_page << " data units (the FTL's mapping units) with " << key(&NandConfig::page_bytes)
       << " = " << page_bytes << ": a unit must be a whole number of 512-byte sectors, at most " << kMaxUnitsPerPage
       << " to a page";
    errs.push_back(os.str());
  }
  if (errs.empty() && !t_read_page_us.empty()) {
    std::vector<double> v;
    std::string why;
    std::ostringstream os;
    os << key(&NandConfig::t_read_page_us) << " = '" << t_read_page_us << "': ";
    if (!parse_times(t_read_page_us, v, why)) {
      os << why;
      errs.push_back(os.str());
    } else if (v.size() != bits_per_cell) {
      os << v.size() << " times for " << key(&NandConfig::bits_per_cell) << " = " << bits_per_cell
         << " page types (one per page type, lower page first)";
      errs.push_back(os.str());
    } else {
      for (std::size_t k = 0; k < v.size(); ++k)
        if (!(v[k] >= 0.001 && v[k] <= 1e7)) {
          os << "item " << k + 1 << " = " << param::number_text(v[k]) << " is out of range [" << param::number_text(0.001)
             << ", " << param::number_text(1e7) << "]";
          errs.push_back(os.str());
          break;
        }
    }
  }
  if (errs.empty() && page_bytes % 512 != 0) {
    std::ostringstream os;
    os << key(&NandConfig::page_bytes) << " = " << page_bytes << " is not a multiple of the 512-byte sector";
    errs.push_back(os.str());
  }
  // The token store holds 4 bytes per physical page; refuse geometries this machine
  // cannot hold rather than failing deep inside an allocation. Counted in 128 bits: the
  // ranges above allow a product of 2^69 pages.
  const unsigned __int128 pages128 = static_cast<unsigned __int128>(channels) * chips_per_channel * dies_per_chip *
                                     planes_per_die * blocks_per_plane * pages_per_block;
  if (errs.empty() && pages128 > (std::uint64_t{1} << 34)) {
    std::ostringstream os;
    os << "nand geometry has more than 2^34 pages (" << key(&NandConfig::channels) << " x "
       << key(&NandConfig::chips_per_channel) << " x " << key(&NandConfig::dies_per_chip) << " x "
       << key(&NandConfig::planes_per_die) << " x " << key(&NandConfig::blocks_per_plane) << " x "
       << key(&NandConfig::pages_per_block) << " = " << static_cast<long double>(pages128)
       << "): its page state would need more than 64 GiB; reduce " << key(&NandConfig::blocks_per_plane) << " or "
       << key(&NandConfig::channels);
    errs.push_back(os.str());
  }
  for (std::string& e : fault.validate())
    if (std::find(errs.begin(), errs.end(), e) == errs.end()) errs.push_back(std::move(e));
  return errs;
}

}  // namespace ssd::nand
