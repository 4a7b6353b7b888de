// The firmware's write buffer: each page of a host write from the moment the firmware
// takes it until its program completes (or is cancelled). Plain C++, no kernel.
//
// A page write is an operation (Op). Its data (token) is known at once if the write
// covers the whole page; a page written in part is merged with the page's old data
// (read-modify-write): the data of the newest earlier write of the page still in the
// buffer, or the page read from flash, or, for a page never written, nothing (merged with
// kUnwrittenToken). An operation whose old data is in an earlier write not yet known
// waits for it (parked), as does a host read of a page whose newest write is not yet
// known. When an operation's data becomes known, what waited for it is served in arrival
// order, then the owner programs it (Owner::data_known).
//
// The buffer maps each logical page to its newest operation: a read is answered from it,
// and a program completing for an operation that is no longer the newest of its page
// (a newer write or a trim came) must not move the mapping (last writer wins).
//
// An operation whose program can never be made (its plane can gain no space:
// docs/controller.md, "Faults and recovery") fails: while it is its page's newest write
// it stays in the buffer as the page's data, never programmed (reads are answered from
// it, so the page reads as written), until a newer write of the page or a trim replaces
// it; otherwise it is released at once.
#pragma once

#include <cstdint>
#include <vector>

#include "common/lpn_map.h"
#include "controller/ftl.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

// Where a page write comes from: its host command's, for the program's record and the
// flushes (kept when the command completes before the program: a write cache).
struct WriteOrigin {
  std::uint64_t request = 0;    // the host command's id
  std::uint64_t write_seq = 0;  // its place in the firmware's arrival order of host writes
  Tick t_fw_in = 0;             // its arrival at the firmware
  std::uint32_t host_page = 0;  // the page's index in it
};

class WritePath {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  // What a page waited for before its data was known: nothing, an earlier write's data
  // in the buffer, or its read-modify-write read.
  enum class Waited : std::uint8_t { None, Buffer, Rmw };

  using Origin = WriteOrigin;
  // Whether the host waits for the page's program (a write cache may acknowledge it
  // before: controller/write_cache.h).
  enum class Ack : std::uint8_t { AtProgram, WaitsForRoom, Given };

  struct Op {
    std::uint64_t lpn = 0;
    void* host = nullptr;  // the owner's handle of the host write (null once it completed)
    Origin origin;
    Ack ack = Ack::AtProgram;
    Token fresh = 0;       // what the host wrote
    Token token = 0;       // the page's final data (once known: any merge done)
    bool known = false;
    bool partial = false;
    bool failed = false;  // kept as its page's data, never programmed (fail())
    std::uint32_t replaces = kUnmapped;  // the page its read-modify-write read (kUnmapped: none)
    Tick t_known = 0;                    // when its data became known
    Waited waited_for = Waited::None;    // what it waited for before then
    std::uint32_t waiters = kNone;       // the first parked operation waiting for `token`
    std::uint32_t waiters_tail = kNone;
    std::uint32_t next_free = kNone;
    std::uint32_t seq = 0;  // its place in the order writes of pages were taken (wraps: newer())
    // Older writes of its page whose programs were cancelled: they are done when it is
    // (ride()); a list through `next_rider`.
    std::uint32_t riders = kNone, next_rider = kNone;
    bool live = false;  // taken and not released
  };

  // What the write path asks of the firmware that owns it.
  class Owner {
   public:
    virtual ~Owner() = default;
    // Operation `op`'s data became known: program it.
    virtual void data_known(std::uint32_t op) = 0;
    // Page `page` of host read `host`, parked on a write of the buffer, has its data.
    virtual void read_answered(void* host, std::uint32_t page, Token t) = 0;
    // Both may complete host work and so take new host commands at once: they may call
    // read(), write() and trim() (the write path keeps indices, never references, across
    // them).
  };

  explicit WritePath(Owner& owner) : owner_(owner) {}

  // ---- reads ----
  enum class Read : std::uint8_t { Miss, Answered, Parked };
  // A host read of page `page` (of host read `host`) for logical page `lpn`: Miss (no
  // write of it in the buffer: read it from flash), Answered (the newest write's data, in
  // `out`), or Parked (the newest write's data is not known yet: read_answered follows).
  Read read(std::uint64_t lpn, void* host, std::uint32_t page, Token& out);

  // ---- writes ----
  enum class Start : std::uint8_t { Known, Waits, NeedsOldData };
  // Takes the write of logical page `lpn` (data `fresh`, covering it in part or not) as
  // the page's newest operation, in `op`. Known: its data is known (data_known was
  // called); Waits: it waits for an earlier write's data; NeedsOldData: written in part
  // with no earlier write buffered: the owner reads the page (reading_old_data) or, if
  // never written, calls old_data(op, kUnwrittenToken, now).
  Start write(std::uint64_t lpn, void* host, Token fresh, bool partial, Tick now, std::uint32_t& op,
              const Origin& origin = {});
  // The write cache acknowledged `op` (or put it waiting for room): its host command no
  // longer waits for it (Given: `host` is cleared).
  void set_ack(std::uint32_t op, Ack a) {
    ops_[op].ack = a;
    if (a == Ack::Given) ops_[op].host = nullptr;
  }
  // Operation `op`'s read-modify-write read of page `ppa` was issued.
  void reading_old_data(std::uint32_t op, std::uint32_t ppa) {
    ops_[op].replaces = ppa;
    ops_[op].waited_for = Waited::Rmw;
  }
  // The page's old data for `op` arrived (or is none: kUnwrittenToken): merged, known.
  void old_data(std::uint32_t op, Token old_page, Tick now);

  // A trim of `lpn`: its buffered writes no longer carry the page (their programs end
  // without moving the mapping); a read from now on misses.
  void trim(std::uint64_t lpn) {
    const std::uint32_t op = newest_op(lpn);
    newest_.erase(lpn);
    if (live_.find(lpn) != LpnMap::kAbsent) floor_.set(lpn, seq_);  // newer than every write taken
    if (op != kNone && ops_[op].failed) drop_failed(op);
  }
  // `op`'s program can never be made: kept as its page's data while it is the newest
  // write of the page (replaced by the next write or trim of it), else released now.
  void fail(std::uint32_t op);
  // Failed operations kept as their pages' data.
  std::uint32_t failed_kept() const { return failed_kept_; }
  // Whether `lpn`'s newest write in the buffer has its data known, and that data: what a
  // read of the page is answered with instead of the flash (the end-of-run audit).
  bool buffered(std::uint64_t lpn, Token& out) const {
    const std::uint32_t op = newest_op(lpn);
    if (op == kNone || !ops_[op].known) return false;
    out = ops_[op].token;
    return true;
  }
  // Whether `op` is still the newest write of its page.
  bool newest(std::uint32_t op) const { return newest_.find(ops_[op].lpn) == op; }
  // `op`'s program was cancelled (a newer write `on` of its page carries the page): it
  // stays in the buffer and is done when `on` is (take_riders()), with its own riders.
  void ride(std::uint32_t op, std::uint32_t on) {
    ops_[op].next_rider = ops_[on].riders;
    ops_[on].riders = op;
  }
  // The writes riding on `op` (the first; the rest through next_rider), cleared from it.
  std::uint32_t take_riders(std::uint32_t op) {
    const std::uint32_t r = ops_[op].riders;
    ops_[op].riders = kNone;
    return r;
  }
  // `lpn`'s newest write in the buffer (kNone: none).
  std::uint32_t newest_of(std::uint64_t lpn) const { return newest_op(lpn); }
  // Whether the end of `op`'s program moves the mapping: the mapping holds the newest
  // version of the page on flash. True for the page's newest write, and for an older one
  // while no write newer than it has reached the mapping and no trim came since it was
  // taken (its write was acknowledged: a power cut before the newer write's program ends
  // must find this one, not older data).
  bool maps_at_end(std::uint32_t op) const {
    if (newest(op)) return true;
    const std::uint32_t f = floor_.find(ops_[op].lpn);
    return f == LpnMap::kAbsent || newer(ops_[op].seq, f);
  }
  // The mapping moved to `op`'s page (maps_at_end was true). The newest write's page
  // leaves the buffer (reads go to flash).
  void mapped(std::uint32_t op) {
    const std::uint64_t lpn = ops_[op].lpn;
    if (newest(op)) newest_.erase(lpn);
    if (live_.find(lpn) > 1) floor_.set(lpn, ops_[op].seq);  // older writes still in flight must not map
  }
  // `op` is done (programmed or cancelled): its entry is freed. Throws std::logic_error if
  // something still waits for its data (it would never be served).
  void release(std::uint32_t op);

  const Op& op(std::uint32_t i) const { return ops_[i]; }
  // Calls f(op) for every operation taken and not released.
  template <typename F>
  void for_each_op(F&& f) const {
    for (const Op& o : ops_)
      if (o.live) f(o);
  }
  // Operations taken and not released.
  std::uint32_t in_flight() const { return in_flight_; }

 private:
  struct Parked {
    bool is_write;
    void* host;                // read: the host read
    std::uint32_t page_or_op;  // read: page index; write: operation index
    std::uint32_t next;
  };
  std::uint32_t new_op();
  void drop_failed(std::uint32_t op) {
    --failed_kept_;
    release(op);
  }
  void park(std::uint32_t on_op, const Parked& p);
  void set_token(std::uint32_t op, Token t, Tick now);
  std::uint32_t newest_op(std::uint64_t lpn) const {
    const std::uint32_t op = newest_.find(lpn);
    return op == LpnMap::kAbsent ? kNone : op;
  }

  Owner& owner_;
  std::vector<Op> ops_;
  std::uint32_t free_op_ = kNone;
  std::uint32_t in_flight_ = 0;
  std::uint32_t failed_kept_ = 0;
  std::vector<Parked> parked_;
  std::vector<std::uint32_t> free_parked_;
  LpnMap newest_;  // lpn -> its newest operation, for pages with a write in the buffer
  // Per page with operations taken and not released: how many, and the `seq` of the newest
  // version that reached the mapping from the buffer (or of the last write taken before a
  // trim) while others were in flight (absent: none since the oldest was taken).
  LpnMap live_{4}, floor_{4};
  std::uint32_t seq_ = 0;  // the last operation's seq
  static bool newer(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) > 0; }
};

}  // namespace ssd::ctrl
