// The host command splitter, plain C++: each host command the firmware takes, in arrival
// order, split into page work, and completed when its last page is done.
//  - READ: per logical page, the newest data from the write buffer (a write of the page
//    in flight: controller/write_unit.h), a media error for a page known lost (read
//    recovery's poison), kUnwrittenToken for a page never written or trimmed (no flash),
//    else a flash read, which the splitter issues and whose end it handles.
//  - WRITE: each page to the write unit (which merges a page written in part with its
//    old data and programs it). A page whose plane can gain no space fails, and the
//    write completes with a media error (HostStatus::MediaError).
//  - TRIM: the whole pages covered are unmapped (a write of one in flight is superseded).
//  - FLUSH: completes once every write taken before it is on flash: each of its pages
//    programmed, or failed, or superseded. A write completes then too, unless the write
//    cache (controller/write_cache.h) acknowledged its pages before; a cache protected by
//    hold-up (plp) has every acknowledged page safe, and a flush completes at once.
// The last page's path becomes the request's latency parts (tlm/latency_parts.h). A read
// or write past the logical space is answered with an address error; a write or trim of
// a read-only device is refused (HostStatus::WriteProtected).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>

#include "controller/firmware_counters.h"
#include "controller/firmware_ports.h"
#include "controller/fw_command.h"
#include "controller/ftl.h"
#include "controller/read_only.h"
#include "controller/read_recovery.h"
#include "controller/write_path.h"
#include "tlm/host_protocol.h"
#include "tlm/request_life.h"

namespace ssd::ctrl {

class GcUnit;
class HoldingStage;
class WriteUnit;

// A host command the firmware is executing: its own record of it (the protocol's
// HostCommand carries none of it).
struct HostWork {
  enum class Response : std::uint8_t { Ok, AddressError, GenericError };
  HostCommand* cmd = nullptr;
  void* payload = nullptr;      // the module's handle to answer it
  std::uint32_t pages_left = 0;
  std::uint64_t write_seq = 0;  // a write: its place in the firmware's arrival order (from 1)
  Response response = Response::Ok;
  HostWork* next_free = nullptr;
};

class HostSplitter final : public CommandIssuer {
 public:
  using Waited = WritePath::Waited;
  HostSplitter(Ftl& ftl, WriteUnit& writes, ReadRecovery& recovery, HoldingStage& stage, GcUnit& gc,
               const ReadOnly& read_only, const Clock& clock, HostOut& out, Reports& reports,
               FirmwareCounters& counters, FaultCounters& faults, std::uint32_t read_unit_bytes);

  // Host command `c` (its payload: the module's handle), its core work done now.
  void process(HostCommand& c, void* payload);
  void ended(FwCommand& f) override;  // a host read

  // ---- what the write unit tells of a command's pages ----
  // Page `page` of host read `w`, which waited for a write's data in the buffer, has it.
  void read_answered(HostWork& w, std::uint32_t page, Token t);
  // A page of `w` is done: served by flash command `f` (null: answered without flash),
  // after waiting until `known` for `waited_for`. The last page's path becomes the
  // request's attributed parts.
  void page_done(HostWork& w, const FwCommand* f = nullptr, Tick known = 0, Waited waited_for = Waited::None);
  // Page `page` of host read `w` could not be read: a media error.
  void page_unrecovered(HostWork& w, std::uint32_t page);
  // A page of host write `w` can never be programmed (its plane can gain no space): the
  // write completes with a media error once its other pages are done. Its time from
  // `known` (its data known, after waiting for `waited_for`) is the write stall.
  void page_failed(HostWork& w, Tick known, Waited waited_for);
  // A page of host write number `seq` (HostWork::write_seq) is on flash, failed or
  // superseded: after the calls above for it, if the host waited for it.
  void page_settled(std::uint64_t seq);

  void set_life_listener(LifeListener* l) { life_ = l; }
  // A page of host write `seq`, acknowledged by the write cache, failed (it never reaches
  // flash): every flush taken after that write ends with a media error from now on (none
  // can make it durable).
  void acknowledged_page_failed(std::uint64_t seq) { first_lost_ = std::min(first_lost_, seq); }
  std::uint64_t sectors_per_page() const { return spp_; }

  // Calls f for the pages of a request that process() looks up at once, on a device of
  // `logical_pages` pages of `spp` sectors: a read's (at most four), a write's written in
  // part (read-modify-write: its first and last). False for a request that names none
  // (not a read or write, or past the logical space). Reads nothing of the simulation's:
  // callable from any thread (accel/).
  template <typename F>
  static bool pages_looked_up(HostOp op, std::uint64_t lba, std::uint32_t sectors, std::uint64_t spp,
                              std::uint64_t logical_pages, F&& f) {
    if (sectors == 0 || (op != HostOp::Read && op != HostOp::Write)) return false;
    const PageSpan span = page_span(lba, sectors, spp);
    const std::uint64_t first = span.first, last = span.end() - 1, n = logical_pages;
    if (first >= n) return false;
    if (op == HostOp::Read) {
      for (std::uint64_t lpn = first; lpn <= last && lpn < first + 4 && lpn < n; ++lpn) f(lpn);
      return true;
    }
    if (covers_part(lba, sectors, first, spp)) f(first);
    if (last != first && last < n && covers_part(lba, sectors, last, spp)) f(last);
    return true;
  }

 private:
  HostWork& take_work(HostCommand& c, void* payload);
  void complete(HostWork& w);
  void critical_path(HostCommand& c, const FwCommand* f, Tick known, Waited waited_for, Tick now,
                     bool stalled = false) const;
  // FLUSH: a flush completes once every write that reached the firmware before it has
  // completed.
  struct FlushWait {
    HostWork* w;
    std::uint64_t after;        // the last write taken before it (write_seq_ at its arrival)
    std::uint64_t writes_left;  // of the writes executing when it arrived
  };
  void write_settled(std::uint64_t seq);

  Ftl& ftl_;
  WriteUnit& writes_;
  ReadRecovery& recovery_;
  HoldingStage& stage_;
  GcUnit& gc_;
  const ReadOnly& read_only_;
  const Clock& clock_;
  HostOut& out_;
  Reports& reports_;
  FirmwareCounters& counters_;
  FaultCounters& faults_;
  std::uint64_t spp_;  // sectors per page
  std::uint32_t read_unit_bytes_;
  LifeListener* life_ = nullptr;
  std::deque<HostWork> works_;  // every record made (stable), reused through free_
  HostWork* free_ = nullptr;
  std::deque<FlushWait> flushes_;       // waiting, in arrival order
  // The first write (in arrival order) whose acknowledged page failed (none: the largest).
  std::uint64_t first_lost_ = ~std::uint64_t{0};
  // Whether a write taken up to `after` lost an acknowledged page.
  bool lost_before(std::uint64_t after) const { return first_lost_ <= after; }
  std::uint64_t write_seq_ = 0;         // host writes taken, in arrival order
  std::uint64_t writes_executing_ = 0;  // taken and not yet on flash
  // Per host write from number unsettled_first_ on: its pages not yet on flash.
  std::deque<std::uint32_t> unsettled_;
  std::uint64_t unsettled_first_ = 1;
};

}  // namespace ssd::ctrl
