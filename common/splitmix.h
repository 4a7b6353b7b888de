// splitmix64 (Steele, Lea and Flood): the generator the model's seeded streams use.
// mix() is its finaliser, a bijection of 64-bit words that spreads every input bit;
// next() advances a stream by the golden-ratio increment and mixes the result.
#pragma once

#include <cstdint>

namespace ssd::splitmix64 {

constexpr std::uint64_t kIncrement = 0x9E3779B97F4A7C15ull;

inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline std::uint64_t next(std::uint64_t& state) { return mix(state += kIncrement); }

// A number in [0, n) from a 64-bit draw, by multiply-shift (no division).
inline std::uint64_t below(std::uint64_t draw, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(draw) * n) >> 64);
}

// A number in [0, 1) from a 64-bit draw: its top 53 bits.
inline double unit(std::uint64_t draw) { return static_cast<double>(draw >> 11) * 0x1.0p-53; }

}  // namespace ssd::splitmix64
