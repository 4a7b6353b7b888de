#include "controller/ftl.h"

#include "common/splitmix.h"
#include "controller/die_frontier.h"
#include "controller/victim.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <sstream>
#include <stdexcept>

namespace ssd::ctrl {

std::vector<std::string> FtlConfig::validate() const {
  std::vector<std::string> errs = nand.validate();
  unsigned order[4];
  if (!StaticAllocator::parse_order(allocation, order))
    errs.push_back(param::key(&FtlConfig::allocation) + " = '" + allocation +
                   "': expected the four letters C (channel), W (chip), D (die), P (plane) in "
                   "any order, fastest-varying first, e.g. CWDP");
  for (std::string& e : param::check(*this))  // the ranges of its own keys (the NAND's checked above)
    if (std::find(errs.begin(), errs.end(), e) == errs.end()) errs.push_back(std::move(e));
  if (mapping_unit_bytes != 0 &&
      (mapping_unit_bytes % 512 != 0 || nand.page_bytes % mapping_unit_bytes != 0 ||
       nand.page_bytes / mapping_unit_bytes > kMaxUnitsPerPage)) {
    std::ostringstream os;
    os << param::key(&FtlConfig::mapping_unit_bytes) << " = " << mapping_unit_bytes << ": a mapping unit is a whole number of 512-byte sectors that divides the page ("
       << param::key(&nand::NandConfig::page_bytes) << " = " << nand.page_bytes << "), at most " << kMaxUnitsPerPage
       << " to a page; 0: the page";
    errs.push_back(os.str());
  }
  if (errs.empty()) {
    const std::uint64_t units = nand.total_pages() * units_per_page();  // the FTL's pages
    if (units >= 0xFFFFFFFFull)
      errs.push_back("the FTL addresses at most 2^32 - 1 physical pages; this geometry has " + std::to_string(units) +
                     (units_per_page() > 1 ? " mapping units (" + param::key(&FtlConfig::mapping_unit_bytes) + ")"
                                           : std::string()));
    const std::uint32_t low = std::max<std::uint32_t>(
        2, static_cast<std::uint32_t>(std::ceil(gc_threshold * nand.blocks_per_plane)));
    const std::uint32_t slc = slc_blocks(nand.blocks_per_plane - std::min(nand.blocks_per_plane, reserved_blocks()));
    const double usable = 1.0 - static_cast<double>(low + 2 + reserved_blocks() + slc) / nand.blocks_per_plane;
    if (1.0 - overprovisioning > usable) {
      std::ostringstream os;
      os << param::key(&FtlConfig::overprovisioning) << " = " << overprovisioning << " leaves no room for GC: with "
         << nand.blocks_per_plane << " blocks per plane";
      if (reserved_blocks()) os << " (" << param::key(&FtlConfig::map_log_blocks) << " = " << map_log_blocks << " of them the map log's)";
      if (slc) os << " (" << slc << " of them the SLC cache's: " << param::key(&FtlConfig::slc_cache_fraction) << " = " << slc_cache_fraction << ")";
      os << " and " << param::key(&FtlConfig::gc_threshold) << " = " << gc_threshold << " it must be at least "
         << 1.0 - usable;
      errs.push_back(os.str());
    }
    if (slc_cache_fraction > 0 && nand.bits_per_cell == 1)
      errs.push_back(param::key(&FtlConfig::slc_cache_fraction) + " = " + std::to_string(slc_cache_fraction) +
                     ": an SLC cache needs cells of more bits (" + param::key(&nand::NandConfig::bits_per_cell) + " > 1)");
    else if (slc_cache_fraction > 0 && slc < 2)
      errs.push_back(param::key(&FtlConfig::slc_cache_fraction) + " = " + std::to_string(slc_cache_fraction) + " gives " +
                     std::to_string(slc) + " SLC blocks per plane of " + std::to_string(nand.blocks_per_plane) +
                     ": the cache needs at least 2 (one open, one folded)");
    if (map_journal) {
      // The log holds the last complete checkpoint, the journal since it began and the
      // checkpoint under way, with a stripe being erased and one being written.
      // (4 bytes a logical page of the FTL's: a mapping unit.)
      const std::uint64_t logical =
          static_cast<std::uint64_t>(std::floor(nand.total_pages() * units_per_page() * (1.0 - overprovisioning)));
      // (A log block in SLC mode with n > 1: 1/n of its pages.)
      const std::uint64_t stripe = nand.total_pages() / nand.blocks_per_plane / nand.bits_per_cell;
      const std::uint64_t ckpt = checkpoint_pages(logical, nand.page_bytes);
      const std::uint64_t need = 3 + (2 * ckpt + stripe - 1) / stripe;
      if (map_log_blocks < need)
        errs.push_back(param::key(&FtlConfig::map_log_blocks) + " = " + std::to_string(map_log_blocks) +
                       ": the map log needs at least " + std::to_string(need) +
                       " blocks per plane (a checkpoint of the mapping is " + std::to_string(ckpt) +
                       " pages, a block in every plane " + std::to_string(stripe) + ")");
    }
  }
  return errs;
}

Ftl::Ftl(const FtlConfig& cfg) : cfg_(cfg), part_(cfg.nand) {
  std::vector<std::string> errs = cfg_.validate();
  if (!errs.empty()) throw std::invalid_argument(errs.front());
  part_.units_per_page = cfg_.units_per_page();
  const nand::NandConfig& n = cfg_.nand;
  planes_ = static_cast<std::uint32_t>(n.chips() * n.dies_per_chip * n.planes_per_die);
  const std::uint32_t reserved = cfg_.reserved_blocks();
  std::uint32_t slc = 0;
  if (!cfg_.factory_bad.empty() || reserved || cfg_.slc_blocks(n.blocks_per_plane - std::min(n.blocks_per_plane, reserved))) {
    // The FTL numbers a plane's good blocks 0..good-1 and sees that many blocks per plane;
    // decode() names the NAND's block.
    const std::uint32_t B = n.blocks_per_plane;
    if (!cfg_.factory_bad.empty() && cfg_.factory_bad.size() != planes_)
      throw std::invalid_argument("FTL: factory bad blocks given for another number of planes");
    const std::size_t bad = cfg_.factory_bad.empty() ? 0 : cfg_.factory_bad.front().size();
    for (const auto& b : cfg_.factory_bad)
      if (b.size() != bad) throw std::invalid_argument("FTL: factory bad blocks differ in count per plane");
    if (bad + reserved + 4 > B)
      throw std::invalid_argument("FTL: " + std::to_string(B - std::min<std::size_t>(B, bad + reserved)) +
                                  " good blocks per plane left to the FTL are too few");
    // A plane's last good blocks are the map log's, the ones before them the SLC cache's;
    // the FTL numbers the others 0..tlc-1 and the cache's after every plane's
    // (ftl_block_: tlc + k for its k-th).
    const auto good = static_cast<std::uint32_t>(B - bad), kept = good - reserved;
    slc = cfg_.slc_blocks(kept);
    const std::uint32_t tlc = kept - slc;
    if (tlc < 4) throw std::invalid_argument("FTL: " + std::to_string(tlc) + " blocks per plane left for data are too few");
    nand_block_.assign(std::size_t{planes_} * tlc, 0);
    ftl_block_.assign(std::size_t{planes_} * B, kUnmapped);
    map_log_block_.assign(std::size_t{planes_} * reserved, 0);
    slc_nand_block_.assign(std::size_t{planes_} * slc, 0);
    for (std::uint32_t p = 0; p < planes_; ++p) {
      std::uint32_t k = 0;
      std::size_t next_bad = 0;
      for (std::uint32_t b = 0; b < B; ++b) {
        if (next_bad < bad && cfg_.factory_bad[p][next_bad] == b) {
          ++next_bad;
          continue;
        }
        if (k >= kept) {
          map_log_block_[std::size_t{p} * reserved + (k++ - kept)] = b;
          continue;
        }
        if (k >= tlc) slc_nand_block_[std::size_t{p} * slc + (k - tlc)] = b;
        else nand_block_[std::size_t{p} * tlc + k] = b;
        ftl_block_[std::size_t{p} * B + b] = k++;
      }
    }
    nand_blocks_per_plane_ = B;
    cfg_.nand.blocks_per_plane = tlc;
  }
  // Mapping units smaller than a page: the FTL's pages are the units.
  cfg_.nand.pages_per_block *= part_.units_per_page;
  cfg_.nand.page_bytes /= part_.units_per_page;
  cfg_.nand.units_per_page = 1;
  pages_per_plane_ = n.blocks_per_plane * n.pages_per_block;
  // The SLC cache's blocks after every plane's others.
  slc_ = slc;
  const std::uint64_t tlc_pages = n.total_pages();
  if (slc_) {
    slc_first_block_ = planes_ * n.blocks_per_plane;
    slc_first_ppa_ = static_cast<std::uint32_t>(tlc_pages);
    slc_pages_per_plane_ = slc_ * n.pages_per_block;
  }
  const std::uint64_t physical = tlc_pages + std::uint64_t{slc_} * planes_ * n.pages_per_block;
  // The logical capacity is that of every good block: the map log's and the SLC cache's
  // (as blocks of n-bit cells) come out of the spare.
  const std::uint64_t with_log = physical + std::uint64_t{reserved} * planes_ * n.pages_per_block;
  std::uint64_t logical = static_cast<std::uint64_t>(std::floor(with_log * (1.0 - cfg_.overprovisioning)));
  logical_pages_ = logical / planes_ * planes_;  // every plane holds the same share
  gc_low_ = std::max<std::uint32_t>(2, static_cast<std::uint32_t>(std::ceil(cfg_.gc_threshold * n.blocks_per_plane)));
  gc_reserve_ = cfg_.failures ? 2 : 1;  // a GC run whose open block fails needs one more
  gc_low_ = std::max(gc_low_, gc_reserve_ + 1);
  l2p_ = SparsePageTable(logical_pages_, true);
  // A block's entries take memory once it is written (common/pages_by_block.h).
  p2l_ = PagesByBlock<std::uint32_t>(static_cast<std::size_t>(planes_) * (n.blocks_per_plane + slc_), n.pages_per_block);
  valid_bits_ = BigArray<std::uint64_t>((physical + 63) / 64, true);
  physical_pages_ = physical;
  blocks_.resize(static_cast<std::size_t>(planes_) * (n.blocks_per_plane + slc_));
  planes_v_.resize(planes_);
  layout_ = StaticAllocator(n, cfg_.allocation);
  for (std::uint32_t p = 0; p < planes_; ++p) {
    planes_v_[p].free.reserve(n.blocks_per_plane);
    for (std::uint32_t b = 0; b < n.blocks_per_plane; ++b) planes_v_[p].free.push(0, b);
    for (std::uint32_t k = 0; k < slc_; ++k) planes_v_[p].slc_free.push(0, k);
  }
}

PhysAddr Ftl::decode(std::uint32_t ppa) const {
  const nand::NandConfig& n = cfg_.nand;
  PhysAddr a{};
  a.page = ppa % n.pages_per_block;
  std::uint32_t r = ppa / n.pages_per_block;
  if (slc_page(ppa)) {  // the SLC cache's k-th block of its plane
    r -= slc_first_block_;
    a.block = slc_nand_block_[r];
    r /= slc_;
  } else {
    a.block = r % n.blocks_per_plane;
    if (!nand_block_.empty()) a.block = nand_block_[std::size_t{r / n.blocks_per_plane} * n.blocks_per_plane + a.block];
    r /= n.blocks_per_plane;
  }
  if (const std::uint32_t u = part_.units_per_page; u > 1) {  // the NAND's page and its unit
    a.unit = a.page % u;
    a.page /= u;
  }
  a.plane = static_cast<std::uint16_t>(r % n.planes_per_die);
  r /= n.planes_per_die;
  a.die = static_cast<std::uint16_t>(r % n.dies_per_chip);
  r /= n.dies_per_chip;
  a.chip = static_cast<std::uint16_t>(r % n.chips_per_channel);
  a.channel = static_cast<std::uint16_t>(r / n.chips_per_channel);
  return a;
}

PhysAddr Ftl::map_log_address(std::uint32_t plane, std::uint32_t k, std::uint32_t page) const {
  PhysAddr a = decode(plane * pages_per_plane_);
  a.block = map_log_block_.at(std::size_t{plane} * cfg_.reserved_blocks() + k);
  a.page = page;
  return a;
}

void Ftl::format_map_log(FlashBackdoor& nand) const {
  if (cfg_.nand.bits_per_cell == 1) return;
  for (std::uint32_t plane = 0; plane < planes_; ++plane)
    for (std::uint32_t k = 0; k < cfg_.reserved_blocks(); ++k) nand.set_slc(map_log_address(plane, k, 0));
}

std::uint32_t Ftl::encode(const PhysAddr& a) const {
  const nand::NandConfig& n = cfg_.nand;
  const std::uint32_t plane =
      ((std::uint32_t{a.channel} * n.chips_per_channel + a.chip) * n.dies_per_chip + a.die) *
          n.planes_per_die + a.plane;
  const std::uint32_t block =
      nand_block_.empty() ? a.block : ftl_block_[std::size_t{plane} * nand_blocks_per_plane_ + a.block];
  if (block == kUnmapped) return kUnmapped;
  const std::uint32_t page = a.page * part_.units_per_page + a.unit;  // the FTL's
  if (block >= n.blocks_per_plane)  // the SLC cache's
    return (first_slc_block(plane) + (block - n.blocks_per_plane)) * n.pages_per_block + page;
  return (plane * n.blocks_per_plane + block) * n.pages_per_block + page;
}

std::uint32_t Ftl::chip_of_plane(std::uint32_t plane) const {
  return plane / (cfg_.nand.planes_per_die * cfg_.nand.dies_per_chip);
}

std::uint32_t Ftl::take_free_block(std::uint32_t plane, bool slc) {
  const std::uint32_t base = slc ? first_slc_block(plane) : plane * cfg_.nand.blocks_per_plane;
  const std::uint32_t b = (slc ? planes_v_[plane].slc_free : planes_v_[plane].free).pop();  // least-erased, lowest index
  blocks_[base + b].state = BlockState::Open;
  ++blocks_opened_;
  return base + b;  // global block index
}

void Ftl::format_slc(FlashBackdoor& nand) const {
  for (std::uint32_t g = slc_first_block_; slc_ && g < slc_first_block_ + planes_ * slc_; ++g)
    nand.set_slc(decode(g * cfg_.nand.pages_per_block));
}

bool Ftl::gc_needed(std::uint32_t plane) const {
  const Plane& p = planes_v_[plane];
  return p.free.size() < gc_low_ || (!p.retiring.empty() && retiring_victim(plane) != kUnmapped);
}

bool Ftl::may_open_block(const Plane& p, bool gc_stream) const {
  return !p.free.empty() && (gc_stream || p.free.size() > gc_reserve_);
}

bool Ftl::writes_blocked(std::uint32_t plane) const { return !can_allocate(plane, stream_of(plane, false)); }

bool Ftl::can_allocate(std::uint32_t plane, unsigned stream) const {
  const Plane& p = planes_v_[plane];
  if (p.open[stream] != kUnmapped) return true;
  return stream == kSlcStream ? !p.slc_free.empty() : may_open_block(p, stream == kGcStream);
}

std::uint32_t Ftl::allocate(std::uint32_t plane, bool gc_stream) {
  return allocate_in(plane, stream_of(plane, gc_stream));
}

std::uint32_t Ftl::allocate_in(std::uint32_t plane, unsigned stream) {
  Plane& p = planes_v_[plane];
  std::uint32_t& open = p.open[stream];
  if (open == kUnmapped) {
    if (!can_allocate(plane, stream)) return kUnmapped;
    open = take_free_block(plane, stream == kSlcStream);
    std::vector<std::uint32_t>& h = p.opened[stream];
    if (h.size() == kOpenedKept) h.erase(h.begin());
    h.push_back(open);
  }
  Block& b = blocks_[open];
  const std::uint32_t ppa = open * cfg_.nand.pages_per_block + b.write_ptr;
  ++b.programming;
  if (++b.write_ptr == block_capacity(open)) {
    b.state = BlockState::Full;
    open = kUnmapped;
  }
  return ppa;
}

std::uint32_t Ftl::allocate_in_die(std::uint32_t die, bool gc_stream) {
  const std::uint32_t ppd = cfg_.nand.planes_per_die, first = die * ppd;
  if (ppd == 1) return allocate(first, gc_stream);
  std::uint32_t offset[kMaxPlanes];
  bool ok[kMaxPlanes];
  for (std::uint32_t p = 0; p < ppd; ++p) {
    ok[p] = can_allocate(first + p, stream_of(first + p, gc_stream));
    offset[p] = next_offset(first + p, gc_stream);
  }
  const std::uint32_t p = plane_behind(offset, ok, ppd, cfg_.nand.pages_per_block);
  return p == kNoPlane ? kUnmapped : allocate(first + p, gc_stream);
}

bool Ftl::allocate_multi(std::uint32_t die, std::uint8_t plane_mask, bool gc_stream,
                         std::array<std::uint32_t, kMaxPlanes>& out) {
  const std::uint32_t ppd = cfg_.nand.planes_per_die;
  if (plane_mask == 0 || (ppd < 8 && plane_mask >> ppd) || die >= planes() / ppd)
    throw std::invalid_argument("FTL: multi-plane allocation of planes " + std::to_string(plane_mask) + " of die " +
                                std::to_string(die) + " outside the geometry");
  // The offset each plane's next page would have; a plane that must open a block starts
  // at offset 0 if it may open one.
  // (One cell mode: the planes' streams all in the SLC cache or all not.)
  std::uint32_t offset = kUnmapped;
  unsigned mode = kStreams;
  for (std::uint32_t p = 0; p < ppd; ++p) {
    if (!(plane_mask >> p & 1u)) continue;
    const unsigned s = stream_of(die * ppd + p, gc_stream);
    const std::uint32_t next = next_offset(die * ppd + p, gc_stream);
    if (!can_allocate(die * ppd + p, s)) return false;
    if (offset != kUnmapped && (next != offset || s != mode)) return false;
    offset = next;
    mode = s;
  }
  for (std::uint32_t p = 0; p < ppd; ++p)
    if (plane_mask >> p & 1u) out[p] = allocate(die * ppd + p, gc_stream);
  return true;
}

void Ftl::unallocate(std::uint32_t ppa, bool gc_stream) {
  const std::uint32_t g = block_of_ppa(ppa), page = ppa % cfg_.nand.pages_per_block;
  const std::uint32_t plane = plane_of_ppa(ppa);
  Plane& p = planes_v_[plane];
  const unsigned stream = slc_block(g) ? kSlcStream : gc_stream ? kGcStream : kHostStream;
  std::uint32_t& open = p.open[stream];
  std::vector<std::uint32_t>& h = p.opened[stream];
  // The stream's newest block, emptied by earlier give-backs, goes back to the free pool
  // when the page given back now is the last of the block before it.
  if (h.size() >= 2 && h.back() != g && h[h.size() - 2] == g && blocks_[h.back()].write_ptr == 0 &&
      open == h.back()) {
    Block& e = blocks_[h.back()];
    e.state = BlockState::Free;
    pool(h.back()).push(e.erases, pool_index(h.back()));
    --blocks_opened_;
    h.pop_back();
    open = kUnmapped;
  }
  Block& b = blocks_[g];
  if (b.retiring) {  // closed when a program to it failed: its last page comes back, the block stays closed
    if (page + 1 != b.write_ptr || b.programming == 0)
      throw std::logic_error("FTL: page " + std::to_string(ppa) + " given back is not its block's last allocated");
    --b.write_ptr;
    --b.programming;
    return;
  }
  const bool last = !h.empty() && h.back() == g && (open == g || open == kUnmapped);
  if (!last || page + 1 != b.write_ptr || b.programming == 0)
    throw std::logic_error("FTL: page " + std::to_string(ppa) + " given back is not its stream's last allocated");
  --b.write_ptr;
  --b.programming;
  b.state = BlockState::Open;
  open = g;
}

void Ftl::programmed(std::uint32_t ppa) {
  Block& b = blocks_[block_of_ppa(ppa)];
  if (b.programming == 0 || ppa % cfg_.nand.pages_per_block >= b.write_ptr)
    throw std::logic_error("FTL: a program ended on page " + std::to_string(ppa) + " that had none in flight");
  --b.programming;
}

void Ftl::invalidate(std::uint32_t ppa) {
  const std::uint32_t g = block_of_ppa(ppa);
  if (blocks_[g].image_bits) take_image_bits(g);
  clear_valid(ppa);
  --blocks_[g].valid;
}

void Ftl::take_image_bits(std::uint32_t g) {
  blocks_[g].image_bits = false;
  const std::uint32_t ppb = cfg_.nand.pages_per_block, words = image_->mask_words();
  if (ppb % 64 == 0) {  // the block's bits are whole words of valid_bits_
    image_->valid_mask(g, &valid_bits_[std::size_t{g} * words]);
    return;
  }
  std::vector<std::uint64_t> m(words);
  image_->valid_mask(g, m.data());
  for (std::uint32_t pg = 0; pg < ppb; ++pg)
    if (m[pg >> 6] >> (pg & 63) & 1u) set_valid(g * ppb + pg);
}

void Ftl::map(std::uint64_t lpn, std::uint32_t ppa) { map_from(lpn, ppa, lookup(lpn)); }

void Ftl::map_from(std::uint64_t lpn, std::uint32_t ppa, std::uint32_t old) {
  if (old != kUnmapped) invalidate(old);
  const std::uint32_t g = block_of_ppa(ppa);
  if (blocks_[g].image_bits) take_image_bits(g);  // an open block of the image: its bits first
  l2p_.set(lpn, ppa + 1);
  set_p2l(ppa, lpn);
  set_valid(ppa);
  ++blocks_[block_of_ppa(ppa)].valid;
  if (changes_) changes_->changed(ppa);
}

bool Ftl::relocate(std::uint64_t lpn, std::uint32_t ppa, std::uint32_t from) {
  // lpn was the owner of `from` when the copy was read. If `from` is still the image's
  // and the run has not remapped lpn, lpn is still where the image put it, which is
  // `from` (the image's p2l(from) = lpn: its l2p(lpn) = from), with no lookup computed.
  const bool at_image_page = image_page(from) && l2p_.get(lpn) == 0;
  if (!at_image_page && lookup(lpn) != from) return false;  // a newer host write won: the copy is stale
  map_from(lpn, ppa, from);  // from is what lookup(lpn) gave
  return true;
}

void Ftl::trim(std::uint64_t lpn) {
  const std::uint32_t old = lookup(lpn);
  if (old == kUnmapped) return;
  invalidate(old);
  l2p_.set(lpn, kTrimmedEntry);
  if (changes_) changes_->changed(kUnmapped);
}

void Ftl::make_victim(std::uint32_t block_global) {
  if (!gc_candidate(block_global))
    throw std::logic_error("FTL: block " + std::to_string(block_global) + " made a GC victim while not a candidate");
  blocks_[block_global].state = BlockState::Victim;
}

void Ftl::valid_ppas(std::uint32_t block_global, std::vector<std::uint32_t>& out) const {
  const std::uint32_t first = block_global * cfg_.nand.pages_per_block;
  for (std::uint32_t i = 0, n = block_capacity(block_global); i < n; ++i)
    if (is_valid(first + i)) out.push_back(first + i);
}

void Ftl::erased(std::uint32_t block_global) {
  Block& b = blocks_[block_global];
  if (b.state != BlockState::Victim || b.valid || b.programming || pending_reads(block_global))
    throw std::logic_error("FTL: block " + std::to_string(block_global) + " erased with " + std::to_string(b.valid) +
                           " valid pages, " + std::to_string(b.programming) + " programs and " +
                           std::to_string(pending_reads(block_global)) + " reads in flight" +
                           (b.state != BlockState::Victim ? ", not a GC victim" : ""));
  b.state = BlockState::Free;
  b.write_ptr = 0;
  b.valid = 0;
  b.image_pages = 0;
  b.image_bits = false;
  ++b.erases;
  ++(slc_block(block_global) ? slc_erases_ : gc_erases_);
  pool(block_global).push(b.erases, pool_index(block_global));
}

void Ftl::retire(std::uint32_t g) {
  Block& b = blocks_[g];
  if (b.retiring || b.state == BlockState::Retired) return;
  if (b.state == BlockState::Free) throw std::logic_error("FTL: retiring free block " + std::to_string(g));
  b.retiring = true;
  Plane& p = planes_v_[plane_of_block(g)];
  for (std::uint32_t& open : p.open)
    if (open == g) open = kUnmapped;  // closed where it is: its stream opens another
  if (b.state == BlockState::Open) b.state = BlockState::Full;
  p.retiring.push_back(g);
}

// Collected only while the plane has two free blocks: its copies (up to a block) and one
// more failure fit; short of them, greedy GC frees space first.
std::uint32_t Ftl::retiring_victim(std::uint32_t plane) const {
  const Plane& p = planes_v_[plane];
  if (p.free.size() < 2) return kUnmapped;
  for (const std::uint32_t g : p.retiring)
    if (gc_candidate(g)) return g;
  return kUnmapped;
}

void Ftl::release_victim(std::uint32_t g) {
  if (blocks_[g].state != BlockState::Victim)
    throw std::logic_error("FTL: block " + std::to_string(g) + " released while not a GC victim");
  blocks_[g].state = BlockState::Full;
}

bool Ftl::keeps_spare(std::uint32_t plane) const { return usable_blocks(plane) >= blocks_needed(); }

void Ftl::retired(std::uint32_t g) {
  Block& b = blocks_[g];
  if (b.state != BlockState::Victim || b.valid || b.programming || pending_reads(g))
    throw std::logic_error("FTL: block " + std::to_string(g) + " retired with " + std::to_string(b.valid) +
                           " valid pages, " + std::to_string(b.programming) + " programs and " +
                           std::to_string(pending_reads(g)) + " reads in flight" +
                           (b.state != BlockState::Victim ? ", not a GC victim" : ""));
  Plane& p = planes_v_[plane_of_block(g)];
  if (b.retiring) p.retiring.erase(std::find(p.retiring.begin(), p.retiring.end(), g));
  b.retiring = false;
  b.state = BlockState::Retired;
  ++p.retired;
  ++retired_total_;
}

void Ftl::instant_gc(std::uint32_t plane, FlashBackdoor& nand) {
  const std::uint32_t victim = take_greedy_victim(*this, plane);
  if (victim == kUnmapped) throw std::logic_error("preconditioning: no GC victim");
  std::vector<std::uint32_t> valid;
  valid_ppas(victim, valid);
  for (std::uint32_t from : valid) {
    const std::uint32_t to = allocate(plane, true);
    if (to == kUnmapped) throw std::logic_error("preconditioning: GC found no free page");
    nand.program(decode(to), nand.read(decode(from)));
    programmed(to);
    map(owner(from), to);
  }
  nand.erase(decode(victim * cfg_.nand.pages_per_block));
  erased(victim);
}

void Ftl::instant_write(std::uint64_t lpn, Token t, FlashBackdoor& nand) {
  const std::uint32_t plane = plane_of_lpn(lpn);
  while (gc_needed(plane)) instant_gc(plane, nand);
  const std::uint32_t ppa = allocate(plane, false);
  if (ppa == kUnmapped) throw std::logic_error("preconditioning: no free page");
  nand.program(decode(ppa), t);
  programmed(ppa);
  map(lpn, ppa);
}

void Ftl::precondition_image(std::uint64_t fill, double drive_writes, std::uint64_t seed, FlashBackdoor& nand,
                             SteadyImage::TokenOf token_of, std::uint32_t free_blocks) {
  precondition_planes(fill, drive_writes, seed, nand, token_of, free_blocks ? free_blocks : gc_low_);
}

void Ftl::precondition_image_mean(std::uint64_t fill, double drive_writes, std::uint64_t seed, FlashBackdoor& nand,
                                  SteadyImage::TokenOf token_of, double mean_free) {
  precondition_planes(fill, drive_writes, seed, nand, token_of, mean_free);
}

void Ftl::precondition_planes(std::uint64_t fill, double drive_writes, std::uint64_t seed, FlashBackdoor& nand,
                              SteadyImage::TokenOf token_of, double mean_free) {
  const std::uint32_t B = cfg_.nand.blocks_per_plane, ppb = cfg_.nand.pages_per_block;
  if (fill > logical_pages_) throw std::invalid_argument("precondition: more pages than the logical space");
  if (fill / planes_ + 1 >= (std::uint64_t{1} << 32)) throw std::invalid_argument("precondition: too many pages per plane");
  if (!l2p_.empty() || image_) throw std::logic_error("precondition: the FTL has been written already");
  const bool aged = drive_writes > 0;
  std::vector<std::uint32_t> lane_of_plane(planes_);
  for (std::uint32_t q = 0; q < planes_; ++q) lane_of_plane[plane_of_lpn(q)] = q;
  // Aged: plane p has start_free_[p] free blocks (the integer below or above mean_free)
  // and both streams' blocks open; the rest are full. (FtlConfig::validate leaves room
  // for that.)
  if (!(mean_free >= gc_reserve_ + 1) || !(mean_free <= gc_low_))
    throw std::invalid_argument("precondition: free blocks must be from " + std::to_string(gc_reserve_ + 1) +
                                " (the last reserve + 1) to " + std::to_string(gc_low_) + " (the GC low mark)");
  const auto below_free = static_cast<std::uint32_t>(std::floor(mean_free));
  const double above_share = mean_free - below_free;
  start_free_.assign(planes_, below_free);
  if (above_share > 0) {
    // One stream for the planes in order, apart from the planes' own (the image's).
    std::uint64_t x = (seed + 7) * 0xA0761D6478BD642Full;
    for (std::uint32_t p = 0; p < planes_; ++p)
      if (splitmix64::unit(splitmix64::next(x)) < above_share) ++start_free_[p];
  }
  const std::uint32_t F = B - below_free - 2;  // the most full blocks a plane has
  if (!aged) start_free_.clear();
  image_ = std::make_unique<SteadyImage>(planes_, B, ppb, F, lane_of_plane, fill, token_of, aged);
  if (!nand_block_.empty()) nand.image_renumbered();
  nand.attach_image(*image_);
  // Planes are independent: each has its own random stream (seeded by the plane), so the
  // result does not depend on how the planes are spread over threads. Plane p holds the
  // logical pages r * planes + q (q = lane_of_plane[p]).
  auto do_plane = [&](std::uint32_t p) {
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
    const std::uint32_t V = image_->plane_pages(p);
    SteadyImage::Shape shape;
    if (aged) {
      // Where a long run of uniform random writes leaves a plane between two GC runs: the
      // open blocks' write points uniform (a plane is at a random point of filling each),
      // independent of the other planes'; all of the open blocks' pages valid (written
      // last: few were overwritten since).
      shape.full = B - start_free_[p] - 2;
      shape.host_open = shape.gc_open = true;
      shape.host_pages = static_cast<std::uint32_t>(std::min<std::uint64_t>(below(ppb), V));
      shape.gc_pages = static_cast<std::uint32_t>(std::min<std::uint64_t>(below(ppb), V - shape.host_pages));
      // A plane whose full blocks cannot hold the rest (its share takes all but the free
      // blocks and part of the open ones, as with a NAND that fails: two blocks of last
      // reserve) has its open blocks filled further, host stream first, each short of full.
      const std::uint64_t room = std::uint64_t{shape.full} * ppb;
      for (std::uint32_t* open : {&shape.host_pages, &shape.gc_pages})
        if (V > room + shape.host_pages + shape.gc_pages)
          *open = static_cast<std::uint32_t>(
              std::min<std::uint64_t>(ppb - 1, *open + (V - room - shape.host_pages - shape.gc_pages)));
    } else {
      // Written once in order through the allocation: full blocks, then the host
      // stream's open block with the rest (none when the last block is full).
      shape.full = V / ppb;
      shape.host_pages = V % ppb;
      shape.host_open = shape.host_pages > 0;
    }
    image_->build_plane(p, shape, below);
    // Erase history.
    double erases = 0;
    if (aged) {
      const std::uint32_t victim_valid = image_->valid_at_age(p, shape.full - 1);
      const double wa = ppb > victim_valid ? static_cast<double>(ppb) / (ppb - victim_valid) : 1.0;
      erases = drive_writes * static_cast<double>(V) * wa / (static_cast<double>(B) * ppb);
    }
    Plane& pl = planes_v_[p];
    pl.free.clear();
    pl.open[0] = pl.open[1] = kUnmapped;
    pl.opened[0].clear();
    pl.opened[1].clear();
    const std::uint32_t data_ages = shape.full + (shape.host_open ? 1 : 0) + (shape.gc_open ? 1 : 0);
    for (std::uint32_t k = 0; k < B; ++k) {
      const std::uint32_t b = image_->block_of_age(p, k);
      const std::uint32_t g = p * B + b;
      Block& blk = blocks_[g];
      // Older blocks were erased a little less often than newer ones.
      const std::uint32_t Fk = std::max<std::uint32_t>(shape.full, 1);
      const auto e = static_cast<std::uint32_t>(erases * (1.0 + 0.1 * (static_cast<double>(Fk - std::min(k, Fk)) / Fk)) + 0.5);
      const PhysAddr a = decode(g * ppb);
      blk = Block{};
      blk.erases = e;
      if (k >= data_ages) {  // free
        nand.erase(a, e);
        pl.free.push(e, b);
        continue;
      }
      // Which pages are valid is drawn when first needed (SteadyImage::valid_mask).
      std::uint32_t pages = k < shape.full ? ppb : image_->valid_at_age(p, k);
      // Cells of n bits: an open block's write point at a wordline's end, the pages after
      // its valid ones filler (written, not valid), as the firmware pads.
      if (const std::uint32_t w = wordline_pages(); w > 1) pages = (pages + w - 1) / w * w;
      blk.valid = static_cast<std::uint16_t>(image_->valid_at_age(p, k));
      blk.write_ptr = blk.image_pages = static_cast<std::uint16_t>(pages);
      blk.image_bits = true;
      if (k < shape.full || pages == ppb) {
        blk.state = BlockState::Full;
      } else {
        blk.state = BlockState::Open;
        pl.open[k == shape.full ? 0 : 1] = g;
        pl.opened[k == shape.full ? 0 : 1].push_back(g);
      }
      nand.load_image_block(a, g * ppb, pages, e);
    }
  };
  // Each thread writes only its planes' block records (the valid bits are not written:
  // Block::image_bits).
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  // A worker's exception is rethrown here, after every thread has finished.
  std::vector<std::exception_ptr> failed(threads);
  auto worker = [&](std::uint32_t first, std::uint32_t step) {
    try {
      for (std::uint32_t p = first; p < planes_; p += step) do_plane(p);
    } catch (...) {
      failed[first] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t, threads);
  worker(0, threads);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  clear_counters();
}

void Ftl::erase_stats(std::uint32_t& min, std::uint32_t& max, double& mean) const {
  min = ~0u;
  max = 0;
  double sum = 0;
  for (const Block& b : blocks_) {
    min = std::min(min, b.erases);
    max = std::max(max, b.erases);
    sum += b.erases;
  }
  mean = blocks_.empty() ? 0 : sum / static_cast<double>(blocks_.size());
}

std::uint64_t Ftl::table_bytes() const {
  return l2p_.bytes() +
         p2l_.bytes() + physical_pages_ / 8 +
         blocks_.size() * sizeof(Block) + planes_v_.size() * (sizeof(Plane) + cfg_.nand.blocks_per_plane * 4ull) +
         (image_ ? image_->bytes() : 0);
}

const param::Table<FtlConfig>& FtlConfig::keys() {
  static const param::Table<FtlConfig> t = [] {
    param::Table<FtlConfig> k;
    k.part(&FtlConfig::nand, nand::NandConfig::keys())
        .number("ftl.overprovisioning", &FtlConfig::overprovisioning, 0, 0.89,
                "fraction of the physical pages hidden from the host")
        .integer("ftl.mapping_unit_bytes", &FtlConfig::mapping_unit_bytes, 0, 1 << 20,
                 "the FTL's mapping unit (docs/controller.md, Mapping units): 0 = the page; else a divisor of "
                 "nand.page_bytes of whole 512-byte sectors (4096 inside 16 KiB pages): the FTL maps, allocates and "
                 "collects units, the write buffer packs them into pages and wordlines, a read of one moves out its "
                 "codewords (controller.read_unit_bytes)")
        .unit("bytes")
        .text("ftl.allocation", &FtlConfig::allocation,
              "static allocation order, fastest first: C channel, W chip, D die, P plane")
        .number("ftl.gc_threshold", &FtlConfig::gc_threshold, 0.001, 0.49,
                "GC a plane when its free blocks fall below this fraction")
        .choice("ftl.map_persist", &FtlConfig::map_journal, {{"instant", false}, {"journal", true}},
                "how the mapping persists (docs/controller.md, The map log): instant = taken as persisted as it is "
                "updated, at no cost; journal = the firmware programs a journal of its updates (8 bytes each) and "
                "checkpoints of the whole table (4 bytes a logical page) into ftl.map_log_blocks blocks per plane, "
                "as flash work; recovery reads them")
        .number("ftl.slc_cache_fraction", &FtlConfig::slc_cache_fraction, 0, 0.5,
                "with nand.bits_per_cell > 1: this fraction of a plane's blocks kept in SLC mode as a write cache "
                "(docs/controller.md, The SLC cache): host writes go there while it has room, folds move its data "
                "into blocks of n-bit cells in the background; out of the spare; 0: none")
        .number("ftl.slc_fold_threshold", &FtlConfig::slc_fold_threshold, 0, 0.99,
                "with ftl.slc_cache_fraction: a plane folds its full SLC blocks (in the background, by GC's rules) "
                "once more than this fraction of its SLC blocks hold data; 0: as soon as one is full")
        .choice("ftl.slc_when_full", &FtlConfig::slc_wait, {{"direct", false}, {"wait", true}},
                "with ftl.slc_cache_fraction, when a plane's SLC blocks are all full: direct = host writes go to "
                "its blocks of n-bit cells; wait = they wait for a fold to free one (folds then run in the "
                "foreground)")
        .integer("ftl.map_log_blocks", &FtlConfig::map_log_blocks, 1, 65535,
                 "with ftl.map_persist = journal: blocks per plane reserved for the map log, out of the spare")
        .unit("blocks per plane")
        .integer("ftl.checkpoint_interval_updates", &FtlConfig::checkpoint_interval_updates, 0,
                 std::int64_t{1} << 50,
                 "with ftl.map_persist = journal: a checkpoint starts once this many mapping updates were journaled "
                 "since the last one began (0: not for this reason; one starts anyway when the log runs short)")
        .unit("updates")
        .number("ftl.checkpoint_interval_us", &FtlConfig::checkpoint_interval_us, 0, 1e12,
                "with ftl.map_persist = journal: a checkpoint starts at the first mapping update this long after "
                "the last one began (0: not for this reason)")
        .unit("us");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
