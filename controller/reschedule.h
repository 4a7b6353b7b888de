// Park et al.'s request rescheduling in the scheduler block (controller.reschedule;
// docs/scheduler.md, "Rescheduling", states the rules): what is configured, what the
// block counts, and the data dependencies it keeps. Plain C++.
//
//  - multiplane: a granted single-page command takes, from the commands that follow it in
//    its list (its chip queue's list of its class and kind), the first command of each
//    other plane of its die, within `window` commands, if it has the same operation and
//    page offset (an erase: any block) and the die offers the planes: one n-plane command.
//  - pipeline: where the rule without it would take a command of an operation other than
//    the one its die ran last, and the other list of the class has at its head a command
//    of its own die's last operation, that one goes first (it keeps its die's cache
//    register pipeline), at most `window` times in a row per chip queue.
//  - neither moves a command its issuer marked keep_order: the firmware marks a command
//    that conflicts with one it sent before and has not seen complete (HazardKeys): the
//    same page of a block, the block of an erase, or the same logical page on its chip.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/params.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

struct RescheduleConfig {
  bool multiplane = false;
  bool pipeline = false;
  std::uint32_t window = 8;  // commands searched for partners; pipeline passes in a row
  bool on() const { return multiplane || pipeline; }
  const char* name() const {
    return multiplane && pipeline ? "both" : multiplane ? "multiplane" : pipeline ? "pipeline" : "none";
  }
  // Its keys (flash_sched.cpp).
  static const param::Table<RescheduleConfig>& keys();
};

// controller.reschedule's choices, in order.
inline const char* const* reschedule_names() {
  static const char* const names[] = {"none", "multiplane", "pipeline", "both", nullptr};
  return names;
}
// Throws std::invalid_argument for a name not in reschedule_names().
inline RescheduleConfig parse_reschedule(const std::string& name, std::uint32_t window) {
  RescheduleConfig r;
  r.window = window;
  if (name == "multiplane" || name == "both") r.multiplane = true;
  if (name == "pipeline" || name == "both") r.pipeline = true;
  if (!r.on() && name != "none")
    throw std::invalid_argument(param::key(&RescheduleConfig::multiplane) + ": unknown choice '" + name +
                                "' (none | multiplane | pipeline | both)");
  return r;
}

// What the block's rescheduling did (stats.json `reschedule`).
struct RescheduleCounters {
  std::uint64_t granted = 0;           // commands granted (each part of a merged command counts)
  std::uint64_t merged_commands = 0;   // n-plane commands the block formed
  std::uint64_t merged_parts = 0;      // commands that joined a granted command as its partners
  std::array<std::uint64_t, kMaxPlanes + 1> merged_sizes{};  // [n]: merged commands of n pages
  std::uint64_t type_switches = 0;     // grants of an operation other than the die's last
  std::uint64_t switches_avoided = 0;  // pipeline: grants that kept the die's operation over an older command
  std::uint64_t held_by_dependency = 0;  // moves refused: the command was marked keep_order
  // Reordering distance: for each command granted, the older commands of its chip queue
  // it left waiting.
  std::uint64_t reordered = 0;  // commands granted ahead of at least one older
  std::uint64_t distance_sum = 0;
  std::uint64_t distance_max = 0;
};

// The commands the firmware has sent to the scheduler block and not seen complete,
// counted by what they touch on one chip, to tell whether a command it sends conflicts
// with one of them (`conflicts`): the same page of a block, the block of an erase, or the
// same logical page. The firmware then marks it FlashCommand::keep_order, and the block's
// rescheduling never moves it (docs/scheduler.md, Rescheduling). A command of several
// pages the firmware made is checked and counted part by part, by its parts (the holding
// stage knows them).
class HazardKeys {
 public:
  void add(const FlashCommand& c) { count(c, +1); }
  void remove(const FlashCommand& c) { count(c, -1); }
  // Whether `c` (not yet added) touches what a held command touches.
  bool conflicts(const FlashCommand& c) const { return conflicts_one(c); }
  bool empty() const { return blocks_.empty() && lpns_.empty(); }

 private:
  static constexpr std::uint32_t kWholeBlock = ~std::uint32_t{0};
  struct Key {
    std::uint64_t where;  // channel, chip, die, plane
    std::uint32_t block, page;
    std::uint64_t lpn;
    bool operator==(const Key& o) const {
      return where == o.where && block == o.block && page == o.page && lpn == o.lpn;
    }
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = k.where * 0x9E3779B97F4A7C15ull;
      h ^= (std::uint64_t{k.block} << 32 | k.page) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
      h ^= k.lpn * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h);
    }
  };
  using Map = std::unordered_map<Key, std::uint32_t, Hash>;
  bool conflicts_one(const FlashCommand& c) const {
    if (c.lpn != kNoLpn && get(lpns_, Key{chip_of(c), 0, 0, c.lpn}) > 0) return true;
    for (unsigned p = 0; p < kMaxPlanes; ++p) {
      if (!(c.plane_mask >> p & 1u)) continue;
      const Key blk{where(c, p), c.block[p], kWholeBlock, 0};
      if (c.op == FlashOp::Erase) {
        if (get(blocks_, blk) > 0) return true;
      } else if (get(erases_, blk) > 0 || get(pages_, Key{where(c, p), c.block[p], c.page, 0}) > 0) {
        return true;
      }
    }
    return false;
  }
  static std::uint64_t where(const FlashCommand& c, unsigned plane) {
    return std::uint64_t{c.channel} << 40 | std::uint64_t{c.chip} << 24 | std::uint64_t{c.die} << 8 | plane;
  }
  static std::uint64_t chip_of(const FlashCommand& c) {
    return std::uint64_t{c.channel} << 40 | std::uint64_t{c.chip} << 24;
  }
  static std::uint32_t get(const Map& m, const Key& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }
  static void bump(Map& m, const Key& k, int d) {
    if (d > 0) {
      ++m[k];
      return;
    }
    const auto it = m.find(k);
    if (it != m.end() && --it->second == 0) m.erase(it);
  }
  void count(const FlashCommand& c, int d) {
    // The logical page on the chip: commands of other chips are never reordered against it.
    if (c.lpn != kNoLpn) bump(lpns_, Key{chip_of(c), 0, 0, c.lpn}, d);
    for (unsigned p = 0; p < kMaxPlanes; ++p) {
      if (!(c.plane_mask >> p & 1u)) continue;
      const Key blk{where(c, p), c.block[p], kWholeBlock, 0};
      bump(blocks_, blk, d);
      if (c.op == FlashOp::Erase) bump(erases_, blk, d);
      else bump(pages_, Key{where(c, p), c.block[p], c.page, 0}, d);
    }
  }
  Map pages_, blocks_, erases_, lpns_;
};

}  // namespace ssd::ctrl
