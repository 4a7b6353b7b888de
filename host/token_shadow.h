// The host's integrity shadow: the token it last wrote to every logical page, against
// which every read is checked. Plain C++.
//
// A page never written in the run holds what it held at time 0: the precondition token
// below `preconditioned`, else kUnwrittenToken. Only written pages are stored: first in
// a hash map (tlm/lpn_map.h), because a run usually writes a small part of the device
// (the bench job's million requests write 300,000 of 125 million pages: 16 MiB of map
// instead of 476 MiB of array, whose every page the operating system would have to map
// and zero); once the map holds more than 1/32 of the logical pages it moves into a
// dense array of a token per logical page (lazily mapped), so the map never takes more
// than half the array's memory and a long run's memory stays bounded by the geometry.
#pragma once

#include <cstdint>

#include "tlm/big_array.h"
#include "tlm/host_protocol.h"
#include "tlm/lpn_map.h"

namespace ssd::host {

class TokenShadow {
 public:
  TokenShadow(std::uint64_t logical_pages, std::uint64_t preconditioned)
      : pages_(logical_pages), preconditioned_(preconditioned), limit_(logical_pages / 32),
        map_(initial_log2_slots(logical_pages)) {}

  // The token a read of `lpn` must return now.
  Token current(std::uint64_t lpn) const {
    if (dense_) {
      const Token t = array_[lpn];
      if (t != 0) return t;
    } else if (std::uint32_t t; map_.get(lpn, t)) {
      return t;
    }
    return initial(lpn);
  }
  // The host wrote `t` (never 0) to `lpn`.
  void set(std::uint64_t lpn, Token t) {
    if (dense_) {
      array_[lpn] = t;
      return;
    }
    map_.set(lpn, t);
    if (map_.size() > limit_) densify();
  }
  bool dense() const { return dense_; }
  std::uint64_t stored_bytes() const { return dense_ ? pages_ * sizeof(Token) : map_.bytes(); }

 private:
  // The map doubles when half full and holds at most pages / 32 entries before it moves
  // to the array: at most pages / 8 slots of 16 bytes, half the array's 4 bytes per
  // page. It starts at 64 Ki slots (1 MiB), fewer on a small device.
  static unsigned initial_log2_slots(std::uint64_t pages) {
    unsigned k = 2;
    while (k < 16 && (std::uint64_t{2} << k) <= pages / 8) ++k;
    return k;
  }
  Token initial(std::uint64_t lpn) const {
    return lpn < preconditioned_ ? precondition_token(lpn) : kUnwrittenToken;
  }
  void densify() {
    array_ = BigArray<Token>(pages_);  // zero = not written in the run
    map_.for_each([this](std::uint64_t lpn, std::uint32_t t) { array_[lpn] = t; });
    map_.release();
    dense_ = true;
  }

  std::uint64_t pages_, preconditioned_, limit_;
  bool dense_ = false;
  LpnMap map_;
  BigArray<Token> array_;
};

}  // namespace ssd::host
