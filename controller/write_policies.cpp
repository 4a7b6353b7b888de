#include "controller/write_policies.h"

#include <algorithm>

#include "controller/die_frontier.h"

namespace ssd::ctrl {

DynamicAllocator::DynamicAllocator(const nand::NandConfig& n, const StaticAllocator& fallback)
    : channels_(n.channels),
      chips_per_channel_(n.chips_per_channel),
      dies_per_chip_(n.dies_per_chip),
      planes_per_die_(n.planes_per_die),
      pages_per_block_(n.pages_per_block),
      dies_(n.channels * n.chips_per_channel * n.dies_per_chip),
      fallback_(fallback),
      die_turn_(n.channels, 0) {}

std::uint32_t DynamicAllocator::plane_in_die(std::uint32_t die, const AllocationView& v) const {
  // The die-aligned frontier's rule (controller/die_frontier.h) over the planes that can
  // place now.
  std::uint32_t offset[kMaxPlanes];
  bool ok[kMaxPlanes];
  for (std::uint32_t p = 0; p < planes_per_die_; ++p) {
    const std::uint32_t plane = die * planes_per_die_ + p;
    ok[p] = v.can_place(plane);
    offset[p] = ok[p] ? v.next_offset(plane) % pages_per_block_ : 0;
  }
  const std::uint32_t p = plane_behind(offset, ok, planes_per_die_, pages_per_block_);
  return p == kNoPlane ? kNone : die * planes_per_die_ + p;
}

bool DynamicAllocator::row_complete(std::uint32_t die, const AllocationView& v, std::uint32_t placed) const {
  std::uint32_t offset = kNone;
  for (std::uint32_t p = 0; p < planes_per_die_; ++p) {
    const std::uint32_t plane = die * planes_per_die_ + p;
    if (!v.can_place(plane)) continue;
    const std::uint32_t o = (v.next_offset(plane) + (plane == placed ? 1 : 0)) % pages_per_block_;
    if (offset != kNone && o != offset) return false;
    offset = o;
  }
  return true;
}

std::uint32_t DynamicAllocator::earliest_free_die(std::uint32_t channel, const AllocationView& v) {
  const std::uint32_t per = dies_per_channel(), first = channel * per;
  const Tick now = v.now();
  const BusyForecast& f = v.forecast();
  // Key: the forecast end of the die's work (now if idle), then its queued commands.
  const std::uint32_t k = least(per, die_turn_[channel], [&](std::uint32_t i) -> std::uint64_t {
    const std::uint32_t die = first + i;
    if (!die_can_place(die, v)) return kNoKey;
    const Tick end = std::max(now, f.die_end(die / dies_per_chip_, die % dies_per_chip_));
    // The wait saturates at 2^51 ps (about 37 minutes) so that the shift cannot wrap.
    const std::uint64_t wait = std::min<std::uint64_t>(end - now, std::uint64_t{1} << 51);
    return (wait << 12) | std::min<std::uint32_t>(v.die_load(die).total(), 4095);
  });
  if (k == kNone) return kNone;
  die_turn_[channel] = (k + 1) % per;
  return first + k;
}

std::uint64_t ChannelFirstAllocator::weight(std::uint32_t channel, std::uint32_t dies_per_channel,
                                            const AllocationView& v) {
  std::uint64_t w = 0;
  for (std::uint32_t i = 0; i < dies_per_channel; ++i) {
    const AllocationView::DieLoad l = v.die_load(channel * dies_per_channel + i);
    w += l.reads + 2ull * (l.programs + l.erases);
  }
  return w;
}

ChannelFirstAllocator::ChannelFirstAllocator(const nand::NandConfig& n, const StaticAllocator& fallback, Rule rule)
    : DynamicAllocator(n, fallback),
      rule_(rule),
      page_bus_(n.bus_ticks(n.cmd_addr_cycles) + n.bus_ticks(n.page_bytes)) {
  counts_.formed.assign(n.dies_per_chip * n.planes_per_die + 1, 0);
  counts_.predicted.assign(n.dies_per_chip * n.planes_per_die + 1, 0);
}

bool ChannelFirstAllocator::group_full(std::uint32_t plane, const AllocationView& v) const {
  if (group_.pages >= group_.size || plane == kNone) return true;
  // The chip gone round, and its die's row complete with this page: no page can join.
  const std::uint32_t die = plane / planes_per_die_;
  return next_die(die) == kNone && row_complete(die, v, plane);
}

std::uint32_t ChannelFirstAllocator::round_robin(std::uint64_t lpn, const AllocationView& v) {
  const std::uint32_t per = dies_per_channel();
  const auto die_k = [&](std::uint32_t ch) {
    return least(per, die_turn_[ch], [&](std::uint32_t i) -> std::uint64_t {
      return die_can_place(ch * per + i, v) ? 0 : kNoKey;
    });
  };
  const std::uint32_t ch =
      least(channels_, turn_, [&](std::uint32_t c) -> std::uint64_t { return die_k(c) == kNone ? kNoKey : 0; });
  if (ch == kNone) return fallback(lpn);
  turn_ = (ch + 1) % channels_;
  const std::uint32_t k = die_k(ch);
  die_turn_[ch] = (k + 1) % per;
  return plane_in_die(ch * per + k, v);
}

std::uint32_t ChannelFirstAllocator::plane_for(std::uint64_t lpn, const AllocationView& v) {
  note_ = {};
  if (rule_ == Rule::RoundRobin) return round_robin(lpn, v);
  const std::uint32_t per = dies_per_channel();
  const Tick now = v.now();
  // The group goes on while it has room and has not started: on its die while the die's
  // row (its planes' next offset) is incomplete, then on the chip's next die, once round.
  if (group_.pages != 0 && group_.pages < group_.size && now <= group_.until) {
    const std::uint32_t die = row_complete(group_.die, v) ? next_die(group_.die) : group_.die;
    const std::uint32_t plane = die == kNone ? kNone : plane_in_die(die, v);
    if (plane != kNone) {
      group_.die = die;
      --counts_.formed[group_.pages];
      ++counts_.formed[++group_.pages];
      note_ = {groups_, group_.until, false, group_full(plane, v)};
      return plane;
    }
  }
  const auto placeable = [&](std::uint32_t ch) {
    for (std::uint32_t i = 0; i < per; ++i)
      if (die_can_place(ch * per + i, v)) return true;
    return false;
  };
  const BusyForecast& f = v.forecast();
  const std::uint32_t ch = least(channels_, turn_, [&](std::uint32_t c) -> std::uint64_t {
    if (!placeable(c)) return kNoKey;
    return rule_ == Rule::Weight ? weight(c, per, v) : static_cast<std::uint64_t>(f.channel_delay(c));
  });
  if (ch == kNone) return fallback(lpn);
  turn_ = (ch + 1) % channels_;
  const std::uint32_t die = earliest_free_die(ch, v);
  const Tick start = std::max({now, f.channel_end(ch), f.die_end(die / dies_per_chip_, die % dies_per_chip_)});
  const std::uint32_t size = group_size(now, start, page_bus_, dies_per_chip_ * planes_per_die_);
  group_ = {die - die % dies_per_chip_, die % dies_per_chip_, die, size, 1, start};
  ++counts_.formed[1];
  ++counts_.predicted[size];
  const std::uint32_t plane = plane_in_die(die, v);
  note_ = {++groups_, start, true, group_full(plane, v)};
  return plane;
}

std::uint32_t DieFirstAllocator::plane_for(std::uint64_t lpn, const AllocationView& v) {
  const Tick now = v.now();
  // Candidates by rank in the stripe's order (channel fastest, then chip, then die), so
  // that ties spread over the channels first.
  const std::uint32_t per_chip_rank = channels_ * chips_per_channel_;
  const auto die_of_rank = [&](std::uint32_t r) {
    const std::uint32_t ch = r % channels_, chip = r / channels_ % chips_per_channel_, die = r / per_chip_rank;
    return (ch * chips_per_channel_ + chip) * dies_per_chip_ + die;
  };
  const std::uint32_t rank = least(dies_, turn_, [&](std::uint32_t r) -> std::uint64_t {
    const std::uint32_t d = die_of_rank(r);
    if (!die_can_place(d, v)) return kNoKey;
    if (rule_ == Rule::ShortestQueue) return v.die_load(d).total();
    return static_cast<std::uint64_t>(std::max(now, v.forecast().die_end(d / dies_per_chip_, d % dies_per_chip_)) - now);
  });
  if (rank == kNone) return fallback(lpn);
  turn_ = (rank + 1) % dies_;
  return plane_in_die(die_of_rank(rank), v);
}

std::uint32_t StripeAllocator::plane_for(std::uint64_t lpn, const AllocationView& v) {
  const std::uint32_t planes = dies_ * planes_per_die_;
  for (std::uint32_t k = 0; k < planes; ++k) {
    const std::uint32_t plane = stripe_.plane_of(seq_++);
    if (v.can_place(plane)) return plane;
  }
  return fallback(lpn);
}

}  // namespace ssd::ctrl
