// The FTL's data structures and decisions, plain C++ (no SystemC): page-level
// mapping (logical -> physical and back), static allocation by logical page in
// any channel/chip/die/plane order, per-plane open blocks, free-block pools with
// dynamic wear leveling (least-erased free block first), the state GC's victim choice
// reads (controller/victim.h), and preconditioning in zero simulated time. The firmware-core module drives it.
//
// A physical page address (ppa) is one 32-bit index:
//   ((plane_id * blocks_per_plane) + block) * pages_per_block + page,
//   plane_id = ((channel * chips + chip) * dies + die) * planes + plane.
// With mapping units smaller than a page (FtlConfig::mapping_unit_bytes: U units a page),
// the FTL's pages are those units: config().nand describes the NAND as the FTL sees it
// (pages of a unit, U times as many a block), part() the NAND itself, and unit u of the
// NAND's page g of a block is the FTL's page g * U + u of it (decode: PhysAddr::unit).
// With static allocation a logical page is written to one plane; GC moves data inside
// its die (ftl.gc_destination = die) or its plane (plane), so its chip never changes (the
// PIQ paper relies on that).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "controller/steady_image.h"
#include "controller/write_allocator.h"
#include "nand/nand_config.h"
#include "nand/page_image.h"
#include "common/big_array.h"
#include "tlm/flash_command.h"
#include "common/lpn_map.h"
#include "common/page_table.h"
#include "common/pages_by_block.h"

namespace ssd::ctrl {

constexpr std::uint32_t kUnmapped = 0xFFFFFFFFu;

// The pages a checkpoint of the mapping takes: 4 bytes per logical page.
inline std::uint64_t checkpoint_pages(std::uint64_t logical_pages, std::uint32_t page_bytes) {
  return (logical_pages * 4 + page_bytes - 1) / page_bytes;
}
// Journal entries a page holds: 8 bytes each (the logical page and its new physical one).
inline std::uint32_t journal_entries_per_page(std::uint32_t page_bytes) { return page_bytes / 8; }

struct FtlConfig {
  nand::NandConfig nand;
  // The mapping unit (docs/controller.md, "Mapping units"): 0 = the page; else a divisor of
  // nand.page_bytes of whole 512-byte sectors. The FTL maps, allocates and collects units,
  // page_bytes / mapping_unit_bytes of them a page (NandConfig::units_per_page).
  std::uint32_t mapping_unit_bytes = 0;
  std::uint32_t units_per_page() const {
    return mapping_unit_bytes && mapping_unit_bytes < nand.page_bytes ? nand.page_bytes / mapping_unit_bytes : 1;
  }
  double overprovisioning = 0.07;  // fraction of physical pages hidden from the host
  std::string allocation = "CWDP";  // first letter varies fastest: channel, chip (Way), Die, Plane
  double gc_threshold = 0.05;       // GC a plane when its free blocks fall below this fraction
  // Per plane, its factory bad blocks (nand/fault_model.h), ascending, the same count in
  // every plane; empty: none. The FTL numbers the good blocks of a plane 0..good-1 and
  // sees only them (config().nand.blocks_per_plane is their count; decode() gives the
  // NAND's block), so the logical capacity comes from the good blocks, as a drive's
  // capacity comes from its NAND's guaranteed valid blocks.
  std::vector<std::vector<std::uint32_t>> factory_bad;
  // The NAND's programs can fail (nand.fault.program_fail_*): the host may not take the
  // last two free blocks of a plane instead of one (a GC run whose open block is retired
  // mid-run needs another).
  bool failures = false;
  // The mapping's persistence (docs/controller.md, "The map log"): false (instant) = the
  // mapping is taken as persisted as it is updated, at no cost; true (journal) = the
  // firmware writes a journal of its updates and checkpoints of the whole table into the
  // map log's blocks (controller/map_log.h), `map_log_blocks` per plane reserved for it,
  // out of the spare (the logical capacity stays that of every good block).
  bool map_journal = false;
  std::uint32_t map_log_blocks = 4;
  // The SLC cache (docs/controller.md, "The SLC cache"; cells of n > 1 bits only): this
  // fraction of a plane's blocks, those after the ones the FTL numbers for data in cells
  // of n bits, is kept in SLC mode, each block holding 1/n of its pages. The host stream
  // writes there while its plane has room; the logical capacity stays that of every good
  // block (the region comes out of the spare, as the map log's).
  double slc_cache_fraction = 0;
  // A plane folds its full SLC blocks (GC's rules: in the background while host writes
  // have room) once more than this fraction of its SLC blocks hold data; 0: as soon as
  // one is full.
  double slc_fold_threshold = 0;
  // When a plane's SLC blocks are all full: false (direct) = host writes go to its blocks
  // of n-bit cells; true (wait) = they wait for a fold to free one.
  bool slc_wait = false;
  // A checkpoint starts once this many mapping updates were journaled since the last
  // one began, or this long after it began (0: never for that reason); and always when
  // the log runs short of room.
  std::uint64_t checkpoint_interval_updates = 0;
  double checkpoint_interval_us = 0;
  // The blocks per plane the FTL leaves to the map log.
  std::uint32_t reserved_blocks() const { return map_journal ? map_log_blocks : 0; }
  // The SLC cache's blocks per plane, of `blocks` good blocks per plane less the map log's.
  std::uint32_t slc_blocks(std::uint32_t blocks) const {
    return nand.bits_per_cell > 1 ? static_cast<std::uint32_t>(std::floor(slc_cache_fraction * blocks)) : 0;
  }
  // Problems naming the config keys; empty when valid.
  std::vector<std::string> validate() const;
  // Its keys: ftl.overprovisioning, ftl.allocation, ftl.gc_threshold and the NAND's (ftl.cpp).
  static const param::Table<FtlConfig>& keys();
};

struct PhysAddr {
  std::uint16_t channel, chip, die, plane;
  std::uint32_t block, page;  // the NAND's block and page
  std::uint32_t unit = 0;     // the data unit of the page (mapping units smaller than a page)
};

// What preconditioning writes and erases directly into the NAND's page state.
class FlashBackdoor {
 public:
  virtual ~FlashBackdoor() = default;
  virtual void program(const PhysAddr& a, Token t) = 0;
  virtual void erase(const PhysAddr& a) = 0;  // a.page ignored
  // Erases block a `times` times (an erase history in one call: preconditioning at any
  // age costs the same). This default erases one at a time.
  virtual void erase(const PhysAddr& a, std::uint32_t times) {
    for (std::uint32_t n = 0; n < times; ++n) erase(a);
  }
  virtual Token read(const PhysAddr& a) const = 0;
  // Block a (a.page ignored), erased, is in SLC mode (nand.bits_per_cell > 1), as if its
  // last erase had been one in that mode. This default cannot.
  virtual void set_slc(const PhysAddr&) {
    throw std::logic_error("FlashBackdoor: this backdoor cannot set a block's SLC mode");
  }
  // Blocks loaded later by load_image_block read their pages from `image`. Called once,
  // before any load_image_block, from one thread.
  virtual void attach_image(const nand::PageImage& image) { image_ = &image; }
  // The image numbers blocks as the FTL does, otherwise than the NAND (factory bad blocks,
  // the map log's blocks): load_image_block's first_ppa names the image's block. Called
  // before attach_image when so.
  virtual void image_renumbered() {}
  // Block a (a.page ignored) holds the image's pages [first_ppa, first_ppa + pages) and
  // was erased `erases` times. This default erases and programs it page by page; a NAND
  // that can read an image lazily stores nothing.
  virtual void load_image_block(const PhysAddr& a, std::uint32_t first_ppa, std::uint32_t pages,
                                std::uint32_t erases) {
    erase(a, erases);
    std::vector<Token> t(pages);
    for (std::uint32_t i = 0; i < pages; ++i) t[i] = image_->token(first_ppa + i);
    program_block(a, t.data(), pages);
  }
  // Programs pages [0, n) of a.block in order (a.page ignored): the FTL's pages, with
  // mapping units smaller than a page its units (this default programs one unit a page:
  // a backdoor of a NAND with several overrides it).
  virtual void program_block(const PhysAddr& a, const Token* tokens, std::uint32_t n) {
    PhysAddr b = a;
    for (std::uint32_t i = 0; i < n; ++i) {
      b.page = i;
      program(b, tokens[i]);
    }
  }

 protected:
  const nand::PageImage* image_ = nullptr;
};

class Ftl {
 public:
  explicit Ftl(const FtlConfig& cfg);

  // The configuration as the FTL sees it: with mapping units smaller than a page, its
  // NAND's pages are the units (the file's head).
  const FtlConfig& config() const { return cfg_; }
  // The NAND itself: its pages, and their data units (units_per_page).
  const nand::NandConfig& part() const { return part_; }
  std::uint32_t units_per_page() const { return part_.units_per_page; }
  // The FTL's pages a program writes: a wordline's (its n pages' units), or in SLC mode a
  // page's units.
  std::uint32_t wordline_pages() const { return cfg_.nand.bits_per_cell * part_.units_per_page; }
  std::uint64_t logical_pages() const { return logical_pages_; }
  std::uint32_t planes() const { return planes_; }
  // The map log's k-th block of `plane` (k < config().reserved_blocks()), its page `page`:
  // the NAND's address (the FTL's numbering does not reach these blocks).
  PhysAddr map_log_address(std::uint32_t plane, std::uint32_t k, std::uint32_t page) const;
  // The pages a map log block holds: with cells of n > 1 bits the log is written in SLC
  // mode (a page per program, no wordline to fill), so 1/n of the block.
  std::uint32_t map_log_pages_per_block() const { return part_.slc_pages_per_block(); }
  // The start state of the map log's blocks: erased, and with n > 1 in SLC mode (the
  // firmware formatted them so before time 0). Nothing without a map log or with n = 1.
  void format_map_log(FlashBackdoor& nand) const;

  // ---- mapping updates, as the map log journals them ----
  class Changes {
   public:
    virtual ~Changes() = default;
    // The mapping of a logical page changed: to page `ppa` (a host program, a GC copy),
    // or to none (kUnmapped: a trim).
    virtual void changed(std::uint32_t ppa) = 0;
  };
  void set_changes(Changes* c) { changes_ = c; }

  // ---- addresses ----
  PhysAddr decode(std::uint32_t ppa) const;
  // The FTL's page of a NAND address; kUnmapped for a block the FTL does not see (a
  // factory bad block, a map log's block).
  std::uint32_t encode(const PhysAddr& a) const;
  std::uint32_t plane_of_ppa(std::uint32_t ppa) const {
    return ppa < slc_first_ppa_ ? ppa / pages_per_plane_ : (ppa - slc_first_ppa_) / slc_pages_per_plane_;
  }
  std::uint32_t block_of_ppa(std::uint32_t ppa) const { return ppa / cfg_.nand.pages_per_block; }
  std::uint32_t plane_of_block(std::uint32_t g) const {
    return g < slc_first_block_ ? g / cfg_.nand.blocks_per_plane : (g - slc_first_block_) / slc_;
  }

  // ---- the SLC cache (FtlConfig::slc_cache_fraction) ----
  // The FTL numbers the region's blocks after every plane's blocks of n-bit cells: block
  // planes() * B + plane * S + k is the plane's k-th SLC block (B = config().nand.
  // blocks_per_plane, S = slc_blocks()), its pages [0, slc_pages_per_block()) in use. The
  // host stream of a plane writes there while the region has room in the plane
  // (slc_room); the GC stream never does. Without the cache S = 0 and nothing changes.
  std::uint32_t slc_blocks() const { return slc_; }
  std::uint32_t slc_pages_per_block() const { return cfg_.nand.slc_pages_per_block(); }
  bool slc_block(std::uint32_t g) const { return g >= slc_first_block_; }
  bool slc_page(std::uint32_t ppa) const { return ppa >= slc_first_ppa_; }
  // The pages a block holds when full: 1/n of them in an SLC block.
  std::uint32_t block_capacity(std::uint32_t g) const {
    return slc_block(g) ? slc_pages_per_block() : cfg_.nand.pages_per_block;
  }
  // Whether the plane's host stream writes its next page into the SLC cache.
  bool slc_room(std::uint32_t plane) const {
    const Plane& p = planes_v_[plane];
    return slc_ && !slc_bypass_ && (p.open[kSlcStream] != kUnmapped || !p.slc_free.empty());
  }
  std::uint32_t slc_free_blocks(std::uint32_t plane) const { return static_cast<std::uint32_t>(planes_v_[plane].slc_free.size()); }
  // The plane's first SLC block (its k-th is this + k), in the FTL's numbering.
  std::uint32_t first_slc_block(std::uint32_t plane) const { return slc_first_block_ + plane * slc_; }
  // Whether the plane's SLC blocks holding data are past ftl.slc_fold_threshold.
  bool fold_due(std::uint32_t plane) const {
    return slc_ && slc_ - slc_free_blocks(plane) > cfg_.slc_fold_threshold * slc_;
  }
  // The start state of the region: every block erased in SLC mode (the firmware formatted
  // them so before time 0). Nothing without the cache.
  void format_slc(FlashBackdoor& nand) const;
  // The plane a logical page is statically allocated to (ftl.allocation): where the
  // preconditioned device holds it.
  std::uint32_t plane_of_lpn(std::uint64_t lpn) const { return layout_.plane_of(lpn); }
  const StaticAllocator& static_allocation() const { return layout_; }
  // Global chip index (channel * chips_per_channel + chip) of a plane.
  std::uint32_t chip_of_plane(std::uint32_t plane) const;

  // ---- mapping ----
  // The page holding `lpn`, kUnmapped if none.
  std::uint32_t lookup(std::uint64_t lpn) const {
    const std::uint32_t v = l2p_.get(lpn);
    if (v == 0) return image_ ? image_->l2p(lpn) : kUnmapped;  // as preconditioned
    return v == kTrimmedEntry ? kUnmapped : v - 1;
  }
  // The logical page page `ppa` holds, kUnmapped (as a 64-bit value) if it is not valid.
  std::uint64_t owner(std::uint32_t ppa) const { return is_valid(ppa) ? written_owner(ppa) : kUnmapped; }
  // The logical page written into page `ppa` (what a real device keeps in the page's
  // spare area, and a GC copy reads with the data), valid or not since: owner() while it
  // was valid. Only for a page written since its block's last erase (or the image's).
  std::uint64_t written_owner(std::uint32_t ppa) const {
    return image_page(ppa) ? image_->p2l(ppa) : p2l_.get(block_of_ppa(ppa), ppa % cfg_.nand.pages_per_block) - 1;
  }
  // Where written_owner(ppa) reads for a page not the image's (its P2L entry).
  const void* written_owner_entry(std::uint32_t ppa) const {
    return p2l_.address(block_of_ppa(ppa), ppa % cfg_.nand.pages_per_block);
  }
  // Whether a page is still the image's (its owner comes from it: an owner that stays the
  // same until the block is erased, valid or not).
  bool image_page(std::uint32_t ppa) const {
    return ppa % cfg_.nand.pages_per_block < blocks_[block_of_ppa(ppa)].image_pages;
  }
  bool is_valid(std::uint32_t ppa) const {
    if (blocks_[block_of_ppa(ppa)].image_bits) return image_->valid(ppa);
    return valid_bits_[ppa >> 6] >> (ppa & 63) & 1u;
  }
  // Where lookup(lpn), map(lpn) and relocate(lpn) read the run's map first (any lpn;
  // null past the device). lookup() then reads the image: SteadyImage::l2p_reads.
  const void* map_entry(std::uint64_t lpn) const { return l2p_.entry_address(lpn); }
  // The memory invalidating page `ppa` reads, each address given to `line`: its valid
  // bit's word, its block's record, and the image's valid pages of the block (which the
  // first invalidation in an image block copies: take_image_bits).
  template <typename Line>
  void invalidation_reads(std::uint32_t ppa, Line&& line) const {
    const std::uint32_t g = block_of_ppa(ppa);
    line(static_cast<const void*>(&valid_bits_[ppa >> 6]));
    line(static_cast<const void*>(&blocks_[g]));
    if (image_) image_->mask_reads(g, line);
  }

  // Next free page for a write into `plane` (host or GC stream); kUnmapped when the
  // plane has no free block the stream may open (the host may not take the GC reserve).
  // The page is then being programmed until programmed(ppa) says its program ended.
  std::uint32_t allocate(std::uint32_t plane, bool gc_stream);
  // Next free page of a stream of die `die` (numbered as in allocate_multi), on the plane
  // the die-aligned frontier's rule picks (controller/die_frontier.h) among the die's
  // planes whose stream can allocate; kUnmapped when none can. GC's copies go there
  // (ftl.gc_destination = die).
  std::uint32_t allocate_in_die(std::uint32_t die, bool gc_stream);
  // Gives back `ppa`, the page allocate() gave the plane's stream last and has not taken
  // back (a program that will not be made: cancelled, or moved to another plane before it
  // had its page). The stream's next allocation gives it again, so its block keeps no
  // hole; a block the stream opened and has no page of left returns to the free pool.
  // Pages go back in the reverse order of their allocation, across up to kOpenedKept
  // blocks. Throws std::logic_error for any other page.
  void unallocate(std::uint32_t ppa, bool gc_stream);
  // The page offset allocate(plane, gc_stream) would give next (0 when the stream must
  // open a block).
  std::uint32_t next_offset(std::uint32_t plane, bool gc_stream) const {
    const std::uint32_t open = planes_v_[plane].open[stream_of(plane, gc_stream)];
    return open == kUnmapped ? 0 : blocks_[open].write_ptr;
  }
  // The stream's open block in cells of n bits (global index), kUnmapped if none.
  std::uint32_t open_block(std::uint32_t plane, bool gc_stream) const { return planes_v_[plane].open[gc_stream ? 1 : 0]; }
  // The host stream's open block in the SLC cache, kUnmapped if none.
  std::uint32_t open_slc_block(std::uint32_t plane) const { return planes_v_[plane].open[kSlcStream]; }
  // The next page of the plane's stream in cells of n bits (`gc_stream`: GC's, else the
  // host's, past the SLC cache): a filler page padding its wordline, a GC copy filling
  // the host's; kUnmapped as allocate().
  std::uint32_t allocate_tlc(std::uint32_t plane, bool gc_stream) {
    return allocate_in(plane, gc_stream ? kGcStream : kHostStream);
  }
  // The next page of the plane's host stream in the SLC cache (a filler page padding its
  // page's units); kUnmapped as allocate().
  std::uint32_t allocate_slc(std::uint32_t plane) { return allocate_in(plane, kSlcStream); }
  // The pages allocated in a block since its last erase (all of a full one).
  std::uint32_t written_pages(std::uint32_t block_global) const { return blocks_[block_global].write_ptr; }
  // A multi-plane allocation: the next page of the stream on each plane of `plane_mask`
  // (bit p: plane p) of die `die` (numbered (channel * chips_per_channel + chip) *
  // dies_per_chip + die), all at one page offset, as an n-plane command needs (nand/: one
  // page offset, a block per plane). True with out[p] the page of each plane p in the
  // mask; false, with nothing allocated, when a plane cannot allocate (allocate() would
  // give kUnmapped) or the planes' next pages are at different offsets (the caller then
  // allocates them one by one: a stream always allocated n-plane stays aligned).
  bool allocate_multi(std::uint32_t die, std::uint8_t plane_mask, bool gc_stream,
                      std::array<std::uint32_t, kMaxPlanes>& out);
  // The program of an allocated page ended, whatever became of its data (mapped by map()
  // or relocate(), or superseded and left invalid). Until every page of a full block has
  // ended its program the block is no GC candidate: a victim must hold no page whose
  // mapping is still to come (docs/controller.md, page and block states).
  void programmed(std::uint32_t ppa);
  // A host program of `lpn` to `ppa` completed and is the newest version of lpn:
  // the mapping moves to ppa, the old page (if any) becomes invalid.
  void map(std::uint64_t lpn, std::uint32_t ppa);
  // A GC copy of `lpn` from `from` to `ppa` completed: the mapping moves only if it
  // still points to `from` (no newer host write committed meanwhile); otherwise the
  // copy is stale and ppa stays invalid. Returns whether the mapping moved. `lpn` must
  // be written_owner(from), which is what lets a page still the image's skip the
  // image's lookup.
  bool relocate(std::uint64_t lpn, std::uint32_t ppa, std::uint32_t from);
  void trim(std::uint64_t lpn);

  // ---- blocks, GC, wear ----
  std::uint32_t free_blocks(std::uint32_t plane) const { return planes_v_[plane].free.size(); }
  bool gc_needed(std::uint32_t plane) const;
  bool writes_blocked(std::uint32_t plane) const;  // the host stream cannot allocate
  // Whether a block may be chosen as a GC victim: every page allocated, no program in
  // flight to it, no read in flight from it.
  bool gc_candidate(std::uint32_t block_global) const {
    const Block& b = blocks_[block_global];
    return b.state == BlockState::Full && b.programming == 0 && !pending_reads(block_global);
  }
  bool block_full(std::uint32_t block_global) const { return blocks_[block_global].state == BlockState::Full; }
  // GC chose `block_global` (a GC candidate: controller/victim.h) as its plane's victim:
  // it is collected, then erased (erased()).
  void make_victim(std::uint32_t block_global);
  // Programs in flight to a block (allocated pages whose program has not ended).
  std::uint32_t programs_in_flight(std::uint32_t block_global) const { return blocks_[block_global].programming; }
  std::uint32_t valid_pages(std::uint32_t block_global) const { return blocks_[block_global].valid; }
  // Valid pages of a victim block, as ppas.
  void valid_ppas(std::uint32_t block_global, std::vector<std::uint32_t>& out) const;
  // The victim's erase completed: it joins the free pool. Throws std::logic_error if the
  // block still holds a valid page, a program or a read in flight (data would be lost).
  void erased(std::uint32_t block_global);

  // ---- bad blocks (docs/controller.md, "Faults and recovery") ----
  // A program to the block failed: no page of it is allocated again (its stream opens
  // another), and GC collects it first once it is a candidate (retiring_victim); then
  // it is retired (retired()) instead of erased. Nothing if it is retiring already.
  void retire(std::uint32_t block_global);
  bool retiring(std::uint32_t block_global) const { return blocks_[block_global].retiring; }
  // A GC run ended without erasing its victim (it found no free page for a copy): the
  // block is a full block again.
  void release_victim(std::uint32_t block_global);
  // Whether a plane keeps the blocks its share of the logical space needs, its GC low
  // mark and an open block (docs/controller.md, "Read-only"): usable blocks (neither
  // bad nor retiring) >= ceil(logical pages / planes / pages per block) + low mark + 1.
  bool keeps_spare(std::uint32_t plane) const;
  std::uint32_t usable_blocks(std::uint32_t plane) const {
    const Plane& p = planes_v_[plane];
    return cfg_.nand.blocks_per_plane - p.retired - static_cast<std::uint32_t>(p.retiring.size());
  }
  std::uint32_t blocks_needed() const {
    const std::uint64_t per_plane = logical_pages_ / planes_, ppb = cfg_.nand.pages_per_block;
    return static_cast<std::uint32_t>((per_plane + ppb - 1) / ppb) + gc_low_ + 1;
  }
  // The plane's retiring block that is a GC candidate, kUnmapped if none.
  std::uint32_t retiring_victim(std::uint32_t plane) const;
  // A victim's valid pages all moved (retiring), or its erase failed: it leaves use for
  // good. Throws std::logic_error as erased() does.
  void retired(std::uint32_t block_global);
  std::uint32_t retired_blocks(std::uint32_t plane) const { return planes_v_[plane].retired; }
  std::uint64_t retired_blocks() const { return retired_total_; }
  std::uint64_t factory_bad_blocks() const {
    std::uint64_t n = 0;
    for (const auto& b : cfg_.factory_bad) n += b.size();
    return n;
  }
  bool bad(std::uint32_t block_global) const { return blocks_[block_global].state == BlockState::Retired; }
  std::uint32_t erase_count(std::uint32_t block_global) const { return blocks_[block_global].erases; }
  // Reads in flight per block (a block with some is not erased). Kept in a small map of
  // the blocks that have any, not in the block table: a read would otherwise touch a
  // random line of that table twice (6 MiB on the bench device), and a read in flight is
  // rare per block.
  void add_pending_read(std::uint32_t ppa) {
    const std::uint32_t b = block_of_ppa(ppa), n = pending_reads_.find(b);
    pending_reads_.set(b, n == LpnMap::kAbsent ? 1 : n + 1);
  }
  void remove_pending_read(std::uint32_t ppa) {
    const std::uint32_t b = block_of_ppa(ppa), n = pending_reads_.find(b);
    if (n == LpnMap::kAbsent) throw std::logic_error("FTL: a read completed in a block with none in flight");
    if (n == 1) pending_reads_.erase(b);
    else pending_reads_.set(b, n - 1);
  }
  // Whether a block of `plane` has a program (or a page allocated for one) or a read in
  // flight. A scan of the plane's blocks: for the rare moments GC finds nothing to do.
  bool work_in_flight(std::uint32_t plane) const {
    const std::uint32_t per_plane = cfg_.nand.blocks_per_plane;
    for (std::uint32_t b = plane * per_plane; b < (plane + 1) * per_plane; ++b)
      if (blocks_[b].programming || pending_reads(b)) return true;
    for (std::uint32_t b = first_slc_block(plane), e = b + slc_; slc_ && b < e; ++b)
      if (blocks_[b].programming || pending_reads(b)) return true;
    return false;
  }
  std::uint32_t pending_reads(std::uint32_t block_global) const {
    const std::uint32_t n = pending_reads_.find(block_global);
    return n == LpnMap::kAbsent ? 0 : n;
  }

  // ---- preconditioning (zero simulated time; the NAND's page state is set through
  // the backdoor; statistics counters start at zero afterwards) ----
  // Replays: writes logical pages [0, fill) in order with token_of(lpn), then
  // `age_writes` random overwrites of them (seeded), running GC instantly. Exact but
  // slow (work per page written): the reference the steady state is checked against.
  template <typename TokenOf>
  void precondition(std::uint64_t fill, std::uint64_t age_writes, std::uint64_t seed,
                    FlashBackdoor& nand, TokenOf token_of);
  // Constructs, in one pass over the blocks (planes in parallel on the machine's cores;
  // the backdoor must allow that for distinct blocks), the state of a device whose
  // logical pages [0, fill) were written (controller/steady_image.h):
  //  - drive_writes = 0: written once, in order, through the allocation: what
  //    precondition(fill, 0, ...) replays page by page;
  //  - drive_writes > 0: the steady state that uniform random overwrites of them reach
  //    under greedy GC: per plane the GC low mark free, both streams' open blocks at
  //    uniformly drawn write points (every plane at its own point of the GC cycle), the
  //    other blocks full, their valid pages decaying exponentially with age, at random
  //    places; logical pages shuffled over them. Erase counts: `drive_writes` times the
  //    plane's logical pages, times the write amplification of that state, spread over
  //    its blocks.
  // The state is kept as an image: the mapping tables and the NAND's pages hold only
  // what the run changes.
  // `free_blocks` (aged only): the free blocks each plane starts with, from the last
  // reserve + 1 (2: where a long run that GC cannot keep up with in the background
  // holds it) to the GC low mark (0 = the low mark: where GC that keeps up holds it).
  void precondition_image(std::uint64_t fill, double drive_writes, std::uint64_t seed,
                          FlashBackdoor& nand, SteadyImage::TokenOf token_of, std::uint32_t free_blocks = 0);
  // The same with a mean of free blocks per plane (controller/start_state.h): each plane
  // gets the integer below or above `mean_free` (the one above with the probability of
  // its fraction, drawn from the plane's stream), so the planes start at their own
  // points of the GC cycle.
  void precondition_image_mean(std::uint64_t fill, double drive_writes, std::uint64_t seed, FlashBackdoor& nand,
                               SteadyImage::TokenOf token_of, double mean_free);
  // The free blocks each plane started with (aged preconditioning; empty otherwise).
  const std::vector<std::uint32_t>& start_free_blocks() const { return start_free_; }
  std::uint32_t gc_low_mark() const { return gc_low_; }
  std::uint32_t gc_reserve() const { return gc_reserve_; }  // free blocks only the GC stream may take
  // The image of the steady-state preconditioning, null without one.
  const SteadyImage* image() const { return image_.get(); }
  SteadyImage* image() { return image_.get(); }
  // Whether the logical-to-physical map has moved from its hash map to its array.
  bool l2p_dense() const { return l2p_.dense(); }

  // ---- statistics ----
  std::uint64_t host_pages_written() const { return host_pages_; }
  std::uint64_t gc_pages_copied() const { return gc_pages_; }
  std::uint64_t gc_erases() const { return gc_erases_; }
  std::uint64_t blocks_opened() const { return blocks_opened_; }  // taken from the free pools, both streams
  // The SLC cache's: host pages written there, pages folded out of it, its blocks erased.
  std::uint64_t slc_host_pages() const { return slc_host_pages_; }
  std::uint64_t fold_pages() const { return fold_pages_; }
  std::uint64_t slc_erases() const { return slc_erases_; }
  // Zeroes the statistics counters (after preconditioning: they describe the run).
  void clear_counters() {
    host_pages_ = gc_pages_ = gc_erases_ = blocks_opened_ = 0;
    slc_host_pages_ = fold_pages_ = slc_erases_ = 0;
  }
  // A host page programmed to `ppa` (the SLC cache's counted apart too).
  void count_host_page(std::uint32_t ppa) {
    ++host_pages_;
    if (slc_page(ppa)) ++slc_host_pages_;
  }
  // A GC copy from page `from` (a fold's, out of the SLC cache, counted apart).
  void count_gc_copy(std::uint32_t from) {
    if (slc_page(from)) ++fold_pages_;
    else ++gc_pages_;
  }
  double write_amplification() const {
    return host_pages_ ? static_cast<double>(host_pages_ + gc_pages_) / static_cast<double>(host_pages_) : 0.0;
  }
  // Erase counts over all blocks: min, max, mean.
  void erase_stats(std::uint32_t& min, std::uint32_t& max, double& mean) const;
  // Bytes of the mapping and block tables and the image (as allocated; the arrays are
  // mapped by the operating system only where written).
  std::uint64_t table_bytes() const;

 private:
  enum class BlockState : std::uint8_t { Free, Open, Full, Victim, Retired };
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
    std::uint16_t write_ptr = 0;    // pages allocated
    std::uint16_t valid = 0;
    std::uint16_t programming = 0;  // allocated pages whose program has not ended
    // Its pages below this hold the preconditioning image's data (owners from the image).
    std::uint16_t image_pages = 0;
    std::uint32_t erases = 0;
    BlockState state = BlockState::Free;
    // Its valid pages are still the image's, all of them: valid_bits_ are not written for
    // it until a page of it is first invalidated or programmed (take_image_bits).
    bool image_bits = false;
    bool retiring = false;  // a program to it failed: collected, then retired
  };
  // The write streams of a plane: the host's and GC's in cells of n bits, the host's in
  // the SLC cache.
  static constexpr unsigned kHostStream = 0, kGcStream = 1, kSlcStream = 2, kStreams = 3;
  struct Plane {
    FreeBlocks free;      // the plane's free blocks in cells of n bits
    FreeBlocks slc_free;  // its free SLC blocks (indices in the region's plane)
    std::uint32_t open[kStreams] = {kUnmapped, kUnmapped, kUnmapped};
    // Per stream, the blocks it opened, the last few (kOpenedKept), newest last: where
    // unallocate() walks back to.
    std::vector<std::uint32_t> opened[kStreams];
    std::vector<std::uint32_t> retiring;  // its retiring blocks (few)
    std::uint32_t retired = 0;            // grown bad blocks retired
  };
  std::uint64_t retired_total_ = 0;
  // Factory bad blocks (FtlConfig::factory_bad): per plane, the NAND block of each FTL
  // block, and the FTL block of each NAND block (kUnmapped: bad). Empty without any.
  std::vector<std::uint32_t> nand_block_, ftl_block_;
  std::uint32_t nand_blocks_per_plane_ = 0;
  // The map log's blocks (FtlConfig::reserved_blocks): per plane, the NAND's block of each.
  std::vector<std::uint32_t> map_log_block_;
  Changes* changes_ = nullptr;
  // The SLC cache: blocks per plane, the first of its blocks and pages in the FTL's
  // numbering, its pages per plane, the NAND's block of each (per plane), and whether
  // allocations bypass it (preconditioning writes the data where the host stream's
  // blocks of n-bit cells would hold it).
  std::uint32_t slc_ = 0;
  std::uint32_t slc_first_block_ = ~0u, slc_first_ppa_ = ~0u, slc_pages_per_plane_ = 1;
  std::vector<std::uint32_t> slc_nand_block_;
  bool slc_bypass_ = false;
  std::uint64_t slc_host_pages_ = 0, fold_pages_ = 0, slc_erases_ = 0;
  // The stream a plane's allocation for `gc_stream` takes now.
  unsigned stream_of(std::uint32_t plane, bool gc_stream) const {
    if (gc_stream) return kGcStream;
    return slc_room(plane) || (slc_ && cfg_.slc_wait && !slc_bypass_) ? kSlcStream : kHostStream;
  }
  std::uint32_t allocate_in(std::uint32_t plane, unsigned stream);
  // Whether `stream` of the plane can allocate (its open block, or a free block it may open).
  bool can_allocate(std::uint32_t plane, unsigned stream) const;
  FreeBlocks& pool(std::uint32_t g) { return slc_block(g) ? planes_v_[plane_of_block(g)].slc_free : planes_v_[plane_of_block(g)].free; }
  // A block's index in its pool (its plane's blocks of one kind), and back.
  std::uint32_t pool_index(std::uint32_t g) const {
    return slc_block(g) ? (g - slc_first_block_) % slc_ : g % cfg_.nand.blocks_per_plane;
  }
  std::uint32_t take_free_block(std::uint32_t plane, bool slc = false);
  // Whether the stream may open a free block of the plane (the host stream may not take
  // the GC reserve).
  bool may_open_block(const Plane& p, bool gc_stream) const;
  static constexpr std::size_t kOpenedKept = 8;
  void invalidate(std::uint32_t ppa);
  // Copies an image block's valid pages from the image into valid_bits_.
  void take_image_bits(std::uint32_t block_global);
  // map(lpn, ppa) where lookup(lpn) is known to be `old`.
  void map_from(std::uint64_t lpn, std::uint32_t ppa, std::uint32_t old);
  // Preconditioning: one instant write and instant GC.
  void instant_write(std::uint64_t lpn, Token t, FlashBackdoor& nand);
  void instant_gc(std::uint32_t plane, FlashBackdoor& nand);

  FtlConfig cfg_;
  nand::NandConfig part_;  // the NAND's own geometry (part())
  std::uint32_t planes_;
  std::uint32_t pages_per_plane_;
  std::uint64_t logical_pages_;
  std::vector<std::uint32_t> start_free_;  // per plane, at time 0 (aged)
  void precondition_planes(std::uint64_t fill, double drive_writes, std::uint64_t seed, FlashBackdoor& nand,
                           SteadyImage::TokenOf token_of, double mean_free);
  std::uint32_t gc_low_;     // free blocks below which GC runs
  std::uint32_t gc_reserve_; // free blocks only the GC stream may take
  StaticAllocator layout_;  // ftl.allocation
  // The logical-to-physical map holds only the entries the run (or a replayed
  // preconditioning) changed, as ppa + 1; 0 (no entry) = as in the image (unmapped
  // without one), kTrimmedEntry = unmapped, in a SparsePageTable (common/page_table.h: a
  // hash map, past 1/32 of the logical pages an array in huge pages). The other tables
  // are lazily mapped zeroed memory too: they cost time and memory only where written.
  static constexpr std::uint32_t kTrimmedEntry = 0xFFFFFFFFu;
  void set_p2l(std::uint32_t ppa, std::uint64_t lpn) {
    p2l_.at(block_of_ppa(ppa), ppa % cfg_.nand.pages_per_block) = static_cast<std::uint32_t>(lpn + 1);
  }
  void set_valid(std::uint32_t ppa) { valid_bits_[ppa >> 6] |= std::uint64_t{1} << (ppa & 63); }
  void clear_valid(std::uint32_t ppa) { valid_bits_[ppa >> 6] &= ~(std::uint64_t{1} << (ppa & 63)); }
  SparsePageTable l2p_;
  PagesByBlock<std::uint32_t> p2l_;  // lpn + 1 per physical page of blocks written since preconditioning
  BigArray<std::uint64_t> valid_bits_;  // a bit per physical page: holds the newest version
  std::unique_ptr<SteadyImage> image_;
  std::uint64_t physical_pages_;
  std::vector<Block> blocks_;
  LpnMap pending_reads_{8};  // block -> reads in flight, for blocks with any
  std::vector<Plane> planes_v_;
  std::uint64_t host_pages_ = 0, gc_pages_ = 0, gc_erases_ = 0, blocks_opened_ = 0;
};

// ---- template implementation ----
template <typename TokenOf>
void Ftl::precondition(std::uint64_t fill, std::uint64_t age_writes, std::uint64_t seed,
                       FlashBackdoor& nand, TokenOf token_of) {
  slc_bypass_ = true;  // the data where the host stream's blocks of n-bit cells hold it
  for (std::uint64_t lpn = 0; lpn < fill; ++lpn) instant_write(lpn, token_of(lpn), nand);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::uint64_t i = 0; i < age_writes && fill > 0; ++i) {
    x ^= x << 13;  // xorshift64
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t lpn = x % fill;
    instant_write(lpn, token_of(lpn), nand);
  }
  slc_bypass_ = false;
  clear_counters();  // they describe the run, not its preparation
}

}  // namespace ssd::ctrl
