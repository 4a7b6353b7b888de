#include "rtl/rtl_model.h"

#include <type_traits>

// Each verilated block, and its root (Verilator's internal state: RtlBlock's
// HasClockMemory looks there for the clock's last value).
#include "Vsched_hos_16x8x4.h"
#include "Vsched_hos_16x8x4___024root.h"
#include "Vsched_hos_8x8x2.h"
#include "Vsched_hos_8x8x2___024root.h"
#include "Vsched_hos_8x8x2_plain.h"
#include "Vsched_hos_8x8x2_plain___024root.h"
#include "Vsched_ios_16x8x4.h"
#include "Vsched_ios_16x8x4___024root.h"
#include "rtl/verilated_decisions.h"

namespace ssd::rtl {
namespace {

// The geometries verilated (rtl/CMakeLists.txt), each mode's smallest first. A verilated
// block costs in proportion to its chips and dies, and to its hardware, whatever the
// device on it and the hardware the run uses, so the smaller HOS block serves the presets
// of up to 8 x 8 x 2, without rescheduling and suspend when the run has neither.
constexpr Shape kHos8x8x2Plain{8, 8, 2, 4096, false, false, false};
constexpr Shape kHos8x8x2{8, 8, 2, 4096, false};
constexpr Shape kHos16x8x4{16, 8, 4, 4096, false};
constexpr Shape kIos16x8x4{16, 8, 4, 4096, true};

// Whether `Model` was verilated with the geometry `s` (its accept port's 32-bit words).
template <std::size_t N>
constexpr std::size_t words_of(const VlWide<N>*) { return N; }
template <typename Model>
constexpr bool verilated_as(const Shape& s) {
  return words_of(static_cast<std::remove_reference_t<decltype(Model::accept)>*>(nullptr)) ==
         (std::size_t{s.channels} * s.chips * s.dies * RtlBlock<Model>::kAcceptBits + 31) / 32;
}
static_assert(verilated_as<Vsched_hos_8x8x2_plain>(kHos8x8x2Plain), "rtl/CMakeLists.txt and rtl_model.cpp disagree");
static_assert(verilated_as<Vsched_hos_8x8x2>(kHos8x8x2), "rtl/CMakeLists.txt and rtl_model.cpp disagree");
static_assert(verilated_as<Vsched_hos_16x8x4>(kHos16x8x4), "rtl/CMakeLists.txt and rtl_model.cpp disagree");
static_assert(verilated_as<Vsched_ios_16x8x4>(kIos16x8x4), "rtl/CMakeLists.txt and rtl_model.cpp disagree");

using Factory = std::unique_ptr<ctrl::DecisionModel> (*)(const Shape&, const nand::NandConfig&, bool, bool,
                                                          const ctrl::RescheduleConfig&, const ctrl::SuspendForm&);
struct Verilated {
  Shape shape;
  Factory make;
};
const Verilated kBlocks[] = {
    {kHos8x8x2Plain, make_decision_model_of<Vsched_hos_8x8x2_plain>},
    {kHos8x8x2, make_decision_model_of<Vsched_hos_8x8x2>},
    {kHos16x8x4, make_decision_model_of<Vsched_hos_16x8x4>},
    {kIos16x8x4, make_decision_model_of<Vsched_ios_16x8x4>},
};

}  // namespace

std::unique_ptr<ctrl::DecisionModel> make_decision_model(const nand::NandConfig& n, bool ios, bool read_first,
                                                         bool by_priority, const ctrl::RescheduleConfig& r,
                                                         std::string& why, const ctrl::SuspendForm& sf) {
  for (const Verilated& b : kBlocks) {
    const Shape& s = b.shape;
    if (s.ios == ios && n.channels <= s.channels && n.chips_per_channel <= s.chips && n.dies_per_chip <= s.dies &&
        (s.resched || !r.on()) && (s.suspend || sf.mode == 0))
      return b.make(s, n, read_first, by_priority, r, sf);
  }
  const Shape& largest = ios ? kIos16x8x4 : kHos16x8x4;
  why = "the RTL block is verilated for at most " + std::to_string(largest.channels) + " channels x " +
        std::to_string(largest.chips) + " chips x " + std::to_string(largest.dies) + " dies (rtl/CMakeLists.txt)";
  return nullptr;
}

}  // namespace ssd::rtl
