// What each die of a channel was doing, integrated over time, for the latency
// attribution (tlm/latency_parts.h): a command waiting in the scheduler block for the
// interval [a, b] is told how much of it its die spent on each kind of work, and how
// much, its chip idle, another chip held the channel's bus. Plain C++, O(dies per chip)
// per command start or end.
//
// A die is occupied by a command from its submission to the channel (the die is then
// committed to it) to its completion. At any time a die is in one state:
//  - its own oldest occupant's kind of work, if it has one;
//  - otherwise the kind of its chip's oldest occupant (another die's), if the chip has one;
//  - otherwise idle; the bus time of idle periods (the bus then held by another chip, as
//    this chip has nothing in flight) is counted apart.
// "Oldest" is the earliest submitted (ties cannot occur: the channel numbers commands).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tlm/flash_command.h"

namespace ssd::nand {

class WaitMeter {
 public:
  using Ticks = std::array<Tick, kWaitKinds>;
  WaitMeter(unsigned chips, unsigned dies_per_chip)
      : dies_per_chip_(dies_per_chip), dies_(chips * dies_per_chip), chip_occupants_(chips, 0) {
    for (Die& d : dies_) d.occupants.reserve(4);
  }

  // Command number `seq` (ascending over the channel) of kind `kind` occupies the die
  // from `now`; `bus()` gives the channel's bus busy time up to `now` (asked only when a
  // die enters or leaves the idle state). Only the dies whose state changes are touched:
  // a newer command changes nothing where an older one already sets the state.
  template <typename Bus>
  void occupy(unsigned chip, unsigned die, std::uint64_t seq, unsigned kind, Tick now, Bus&& bus) {
    Die* first = &dies_[chip * dies_per_chip_];
    Die& d = first[die];
    d.occupants.push_back({seq, static_cast<std::uint8_t>(kind)});
    if (chip_occupants_[chip]++ != 0 && d.occupants.size() > 1) return;  // an older command sets its state
    if (chip_occupants_[chip] == 1) {  // the chip was idle: every die takes this kind
      for (unsigned i = 0; i < dies_per_chip_; ++i) set_state(first[i], static_cast<std::uint8_t>(kind), now, bus);
    } else {
      set_state(d, static_cast<std::uint8_t>(kind), now, bus);
    }
  }
  template <typename Bus>
  void release(unsigned chip, unsigned die, std::uint64_t seq, Tick now, Bus&& bus) {
    Die* first = &dies_[chip * dies_per_chip_];
    Die& d = first[die];
    auto& occ = d.occupants;
    std::size_t i = 0;
    while (i < occ.size() && occ[i].seq != seq) ++i;
    if (i == occ.size()) return;
    const bool was_front = i == 0;
    occ.erase(occ.begin() + static_cast<std::ptrdiff_t>(i));
    --chip_occupants_[chip];
    if (!was_front) return;  // an older command of the die still sets its state
    // The chip's oldest command now, over its dies' oldest.
    const Occupant* oldest = nullptr;
    for (unsigned k = 0; k < dies_per_chip_; ++k)
      if (!first[k].occupants.empty() && (!oldest || first[k].occupants.front().seq < oldest->seq))
        oldest = &first[k].occupants.front();
    const std::uint8_t chip_state = oldest ? oldest->kind : kIdle;
    for (unsigned k = 0; k < dies_per_chip_; ++k) {
      Die& e = first[k];
      set_state(e, !e.occupants.empty() ? e.occupants.front().kind : chip_state, now, bus);
    }
  }
  // A suspended operation (release()d while held) occupies its die again from `now`, in
  // its place by number.
  template <typename Bus>
  void reoccupy(unsigned chip, unsigned die, std::uint64_t seq, unsigned kind, Tick now, Bus&& bus) {
    Die* first = &dies_[chip * dies_per_chip_];
    auto& occ = first[die].occupants;
    std::size_t i = 0;
    while (i < occ.size() && occ[i].seq < seq) ++i;
    occ.insert(occ.begin() + static_cast<std::ptrdiff_t>(i), {seq, static_cast<std::uint8_t>(kind)});
    ++chip_occupants_[chip];
    const Occupant* oldest = nullptr;
    for (unsigned k = 0; k < dies_per_chip_; ++k)
      if (!first[k].occupants.empty() && (!oldest || first[k].occupants.front().seq < oldest->seq))
        oldest = &first[k].occupants.front();
    for (unsigned k = 0; k < dies_per_chip_; ++k) {
      Die& e = first[k];
      set_state(e, !e.occupants.empty() ? e.occupants.front().kind : oldest->kind, now, bus);
    }
  }
  // The die's integrals up to `now` (>= its last change), by kind (kWaitKinds - 1: bus
  // held by another chip while idle); `bus` is the bus busy time up to `now`.
  Ticks at(unsigned chip, unsigned die, Tick now, Tick bus) const {
    const Die& d = dies_[chip * dies_per_chip_ + die];
    Ticks t = d.cum;
    add_open(d, t, now, bus);
    return t;
  }
  // `t` holds the die's integrals at an earlier time: it becomes what they grew by since.
  void growth(unsigned chip, unsigned die, Tick now, Tick bus, Ticks& t) const {
    const Die& d = dies_[chip * dies_per_chip_ + die];
    for (unsigned k = 0; k < kWaitKinds; ++k) t[k] = d.cum[k] - t[k];
    add_open(d, t, now, bus);
  }

 private:
  static constexpr std::uint8_t kIdle = 0xFF;
  struct Occupant {
    std::uint64_t seq;
    std::uint8_t kind;
  };
  struct Die {
    std::vector<Occupant> occupants;  // in submission order
    std::uint8_t state = kIdle;
    Tick since = 0, bus_since = 0;
    Ticks cum{};
  };
  static void add_open(const Die& d, Ticks& t, Tick now, Tick bus) {
    // Read at a time before the die's last change (the engine ran ahead of the reader):
    // the integrals would be too high, so the split wrong. The model never does it.
    if (now < d.since)
      throw std::logic_error("wait meter: read at " + std::to_string(now) + " ps, before its die's last change at " +
                             std::to_string(d.since) + " ps");
    if (d.state != kIdle) t[d.state] += now - d.since;
    else t[kWaitKinds - 1] += bus - d.bus_since;
  }
  // Closes the die's current state at `now` and opens `state` (nothing if it is the same).
  template <typename Bus>
  static void set_state(Die& d, std::uint8_t state, Tick now, Bus& bus) {
    if (state == d.state) return;
    if (d.state != kIdle) {
      d.cum[d.state] += now - d.since;
    } else {
      const Tick b = bus();
      d.cum[kWaitKinds - 1] += b - d.bus_since;
    }
    if (state == kIdle) d.bus_since = bus();
    d.state = state;
    d.since = now;
  }
  unsigned dies_per_chip_;
  std::vector<Die> dies_;
  std::vector<std::uint32_t> chip_occupants_;
};

}  // namespace ssd::nand
