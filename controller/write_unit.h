// The write unit, plain C++: each page of a host write from the moment the splitter hands
// it over until its program completes, and the issuer of the commands that serve it.
//  - It enters the write buffer (controller/write_path.h: reads of the page are answered
//    from the newest write; a page written in part is merged with its old data, from an
//    earlier write in the buffer or a read-modify-write read of the page, which this unit
//    issues and whose end it hands to the buffer).
//  - Its data known, the page is placed (controller/write_frontier.h: waiting there for
//    space if its plane has none) and programmed: an unbound program, to the holding stage.
//  - A write cache (controller/write_cache.h) may acknowledge the page to its host
//    command as it enters the buffer, or once the cache has room; else the program's end
//    does.
//  - The program's end: the mapping moves if no newer version of the page reached it
//    meanwhile (it holds the newest version on flash: WritePath::maps_at_end), the page
//    leaves the buffer and counts for its host command (if the cache did not acknowledge
//    it) and for the flushes waiting. A failed program retires its block and the data,
//    still in the buffer, is programmed again elsewhere, superseded or not (its write may
//    be acknowledged as durable, and the newer write may be lost with the power). A
//    program still held when a newer write supersedes it may be cancelled
//    (HoldingStage's cancel; not under a volatile cache): its page counts as written
//    when the newer write's does.
#pragma once

#include <cstdint>

#include "controller/firmware_counters.h"
#include "controller/firmware_ports.h"
#include "controller/fw_command.h"
#include "controller/ftl.h"
#include "controller/read_only.h"
#include "controller/read_recovery.h"
#include "controller/write_cache.h"
#include "controller/write_frontier.h"
#include "controller/write_path.h"

namespace ssd::ctrl {

class GcUnit;
class HoldingStage;
class HostSplitter;
struct HostWork;

class WriteUnit final : public CommandIssuer, public WriteFrontier::Resume, private WritePath::Owner {
 public:
  WriteUnit(Ftl& ftl, WriteFrontier& frontier, HoldingStage& stage, GcUnit& gc, ReadRecovery& recovery,
            ReadOnly& read_only, HostSplitter& splitter, const Clock& clock, Reports& reports,
            FirmwareCounters& counters, FaultCounters& faults, WriteCache cache = {CacheMode::Off, 0});

  WritePath& buffer() { return buffer_; }
  const WritePath& buffer() const { return buffer_; }
  const WriteCache& cache() const { return cache_; }
  // Page `page` of host write `w` writes logical page `lpn` (`fresh`, covering it in part
  // or not): into the buffer, merged, programmed.
  void write(HostWork& w, std::uint32_t page, std::uint64_t lpn, Token fresh, bool partial, Tick now);

  void program(std::uint32_t op) override { program(op, false); }  // placed again (WriteFrontier)
  // Its plane can gain no space (WriteFrontier): the page write fails, and its data stays
  // in the buffer as the page's (WritePath::fail).
  void fail(std::uint32_t op) override { write_page_done(op, nullptr, true); }
  void ended(FwCommand& f) override;  // a host program
  // A held program superseded by a newer write of its page may be cancelled (not under a
  // volatile cache): the newer write carries the page, and the cancelled write is done
  // when the newer one is (WritePath::ride), so that a write the host hears of as done is
  // on flash, or under plp acknowledged, whatever the power does meanwhile.
  bool superseded(const FwCommand& c) const override {
    return c.cmd->origin == FlashOrigin::HostProgram && !buffer_.newest(c.write_op) &&
           cache_.mode() != CacheMode::Volatile && carrier(c.write_op) != WritePath::kNone;
  }
  void cancelled(std::uint32_t op) override { buffer_.ride(op, carrier(op)); }
  // The newer write that would carry `op`'s page if its program were cancelled: the
  // page's newest, unless it failed (kept as the page's data, it never ends: kNone).
  std::uint32_t carrier(std::uint32_t op) const {
    const std::uint32_t n = buffer_.newest_of(buffer_.op(op).lpn);
    return n == WritePath::kNone || buffer_.op(n).failed ? WritePath::kNone : n;
  }

 private:
  // Its data known: placed, its program built. `again`: its earlier program failed (not
  // counted as a host page again).
  void program(std::uint32_t op, bool again);
  // A page written in part with no earlier write buffered: its old data read (or none).
  void read_old_data(HostWork& w, std::uint32_t page, std::uint64_t lpn, std::uint32_t op, Tick now);
  // A host write's page is done (programmed by `f`, or its program cancelled: null; or,
  // `failed`, it can never be programmed): its write-buffer entry is freed (a failed one
  // kept as its page's data: WritePath::fail) and the page counted for its request
  // (unless the cache acknowledged it) and for the flushes.
  void write_page_done(std::uint32_t op, const FwCommand* f, bool failed = false);
  // The cache acknowledges `op` to its host command now.
  void acknowledge(std::uint32_t op);
  // The pages waiting for room that now have it are acknowledged.
  void acknowledge_waiting();
  HostWork& host_of(std::uint32_t op) const { return *static_cast<HostWork*>(buffer_.op(op).host); }
  // WritePath::Owner
  void data_known(std::uint32_t op) override { program(op); }
  void read_answered(void* host, std::uint32_t page, Token t) override;
  // The read-modify-write reads' issuer: their ends merge the old data.
  class OldData final : public CommandIssuer {
   public:
    explicit OldData(WriteUnit& u) : u_(u) {}
    void ended(FwCommand& f) override;

   private:
    WriteUnit& u_;
  };

  Ftl& ftl_;
  WriteFrontier& frontier_;
  HoldingStage& stage_;
  GcUnit& gc_;
  ReadRecovery& recovery_;
  ReadOnly& read_only_;
  HostSplitter& splitter_;
  const Clock& clock_;
  Reports& reports_;
  FirmwareCounters& counters_;
  FaultCounters& faults_;
  WritePath buffer_{*this};
  WriteCache cache_;
  OldData old_data_{*this};
};

}  // namespace ssd::ctrl
