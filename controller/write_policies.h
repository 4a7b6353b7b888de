// The dynamic write placement policies (ftl.write_policy), each a WriteAllocator that
// reads only the AllocationView: where a host page write goes is decided from the
// device's state when the firmware builds its program, not from the logical page.
// Plain C++. docs/scheduler.md ("Write placement") gives the rules in full.
//
// Chen et al. (seed 001) choose a channel, then a die in it:
//   rr      channels in turn (its round-robin baseline);
//   weight  the channel with the least total weight of queued commands, a read 1, a
//           program or an erase 2 (its Fig. 2a);
//   delay   the channel with the least queueTotalDelay (Eqs. 8-9: the predicted waits of
//           its outstanding commands, from the firmware's forecast, Eqs. 1-7);
// and in the channel the earliest-free die (the forecast's end of its work; Chen's
// "earliest free flash"), the same for the three so that they differ in the channel only.
// Chen's write batches: the pages the firmware programs at one instant (a host write's)
// fill the chosen die's chip up to k x p pages (dies x planes) before a new channel is
// chosen, a die's planes first, then the chip's next die, so that the die batching
// (controller/die_batcher.h) sends them as n-plane programs interleaved over the dies.
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

// Chen: a channel by rr, weight or delay, then its earliest-free die.
class ChannelFirstAllocator final : public DynamicAllocator {
 public:
  enum class Rule { RoundRobin, Weight, Delay };
  ChannelFirstAllocator(const nand::NandConfig& n, const StaticAllocator& fallback, Rule rule)
      : DynamicAllocator(n, fallback), rule_(rule) {}
  std::uint32_t plane_for(std::uint64_t lpn, const AllocationView& view) override;
  bool uses_forecast() const override { return true; }
  // The channel's weight: its queued reads count 1, programs and erases 2.
  static std::uint64_t weight(std::uint32_t channel, std::uint32_t dies_per_channel, const AllocationView& v);

 private:
  Rule rule_;
  std::uint32_t turn_ = 0;  // the channel rotation
  // The write batch being filled: its chip's first die, the die it began on, its pages,
  // and the instant.
  struct Batch {
    std::uint32_t first_die = 0, start = 0, pages = 0;
    Tick at = 0;
  } batch_;
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
