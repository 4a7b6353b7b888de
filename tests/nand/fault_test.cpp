// The NAND's fault model (nand/fault_model.h) and what the channel engine does with it:
// seeded factory bad blocks, the wear curves, bit errors per read level, the script's
// injections, and the timelines of shifted, soft-decision and failed operations against
// the equations of docs/nand-timing.md ("Faults").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/splitmix.h"
#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;

namespace {

NandConfig small() {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 1;
  c.dies_per_chip = 1;
  c.planes_per_die = 2;
  c.blocks_per_plane = 64;
  c.pages_per_block = 16;
  c.page_bytes = 4096;
  c.bus_mts = 100;  // 10 ns a cycle: C = 70 ns, D = 40.96 us
  c.t_read_us = 50;
  c.t_prog_us = 500;
  c.t_erase_us = 3000;
  c.cache_read = false;
  c.cache_program = false;
  return c;
}

FaultModel model(const NandConfig& n, const FaultConfig& f) {
  return FaultModel(f, n.channels, n.chips_per_channel, n.dies_per_chip, n.planes_per_die, n.blocks_per_plane,
                    n.pages_per_block);
}

double us(Tick t) { return ticks_to_us(t); }
Approx at(double v) { return Approx(v).epsilon(0).margin(1e-5); }

}  // namespace

TEST_CASE("faults: factory bad blocks are the fraction asked, per plane, drawn from the seed", "[nand][faults]") {
  NandConfig n = small();
  n.channels = 2;
  FaultConfig f;
  f.bad_block_fraction = 0.1;  // 6.4 of 64: 6 per plane
  f.seed = 7;
  const FaultModel a = model(n, f), b = model(n, f);
  f.seed = 8;
  const FaultModel c = model(n, f);
  REQUIRE(a.bad_blocks_per_plane() == 6);
  bool differ = false;
  for (std::uint32_t p = 0; p < 4; ++p) {
    CHECK(a.bad_blocks(p).size() == 6);
    CHECK(a.bad_blocks(p) == b.bad_blocks(p));  // same seed, same blocks
    differ = differ || a.bad_blocks(p) != c.bad_blocks(p);
    for (std::uint32_t blk : a.bad_blocks(p)) CHECK(a.factory_bad(p, blk));
  }
  CHECK(differ);
  CHECK(a.bad_blocks(0) != a.bad_blocks(1));  // each plane its own places
}

TEST_CASE("faults: the wear curve runs from its value new to its value at the rated cycles", "[nand][faults]") {
  const NandConfig n = small();
  FaultConfig f;
  f.rated_cycles = 3000;
  f.wear_exponent = 2;
  f.program_fail_new = 1e-6;
  f.program_fail_eol = 1e-3;
  f.rber_new = 1e-5;
  f.rber_eol = 1e-3;
  f.retry_gain = 0.5;
  f.retry_steps = 3;
  f.soft_gain = 0.25;
  f.wear_cycles = 0;
  const FaultModel m = model(n, f);
  CHECK(m.program_fail_probability(0) == Approx(1e-6));
  CHECK(m.program_fail_probability(3000) == Approx(1e-3));
  CHECK(m.program_fail_probability(1500) == Approx(1e-6 + (1e-3 - 1e-6) * 0.25));
  CHECK(m.rber(3000, 0) == Approx(1e-3));
  CHECK(m.rber(3000, 2) == Approx(1e-3 * 0.25));      // two retry steps
  CHECK(m.rber(3000, 4) == Approx(1e-3 * 0.125 * 0.25));  // soft: the last step's, times soft_gain
  f.wear_cycles = 3000;  // aged without its history
  CHECK(model(n, f).rber(0, 0) == Approx(1e-3));
}

TEST_CASE("faults: a codeword's bit errors average the RBER times its bits, the same on every draw", "[nand][faults]") {
  const NandConfig n = small();
  FaultConfig f;
  f.rber_new = f.rber_eol = 2e-3;  // 16.4 errors a 1 KiB codeword
  FaultModel m = model(n, f);
  double sum = 0;
  const int reads = 4000;
  for (int i = 0; i < reads; ++i) sum += m.read_errors(0, i % 64, i / 64 % 16, 0, 0, 1, 0);
  CHECK(sum / reads == Approx(2e-3 * 8192).epsilon(0.03));
  CHECK(m.read_errors(1, 5, 3, 10, 0, 4, 0) == m.read_errors(1, 5, 3, 10, 0, 4, 0));  // the cells' state, not chance
  // The worst of four codewords is worse than one's, on average; a retry level is better.
  double worst4 = 0, shifted = 0;
  for (int i = 0; i < reads; ++i) {
    worst4 += m.read_errors(0, i % 64, i / 64 % 16, 0, 0, 4, 0);
    shifted += m.read_errors(0, i % 64, i / 64 % 16, 0, 1, 1, 0);
  }
  CHECK(worst4 > sum);
  CHECK(shifted / reads == Approx(2e-3 * 0.5 * 8192).epsilon(0.05));
}

// The draws as docs/nand-timing.md defines them, one Poisson draw per codeword from its
// own two uniforms and the worst kept: the model takes one search over the largest
// uniform below a mean of 30 (inversion is monotone in its uniform) and keeps the wear
// curves per erase count, which must give the same answer bit for bit.
TEST_CASE("faults: a read's worst codeword is the per-codeword definition's, bit for bit", "[nand][faults]") {
  using splitmix64::mix;
  const auto normal = [](double u1, double u2) {
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2);
  };
  const auto reference = [&](const FaultConfig& f, const NandConfig& n, std::uint32_t plane, std::uint32_t block,
                             std::uint32_t page, std::uint32_t erases, std::uint32_t level, std::uint32_t codewords) {
    const auto uniform = [&](std::uint64_t a, std::uint64_t b, std::uint64_t c) {
      std::uint64_t z = mix(f.seed * 0x9E3779B97F4A7C15ull + 4);  // 4: the read draws' tag
      z = mix(mix(mix(z ^ a) ^ b) ^ c);
      return static_cast<double>(z >> 11) * 0x1.0p-53;
    };
    const double pe = erases + f.wear_cycles;
    double r = f.rber_new + (f.rber_eol - f.rber_new) * std::pow(pe / f.rated_cycles, f.wear_exponent);
    r *= std::pow(f.retry_gain, static_cast<double>(std::min(level, f.retry_steps)));
    if (level >= f.retry_steps + 1) r *= f.soft_gain;
    r = std::min(r, 0.5);
    const std::uint64_t where = (std::uint64_t{plane} * n.blocks_per_plane + block) * n.pages_per_block + page;
    if (f.rber_sigma > 0) {
      const double z = normal(uniform(where, erases, 1ull << 41), uniform(where, erases, 1ull << 42));
      r = std::min(0.5, r * std::exp(f.rber_sigma * z - 0.5 * f.rber_sigma * f.rber_sigma));
    }
    const double mean = r * 8.0 * f.codeword_bytes;
    std::uint32_t worst = 0;
    for (std::uint32_t cw = 0; cw < codewords; ++cw) {
      const double u = uniform(where, std::uint64_t{erases} << 8 | level, cw);
      const double u2 = uniform(where, std::uint64_t{erases} << 8 | level, cw | 1ull << 40);
      std::uint32_t k = 0;
      if (mean > 30) {
        const double x = std::floor(mean + std::sqrt(mean) * normal(u, u2) + 0.5);
        k = x <= 0 ? 0 : x >= 0xFFFE ? 0xFFFE : static_cast<std::uint32_t>(x);
      } else {
        double p = std::exp(-mean), cdf = p;
        while (u > cdf && p > 0) {
          ++k;
          p *= mean / k;
          cdf += p;
        }
      }
      worst = std::max(worst, k);
    }
    return std::min<std::uint32_t>(worst, FaultModel::kBeyond - 1);
  };
  const NandConfig n = small();
  for (const double sigma : {0.0, 0.5}) {
    FaultConfig f;
    f.seed = 11;
    f.rber_new = 1e-4;
    f.rber_eol = 8e-3;  // a mean of 65 a codeword at the rated cycles: both draws' regimes
    f.rber_sigma = sigma;
    f.wear_cycles = 500;
    FaultModel m = model(n, f);
    std::uint64_t draws = 0, differ = 0;
    for (std::uint32_t erases : {0u, 700u, 1500u, 2500u, 2500u, 0u})  // again: the kept curves
      for (std::uint32_t level = 0; level <= f.retry_steps + 1; ++level)
        for (std::uint32_t i = 0; i < 200; ++i) {
          const std::uint32_t plane = i % 2, block = i * 7 % 64, page = i % 16, codewords = i % 9;  // 0: none
          ++draws;
          differ += m.read_errors(plane, block, page, erases, level, codewords, 0) !=
                    reference(f, n, plane, block, page, erases, level, codewords);
        }
    INFO("sigma " << sigma << ": " << differ << " of " << draws << " reads differ");
    CHECK(differ == 0);
  }
}

TEST_CASE("faults: page-to-page variation keeps the mean RBER and spreads the pages", "[nand][faults]") {
  const NandConfig n = small();
  FaultConfig f;
  f.rber_new = f.rber_eol = 2e-3;
  f.rber_sigma = 0.6;
  FaultModel m = model(n, f);
  double sum = 0, below = 0, above = 0;
  const int reads = 1024;
  for (int i = 0; i < reads; ++i) {
    const double e = m.read_errors(0, i % 64, i / 64 % 16, 0, 0, 1, 0);
    sum += e;
    below += e < 8;   // half the curve's 16.4 or less
    above += e > 33;  // twice or more
  }
  CHECK(sum / reads == Approx(2e-3 * 8192).epsilon(0.08));
  CHECK(below > 50);  // without the spread: P(Poisson(16.4) < 8) is 1 %
  CHECK(above > 50);
}

TEST_CASE("faults: the script's injections, each once from its time, and its errors by file and line", "[nand][faults]") {
  const std::vector<FaultInjection> inj = parse_fault_script(
      "# comment\n"
      "program_fail 0 0 0 1 5 3\n"
      "erase_fail 0 0 0 0 9 100.5\n"
      "read_retry 0 0 0 1 5 2 3   # trailing comment\n",
      "f.txt");
  REQUIRE(inj.size() == 3);
  CHECK(inj[1].at == us_to_ticks(100.5));
  CHECK(inj[2].steps == 3);
  NandConfig n = small();
  FaultConfig f;
  f.injections = inj;
  f.script = "f.txt";
  FaultModel m = model(n, f);
  CHECK_FALSE(m.program_fails(1, 5, 2, 0, 0));  // another page
  CHECK(m.program_fails(1, 5, 3, 0, 0));
  CHECK_FALSE(m.program_fails(1, 5, 3, 0, 0));  // once
  CHECK_FALSE(m.erase_fails(0, 9, 0, us_to_ticks(100)));  // not before its time
  CHECK(m.erase_fails(0, 9, 0, us_to_ticks(100.5)));
  // Reads of the page below level 3 are beyond every decoder, until one at level 3.
  CHECK(m.read_errors(1, 5, 2, 0, 0, 4, 0) == FaultModel::kBeyond);
  CHECK(m.read_errors(1, 5, 2, 0, 2, 4, 0) == FaultModel::kBeyond);
  CHECK(m.read_errors(1, 5, 2, 0, 3, 4, 0) == 0);
  CHECK(m.read_errors(1, 5, 2, 0, 0, 4, 0) == 0);  // served: the page reads as the model says

  auto error_of = [](const std::string& text) {
    try {
      parse_fault_script(text, "s.txt");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("\nexplode 0 0 0 0 0") == "s.txt:2: kind: 'explode' is not program_fail, erase_fail or read_retry");
  CHECK(error_of("program_fail 0 0 0 0 x 1") == "s.txt:1: block: 'x' is not a whole number below 2^32");
  CHECK(error_of("read_retry 0 0 0 0 1 1 0") == "s.txt:1: steps: must be at least 1");
  CHECK(error_of("erase_fail 0 0 0 0") == "s.txt:1: erase_fail: takes 5 numbers and an optional time in us, got 4");
  CHECK(error_of("erase_fail 0 0 0 0 1 -3") == "s.txt:1: at_us: '-3' is not a time in [0, 9.2e12] us");
  f.injections = parse_fault_script("program_fail 0 0 0 2 0 0\n", "g.txt");
  f.script = "g.txt";
  CHECK_THROWS_WITH(model(n, f), "g.txt:1: plane: outside the NAND's geometry");
}

TEST_CASE("faults: a shifted read adds SET FEATURES, a soft read its sensings and pages", "[nand][faults][read]") {
  const NandConfig n = small();
  FaultConfig f;
  f.rber_new = f.rber_eol = 1e-4;
  f.retry_steps = 2;
  f.soft_senses = 3;
  f.retry_cmd_cycles = 6;
  FaultModel m = model(n, f);
  Harness h(n, 0, &m);
  const double C = 0.07, S = 0.06, D = 40.96, tR = 50;
  h.fill(0, 0, 0b01, 3, 5);
  FlashCommand& r0 = h.submit(FlashOp::Read, 0, 0, 0b01, 3, 4);
  h.run();
  CHECK(us(r0.t_done - r0.t_submit) == at(C + tR + D));
  FlashCommand& r1 = h.make(FlashOp::Read, 0, 0, 0b01, 3, 4);
  r1.read_level = 2;  // the last retry step
  h.engine.submit(&r1, h.now);
  h.run();
  CHECK(us(r1.t_array_start - r1.t_submit) == at(C + S));
  CHECK(us(r1.t_done - r1.t_submit) == at(C + S + tR + D));
  CHECK(us(r1.bus_cmd_ticks) == at(C + S));
  FlashCommand& soft = h.make(FlashOp::Read, 0, 0, 0b01, 3, 4);
  soft.read_level = 3;  // soft-decision: 3 sensings, 3 pages out
  h.engine.submit(&soft, h.now);
  h.run();
  CHECK(us(soft.t_array_end - soft.t_array_start) == at(3 * tR));
  CHECK(us(soft.t_done - soft.t_submit) == at(C + S + 3 * tR + 3 * D));
  CHECK(h.engine.counters().retry_reads == 1);
  CHECK(h.engine.counters().soft_reads == 1);
  CHECK(r0.status == FlashStatus::Ok);  // the NAND reports the errors; the ECC judges them
}

TEST_CASE("faults: a failed program or erase takes its full time and reports FAIL for its plane", "[nand][faults]") {
  const NandConfig n = small();
  FaultConfig f;
  f.script = "inline";
  f.injections = parse_fault_script("program_fail 0 0 0 1 7 0\nerase_fail 0 0 0 0 9\n", "inline");
  FaultModel m = model(n, f);
  Harness h(n, 0, &m);
  const double C = 0.07, D = 40.96, tP = 500, E = 0.05, tB = 3000;
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b11, 7, 0);  // two-plane: plane 1 fails
  h.run();
  CHECK(w.status == FlashStatus::ProgramFailed);
  CHECK(w.failed_planes == 0b10);
  CHECK(us(w.t_done - w.t_submit) == at(2 * (C + D) + tP));
  CHECK(h.engine.backdoor_read(0, 0, 0, 7, 0) == w.token[0]);  // plane 0's page is good
  CHECK(h.engine.backdoor_read(0, 0, 1, 7, 0) == kFailedProgramToken);
  FlashCommand& e = h.submit(FlashOp::Erase, 0, 0, 0b01, 9, 0);
  h.run();
  CHECK(e.status == FlashStatus::EraseFailed);
  CHECK(e.failed_planes == 0b01);
  CHECK(us(e.t_done - e.t_submit) == at(E + tB));
  FlashCommand& again = h.submit(FlashOp::Erase, 0, 0, 0b01, 9, 0);  // the injection was used
  h.run();
  CHECK(again.status == FlashStatus::Ok);
  CHECK(h.engine.counters().failed_programs == 1);
  CHECK(h.engine.counters().failed_erases == 1);
}

TEST_CASE("faults: a factory bad block fails every operation", "[nand][faults]") {
  const NandConfig n = small();
  FaultConfig f;
  f.bad_block_fraction = 0.05;  // 3 per plane
  FaultModel m = model(n, f);
  Harness h(n, 0, &m);
  const std::uint32_t bad = m.bad_blocks(0).front();
  h.engine.backdoor_program(0, 0, 0, bad, 0, 0x1234);  // what a read finds there
  FlashCommand& r = h.submit(FlashOp::Read, 0, 0, 0b01, bad, 0);
  h.run();
  CHECK(r.bit_errors[0] == FaultModel::kBeyond);
  FlashCommand& e = h.submit(FlashOp::Erase, 0, 0, 0b01, bad, 0);
  h.run();
  CHECK(e.status == FlashStatus::EraseFailed);
  FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b01, bad, 0);
  h.run();
  CHECK(w.status == FlashStatus::ProgramFailed);
}
