// The FTL's data structures and decisions, plain C++ (no SystemC): page-level
// mapping (logical -> physical and back), static allocation by logical page in
// any channel/chip/die/plane order, per-plane open blocks, free-block pools with
// dynamic wear leveling (least-erased free block first), greedy GC victim choice,
// and preconditioning in zero simulated time. The firmware-core module drives it.
//
// A physical page address (ppa) is one 32-bit index:
//   ((plane_id * blocks_per_plane) + block) * pages_per_block + page,
//   plane_id = ((channel * chips + chip) * dies + die) * planes + plane.
// With static allocation a logical page always lives on one plane; GC moves data
// only inside its plane, so its chip never changes (the PIQ paper relies on that).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "nand/nand_config.h"
#include "tlm/big_array.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

constexpr std::uint32_t kUnmapped = 0xFFFFFFFFu;

struct FtlConfig {
  nand::NandConfig nand;
  double overprovisioning = 0.07;  // fraction of physical pages hidden from the host
  std::string allocation = "CWDP";  // first letter varies fastest: channel, chip (Way), Die, Plane
  double gc_threshold = 0.05;       // GC a plane when its free blocks fall below this fraction
  // Problems naming the config keys; empty when valid.
  std::vector<std::string> validate() const;
};

struct PhysAddr {
  std::uint16_t channel, chip, die, plane;
  std::uint32_t block, page;
};

// What preconditioning writes and erases directly into the NAND's page state.
class FlashBackdoor {
 public:
  virtual ~FlashBackdoor() = default;
  virtual void program(const PhysAddr& a, Token t) = 0;
  virtual void erase(const PhysAddr& a) = 0;  // a.page ignored
  virtual Token read(const PhysAddr& a) const = 0;
  // Programs pages [0, n) of a.block in order (a.page ignored).
  virtual void program_block(const PhysAddr& a, const Token* tokens, std::uint32_t n) {
    PhysAddr b = a;
    for (std::uint32_t i = 0; i < n; ++i) {
      b.page = i;
      program(b, tokens[i]);
    }
  }
};

class Ftl {
 public:
  explicit Ftl(const FtlConfig& cfg);

  const FtlConfig& config() const { return cfg_; }
  std::uint64_t logical_pages() const { return logical_pages_; }
  std::uint32_t planes() const { return planes_; }

  // ---- addresses ----
  PhysAddr decode(std::uint32_t ppa) const;
  std::uint32_t encode(const PhysAddr& a) const;
  std::uint32_t plane_of_ppa(std::uint32_t ppa) const { return ppa / pages_per_plane_; }
  std::uint32_t block_of_ppa(std::uint32_t ppa) const { return ppa / cfg_.nand.pages_per_block; }
  // The plane a logical page is statically allocated to.
  std::uint32_t plane_of_lpn(std::uint64_t lpn) const;
  // Global chip index (channel * chips_per_channel + chip) of a plane.
  std::uint32_t chip_of_plane(std::uint32_t plane) const;

  // ---- mapping ----
  std::uint32_t lookup(std::uint64_t lpn) const { return l2p_[lpn] - 1; }  // stored +1: 0 is unmapped
  std::uint64_t owner(std::uint32_t ppa) const { return p2l_[ppa] - 1; }  // kUnmapped: invalid page
  // A hint that the mapping of `lpn` will be looked up or changed soon (a program of it is
  // on its way): its line is fetched while other work goes on. Changes nothing.
  void prefetch_mapping(std::uint64_t lpn) const { __builtin_prefetch(&l2p_[lpn]); }

  // Next free page for a write into `plane` (host or GC stream); kUnmapped when the
  // plane has no free block the stream may open (the host may not take the GC reserve).
  std::uint32_t allocate(std::uint32_t plane, bool gc_stream);
  // A host program of `lpn` to `ppa` completed and is the newest version of lpn:
  // the mapping moves to ppa, the old page (if any) becomes invalid.
  void map(std::uint64_t lpn, std::uint32_t ppa);
  // A GC copy of `lpn` from `from` to `ppa` completed: the mapping moves only if it
  // still points to `from` (no newer host write committed meanwhile); otherwise the
  // copy is stale and ppa stays invalid. Returns whether the mapping moved.
  bool remap_if(std::uint64_t lpn, std::uint32_t ppa, std::uint32_t from);
  void trim(std::uint64_t lpn);

  // ---- blocks, GC, wear ----
  std::uint32_t free_blocks(std::uint32_t plane) const { return planes_v_[plane].free.size(); }
  bool gc_needed(std::uint32_t plane) const;
  bool writes_blocked(std::uint32_t plane) const;  // the host stream cannot allocate
  // The full block of the plane with the fewest valid pages and no pending reads
  // (ties: fewer erases, then lower index); kUnmapped if none. Marks it the victim.
  std::uint32_t pick_victim(std::uint32_t plane);
  std::uint32_t valid_pages(std::uint32_t block_global) const { return blocks_[block_global].valid; }
  // Valid pages of a victim block, as ppas.
  void valid_ppas(std::uint32_t block_global, std::vector<std::uint32_t>& out) const;
  // The victim's erase completed: it joins the free pool.
  void erased(std::uint32_t block_global);
  std::uint32_t erase_count(std::uint32_t block_global) const { return blocks_[block_global].erases; }
  void add_pending_read(std::uint32_t ppa) { ++blocks_[block_of_ppa(ppa)].pending_reads; }
  void remove_pending_read(std::uint32_t ppa) { --blocks_[block_of_ppa(ppa)].pending_reads; }
  std::uint32_t pending_reads(std::uint32_t block_global) const { return blocks_[block_global].pending_reads; }

  // ---- preconditioning (zero simulated time; the NAND's page state is set through
  // the backdoor; statistics counters start at zero afterwards) ----
  // Replays: writes logical pages [0, fill) in order with token_of(lpn), then
  // `age_writes` random overwrites of them (seeded), running GC instantly. Exact but
  // costs ~70 ns per page operation: the reference the steady state is checked against.
  template <typename TokenOf>
  void precondition(std::uint64_t fill, std::uint64_t age_writes, std::uint64_t seed,
                    FlashBackdoor& nand, TokenOf token_of);
  // Constructs, in one pass over the physical pages (planes in parallel on the
  // machine's cores; the backdoor must allow that for distinct blocks), the steady state that uniform
  // random overwrites of [0, fill) reach under greedy GC: in every plane all blocks but
  // the GC low mark are full; a block's valid pages decay exponentially with its age
  // (each page of a plane is overwritten at random), the valid pages at random places;
  // logical pages are shuffled over them. Erase counts: `drive_writes` times the plane's
  // logical pages, times the write amplification of that state, spread over its blocks.
  template <typename TokenOf>
  void precondition_steady(std::uint64_t fill, double drive_writes, std::uint64_t seed,
                           FlashBackdoor& nand, TokenOf token_of);

  // ---- statistics ----
  std::uint64_t host_pages_written() const { return host_pages_; }
  std::uint64_t gc_pages_copied() const { return gc_pages_; }
  std::uint64_t gc_erases() const { return gc_erases_; }
  void count_host_page() { ++host_pages_; }
  void count_gc_copy() { ++gc_pages_; }
  double write_amplification() const {
    return host_pages_ ? static_cast<double>(host_pages_ + gc_pages_) / static_cast<double>(host_pages_) : 0.0;
  }
  // Erase counts over all blocks: min, max, mean.
  void erase_stats(std::uint32_t& min, std::uint32_t& max, double& mean) const;
  // Bytes of the mapping and block tables (memory per physical page, for the docs).
  std::uint64_t table_bytes() const;

 private:
  enum class BlockState : std::uint8_t { Free, Open, Full, Victim };
  // A plane's free blocks as a min-heap on (erase count, block index): the block to open
  // is the least-erased, the lowest index among equals, in O(log n). (The erase count of
  // a free block does not change while it is free.)
  class FreeBlocks {
   public:
    std::size_t size() const { return heap_.size(); }
    bool empty() const { return heap_.empty(); }
    void clear() { heap_.clear(); }
    void reserve(std::size_t n) { heap_.reserve(n); }
    void push(std::uint32_t erases, std::uint32_t block) {
      heap_.push_back(std::uint64_t{erases} << 32 | block);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    }
    std::uint32_t pop() {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      const auto b = static_cast<std::uint32_t>(heap_.back());
      heap_.pop_back();
      return b;
    }

   private:
    std::vector<std::uint64_t> heap_;
  };
  struct Block {
    std::uint16_t write_ptr = 0;
    std::uint16_t valid = 0;
    std::uint16_t pending_reads = 0;
    BlockState state = BlockState::Free;
    std::uint32_t erases = 0;
  };
  struct Plane {
    FreeBlocks free;  // the plane's free blocks
    std::uint32_t open[2] = {kUnmapped, kUnmapped};  // host stream, GC stream
  };
  std::uint32_t take_free_block(std::uint32_t plane);
  void invalidate(std::uint32_t ppa);
  // Preconditioning: one instant write and instant GC.
  void instant_write(std::uint64_t lpn, Token t, FlashBackdoor& nand);
  void instant_gc(std::uint32_t plane, FlashBackdoor& nand);

  FtlConfig cfg_;
  std::uint32_t planes_;
  std::uint32_t pages_per_plane_;
  std::uint64_t logical_pages_;
  std::uint32_t gc_low_;     // free blocks below which GC runs
  std::uint32_t gc_reserve_; // free blocks only the GC stream may take
  unsigned order_[4];        // dimension per position, fastest first: 0 ch, 1 chip, 2 die, 3 plane
  // Both tables hold value + 1 (0 = unmapped), in lazily mapped zeroed memory: a table
  // costs time and memory only where it is written.
  using Table = BigArray<std::uint32_t>;
  void set_l2p(std::uint64_t lpn, std::uint32_t ppa) { l2p_[lpn] = ppa + 1; }
  void set_p2l(std::uint32_t ppa, std::uint64_t lpn) { p2l_[ppa] = static_cast<std::uint32_t>(lpn + 1); }
  Table l2p_;
  Table p2l_;  // lpn per physical page (lpn < 2^32 - 1)
  std::uint64_t physical_pages_;
  std::vector<Block> blocks_;
  std::vector<Plane> planes_v_;
  std::uint64_t host_pages_ = 0, gc_pages_ = 0, gc_erases_ = 0;
};

// ---- template implementation ----
template <typename TokenOf>
void Ftl::precondition_steady(std::uint64_t fill, double drive_writes, std::uint64_t seed,
                              FlashBackdoor& nand, TokenOf token_of) {
  const std::uint32_t B = cfg_.nand.blocks_per_plane, ppb = cfg_.nand.pages_per_block;
  std::vector<std::uint32_t> q_of_plane(planes_);
  for (std::uint32_t q = 0; q < planes_; ++q) q_of_plane[plane_of_lpn(q)] = q;
  if (fill / planes_ + 1 >= (std::uint64_t{1} << 32)) throw std::invalid_argument("precondition: too many pages per plane");
  // Planes are independent: each has its own random stream (seeded by the plane), so the
  // result does not depend on how the planes are spread over threads. Plane p holds the
  // logical pages r * planes + q (q = q_of_plane[p]); its pages are written in physical
  // order (P2L, tokens: sequential), and the L2P entry of its r-th logical page goes to
  // inv[r] first: the L2P itself is then written row by row for 16 consecutive q at a
  // time (a cache line per row) instead of at random over the whole table.
  auto do_plane = [&](std::uint32_t p, std::vector<std::uint32_t>& lpns, std::vector<std::uint32_t>& order,
                      std::vector<std::uint32_t>& valid, std::vector<Token>& page_tokens,
                      std::vector<std::uint32_t>& inv, std::vector<std::uint64_t>& mask) {
    std::uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (p + 1) * 0xD1B54A32D192ED03ull;
    auto rnd = [&x]() {  // xorshift64*
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      return x * 0x2545F4914F6CDD1Dull;
    };
    // A number in [0, n) without a division (multiply-shift range reduction).
    auto below = [&rnd](std::uint64_t n) {
      return static_cast<std::uint64_t>((static_cast<unsigned __int128>(rnd()) * n) >> 64);
    };
    const std::uint64_t q = q_of_plane[p];
    const std::uint64_t V = fill / planes_ + (q < fill % planes_ ? 1 : 0);
    lpns.resize(V);  // r of the logical page r * planes + q, in the order they are placed
    for (std::uint64_t r = 0; r < V; ++r) lpns[r] = static_cast<std::uint32_t>(r);
    for (std::uint64_t i = V; i > 1; --i) std::swap(lpns[i - 1], lpns[below(i)]);
    inv.resize(V);
    const std::uint32_t F = B - gc_low_;  // full blocks; gc_low_ stay free
    // Valid pages by age k (0 newest): ppb * exp(-a k / F), a solved so they add up to V.
    auto fill_for = [&](double a) {
      std::uint64_t sum = 0;
      const double r = std::exp(-a / F);  // ppb * exp(-a k / F) = ppb * r^k
      double f = ppb;
      for (std::uint32_t k = 0; k < F; ++k, f *= r) {
        valid[k] = static_cast<std::uint32_t>(f);
        sum += valid[k];
      }
      return sum;
    };
    double lo = 0, hi = 1;
    while (fill_for(hi) > V && hi < 1e6) hi *= 2;
    for (int it = 0; it < 60; ++it) {
      const double mid = (lo + hi) / 2;
      (fill_for(mid) > V ? lo : hi) = mid;
    }
    std::uint64_t sum = fill_for(hi);
    for (std::uint32_t k = 0; sum < V; k = (k + 1) % F)  // the rounding remainder, newest first
      if (valid[k] < ppb) {
        ++valid[k];
        ++sum;
      }
    // Erase history.
    const std::uint32_t victim_valid = valid[F - 1];
    const double wa = ppb > victim_valid ? static_cast<double>(ppb) / (ppb - victim_valid) : 1.0;
    const double erases = drive_writes * static_cast<double>(V) * wa / (static_cast<double>(B) * ppb);
    for (std::uint32_t i = 0; i < B; ++i) order[i] = i;
    for (std::uint32_t i = B; i > 1; --i) std::swap(order[i - 1], order[below(i)]);
    Plane& pl = planes_v_[p];
    pl.free.clear();
    pl.open[0] = pl.open[1] = kUnmapped;
    std::uint64_t next_lpn = 0;
    for (std::uint32_t k = 0; k < B; ++k) {
      const std::uint32_t b = order[k];
      const std::uint32_t g = p * B + b;
      Block& blk = blocks_[g];
      // Older blocks were erased a little less often than newer ones.
      const auto e = static_cast<std::uint32_t>(erases * (1.0 + 0.1 * (static_cast<double>(F - std::min(k, F)) / F)) + 0.5);
      PhysAddr a = decode(g * ppb);
      for (std::uint32_t n = 0; n < e; ++n) nand.erase(a);
      blk = Block{};
      blk.erases = e;
      if (k >= F) {  // free
        pl.free.push(e, b);
        continue;
      }
      // Which `valid[k]` of the ppb pages are valid: a uniform random subset (Floyd's
      // algorithm, drawing the smaller of the valid and the invalid sets).
      const std::uint32_t need = valid[k];
      const bool draw_valid = need <= ppb - need;
      std::fill(mask.begin(), mask.end(), 0);
      for (std::uint32_t j = ppb - (draw_valid ? need : ppb - need); j < ppb; ++j) {
        std::uint32_t t = static_cast<std::uint32_t>(below(j + 1));
        if (mask[t >> 6] >> (t & 63) & 1u) t = j;
        mask[t >> 6] |= std::uint64_t{1} << (t & 63);
      }
      for (std::uint32_t pg = 0; pg < ppb; ++pg) {
        const std::uint32_t ppa = g * ppb + pg;
        if ((mask[pg >> 6] >> (pg & 63) & 1u) == draw_valid) {
          const std::uint32_t r = lpns[next_lpn++];
          const std::uint64_t lpn = std::uint64_t{r} * planes_ + q;
          page_tokens[pg] = token_of(lpn);
          inv[r] = ppa + 1;  // the L2P entry (value + 1), written below
          set_p2l(ppa, lpn);
          ++blk.valid;
        } else {
          page_tokens[pg] = kStaleToken;  // an overwritten version, never read
        }
      }
      nand.program_block(a, page_tokens.data(), ppb);
      blk.write_ptr = static_cast<std::uint16_t>(ppb);
      blk.state = BlockState::Full;
    }
  };
  constexpr std::uint32_t kGroup = 16;  // L2P entries per 64-byte line
  const std::uint32_t groups = (planes_ + kGroup - 1) / kGroup;
  auto worker = [&](std::uint32_t first, std::uint32_t step) {
    std::vector<std::uint32_t> lpns;
    std::vector<std::uint32_t> order(B), valid(B);
    std::vector<std::uint64_t> mask((ppb + 63) / 64);
    std::vector<Token> page_tokens(ppb);
    std::vector<std::vector<std::uint32_t>> inv(kGroup);
    for (std::uint32_t g = first; g < groups; g += step) {
      const std::uint32_t q0 = g * kGroup, n = std::min(kGroup, planes_ - q0);
      for (std::uint32_t i = 0; i < n; ++i) do_plane(plane_of_lpn(q0 + i), lpns, order, valid, page_tokens, inv[i], mask);
      // Planes of lower q have one logical page more, or as many: rows below `full`
      // have all n entries.
      const std::uint32_t* col[kGroup];
      for (std::uint32_t i = 0; i < n; ++i) col[i] = inv[i].data();
      const std::size_t full = inv[n - 1].size(), rows = inv[0].size();
      std::uint32_t* const l2p = l2p_.data();
      for (std::size_t r = 0; r < full; ++r) {
        std::uint32_t* row = l2p + r * planes_ + q0;
        for (std::uint32_t i = 0; i < n; ++i) row[i] = col[i][r];
      }
      for (std::size_t r = full; r < rows; ++r)
        for (std::uint32_t i = 0; i < n; ++i)
          if (r < inv[i].size()) l2p[r * planes_ + q0 + i] = col[i][r];
    }
  };
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t, threads);
  worker(0, threads);
  for (std::thread& t : pool) t.join();
  host_pages_ = gc_pages_ = gc_erases_ = 0;
}

template <typename TokenOf>
void Ftl::precondition(std::uint64_t fill, std::uint64_t age_writes, std::uint64_t seed,
                       FlashBackdoor& nand, TokenOf token_of) {
  for (std::uint64_t lpn = 0; lpn < fill; ++lpn) instant_write(lpn, token_of(lpn), nand);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::uint64_t i = 0; i < age_writes && fill > 0; ++i) {
    x ^= x << 13;  // xorshift64
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t lpn = x % fill;
    instant_write(lpn, token_of(lpn), nand);
  }
  // Counters describe the run, not its preparation.
  host_pages_ = gc_pages_ = gc_erases_ = 0;
}

}  // namespace ssd::ctrl
