// The write cache's admission, plain C++ (docs/controller.md, "Write cache and
// durability"): which host page writes are acknowledged before their data is on flash.
//  - off: none. A write completes when its pages are programmed (a drive that
//    acknowledges from non-volatile media only; the model's behaviour before the cache).
//  - volatile: a page is acknowledged as soon as the firmware takes it into its buffer,
//    while fewer than `capacity` acknowledged pages are not yet on flash (dirty); past
//    that it waits, in arrival order, for room. A FUA write is never acknowledged early.
//    The data is lost with the power until its program ends.
//  - plp (power-loss protection): as volatile, FUA writes included, with capacitors that
//    hold the power up long enough to program every dirty page: `capacity` is at most
//    what the hold-up time can program (plp_pages()).
// The pages stay in the write buffer (controller/write_path.h) either way: the cache
// decides only when the host hears of them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>

#include "nand/nand_config.h"

namespace ssd::ctrl {

enum class CacheMode : std::uint8_t { Off, Volatile, Plp };
inline const char* to_string(CacheMode m) {
  return m == CacheMode::Off ? "off" : m == CacheMode::Volatile ? "volatile" : "plp";
}

// The dirty pages a hold-up of `holdup_us` can program on `n` once the power fails: the
// programs under way end first (one tPROG), then each die programs rounds of one wordline
// per plane (an n-plane program with nand.multiplane, else one wordline; a wordline is
// nand.bits_per_cell pages, one tPROG), each round a tPROG plus its pages' data-in; no
// channel moves more pages than its bus can carry in the hold-up. The count assumes the
// pages spread evenly over the dies, as the allocation spreads them.
inline std::uint64_t plp_pages(const nand::NandConfig& n, double holdup_us) {
  const double xfer_us = static_cast<double>(n.cmd_addr_cycles + n.page_bytes) / n.bus_mts;
  const std::uint32_t per_round = (n.multiplane ? n.planes_per_die : 1) * n.bits_per_cell;
  const double left = holdup_us - n.t_prog_us;
  if (left <= 0) return 0;
  const auto rounds = static_cast<std::uint64_t>(std::floor(left / (n.t_prog_us + per_round * xfer_us)));
  const std::uint64_t dies = n.chips() * n.dies_per_chip;
  const auto per_channel = static_cast<std::uint64_t>(std::floor(left / xfer_us));
  return std::min(dies * rounds * per_round, std::uint64_t{n.channels} * per_channel);
}

class WriteCache {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  WriteCache(CacheMode mode, std::uint64_t capacity) : mode_(mode), capacity_(capacity) {}

  CacheMode mode() const { return mode_; }
  bool on() const { return mode_ != CacheMode::Off; }
  // Whether a write with these flags may be acknowledged before its pages are on flash.
  bool early(bool fua) const { return mode_ == CacheMode::Plp || (mode_ == CacheMode::Volatile && !fua); }
  // Whether what is acknowledged survives a power cut (a flush has nothing to wait for).
  bool protected_by_holdup() const { return mode_ == CacheMode::Plp; }
  std::uint64_t capacity() const { return capacity_; }

  // Page write `op`, which may be acknowledged early: true if it is now (room, and no
  // page waiting before it), else it waits (next_acknowledged()).
  bool take(std::uint32_t op) {
    if (waiting_.empty() && dirty_ < capacity_) {
      acknowledge();
      return true;
    }
    waiting_.push_back(op);
    ++waited_;
    return false;
  }
  // An acknowledged page is on flash (or will never be: failed).
  void left() { --dirty_; }
  // The next waiting page that now has room, acknowledged; kNone if none.
  std::uint32_t next_acknowledged() {
    if (waiting_.empty() || dirty_ >= capacity_) return kNone;
    const std::uint32_t op = waiting_.front();
    waiting_.pop_front();
    acknowledge();
    return op;
  }
  // Waiting page `op` reached flash before it had room: it is acknowledged with its
  // write, as without the cache.
  void reached_flash(std::uint32_t op) {
    const auto it = std::find(waiting_.begin(), waiting_.end(), op);
    if (it == waiting_.end()) throw std::logic_error("write cache: page write " + std::to_string(op) + " is not waiting");
    waiting_.erase(it);
  }

  std::uint64_t dirty() const { return dirty_; }
  std::uint64_t peak_dirty() const { return peak_; }
  std::uint64_t acknowledged() const { return acknowledged_; }  // pages acknowledged before their program ended
  std::uint64_t waited() const { return waited_; }              // of those and the rest: pages that waited for room

 private:
  void acknowledge() {
    ++acknowledged_;
    peak_ = std::max(peak_, ++dirty_);
  }
  CacheMode mode_;
  std::uint64_t capacity_;
  std::uint64_t dirty_ = 0, peak_ = 0, acknowledged_ = 0, waited_ = 0;
  std::deque<std::uint32_t> waiting_;
};

}  // namespace ssd::ctrl
