// Replays a NAND command script (NandScriptReader) against a NandDevice: one
// flash initiator socket per channel, commands submitted at their script times,
// payloads from a pool. Programs write a token derived from the address and a
// write sequence number; a shadow keeps the last token per page and every read
// is checked against it. Protocol errors are reported with the script line.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <functional>
#include <vector>

#include <systemc>

#include "nand/nand_config.h"
#include "sc_main/nand_script.h"
#include "tlm/flash_protocol.h"
#include "common/latency_histogram.h"
#include "tlm/payload_pool.h"

namespace ssd {

struct CommandRecord {
  int line;
  FlashCommand cmd;  // a copy with the timing results
};

class NandScriptDriver : public sc_core::sc_module {
 public:
  std::vector<std::unique_ptr<FlashInitiatorSocketTagged<NandScriptDriver>>> sockets;

  NandScriptDriver(sc_core::sc_module_name name, const nand::NandConfig& cfg,
                   const std::string& script_path, std::size_t keep_records);
  // What a script's power_cut does: fails the NAND's power (NandDevice::power_cut).
  void on_power_cut(std::function<void()> f) { power_cut_ = std::move(f); }

  // ---- results ----
  const std::vector<std::string>& errors() const { return errors_; }
  const std::vector<CommandRecord>& records() const { return records_; }
  std::uint64_t submitted() const { return submitted_; }
  std::uint64_t completed() const { return completed_; }
  std::uint64_t reads_checked() const { return reads_checked_; }
  std::uint64_t mismatches() const { return mismatches_; }
  // Power cuts the script made, and the commands they cut short.
  std::uint64_t power_cuts() const { return power_cuts_; }
  std::uint64_t lost() const { return lost_; }
  const LatencyHistogram& latency(FlashOp op) const { return latency_[static_cast<int>(op)]; }
  const LatencyHistogram& latency_all() const { return latency_all_; }  // reads and programs
  std::uint64_t pages(FlashOp op) const { return pages_[static_cast<int>(op)]; }
  Tick last_completion() const { return last_done_; }
  FlashPayloadPool& pool() { return pool_; }

 private:
  void issue();
  tlm::tlm_sync_enum nb_transport_bw(int channel, tlm::tlm_generic_payload& gp,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  std::uint64_t page_key(const FlashCommand& c, unsigned plane) const;
  // Calls f(key) for the page key of every page of c's block in `plane`.
  template <typename F>
  void for_block_pages(const FlashCommand& c, unsigned plane, F&& f) const {
    FlashCommand probe = c;
    for (std::uint32_t pg = 0; pg < cfg_.pages_per_block; ++pg) {
      probe.page = pg;
      f(page_key(probe, plane));
    }
  }
  // A read's tokens last written, per plane: the driver's own record of the payload.
  std::array<Token, kMaxPlanes>& expected(const tlm::tlm_generic_payload& gp) {
    const std::uint32_t slot = FlashPayloadPool::slot_of(gp);
    if (slot >= expected_.size()) expected_.resize(slot + 1);
    return expected_[slot];
  }
  void fatal(const std::string& msg);

  nand::NandConfig cfg_;
  NandScriptReader reader_;
  FlashPayloadPool pool_;
  ScriptCommand next_;
  bool have_next_ = false;
  std::unordered_map<std::uint64_t, Token> shadow_;  // physical page -> last token written
  std::vector<std::array<Token, kMaxPlanes>> expected_;  // by payload slot
  std::uint64_t write_seq_ = 0;
  std::size_t keep_records_;
  std::vector<CommandRecord> records_;
  std::vector<std::string> errors_;
  std::uint64_t submitted_ = 0, completed_ = 0, reads_checked_ = 0, mismatches_ = 0;
  std::uint64_t power_cuts_ = 0, lost_ = 0;
  std::function<void()> power_cut_;
  // An erase's pages' shadow entries before it, by payload slot: put back if the power
  // fails before the erase began (the block keeps its data).
  std::vector<std::vector<std::pair<std::uint64_t, Token>>> before_erase_;
  // The commands a power cut cut short, gathered while the cut runs: then, newest first,
  // the shadow of the pages each touched follows what the NAND left (torn, erased, or as
  // before: undone in the reverse of the order they were done in at submission).
  struct Lost {
    FlashCommand cmd;
    std::vector<std::pair<std::uint64_t, Token>> before_erase;
  };
  std::vector<Lost> cut_short_;
  void lost(const Lost& l);
  LatencyHistogram latency_[3];
  LatencyHistogram latency_all_;
  std::uint64_t pages_[3] = {0, 0, 0};
  Tick last_done_ = 0;
};

}  // namespace ssd
