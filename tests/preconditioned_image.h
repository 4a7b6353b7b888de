// An FTL and its NAND preconditioned as a steady image, small enough for unit tests
// (tests/controller/steady_image_test.cpp, tests/accel/image_results_test.cpp).
#pragma once

#include <cstdint>

#include "controller/ftl.h"
#include "tests/engine_backdoor.h"

namespace ssd::ctrl::test {

inline Token token_of(std::uint64_t lpn) { return static_cast<Token>(lpn * 2654435761u) | 1u; }

inline ctrl::FtlConfig geometry(std::uint32_t pages_per_block) {
  ctrl::FtlConfig f;
  f.nand.channels = 2;
  f.nand.chips_per_channel = 2;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 64;
  f.nand.pages_per_block = pages_per_block;
  f.nand.page_bytes = 4096;
  f.overprovisioning = 0.1;
  f.gc_threshold = 0.05;
  return f;
}

struct LazyBackdoor : EngineBackdoor {
  explicit LazyBackdoor(const nand::NandConfig& n) : EngineBackdoor(n, true) {}
};

// An FTL and its NAND preconditioned to 3/4 of the logical pages, aged one drive write.
struct Preconditioned {
  explicit Preconditioned(std::uint64_t seed, std::uint32_t pages_per_block = 64)
      : cfg(geometry(pages_per_block)), f(cfg), nand(cfg.nand), fill(f.logical_pages() * 3 / 4) {
    f.precondition_image(fill, 1.0, seed, nand, token_of);
  }
  ctrl::FtlConfig cfg;
  ctrl::Ftl f;
  LazyBackdoor nand;
  std::uint64_t fill;
};

}  // namespace ssd::ctrl::test
