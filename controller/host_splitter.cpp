#include "controller/host_splitter.h"

#include <algorithm>

#include "controller/gc_unit.h"
#include "controller/holding_stage.h"
#include "controller/read_unit.h"
#include "controller/write_unit.h"

namespace ssd::ctrl {

HostSplitter::HostSplitter(Ftl& ftl, WriteUnit& writes, ReadRecovery& recovery, HoldingStage& stage, GcUnit& gc,
                           const ReadOnly& read_only, const Clock& clock, HostOut& out, Reports& reports,
                           FirmwareCounters& counters, FaultCounters& faults, std::uint32_t read_unit_bytes)
    : ftl_(ftl), writes_(writes), recovery_(recovery), stage_(stage), gc_(gc), read_only_(read_only), clock_(clock),
      out_(out), reports_(reports), counters_(counters), faults_(faults), spp_(ftl.config().nand.page_bytes / 512),
      read_unit_bytes_(read_unit_bytes) {}

HostWork& HostSplitter::take_work(HostCommand& c, void* payload) {
  HostWork* w = free_;
  if (w) {
    free_ = w->next_free;
  } else {
    works_.emplace_back();
    w = &works_.back();
  }
  *w = HostWork{};
  w->cmd = &c;
  w->payload = payload;
  return *w;
}

void HostSplitter::process(HostCommand& c, void* payload) {
  HostWork& w = take_work(c, payload);
  const PageSpan span = page_span(c.lba, c.sectors, spp_);
  const std::uint64_t first = span.first, pages = span.count;
  const Tick now = clock_.now();
  c.t_processed = now;  // the core's work is done, whatever the answer
  if (c.sectors && first + pages > ftl_.logical_pages()) {
    w.response = HostWork::Response::AddressError;
    complete(w);
    return;
  }
  if (read_only_.on() && (c.op == HostOp::Write || c.op == HostOp::Trim)) {  // refused: nothing of it done
    ++(c.op == HostOp::Write ? faults_.refused_writes : faults_.refused_trims);
    c.status = HostStatus::WriteProtected;
    complete(w);
    return;
  }
  w.pages_left = static_cast<std::uint32_t>(pages);
  switch (c.op) {
    case HostOp::Read:
      ++counters_.host_reads;
      c.tokens.assign(pages, kUnwrittenToken);
      for (std::uint32_t i = 0; i < pages; ++i) {
        const std::uint64_t lpn = first + i;
        Token t;
        const WritePath::Read r = writes_.buffer().read(lpn, &w, i, t);
        if (r == WritePath::Read::Answered) read_answered(w, i, t);
        if (r != WritePath::Read::Miss) continue;
        if (recovery_.poisoned(lpn)) {  // its data is known lost: a media error, without flash
          page_unrecovered(w, i);
          if (life_) life_->page_answered(now, c.id, i);
          page_done(w);
          continue;
        }
        const std::uint32_t ppa = ftl_.lookup(lpn);
        if (ppa == kUnmapped) {
          ++counters_.unwritten_reads;
          if (life_) life_->page_answered(now, c.id, i);
          page_done(w);
          continue;
        }
        FwCommand& f = stage_.build(FlashOp::Read, ppa, FlashOrigin::HostRead, *this);
        f.host = &w;
        f.t_arrived = std::min(c.t_fw_in, now);
        f.cmd->host_page = i;
        f.cmd->request = c.id;
        f.cmd->lpn = lpn;
        f.cmd->out_bytes = read_out_bytes(c.lba, c.sectors, lpn, static_cast<std::uint32_t>(spp_), read_unit_bytes_);
        // A mapping unit smaller than the page, read whole: its own codewords, not the page.
        if (f.cmd->out_bytes == 0 && read_unit_bytes_ && ftl_.units_per_page() > 1)
          f.cmd->out_bytes = static_cast<std::uint32_t>(spp_ * 512);
        ftl_.add_pending_read(ppa);
        ++counters_.flash_reads;
        stage_.submit(f, now);
      }
      break;
    case HostOp::Write: {
      ++counters_.host_writes;
      if (c.tokens.size() != pages) {
        w.response = HostWork::Response::GenericError;
        complete(w);
        return;
      }
      w.write_seq = ++write_seq_;
      ++writes_executing_;
      unsettled_.push_back(static_cast<std::uint32_t>(pages));
      if (c.fua) ++counters_.fua_writes;
      for (std::uint32_t i = 0; i < pages; ++i) {
        const std::uint64_t lpn = first + i;
        const bool partial = covers_part(c.lba, c.sectors, lpn, spp_);
        if (!partial) recovery_.unpoison(lpn);  // new data for all of it
        writes_.write(w, i, lpn, c.tokens[i], partial, now);
      }
      break;
    }
    case HostOp::Trim:
      ++counters_.host_trims;
      for (std::uint64_t lpn = first; lpn < first + pages; ++lpn) {
        if (covers_part(c.lba, c.sectors, lpn, spp_)) continue;  // partial: kept
        writes_.buffer().trim(lpn);  // an in-flight write of it becomes superseded
        ftl_.trim(lpn);
        recovery_.unpoison(lpn);
        ++counters_.trimmed_pages;
      }
      w.pages_left = 0;
      complete(w);
      break;
    case HostOp::Flush:
      ++counters_.host_flushes;
      w.pages_left = 0;
      // Every earlier write is on flash (a later flush waits longer), or its pages are
      // safe in a cache held up by capacitors.
      if (writes_executing_ == 0 || writes_.cache().protected_by_holdup()) {
        if (lost_before(write_seq_)) c.status = HostStatus::MediaError;
        complete(w);
      } else {
        ++counters_.flushes_waited;
        flushes_.push_back({&w, write_seq_, writes_executing_});
      }
      break;
  }
}

void HostSplitter::read_answered(HostWork& w, std::uint32_t page, Token t) {
  HostCommand& c = *w.cmd;
  c.tokens[page] = t;
  ++counters_.buffer_hits;
  if (life_) life_->page_answered(clock_.now(), c.id, page);
  page_done(w);
}

void HostSplitter::page_unrecovered(HostWork& w, std::uint32_t page) {
  HostCommand& c = *w.cmd;
  c.tokens[page] = kUnrecoveredToken;
  c.status = HostStatus::MediaError;
  ++faults_.host_pages_unrecovered;
}

// Reads: Ok and ReadRetried deliver the data (a retried read only took longer).
// Uncorrectable: the page's data is lost (no parity across pages is modelled): the host
// page is answered with a media error, never with the data, and the logical page is
// poisoned. ProtocolError, or a program or erase outcome: an error.
void HostSplitter::ended(FwCommand& f) {
  gc_.read_ended(f.ppa);
  HostWork& w = *f.host;
  const FlashCommand& fc = *f.cmd;
  if (fc.status == FlashStatus::Uncorrectable) {
    if (ftl_.lookup(fc.lpn) == f.ppa) recovery_.poison(fc.lpn);  // still its data (a newer write's program clears it)
    page_unrecovered(w, fc.host_page);
  } else if (fc.status == FlashStatus::Ok || fc.status == FlashStatus::ReadRetried) {
    w.cmd->tokens[fc.host_page] = fc.token[fc.first_plane()];
  } else {
    reports_.error(unrecovered(fc, "a read cannot end so"));
    return;
  }
  page_done(w, &f);
}

void HostSplitter::page_failed(HostWork& w, Tick known, Waited waited_for) {
  w.cmd->status = HostStatus::MediaError;
  ++faults_.failed_write_pages;
  if (--w.pages_left != 0) return;
  critical_path(*w.cmd, nullptr, known, waited_for, clock_.now(), true);
  complete(w);
}

void HostSplitter::page_done(HostWork& w, const FwCommand* f, Tick known, Waited waited_for) {
  if (--w.pages_left != 0) return;
  critical_path(*w.cmd, f, known, waited_for, clock_.now());
  complete(w);
}

// The parts of the request's last page, from the core's work done (t_processed) to now
// (docs/controller.md, "Latency attribution"). Each is the time between two events of
// the page's path, so they sum to now - t_processed; a part that would be negative
// wraps, and the host's check of the sum against each part catches it.
void HostSplitter::critical_path(HostCommand& c, const FwCommand* f, Tick known, Waited waited_for, Tick now,
                                 bool stalled) const {
  PartTicks& p = c.parts;
  p = {};
  Tick t = c.t_processed;
  if (waited_for != Waited::None) {
    at(p, waited_for == Waited::Buffer ? Part::WriteBuffer : Part::RmwRead) = known - t;
    t = known;
  }
  if (!f) {  // answered from the write buffer (after waiting for its data), or unwritten; or failed
    at(p, stalled ? Part::WriteStall : Part::WriteBuffer) += now - t;
    return;
  }
  if (f->cmd->op == FlashOp::Program) {  // waited for a free page from its data's arrival
    at(p, Part::WriteStall) = f->t_built - t;
    t = f->t_built;
  }
  if (f->t_first_built) {  // read again at further levels: the earlier attempts, whole
    at(p, Part::ReadRetry) = f->t_built - t;
    t = f->t_built;
  }
  flash_path_parts(*f->cmd, f->ecc_ticks, t, now, p);
  // A wordline's lower page: its wait for the wordline's last page, out of firmware_sched.
  at(p, Part::FirmwareSched) -= f->wordline_wait;
  at(p, Part::WordlineWait) += f->wordline_wait;
}

void HostSplitter::complete(HostWork& w) {
  out_.complete(w);
  w.next_free = free_;
  free_ = &w;
}

void HostSplitter::page_settled(std::uint64_t seq) {
  if (--unsettled_[seq - unsettled_first_] != 0) return;
  while (!unsettled_.empty() && unsettled_.front() == 0) {
    unsettled_.pop_front();
    ++unsettled_first_;
  }
  write_settled(seq);  // the flushes it held complete after it
}

// Host write `seq` is on flash. Each flush waiting counts down the writes that were
// executing when it arrived: this one, if it was taken before the flush (seq <= after;
// it was not on flash, or it would not be settling now). The flushes are in arrival
// order and a later one waits for a superset, so they complete from the front.
void HostSplitter::write_settled(std::uint64_t seq) {
  --writes_executing_;
  for (auto f = flushes_.rbegin(); f != flushes_.rend() && f->after >= seq; ++f) --f->writes_left;
  while (!flushes_.empty() && flushes_.front().writes_left == 0) {
    HostWork& w = *flushes_.front().w;
    const std::uint64_t after = flushes_.front().after;
    flushes_.pop_front();
    HostCommand& c = *w.cmd;
    c.parts = {};
    at(c.parts, Part::WriteBuffer) = clock_.now() - c.t_processed;  // waiting for the write buffer to drain
    if (lost_before(after)) c.status = HostStatus::MediaError;
    complete(w);
  }
}

}  // namespace ssd::ctrl
