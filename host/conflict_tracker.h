// Conflict requests (PIQ paper): a request conflicts when its location vector shares a
// chip with that of another request present at the same time (waiting in the host's
// scheduling queue or outstanding at the device); both count, each request once, by its
// operation. Plain C++.
//
// The test of a new request against every present one (Formulas 2 and 3) is kept per
// chip instead: a count of the present requests on each chip answers whether the new one
// conflicts, and a list per chip of the present requests not yet counted finds the ones
// it makes conflicting. An uncounted request is in the lists of all its chips (a request
// admitted on one of them would have counted it and emptied the list), so a request costs
// a visit of its own chips, not of the whole queue. Entries left behind by a request that
// was counted through another chip, or that completed, are recognised by their id.
#pragma once

#include <cstdint>
#include <vector>

#include "host/io_scheduler.h"

namespace ssd::host {

class ConflictTracker {
 public:
  explicit ConflictTracker(unsigned chips) : present_on_(chips, 0), uncounted_(chips) {}

  // Request `id` (unique) of operation `op` (0 read, 1 write) on the chips of `v` arrives;
  // returns whether it conflicts with a present request.
  bool admit(std::uint64_t id, int op, const LocationVector& v) {
    bool conflicted = false;
    v.for_each_chip([&](unsigned c) { conflicted |= present_on_[c] != 0; });
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
      ids_.push_back(0);
    }
    Slot& s = slots_[slot];
    s.op = op;
    s.counted = conflicted;
    s.v = v;
    ids_[slot] = id;
    if (conflicted) ++conflicts_[op];
    v.for_each_chip([&](unsigned c) {
      std::vector<Ref>& list = uncounted_[c];
      if (conflicted) {
        for (const Ref& r : list) {
          Slot& o = slots_[r.slot];
          if (ids_[r.slot] != r.id || o.counted) continue;  // left behind
          o.counted = true;
          ++conflicts_[o.op];
        }
        list.clear();
      } else {
        list.push_back({slot, id});
      }
      ++present_on_[c];
    });
    return conflicted;
  }
  // Request `id` completed: it is no longer present.
  void complete(std::uint64_t id) {
    for (std::uint32_t i = 0; i < ids_.size(); ++i) {
      if (ids_[i] != id) continue;
      slots_[i].v.for_each_chip([this](unsigned c) { --present_on_[c]; });
      ids_[i] = kFree;
      free_.push_back(i);
      return;
    }
  }
  std::uint64_t conflicts(int op) const { return conflicts_[op]; }

 private:
  static constexpr std::uint64_t kFree = ~std::uint64_t{0};
  struct Slot {
    int op = 0;
    bool counted = false;
    LocationVector v;
  };
  struct Ref {
    std::uint32_t slot;
    std::uint64_t id;
  };
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> ids_;  // per slot: the present request's id, kFree if none
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> present_on_;     // per chip: present requests on it
  std::vector<std::vector<Ref>> uncounted_;   // per chip: present requests not yet counted
  std::uint64_t conflicts_[2] = {0, 0};
};

}  // namespace ssd::host
