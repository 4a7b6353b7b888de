// Items due at given times, for a process that takes them as they fall due: earliest
// first, items due at one time in the order given, and the process's one event notified
// for the earliest (one timed notification in the kernel however many are queued). Items
// given while the process takes them, due by then, are taken in the same activation.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include <systemc>

#include "tlm/sim_now.h"

namespace ssd::ctrl {

template <class T>
class DueQueue {
 public:
  // `item` due at `at` (not before now); `event` is notified for it if it falls before
  // the time the event is notified for.
  void push(Tick at, const T& item, sc_core::sc_event& event) {
    heap_.push(Entry{at, seq_++, item});
    if (at < armed_) {
      armed_ = at;
      const Tick now = sim_now();
      event.notify(sc_delay(at > now ? at - now : 0));
    }
  }
  // From the process woken by `event`: take(item) for each item due by now, in order, then
  // `event` notified for the next.
  template <class Take>
  void take_due(sc_core::sc_event& event, Take&& take) {
    const Tick now = sim_now();
    armed_ = 0;  // no notification from inside: the loop takes what falls due now
    while (!heap_.empty() && heap_.top().at <= now) {
      const T item = heap_.top().item;
      heap_.pop();
      take(item);
    }
    armed_ = kNever;
    if (!heap_.empty()) {
      armed_ = heap_.top().at;
      event.notify(sc_delay(armed_ - now));
    }
  }

 private:
  struct Entry {
    Tick at;
    std::uint64_t seq;
    T item;
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  std::uint64_t seq_ = 0;
  Tick armed_ = kNever;  // the time the event is notified for (kNever: none)
};

}  // namespace ssd::ctrl
