// The firmware's write-buffer map against std::unordered_map, over long random runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/lpn_map.h"

using ssd::LpnMap;

TEST_CASE("lpn map: inserts, overwrites and erases agree with std::unordered_map", "[ftl][lpn_map]") {
  for (std::uint64_t range : {8ull, 200ull, 100000ull}) {  // dense keys: long probe chains
    LpnMap m(2);  // 4 slots: grows many times
    std::unordered_map<std::uint64_t, std::uint32_t> ref;
    std::uint64_t x = 12345 + range;
    for (int i = 0; i < 200000; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const std::uint64_t lpn = (x >> 8) % range;
      const auto v = static_cast<std::uint32_t>(x >> 40);
      switch (x % 3) {
        case 0:
          m.set(lpn, v);
          ref[lpn] = v;
          break;
        case 1:
          REQUIRE(m.erase(lpn) == (ref.erase(lpn) == 1));
          break;
        default: {
          const auto it = ref.find(lpn);
          REQUIRE(m.find(lpn) == (it == ref.end() ? LpnMap::kAbsent : it->second));
        }
      }
      REQUIRE(m.size() == ref.size());
      REQUIRE(m.size() * 2 <= m.slots());
    }
    for (std::uint64_t lpn = 0; lpn < std::min<std::uint64_t>(range, 1000); ++lpn) {
      const auto it = ref.find(lpn);
      CHECK(m.find(lpn) == (it == ref.end() ? LpnMap::kAbsent : it->second));
    }
  }
}

TEST_CASE("lpn map: an entry whose probe chain wraps past the end survives erasures before it", "[ftl][lpn_map]") {
  LpnMap m(3);  // 8 slots, at most 4 entries
  // Find four pages sharing one home slot near the end of the table, so their chain wraps.
  std::vector<std::uint64_t> same;
  for (std::uint64_t lpn = 0; same.size() < 4 && lpn < 100000; ++lpn) {
    if (((lpn * 0x9E3779B97F4A7C15ull) >> 61) == 7) same.push_back(lpn);
  }
  REQUIRE(same.size() == 4);
  for (std::size_t i = 0; i < 3; ++i) m.set(same[i], static_cast<std::uint32_t>(i));
  REQUIRE(m.erase(same[0]));
  CHECK(m.find(same[1]) == 1);
  CHECK(m.find(same[2]) == 2);
  REQUIRE(m.erase(same[1]));
  CHECK(m.find(same[2]) == 2);
  CHECK(m.find(same[0]) == LpnMap::kAbsent);
  CHECK(m.size() == 1);
}

TEST_CASE("lpn map: a map that grows past 2 MiB, its next arrays mapped on another thread, keeps every entry",
          "[ftl][lpn_map]") {
  LpnMap m;
  std::unordered_map<std::uint64_t, std::uint32_t> ref;
  std::uint64_t x = 99;
  for (int i = 0; i < 1200000; ++i) {  // to 4 Mi slots (32 MiB), through five prepared arrays
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t lpn = (x >> 8) % 500000000;
    m.set(lpn, static_cast<std::uint32_t>(i));
    ref[lpn] = static_cast<std::uint32_t>(i);
    if (i % 7 == 0) {
      REQUIRE(m.erase(lpn));
      ref.erase(lpn);
    }
  }
  REQUIRE(m.size() == ref.size());
  CHECK(m.slots() >= (std::size_t{1} << 21));
  for (const auto& [lpn, v] : ref) REQUIRE(m.find(lpn) == v);
  m.release();  // also when an array is being prepared
  CHECK(m.size() == 0);
  m.set(5, 6);
  CHECK(m.find(5) == 6);
}
