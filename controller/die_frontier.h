// The die-aligned write frontier's rule, plain C++: which plane of a die a stream's next
// page goes to, so that the die's planes advance at one page offset and their programs
// can run as n-plane commands (one page offset, a block per plane: docs/nand-timing.md).
// Host streams under the dynamic write policies (controller/write_policies.h) and, with
// ftl.gc_destination = die, GC's (Ftl::allocate_in_die) follow it; docs/scheduler.md
// ("The die-aligned frontier") states it.
//
// The stream writes the plane that is furthest behind: offsets are taken around the
// block (a plane that must open a block is at 0, the first page of its next block, one
// past its full block's last), and the plane behind is the one from which the fewest
// pages forward reach every other plane's offset. From plane 1 at the last page of its
// block, plane 0 (whose next page opens a block, at 0) is one page ahead, so plane 1 is
// written next and the two meet again at offset 0. Ties: the lower offset, then the lower
// plane. So the planes take one offset each in turn, and open their blocks together.
// A plane that cannot take a page (no block it may open: a free pool at its reserve,
// blocks retired) is left out and never holds its partners back; when it can again, or
// after a retired block sent it back to offset 0, it is behind or ahead by a span, and
// the rule writes the plane behind until they meet (planes more than half a block apart
// are read the short way around, which brings them together all the same).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ssd::ctrl {

// Among the `planes` planes of a die, the index of the one the stream writes next, given
// each plane's next page offset (offset[p] < pages_per_block) and whether it can take a
// page (ok[p]); kNoPlane if none can.
inline constexpr std::uint32_t kNoPlane = ~std::uint32_t{0};
inline std::uint32_t plane_behind(const std::uint32_t* offset, const bool* ok, std::uint32_t planes,
                                  std::uint32_t pages_per_block) {
  std::uint32_t best = kNoPlane, best_span = 0, best_offset = 0;
  for (std::uint32_t p = 0; p < planes; ++p) {
    if (!ok[p]) continue;
    std::uint32_t span = 0;
    for (std::uint32_t q = 0; q < planes; ++q)
      if (ok[q]) span = std::max(span, (offset[q] + pages_per_block - offset[p]) % pages_per_block);
    if (best == kNoPlane || span < best_span || (span == best_span && offset[p] < best_offset)) {
      best = p;
      best_span = span;
      best_offset = offset[p];
    }
  }
  return best;
}

}  // namespace ssd::ctrl
