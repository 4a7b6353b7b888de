// The verilated scheduler block as a ctrl::DecisionModel, for the co-simulation
// (controller.rtl): the block verilated once at the largest geometry the presets use
// (kMaxHos), and once in IOS mode (kMaxIos); a device's channels, chips and dies map onto the
// first of the block's. Chips past the device's never hold a command, so the block's
// round robin over them gives the device's own; channels past it are closed.
#pragma once

#include <memory>
#include <string>

#include "controller/decision_model.h"
#include "nand/nand_config.h"

namespace ssd::rtl {

// The parameters a block was verilated with (depth: the commands its memory holds).
struct Shape {
  unsigned channels, chips, dies, depth;
  bool ios;
};

// The geometry the co-simulation's blocks are verilated with (rtl/CMakeLists.txt).
constexpr Shape kMaxHos{16, 8, 4, 4096, false};
constexpr Shape kMaxIos{16, 8, 4, 4096, true};

// The block for a device of geometry `n` (IOS or HOS, read_first and classes as
// configured); null, with the reason in `why`, when the geometry does not fit it.
std::unique_ptr<ctrl::DecisionModel> make_decision_model(const nand::NandConfig& n, bool ios, bool read_first,
                                                         bool by_priority, std::string& why);

}  // namespace ssd::rtl
