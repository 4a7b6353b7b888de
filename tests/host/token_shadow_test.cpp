// The host's integrity shadow against a plain array, over a long random run that
// crosses from the hash map to the dense array.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "host/token_shadow.h"

using ssd::Token;
using ssd::host::TokenShadow;

TEST_CASE("token shadow: answers like a plain array before and after it turns dense", "[host][shadow]") {
  const std::uint64_t pages = 64 * 1024, preconditioned = 40000;
  TokenShadow s(pages, preconditioned);
  std::vector<Token> ref(pages, 0);  // 0: not written in the run
  const auto expect = [&](std::uint64_t lpn) {
    if (ref[lpn] == ssd::kTrimmedMark) return ssd::kUnwrittenToken;
    if (ref[lpn] != 0) return ref[lpn];
    return lpn < preconditioned ? ssd::precondition_token(lpn) : ssd::kUnwrittenToken;
  };
  std::uint64_t x = 88172645463325252ull;
  bool checked_sparse = false;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t lpn = (x >> 11) % pages;
    if (x & 1) {
      // Every value a token can take (the largest included), and trims.
      const Token t = (x >> 5) % 7 == 0 ? 0xFFFFFFFEu : static_cast<Token>(x >> 32) | 1u;
      if ((x >> 8) % 11 == 0) {
        s.trim(lpn);
        ref[lpn] = ssd::kTrimmedMark;
      } else {
        s.set(lpn, ssd::data_token(t));
        ref[lpn] = ssd::data_token(t);
      }
    } else {
      REQUIRE(s.current(lpn) == expect(lpn));
    }
    if (!s.dense()) {
      checked_sparse = true;
      REQUIRE(s.stored_bytes() <= pages * sizeof(Token) / 2);  // never more than half the array
    }
  }
  CHECK(checked_sparse);
  CHECK(s.dense());  // 10,000 writes to 65,536 pages pass the 1/32 mark
  for (std::uint64_t lpn = 0; lpn < pages; ++lpn) REQUIRE(s.current(lpn) == expect(lpn));
}

TEST_CASE("token shadow: pages never written read as at time 0", "[host][shadow]") {
  TokenShadow s(1000, 600);
  CHECK(s.current(0) == ssd::precondition_token(0));
  CHECK(s.current(599) == ssd::precondition_token(599));
  CHECK(s.current(600) == ssd::kUnwrittenToken);
  s.set(700, 0xFFFFFFFEu);  // the largest data token
  CHECK(s.current(700) == 0xFFFFFFFEu);
  CHECK(s.current(701) == ssd::kUnwrittenToken);
  CHECK_FALSE(s.dense());
}

TEST_CASE("token shadow: a trimmed page reads as unwritten until written again", "[host][shadow][trim]") {
  TokenShadow s(1024, 512);
  s.set(3, 77);
  s.trim(3);    // written in the run, then trimmed
  s.trim(600);  // never written
  s.trim(100);  // preconditioned
  CHECK(s.current(3) == ssd::kUnwrittenToken);
  CHECK(s.current(600) == ssd::kUnwrittenToken);
  CHECK(s.current(100) == ssd::kUnwrittenToken);
  CHECK(s.current(101) == ssd::precondition_token(101));
  s.set(100, 5);
  CHECK(s.current(100) == 5);
  // No data token is the trimmed mark.
  for (std::uint64_t i = 0; i < 100000; ++i) {
    REQUIRE(ssd::write_token(i, i * 31) != ssd::kTrimmedMark);
    REQUIRE(ssd::data_token(ssd::kTrimmedMark) != ssd::kTrimmedMark);
  }
}
