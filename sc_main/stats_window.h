// The statistics window: every rate and utilization in the summary and stats.json is
// over one window, from time 0 (the host starts: the first request of a closed loop, a
// trace's times counted from 0) to the last host completion. Device work after it (GC
// that goes on, a program whose host command already completed elsewhere) is not in
// the window: its figures are taken at the window's end, when the host finishes, with
// the work under way then counted up to that instant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/firmware_core.h"
#include "controller/host_iface.h"
#include "nand/nand_device.h"

namespace ssd {

struct WindowFigures {
  Tick end = 0;  // the window is [0, end]
  double chip_utilization = 0;             // chips busy on average, in [0, chips]
  std::vector<double> chip_busy;           // per chip: busy time / end, in [0, 1]
  std::vector<double> chip_idle_while_others_busy;  // per chip, in [0, 1]
  std::vector<double> bus_utilization;     // per channel, in [0, 1]
  double core_utilization = 0;             // firmware core busy / end, in [0, 1]
  double link_utilization = 0;             // host link busy / end, in [0, 1]
  std::size_t chips = 0;
};

// The NAND's figures at `end` (called at `end`, or later for a NAND whose work all
// ended by then), checked (check_window).
WindowFigures nand_window(const nand::NandDevice& nand, Tick end);
// The whole controller's, at `end` = now, checked.
WindowFigures full_window(const nand::NandDevice& nand, const ctrl::FirmwareCore& fw,
                          const ctrl::HostIface& iface, Tick end);
// Throws std::logic_error naming the figure if one is outside its range (a defect of
// the model's accounting, never of the input).
void check_window(const WindowFigures& w);

}  // namespace ssd
