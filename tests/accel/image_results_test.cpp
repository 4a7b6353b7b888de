// accel/image_results.h: the table of the preconditioned image's lookups that the
// lookahead thread fills, and the image's lookups that ask it first. Without the kernel.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "accel/image_results.h"
#include "controller/steady_image.h"
#include "tests/preconditioned_image.h"

using namespace ssd;
using namespace ssd::ctrl;
using accel::ImageResultTable;
using test::Preconditioned;

TEST_CASE("image results: lookups answered from results another thread computes meanwhile are the image's own",
          "[accel][image]") {
  Preconditioned pre(9);
  Ftl& f = pre.f;
  SteadyImage& img = *f.image();
  const std::uint64_t pages = std::uint64_t{f.planes()} * pre.cfg.nand.blocks_per_plane * pre.cfg.nand.pages_per_block;
  std::vector<std::uint32_t> l2p(f.logical_pages() + 8);
  std::vector<std::uint64_t> p2l(pages);
  for (std::uint64_t lpn = 0; lpn < l2p.size(); ++lpn) l2p[lpn] = img.l2p(lpn);
  for (std::uint32_t ppa = 0; ppa < pages; ++ppa) p2l[ppa] = img.p2l(ppa);
  // 16 words per lookup: most results are overwritten by others before they are asked.
  const std::unique_ptr<ImageResultTable> made = ImageResultTable::make(img, 4);
  REQUIRE(made);
  ImageResultTable& table = *made;
  img.set_results(&table);
  struct Unset {
    SteadyImage& img;
    ~Unset() { img.set_results(nullptr); }
  } unset{img};
  unsigned sum = 0;  // each address given is read: under the sanitizers, one outside the table fails
  auto touch = [&sum](const void* p) { sum += *static_cast<const volatile unsigned char*>(p); };
  auto rnd_from = [](std::uint64_t& x, std::uint64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % n;
  };

  SECTION("a result the lookups' thread computed is kept for the next lookup of the same page") {
    const std::uint32_t ppa = l2p[7];
    CHECK(img.p2l(ppa) == p2l[ppa]);
    const std::uint64_t hits = table.hits();
    CHECK(img.p2l(ppa) == p2l[ppa]);
    CHECK(table.hits() == hits + 1);
    CHECK(img.l2p(7) == ppa);
    CHECK(img.l2p(7) == ppa);
    CHECK(table.hits() == hits + 2);
  }

  SECTION("a page precomputed from its side answers both lookups: its owner, and the owner's page") {
    std::uint32_t valid = 0, stale = 0;
    for (std::uint32_t ppa = 0; ppa < pages; ppa += 37) {
      table.precompute_page(ppa);
      const std::uint64_t hits = table.hits(), misses = table.misses();
      REQUIRE(img.p2l(ppa) == p2l[ppa]);
      if (p2l[ppa] != SteadyImage::kNoPage) {
        REQUIRE(img.l2p(p2l[ppa]) == ppa);
        REQUIRE(table.hits() == hits + 2);
        ++valid;
      } else {
        REQUIRE(table.hits() == hits + 1);  // a page the image holds no data in
        ++stale;
      }
      REQUIRE(table.misses() == misses);
    }
    CHECK(valid > 0);
    CHECK(stale > 0);
    table.precompute_page(static_cast<std::uint32_t>(pages));  // past the device: nothing
  }

  SECTION("another thread precomputes the pages the lookups then ask, some of them, and others") {
    // The worker computes a random sequence of pages (some past the image's fill or the
    // device); the lookups follow the same sequence behind it, asking some pages through
    // the FTL, some of the pages they hold, and pages never precomputed.
    constexpr int kSteps = 200000;
    std::atomic<int> done{0};
    std::thread worker([&] {
      std::uint64_t x = 88172645463325252ull;
      std::uint64_t z = 99991ull;
      for (int i = 0; i < kSteps; ++i) {
        table.precompute(rnd_from(x, l2p.size()));
        if (i % 4 == 0) table.precompute_page(static_cast<std::uint32_t>(rnd_from(z, pages)));  // a GC's page
        done.store(i + 1, std::memory_order_release);
      }
    });
    std::uint64_t x = 88172645463325252ull, y = 1234567ull;
    for (int i = 0; i < kSteps; ++i) {
      while (done.load(std::memory_order_acquire) < i && rnd_from(y, 4) != 0) std::this_thread::yield();
      const std::uint64_t lpn = rnd_from(x, l2p.size());
      switch (rnd_from(y, 5)) {
        case 0: REQUIRE(img.l2p(lpn) == l2p[lpn]); break;
        case 1: touch(table.l2p_address(lpn)); REQUIRE(img.l2p(lpn) == l2p[lpn]); break;
        case 2:
          if (lpn < f.logical_pages()) REQUIRE(f.lookup(lpn) == (lpn < pre.fill ? l2p[lpn] : kUnmapped));
          break;
        case 3:
          if (l2p[lpn] != 0xFFFFFFFFu) {
            touch(table.p2l_address(l2p[lpn]));
            REQUIRE(img.p2l(l2p[lpn]) == p2l[l2p[lpn]]);
            REQUIRE(img.p2l(l2p[lpn]) == lpn);
          }
          break;
        default: {
          const std::uint32_t ppa = static_cast<std::uint32_t>(rnd_from(y, pages));
          REQUIRE(img.p2l(ppa) == p2l[ppa]);
        }
      }
    }
    worker.join();
    // The worker's last page is in the tables now: its lookups are answered from them.
    std::uint64_t state = 88172645463325252ull, last = 0;
    for (int i = 0; i < kSteps; ++i) last = rnd_from(state, l2p.size());
    const std::uint64_t hits = table.hits();
    REQUIRE(img.l2p(last) == l2p[last]);
    if (last < pre.fill) {
      REQUIRE(img.p2l(l2p[last]) == last);
      CHECK(table.hits() == hits + 2);
    }
    CHECK(table.misses() > 0);
    CHECK(sum > 0);
  }
}

TEST_CASE("image results: no table of a size out of range", "[accel][image]") {
  Preconditioned pre(9);
  const SteadyImage& img = *pre.f.image();
  CHECK(ImageResultTable::make(img, 1));
  CHECK(ImageResultTable::make(img, 17));
  CHECK_FALSE(ImageResultTable::make(img, 0));
  CHECK_FALSE(ImageResultTable::make(img, 31));
}

