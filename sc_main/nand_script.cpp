#include "sc_main/nand_script.h"

#include "common/text_fields.h"

#include <filesystem>
#include <sstream>
#include <vector>

namespace ssd {

bool NandScriptReader::uses_suspend(const std::string& path, const nand::NandConfig& geometry) {
  try {
    NandScriptReader r(path, geometry);
    ScriptCommand c;
    while (r.next(c))
      if (c.suspend || c.op == FlashOp::Resume) return true;
  } catch (const ScriptError&) {
  }
  return false;
}

NandScriptReader::NandScriptReader(const std::string& path, const nand::NandConfig& geometry)
    : path_(path), geo_(geometry), planes_(geometry.planes_per_die), in_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ScriptError(path + ": is a directory, not a NAND command script");
  if (!in_) throw ScriptError(path + ": cannot open the NAND command script");
}

void NandScriptReader::fail(const std::string& field, const std::string& what) const {
  throw ScriptError(field_error(path_, line_no_, field, what));
}

bool NandScriptReader::read_line() {
  std::string line;
  for (;;) {
    const LineRead got = ssd::read_line(in_, line, kMaxLineBytes);
    if (got == LineRead::End) break;
    ++line_no_;
    if (got == LineRead::TooLong)
      throw ScriptError(path_ + ":" + std::to_string(line_no_) + ": a line longer than " +
                        std::to_string(kMaxLineBytes) + " bytes (is this a NAND command script?)");
    if (line_no_ == 1) strip_bom(line);
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream is(line);
    std::vector<std::string> f;
    for (std::string w; is >> w;) f.push_back(w);
    if (f.empty()) continue;
    static const char* names[] = {"time_us", "op", "channel", "chip", "die", "planes", "block", "pages"};
    if (f.size() < 8) fail(names[f.size()], "missing (a line has 8 fields: time_us op channel chip die planes block pages)");
    if (f.size() > 8) fail("pages", "unexpected text after the 8th field: " + quote(f[8]));
    ScriptCommand c;
    c.line = line_no_;
    double t = 0;
    if (!parse_real(f[0], t)) fail("time_us", "not a number: " + quote(f[0]));
    if (t < 0) fail("time_us", "negative time " + f[0]);
    if (!ps_to_input_tick(static_cast<long double>(t) * 1e6L, c.time))
      fail("time_us", "time " + f[0] + " us is past the simulated time range (2^63 ps, 106.7 days)");
    if (c.time < last_time_) fail("time_us", "time " + f[0] + " goes backwards (times must not decrease)");
    last_time_ = c.time;
    if (f[1] == "read") c.op = FlashOp::Read;
    else if (f[1] == "program") c.op = FlashOp::Program;
    else if (f[1] == "erase") c.op = FlashOp::Erase;
    else if (f[1] == "suspend_read") c.op = FlashOp::Read, c.suspend = true;
    else if (f[1] == "resume") c.op = FlashOp::Resume;
    else if (f[1] == "power_cut") c.power_cut = true;
    else if (f[1] == "read_slc") c.op = FlashOp::Read, c.slc = true;
    else if (f[1] == "program_slc") c.op = FlashOp::Program, c.slc = true;
    else if (f[1] == "erase_slc") c.op = FlashOp::Erase, c.slc = true;
    else fail("op", "unknown operation " + quote(f[1]) +
                        " (read, program, erase, suspend_read, resume, power_cut, read_slc, program_slc or erase_slc)");
    if (c.slc && geo_.bits_per_cell == 1)
      fail("op", quote(f[1]) + " is SLC mode, which a part of one bit per cell does not have (" +
                     param::key(&nand::NandConfig::bits_per_cell) + " = 1)");
    if (c.power_cut) {
      for (int i = 2; i < 8; ++i)
        if (f[i] != "-") fail(names[i], "a power_cut names nothing: '-' (not " + quote(f[i]) + ")");
      cur_ = c;
      page_end_ = 0;
      pending_ = true;
      return true;
    }
    std::uint32_t v;
    if (!parse_whole(f[2], v) || v > 65535) fail("channel", "not a channel number: " + quote(f[2]));
    c.channel = static_cast<std::uint16_t>(v);
    if (!parse_whole(f[3], v) || v > 65535) fail("chip", "not a chip number: " + quote(f[3]));
    c.chip = static_cast<std::uint16_t>(v);
    if (!parse_whole(f[4], v) || v > 65535) fail("die", "not a die number: " + quote(f[4]));
    c.die = static_cast<std::uint16_t>(v);
    if (c.op == FlashOp::Resume) {
      for (const auto& [i, field] : {std::pair<int, const char*>{5, "planes"}, {6, "block"}, {7, "pages"}})
        if (f[i] != "-") fail(field, "a resume names its die only: '-' (not " + quote(f[i]) + ")");
      c.plane_mask = 1;
    } else if (f[5] == "all") {
      c.plane_mask = static_cast<std::uint8_t>((1u << planes_) - 1);
    } else {
      std::string item;
      std::istringstream ps(f[5]);
      while (std::getline(ps, item, ',')) {
        if (!parse_whole(item, v) || v >= kMaxPlanes) fail("planes", "not a plane number: " + quote(item));
        c.plane_mask = static_cast<std::uint8_t>(c.plane_mask | (1u << v));
      }
      if (c.plane_mask == 0) fail("planes", "no plane given");
    }
    if (c.op != FlashOp::Resume && !parse_whole(f[6], c.block)) fail("block", "not a block number: " + quote(f[6]));
    std::uint32_t first = 0, last = 0;
    if (c.op == FlashOp::Resume) {
    } else if (c.op == FlashOp::Erase) {
      if (f[7] != "-" && !parse_whole(f[7], first)) fail("pages", "an erase takes '-' (or a number, ignored)");
    } else {
      const std::size_t dash = f[7].find('-');
      if (dash == std::string::npos) {
        if (!parse_whole(f[7], first)) fail("pages", "not a page number: " + quote(f[7]));
        last = first;
      } else if (!parse_whole(f[7].substr(0, dash), first) || !parse_whole(f[7].substr(dash + 1), last) || last < first) {
        fail("pages", "not a page range a-b with a <= b: " + quote(f[7]));
      }
    }
    // Checked against the geometry here, each by its field (the device would refuse every
    // page of the command as a protocol error); a page range is expanded page by page, and
    // one past the block (0-4294967295) would run for ever.
    const auto beyond = [&](const char* field, std::uint64_t v, std::uint64_t n, const std::string& key) {
      if (v >= n)
        fail(field, std::string(field) + " " + std::to_string(v) + " does not exist (" + key + " = " +
                        std::to_string(n) + ")");
    };
    using nand::NandConfig;
    using param::key;
    beyond("channel", c.channel, geo_.channels, key(&NandConfig::channels));
    beyond("chip", c.chip, geo_.chips_per_channel, key(&NandConfig::chips_per_channel));
    beyond("die", c.die, geo_.dies_per_chip, key(&NandConfig::dies_per_chip));
    if (c.plane_mask >> geo_.planes_per_die)
      fail("planes", "a plane past " + key(&NandConfig::planes_per_die) + " = " + std::to_string(geo_.planes_per_die));
    beyond("block", c.block, geo_.blocks_per_plane, key(&NandConfig::blocks_per_plane));
    if (c.op != FlashOp::Erase && last >= geo_.pages_per_block)
      fail("pages", "page " + std::to_string(last) + " does not exist (" + key(&NandConfig::pages_per_block) +
                        " = " + std::to_string(geo_.pages_per_block) + ")");
    // n-bit cells: a program writes whole wordlines, one command each.
    const std::uint32_t n = geo_.bits_per_cell;
    if (c.slc && c.op != FlashOp::Erase && last >= geo_.slc_pages_per_block())
      fail("pages", "page " + std::to_string(last) + " does not exist in SLC mode (a block in SLC mode holds " +
                        key(&NandConfig::pages_per_block) + " / " + key(&NandConfig::bits_per_cell) + " = " +
                        std::to_string(geo_.slc_pages_per_block()) + " pages)");
    if (c.op == FlashOp::Program && !c.slc && n > 1 && (first % n != 0 || (last + 1) % n != 0))
      fail("pages", "a program writes whole wordlines of " + key(&NandConfig::bits_per_cell) + " = " +
                        std::to_string(n) + " pages: its pages run from a multiple of " + std::to_string(n) +
                        " to one before a multiple (" + quote(f[7]) + ")");
    c.page = first;
    cur_ = c;
    page_end_ = last;
    pending_ = true;
    return true;
  }
  if (in_.bad()) throw ScriptError(path_ + ":" + std::to_string(line_no_) + ": read error");
  return false;
}

bool NandScriptReader::next(ScriptCommand& out) {
  if (!pending_ && !read_line()) return false;
  out = cur_;
  const std::uint32_t step = cur_.op == FlashOp::Program && !cur_.slc ? geo_.bits_per_cell : 1;  // a wordline
  if (cur_.op != FlashOp::Erase && cur_.page + step <= page_end_) {
    cur_.page += step;
  } else {
    pending_ = false;
  }
  return true;
}

}  // namespace ssd
