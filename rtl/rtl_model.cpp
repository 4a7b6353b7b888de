#include "rtl/rtl_model.h"

#include "Vsched_hos_max.h"
#include "Vsched_ios_max.h"
#include "rtl/verilated_decisions.h"

namespace ssd::rtl {

std::unique_ptr<ctrl::DecisionModel> make_decision_model(const nand::NandConfig& n, bool ios, bool read_first,
                                                         bool by_priority, std::string& why) {
  const Shape& s = ios ? kMaxIos : kMaxHos;
  if (n.channels > s.channels || n.chips_per_channel > s.chips || n.dies_per_chip > s.dies) {
    why = "the RTL block is verilated for at most " + std::to_string(s.channels) + " channels x " +
          std::to_string(s.chips) + " chips x " + std::to_string(s.dies) + " dies (rtl/CMakeLists.txt)";
    return nullptr;
  }
  if (ios) return make_decision_model_of<Vsched_ios_max>(s, n, read_first, by_priority);
  return make_decision_model_of<Vsched_hos_max>(s, n, read_first, by_priority);
}

}  // namespace ssd::rtl
