// A value per page of the blocks a run writes (the NAND's page tokens, the FTL's P2L),
// each block's pages together in memory: a block takes a chunk of a value per page from
// a pool the first time one of its pages is written, and keeps it (an erased block
// writes its pages again in the same chunk). The memory a run keeps is then a chunk per
// block it wrote. In a flat table indexed by page, a 4 KiB page of memory holds several
// blocks' values (four blocks of 256 pages of 4 bytes), and a run that rewrites a
// quarter of the blocks at random touches two thirds of the table's pages: 350 of
// 512 MiB for the bench device's P2L at 1e7 requests. Distinct blocks may take their
// chunks from several threads at once (preconditioning builds planes in parallel); which
// chunk a block gets then depends on the threads' order, never what it reads. Plain C++.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

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
  PagesByBlock(PagesByBlock&& o) noexcept { swap(o); }
  PagesByBlock& operator=(PagesByBlock&& o) noexcept {
    swap(o);
    return *this;
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
    if (c == 0) c = chunks_.fetch_add(1, std::memory_order_relaxed) + 1;
    return &pool_[std::size_t{c - 1} * ppb_];
  }
  // Where get(b, page) reads: the value's line if the block has a chunk, else the chunk
  // table's (for a prefetch).
  const void* address(std::size_t b, std::uint32_t page) const {
    const std::uint32_t c = chunk_[b];
    return c ? static_cast<const void*>(&pool_[std::size_t{c - 1} * ppb_ + page])
             : static_cast<const void*>(&chunk_[b]);
  }
  std::size_t chunks() const { return chunks_.load(std::memory_order_relaxed); }  // blocks written so far
  std::size_t bytes() const { return chunk_.size() * 4 + chunks() * std::size_t{ppb_} * sizeof(T); }

 private:
  void swap(PagesByBlock& o) noexcept {
    std::swap(ppb_, o.ppb_);
    std::swap(chunk_, o.chunk_);
    std::swap(pool_, o.pool_);
    const std::uint32_t n = chunks_.load(std::memory_order_relaxed);
    chunks_.store(o.chunks_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    o.chunks_.store(n, std::memory_order_relaxed);
  }
  std::uint32_t ppb_ = 0;
  BigArray<std::uint32_t> chunk_;  // per block: its chunk + 1, 0 = none yet
  BigArray<T> pool_;               // chunks, handed out in order (small pages)
  std::atomic<std::uint32_t> chunks_{0};
};

}  // namespace ssd
