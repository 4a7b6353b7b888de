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

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "tlm/flash_command.h"

namespace ssd::nand {

class WaitMeter {
 public:
  using Ticks = std::array<Tick, kWaitKinds>;
  WaitMeter(unsigned chips, unsigned dies_per_chip) : dies_per_chip_(dies_per_chip), dies_(chips * dies_per_chip) {}

  // Command number `seq` (ascending over the channel) of kind `kind` occupies the die
  // from `now`; `bus` is the channel's bus busy time up to `now`.
  void occupy(unsigned chip, unsigned die, std::uint64_t seq, unsigned kind, Tick now, Tick bus) {
    dies_[chip * dies_per_chip_ + die].occupants.push_back({seq, static_cast<std::uint8_t>(kind)});
    refresh_chip(chip, now, bus);
  }
  void release(unsigned chip, unsigned die, std::uint64_t seq, Tick now, Tick bus) {
    auto& occ = dies_[chip * dies_per_chip_ + die].occupants;
    for (std::size_t i = 0; i < occ.size(); ++i)
      if (occ[i].seq == seq) {
        occ.erase(occ.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    refresh_chip(chip, now, bus);
  }
  // The die's integrals up to `now` (>= its last change), by kind (kWaitKinds - 1: bus
  // held by another chip while idle).
  Ticks at(unsigned chip, unsigned die, Tick now, Tick bus) const {
    const Die& d = dies_[chip * dies_per_chip_ + die];
    Ticks t = d.cum;
    add_open(d, t, now, bus);
    return t;
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
    if (now < d.since) return;  // not reached: the die's last change is at `since`
    if (d.state != kIdle) t[d.state] += now - d.since;
    else t[kWaitKinds - 1] += bus - d.bus_since;
  }
  void refresh_chip(unsigned chip, Tick now, Tick bus) {
    Die* first = &dies_[chip * dies_per_chip_];
    const Occupant* oldest = nullptr;
    for (unsigned i = 0; i < dies_per_chip_; ++i)
      if (!first[i].occupants.empty() && (!oldest || first[i].occupants.front().seq < oldest->seq))
        oldest = &first[i].occupants.front();
    for (unsigned i = 0; i < dies_per_chip_; ++i) {
      Die& d = first[i];
      add_open(d, d.cum, now, bus);
      d.state = !d.occupants.empty() ? d.occupants.front().kind : oldest ? oldest->kind : kIdle;
      d.since = now;
      d.bus_since = bus;
    }
  }
  unsigned dies_per_chip_;
  std::vector<Die> dies_;
};

}  // namespace ssd::nand
