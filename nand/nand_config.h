// Geometry and timing of the NAND array, as set by the nand.* config keys.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/params.h"
#include "nand/fault_model.h"
#include "tlm/flash_command.h"

namespace ssd::nand {

struct NandConfig {
  // geometry
  std::uint32_t channels = 8;
  std::uint32_t chips_per_channel = 4;
  std::uint32_t dies_per_chip = 2;
  std::uint32_t planes_per_die = 2;
  std::uint32_t blocks_per_plane = 1024;
  std::uint32_t pages_per_block = 256;
  std::uint32_t page_bytes = 8192;
  // Cells of n bits (docs/nand-timing.md, "Cells of n bits"): a wordline holds n pages
  // (pages n*w .. n*w + n - 1 of a block, lower page first), programmed together by one
  // PROGRAM in one tPROG.
  std::uint32_t bits_per_cell = 1;
  // The data units of a page the model keeps apart, each with its own token (FlashCommand::
  // unit): the FTL's mapping units (FtlConfig::mapping_unit_bytes), page_bytes / units_per_page
  // bytes each. Set by the model from the FTL's key, not a key of its own; 1: the page
  // holds one token.
  std::uint32_t units_per_page = 1;
  // timing
  double bus_mts = 333.0;              // MT/s on an 8-bit bus: one byte per transfer
  std::uint32_t cmd_addr_cycles = 7;   // read and program: 00h/80h + 5 address + 30h/10h
  std::uint32_t erase_cmd_cycles = 5;  // erase: 60h + 3 row address + D0h
  double t_read_us = 75.0;
  // tR per page type, lower page first: bits_per_cell numbers separated by commas; empty:
  // t_read_us for every page.
  std::string t_read_page_us;
  double t_prog_us = 750.0;  // of a wordline (with one bit per cell, of a page)
  // SLC mode of a part of n > 1 bits per cell (FlashCommand::slc): a page's tPROG and tR
  double t_prog_slc_us = 200.0;
  double t_read_slc_us = 30.0;
  double t_erase_us = 3800.0;
  bool cache_read = true;
  bool cache_program = true;
  bool multiplane = true;
  // Reads on different planes of a die at once, each at its own page offset (docs/nand-
  // timing.md, "Independent plane reads"); off: a die senses one read at a time.
  bool independent_plane_reads = false;
  // suspend and resume of a program or erase for reads (docs/nand-timing.md); used when
  // the scheduler block sends reads that suspend (controller.suspend)
  double t_suspend_program_us = 100.0;  // program SUSPEND until the die takes a read (MQSim)
  double t_suspend_erase_us = 700.0;    // erase SUSPEND until the die takes a read (MQSim)
  double suspend_penalty_us = 0.0;      // added to a resumed operation's remaining time
  std::uint32_t max_suspends = 8;       // suspensions one program or erase accepts
  std::uint32_t suspend_cmd_cycles = 3; // bus cycles of a SUSPEND or a RESUME (MQSim)
  bool program_in_erase_suspend = false;  // an erase suspend also takes programs
  // failures (nand.fault.*; all off by default: a NAND that never fails)
  FaultConfig fault;

  // One bus cycle (one byte or one command/address cycle), in picoseconds, exact.
  double bus_cycle_ps() const { return 1e6 / bus_mts; }
  Tick bus_ticks(std::uint64_t cycles) const {
    return static_cast<Tick>(std::llround(static_cast<double>(cycles) * 1e6 / bus_mts));
  }
  std::uint64_t chips() const { return std::uint64_t{channels} * chips_per_channel; }
  std::uint64_t pages_per_channel() const {
    return std::uint64_t{chips_per_channel} * dies_per_chip * planes_per_die * blocks_per_plane *
           pages_per_block;
  }
  std::uint64_t total_pages() const { return pages_per_channel() * channels; }
  std::uint64_t raw_bytes() const { return total_pages() * page_bytes; }

  // tR per page type (page % bits_per_cell), lower page first, in us. Valid config only.
  std::vector<double> read_times_us() const;
  // The pages a command writes per plane: a PROGRAM, its wordline's (one in SLC mode);
  // any other command, 1.
  unsigned pages_written(const FlashCommand& c) const {
    return c.op == FlashOp::Program && !c.slc ? bits_per_cell : 1u;
  }
  // The data units a block holds (units_per_page): the FTL's pages per block, as
  // PageImage numbers them.
  std::uint32_t units_per_block() const { return pages_per_block * units_per_page; }
  // The pages of a block in SLC mode: one per wordline.
  std::uint32_t slc_pages_per_block() const { return pages_per_block / bits_per_cell; }
  // Problems with the values, each naming its config key; empty when valid.
  std::vector<std::string> validate() const;
  // Its keys, nand.* (nand_config.cpp), with the fault model's.
  static const param::Table<NandConfig>& keys();
};

}  // namespace ssd::nand
