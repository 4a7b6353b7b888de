// The preconditioning image (controller/steady_image.h) and the FTL and NAND that read
// it instead of per-page tables, without the SystemC kernel.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "controller/ftl.h"
#include "controller/steady_image.h"
#include "controller/victim.h"
#include "nand/channel_engine.h"
#include "tests/engine_backdoor.h"
#include "tests/preconditioned_image.h"

using namespace ssd;
using namespace ssd::ctrl;
using test::geometry;
using test::LazyBackdoor;
using test::Preconditioned;
using test::token_of;

namespace {

// Checks that perm is a bijection of [0, n) and inverse() undoes forward(); returns the
// number of fixed points.
template <typename Perm>
std::uint32_t check_bijection(const Perm& perm, std::uint32_t n) {
  std::vector<char> seen(n, 0);
  std::uint32_t fixed = 0;
  for (std::uint32_t x = 0; x < n; ++x) {
    const std::uint32_t y = perm.forward(x);
    REQUIRE(y < n);
    REQUIRE_FALSE(seen[y]);
    seen[y] = 1;
    REQUIRE(perm.inverse(y) == x);
    fixed += y == x;
  }
  return fixed;
}

}  // namespace

TEST_CASE("steady image: the keyed permutation is a bijection and its inverse undoes it", "[image]") {
  for (std::uint32_t n : {1u, 2u, 3u, 5u, 64u, 1000u, 4097u, 100000u}) {
    const std::uint32_t fixed = check_bijection(SteadyImage::Permutation(n, 0x1234567u + n), n);
    INFO("n " << n << ": " << fixed << " fixed points");
    if (n >= 1000) CHECK(fixed < n / 100);  // a shuffle, not the identity
  }
  for (std::uint32_t n : {1u, 2u, 6u, 2048u, 3000u})
    check_bijection(SteadyImage::AffinePermutation(n, 0xDEADBEEF12345ull * n), n);
  // Another key, another order.
  const SteadyImage::Permutation a(1000, 1), b(1000, 2);
  std::uint32_t same = 0;
  for (std::uint32_t x = 0; x < 1000; ++x) same += a.forward(x) == b.forward(x);
  CHECK(same < 20);
}

TEST_CASE("steady image: select64 finds the i-th set bit of a word", "[image]") {
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int round = 0; round < 2000; ++round) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t w = round % 3 == 0 ? x & (x >> 1) : round % 3 == 1 ? x : x | (x << 3);  // sparse, even, dense
    unsigned i = 0;
    for (unsigned bit = 0; bit < 64; ++bit)
      if (w >> bit & 1u) REQUIRE(select64(w, i++) == bit);
    REQUIRE(i == popcount64(w));
  }
  CHECK(select64(~std::uint64_t{0}, 63) == 63);
  CHECK(select64(std::uint64_t{1} << 63, 0) == 63);
}

TEST_CASE("steady image: the FTL's mapping, the image's owners and the NAND's pages agree on every page", "[image][precondition]") {
  for (std::uint32_t ppb : {64u, 48u}) {  // whole words of the valid bitmap, and not
    const FtlConfig cfg = geometry(ppb);
    Ftl f(cfg);
    LazyBackdoor nand(cfg.nand);
    const std::uint64_t fill = f.logical_pages() * 3 / 4;
    f.precondition_image(fill, 1.0, 5, nand, token_of);
    REQUIRE(f.image() != nullptr);
    CHECK_FALSE(f.l2p_dense());  // nothing written into the mapping tables
    std::uint64_t valid = 0;
    for (std::uint32_t ppa = 0; ppa < cfg.nand.total_pages(); ++ppa) {
      const std::uint64_t lpn = f.owner(ppa);
      if (lpn == kUnmapped) continue;
      ++valid;
      REQUIRE(lpn < fill);
      REQUIRE(f.lookup(lpn) == ppa);
      REQUIRE(f.image()->p2l(ppa) == lpn);
    }
    CHECK(valid == fill);
    for (std::uint64_t lpn = 0; lpn < f.logical_pages(); ++lpn) {
      const std::uint32_t ppa = f.lookup(lpn);
      if (lpn >= fill) {
        REQUIRE(ppa == kUnmapped);
        continue;
      }
      REQUIRE(f.owner(ppa) == lpn);
      REQUIRE(nand.read(f.decode(ppa)) == token_of(lpn));
    }
    // Blocks by age: the valid pages decay from a full newest block; free blocks are erased.
    const SteadyImage& img = *f.image();
    const std::uint32_t B = cfg.nand.blocks_per_plane;
    for (std::uint32_t p = 0; p < f.planes(); ++p) {
      const std::uint32_t F = B - 4 - 2;  // full; then the host's and GC's open blocks
      CHECK(img.valid_at_age(p, 0) == ppb);
      CHECK(img.valid_at_age(p, 0) >= img.valid_at_age(p, B / 2));
      CHECK(img.valid_at_age(p, B / 2) > img.valid_at_age(p, F - 1));
      CHECK(f.free_blocks(p) == 4);  // gc_low = max(2, ceil(0.05 * 64)) = 4
      CHECK(img.shape(p).full == F);
      for (std::uint32_t k = 0; k < B; ++k) {
        const std::uint32_t g = p * B + img.block_of_age(p, k);
        CHECK(img.age_of_block(p, img.block_of_age(p, k)) == k);
        CHECK(f.valid_pages(g) == img.valid_at_age(p, k));
        const Token last = nand.read(f.decode(g * ppb + ppb - 1));
        if (k >= F) CHECK(last == kErasedToken);  // open or free
        else CHECK(last != kErasedToken);
        if (k == F || k == F + 1) {  // open: its first pages written, all valid
          const std::uint32_t w = k == F ? img.shape(p).host_pages : img.shape(p).gc_pages;
          CHECK(img.valid_at_age(p, k) == w);
          if (w > 0) CHECK(nand.read(f.decode(g * ppb + w - 1)) != kErasedToken);
          CHECK(nand.read(f.decode(g * ppb + w)) == kErasedToken);
        }
      }
    }
  }
}

TEST_CASE("steady image: a block's valid pages are drawn when first needed, the same whichever thread asks first",
          "[image][precondition]") {
  Preconditioned a(21), b(21);
  const SteadyImage& ia = *a.f.image();
  const SteadyImage& ib = *b.f.image();
  const std::uint32_t B = a.cfg.nand.blocks_per_plane, ppb = a.cfg.nand.pages_per_block;
  const std::uint32_t blocks = a.f.planes() * B, words = ia.mask_words();
  CHECK(ia.masks_drawn() == 0);  // preconditioning draws none
  CHECK(ib.masks_drawn() == 0);
  // a: every block in order, from the block's side, on this thread.
  std::vector<std::uint64_t> ma(std::size_t{blocks} * words);
  for (std::uint32_t g = 0; g < blocks; ++g) ia.valid_mask(g, &ma[std::size_t{g} * words]);
  CHECK(ia.masks_drawn() == blocks);
  // b: two threads at once, one through the logical pages' lookups from the first, the
  // other through the pages' owners from the last block backwards; then every block.
  std::thread other([&] {
    for (std::uint32_t ppa = blocks * ppb; ppa-- > 0;) (void)ib.p2l(ppa);
  });
  for (std::uint64_t lpn = 0; lpn < b.fill; ++lpn) (void)ib.l2p(lpn);
  other.join();
  CHECK(ib.masks_drawn() == blocks);
  std::vector<std::uint64_t> mb(words);
  for (std::uint32_t p = 0; p < a.f.planes(); ++p) {
    for (std::uint32_t k = 0; k < B; ++k) {
      const std::uint32_t g = p * B + ia.block_of_age(p, k);
      ib.valid_mask(g, mb.data());
      std::uint32_t valid = 0;
      for (std::uint32_t w = 0; w < words; ++w) {
        REQUIRE(mb[w] == ma[std::size_t{g} * words + w]);
        valid += popcount64(mb[w]);
      }
      REQUIRE(valid == ia.valid_at_age(p, k));  // exactly the block's share
      REQUIRE(valid == a.f.valid_pages(g));
    }
  }
  // Another seed draws other places for the same counts.
  Preconditioned c(22);
  std::uint32_t differ = 0;
  for (std::uint32_t g = 0; g < blocks; ++g) {
    c.f.image()->valid_mask(g, mb.data());
    for (std::uint32_t w = 0; w < words; ++w) differ += mb[w] != ma[std::size_t{g} * words + w];
  }
  CHECK(differ > blocks / 2);
}

TEST_CASE("steady image: a lookup whose reads were asked for ahead (l2p_reads) answers as one that was not", "[image][precondition]") {
  Preconditioned pre(9);
  Ftl& f = pre.f;
  const std::uint64_t fill = pre.fill;
  const SteadyImage& img = *f.image();
  std::vector<std::uint32_t> expect(f.logical_pages() + 8);
  // Each address given is read: under the sanitizers, one outside its table fails.
  unsigned sum = 0;
  auto touch = [&sum](const void* p) {
    REQUIRE(p != nullptr);
    sum += *static_cast<const volatile unsigned char*>(p);
  };
  for (std::uint64_t lpn = 0; lpn < expect.size(); ++lpn) expect[lpn] = img.l2p(lpn);  // no hint given yet
  CHECK(expect[fill - 1] != 0xFFFFFFFFu);
  CHECK(expect[fill] == 0xFFFFFFFFu);
  // Reads asked for in every pattern the memo meets: one ahead, several ahead answered out
  // of order, lookups whose memo entries collide (lpn and lpn + 4), reads asked for and
  // never followed by their lookup, and pages past the image's fill or past the device.
  std::uint64_t x = 88172645463325252ull;
  auto rnd = [&x](std::uint64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % n;
  };
  for (int round = 0; round < 20000; ++round) {
    std::uint64_t lpns[6];
    const unsigned n = 1 + static_cast<unsigned>(rnd(6));
    for (unsigned i = 0; i < n; ++i) {
      lpns[i] = rnd(4) == 0 && i > 0 ? lpns[i - 1] + 4 : rnd(expect.size());
      if (lpns[i] >= expect.size()) lpns[i] = expect.size() - 1;
      img.l2p_reads(lpns[i], touch);
      if (lpns[i] < f.logical_pages() && rnd(2)) touch(f.map_entry(lpns[i]));  // the FTL's map, read first
    }
    for (unsigned i = n; i-- > 0;) {
      if (rnd(5) == 0) continue;  // announced, never asked
      REQUIRE(img.l2p(lpns[i]) == expect[lpns[i]]);
      if (lpns[i] < f.logical_pages())
        REQUIRE(f.lookup(lpns[i]) == (lpns[i] < fill ? expect[lpns[i]] : kUnmapped));
    }
    const std::uint64_t other = rnd(expect.size());  // asked, its reads never asked for
    REQUIRE(img.l2p(other) == expect[other]);
    const std::uint32_t ppa = static_cast<std::uint32_t>(rnd(img.pages()));
    f.invalidation_reads(ppa, touch);
  }
  CHECK(sum > 0);
}

TEST_CASE("steady image: the run's writes, copies, trims and erases override the image", "[image][precondition]") {
  Preconditioned pre(9);
  const FtlConfig& cfg = pre.cfg;
  Ftl& f = pre.f;
  LazyBackdoor& nand = pre.nand;
  const std::uint64_t fill = pre.fill;
  // A host write of an image page: the old page becomes invalid, the new one is the lpn's.
  const std::uint64_t lpn = 17;
  const std::uint32_t old = f.lookup(lpn);
  const std::uint32_t old_block = f.block_of_ppa(old);
  const std::uint32_t before = f.valid_pages(old_block);
  const std::uint32_t plane = f.plane_of_lpn(lpn);
  const std::uint32_t ppa = f.allocate(plane, false);
  nand.program(f.decode(ppa), 0xABCDu);
  f.map(lpn, ppa);
  CHECK(f.lookup(lpn) == ppa);
  CHECK(f.owner(ppa) == lpn);
  CHECK(f.owner(old) == kUnmapped);
  CHECK(f.valid_pages(old_block) == before - 1);
  CHECK(nand.read(f.decode(ppa)) == 0xABCDu);
  // A GC copy of another image page whose mapping has not moved: the mapping follows it.
  const std::uint64_t other = 18;
  const std::uint32_t from = f.lookup(other);
  const std::uint32_t to = f.allocate(f.plane_of_lpn(other), true);
  nand.program(f.decode(to), nand.read(f.decode(from)));
  CHECK(f.relocate(other, to, from));
  CHECK(f.lookup(other) == to);
  CHECK(nand.read(f.decode(to)) == token_of(other));
  // A GC copy of an image page whose logical page the host rewrote after the copy was
  // read, and one whose page was trimmed: both stale, the mapping stays.
  for (const bool trim : {false, true}) {
    const std::uint64_t moved = trim ? 21 : 20;
    const std::uint32_t src = f.lookup(moved);
    REQUIRE(f.owner(src) == moved);
    const std::uint32_t copy = f.allocate(f.plane_of_lpn(moved), true);
    nand.program(f.decode(copy), nand.read(f.decode(src)));
    std::uint32_t host = kUnmapped;
    if (trim) {
      f.trim(moved);
    } else {
      host = f.allocate(f.plane_of_lpn(moved), false);
      nand.program(f.decode(host), 0x5678u);
      f.map(moved, host);
    }
    CHECK_FALSE(f.relocate(moved, copy, src));
    CHECK(f.lookup(moved) == host);
    CHECK(f.owner(copy) == kUnmapped);
    CHECK(f.owner(src) == kUnmapped);
  }
  // A trim of an image page unmaps it.
  const std::uint32_t trimmed = f.lookup(19);
  f.trim(19);
  CHECK(f.lookup(19) == kUnmapped);
  CHECK(f.owner(trimmed) == kUnmapped);
  // GC of a whole image block: its valid pages are the image's, and after the erase the
  // NAND reads the block as erased (no longer from the image).
  const std::uint32_t victim = take_greedy_victim(f, plane);
  REQUIRE(victim != kUnmapped);
  std::vector<std::uint32_t> pages;
  f.valid_ppas(victim, pages);
  CHECK(pages.size() == f.valid_pages(victim));
  for (std::uint32_t src : pages) {
    const std::uint64_t owner = f.owner(src);
    REQUIRE(owner < fill);
    REQUIRE(nand.read(f.decode(src)) == token_of(owner));
    const std::uint32_t dst = f.allocate(plane, true);
    REQUIRE(dst != kUnmapped);
    nand.program(f.decode(dst), nand.read(f.decode(src)));
    REQUIRE(f.relocate(owner, dst, src));
    REQUIRE(nand.read(f.decode(f.lookup(owner))) == token_of(owner));
  }
  CHECK(f.valid_pages(victim) == 0);
  nand.erase(f.decode(victim * cfg.nand.pages_per_block));
  f.erased(victim);
  CHECK(nand.read(f.decode(victim * cfg.nand.pages_per_block)) == kErasedToken);
  const std::uint32_t first = victim * cfg.nand.pages_per_block;
  nand.program(f.decode(first), 0x1234u);
  CHECK(nand.read(f.decode(first)) == 0x1234u);
}

TEST_CASE("ftl: the mapping moves from its hash map to its array past 1/32 of the logical pages", "[ftl][mapping]") {
  const FtlConfig cfg = geometry(64);
  Ftl f(cfg);
  const std::uint64_t n = f.logical_pages() / 32;
  std::vector<std::uint32_t> where;
  for (std::uint64_t lpn = 0; lpn <= n; ++lpn) {
    CHECK_FALSE(f.l2p_dense());
    const std::uint32_t ppa = f.allocate(f.plane_of_lpn(lpn * 7), false);
    f.map(lpn * 7, ppa);
    where.push_back(ppa);
  }
  CHECK(f.l2p_dense());
  for (std::uint64_t lpn = 0; lpn <= n; ++lpn) {
    REQUIRE(f.lookup(lpn * 7) == where[lpn]);
    REQUIRE(f.owner(where[lpn]) == lpn * 7);
  }
  CHECK(f.lookup(1) == kUnmapped);
  f.trim(7);
  CHECK(f.lookup(7) == kUnmapped);
  CHECK(f.owner(where[1]) == kUnmapped);
}

TEST_CASE("steady image: unaged, it is the page-by-page replay's state, and a run continues from it alike",
          "[image][precondition]") {
  // Fills that end on a block boundary of every plane, inside a block, and tiny.
  for (const double frac : {1.0, 0.75, 0.3301, 0.001}) {
    for (std::uint32_t ppb : {64u, 48u}) {
      const FtlConfig cfg = geometry(ppb);
      Ftl img(cfg), ref(cfg);
      LazyBackdoor inand(cfg.nand);
      test::EngineBackdoor rnand(cfg.nand);
      const auto fill = static_cast<std::uint64_t>(frac * static_cast<double>(img.logical_pages()));
      INFO("fill " << fill << " of " << img.logical_pages() << ", " << ppb << " pages per block");
      img.precondition_image(fill, 0.0, 3, inand, token_of);
      ref.precondition(fill, 0, 3, rnand, token_of);
      REQUIRE(img.image() != nullptr);
      CHECK_FALSE(img.image()->aged());
      for (std::uint64_t lpn = 0; lpn < img.logical_pages(); ++lpn) REQUIRE(img.lookup(lpn) == ref.lookup(lpn));
      const std::uint32_t pages = static_cast<std::uint32_t>(cfg.nand.total_pages());
      for (std::uint32_t ppa = 0; ppa < pages; ++ppa) {
        REQUIRE(img.owner(ppa) == ref.owner(ppa));
        REQUIRE(inand.read(img.decode(ppa)) == rnand.read(ref.decode(ppa)));
      }
      for (std::uint32_t g = 0; g < img.planes() * cfg.nand.blocks_per_plane; ++g) {
        REQUIRE(img.valid_pages(g) == ref.valid_pages(g));
        REQUIRE(img.erase_count(g) == ref.erase_count(g));
      }
      // The same writes land on the same pages (the open blocks' write points and the
      // free pools agree), and GC, once needed, picks the same victims.
      std::uint64_t x = 77;
      for (int i = 0; i < 6000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const std::uint64_t lpn = x % std::max<std::uint64_t>(fill, 1);
        const std::uint32_t plane = img.plane_of_lpn(lpn);
        REQUIRE(img.free_blocks(plane) == ref.free_blocks(plane));
        if (img.gc_needed(plane)) {
          const std::uint32_t vi = take_greedy_victim(img, plane), vr = take_greedy_victim(ref, plane);
          REQUIRE(vi == vr);
          if (vi == kUnmapped) break;
          std::vector<std::uint32_t> a, b;
          img.valid_ppas(vi, a);
          ref.valid_ppas(vr, b);
          REQUIRE(a == b);
          for (std::uint32_t from : a) {
            const std::uint32_t ti = img.allocate(plane, true), tr = ref.allocate(plane, true);
            REQUIRE(ti == tr);
            const std::uint64_t owner = img.owner(from);
            REQUIRE(owner == ref.owner(from));
            inand.program(img.decode(ti), inand.read(img.decode(from)));
            img.programmed(ti);
            ref.programmed(tr);
            REQUIRE(img.relocate(owner, ti, from));
            REQUIRE(ref.relocate(owner, tr, from));
          }
          img.erased(vi);
          ref.erased(vr);
          inand.erase(img.decode(vi * ppb));
          continue;
        }
        const std::uint32_t pi = img.allocate(plane, false), pr = ref.allocate(plane, false);
        REQUIRE(pi == pr);
        if (pi == kUnmapped) break;
        inand.program(img.decode(pi), static_cast<Token>(i + 7));
        img.programmed(pi);
        ref.programmed(pr);
        img.map(lpn, pi);
        ref.map(lpn, pr);
        REQUIRE(img.owner(pi) == lpn);
        REQUIRE(inand.read(img.decode(img.lookup(lpn))) == static_cast<Token>(i + 7));
      }
      for (std::uint64_t lpn = 0; lpn < img.logical_pages(); ++lpn) REQUIRE(img.lookup(lpn) == ref.lookup(lpn));
    }
  }
}

TEST_CASE("steady image: an aged erase history is one call per free block, the same as erase by erase",
          "[image][precondition]") {
  // Preconditioning at any age costs one call per block (issue 39: 1.1 s at age 1000 on
  // the bench device when each erase was a call); the NAND keeps the same counts.
  const FtlConfig cfg = geometry(64);
  const std::uint32_t B = cfg.nand.blocks_per_plane;
  for (const double age : {1.0, 40.0}) {
    Ftl lazy_f(cfg), eager_f(cfg);
    LazyBackdoor lazy(cfg.nand);
    test::EngineBackdoor eager(cfg.nand);  // erases one at a time
    lazy_f.precondition_image(lazy_f.logical_pages(), age, 5, lazy, token_of);
    eager_f.precondition_image(eager_f.logical_pages(), age, 5, eager, token_of);
    std::uint32_t max_free = 0;
    for (std::uint32_t g = 0; g < lazy_f.planes() * B; ++g) {
      const PhysAddr a = lazy_f.decode(g * cfg.nand.pages_per_block);
      const std::uint32_t n = lazy.ch[a.channel]->erase_count(a.chip, a.die, a.plane, a.block);
      REQUIRE(n == eager.ch[a.channel]->erase_count(a.chip, a.die, a.plane, a.block));
      REQUIRE(n == lazy_f.erase_count(g));
      REQUIRE(lazy.ch[a.channel]->write_pointer(a.chip, a.die, a.plane, a.block) ==
              eager.ch[a.channel]->write_pointer(a.chip, a.die, a.plane, a.block));
      if (lazy_f.valid_pages(g) == 0) max_free = std::max(max_free, n);
    }
    CHECK(max_free > (age > 1 ? 1u : 0u));  // free blocks erased many times over
  }
}

TEST_CASE("steady image: aged, each plane starts at its own point of the GC cycle", "[image][precondition]") {
  const FtlConfig cfg = geometry(64);
  const std::uint32_t B = cfg.nand.blocks_per_plane, ppb = cfg.nand.pages_per_block;
  Ftl f(cfg);
  LazyBackdoor nand(cfg.nand);
  f.precondition_image(f.logical_pages(), 1.0, 13, nand, token_of);
  const SteadyImage& img = *f.image();
  std::set<std::uint32_t> host_points, gc_points;
  for (std::uint32_t p = 0; p < f.planes(); ++p) {
    const SteadyImage::Shape& s = img.shape(p);
    REQUIRE(s.host_open);
    REQUIRE(s.gc_open);
    CHECK(s.host_pages < ppb);
    CHECK(s.gc_pages < ppb);
    host_points.insert(s.host_pages);
    gc_points.insert(s.gc_pages);
    CHECK(f.free_blocks(p) == 4);  // the GC low mark: no GC until the host fills its open block
    CHECK_FALSE(f.gc_needed(p));
  }
  CHECK(host_points.size() >= f.planes() / 2);  // drawn per plane (8 planes)
  CHECK(gc_points.size() >= f.planes() / 2);
  // A plane's host writes continue its open block at its write point; GC starts when it
  // is full and the next block is taken, not before.
  const std::uint32_t plane = 3;
  std::uint64_t lpn = 0;
  while (f.plane_of_lpn(lpn) != plane) ++lpn;
  const std::uint32_t left = ppb - img.shape(plane).host_pages;
  const std::uint32_t open = img.block_of_age(plane, img.shape(plane).full) + plane * B;
  for (std::uint32_t i = 0; i < left; ++i) {
    const std::uint32_t ppa = f.allocate(plane, false);
    REQUIRE(f.block_of_ppa(ppa) == open);
    REQUIRE(ppa % ppb == img.shape(plane).host_pages + i);
    REQUIRE(nand.read(f.decode(ppa)) == kErasedToken);
    nand.program(f.decode(ppa), 0x700u + i);
    f.programmed(ppa);
    const std::uint64_t l = lpn + std::uint64_t{i} * f.planes();
    const std::uint32_t old = f.lookup(l);
    f.map(l, ppa);
    REQUIRE(f.owner(ppa) == l);
    REQUIRE(f.owner(old) == kUnmapped);
    REQUIRE_FALSE(f.gc_needed(plane));
  }
  // The image's pages of that block keep their owners, the run's pages theirs.
  std::vector<std::uint32_t> valid;
  f.valid_ppas(open, valid);
  for (std::uint32_t ppa : valid) {
    const std::uint64_t owner = f.owner(ppa);
    REQUIRE(f.lookup(owner) == ppa);
    if (ppa % ppb < img.shape(plane).host_pages) REQUIRE(nand.read(f.decode(ppa)) == token_of(owner));
  }
  const std::uint32_t next = f.allocate(plane, false);
  REQUIRE(next != kUnmapped);
  CHECK(f.block_of_ppa(next) != open);
  CHECK(f.gc_needed(plane));
}
