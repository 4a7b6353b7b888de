// A verilated block with its round robin broken (FAULT=1), 2 channels x 2 chips, as a
// ctrl::DecisionModel: the co-simulation's check must catch it (tests/rtl/cosim_test.cpp).
// Its own file: Verilator's headers must not meet SystemC's.
#include "Vrtl_hos_2x2_fault.h"
#include "Vrtl_hos_2x2_fault___024root.h"
#include "rtl/verilated_decisions.h"
#include "tests/rtl/faulty_block.h"

namespace ssd::test {

std::unique_ptr<ctrl::DecisionModel> faulty_block(const nand::NandConfig& n, bool read_first, bool by_priority) {
  return rtl::make_decision_model_of<Vrtl_hos_2x2_fault>({2, 2, 1, 16, false}, n, read_first, by_priority);
}

}  // namespace ssd::test
