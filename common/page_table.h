// A 32-bit value per logical page where most pages have none (0): the pages a run
// changed, against a state the owner computes for the others (the host's integrity
// shadow against the tokens of time 0, the FTL's L2P against the preconditioning
// image). First in a hash map (common/lpn_map.h), because a run usually touches a small
// part of the device (a map of the pages written instead of an array of all of them,
// whose every page the operating system would have to map and zero); once the map
// holds more than 1/32 of the pages
// it moves into a dense array of a value per page (lazily mapped), so the map never
// takes more than half the array's memory and a long run's memory stays bounded by the
// geometry. Plain C++.
#pragma once

#include <cstdint>

#include "common/big_array.h"
#include "common/lpn_map.h"

namespace ssd {

class SparsePageTable {
 public:
  // `huge_pages`: the dense array asks for transparent huge pages (for a table the run
  // goes on to fill at random; see common/big_array.h).
  SparsePageTable() : SparsePageTable(0, false) {}
  SparsePageTable(std::uint64_t pages, bool huge_pages)
      : pages_(pages), limit_(pages / 32), huge_pages_(huge_pages), map_(initial_log2_slots(pages)) {}

  // The value of `lpn`; 0 if none was set.
  std::uint32_t get(std::uint64_t lpn) const {
    if (dense_) return array_[lpn];
    std::uint32_t v;
    return map_.get(lpn, v) ? v : 0;
  }
  // Sets the value of `lpn` (never 0).
  void set(std::uint64_t lpn, std::uint32_t v) {
    if (dense_) {
      array_[lpn] = v;
      return;
    }
    map_.set(lpn, v);
    if (map_.size() > limit_) densify();
  }
  // Where get(lpn) and set(lpn) look first (any lpn; null past the array's pages).
  const void* entry_address(std::uint64_t lpn) const {
    if (!dense_) return map_.home_address(lpn);
    return lpn < pages_ ? &array_[lpn] : nullptr;
  }
  bool dense() const { return dense_; }
  bool empty() const { return !dense_ && map_.size() == 0; }
  std::uint64_t bytes() const { return dense_ ? pages_ * sizeof(std::uint32_t) : map_.bytes(); }

 private:
  // The map doubles when half full and holds at most pages / 32 entries before it moves
  // to the array: at most pages / 8 slots of 8 bytes, a quarter of the array's 4 bytes
  // per page. It starts at 64 Ki slots (512 KiB), fewer on a small device.
  static unsigned initial_log2_slots(std::uint64_t pages) {
    unsigned k = 2;
    while (k < 16 && (std::uint64_t{2} << k) <= pages / 8) ++k;
    return k;
  }
  void densify() {
    array_ = BigArray<std::uint32_t>(pages_, huge_pages_);  // zero = no value
    map_.for_each([this](std::uint64_t lpn, std::uint32_t v) { array_[lpn] = v; });
    map_.release();
    dense_ = true;
  }

  std::uint64_t pages_, limit_;
  bool huge_pages_;
  bool dense_ = false;
  LpnMap map_;
  BigArray<std::uint32_t> array_;
};

}  // namespace ssd
