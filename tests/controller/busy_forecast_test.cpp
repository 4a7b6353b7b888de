// The firmware's forecast of when its issued flash work ends (controller/busy_forecast.h),
// against times computed by hand from the nominal timing. Without the kernel.
#include <catch2/catch.hpp>

#include "controller/busy_forecast.h"

using namespace ssd;
using ctrl::BusyForecast;

namespace {
constexpr Tick kNs = 1000;  // ticks are picoseconds

nand::NandConfig device() {
  nand::NandConfig n;
  n.channels = 2;
  n.chips_per_channel = 2;
  n.dies_per_chip = 2;
  n.planes_per_die = 2;
  n.page_bytes = 4096;
  n.bus_mts = 100;  // 10 ns a cycle: a page moves in 40,960 ns
  n.cmd_addr_cycles = 7;
  n.erase_cmd_cycles = 5;
  n.t_read_us = 50;
  n.t_prog_us = 500;
  n.t_erase_us = 3000;
  return n;
}

FlashCommand command(FlashOp op, std::uint8_t channel, std::uint8_t chip, std::uint8_t die, std::uint8_t planes) {
  FlashCommand c;
  c.op = op;
  c.channel = channel;
  c.chip = chip;
  c.die = die;
  c.plane_mask = planes;
  return c;
}
}  // namespace

TEST_CASE("busy forecast: each command's bus work queues on its channel, it starts when its die is free too",
          "[forecast][allocation]") {
  BusyForecast f(device());
  const FlashCommand read = command(FlashOp::Read, 0, 1, 0, 0b01);
  const FlashCommand program = command(FlashOp::Program, 0, 1, 0, 0b01);
  const FlashCommand erase = command(FlashOp::Erase, 0, 1, 1, 0b11);  // both planes of die 1

  // A read at 0: 70 ns of command and address, 50 us of tR, 40,960 ns of data out.
  f.issued(read, 0);
  CHECK(f.die_end(1, 0) == 91030 * kNs);
  CHECK(f.channel_end(0) == 41030 * kNs);
  // A program of the same die at 10 us: after the read (its die busy to 91,030 ns),
  // 70 ns + 40,960 ns of data in and 500 us of tPROG; its bus time queued after the
  // read's on the channel.
  CHECK(f.issued(program, 10000 * kNs) == (91030 - 10000) * kNs);  // its predicted wait
  CHECK(f.die_end(1, 0) == (91030 + 41030 + 500000) * kNs);
  CHECK(f.channel_end(0) == (41030 + 41030) * kNs);
  // A two-plane erase of die 1 at 20 us: its die is idle, the channel's bus work queued
  // to 82,060 ns; then 2 x 50 ns of commands, and tBERS.
  CHECK(f.issued(erase, 20000 * kNs) == (82060 - 20000) * kNs);
  CHECK(f.die_end(1, 1) == (82060 + 100 + 3000000) * kNs);
  CHECK(f.channel_end(0) == (82060 + 100) * kNs);
  CHECK(f.channel_delay(0) == ((91030 - 10000) + (82060 - 20000)) * kNs);  // Eq. 8
  CHECK(f.chip_end(1) == f.die_end(1, 1));
  CHECK(f.die_outstanding(1, 0) == 2);
  CHECK(f.channel_outstanding(0) == 3);
  // Nothing elsewhere.
  CHECK(f.chip_end(0) == 0);
  CHECK(f.channel_end(1) == 0);

  // Completions change a forecast only when they empty its part: then it is idle from
  // the completion (here the program ends earlier than forecast, the erase later).
  f.completed(read, 95000 * kNs);
  CHECK(f.die_end(1, 0) == 632060 * kNs);
  CHECK(f.die_outstanding(1, 0) == 1);
  f.completed(program, 600000 * kNs, (91030 - 10000) * kNs);
  CHECK(f.die_end(1, 0) == 600000 * kNs);
  CHECK(f.channel_end(0) == 82160 * kNs);  // the erase still outstanding on the channel
  CHECK(f.channel_delay(0) == (82060 - 20000) * kNs);
  f.completed(erase, 3100000 * kNs);
  CHECK(f.die_end(1, 1) == 3100000 * kNs);
  CHECK(f.channel_end(0) == 3100000 * kNs);
  CHECK(f.channel_outstanding(0) == 0);

  // Issued after a part is idle: from now, not from its last end.
  f.issued(read, 4000000 * kNs);
  CHECK(f.die_end(1, 0) == (4000000 + 91030) * kNs);
  CHECK(f.channel_end(0) == (4000000 + 41030) * kNs);
}

TEST_CASE("busy forecast: 3-bit cells, a page's program costs a third of its wordline's tPROG, reads their type's tR",
          "[forecast][allocation][wordlines]") {
  nand::NandConfig n = device();
  n.bits_per_cell = 3;
  n.pages_per_block = 12;
  n.t_prog_us = 1500;        // a wordline's: 500 us a page
  n.t_read_page_us = "40,50,60";
  n.t_prog_slc_us = 200;
  n.t_read_slc_us = 30;
  BusyForecast f(n);
  // A wordline's three pages, issued one by one at 0 on die 0 of chip 0: each queues its
  // 70 ns of command and address and 40,960 ns of data in on the channel, and the die
  // ends once after the last: 3 x 41,030 ns + 3 x 500 us = one tPROG of the wordline.
  FlashCommand page = command(FlashOp::Program, 0, 0, 0, 0b01);
  for (unsigned k = 0; k < 3; ++k) {
    page.page = k;
    f.issued(page, 0);
  }
  CHECK(f.die_end(0, 0) == (3 * 41030 + 1500000) * kNs);
  // Reads take their page type's tR: an upper page (page 5: type 2) 60 us, on die 1 of
  // chip 0 of channel 1 (chip 2).
  FlashCommand read = command(FlashOp::Read, 1, 0, 1, 0b01);
  read.page = 5;
  f.issued(read, 0);
  CHECK(f.die_end(2, 1) == (70 + 60000 + 40960) * kNs);
  // In SLC mode (the map log's): tR 30 us, a page's tPROG 200 us, on chip 3 (channel 1),
  // their bus work queued after the read's on channel 1.
  FlashCommand slc_read = command(FlashOp::Read, 1, 1, 0, 0b01);
  slc_read.slc = true;
  slc_read.page = 2;
  f.issued(slc_read, 0);
  CHECK(f.die_end(3, 0) == (41030 + 41030 + 30000) * kNs);
  FlashCommand slc_prog = command(FlashOp::Program, 1, 1, 1, 0b01);
  slc_prog.slc = true;
  f.issued(slc_prog, 0);
  CHECK(f.die_end(3, 1) == (2 * 41030 + 41030 + 200000) * kNs);
  // Two planes joined into one command pay one array time: the lower pages of die 1,
  // chip 0 of channel 0 (idle), issued one by one and combined.
  FlashCommand a = command(FlashOp::Program, 0, 0, 1, 0b01), b = command(FlashOp::Program, 0, 0, 1, 0b10);
  const Tick bus_free = f.channel_end(0);
  f.issued(a, 0);
  f.issued(b, 0);
  FlashCommand whole = command(FlashOp::Program, 0, 0, 1, 0b11);
  f.combined(whole, 2);
  CHECK(f.die_end(0, 1) == bus_free + 2 * 41030 * kNs + 500000 * kNs);
  CHECK(bus_free == 3 * 41030 * kNs);
}
