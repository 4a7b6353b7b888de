// Where an aged device's planes start in their GC cycle (ftl.precondition_free = auto),
// from how fast the workload writes and how fast GC copies. Plain C++.
//
// The aged image (controller/steady_image.h) holds a plane's valid pages in its full
// blocks with a valid count decaying exponentially with age: with f free blocks per
// plane, F = B - f - 2 full blocks hold them, and GC's victim (the oldest) holds
// c(f) = ppb e^(-a (F - 1) / F) valid pages: the fewer free blocks, the more blocks
// share the same data, the emptier the victims. Holding f steady takes GC
// (WA(f) - 1) copies per host page, WA(f) = ppb / (ppb - c(f)).
//
// A GC that yields to the host (the default) copies at most C pages a second on a plane
// with a run under way (the chip time the host leaves it). With H host pages a second
// per plane:
//  - keeps up: H (WA(low) - 1) <= C. The free blocks stay at the GC low mark; a plane
//    collects (one block under the mark, a run under way) a share H (WA(low) - 1) / C of
//    the time. Start: a plane is one block under the mark with that probability.
//  - GC bound: runs go back to back on every plane and the free blocks settle where
//    WA(f) = 1 + C / H (fewer free blocks make each copy free more space), between the
//    last reserve and the mark. Start: every plane at that level, runs under way.
//  - at the reserve: 1 + C / H < WA(reserve + 1). Host writes wait for GC at the last
//    reserve (foreground GC) and the free blocks hover near it. Start: reserve + 1.
// The mean free blocks per plane is the one figure that carries the choice: a plane gets
// the integer below or above it (drawn, the mean kept), and has a GC run under way
// exactly when it is under the mark.
#pragma once

#include <cstdint>
#include <string>

#include "common/params.h"

namespace ssd::ctrl {

// What time 0 looks like (start_state.cpp declares the keys): the share of the logical
// space written before it, the erase history, and where each plane starts in its GC cycle.
struct PreconditionConfig {
  double fraction = 1.0;   // of the logical space (1: every host read reaches the flash)
  double age = 1.0;        // drive writes of erase history; 0: written once, in order
  std::string free = "auto";  // auto | gc_mark | gc_running | reserve
  double free_blocks = 0;  // auto: the mean free blocks per plane (0: from the start pilot)
  static const param::Table<PreconditionConfig>& keys();
};

struct GcBalance {
  std::uint32_t blocks_per_plane = 0, pages_per_block = 0;
  std::uint32_t gc_low = 0, gc_reserve = 0;  // the GC low mark; free blocks only GC may take
  double valid_pages = 0;                     // per plane (its share of the preconditioned pages)

  // The image's write amplification with `free_blocks` free per plane (real: between two
  // integers it is interpolated by the decay's continuous solution). Its full blocks hold
  // the valid pages less the open blocks' (half a block each, on average).
  double write_amplification(double free_blocks) const;

  enum class Regime { KeepsUp, GcBound, AtReserve };
  struct Choice {
    Regime regime = Regime::KeepsUp;
    double free_blocks = 0;  // mean per plane, in [reserve + 1, low]
    double collecting = 0;   // share of planes with a GC run under way at time 0
    double write_amplification = 0;  // WA(free_blocks), what holding that level takes
  };
  // host_pages_per_s: per plane; copies_per_s: per plane with a run under way (GC's
  // capacity). Throws std::invalid_argument for negative or non-finite rates.
  Choice choose(double host_pages_per_s, double copies_per_s) const;
};

const char* regime_name(GcBalance::Regime r);

}  // namespace ssd::ctrl
