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

#include <cstdint>
#include <string>
#include <vector>

#include "nand/nand_config.h"
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
  std::uint32_t lookup(std::uint64_t lpn) const { return l2p_[lpn]; }
  std::uint64_t owner(std::uint32_t ppa) const { return p2l_[ppa]; }  // kUnmapped: invalid page

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

  // ---- preconditioning (zero simulated time) ----
  // Writes logical pages [0, fill) with token_of(lpn), then overwrites `age_writes`
  // random pages of that range (seeded), running GC instantly, so the run starts with
  // a realistic valid-page distribution and erase history. The NAND's page state is
  // set through the backdoor.
  template <typename TokenOf>
  void precondition(std::uint64_t fill, std::uint64_t age_writes, std::uint64_t seed,
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
  struct Block {
    std::uint16_t write_ptr = 0;
    std::uint16_t valid = 0;
    std::uint16_t pending_reads = 0;
    BlockState state = BlockState::Free;
    std::uint32_t erases = 0;
  };
  struct Plane {
    std::vector<std::uint32_t> free;  // block indices within the plane
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
  std::vector<std::uint32_t> l2p_;
  std::vector<std::uint32_t> p2l_;  // lpn per physical page (lpn < 2^32 - 1)
  std::vector<Block> blocks_;
  std::vector<Plane> planes_v_;
  std::uint64_t host_pages_ = 0, gc_pages_ = 0, gc_erases_ = 0;
};

// ---- template implementation ----
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
