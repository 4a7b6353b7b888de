// GC victim choice, read-only on the FTL: which block of a plane GC collects next. The
// GC unit chooses through it (controller/gc_unit.h), as does preconditioning's instant GC
// (Ftl::instant_gc), and marks the block chosen (Ftl::make_victim: take_greedy_victim).
// Plain C++.
#pragma once

#include <cstdint>

#include "controller/ftl.h"

namespace ssd::ctrl {

// The GC candidate among blocks [first, first + n), full and not retiring, with the fewest
// valid pages (`best_valid`); ties: fewer erases, then lower index. kUnmapped if none.
inline std::uint32_t fewest_valid(const Ftl& ftl, std::uint32_t first, std::uint32_t n, std::uint32_t& best_valid) {
  std::uint32_t best = kUnmapped, best_erases = 0;
  best_valid = 0;
  for (std::uint32_t b = first; b < first + n; ++b) {
    if (!ftl.block_full(b) || ftl.retiring(b)) continue;  // retiring: greedy_victim's own rule
    const std::uint32_t valid = ftl.valid_pages(b);
    // gc_candidate() (its reads in flight looked up) only for a block that would otherwise
    // become the best, which picks the same block.
    if ((best == kUnmapped || valid < best_valid || (valid == best_valid && ftl.erase_count(b) < best_erases)) &&
        ftl.gc_candidate(b)) {
      best = b;
      best_valid = valid;
      best_erases = ftl.erase_count(b);
    }
  }
  return best;
}

// Greedy: the GC candidate (Ftl::gc_candidate: full, no program to it and no read from it
// in flight) with the fewest valid pages; ties: fewer erases, then lower index. kUnmapped
// if there is none, or if collecting the best frees nothing: it holds only valid pages,
// or, with cells of n bits, a block less `slack` or more (`slack`: the filler its copies'
// last wordlines may take, GcUnit::filler_slack).
// A retiring block (a program to it failed: Ftl::retire) that is a candidate comes first,
// whatever its valid pages.
inline std::uint32_t greedy_victim(const Ftl& ftl, std::uint32_t plane, std::uint32_t slack = 0) {
  if (const std::uint32_t r = ftl.retiring_victim(plane); r != kUnmapped) return r;
  const std::uint32_t per_plane = ftl.config().nand.blocks_per_plane;
  std::uint32_t best_valid;
  const std::uint32_t best = fewest_valid(ftl, plane * per_plane, per_plane, best_valid);
  if (best == kUnmapped || best_valid + slack >= ftl.config().nand.pages_per_block) return kUnmapped;
  return best;
}

// The plane's SLC block a fold takes (Ftl::slc_blocks): by the same rule, among its SLC
// blocks; any such block frees space, however many valid pages it holds.
inline std::uint32_t fold_victim(const Ftl& ftl, std::uint32_t plane) {
  std::uint32_t valid;
  return fewest_valid(ftl, ftl.first_slc_block(plane), ftl.slc_blocks(), valid);
}

// The greedy victim of `plane`, marked a victim (Ftl::make_victim); kUnmapped if none.
inline std::uint32_t take_greedy_victim(Ftl& ftl, std::uint32_t plane, std::uint32_t slack = 0) {
  const std::uint32_t v = greedy_victim(ftl, plane, slack);
  if (v != kUnmapped) ftl.make_victim(v);
  return v;
}

}  // namespace ssd::ctrl
