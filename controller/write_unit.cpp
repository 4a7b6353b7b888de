#include "controller/write_unit.h"

#include <algorithm>

#include "controller/gc_unit.h"
#include "controller/holding_stage.h"
#include "controller/host_splitter.h"

namespace ssd::ctrl {

WriteUnit::WriteUnit(Ftl& ftl, WriteFrontier& frontier, HoldingStage& stage, GcUnit& gc, ReadRecovery& recovery,
                     ReadOnly& read_only, HostSplitter& splitter, const Clock& clock, Reports& reports,
                     FirmwareCounters& counters, FaultCounters& faults, WriteCache cache)
    : ftl_(ftl), frontier_(frontier), stage_(stage), gc_(gc), recovery_(recovery), read_only_(read_only),
      splitter_(splitter), clock_(clock), reports_(reports), counters_(counters), faults_(faults), cache_(cache) {}

void WriteUnit::write(HostWork& w, std::uint32_t page, std::uint64_t lpn, Token fresh, bool partial, Tick now) {
  std::uint32_t op;
  const std::uint64_t id = w.cmd->id;
  const bool early = cache_.early(w.cmd->fua);
  const WritePath::Start s = buffer_.write(lpn, &w, fresh, partial, now, op, {id, w.write_seq, w.cmd->t_fw_in, page});
  if (s == WritePath::Start::NeedsOldData) read_old_data(w, page, lpn, op, now);
  if (!early) return;
  // The page may have failed at once (its plane can gain no space): the host heard.
  const WritePath::Op& o = buffer_.op(op);
  if (o.failed || o.host != &w || o.origin.request != id) return;
  if (cache_.take(op)) acknowledge(op);
  else buffer_.set_ack(op, WritePath::Ack::WaitsForRoom);
}

void WriteUnit::acknowledge(std::uint32_t op) {
  HostWork& w = host_of(op);
  buffer_.set_ack(op, WritePath::Ack::Given);
  splitter_.page_done(w);  // the parts: its wait for room, as write_buffer
}

void WriteUnit::acknowledge_waiting() {
  for (std::uint32_t op; (op = cache_.next_acknowledged()) != WriteCache::kNone;) acknowledge(op);
}

void WriteUnit::read_old_data(HostWork& w, std::uint32_t page, std::uint64_t lpn, std::uint32_t op, Tick now) {
  const std::uint32_t ppa = ftl_.lookup(lpn);
  if (ppa == kUnmapped) {  // never written: merged with nothing
    buffer_.old_data(op, kUnwrittenToken, now);
    return;
  }
  FwCommand& f = stage_.build(FlashOp::Read, ppa, FlashOrigin::RmwRead, old_data_);
  f.t_arrived = std::min(w.cmd->t_fw_in, now);
  f.write_op = op;
  f.cmd->lpn = lpn;
  f.cmd->host_page = page;
  f.cmd->request = w.cmd->id;
  buffer_.reading_old_data(op, ppa);
  ftl_.add_pending_read(ppa);
  ++counters_.rmw_reads;
  stage_.submit(f, now);
}

void WriteUnit::read_answered(void* host, std::uint32_t page, Token t) {
  splitter_.read_answered(*static_cast<HostWork*>(host), page, t);
}

void WriteUnit::program(std::uint32_t op, bool again) {
  const WritePath::Op& w = buffer_.op(op);
  const std::uint64_t lpn = w.lpn;
  const std::uint32_t ppa = frontier_.place(op, lpn, again);
  if (ppa == kUnmapped) {  // it waits for space in its plane
    if (frontier_.group_note().opened) stage_.close_group();
    return;
  }
  FwCommand& f = stage_.build(FlashOp::Program, ppa, FlashOrigin::HostProgram, *this);
  f.cmd->token[f.cmd->first_plane()] = w.token;
  f.write_op = op;
  f.replaces = w.replaces;
  f.cmd->lpn = lpn;
  f.t_arrived = std::min(w.origin.t_fw_in, f.t_built);
  f.cmd->request = w.origin.request;
  f.cmd->host_page = w.origin.host_page;
  if (!again) ftl_.count_host_page(ppa);
  if (const WriteAllocator::GroupNote g = frontier_.group_note(); g.id) {  // Chen's write group
    if (g.opened) f.group_start = g.until;
    stage_.join_group(f, g);
  }
  stage_.submit(f, clock_.now());
  gc_.maybe_start(ftl_.plane_of_ppa(ppa));
}

// A page the cache acknowledged that fails does so after its host command completed: the
// host learns of it from the next flush, which ends with a media error (the write was
// never made durable); the data stays in the buffer as the page's all the same.
void WriteUnit::write_page_done(std::uint32_t op, const FwCommand* f, bool failed) {
  const WritePath::Op& o = buffer_.op(op);
  const std::uint64_t seq = o.origin.write_seq;
  const bool acknowledged = o.ack == WritePath::Ack::Given;
  if (o.ack == WritePath::Ack::WaitsForRoom) cache_.reached_flash(op);
  HostWork* host = acknowledged ? nullptr : &host_of(op);
  const Tick known = o.t_known;
  const WritePath::Waited waited_for = o.waited_for;
  std::uint32_t rider = buffer_.take_riders(op);  // older writes of the page it carried
  if (failed) buffer_.fail(op);
  else buffer_.release(op);
  if (acknowledged) {
    cache_.left();
    if (failed) {
      ++faults_.failed_write_pages;
      ++faults_.failed_acknowledged_pages;
      splitter_.acknowledged_page_failed(seq);  // the next flush after it says so
    }
  } else if (failed) {
    splitter_.page_failed(*host, known, waited_for);
  } else {
    splitter_.page_done(*host, f, known, waited_for);
  }
  splitter_.page_settled(seq);
  if (acknowledged) acknowledge_waiting();
  while (rider != WritePath::kNone) {
    const std::uint32_t next = buffer_.op(rider).next_rider;
    write_page_done(rider, nullptr, failed);
    rider = next;
  }
}

// Read-modify-write: the old data uncorrectable, the page written is part new, part lost:
// the write goes on (with what the cells held, as the model knows it) and the logical page
// is poisoned until a write of all of it.
void WriteUnit::OldData::ended(FwCommand& f) {
  u_.gc_.read_ended(f.ppa);
  const FlashCommand& fc = *f.cmd;
  if (fc.status == FlashStatus::Uncorrectable) {
    if (u_.buffer_.newest(f.write_op)) u_.recovery_.poison(fc.lpn);  // a newer write of the page would replace it all
  } else if (fc.status != FlashStatus::Ok && fc.status != FlashStatus::ReadRetried) {
    u_.reports_.error(unrecovered(fc, "a read cannot end so"));
    return;
  }
  u_.buffer_.old_data(f.write_op, fc.token[fc.first_plane()], u_.clock_.now());
}

// Programs: Ok. ProgramFailed: the page holds nothing; its block is retired (GC moves its
// valid pages first) and the data, still in the write buffer, is programmed again to
// another page (of another block). Anything else: an error.
void WriteUnit::ended(FwCommand& f) {
  const std::uint32_t ppa = f.ppa;
  const std::uint32_t op = f.write_op;
  const FlashCommand& fc = *f.cmd;
  if (fc.status == FlashStatus::ProgramFailed) {
    ++faults_.program_failures;
    ftl_.programmed(ppa);
    ftl_.retire(ftl_.block_of_ppa(ppa));
    read_only_.block_failed(ftl_.plane_of_ppa(ppa));
    // A superseded page is programmed again all the same: its write may be acknowledged
    // as durable (the cache off, a flush, FUA), and the newer write may die with the power.
    ++faults_.reprogrammed_pages;
    program(op, true);
    gc_.maybe_start(ftl_.plane_of_ppa(ppa));  // the block may be collected at once
    return;
  }
  if (fc.status != FlashStatus::Ok) {
    reports_.error(unrecovered(fc, "a program cannot end so"));
    return;
  }
  ftl_.programmed(ppa);
  const bool newest = buffer_.newest(op);
  if (!newest) ++counters_.superseded_programs;  // a newer write or a trim came meanwhile
  if (buffer_.maps_at_end(op)) {  // the newest version on flash (the buffer's newest answers reads)
    const WritePath::Op& w = buffer_.op(op);
    ftl_.map(w.lpn, ppa);
    // All of the page new: whatever an uncorrectable read found lost of it meanwhile is
    // replaced (a read of the old page may have ended after this write was taken).
    if (newest && !w.partial) recovery_.unpoison(w.lpn);
    buffer_.mapped(op);
  }
  write_page_done(op, &f);
  gc_.maybe_start(ftl_.plane_of_ppa(ppa));  // its block may have become a GC candidate
}

}  // namespace ssd::ctrl
