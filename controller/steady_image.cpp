#include "controller/steady_image.h"


#include <stdexcept>
#include <string>

#include "common/splitmix.h"

namespace ssd::ctrl {

namespace {
struct SelectInByte {
  std::uint8_t pos[256][8];
  SelectInByte() {
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned i = 0, n = 0; i < 8; ++i)
        if (b >> i & 1u) pos[b][n++] = static_cast<std::uint8_t>(i);
  }
};
const SelectInByte kSelectInByte;
}  // namespace

unsigned select64(std::uint64_t x, unsigned i) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  std::uint64_t c = x - ((x >> 1) & 0x5555555555555555ull);  // bits per byte, as in popcount64
  c = (c & 0x3333333333333333ull) + ((c >> 2) & 0x3333333333333333ull);
  c = (c + (c >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  const std::uint64_t running = c * kOnes;  // byte j: set bits in bytes 0..j (at most 64)
  // The first byte whose running count exceeds i: its high bit survives the subtraction.
  const std::uint64_t over = ((running | kHigh) - (i + 1) * kOnes) & kHigh;
  const unsigned byte = static_cast<unsigned>(__builtin_ctzll(over)) / 8;
  const unsigned before = byte ? static_cast<unsigned>(running >> (8 * byte - 8)) & 0xFF : 0;
  return 8 * byte + kSelectInByte.pos[(x >> (8 * byte)) & 0xFF][i - before];
}

SteadyImage::Permutation::Permutation(std::uint32_t n, std::uint64_t key) : n_(n) {
  unsigned bits = 0;  // the domain is the smallest 2^bits >= n, at least 2 bits
  while (bits < 32 && (std::uint64_t{1} << bits) < n) ++bits;
  bits = std::max(2u, bits);
  lo_bits_ = bits / 2;
  lo_mask_ = (std::uint32_t{1} << lo_bits_) - 1;
  hi_mask_ = static_cast<std::uint32_t>((std::uint64_t{1} << (bits - lo_bits_)) - 1);
  for (int i = 0; i < kRounds; ++i) key_[i] = splitmix64::next(key);  // one key per round
}

SteadyImage::AffinePermutation::AffinePermutation(std::uint32_t n, std::uint64_t key) : n_(n) {
  if (n == 0) throw std::invalid_argument("AffinePermutation: empty domain");
  c_ = key % n;
  auto gcd = [](std::uint64_t x, std::uint64_t y) {
    while (y) x %= y, std::swap(x, y);
    return x;
  };
  a_ = (key >> 32) % n | 1;
  if (n > 1) a_ %= n;
  while (gcd(a_, n) != 1) a_ = (a_ + 1) % n;  // n = 1: gcd(0, 1) = 1
  // a^-1 mod n by the extended Euclid algorithm.
  std::int64_t t = 0, t1 = 1, r = n, r1 = static_cast<std::int64_t>(a_);
  while (r1) {
    const std::int64_t q = r / r1;
    t -= q * t1, std::swap(t, t1);
    r -= q * r1, std::swap(r, r1);
  }
  a_inv_ = static_cast<std::uint64_t>(t < 0 ? t + static_cast<std::int64_t>(n) : t) % n;
}

SteadyImage::SteadyImage(std::uint32_t planes, std::uint32_t blocks_per_plane, std::uint32_t pages_per_block,
                         std::uint32_t max_full_blocks, std::vector<std::uint32_t> lane_of_plane, std::uint64_t fill,
                         TokenOf token_of, bool aged)
    : planes_(planes),
      B_(blocks_per_plane),
      ppb_(pages_per_block),
      F_(max_full_blocks),
      words_((pages_per_block + 63) / 64),
      stride_(max_full_blocks + 3),
      aged_(aged),
      lane_of_plane_(std::move(lane_of_plane)),
      fill_(fill),
      token_of_(token_of) {
  if (F_ + 2 > B_ || lane_of_plane_.size() != planes_) throw std::invalid_argument("SteadyImage: bad geometry");
  if (fill_ / planes_ + 1 > (std::uint64_t{F_} + 2) * ppb_) throw std::invalid_argument("SteadyImage: more pages than the blocks hold");
  plane_of_lane_.assign(planes_, 0);
  for (std::uint32_t p = 0; p < planes_; ++p) plane_of_lane_[lane_of_plane_[p]] = p;
  plane_.resize(planes_);
  mask_ = BigArray<std::uint64_t>(std::size_t{planes_} * B_ * words_, true);  // drawn when first needed
  ready_ = BigArray<std::uint64_t>((std::size_t{planes_} * B_ + 63) / 64, true);  // none drawn yet
  starts_ = BigArray<std::uint32_t>(std::size_t{planes_} * stride_, true);
}

double SteadyImage::decay(double Vf, double F, double ppb) {
  auto total = [&](double a) { return ppb * std::expm1(-a) / std::expm1(-a / F); };
  double lo = 0, hi = 1;
  while (total(hi) > Vf && hi < 1e6) hi *= 2;
  for (int it = 0; it < 60; ++it) {
    const double mid = (lo + hi) / 2;
    (total(mid) > Vf ? lo : hi) = mid;
  }
  return hi;
}

void SteadyImage::solve(std::uint32_t p) {
  PlaneImage& pl = plane_[p];
  const Shape& sh = pl.shape;
  const std::uint32_t open_pages = (sh.host_open ? sh.host_pages : 0) + (sh.gc_open ? sh.gc_pages : 0);
  if (sh.full > F_ || open_pages > pl.V || (sh.host_open && sh.host_pages > ppb_) || (sh.gc_open && sh.gc_pages > ppb_) ||
      pl.V - open_pages > std::uint64_t{sh.full} * ppb_ || (!sh.host_open && sh.gc_open))
    throw std::invalid_argument("SteadyImage: plane " + std::to_string(p) + " cannot hold its pages in that shape");
  pl.Vf = pl.V - open_pages;
  // Pages in the full blocks for a decay a: C(a) = ppb (1 - e^-a) / (1 - e^(-a/F)),
  // from F ppb (a -> 0) down to ppb (a -> infinity); a solved for C(a) = Vf (a plane
  // with Vf <= ppb keeps all of it in its newest block; a = 0 when every page is valid).
  const double F = sh.full, ppb = ppb_;
  pl.a = 0;
  if (pl.Vf > 0 && pl.Vf < std::uint64_t{sh.full} * ppb_) {
    pl.a = decay(pl.Vf, F, ppb);
    pl.scale = -ppb / std::expm1(-pl.a / F);
    pl.k_per_log = -F / pl.a;
  }
  std::uint32_t* starts = &starts_[std::size_t{p} * stride_];
  starts[0] = first_slot(pl, 0);
  for (std::uint32_t k = 0; k < sh.full; ++k) {
    starts[k + 1] = first_slot(pl, k + 1);
    if (starts[k + 1] < starts[k] || starts[k + 1] - starts[k] > ppb_)
      throw std::logic_error("SteadyImage: block of age " + std::to_string(k) + " would hold more than a block");
  }
  if (starts[sh.full] != pl.Vf) throw std::logic_error("SteadyImage: the full blocks do not add up");
  starts[sh.full + 1] = pl.Vf + (sh.host_open ? sh.host_pages : 0);
  starts[sh.full + 2] = pl.V;
}

void SteadyImage::draw_mask(std::uint32_t g) const {
  const std::uint32_t p = g / B_, k = plane_[p].blocks.inverse(g % B_);
  std::uint64_t small[16];
  std::vector<std::uint64_t> large;
  std::uint64_t* m = small;
  if (words_ > 16) {
    large.resize(words_);
    m = large.data();
  }
  std::fill(m, m + words_, std::uint64_t{0});
  const std::uint32_t F = plane_[p].shape.full;
  // The first n pages: whole words, then the rest of a word.
  auto first_pages = [m](std::uint32_t n) {
    std::fill(m, m + n / 64, ~std::uint64_t{0});
    if (n % 64) m[n / 64] = (std::uint64_t{1} << (n % 64)) - 1;
  };
  if (k >= F && k < F + 2) {  // an open block: its first pages
    first_pages(valid_at_age(p, k));
  } else if (k < F && !aged_) {  // written once: all valid
    first_pages(ppb_);
  } else if (k < F) {  // a free block has none
    // The block's stream: xorshift64* from a splitmix64 of the plane's key and the age.
    std::uint64_t x = splitmix64::mix(plane_[p].mask_key + (std::uint64_t{k} + 1) * splitmix64::kIncrement);
    if (x == 0) x = 1;
    auto below = [&x](std::uint64_t n) {  // a number in [0, n), by multiply-shift
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      return static_cast<std::uint32_t>((static_cast<unsigned __int128>(x * 0x2545F4914F6CDD1Dull) * n) >> 64);
    };
    // Which of the ppb pages are valid: a uniform random subset (Floyd's algorithm,
    // drawing the smaller of the valid and the invalid sets).
    const std::uint32_t need = start(p, k + 1) - start(p, k);  // valid_at_age(p, k)
    const bool draw_valid = need <= ppb_ - need;
    for (std::uint32_t j = ppb_ - (draw_valid ? need : ppb_ - need); j < ppb_; ++j) {
      std::uint32_t t = below(j + 1);
      if (m[t >> 6] >> (t & 63) & 1u) t = j;
      m[t >> 6] |= std::uint64_t{1} << (t & 63);
    }
    if (!draw_valid) {
      for (std::uint32_t w = 0; w < words_; ++w) m[w] = ~m[w];
      if (ppb_ % 64) m[words_ - 1] &= (std::uint64_t{1} << (ppb_ % 64)) - 1;
    }
  }
  std::uint64_t* out = &mask_[std::size_t{g} * words_];
  for (std::uint32_t w = 0; w < words_; ++w) store(&out[w], m[w]);
  __atomic_fetch_or(&ready_[g >> 6], std::uint64_t{1} << (g & 63), __ATOMIC_RELEASE);
}

std::uint64_t SteadyImage::masks_drawn() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < ready_.size(); ++i) n += popcount64(load(&ready_[i]));
  return n;
}

std::uint32_t SteadyImage::age_estimate(std::uint32_t p, std::uint32_t s) const {
  const PlaneImage& pl = plane_[p];
  const std::uint32_t F = pl.shape.full;
  if (s >= pl.Vf || F == 0) return F;  // an open block's
  std::uint32_t k;
  if (pl.a == 0) {
    k = s / ppb_;
  } else {  // the inverse of first_slot, before the correction for its rounding
    const double x = pl.k_per_log * std::log1p(-static_cast<double>(s) / pl.scale);
    k = !(x > 0) ? 0 : x >= F ? F - 1 : static_cast<std::uint32_t>(x);
  }
  return k >= F ? F - 1 : k;
}

std::uint32_t SteadyImage::age_of_slot(std::uint32_t p, std::uint32_t s, std::uint32_t k,
                                       std::uint32_t& first) const {
  first = start(p, k);
  while (first > s) first = start(p, --k);  // k = 0 has first 0 <= s
  for (std::uint32_t next; (next = start(p, k + 1)) <= s; ++k) first = next;
  return k;
}

SteadyImage::Located SteadyImage::locate_pure(std::uint64_t lpn) const {
  const std::uint32_t p = plane_of_lane_[lpn % planes_];
  const std::uint32_t s = plane_[p].slots.inverse(static_cast<std::uint32_t>(lpn / planes_));
  return Located{lpn, p, s, age_estimate(p, s)};
}

SteadyImage::Located SteadyImage::locate(std::uint64_t lpn) const {
  const Located& m = memo_[lpn % kMemo];
  return m.lpn == lpn ? m : locate_pure(lpn);
}

std::uint32_t SteadyImage::l2p_at(const Located& l) const {
  std::uint32_t first;
  const std::uint32_t k = age_of_slot(l.plane, l.slot, l.age, first);
  const std::uint32_t g = l.plane * B_ + plane_[l.plane].blocks.forward(k);
  // The (s - first_slot(k))-th valid page of the block.
  std::uint32_t i = l.slot - first;
  const std::uint64_t* m = mask_of(g);
  std::uint32_t w = 0;
  std::uint64_t word;
  for (unsigned c; i >= (c = popcount64(word = load(&m[w]))); ++w) i -= c;
  return g * ppb_ + w * 64 + select64(word, i);
}

std::uint32_t SteadyImage::l2p(std::uint64_t lpn) const {
  if (lpn >= fill_) return 0xFFFFFFFFu;
  if (!results_) return l2p_at(locate(lpn));
  std::uint32_t ppa;
  if (results_->known_l2p(lpn, ppa)) return ppa;
  ppa = l2p_at(locate(lpn));
  results_->computed_l2p(lpn, ppa);  // for a lookup of the same page that follows (a GC copy's, at its end)
  return ppa;
}

std::uint64_t SteadyImage::p2l(std::uint32_t ppa) const {
  if (!results_) return p2l_compute(ppa);
  std::uint64_t lpn;
  if (results_->known_p2l(ppa, lpn)) return lpn;
  lpn = p2l_compute(ppa);
  // For a lookup of the same page that follows (a GC copy: the FTL asks for its owner,
  // then the NAND for its token).
  results_->computed_p2l(ppa, lpn);
  return lpn;
}

std::uint64_t SteadyImage::p2l_compute(std::uint32_t ppa) const {
  const std::uint32_t g = ppa / ppb_, pg = ppa % ppb_;
  const std::uint32_t p = g / B_;
  const PlaneImage& pl = plane_[p];
  const std::uint64_t* m = mask_of(g);
  const std::uint64_t last = load(&m[pg >> 6]);
  if (!(last >> (pg & 63) & 1u)) return kNoPage;  // also every page of a free block
  const std::uint32_t k = pl.blocks.inverse(g % B_);
  std::uint32_t s = start(p, k);
  for (std::uint32_t w = 0; w < pg >> 6; ++w) s += popcount64(load(&m[w]));
  s += popcount64(last & ((std::uint64_t{1} << (pg & 63)) - 1));
  return std::uint64_t{pl.slots.forward(s)} * planes_ + lane_of_plane_[p];
}

std::uint64_t SteadyImage::bytes() const {
  return plane_.size() * sizeof(PlaneImage) + (mask_.size() + ready_.size()) * 8 + starts_.size() * 4 +
         (lane_of_plane_.size() + plane_of_lane_.size()) * 4;
}

}  // namespace ssd::ctrl
