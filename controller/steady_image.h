// The preconditioned state of a device as an image: which pages hold which logical
// page, computed on demand instead of written into per-page tables. Plain C++.
//
// Two states (Ftl::precondition_image says which): the steady state of uniform random
// overwrites of the logical pages [0, fill) under greedy GC (aged), and those pages
// written once, in order (not aged). Per plane, by age (0 the oldest written in the
// unaged state, an arbitrary order of full blocks in the aged one):
//   ages [0, F)     full blocks. Aged: the valid pages of a block decay exponentially
//                   with its age, at random places in the block; not aged: all valid;
//   age F           the host stream's open block, its first w pages written and valid;
//   age F + 1       the GC stream's open block, its first g pages (aged only);
//   older           free blocks.
// F, w and g are the plane's own: aged, w and g are drawn uniformly (the write points a
// long run leaves, independent between planes), and the free blocks are the GC low mark,
// so each plane starts at its own point of the GC cycle.
// What is stored is per block, not per page: which pages of a block are valid (a bit
// each, drawn from the block's own random stream the first time any thread needs them),
// the block's age, and per plane the running count of valid pages by age. Aged, the
// plane's logical pages are shuffled over its valid pages by a keyed permutation that
// can be computed both ways (a Feistel network, cycle-walked into [0, V)), so that
//   slot s of a plane (its s-th valid page, by age, then page order) holds the plane's
//   logical page number r = perm(s), and the logical page r is found at perm^-1(r);
// not aged, perm is the identity (pages in the order they were written).
// A lookup costs a few hundred instructions and three cache lines; building the image
// costs a pass over the blocks instead of one over the pages. The NAND reads the
// image's tokens for blocks not rewritten since (nand/page_image.h); the FTL keeps only
// the changes to the mapping (controller/ftl.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "nand/page_image.h"
#include "common/big_array.h"

namespace ssd::ctrl {

// Results of the image's lookups known before they are asked (accel/ computes them on
// another thread while the simulation runs). The image asks here first and tells what it
// computed itself. Both lookups are pure functions of the image, which nothing changes
// once built: what is known here changes the time a lookup takes, never its answer.
// Called from the thread that runs the lookups.
class ImageResults {
 public:
  virtual ~ImageResults() = default;
  virtual bool known_l2p(std::uint64_t lpn, std::uint32_t& ppa) = 0;
  virtual bool known_p2l(std::uint32_t ppa, std::uint64_t& lpn) = 0;
  virtual void computed_l2p(std::uint64_t lpn, std::uint32_t ppa) = 0;
  virtual void computed_p2l(std::uint32_t ppa, std::uint64_t lpn) = 0;
};

class SteadyImage final : public nand::PageImage {
 public:
  using TokenOf = Token (*)(std::uint64_t lpn);
  static constexpr std::uint64_t kNoPage = 0xFFFFFFFFu;  // p2l of a page not valid in the image

  // `lane_of_plane[p]` = q: plane p holds the logical pages r * planes + q, r below its
  // share of [0, fill). No plane has more than `max_full_blocks` full blocks. `aged`:
  // the steady state (shuffled, decaying); else the pages written once, in order.
  // Nothing is valid until each plane is built.
  SteadyImage(std::uint32_t planes, std::uint32_t blocks_per_plane, std::uint32_t pages_per_block,
              std::uint32_t max_full_blocks, std::vector<std::uint32_t> lane_of_plane, std::uint64_t fill,
              TokenOf token_of, bool aged);

  // A plane's blocks with data: `full` full blocks, then the host stream's open block
  // holding `host_pages` (if host_open) and the GC stream's holding `gc_pages` (if
  // gc_open). The pages add up to the plane's share of the fill (plane_pages).
  struct Shape {
    std::uint32_t full = 0, host_pages = 0, gc_pages = 0;
    bool host_open = false, gc_open = false;
  };
  // Builds plane p in that shape from its random stream (`below(n)`: a number in
  // [0, n)): aged, the order of its blocks by age, the key of its shuffle, the key of its
  // blocks' own streams (the places of the valid pages in a block are drawn from it when
  // first needed: see valid_mask). Distinct planes may be built concurrently.
  template <typename Below>
  void build_plane(std::uint32_t p, const Shape& shape, Below&& below);

  std::uint64_t fill() const { return fill_; }
  bool aged() const { return aged_; }
  // The valid pages of plane p: its share of [0, fill).
  std::uint32_t plane_pages(std::uint32_t p) const {
    const std::uint32_t q = lane_of_plane_[p];
    return static_cast<std::uint32_t>(fill_ / planes_ + (q < fill_ % planes_ ? 1 : 0));
  }
  const Shape& shape(std::uint32_t p) const { return plane_[p].shape; }
  // The page logical page `lpn` occupies; 0xFFFFFFFF when lpn >= fill.
  std::uint32_t l2p(std::uint64_t lpn) const;
  // The memory l2p(lpn) will read, each address given to `line` (its age's entry of the
  // plane's table and the block's valid pages). What is computed to find them is kept
  // for that lookup (a memo of a few pages). Any lpn.
  template <typename Line>
  void l2p_reads(std::uint64_t lpn, Line&& line) const {
    if (lpn >= fill_) return;
    const Located l = locate(lpn);
    memo_[lpn % kMemo] = l;
    line(static_cast<const void*>(&starts_[std::size_t{l.plane} * stride_ + l.age]));
    line(static_cast<const void*>(&mask_[std::size_t{l.plane * B_ + plane_[l.plane].blocks.forward(l.age)} * words_]));
  }
  // The logical page held by page `ppa`; kNoPage when the image holds no valid data there.
  std::uint64_t p2l(std::uint32_t ppa) const;
  Token token(std::uint32_t ppa) const override {
    const std::uint64_t lpn = p2l(ppa);
    return lpn == kNoPage ? kStaleToken : token_of_(lpn);
  }

  // Results known ahead (null: none): l2p and p2l ask `r` first, and tell it what they
  // computed. `r` must outlive the lookups.
  void set_results(ImageResults* r) { results_ = r; }
  // l2p and p2l computed, without the results known ahead or the memo. Safe on any
  // thread, concurrently with the lookups. compute_l2p(lpn) needs lpn < fill().
  std::uint32_t compute_l2p(std::uint64_t lpn) const { return l2p_at(locate_pure(lpn)); }
  std::uint64_t compute_p2l(std::uint32_t ppa) const { return p2l_compute(ppa); }
  std::uint64_t pages() const { return std::uint64_t{planes_} * B_ * ppb_; }
  // Plane p's blocks by age k (see the top: [0, F) full, F and F + 1 the open blocks,
  // older free): the block (in the plane) and its valid pages.
  std::uint32_t block_of_age(std::uint32_t p, std::uint32_t k) const { return plane_[p].blocks.forward(k); }
  std::uint32_t age_of_block(std::uint32_t p, std::uint32_t b) const { return plane_[p].blocks.inverse(b); }
  std::uint32_t valid_at_age(std::uint32_t p, std::uint32_t k) const {
    return k >= plane_[p].shape.full + 2 ? 0 : start(p, k + 1) - start(p, k);
  }
  // Per block (device-wide index): its valid pages, a bit each, into out[0, mask_words()).
  // A block's pages are a uniform random subset of its valid_at_age() pages, drawn from
  // a stream of its own (the plane's key and the block's age) the first time a lookup or
  // this asks: the answer does not depend on which thread asks first, or when. Safe on
  // any thread, like the lookups.
  void valid_mask(std::uint32_t block, std::uint64_t* out) const {
    const std::uint64_t* m = mask_of(block);
    for (std::uint32_t w = 0; w < words_; ++w) out[w] = load(&m[w]);
  }
  // Whether page `ppa` holds valid data in the image.
  bool valid(std::uint32_t ppa) const {
    return load(&mask_of(ppa / ppb_)[ppa % ppb_ >> 6]) >> (ppa % ppb_ & 63) & 1u;
  }
  std::uint32_t mask_words() const { return words_; }
  // The memory valid_mask(block) and valid() of its pages read, each address given to
  // `line`.
  template <typename Line>
  void mask_reads(std::uint32_t block, Line&& line) const {
    line(static_cast<const void*>(&ready_[block >> 6]));
    line(static_cast<const void*>(&mask_[std::size_t{block} * words_]));
  }
  // Blocks whose valid pages have been drawn so far.
  std::uint64_t masks_drawn() const;
  std::uint64_t bytes() const;

  // The decay a of the valid pages with age for which F full blocks of ppb pages hold Vf:
  // C(a) = ppb (1 - e^-a) / (1 - e^(-a/F)) = Vf, for 0 < Vf < F ppb (C falls from F ppb at
  // a -> 0 to ppb). The block of age k then holds ppb e^(-a k / F) valid pages.
  static double decay(double Vf, double F, double ppb);

  // The keyed permutation of [0, n) (public for its tests).
  class Permutation {
   public:
    Permutation() = default;
    Permutation(std::uint32_t n, std::uint64_t key);
    // The identity of [0, n).
    static Permutation identity(std::uint32_t n) {
      Permutation p;
      p.n_ = n;
      p.identity_ = true;
      return p;
    }
    std::uint32_t forward(std::uint32_t x) const {
      if (identity_) return x;
      do x = feistel(x); while (x >= n_);
      return x;
    }
    std::uint32_t inverse(std::uint32_t x) const {
      if (identity_) return x;
      do x = feistel_inverse(x); while (x >= n_);
      return x;
    }
    std::uint32_t size() const { return n_; }

   private:
    // An unbalanced Feistel network on `bits` bits (the smallest power of two >= n, so a
    // value leaves [0, n) less than half the time): even rounds xor the high part with a
    // function of the low part, odd rounds the low part with one of the high part. Each
    // round undoes itself; the inverse runs them backwards.
    static constexpr int kRounds = 4;
    std::uint64_t f(std::uint32_t part, int round) const {
      std::uint64_t h = (part + key_[round]) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      return h >> 32;
    }
    std::uint32_t round(std::uint32_t x, int i) const {
      const std::uint32_t lo = x & lo_mask_, hi = x >> lo_bits_;
      if (i % 2 == 0) return ((hi ^ static_cast<std::uint32_t>(f(lo, i))) & hi_mask_) << lo_bits_ | lo;
      return hi << lo_bits_ | ((lo ^ static_cast<std::uint32_t>(f(hi, i))) & lo_mask_);
    }
    std::uint32_t feistel(std::uint32_t x) const {
      for (int i = 0; i < kRounds; ++i) x = round(x, i);
      return x;
    }
    std::uint32_t feistel_inverse(std::uint32_t x) const {
      for (int i = kRounds - 1; i >= 0; --i) x = round(x, i);
      return x;
    }
    std::uint32_t n_ = 0, lo_bits_ = 0, lo_mask_ = 0, hi_mask_ = 0;
    bool identity_ = false;
    std::uint64_t key_[kRounds] = {};
  };
  // x -> (a x + c) mod n, a coprime with n: a cheap bijection of [0, n) for what needs no
  // more than an arbitrary order (public for its tests). Key 0 gives the identity.
  class AffinePermutation {
   public:
    AffinePermutation() = default;
    AffinePermutation(std::uint32_t n, std::uint64_t key);
    std::uint32_t forward(std::uint32_t x) const { return static_cast<std::uint32_t>((a_ * x + c_) % n_); }
    std::uint32_t inverse(std::uint32_t y) const {
      return static_cast<std::uint32_t>(a_inv_ * ((y + n_ - c_) % n_) % n_);
    }

   private:
    std::uint64_t n_ = 1, a_ = 1, a_inv_ = 1, c_ = 0;
  };

 private:
  // A plane: V valid pages, Vf of them in its full blocks; the full block of age k holds
  // the slots [first_slot(k), first_slot(k + 1)),
  // first_slot(k) = round(ppb * (1 - exp(-a k / F)) / (1 - exp(-a / F))) (the valid pages
  // of the block of age k: ppb * exp(-a k / F), a solved so they add up to Vf; a = 0: all
  // valid); the open blocks hold [Vf, V). A lookup inverts it with one logarithm (the age
  // of a slot, corrected for the rounding) and reads first_slot from a table of 4 bytes
  // per block (starts_: the line of that age; the exponentials cost more instructions
  // than the table's line costs time).
  struct PlaneImage {
    Shape shape;
    std::uint32_t V = 0, Vf = 0;
    double a = 0, scale = 0, k_per_log = 0;  // scale = ppb / (1 - exp(-a / F)); k_per_log = -F / a
    Permutation slots;        // slot -> the plane's logical page number
    AffinePermutation blocks;  // age -> block (which block has which age needs no more)
    std::uint64_t mask_key = 0;  // the blocks' streams: see draw_mask
  };
  std::uint32_t first_slot(const PlaneImage& pl, std::uint32_t k) const {
    const std::uint32_t F = pl.shape.full;
    if (k >= F) return pl.Vf;
    if (pl.a == 0) return std::min<std::uint32_t>(pl.Vf, k * ppb_);
    const double c = -pl.scale * std::expm1(-pl.a * k / F);
    return std::min<std::uint32_t>(pl.Vf, static_cast<std::uint32_t>(c + 0.5));
  }
  // The first slot of age k of plane p, k <= F + 2 (first_slot(k) for k <= F; F + 1 and
  // F + 2 follow the open blocks), from the table solve() fills: a lookup reads the line
  // of its age instead of computing exponentials.
  std::uint32_t start(std::uint32_t p, std::uint32_t k) const { return starts_[std::size_t{p} * stride_ + k]; }
  // The age of the block of plane p holding slot s (start(k) <= s < start(k + 1)), and
  // start(k) in `first`, from the estimate k (age_estimate: a logarithm, off by the
  // rounding of the table's entries).
  std::uint32_t age_estimate(std::uint32_t p, std::uint32_t s) const;
  std::uint32_t age_of_slot(std::uint32_t p, std::uint32_t s, std::uint32_t k, std::uint32_t& first) const;
  // A logical page's plane, slot and estimated age: what l2p computes before it reads a
  // table. l2p_reads keeps it in memo_ for the lookup that follows.
  struct Located {
    std::uint64_t lpn = ~std::uint64_t{0};
    std::uint32_t plane = 0, slot = 0, age = 0;
  };
  Located locate(std::uint64_t lpn) const;       // with the memo (the lookups' thread)
  Located locate_pure(std::uint64_t lpn) const;  // without (any thread)
  std::uint32_t l2p_at(const Located& l) const;   // l2p from the located slot
  std::uint64_t p2l_compute(std::uint32_t ppa) const;
  // The valid-page masks are drawn by whichever thread asks first: read and written
  // atomically.
  static std::uint64_t load(const std::uint64_t* w) { return __atomic_load_n(w, __ATOMIC_RELAXED); }
  static void store(std::uint64_t* w, std::uint64_t v) { __atomic_store_n(w, v, __ATOMIC_RELAXED); }
  // Block g's valid pages (words_ words, read with load()), drawn first (draw_mask) if no
  // thread has yet: a bit per block in ready_ says it has been, set (release) after the
  // words are stored. Two threads that draw one block at once store the same words.
  const std::uint64_t* mask_of(std::uint32_t g) const {
    if (!(__atomic_load_n(&ready_[g >> 6], __ATOMIC_ACQUIRE) >> (g & 63) & 1u)) draw_mask(g);
    return &mask_[std::size_t{g} * words_];
  }
  void draw_mask(std::uint32_t g) const;
  // Solves plane p's decay and fills its first_slot table.
  void solve(std::uint32_t p);

  std::uint32_t planes_, B_, ppb_, F_, words_;
  std::uint32_t stride_;  // starts_ entries per plane: F_ + 3
  bool aged_;
  std::vector<std::uint32_t> lane_of_plane_, plane_of_lane_;
  std::uint64_t fill_;
  TokenOf token_of_;
  std::vector<PlaneImage> plane_;
  // Per block, words_ words: its valid pages once drawn (huge pages: fewer TLB misses);
  // and a bit per block: drawn. A cache of a pure function of the image: const lookups
  // fill it.
  mutable BigArray<std::uint64_t> mask_, ready_;
  BigArray<std::uint32_t> starts_;  // per plane, stride_ entries: start(k)
  ImageResults* results_ = nullptr;
  // What the lookups' thread writes, on lines of their own: another thread may read the
  // members above (compute_l2p), and a line written at every lookup would move between
  // the cores.
  static constexpr unsigned kMemo = 4;
  alignas(64) mutable Located memo_[kMemo];  // a pure function's results: changes no answer
};

// Bits set in a word, without a library call (the build does not assume POPCNT).
inline unsigned popcount64(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
}

// The position of the (i+1)-th set bit of x (i < popcount64(x)), without a loop over
// the bits: the bytes' running counts in one multiply pick the byte, a table the bit.
unsigned select64(std::uint64_t x, unsigned i);

template <typename Below>
void SteadyImage::build_plane(std::uint32_t p, const Shape& shape, Below&& below) {
  PlaneImage& pl = plane_[p];
  pl.V = plane_pages(p);
  pl.shape = shape;
  solve(p);
  if (aged_) {
    pl.blocks = AffinePermutation(B_, below(~std::uint64_t{0}));
    pl.slots = Permutation(pl.V, below(~std::uint64_t{0}));
    pl.mask_key = below(~std::uint64_t{0});
  } else {  // blocks and pages in the order they were written
    pl.blocks = AffinePermutation(B_, 0);
    pl.slots = Permutation::identity(pl.V);
  }
}

}  // namespace ssd::ctrl
