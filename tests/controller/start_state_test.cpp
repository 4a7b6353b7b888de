// Where an aged device's planes start in their GC cycle (controller/start_state.h), and
// the FTL's image built around a mean of free blocks, without the kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "controller/ftl.h"
#include "controller/start_state.h"
#include "tests/preconditioned_image.h"

using namespace ssd;
using namespace ssd::ctrl;
using test::LazyBackdoor;
using test::token_of;

namespace {

// 16 planes of 256 blocks of 64 pages, 15 % hidden, GC under 10 % free (26 blocks).
FtlConfig device() {
  FtlConfig cfg = test::geometry(64);
  cfg.nand.channels = 4;
  cfg.nand.blocks_per_plane = 256;
  cfg.overprovisioning = 0.15;
  cfg.gc_threshold = 0.1;
  return cfg;
}

GcBalance balance_of(const Ftl& f) {
  GcBalance b;
  b.blocks_per_plane = f.config().nand.blocks_per_plane;
  b.pages_per_block = f.config().nand.pages_per_block;
  b.gc_low = f.gc_low_mark();
  b.gc_reserve = f.gc_reserve();
  b.valid_pages = static_cast<double>(f.logical_pages()) / f.planes();
  return b;
}

}  // namespace

TEST_CASE("start state: the balance's write amplification is that of the image's victims", "[start][precondition]") {
  const FtlConfig cfg = device();
  const std::uint32_t ppb = cfg.nand.pages_per_block;
  for (double mean : {2.0, 10.0, 26.0}) {
    Ftl f(cfg);
    LazyBackdoor nand(cfg.nand);
    f.precondition_image_mean(f.logical_pages(), 1.0, 9, nand, token_of, mean);
    const GcBalance b = balance_of(f);
    REQUIRE(b.gc_low == 26);
    // The oldest full block is greedy's victim: its valid pages set the plane's WA. The
    // image's open blocks hold a drawn share of a block each (the balance takes half), so
    // a plane's figure differs from the balance's; their mean over the 16 planes is within 3 %.
    double sum = 0;
    for (std::uint32_t p = 0; p < f.planes(); ++p) {
      const std::uint32_t full = f.image()->shape(p).full;
      const std::uint32_t victim = f.image()->valid_at_age(p, full - 1);
      sum += static_cast<double>(ppb) / (ppb - victim);
    }
    const double image_wa = sum / f.planes();
    INFO("mean free " << mean << ": image " << image_wa << ", balance " << b.write_amplification(mean));
    CHECK(std::fabs(image_wa / b.write_amplification(mean) - 1) < 0.03);
  }
  // Fewer free blocks, emptier victims: WA rises with the free blocks.
  Ftl f(cfg);
  const GcBalance b = balance_of(f);
  double last = 0;
  for (double free = 2; free <= 26; free += 0.5) {
    CHECK(b.write_amplification(free) > last);
    last = b.write_amplification(free);
  }
}

TEST_CASE("start state: the regime and the free blocks follow from the host's and GC's rates", "[start]") {
  Ftl f(device());
  const GcBalance b = balance_of(f);
  const double wa_low = b.write_amplification(26), wa_bottom = b.write_amplification(2);
  const double H = 10;  // host pages a second per plane
  SECTION("GC that can copy twice what holding the mark takes keeps up: half the planes collect") {
    const GcBalance::Choice c = b.choose(H, 2 * H * (wa_low - 1));
    CHECK(c.regime == GcBalance::Regime::KeepsUp);
    CHECK(c.collecting == Approx(0.5));
    CHECK(c.free_blocks == Approx(25.5));
    CHECK(c.write_amplification == Approx(wa_low));
  }
  SECTION("GC bound: the free blocks where WA(f) = 1 + C / H, every plane collecting") {
    const double C = H * (b.write_amplification(12.25) - 1);
    const GcBalance::Choice c = b.choose(H, C);
    CHECK(c.regime == GcBalance::Regime::GcBound);
    CHECK(c.free_blocks == Approx(12.25).epsilon(1e-6));
    CHECK(c.collecting == 1.0);
    CHECK(c.write_amplification == Approx(1 + C / H));
  }
  SECTION("GC bound just under the mark: the planes at the mark do not collect") {
    const GcBalance::Choice c = b.choose(H, H * (b.write_amplification(25.75) - 1));
    CHECK(c.regime == GcBalance::Regime::GcBound);
    CHECK(c.free_blocks == Approx(25.75).epsilon(1e-6));
    CHECK(c.collecting == Approx(0.25).epsilon(1e-5));
  }
  SECTION("GC too slow even with the emptiest victims: at the last reserve + 1") {
    const GcBalance::Choice c = b.choose(H, H * (wa_bottom - 1) / 2);
    CHECK(c.regime == GcBalance::Regime::AtReserve);
    CHECK(c.free_blocks == 2);
    CHECK(c.collecting == 1.0);
  }
  SECTION("no host writes: at the mark, no GC") {
    const GcBalance::Choice c = b.choose(0, 100);
    CHECK(c.regime == GcBalance::Regime::KeepsUp);
    CHECK(c.free_blocks == 26);
    CHECK(c.collecting == 0);
  }
  CHECK_THROWS_AS(b.choose(-1, 10), std::invalid_argument);
  CHECK_THROWS_AS(b.choose(1, std::nan("")), std::invalid_argument);
}

TEST_CASE("start state: each plane gets the integer below or above the mean, drawn from the seed", "[start][precondition]") {
  FtlConfig cfg = device();
  cfg.nand.channels = 8;
  cfg.nand.chips_per_channel = 8;  // 128 planes
  auto start = [&](double mean, std::uint64_t seed) {
    Ftl f(cfg);
    LazyBackdoor nand(cfg.nand);
    f.precondition_image_mean(f.logical_pages(), 1.0, seed, nand, token_of, mean);
    std::vector<std::uint32_t> free(f.planes());
    for (std::uint32_t p = 0; p < f.planes(); ++p) {
      free[p] = f.free_blocks(p);
      CHECK(f.start_free_blocks()[p] == free[p]);
      CHECK(f.gc_needed(p) == (free[p] < f.gc_low_mark()));  // a run under way exactly under the mark
    }
    return free;
  };
  const std::vector<std::uint32_t> a = start(10.25, 3);
  double sum = 0;
  std::uint32_t above = 0;
  for (std::uint32_t x : a) {
    CHECK((x == 10 || x == 11));
    sum += x;
    above += x == 11;
  }
  // 128 draws of 1/4: 32 expected, a standard deviation of 4.9; within 3 of them.
  CHECK(above >= 32 - 15);
  CHECK(above <= 32 + 15);
  CHECK(start(10.25, 3) == a);  // deterministic
  CHECK(start(10.25, 4) != a);  // and the seed's
  for (std::uint32_t x : start(7, 3)) CHECK(x == 7);  // an integer: every plane at it
  // The mark itself (GC has caught up) and the last reserve + 1; nothing outside.
  for (std::uint32_t x : start(26, 3)) CHECK(x == 26);
  Ftl f(cfg);
  LazyBackdoor nand(cfg.nand);
  CHECK_THROWS_WITH(f.precondition_image_mean(f.logical_pages(), 1.0, 3, nand, token_of, 1.5),
                    Catch::Contains("from 2 (the last reserve + 1) to 26"));
  Ftl g(cfg);
  CHECK_THROWS_AS(g.precondition_image_mean(g.logical_pages(), 1.0, 3, nand, token_of, 26.5), std::invalid_argument);
}
