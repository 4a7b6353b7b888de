// The host's integrity shadow: the token it last wrote to every logical page, against
// which every read is checked. Plain C++.
//
// A page never written in the run holds what it held at time 0: the precondition token
// below `preconditioned`, else kUnwrittenToken. A trimmed page reads as kUnwrittenToken
// (the device unmaps it), stored as kTrimmedMark, which no write produces. Only written pages are stored, in a
// SparsePageTable (common/page_table.h: a hash map, then past 1/32 of the logical pages an
// array).
#pragma once

#include <cstdint>

#include "tlm/host_protocol.h"
#include "common/page_table.h"

namespace ssd::host {

class TokenShadow {
 public:
  TokenShadow(std::uint64_t logical_pages, std::uint64_t preconditioned)
      : preconditioned_(preconditioned), written_(logical_pages, false) {}

  // The token a read of `lpn` must return now.
  Token current(std::uint64_t lpn) const { return as_read(lpn, written_.get(lpn)); }
  // What a read of `lpn` returns when its entry is `t` (raw()).
  Token as_read(std::uint64_t lpn, Token t) const {
    if (t == kTrimmedMark) return kUnwrittenToken;
    return t != 0 ? t : lpn < preconditioned_ ? precondition_token(lpn) : kUnwrittenToken;
  }
  // Where current(lpn) and set(lpn) look first (null for an lpn past the device).
  const void* entry_address(std::uint64_t lpn) const { return written_.entry_address(lpn); }
  // The host wrote `t` (never 0) to `lpn`.
  void set(std::uint64_t lpn, Token t) { written_.set(lpn, t); }
  // The host trimmed the whole of `lpn`: it reads as unwritten until written again.
  void trim(std::uint64_t lpn) { written_.set(lpn, kTrimmedMark); }
  // Its entry as kept (0: as preconditioned; the trimmed mark; a token), and back: a
  // refused write or trim puts back what it replaced (host_driver.cpp).
  Token raw(std::uint64_t lpn) const { return written_.get(lpn); }
  void set_raw(std::uint64_t lpn, Token t) { written_.set(lpn, t); }
  bool dense() const { return written_.dense(); }
  std::uint64_t stored_bytes() const { return written_.bytes(); }

 private:
  std::uint64_t preconditioned_;
  SparsePageTable written_;  // the token last written, 0 = not written in the run (small pages)
};

}  // namespace ssd::host
