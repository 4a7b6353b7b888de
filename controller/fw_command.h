// A flash command as the firmware knows it: the protocol's FlashCommand (tlm/), which
// the scheduler block and the NAND read, and the firmware's own record of it, which no
// other layer sees: who issued it and what for, where the firmware holds it, its times.
// The records sit in a table beside the firmware's payload pool, one per pooled payload
// (indexed by the payload's slot): a completion's payload gives its record, and the
// firmware's units pass records, never payloads. Plain C++ (the payloads are TLM
// objects; no kernel is needed to make or use them).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <typeinfo>
#include <vector>

#include "tlm/payload_pool.h"

namespace ssd::ctrl {

struct FwCommand;
struct HostWork;  // a host command the firmware is executing (controller/host_splitter.h)

// A unit that issues flash commands: the host splitter (host reads), the write unit
// (read-modify-write reads, host programs), GC (copy reads and programs, erases), read
// recovery (reads at further read levels). Each command's end goes back to its issuer
// (a part of an n-plane command as if it had run alone), which says what it does with
// every outcome.
class CommandIssuer {
 public:
  virtual ~CommandIssuer() = default;
  virtual void ended(FwCommand& c) = 0;
  // Whether an unbound program it issued is superseded (a newer write or a trim of its
  // logical page came): it may then be cancelled (HoldingStage's cancel). False by default.
  virtual bool superseded(const FwCommand&) const { return false; }
  // A program of its, superseded, was cancelled while held (its page was never bound):
  // `write_op` as the command carried it. The command is gone already.
  virtual void cancelled(std::uint32_t /*write_op*/) {}
  // Cells of n bits: a program of its binds a wordline's lower page and waits in the
  // firmware for the programs that bind the others (HoldingStage, "wordlines"); told at
  // the end of the instant's settle.
  virtual void latched(FwCommand&) {}
};

struct FwCommand {
  FlashCommand* cmd = nullptr;  // the protocol's command, in its payload
  void* payload = nullptr;      // that payload (the module's handle to send it)
  FlashCommand& command() { return *cmd; }
  const FlashCommand& command() const { return *cmd; }

  // ---- who issued it, and what for ----
  CommandIssuer* issuer = nullptr;
  // With the controller's ECC on, a read's issuer is read recovery, which hands the read
  // on to `then` once it has decoded it (controller/read_recovery.h).
  CommandIssuer* then = nullptr;
  HostWork* host = nullptr;     // a host read: its host command
  std::uint32_t ppa = 0;        // its page (an erase: the block's first page), FTL numbering; an
                                // unbound program: a page of its plane's stream held for it
  std::uint32_t write_op = 0;   // a read-modify-write read, a host program: the write it serves
  std::uint32_t plane = 0;      // GC: the plane collected
  std::uint32_t copy_from = 0;  // a GC program: the page copied
  // What becomes invalid when a program ends (the listener's: accel/), kUnmapped: nothing.
  std::uint32_t replaces = 0xFFFFFFFFu;

  // ---- times (the latency attribution) ----
  Tick t_built = 0;         // built
  Tick t_arrived = 0;       // its request's arrival at the controller (a host command's
                            // passing to the firmware; GC's: built)
  Tick t_first_built = 0;   // a read at a further level: when the page's first read was built
  Tick t_released = 0;      // released by the firmware's scheduling policy
  Tick predicted_wait = 0;  // the forecast of its wait from arrival to its start (Chen's Eq. 9)
  // A host program that opened a write group (WriteAllocator::group_note): the group's
  // forecast start; kNoGroup otherwise.
  Tick group_start = ~Tick{0};
  std::uint64_t write_group = 0;  // a host program in a write group (0: none) until the group leaves
  Tick ecc_ticks = 0;       // a read: the decode after its data is out
  Tick t_latched = 0;       // a lower page of a wordline: when it latched (HoldingStage::wordline)
  Tick wordline_wait = 0;   // ... and how long it waited for its wordline's last page
  bool decoded = false;     // a read: its decode charged

  // ---- the holding stage's (controller/holding_stage.h) ----
  // A program has its plane when built and its block and page when it leaves for the
  // scheduler block (late binding); until then `ppa` is only held for it.
  bool bound = true;
  bool released = false;   // passed on by the release policy (alone or as a part)
  bool gathered = false;   // an n-plane command the stage joined: its parts were released one by one
  std::uint8_t where = 0;  // HoldingStage::Where
  Tick ready = 0;          // when its core work ends (submitted)
  std::uint64_t order = 0; // the release policy's own number for it (sos: the order queued)
  std::uint64_t seq = 0;   // arrival in its die's lanes
  FwCommand* prev = nullptr;  // in the one list of the stage it is in
  FwCommand* next = nullptr;
  FwCommand* group = nullptr;  // a program released together with others: the group's first
  // An n-plane command: per plane, the single-page command the firmware built for that
  // page, which takes the command's result at its end; all null for one page.
  std::array<FwCommand*, kMaxPlanes> part{};
  // Cells of n bits (nand.bits_per_cell), or pages of several mapping units: a program
  // carrying its wordline (the last of its pages to bind, `lined`) holds the wordline's
  // lower pages, each a program the firmware built, which take the command's result at its
  // end: the first in `lower`, each the next in its `next_lower`, in page order; null for
  // one page a program.
  FwCommand* lower = nullptr;
  FwCommand* next_lower = nullptr;
  bool lined = false;
  bool latched = false;  // a lower page: it waited for its wordline (CommandIssuer::latched)
  bool filler_allocated = false;  // a filler page (padding a wordline) allocated from the FTL
  bool mixed = false;  // a GC copy bound into its plane's host wordline (HoldingStage, wordline_mix)
  bool combined() const {
    for (const FwCommand* p : part)
      if (p) return true;
    return false;
  }
  // A fresh record for the same command and payload.
  void reset() {
    FlashCommand* c = cmd;
    void* pl = payload;
    *this = FwCommand{};
    cmd = c;
    payload = pl;
  }
};

// The report of a failure an issuer does not recover from (a protocol error, or an outcome
// its operation cannot have): the command and what failed.
inline std::string unrecovered(const FlashCommand& f, const char* what) {
  return "flash command failed (" + std::string(to_string(f.status)) + "): " + f.describe() +
         (f.error.empty() ? std::string() : ": " + f.error) + "; " + what;
}

// The firmware's flash commands: payloads from a pool, each with its record.
class FwCommands {
 public:
  FwCommands() : pool_("firmware flash commands") {}
  FwCommands(const FwCommands&) = delete;
  FwCommands& operator=(const FwCommands&) = delete;

  // A fresh command of `op` on `pages` pages of `page_bytes`, its id the next, its record
  // reset.
  FwCommand& acquire(FlashOp op, unsigned pages, std::uint32_t page_bytes) {
    tlm::tlm_generic_payload* gp = pool_.acquire();
    const std::uint32_t slot = FlashPayloadPool::slot_of(*gp);
    if (slot >= records_.size()) {  // the pool grew: a record for its new payload
      FwCommand& r = store_.emplace_back();
      r.cmd = &flash_cmd(*gp);
      r.payload = gp;
      records_.push_back(&r);
    }
    FwCommand& r = *records_[slot];
    r.reset();
    r.cmd->id = ++ids_;
    gp->set_command(op == FlashOp::Read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    gp->set_data_length(op == FlashOp::Erase ? 0 : pages * page_bytes);
    return r;
  }
  // With mapping units smaller than a page: the buffer of a wordline program's units' data
  // for its plane (FlashCommand::unit_tokens), kept with its payload, room for
  // kMaxBitsPerCell x kMaxUnitsPerPage units.
  Token* unit_tokens(const FwCommand& c) {
    const std::uint32_t slot = FlashPayloadPool::slot_of(*static_cast<tlm::tlm_generic_payload*>(c.payload));
    while (unit_buffers_.size() <= slot) unit_buffers_.emplace_back();
    return unit_buffers_[slot].data();
  }
  // Back to the pool (its record is reused by a later acquire).
  void release(FwCommand& c) { static_cast<tlm::tlm_generic_payload*>(c.payload)->release(); }
  // The record of one of the pool's payloads.
  FwCommand& of(tlm::tlm_generic_payload& gp) { return *records_[FlashPayloadPool::slot_of(gp)]; }
  // The record of `gp` if it is a command acquired here (null for a payload of another
  // pool: a broken protocol on the other side).
  FwCommand* issued(tlm::tlm_generic_payload& gp) {
    if (typeid(gp) != typeid(PooledPayload<FlashExtension>)) return nullptr;
    const std::uint32_t slot = FlashPayloadPool::slot_of(gp);
    return slot < records_.size() && records_[slot]->payload == &gp ? records_[slot] : nullptr;
  }
  // Read only: payloads are taken through acquire() alone, so that each new slot of the
  // pool is the next record's.
  const FlashPayloadPool& pool() const { return pool_; }

 private:
  FlashPayloadPool pool_;
  std::deque<FwCommand> store_;       // stable addresses as the pool grows
  std::vector<FwCommand*> records_;   // by slot
  std::deque<std::array<Token, kMaxBitsPerCell * kMaxUnitsPerPage>> unit_buffers_;  // by slot, as needed
  std::uint64_t ids_ = 0;
};

}  // namespace ssd::ctrl
