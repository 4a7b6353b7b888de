// The NAND's failures, as a seeded and deterministic model (docs/nand-timing.md, "Faults"):
// factory bad blocks, program and erase failures, and raw bit errors per ECC codeword of a
// read. Plain C++ (no SystemC); the channel engine asks it at an operation's array end.
//
// Wear: a block's program/erase cycles are its erase count plus FaultConfig::wear_cycles
// (an aged device without running its history). A probability or a raw bit error rate
// (RBER) that depends on wear follows a plain power law between its value on a new block
// and at the rated endurance:
//     f(pe) = new + (eol - new) * (pe / rated_cycles) ^ wear_exponent
// (RBER growing as a power of the P/E cycles: Mielke et al., "Bit error rate in NAND
// flash memories", IRPS 2008; the defaults are this model's assumptions, stated in
// docs/nand-timing.md, not a product's figures).
//
// Read levels: a read carries the reference voltages it senses with (FlashCommand::
// read_level): 0 the default, 1..retry_steps the read-retry table's shifted voltages, each
// step closer to where the worn cells' voltages moved (the RBER times retry_gain per
// step), and soft_level() a soft-decision read (soft_senses sensings at the best voltages,
// whose extra information the controller's soft decoder uses). The NAND knows nothing of
// the ECC: it reports the most bit errors of any codeword it moved out (FlashCommand::
// bit_errors); the controller decides (controller/ecc.h).
//
// Every draw is a hash of (seed, what, where, when): the same config and seed give the
// same faults whatever the order of evaluation.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/params.h"

namespace ssd::nand {

// A deterministic injection (nand.fault.script, one per line): fail the program of a page,
// the erase of a block, or make a page's reads need `steps` more read levels; from time
// `at` (ps) on, once (the first matching operation ending at or after it).
struct FaultInjection {
  enum class Kind : std::uint8_t { ProgramFail, EraseFail, ReadRetry } kind = Kind::ProgramFail;
  std::uint32_t channel = 0, chip = 0, die = 0, plane = 0, block = 0, page = 0;
  std::uint32_t steps = 0;  // ReadRetry: levels below this read with errors beyond any decoder
  std::uint64_t at = 0;     // ps
  bool used = false;
  std::uint32_t line = 0;   // its line in the script, for messages
};

struct FaultConfig {
  std::uint64_t seed = 1;
  double bad_block_fraction = 0;     // factory bad blocks, the same count in every plane
  double rated_cycles = 3000;        // P/E cycles of rated endurance
  double wear_exponent = 2.0;        // the power law's exponent
  double wear_cycles = 0;            // P/E cycles added to every block's erase count
  double program_fail_new = 0, program_fail_eol = 0;  // per page program
  double erase_fail_new = 0, erase_fail_eol = 0;      // per block erase
  double rber_new = 0, rber_eol = 0;                  // raw bit error rate at read level 0
  // Page-to-page variation: each page's RBER is the curve's times a log-normal factor of
  // this sigma (mean 1), drawn per page and erase cycle; 0: every page the curve's.
  double rber_sigma = 0;
  double retry_gain = 0.5;           // each read-retry step multiplies the RBER by this
  std::uint32_t retry_steps = 5;     // the read-retry table's entries (levels 1..retry_steps)
  std::uint32_t soft_senses = 3;     // a soft-decision read: sensings (each tR) and pages of data out
  double soft_gain = 0.7;            // its RBER: the last retry step's times this
  std::uint32_t retry_cmd_cycles = 6;  // SET FEATURES (EFh, address, 4 parameters) before a shifted read
  std::uint32_t codeword_bytes = 1024;  // ECC codeword data bytes (errors are drawn per codeword)
  std::string script;                // deterministic injections (file path; empty: none)
  std::vector<FaultInjection> injections;  // parsed from `script`

  std::uint32_t soft_level() const { return retry_steps + 1; }
  bool bit_errors() const { return rber_new > 0 || rber_eol > 0 || has(FaultInjection::Kind::ReadRetry); }
  bool failures() const {
    return program_fail_new > 0 || program_fail_eol > 0 || erase_fail_new > 0 || erase_fail_eol > 0 ||
           has(FaultInjection::Kind::ProgramFail) || has(FaultInjection::Kind::EraseFail);
  }
  bool on() const { return bad_block_fraction > 0 || bit_errors() || failures(); }
  bool has(FaultInjection::Kind k) const {
    for (const FaultInjection& i : injections)
      if (i.kind == k) return true;
    return false;
  }
  // Problems naming the config keys; empty when valid.
  std::vector<std::string> validate() const;
  // Its keys, nand.fault.* (fault_model.cpp).
  static const param::Table<FaultConfig>& keys();
};

// Parses a fault script's text (`name` for messages): one injection per line,
//   program_fail <channel> <chip> <die> <plane> <block> <page> [at_us]
//   erase_fail   <channel> <chip> <die> <plane> <block> [at_us]
//   read_retry   <channel> <chip> <die> <plane> <block> <page> <steps> [at_us]
// '#' starts a comment. Throws std::invalid_argument naming the file, line and field.
std::vector<FaultInjection> parse_fault_script(const std::string& text, const std::string& name);

class FaultModel {
 public:
  // The NAND's geometry: `planes` device-wide, numbered ((channel * chips_per_channel +
  // chip) * dies_per_chip + die) * planes_per_die + plane. Throws std::invalid_argument
  // for an injection outside it.
  FaultModel(const FaultConfig& cfg, std::uint32_t channels, std::uint32_t chips_per_channel,
             std::uint32_t dies_per_chip, std::uint32_t planes_per_die, std::uint32_t blocks_per_plane,
             std::uint32_t pages_per_block);

  const FaultConfig& config() const { return cfg_; }
  bool on() const { return cfg_.on(); }
  // Factory bad blocks of plane `plane` (device-wide plane number), ascending: the same
  // count in every plane (bad_blocks_per_plane()), their places drawn from the seed.
  const std::vector<std::uint32_t>& bad_blocks(std::uint32_t plane) const { return bad_[plane]; }
  std::uint32_t bad_blocks_per_plane() const { return bad_per_plane_; }
  bool factory_bad(std::uint32_t plane, std::uint32_t block) const;

  // The P/E cycles of a block erased `erases` times.
  double cycles(std::uint32_t erases) const { return erases + cfg_.wear_cycles; }
  double wear_curve(double at_new, double at_eol, double pe) const {
    if (at_eol == at_new) return at_new;
    return at_new + (at_eol - at_new) * std::pow(std::max(pe, 0.0) / cfg_.rated_cycles, cfg_.wear_exponent);
  }
  double program_fail_probability(std::uint32_t erases) const {
    return std::min(1.0, curve(program_fail_, cfg_.program_fail_new, cfg_.program_fail_eol, erases));
  }
  double erase_fail_probability(std::uint32_t erases) const {
    return std::min(1.0, curve(erase_fail_, cfg_.erase_fail_new, cfg_.erase_fail_eol, erases));
  }
  // The raw bit error rate of a read at `level` of a block erased `erases` times.
  double rber(std::uint32_t erases, std::uint32_t level) const;

  // Whether the program of `page` (device-wide plane, block) fails, ending at `now` (ps);
  // `erases`: the block's erase count. The same question gives the same answer.
  bool program_fails(std::uint32_t plane, std::uint32_t block, std::uint32_t page, std::uint32_t erases,
                     std::uint64_t now);
  bool erase_fails(std::uint32_t plane, std::uint32_t block, std::uint32_t erases, std::uint64_t now);
  // The most bit errors in any of `codewords` codewords of a read of `page` at `level`
  // ending at `now`; kBeyond when an injection forces it past every decoder.
  static constexpr std::uint16_t kBeyond = 0xFFFF;
  std::uint16_t read_errors(std::uint32_t plane, std::uint32_t block, std::uint32_t page, std::uint32_t erases,
                            std::uint32_t level, std::uint32_t codewords, std::uint64_t now);

 private:
  // A page's device-wide index, as the draws name it.
  std::uint64_t page_index(std::uint32_t plane, std::uint32_t block, std::uint32_t page) const {
    return (std::uint64_t{plane} * blocks_per_plane_ + block) * pages_per_block_ + page;
  }
  // wear_curve(at_new, at_eol, cycles(erases)), kept per erase count in `table` the first
  // time it is asked (NaN until then): the same values, without a pow per page. The
  // tables make the const queries write: a FaultModel serves one thread.
  double curve(std::vector<double>& table, double at_new, double at_eol, std::uint32_t erases) const {
    if (erases >= table.size()) table.resize(std::size_t{erases} + 1, std::numeric_limits<double>::quiet_NaN());
    double& v = table[erases];
    if (std::isnan(v)) v = wear_curve(at_new, at_eol, cycles(erases));
    return v;
  }
  // A uniform number in [0, 1) from a hash of its arguments and the seed: the hash of
  // (what, a, b), then of c (draws that differ only in c share the first).
  std::uint64_t hash(std::uint64_t what, std::uint64_t a, std::uint64_t b) const;
  static double uniform_of(std::uint64_t hash, std::uint64_t c);
  double uniform(std::uint64_t what, std::uint64_t a, std::uint64_t b, std::uint64_t c) const {
    return uniform_of(hash(what, a, b), c);
  }
  // Poisson(mean) from uniforms u, u2 (inversion; past a mean of 30 the normal
  // approximation).
  static std::uint32_t poisson(double mean, double u, double u2);
  FaultInjection* injection(FaultInjection::Kind k, std::uint32_t plane, std::uint32_t block, std::uint32_t page,
                            std::uint64_t now, bool consume);

  FaultConfig cfg_;
  std::uint32_t blocks_per_plane_, pages_per_block_;
  std::uint32_t bad_per_plane_ = 0;
  std::vector<std::vector<std::uint32_t>> bad_;
  std::vector<std::uint32_t> inj_plane_;  // per injection, its device-wide plane
  // The wear curves per erase count (curve(); NaN where not yet asked), and the read-retry
  // table's factor per step, retry_gain^steps.
  mutable std::vector<double> program_fail_, erase_fail_, rber_;
  std::vector<double> retry_factor_;
};

}  // namespace ssd::nand
