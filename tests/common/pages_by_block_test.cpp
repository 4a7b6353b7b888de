// common/pages_by_block.h: a value per page of the blocks written, a block's pages together.
#include <catch2/catch.hpp>

#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "common/pages_by_block.h"

using ssd::PagesByBlock;

TEST_CASE("pages by block: what was written reads back, an unwritten block reads zero", "[common][pages_by_block]") {
  PagesByBlock<std::uint32_t> t(4096, 256);
  CHECK(t.get(17, 3) == 0);
  CHECK(t.chunks() == 0);
  t.at(17, 3) = 99;
  t.at(17, 4) = 100;
  t.at(4095, 255) = 7;
  CHECK(t.get(17, 3) == 99);
  CHECK(t.get(17, 4) == 100);
  CHECK(t.get(4095, 255) == 7);
  CHECK(t.get(18, 3) == 0);
  CHECK(t.chunks() == 2);
  // Written again (an erased block programmed anew): the same chunk.
  t.at(17, 3) = 5;
  CHECK(t.get(17, 3) == 5);
  CHECK(t.chunks() == 2);
  std::uint32_t* row = t.chunk(300);
  for (std::uint32_t p = 0; p < 256; ++p) row[p] = p + 1;
  for (std::uint32_t p = 0; p < 256; ++p) REQUIRE(t.get(300, p) == p + 1);
  CHECK(t.chunks() == 3);
}

TEST_CASE("pages by block: blocks written far apart keep their pages side by side in memory",
          "[common][pages_by_block]") {
  // A flat table would put blocks 4 apart in different 4 KiB pages of memory; the
  // chunks of the blocks written are consecutive, in the order of their first writes.
  const std::uint32_t ppb = 256;
  PagesByBlock<std::uint32_t> t(1u << 20, ppb);
  std::vector<std::size_t> order;
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 1000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::size_t b = x % (1u << 20);
    if (t.get(b, 0) != 0) continue;
    t.at(b, 0) = static_cast<std::uint32_t>(i + 1);
    order.push_back(b);
  }
  REQUIRE(t.chunks() == order.size());
  const char* first = static_cast<const char*>(t.address(order[0], 0));
  for (std::size_t k = 0; k < order.size(); ++k)
    REQUIRE(static_cast<const char*>(t.address(order[k], 0)) == first + k * ppb * sizeof(std::uint32_t));
  CHECK(t.bytes() == (1u << 20) * 4 + order.size() * ppb * 4);
  // An unwritten block's address is its entry in the chunk table (a prefetch's target).
  std::size_t unwritten = 0;
  while (t.get(unwritten, 0) != 0) ++unwritten;
  CHECK(t.address(unwritten, 0) != nullptr);
}

TEST_CASE("pages by block: distinct blocks take their chunks from several threads at once",
          "[common][pages_by_block]") {
  // Preconditioning builds planes on several threads, each writing its own blocks: no two
  // blocks may share a chunk, whatever the threads' order.
  const std::uint32_t ppb = 16, blocks = 40000;
  PagesByBlock<std::uint32_t> t(blocks, ppb);
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < 4; ++k)
    pool.emplace_back([&t, k] {
      for (std::uint32_t b = k; b < blocks; b += 4)
        for (std::uint32_t p = 0; p < ppb; ++p) t.at(b, p) = b * ppb + p + 1;
    });
  for (std::thread& th : pool) th.join();
  REQUIRE(t.chunks() == blocks);
  for (std::uint32_t b = 0; b < blocks; ++b)
    for (std::uint32_t p = 0; p < ppb; ++p) REQUIRE(t.get(b, p) == b * ppb + p + 1);
  // Moved, it keeps its blocks and its count.
  PagesByBlock<std::uint32_t> moved;
  moved = std::move(t);
  CHECK(moved.chunks() == blocks);
  CHECK(moved.get(blocks - 1, ppb - 1) == blocks * ppb);
}
