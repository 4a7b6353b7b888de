// The map log, plain C++ (ftl.map_persist = journal; docs/controller.md, "The map log"):
// how the firmware persists its mapping, as flash work. Every mapping update (a host
// program's, a GC copy's, a trim's: Ftl::Changes) is an 8-byte journal entry in the
// firmware's RAM; a full page of them is programmed into the log. A checkpoint programs
// the whole table (4 bytes a logical page). Recovery reads the last complete checkpoint,
// the journal pages written since it began, and scans the spare areas of the blocks
// whose updates the programmed journal does not hold (docs/controller.md, "Power loss").
//
// The log's blocks are the last `map_log_blocks` good blocks of every plane, which the FTL
// never sees (Ftl::map_log_address). Its k-th stripe is the k-th log block of every plane;
// the stripes form a ring, written page by page, each page offset across the planes with
// the channel varying fastest (a checkpoint's pages run in parallel on every channel).
// A plane takes one log command at a time, so that a block's pages are programmed in
// order whatever the scheduler does.
//
// A stripe is erased once a newer checkpoint is complete and the stripe holds nothing
// since that checkpoint began. Room: a checkpoint starts when its interval is reached
// (FtlConfig::checkpoint_interval_*), or, forced, when the erased stripes (and those being
// erased) come down to what a checkpoint needs plus two stripes. A checkpoint's pages are
// placed before journal pages, and a journal page is placed only while the room left (the
// erased stripes and the rest of the open one) exceeds what the checkpoints need: the
// rest of the one under way and the next one, less what the one under way will free; it
// waits in RAM instead. The device's start state counts as checkpointed (before time 0,
// outside the ring).
//
// A failed program retires the page's log block for the stripe (the rest of that block is
// skipped) and the page is written again at the next place; a failed erase retires the
// block the same way. When failures leave the log short (fewer good blocks than the
// config's check asks, or no room to go on), the log is spent: Port::spent, read-only.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "controller/core.h"
#include "controller/firmware_trace.h"
#include "controller/ftl.h"

namespace ssd::ctrl {

class MapLog final : public Ftl::Changes {
 public:
  // How the log's commands reach the flash (the firmware's MapPort): block `k` is the k-th
  // log block of `plane` (Ftl::map_log_address). Each ends in program_ended / erase_ended.
  class Port {
   public:
    virtual ~Port() = default;
    virtual void program(std::uint32_t plane, std::uint32_t k, std::uint32_t page) = 0;
    virtual void erase(std::uint32_t plane, std::uint32_t k) = 0;
    // Failures retired so many of the log's blocks that it no longer holds two
    // checkpoints: the mapping can no longer be kept, the device goes read-only. Once.
    virtual void spent(const std::string& why) = 0;
  };
  struct Counters {
    std::uint64_t entries = 0;           // mapping updates journaled
    std::uint64_t journal_pages = 0;     // journal pages programmed
    std::uint64_t checkpoint_pages = 0;  // checkpoint pages programmed
    std::uint64_t checkpoints = 0;       // checkpoints complete
    std::uint64_t checkpoints_forced = 0;  // of those started, started for want of room
    std::uint64_t erases = 0;            // log blocks erased
    std::uint64_t journal_waits = 0;     // journal pages that waited in RAM for room
    std::uint64_t program_failures = 0, erase_failures = 0;
    std::uint64_t peak_ram_pages = 0;    // journal pages full in RAM and not yet placed, at most
  };
  // What recovery reads from the log after a cut now.
  struct Reads {
    std::uint64_t checkpoint_pages = 0;  // the last complete checkpoint
    std::uint64_t journal_pages = 0;     // journal pages programmed since it began
  };

  // `ftl`: built with cfg.map_journal; the log's geometry and the checkpoint's size are
  // its.
  MapLog(const Ftl& ftl, const Clock& clock, Port& port, FirmwareTrace* trace = nullptr);
  MapLog(const MapLog&) = delete;
  MapLog& operator=(const MapLog&) = delete;

  // Ftl::Changes: one entry; a checkpoint may start, a journal page may be written.
  void changed(std::uint32_t ppa) override;
  // A log command's end (ok: done; false: the NAND reported it failed).
  void program_ended(std::uint32_t plane, bool ok);
  void erase_ended(std::uint32_t plane, bool ok);

  const Counters& counters() const { return counters_; }
  // ---- a read-only view of the log's order (what tests check it by) ----
  struct Placed {
    bool erase = false, checkpoint = false;
    std::uint64_t item = 0, seq = 0;  // a checkpoint page: the checkpoint's number
  };
  // The command in flight on `plane` (only while one is).
  Placed in_flight_on(std::uint32_t plane) const {
    const Op& o = busy_[plane];
    return {o.erase, o.checkpoint, o.item, o.seq};
  }
  // Pages before this place in the log's order are not needed by recovery.
  std::uint64_t tail_seq() const { return tail_seq_; }
  // The number of the last complete checkpoint (0: the start state's).
  std::uint64_t last_checkpoint() const { return ckpt_active_ ? ckpt_number_ - 1 : ckpt_number_; }
  bool spent() const { return spent_; }
  Reads reads() const;
  // The blocks (FTL numbering) holding pages whose mapping update no programmed journal
  // page holds (in RAM, or in a journal page not yet programmed), each once, appended.
  void unjournaled_blocks(std::vector<std::uint32_t>& out) const;
  std::uint64_t checkpoint_size() const { return ckpt_pages_; }
  std::uint32_t entries_per_page() const { return epp_; }
  bool checkpoint_under_way() const { return ckpt_active_; }
  // Log commands issued and not ended (0 once the log is quiet).
  std::uint32_t in_flight() const { return issued_; }
  std::uint32_t stripes() const { return static_cast<std::uint32_t>(stripes_.size()); }
  // The plane of the `slot`-th place of a stripe's page offset (channel fastest).
  std::uint32_t plane_in_order(std::uint32_t slot) const { return order_[slot % planes_]; }

 private:
  enum class Stripe : std::uint8_t { Erased, Open, Full, Erasing };
  struct StripeState {
    Stripe state = Stripe::Erased;
    std::uint64_t max_seq = 0;  // the newest page written into it (seq + 1; 0: none)
    std::uint32_t erasing = 0;  // erases in flight
    std::vector<char> retired;  // per plane: its log block in this stripe is retired
  };
  struct Op {
    bool erase = false;
    bool checkpoint = false;   // a program: a checkpoint page (else a journal page)
    std::uint32_t stripe = 0, page = 0;
    std::uint64_t item = 0;    // a journal page: its id; a checkpoint page: the checkpoint's number
    std::uint64_t seq = 0;     // a program: its place in the log's order
  };
  void start_checkpoint(bool forced);
  void pump();
  // The next place in the ring (its stripe opened if needed), false if none may be taken
  // now (the next stripe not erased yet).
  bool place(std::uint32_t& stripe, std::uint32_t& page, std::uint32_t& plane);
  bool advance_cursor();
  std::uint64_t open_rest() const;  // places left in the open stripe
  std::uint64_t usable_pages(const StripeState& s) const;  // its blocks not retired, all their pages
  std::uint64_t free_pages() const;     // of the stripes erased or being erased
  std::uint64_t reserve_pages() const;  // what a journal page must leave free
  bool short_of_blocks() const;         // failures left less than the config's check asks
  void spend();                         // the log can no longer be kept: told once
  void queue(std::uint32_t plane, const Op& op);
  void issue(std::uint32_t plane);
  void requeue_block(std::uint32_t plane, std::uint32_t stripe);  // its placed programs, placed again
  void place_again(const Op& o);
  void reclaim();

  void traced() {
    if (trace_) trace_->map_log(ckpt_active_, issued_, clock_.now());
  }
  const Ftl& ftl_;
  const Clock& clock_;
  Port& port_;
  FirmwareTrace* trace_;
  std::uint32_t planes_, ppb_, epp_;
  std::uint64_t stripe_pages_ = 0;  // a stripe without retired blocks
  bool spent_ = false;
  std::uint64_t ckpt_pages_;
  std::uint64_t interval_updates_;
  Tick interval_ticks_;
  std::vector<std::uint32_t> order_;  // the planes in stripe order (channel fastest)
  std::vector<StripeState> stripes_;
  // The cursor: the open stripe (kUnmapped: none yet), its page offset and place in order_.
  std::uint32_t cur_ = kUnmapped, cur_page_ = 0, cur_slot_ = 0;
  std::uint64_t seq_ = 1;             // the next page's place in the log's order
  std::uint64_t tail_seq_ = 0;        // the last complete checkpoint began here (0: the start state's)
  std::vector<std::deque<Op>> queues_;  // per plane: log commands placed, in order
  std::vector<Op> busy_;                // per plane: the command in flight
  std::vector<char> in_flight_;
  std::uint32_t issued_ = 0;
  // The journal: entries in RAM (their blocks, each run of one block once), full pages not
  // yet placed (ids), and every page not yet programmed with its blocks.
  std::uint32_t ram_entries_ = 0;
  std::vector<std::uint32_t> ram_blocks_;
  std::deque<std::uint64_t> journal_ready_;
  std::map<std::uint64_t, std::vector<std::uint32_t>> unpersisted_;
  std::uint64_t journal_ids_ = 0;
  // The checkpoint under way.
  bool ckpt_active_ = false;
  std::uint64_t ckpt_number_ = 0, ckpt_start_seq_ = 0, ckpt_to_place_ = 0, ckpt_to_end_ = 0;
  Tick ckpt_began_ = 0;
  std::uint64_t updates_since_ = 0;
  std::uint64_t ckpt_start_journal_id_ = 0;  // journal pages formed before it began: ids up to this
  std::size_t ram_mark_ = 0;                 // the RAM page's block runs before it began
  bool ram_barrier_ = false;                 // the next entry starts a run (after ram_mark_)
  std::uint64_t journal_since_start_ = 0;  // journal pages programmed at or after ckpt_start_seq_
  std::uint64_t journal_since_tail_ = 0;   // ... at or after tail_seq_
  bool waiting_ = false;                   // a journal page waits for room (counted once per wait)
  Counters counters_;
};

}  // namespace ssd::ctrl
