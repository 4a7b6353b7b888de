// The controller's ECC decoder, plain C++: what it makes of a read's bit errors (the
// NAND reports the most of any codeword: FlashCommand::bit_errors) and how long it takes.
// The decode tiers (docs/controller.md, "Faults and recovery"):
//  - level 0, the default read: hard-decision decode, correcting up to hard_bits errors
//    per codeword, in hard_decode_us after the data is out;
//  - levels 1..retry_steps: the same decode of a read at the read-retry table's shifted
//    reference voltages (the firmware issues it: a SET FEATURES, tR, data out);
//  - level retry_steps + 1: a soft-decision read (several sensings) and a soft decode,
//    correcting up to soft_bits, in soft_decode_us;
//  - beyond: uncorrectable.
// The decoder is pipelined with the channel's data-out: decodes do not queue for it.
#pragma once

#include <cstdint>

#include "common/params.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

struct EccConfig {
  bool on = false;  // the NAND reports bit errors (nand.fault.rber_*, or a read_retry injection)
  // Correction per codeword: a BCH-like hard decode of 40 bits per 1 KiB codeword, a soft
  // (LDPC-like) decode of twice that. Latencies: assumptions of this model, stated in
  // docs/controller.md; 0 decode time where no bit errors are modelled.
  std::uint32_t hard_bits = 40;
  std::uint32_t soft_bits = 80;
  double hard_decode_us = 2.0;
  double soft_decode_us = 12.0;
  std::uint32_t retry_steps = 5;  // the NAND's read-retry table (nand.fault.retry_steps)
  // Its keys, controller.ecc_* (firmware.cpp).
  static const param::Table<EccConfig>& keys();
};

class EccDecoder {
 public:
  enum class Verdict : std::uint8_t { Decoded, Retry, Uncorrectable };

  explicit EccDecoder(const EccConfig& cfg = {}) : cfg_(cfg) {}
  const EccConfig& config() const { return cfg_; }
  bool on() const { return cfg_.on; }
  std::uint32_t soft_level() const { return cfg_.retry_steps + 1; }
  bool soft(std::uint32_t level) const { return level >= soft_level(); }
  // The decode tier of a read at `level` (0 default, 1..retry_steps retry, then soft).
  unsigned tier(std::uint32_t level) const { return level == 0 ? 0 : soft(level) ? 2 : 1; }
  Tick decode_ticks(std::uint32_t level) const {
    return us_to_ticks(soft(level) ? cfg_.soft_decode_us : cfg_.hard_decode_us);
  }
  // What the decoder makes of a read at `level` whose worst codeword had `errors`.
  Verdict verdict(std::uint32_t errors, std::uint32_t level) const {
    if (errors <= (soft(level) ? cfg_.soft_bits : cfg_.hard_bits)) return Verdict::Decoded;
    return level < soft_level() ? Verdict::Retry : Verdict::Uncorrectable;
  }

 private:
  EccConfig cfg_;
};

}  // namespace ssd::ctrl
