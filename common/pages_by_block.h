// A value per page of the blocks a run writes (the NAND's page tokens, the FTL's P2L),
// each block's pages together in memory: a block takes a chunk of a value per page from
// a pool the first time one of its pages is written, and keeps it (an erased block
// writes its pages again in the same chunk). The memory a run keeps is then a chunk per
// block it wrote. In a flat table indexed by page, a 4 KiB page of memory holds several
// blocks' values (four blocks of 256 pages of 4 bytes), and a run that rewrites a
// quarter of the blocks at random touches two thirds of the table's pages: 350 of
// 512 MiB for the bench device's P2L at 1e7 requests. Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "common/big_array.h"

namespace ssd {

template <typename T>
class PagesByBlock {
 public:
  PagesByBlock() = default;
  PagesByBlock(std::size_t blocks, std::uint32_t pages_per_block)
      : ppb_(pages_per_block), chunk_(blocks, true), pool_(blocks * pages_per_block) {
    if (blocks >= 0xFFFFFFFFull) throw std::invalid_argument("PagesByBlock: too many blocks");
  }

  // Page `page` of block `b`: what was last written there, T{} if the block has never
  // been written.
  T get(std::size_t b, std::uint32_t page) const {
    const std::uint32_t c = chunk_[b];
    return c ? pool_[std::size_t{c - 1} * ppb_ + page] : T{};
  }
  // Page `page` of block `b`, to be written (the block takes its chunk if it has none).
  T& at(std::size_t b, std::uint32_t page) { return chunk(b)[page]; }
  // The first of block b's values, to write them in a row.
  T* chunk(std::size_t b) {
    std::uint32_t& c = chunk_[b];
    if (c == 0) c = ++chunks_;
    return &pool_[std::size_t{c - 1} * ppb_];
  }
  // Where get(b, page) reads: the value's line if the block has a chunk, else the chunk
  // table's (for a prefetch).
  const void* address(std::size_t b, std::uint32_t page) const {
    const std::uint32_t c = chunk_[b];
    return c ? static_cast<const void*>(&pool_[std::size_t{c - 1} * ppb_ + page])
             : static_cast<const void*>(&chunk_[b]);
  }
  std::size_t chunks() const { return chunks_; }  // blocks written so far
  std::size_t bytes() const { return chunk_.size() * 4 + chunks_ * ppb_ * sizeof(T); }

 private:
  std::uint32_t ppb_ = 0;
  BigArray<std::uint32_t> chunk_;  // per block: its chunk + 1, 0 = none yet
  BigArray<T> pool_;               // chunks, handed out in order (small pages)
  std::uint32_t chunks_ = 0;
};

}  // namespace ssd
