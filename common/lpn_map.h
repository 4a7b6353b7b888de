// A hash map from logical page to a 32-bit value: the firmware's write buffer (the
// newest write operation of each page with a write in flight), the host's record of the
// pages it wrote (host/token_shadow.h). Open addressing with
// linear probing in one array: no allocation per insert, and at the buffer's usual size
// (tens of pages in a 1024-slot table) a lookup of an absent page reads one slot that
// stays in the L1 cache. Deletion shifts the following entries back, so there are no
// tombstones. The table doubles when half full. Its array is anonymous memory from the
// operating system, in huge pages once it is 2 MiB or more: a large map (the host's
// record of a million written pages) is probed at random, and each probe would otherwise
// miss the TLB as well as the cache. Plain C++.
//
// A table that will double into 2 MiB or more has its next array mapped ahead, on a
// thread of its own (std::async), once it is 3/8 full: touching fresh memory first
// costs the operating system a page clearing per page, which the simulation's thread
// then does not wait for.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <future>

#include "common/big_array.h"

namespace ssd {

class LpnMap {
 public:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};

  explicit LpnMap(unsigned log2_slots = 10) { reset(log2_slots); }

  // The value of `lpn`, kAbsent if none.
  std::uint32_t find(std::uint64_t lpn) const {
    std::uint32_t v;
    return get(lpn, v) ? v : kAbsent;
  }
  // Whether `lpn` is present, and its value (for values that may equal kAbsent).
  bool get(std::uint64_t lpn, std::uint32_t& value) const {
    for (std::size_t i = home(lpn);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key_of(lpn)) {
        value = s.value;
        return true;
      }
      if (s.key == 0) return false;
    }
  }
  // The slot a lookup of `lpn` reads first (its home).
  const void* home_address(std::uint64_t lpn) const { return &slots_[home(lpn)]; }
  // Calls f(lpn, value) for every entry, in no particular order.
  template <typename F>
  void for_each(F f) const {
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i].key != 0) f(slots_[i].key - 1, slots_[i].value);
  }
  // Inserts or overwrites.
  void set(std::uint64_t lpn, std::uint32_t value) {
    std::size_t i = home(lpn);
    for (; slots_[i].key != 0; i = (i + 1) & mask_) {
      if (slots_[i].key == key_of(lpn)) {
        slots_[i].value = value;
        return;
      }
    }
    slots_[i] = Slot{key_of(lpn), value};
    if (++size_ * 2 > slots_.size()) grow();
    else if (size_ * 8 > slots_.size() * 3 && !next_.valid()) prepare_growth();
  }
  // Removes `lpn`; false if it was not there.
  bool erase(std::uint64_t lpn) {
    std::size_t i = home(lpn);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].key == key_of(lpn)) break;
      if (slots_[i].key == 0) return false;
    }
    // Backward shift: an entry after the hole moves into it unless its home lies
    // cyclically after the hole (it may not move before its home).
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != 0; j = (j + 1) & mask_) {
      const std::size_t k = home(slots_[j].key - 1);
      if (((j - k) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --size_;
    return true;
  }
  std::size_t size() const { return size_; }
  std::size_t slots() const { return slots_.size(); }
  std::size_t bytes() const { return slots_.size() * sizeof(Slot); }
  // Empties the map and returns its memory (down to `log2_slots` slots).
  void release(unsigned log2_slots = 1) { reset(log2_slots); }

 private:
  // 8 bytes: a page number below 2^32 - 1 (the FTL addresses fewer physical pages,
  // ftl.cpp) keeps twice the entries per cache line and half the memory of a 64-bit key.
  struct Slot {
    std::uint32_t key = 0;  // lpn + 1; 0 = empty
    std::uint32_t value = 0;
  };
  static std::uint32_t key_of(std::uint64_t lpn) {
    assert(lpn < 0xFFFFFFFFull);
    return static_cast<std::uint32_t>(lpn + 1);
  }
  std::size_t home(std::uint64_t lpn) const {
    return static_cast<std::size_t>((lpn * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  static bool huge(std::size_t n) { return n * sizeof(Slot) >= (std::size_t{2} << 20); }
  void reset(unsigned log2_slots, BigArray<Slot> fresh = {}) {
    const std::size_t n = std::size_t{1} << log2_slots;
    if (next_.valid() && fresh.size() != n) next_.get();  // prepared for a size no longer wanted
    slots_ = fresh.size() == n ? std::move(fresh) : BigArray<Slot>(n, huge(n));  // zero: every slot empty
    mask_ = slots_.size() - 1;
    shift_ = 64 - log2_slots;
    size_ = 0;
  }
  // The next array, mapped on another thread (only for one of 2 MiB or more).
  void prepare_growth() {
    const std::size_t n = slots_.size() * 2;
    if (!huge(n)) return;
    next_ = std::async(std::launch::async, [n] {
      BigArray<Slot> a(n, true);
      a.touch();
      return a;
    });
  }
  void grow() {
    BigArray<Slot> old = std::move(slots_);
    reset(64 - shift_ + 1, next_.valid() ? next_.get() : BigArray<Slot>());
    for (std::size_t i = 0; i < old.size(); ++i)
      if (old[i].key != 0) set(old[i].key - 1, old[i].value);
  }

  std::future<BigArray<Slot>> next_;  // the next array, when prepared
  BigArray<Slot> slots_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace ssd
