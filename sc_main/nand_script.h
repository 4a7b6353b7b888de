// A script of NAND commands, streamed line by line (never loaded whole):
//
//   # time_us  op       channel chip die planes block pages
//   0          program  0       0    0   0,1    0     0-15
//   2000       read     0       0    0   all    0     3
//   5000       erase    0       0    0   0      0     -
//
// time_us is the submission time (non-decreasing); op is read, program or erase, or
// suspend_read (a read that suspends the program or erase its die's array runs, if the
// die offers it) or resume (the RESUME of the die's suspended operation: docs/nand-timing.md,
// "Suspend and resume"); planes is a comma list of plane numbers or "all" (more than one:
// a multi-plane command); pages is one page, a range a-b (one command per page, all
// submitted at that time, in order) or "-" for an erase. With cells of n bits
// (nand.bits_per_cell) a program writes whole wordlines: its pages run from a multiple of
// n to one before a multiple, one command per wordline. program_slc, read_slc and erase_slc
// are those commands in SLC mode (FlashCommand::slc: an erase_slc puts a block in SLC
// mode, which then holds nand.pages_per_block / n pages, programmed one per command). A resume names no planes, block
// or pages: "-" each. power_cut fails the power of the whole device at its time (after
// what is due then: docs/nand-timing.md, "Power loss"), and names nothing: "-" in each
// other field. '#' starts a comment.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>

#include "nand/nand_config.h"
#include "tlm/flash_command.h"

namespace ssd {

struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ScriptCommand {
  Tick time = 0;
  FlashOp op = FlashOp::Read;
  std::uint16_t channel = 0, chip = 0, die = 0;
  std::uint8_t plane_mask = 0;
  std::uint32_t block = 0;
  std::uint32_t page = 0;
  int line = 0;
  bool suspend = false;    // suspend_read
  bool power_cut = false;  // the device's power fails (no command)
  bool slc = false;        // program_slc, read_slc, erase_slc: in SLC mode
};

class NandScriptReader {
 public:
  // The geometry resolves "all" planes and bounds every address field (channel, chip, die,
  // planes, block, pages); throws ScriptError if the file cannot be opened. Lines end at
  // LF, CR or CRLF, are at most kMaxLineBytes long; a leading byte-order mark is skipped.
  NandScriptReader(const std::string& path, const nand::NandConfig& geometry);
  static constexpr std::size_t kMaxLineBytes = 4096;
  // The next command; false at the end. Throws ScriptError("FILE:LINE: field 'X': ...").
  bool next(ScriptCommand& out);
  const std::string& path() const { return path_; }
  // Whether the script at `path` has a suspend_read or a resume (read through; false if
  // it cannot be read: the run's own reader reports that).
  static bool uses_suspend(const std::string& path, const nand::NandConfig& geometry);

 private:
  bool read_line();
  [[noreturn]] void fail(const std::string& field, const std::string& what) const;

  std::string path_;
  nand::NandConfig geo_;
  unsigned planes_;
  std::ifstream in_;
  int line_no_ = 0;
  Tick last_time_ = 0;
  // the current line's command and its remaining pages
  ScriptCommand cur_;
  std::uint32_t page_end_ = 0;
  bool pending_ = false;
};

}  // namespace ssd
