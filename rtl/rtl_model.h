// The verilated scheduler block as a ctrl::DecisionModel, for the co-simulation
// (controller.rtl). The block is verilated at a few geometries (rtl/CMakeLists.txt); a
// device takes the smallest of its mode that holds it, its channels, chips and dies mapped onto the
// first of the block's. Chips past the device's never hold a command, so the block's
// round robin over them gives the device's own; channels past it are closed.
#pragma once

#include <memory>
#include <string>

#include "controller/decision_model.h"
#include "controller/reschedule.h"
#include "nand/nand_config.h"

namespace ssd::rtl {

// The parameters a block was verilated with (depth: the commands its memory holds;
// resched, suspend: whether it has that hardware, RESCHED and SUSPEND).
struct Shape {
  unsigned channels, chips, dies, depth;
  bool ios;
  bool resched = true, suspend = true;
};

// The block for a device of geometry `n` (IOS or HOS, read_first and classes as
// configured), the smallest that holds it with the hardware the run uses; null, with
// the reason in `why`, when no block holds the geometry.
// With rescheduling `r` (controller.reschedule; its window at most the block's WMAX, 16).
// With suspend and resume `sf` (controller.suspend).
std::unique_ptr<ctrl::DecisionModel> make_decision_model(const nand::NandConfig& n, bool ios, bool read_first,
                                                         bool by_priority, const ctrl::RescheduleConfig& r,
                                                         std::string& why, const ctrl::SuspendForm& sf = {});

}  // namespace ssd::rtl
