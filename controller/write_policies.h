// The dynamic write placement policies (ftl.write_policy), each a WriteAllocator that
// reads only the AllocationView: where a host page write goes is decided from the
// device's state when the firmware builds its program, not from the logical page.
// Plain C++. docs/scheduler.md ("Write placement") gives the rules in full.
//
// Chen et al. (seed 001) choose a channel, then a die in it:
//   rr      the paper's plain round robin: channels in turn, and in the channel its dies
//           in turn; no forecast, no groups (its baseline);
//   weight  the channel with the least total weight of queued commands, a read 1, a
//           program or an erase 2 (its Fig. 2a);
//   delay   the channel with the least queueTotalDelay (Eqs. 8-9: the predicted waits of
//           its outstanding commands from their arrival at the controller to their start,
//           from the firmware's forecast, Eqs. 1-7);
// and for weight and delay the channel's earliest-free die (the forecast's end of its work;
// Chen's "earliest free flash"), so that the two differ in the channel only.
// weight and delay write in groups (Sec. 3.2, Algorithm 1): a group opens on the chosen
// die's chip with a size predicted from the forecast (lines 17-20),
//   size = min(k x p, 1 + floor((start - now) / (T_commands + T_data))),
// where start is the later of the die's and the channel's forecast ends: the page
// transfers (Eq. 1) the channel's bus could carry while the group waits for its flash.
// Host pages placed until the group starts (from this request or later ones accumulated in
// the controller) join it while it has room: on its die until the die's row is complete
// (its planes at one offset again: the first page may complete a row begun before), then
// on the chip's next die, once round the chip, so that the die batching
// (controller/die_batcher.h) sends them as n-plane programs interleaved over the dies. A page placed once the group is full or its start has passed
// opens a new group. An idle flash gets groups of one page: nothing is gained by waiting.
// Park et al. (seed 002) choose a die among all:
//   sqf     the die with the fewest queued commands (shortest queue first);
//   setf    the die whose forecast work ends first (shortest estimated time first);
//   stripe  by the write's sequence number i: channel i mod C, then package, die and
//           plane by the quotients (multi-level stripe, channel fastest).
// Inside the chosen die (all but stripe) the plane is the one whose host stream is the
// furthest behind (the die-aligned frontier: controller/die_frontier.h), so that a die's
// planes stay at one offset and its programs can run as n-plane commands. Ties between
// channels or dies go to the first at or after the one after the last chosen (a
// rotation, so that an idle device is striped, not filled from die 0; sqf and setf
// rotate over the dies channel first, then chip, then die). A policy places
// only on a plane that can take a page now (AllocationView::can_place); when none can,
// the page goes to its static plane and waits there for space.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "controller/write_allocator.h"

namespace ssd::ctrl {

// What every dynamic policy shares: the geometry's numbering and the fallbacks.
class DynamicAllocator : public WriteAllocator {
 public:
  DynamicAllocator(const nand::NandConfig& n, const StaticAllocator& fallback);
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

 protected:
  // The plane of die `die` (chip * dies_per_chip + die) the host stream writes next by
  // the die-aligned frontier's rule (controller/die_frontier.h) among the planes that can
  // place; kNone if none can.
  std::uint32_t plane_in_die(std::uint32_t die, const AllocationView& v) const;
  // Whether the die's planes that can place are all at one offset (its row complete),
  // the stream of plane `placed` (kNone: none) counted one page further on.
  bool row_complete(std::uint32_t die, const AllocationView& v, std::uint32_t placed = kNone) const;
  // The earliest-free die of a channel that has a plane that can place (ties: fewer
  // queued commands, then the rotation); kNone if none.
  std::uint32_t earliest_free_die(std::uint32_t channel, const AllocationView& v);
  // Among the n candidates i (keyed by key(i), kNone for one not eligible), the least,
  // ties to the first at or after `start`; kNone if none is eligible.
  template <typename Key>
  static std::uint32_t least(std::uint32_t n, std::uint32_t start, Key&& key) {
    std::uint32_t best = kNone;
    std::uint64_t best_key = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t i = (start + k) % n;
      const std::uint64_t v = key(i);
      if (v == kNoKey) continue;
      if (best == kNone || v < best_key) {
        best = i;
        best_key = v;
      }
    }
    return best;
  }
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
  bool die_can_place(std::uint32_t die, const AllocationView& v) const { return plane_in_die(die, v) != kNone; }
  std::uint32_t dies_per_channel() const { return chips_per_channel_ * dies_per_chip_; }
  std::uint32_t fallback(std::uint64_t lpn) const { return fallback_.plane_of(lpn); }

  std::uint32_t channels_, chips_per_channel_, dies_per_chip_, planes_per_die_, pages_per_block_;
  std::uint32_t dies_;
  StaticAllocator fallback_;
  std::vector<std::uint32_t> die_turn_;  // per channel: the rotation among its dies
};

// Chen: a channel by rr, weight or delay, then a die in it; weight and delay in groups.
class ChannelFirstAllocator final : public DynamicAllocator {
 public:
  enum class Rule { RoundRobin, Weight, Delay };
  ChannelFirstAllocator(const nand::NandConfig& n, const StaticAllocator& fallback, Rule rule);
  std::uint32_t plane_for(std::uint64_t lpn, const AllocationView& view) override;
  bool uses_forecast() const override { return rule_ != Rule::RoundRobin; }
  const WriteGroupCounters* groups() const override { return rule_ == Rule::RoundRobin ? nullptr : &counts_; }
  GroupNote group_note() const override { return note_; }
  // The channel's weight: its queued reads count 1, programs and erases 2.
  static std::uint64_t weight(std::uint32_t channel, std::uint32_t dies_per_channel, const AllocationView& v);
  // A group's predicted size: the page transfers of `page_bus` each that fit between now
  // and its forecast start, at least 1, at most `most` (k x p).
  static std::uint32_t group_size(Tick now, Tick start, Tick page_bus, std::uint32_t most) {
    const Tick fit = page_bus ? (start > now ? (start - now) / page_bus : 0) : most;
    return static_cast<std::uint32_t>(std::min<Tick>(most, 1 + fit));
  }

 private:
  std::uint32_t round_robin(std::uint64_t lpn, const AllocationView& v);
  // Whether the group can take no page after this one, placed on `plane` (a plane that
  // can place; the group's die is the plane's).
  bool group_full(std::uint32_t plane, const AllocationView& v) const;
  // The chip's die after `die` in the group's round; kNone once round to the one it began on.
  std::uint32_t next_die(std::uint32_t die) const {
    const std::uint32_t next = group_.first_die + (die - group_.first_die + 1) % dies_per_chip_;
    return next == group_.first_die + group_.start ? kNone : next;
  }

  Rule rule_;
  Tick page_bus_;           // T_commands + T_data (Eqs. 2-3): a page's bus time
  std::uint32_t turn_ = 0;  // the channel rotation
  // The write group being filled: its chip's first die, the die (of the chip) it began on,
  // the die it fills, its predicted size, its pages, and its forecast start (pages join
  // until then).
  struct Group {
    std::uint32_t first_die = 0, start = 0, die = 0, size = 0, pages = 0;
    Tick until = 0;
  } group_;
  WriteGroupCounters counts_;
  GroupNote note_;  // the last page's
  std::uint64_t groups_ = 0;
};

// Park: a die by sqf or setf.
class DieFirstAllocator final : public DynamicAllocator {
 public:
  enum class Rule { ShortestQueue, ShortestEstimatedTime };
  DieFirstAllocator(const nand::NandConfig& n, const StaticAllocator& fallback, Rule rule)
      : DynamicAllocator(n, fallback), rule_(rule) {}
  std::uint32_t plane_for(std::uint64_t lpn, const AllocationView& view) override;
  bool uses_forecast() const override { return rule_ == Rule::ShortestEstimatedTime; }

 private:
  Rule rule_;
  std::uint32_t turn_ = 0;  // the die rotation, by rank (channel fastest)
};

// Park's multi-level stripe: the i-th host page written goes to the plane of i in the
// order channel, chip (package), die, plane; a plane that cannot place is skipped (the
// sequence number moves on).
class StripeAllocator final : public DynamicAllocator {
 public:
  StripeAllocator(const nand::NandConfig& n, const StaticAllocator& fallback)
      : DynamicAllocator(n, fallback), stripe_(n, "CWDP") {}
  std::uint32_t plane_for(std::uint64_t lpn, const AllocationView& view) override;
  // The plane of write number i (from 0).
  std::uint32_t plane_of_write(std::uint64_t i) const { return stripe_.plane_of(i); }

 private:
  StaticAllocator stripe_;
  std::uint64_t seq_ = 0;
};

}  // namespace ssd::ctrl
