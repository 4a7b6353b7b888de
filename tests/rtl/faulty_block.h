// A verilated scheduler block with its round robin broken (tests/rtl/faulty_block.cpp).
#pragma once

#include <memory>

#include "controller/decision_model.h"
#include "nand/nand_config.h"

namespace ssd::test {

// For a device of at most 2 channels x 2 chips x 1 die.
std::unique_ptr<ctrl::DecisionModel> faulty_block(const nand::NandConfig& n, bool read_first, bool by_priority);

}  // namespace ssd::test
