#include "nand/fault_model.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "common/splitmix.h"

namespace ssd::nand {

namespace {
using splitmix64::mix;
constexpr std::uint64_t kBadBlock = 1, kProgram = 2, kErase = 3, kRead = 4;
// A standard normal draw from two uniforms in [0, 1) (Box-Muller).
double normal(double u1, double u2) { return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2); }
}  // namespace

const param::Table<FaultConfig>& FaultConfig::keys() {
  // All off by default (docs/nand-timing.md, "Faults").
  static const param::Table<FaultConfig> t = [] {
    using F = FaultConfig;
    const std::string wear = " (a power law in the block's P/E cycles from its value new to its value at "
                             "nand.fault.rated_cycles: docs/nand-timing.md)";
    param::Table<F> k;
    k.integer("nand.fault.seed", &F::seed, 0, 9007199254740992ll,
              "the fault model's seed: the same config and seed give the same faults")
        .number("nand.fault.bad_block_fraction", &F::bad_block_fraction, 0, 0.5,
                "factory bad blocks: this fraction of every plane's blocks (rounded; the same count per plane, "
                "places drawn from the seed), marked before time 0; the FTL never uses them and the logical "
                "capacity comes from the good blocks")
        .number("nand.fault.rated_cycles", &F::rated_cycles, 1, 1e9, "P/E cycles of rated endurance (end of life)")
        .unit("P/E cycles")
        .number("nand.fault.wear_exponent", &F::wear_exponent, 0.01, 100, "exponent of the wear power law")
        .number("nand.fault.wear_cycles", &F::wear_cycles, 0, 1e9,
                "P/E cycles added to every block's erase count: a device aged this far without running its history")
        .unit("P/E cycles")
        .number("nand.fault.program_fail_new", &F::program_fail_new, 0, 1,
                "probability that a page program fails, new block" + wear)
        .number("nand.fault.program_fail_eol", &F::program_fail_eol, 0, 1, "the same at the rated cycles")
        .number("nand.fault.erase_fail_new", &F::erase_fail_new, 0, 1,
                "probability that a block erase fails, new block" + wear)
        .number("nand.fault.erase_fail_eol", &F::erase_fail_eol, 0, 1, "the same at the rated cycles")
        .number("nand.fault.rber_new", &F::rber_new, 0, 0.5,
                "raw bit error rate of a read at the default reference voltages, new block" + wear +
                    "; errors are drawn per ECC codeword")
        .number("nand.fault.rber_eol", &F::rber_eol, 0, 0.5, "the same at the rated cycles")
        .number("nand.fault.rber_sigma", &F::rber_sigma, 0, 5,
                "page-to-page variation: each page's raw bit error rate is the curve's times a log-normal factor "
                "of this sigma (mean 1), drawn per page and erase cycle; 0: none")
        .number("nand.fault.retry_gain", &F::retry_gain, 1e-6, 1,
                "each read-retry step (shifted reference voltages) multiplies the raw bit error rate by this")
        .integer("nand.fault.retry_steps", &F::retry_steps, 0, 64, "entries of the read-retry table (read levels 1..n)")
        .unit("steps")
        .integer("nand.fault.soft_senses", &F::soft_senses, 1, 16,
                 "a soft-decision read (the level after the last retry step): its sensings (each a tR) and the "
                 "pages of hard and soft data it moves out").unit("sensings")
        .number("nand.fault.soft_gain", &F::soft_gain, 1e-6, 1,
                "a soft-decision read's raw bit error rate: the last retry step's times this")
        .integer("nand.fault.retry_cmd_cycles", &F::retry_cmd_cycles, 1, 1000,
                 "bus cycles of the SET FEATURES that sets a read-retry level before a shifted read")
        .unit("bus cycles")
        .integer("nand.fault.codeword_bytes", &F::codeword_bytes, 64, 1 << 20,
                 "ECC codeword data bytes: bit errors are drawn and corrected per codeword").unit("bytes")
        .text("nand.fault.script", &F::script,
              "the path of a file of deterministic injections (not the injections themselves), one per line: "
              "program_fail ch chip die plane block page [at_us]; "
              "erase_fail ch chip die plane block [at_us]; read_retry ch chip die plane block page steps [at_us] "
              "(the page's reads below level `steps` are beyond every decoder); each once, from its time on");
    return k;
  }();
  return t;
}

std::vector<std::string> FaultConfig::validate() const { return param::check(*this); }

std::vector<FaultInjection> parse_fault_script(const std::string& text, const std::string& name) {
  std::vector<FaultInjection> out;
  std::istringstream in(text);
  std::string line;
  std::uint32_t no = 0;
  auto fail = [&](const std::string& field, const std::string& why) {
    throw std::invalid_argument(name + ":" + std::to_string(no) + ": " + field + ": " + why);
  };
  while (std::getline(in, line)) {
    ++no;
    if (const auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::istringstream ls(line);
    std::vector<std::string> f;
    for (std::string w; ls >> w;) f.push_back(w);
    if (f.empty()) continue;
    FaultInjection inj;
    inj.line = no;
    std::size_t need;
    if (f[0] == "program_fail") inj.kind = FaultInjection::Kind::ProgramFail, need = 7;
    else if (f[0] == "erase_fail") inj.kind = FaultInjection::Kind::EraseFail, need = 6;
    else if (f[0] == "read_retry") inj.kind = FaultInjection::Kind::ReadRetry, need = 8;
    else fail("kind", "'" + f[0] + "' is not program_fail, erase_fail or read_retry");
    if (f.size() != need && f.size() != need + 1)
      fail(f[0], "takes " + std::to_string(need - 1) + " numbers and an optional time in us, got " +
                     std::to_string(f.size() - 1));
    static const char* const names[] = {"channel", "chip", "die", "plane", "block", "page", "steps"};
    std::uint32_t v[7] = {};
    const std::size_t ints = need - 1;
    for (std::size_t i = 0; i < ints; ++i) {
      const char* field = names[i];
      const std::string& s = f[i + 1];
      std::size_t used = 0;
      unsigned long long x = 0;
      try {
        if (s.empty() || s[0] == '-') throw std::invalid_argument(s);
        x = std::stoull(s, &used, 10);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != s.size() || x > 0xFFFFFFFFull) fail(field, "'" + s + "' is not a whole number below 2^32");
      v[i] = static_cast<std::uint32_t>(x);
    }
    inj.channel = v[0], inj.chip = v[1], inj.die = v[2], inj.plane = v[3], inj.block = v[4];
    if (inj.kind != FaultInjection::Kind::EraseFail) inj.page = v[5];
    if (inj.kind == FaultInjection::Kind::ReadRetry) {
      inj.steps = v[6];
      if (inj.steps == 0) fail("steps", "must be at least 1");
    }
    if (f.size() == need + 1) {
      const std::string& s = f[need];
      std::size_t used = 0;
      double us = -1;
      try {
        us = std::stod(s, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != s.size() || !(us >= 0.0) || us > 9.2e12) fail("at_us", "'" + s + "' is not a time in [0, 9.2e12] us");
      inj.at = static_cast<std::uint64_t>(us * 1e6 + 0.5);
    }
    out.push_back(inj);
  }
  return out;
}

FaultModel::FaultModel(const FaultConfig& cfg, std::uint32_t channels, std::uint32_t chips_per_channel,
                       std::uint32_t dies_per_chip, std::uint32_t planes_per_die, std::uint32_t blocks_per_plane,
                       std::uint32_t pages_per_block)
    : cfg_(cfg), blocks_per_plane_(blocks_per_plane), pages_per_block_(pages_per_block) {
  const std::uint32_t planes = channels * chips_per_channel * dies_per_chip * planes_per_die;
  for (std::uint32_t s = 0; s <= cfg_.retry_steps; ++s)
    retry_factor_.push_back(std::pow(cfg_.retry_gain, static_cast<double>(s)));
  bad_per_plane_ = static_cast<std::uint32_t>(std::llround(cfg_.bad_block_fraction * blocks_per_plane));
  bad_.resize(planes);
  for (std::uint32_t p = 0; p < planes && bad_per_plane_; ++p) {
    // A partial Fisher-Yates shuffle of the plane's blocks, keyed by (seed, plane).
    std::vector<std::uint32_t> idx(blocks_per_plane);
    for (std::uint32_t b = 0; b < blocks_per_plane; ++b) idx[b] = b;
    for (std::uint32_t i = 0; i < bad_per_plane_; ++i) {
      const std::uint64_t r = mix(cfg_.seed * 0x9E3779B97F4A7C15ull ^ mix(kBadBlock << 56 ^ std::uint64_t{p} << 24 ^ i));
      const std::uint32_t j = i + static_cast<std::uint32_t>(r % (blocks_per_plane - i));
      std::swap(idx[i], idx[j]);
    }
    bad_[p].assign(idx.begin(), idx.begin() + bad_per_plane_);
    std::sort(bad_[p].begin(), bad_[p].end());
  }
  for (const FaultInjection& i : cfg_.injections) {
    std::string where;
    if (i.channel >= channels) where = "channel";
    else if (i.chip >= chips_per_channel) where = "chip";
    else if (i.die >= dies_per_chip) where = "die";
    else if (i.plane >= planes_per_die) where = "plane";
    else if (i.block >= blocks_per_plane) where = "block";
    else if (i.page >= pages_per_block) where = "page";
    if (!where.empty())
      throw std::invalid_argument(cfg_.script + ":" + std::to_string(i.line) + ": " + where +
                                  ": outside the NAND's geometry");
    if (i.kind == FaultInjection::Kind::ReadRetry && i.steps > cfg_.soft_level())
      throw std::invalid_argument(cfg_.script + ":" + std::to_string(i.line) + ": steps: " + std::to_string(i.steps) +
                                  " is past the soft-decision read (level " + std::to_string(cfg_.soft_level()) +
                                  ": " + param::key(&FaultConfig::retry_steps) + " + 1)");
    inj_plane_.push_back(((i.channel * chips_per_channel + i.chip) * dies_per_chip + i.die) * planes_per_die + i.plane);
  }
}

bool FaultModel::factory_bad(std::uint32_t plane, std::uint32_t block) const {
  const std::vector<std::uint32_t>& b = bad_[plane];
  return std::binary_search(b.begin(), b.end(), block);
}

double FaultModel::rber(std::uint32_t erases, std::uint32_t level) const {
  double r = curve(rber_, cfg_.rber_new, cfg_.rber_eol, erases);
  r *= retry_factor_[std::min(level, cfg_.retry_steps)];
  if (level >= cfg_.soft_level()) r *= cfg_.soft_gain;
  return std::min(r, 0.5);
}

std::uint64_t FaultModel::hash(std::uint64_t what, std::uint64_t a, std::uint64_t b) const {
  std::uint64_t z = mix(cfg_.seed * 0x9E3779B97F4A7C15ull + what);
  z = mix(z ^ a);
  return mix(z ^ b);
}

double FaultModel::uniform_of(std::uint64_t hash, std::uint64_t c) {
  return static_cast<double>(mix(hash ^ c) >> 11) * 0x1.0p-53;
}

std::uint32_t FaultModel::poisson(double mean, double u, double u2) {
  if (mean > 30) {  // the normal approximation (Box-Muller), within a fraction of a bit there
    const double k = std::floor(mean + std::sqrt(mean) * normal(u, u2) + 0.5);
    return k <= 0 ? 0 : k >= 0xFFFE ? 0xFFFE : static_cast<std::uint32_t>(k);
  }
  // Inversion by sequential search: P(0) = e^-mean, P(k) = P(k-1) * mean / k.
  double p = std::exp(-mean), cdf = p;
  std::uint32_t k = 0;
  while (u > cdf && p > 0) {
    ++k;
    p *= mean / k;
    cdf += p;
  }
  return k;
}

FaultInjection* FaultModel::injection(FaultInjection::Kind k, std::uint32_t plane, std::uint32_t block,
                                      std::uint32_t page, std::uint64_t now, bool consume) {
  for (std::size_t n = 0; n < cfg_.injections.size(); ++n) {
    FaultInjection& i = cfg_.injections[n];
    if (i.used || i.kind != k || inj_plane_[n] != plane || i.block != block || now < i.at) continue;
    if (k != FaultInjection::Kind::EraseFail && i.page != page) continue;
    if (consume) i.used = true;
    return &i;
  }
  return nullptr;
}

bool FaultModel::program_fails(std::uint32_t plane, std::uint32_t block, std::uint32_t page, std::uint32_t erases,
                               std::uint64_t now) {
  if (injection(FaultInjection::Kind::ProgramFail, plane, block, page, now, true)) return true;
  const double p = program_fail_probability(erases);
  if (p <= 0) return false;
  return uniform(kProgram, page_index(plane, block, page), erases, 0) < p;
}

bool FaultModel::erase_fails(std::uint32_t plane, std::uint32_t block, std::uint32_t erases, std::uint64_t now) {
  if (injection(FaultInjection::Kind::EraseFail, plane, block, 0, now, true)) return true;
  const double p = erase_fail_probability(erases);
  if (p <= 0) return false;
  return uniform(kErase, std::uint64_t{plane} * blocks_per_plane_ + block, erases, 0) < p;
}

std::uint16_t FaultModel::read_errors(std::uint32_t plane, std::uint32_t block, std::uint32_t page,
                                      std::uint32_t erases, std::uint32_t level, std::uint32_t codewords,
                                      std::uint64_t now) {
  if (FaultInjection* i = injection(FaultInjection::Kind::ReadRetry, plane, block, page, now, false)) {
    if (level < i->steps) return kBeyond;
    i->used = true;  // served: the page reads as the model says from now on
  }
  double r = rber(erases, level);
  if (r <= 0) return 0;
  const std::uint64_t where = page_index(plane, block, page);
  if (cfg_.rber_sigma > 0) {  // this page's own factor in this erase cycle (the same at every level)
    const double z = normal(uniform(kRead, where, erases, 1ull << 41), uniform(kRead, where, erases, 1ull << 42));
    r = std::min(0.5, r * std::exp(cfg_.rber_sigma * z - 0.5 * cfg_.rber_sigma * cfg_.rber_sigma));
  }
  const double mean = r * 8.0 * cfg_.codeword_bytes;
  std::uint32_t worst = 0;
  // The same page, erase cycle and level read again gives the same errors: what a read
  // sees is the cells' state, not chance (retention and read disturb are not modelled).
  const std::uint64_t h = hash(kRead, where, std::uint64_t{erases} << 8 | level);
  if (mean <= 30) {
    // Inversion takes one uniform per codeword and is monotone in it: the worst
    // codeword's errors are those of the largest uniform, found with one search.
    double u = 0;
    for (std::uint32_t cw = 0; cw < codewords; ++cw) u = std::max(u, uniform_of(h, cw));
    if (codewords) worst = poisson(mean, u, 0);
  } else {
    for (std::uint32_t cw = 0; cw < codewords; ++cw)
      worst = std::max(worst, poisson(mean, uniform_of(h, cw), uniform_of(h, cw | 1ull << 40)));
  }
  return static_cast<std::uint16_t>(std::min<std::uint32_t>(worst, kBeyond - 1));
}

}  // namespace ssd::nand
