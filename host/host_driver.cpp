#include "host/host_driver.h"

#include "common/activations.h"
#include "tlm/illegal_phase.h"
#include "tlm/outbox.h"
#include "tlm/sim_now.h"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <sstream>

namespace ssd::host {

using namespace sc_core;

HostDriver::HostDriver(sc_module_name name, std::unique_ptr<RequestSource> source, unsigned queue_depth,
                       std::uint64_t logical_pages, std::uint32_t sectors_per_page,
                       std::uint64_t preconditioned, const SchedulerSetup& sched)
    : sc_module(name), socket("socket"),
      sched_(sched.kind, sched.locations ? sched.locations->chips() : 1, sched.dispatch), queue_length_(sched.queue_length),
      window_counts_outstanding_(sched.window_counts_outstanding),
      locations_(sched.locations), conflicts_(sched.locations ? sched.locations->chips() : 1), spp_(sectors_per_page),
      shadow_(logical_pages, preconditioned), pool_("host commands") {
  add_stream(std::move(source), queue_depth);
  socket.register_nb_transport_bw(this, &HostDriver::bw);
  SC_HAS_PROCESS(HostDriver);
  SC_METHOD(on_pump_event);
  sensitive << pump_event_;
}

void HostDriver::trace(VcdWriter& vcd, const std::string& scope) {
  vcd_ = &vcd;
  tv_.outstanding = vcd.declare(scope + ".outstanding", 16);
  tv_.queued = vcd.declare(scope + ".queued", 32);
  tv_.batch = vcd.declare(scope + ".batch", 64);
  tv_.batch_op = vcd.declare(scope + ".batch_op", 2);
}

void HostDriver::on_pump_event() {
  count_activation(kActHost);
  pump();
}

void HostDriver::write_requests_csv(const std::string& path) {
  csv_ = std::make_unique<std::ofstream>(path, std::ios::trunc);
  if (!*csv_) throw std::runtime_error("cannot write " + path);
  *csv_ << "submit_us,complete_us,op,lba,bytes,latency_us";
  for (unsigned k = 0; k < kParts; ++k)
    if (part_shown(k)) *csv_ << ",part_" << part_name(k) << "_us";
  *csv_ << ",id";
  if (streams_.size() > 1) *csv_ << ",stream";  // workload.streams: which one
  *csv_ << '\n';
}

void HostDriver::fail(const std::string& msg) {
  errors_.push_back(msg);
  for (Stream& st : streams_) st.exhausted = true;
  sc_stop();
}

bool HostDriver::fetch(Stream& st) {
  if (st.have_next) return true;
  if (st.exhausted) return false;
  if (time_limit_ && sim_now() >= time_limit_) {
    st.exhausted = true;
    return false;
  }
  try {
    st.have_next = st.src->next(st.next, st.next_arrival);
  } catch (const InputError& e) {
    input_error_ = true;
    fail(e.what());
    return false;
  }
  if (!st.have_next) {
    st.exhausted = true;
    return false;
  }
  if (listener_) listener_->drawn(st.next);
  return true;
}

bool HostDriver::fetch_any() {
  bool any = false;
  for (Stream& st : streams_) any = fetch(st) || any;
  return any;
}

void HostDriver::admit(const HostRequest& r, Tick arrival, std::uint16_t stream) {
  // A trim or flush occupies no chip (the firmware answers it from its tables and its
  // write buffer): its location vector is empty, and it is never a conflict request.
  const bool data = is_data(r.op);
  IoScheduler::Entry e{++id_, r.op,
                       locations_ ? (data ? locations_->vector(r.lba, r.sectors) : LocationVector(locations_->chips()))
                                  : LocationVector(),
                       arrival, 0, r.lba, r.sectors, r.fua, stream};
  if (!warmup_over_ && (warmup_requests_ || warmup_until_) && !in_warmup(e.id, arrival)) {
    warmup_over_ = true;  // the first request after the warm-up: the window starts
    window_start_ = arrival;
    if (on_warmup_end_) on_warmup_end_(arrival);
  }
  // Conflict requests: this one and every waiting or outstanding one sharing a chip.
  if (data && conflicts_.admit(e.id, r.op == HostOp::Read ? 0 : 1, e.v)) arrived_in_conflict_.insert(e.id);
  sched_.push(e);
  if (life_) life_->request_arrived(sim_now(), e.id, r.op, r.lba, r.sectors, arrival);
}

std::uint64_t HostDriver::end_warmup_now() {
  warmup_requests_ = id_;
  warmup_until_ = 0;
  warmup_completed_ = completed_;
  latency_[0] = latency_[1] = latency_all_ = LatencyHistogram{};
  other_latency_[0] = other_latency_[1] = LatencyHistogram{};
  attribution_ = LatencyAttribution{};
  trimmed_bytes_ = unwritten_reads_ = 0;
  for (Stream& st : streams_) st.fig = StreamFigures{};
  bytes_[0] = bytes_[1] = conflict_wait_sum_[0] = conflict_wait_sum_[1] = 0;
  return id_ + 1;
}

void HostDriver::admit_and_dispatch() {
  // Sending a request frees its place in a window of waiting requests: admit and send
  // again until neither moves (a window that counts outstanding requests frees a place
  // only at a completion).
  for (;;) {
    while (!queue_.empty() && window_has_room()) {
      const Waiting& w = queue_.front();
      Stream& st = streams_[w.stream];
      admit(w.r, w.arrival, w.stream);
      --st.queued;
      ++st.in_host;
      queue_.pop_front();
      ++in_host_;
    }
    const unsigned before = outstanding_;
    dispatch();
    if (queue_.empty() || outstanding_ == before || !window_has_room()) return;
  }
}

void HostDriver::dispatch() {
  IoScheduler::Entry e;
  while (!awaiting_end_req_ && sched_.pop(e)) send(e);
}

void HostDriver::send(const IoScheduler::Entry& e) {
  tlm::tlm_generic_payload* gp = pool_.acquire();
  HostCommand& c = host_cmd(*gp);
  c.op = e.op;
  c.lba = e.lba;
  c.sectors = e.sectors;
  c.fua = e.fua && e.op == HostOp::Write;
  c.id = e.id;
  c.stream = e.stream;
  c.t_submit = e.arrival;
  c.t_dispatch = sim_now();
  first_submit_ = std::min(first_submit_, c.t_submit);
  if (is_data(e.op)) {
    const int k = e.op == HostOp::Read ? 0 : 1;
    wait_sum_[k] += sim_now() - e.arrival;
    ++dispatched_[k];
  }
  if (!commit_later_) commit(*gp);
  // A trim carries its ranges, not data; a flush carries nothing.
  gp->set_command(e.op == HostOp::Read    ? tlm::TLM_READ_COMMAND
                  : e.op == HostOp::Write ? tlm::TLM_WRITE_COMMAND
                                          : tlm::TLM_IGNORE_COMMAND);
  gp->set_data_length(is_data(e.op) ? e.sectors * 512u : 0u);
  ++outstanding_;
  if (vcd_) {
    trace_counts();
    vcd_->change(tv_.batch, sim_now(), e.batch);
    vcd_->change(tv_.batch_op, sim_now(), static_cast<unsigned>(e.op));
  }
  if (life_) life_->request_at(sim_now(), e.id, Stage::HostIface);
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  const tlm::tlm_sync_enum s = socket->nb_transport_fw(*gp, ph, d);
  if (s == tlm::TLM_ACCEPTED) awaiting_end_req_ = true;  // NCQ full: wait for END_REQ
  else if (s != tlm::TLM_UPDATED || ph != tlm::END_REQ)  // taken now, answered later: nothing else
    SC_REPORT_ERROR(kExclusionError, "host, to the host interface: BEGIN_REQ answered other than TLM_ACCEPTED or "
                                     "TLM_UPDATED with END_REQ");
}

// The host's record of a command the device has taken in its order (see set_commit_later):
// the shadow follows the order the device sees and keeps.
void HostDriver::commit(tlm::tlm_generic_payload& gp) {
  HostCommand& c = host_cmd(gp);
  std::vector<Token>& expect = expected(gp);
  expect.clear();
  const PageSpan span = page_span(c.lba, c.sectors, spp_);
  for (std::uint64_t lpn = span.first; lpn < span.end(); ++lpn) {
    if (c.op == HostOp::Read) {
      expect.push_back(shadow_.current(lpn));
    } else if (c.op == HostOp::Write) {
      const Token fresh = write_token(lpn, c.id);
      const bool partial = covers_part(c.lba, c.sectors, lpn, spp_);
      c.tokens.push_back(fresh);
      const Token before = shadow_.raw(lpn);
      expect.push_back(before);  // what it replaces, should the device refuse it
      shadow_.set(lpn, partial ? merge_tokens(shadow_.as_read(lpn, before), fresh) : fresh);
    } else if (c.op == HostOp::Trim) {
      expect.push_back(shadow_.raw(lpn));
      if (!covers_part(c.lba, c.sectors, lpn, spp_)) shadow_.trim(lpn);  // a page trimmed in part keeps its data
    }
  }
  if (ledger_) ledger_sent(c, expect);
  if (on_dispatch_) on_dispatch_(c);
}

// The ledger's record of a write, trim or flush sent now (`before`: each page's shadow
// entry before it, as send() keeps it).
void HostDriver::ledger_sent(const HostCommand& c, const std::vector<Token>& before) {
  const Tick now = sim_now();
  const PageSpan span = page_span(c.lba, c.sectors, spp_);
  if (c.op == HostOp::Write) {
    std::vector<DurabilityLedger::Page> pages;
    pages.reserve(span.count);
    for (std::uint64_t i = 0; i < span.count; ++i)
      pages.push_back({span.first + i, shadow_.current(span.first + i), c.tokens[i]});
    ledger_->sent(c.id, now, c.fua, pages,
                  [&](std::uint64_t lpn) { return shadow_.as_read(lpn, before[lpn - span.first]); });
  } else if (c.op == HostOp::Trim) {
    for (std::uint64_t i = 0; i < span.count; ++i)
      if (!covers_part(c.lba, c.sectors, span.first + i, spp_))
        ledger_->trimmed(c.id, now, span.first + i, shadow_.as_read(span.first + i, before[i]));
  } else if (c.op == HostOp::Flush) {
    flush_seq_[c.id] = ledger_->flush_sent();
  }
}

void HostDriver::pump() {
  in_pump_ = true;
  const Tick now = sim_now();
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& st = streams_[i];
    const auto stream = static_cast<std::uint16_t>(i);
    if (st.src->timed()) {
      // Open loop: everything that has arrived joins the host's queue, in order.
      while (fetch(st) && st.next_arrival <= now) {
        queue_.push_back({st.next, st.next_arrival, stream});
        ++st.queued;
        st.have_next = false;
      }
    } else {
      // Closed loop: keep queue_depth requests in the host (scheduler and device). One
      // that finds no request waiting before it and room in the scheduling queue goes
      // straight in.
      while (st.in_host + st.queued < st.qd && fetch(st)) {
        if (queue_.empty() && window_has_room()) {
          admit(st.next, now, stream);
          ++st.in_host;
          ++in_host_;
        } else {
          queue_.push_back({st.next, now, stream});
          ++st.queued;
        }
        st.have_next = false;
      }
    }
  }
  admit_and_dispatch();
  trace_counts();
  Tick next = kNever;
  for (const Stream& st : streams_)
    if (st.src->timed() && st.have_next) next = std::min(next, st.next_arrival);
  if (next != kNever) pump_event_.notify(sc_delay(next - now));
  // Closed loop: the next request is read now rather than at the next completion, so
  // that fetch() can announce it ahead. Not with a time limit, which fetch() checks at
  // the time of reading.
  for (Stream& st : streams_)
    if (!st.src->timed() && !time_limit_) fetch(st);
  in_pump_ = false;
}

tlm::tlm_sync_enum HostDriver::bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("host, from the host interface", d);
  if (ph == tlm::END_REQ) {
    awaiting_end_req_ = false;
    if (!in_pump_) admit_and_dispatch();
    return tlm::TLM_ACCEPTED;
  }
  if (ph != tlm::BEGIN_RESP) {
    illegal_phase("host, from the host interface", ph);
    return tlm::TLM_COMPLETED;
  }
  finish(gp);
  return tlm::TLM_COMPLETED;
}

void HostDriver::finish(tlm::tlm_generic_payload& gp) {
  HostCommand& c = host_cmd(gp);
  const std::vector<Token>& expect = expected(gp);
  const Tick now = sim_now();
  if (!gp.is_response_ok()) {
    std::ostringstream os;
    os << "host command " << c.id << " (" << to_string(c.op) << " lba " << c.lba << ", " << c.sectors
       << " sectors) failed: " << gp.get_response_string();
    errors_.push_back(os.str());
    sc_stop();
  } else if (c.status == HostStatus::WriteProtected) {
    // Refused (the device is read-only): nothing of it was done. The device refuses every
    // write and trim from the first it refuses on, in the order they were sent: a page
    // holds what it held before the first refused command to touch it, for good.
    ++refused_;
    const PageSpan span = page_span(c.lba, c.sectors, spp_);
    for (std::uint64_t i = 0; i < expect.size() && i < span.count; ++i) {
      const auto kept = restored_.emplace(span.first + i, expect[i]).first;
      shadow_.set_raw(span.first + i, kept->second);
    }
  } else if (c.op == HostOp::Write && c.status == HostStatus::MediaError) {
    // A page the device could not program (its plane could gain no space). The device
    // keeps the data as the page's, never programmed, until the page is written again:
    // it reads as written, and the shadow stays.
    ++write_errors_;
  } else if (c.op == HostOp::Flush && c.status == HostStatus::MediaError) {
    ++flush_errors_;  // a write before it lost a page the cache acknowledged: not durable
  } else if (c.op == HostOp::Read) {
    if (c.status == HostStatus::MediaError) ++media_errors_;
    for (std::size_t i = 0; i < expect.size(); ++i) {
      // A page the device reported it could not read: an error, not a mismatch (it never
      // returned wrong data). Counted apart from the checked reads.
      if (c.status == HostStatus::MediaError && c.tokens[i] == kUnrecoveredToken) {
        ++unrecovered_pages_;
        continue;
      }
      ++reads_checked_;
      if (c.tokens[i] == expect[i]) continue;
      // Sent after a write the device refused (not yet seen refused then): the page's
      // data from before it.
      if (!restored_.empty()) {
        const std::uint64_t lpn = c.lba / spp_ + i;
        const auto r = restored_.find(lpn);
        if (r != restored_.end() && c.tokens[i] == shadow_.as_read(lpn, r->second)) continue;
      }
      if (++mismatches_ <= 20) {
        std::ostringstream os;
        os << "DATA MISMATCH: read of logical page " << c.lba / spp_ + i << " (host command " << c.id
           << ") returned token 0x" << std::hex << c.tokens[i] << ", last written 0x" << expect[i];
        errors_.push_back(os.str());
      }
    }
  }
  if (ledger_ && c.op != HostOp::Read) {
    using End = DurabilityLedger::End;
    const End end = c.status == HostStatus::WriteProtected                        ? End::Refused
                    : !gp.is_response_ok() || c.status == HostStatus::MediaError ? End::Failed
                                                                                 : End::Done;
    if (c.op == HostOp::Flush) {
      const auto f = flush_seq_.find(c.id);
      if (end == End::Done) ledger_->flush_acked(f->second);
      flush_seq_.erase(f);
    } else {
      ledger_->acked(c.id, now, end);
    }
  }
  const bool data = is_data(c.op);
  const int k = c.op == HostOp::Read ? 0 : 1;  // of a read or write
  const int other = c.op == HostOp::Trim ? 0 : 1;  // of a trim or flush
  // A read of pages none of which was ever written: no flash work to measure.
  bool unwritten = c.op == HostOp::Read && !expect.empty();
  for (std::size_t i = 0; unwritten && i < expect.size(); ++i) unwritten = expect[i] == kUnwrittenToken;
  // Where its time went: the parts must sum to its latency (an internal error if not).
  PartTicks parts;
  const std::string wrong = LatencyAttribution::compose(c, now, parts);
  if (!wrong.empty()) {
    errors_.push_back("internal error: latency attribution of host command " + std::to_string(c.id) + " (" +
                      to_string(c.op) + "): " + wrong);
    sc_stop();
  }
  const bool warmup = in_warmup(c.id, c.t_submit);  // false for every request without a warm-up
  if (warmup) {
    ++warmup_completed_;
  } else if (unwritten) {
    ++unwritten_reads_;
  } else if (!data) {  // trims and flushes: figures of their own, apart from the data's
    other_latency_[other].record(now - c.t_submit);
    if (c.op == HostOp::Trim) trimmed_bytes_ += std::uint64_t{c.sectors} * 512;
    if (streams_.size() > 1) streams_[c.stream].fig.other[other].record(now - c.t_submit);
  } else {
    if (streams_.size() > 1) {
      StreamFigures& f = streams_[c.stream].fig;
      f.latency[k].record(now - c.t_submit);
      f.all.record(now - c.t_submit);
      f.bytes[k] += std::uint64_t{c.sectors} * 512;
    }
    latency_[k].record(now - c.t_submit);
    latency_all_.record(now - c.t_submit);
    attribution_.record(k, now - c.t_submit, parts);
    conflict_wait_sum_[k] += at(parts, Part::ConflictHostRead) + at(parts, Part::ConflictHostWrite) +
                             (arrived_in_conflict_.count(c.id) ? at(parts, Part::HostQueue) : 0);
  }
  if (interval_ && !unwritten && data) {  // the time series shows the warm-up too
    interval_->latency[k].record(now - c.t_submit);
    interval_->bytes[k] += std::uint64_t{c.sectors} * 512;
    for (unsigned p = 0; p < kParts; ++p) interval_->part_sum[k][p] += parts[p];
  }
  if (csv_) {
    char line[160];
    std::snprintf(line, sizeof line, "%.6f,%.6f,%s,%llu,%llu,%.6f", ticks_to_us(c.t_submit), ticks_to_us(now),
                  to_string(c.op), static_cast<unsigned long long>(c.lba),
                  static_cast<unsigned long long>(c.sectors) * 512, ticks_to_us(now - c.t_submit));
    *csv_ << line;
    for (unsigned p = 0; p < kParts; ++p) {
      if (!part_shown(p)) continue;
      std::snprintf(line, sizeof line, ",%.6f", ticks_to_us(parts[p]));
      *csv_ << line;
    }
    *csv_ << ',' << c.id;
    if (streams_.size() > 1) *csv_ << ',' << c.stream;
    *csv_ << '\n';
  }
  if (!warmup && !unwritten && data) bytes_[k] += std::uint64_t{c.sectors} * 512;
  last_done_ = now;
  ++completed_;
  if (round_requests_) {  // after the count: a round's end may end the warm-up (end_warmup_now)
    if (data && !unwritten) {
      ++round_.count[k];
      round_.latency_sum[k] += now - c.t_submit;
    }
    if (++round_.completed == round_requests_) {
      round_.end = now;
      const Round r = round_;
      round_ = Round{};
      round_.start = now;
      on_round_(r);
    }
  }
  if (progress_seconds_ > 0 && (completed_ & 4095) == 0) {
    const auto t = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(t - last_progress_).count() >= progress_seconds_) {
      last_progress_ = t;
      std::cerr << "ssdsim: " << completed_ << " requests done";
      std::uint64_t expected = 0;
      for (const Stream& st : streams_) expected += st.src->expected();
      if (expected) std::cerr << " of " << expected;
      std::cerr << ", simulated " << ticks_to_us(now) / 1e3 << " ms\n";
    }
  }
  --outstanding_;
  --in_host_;
  --streams_[c.stream].in_host;
  sched_.complete(c.id, c.op);
  if (data) {
    conflicts_.complete(c.id);
    arrived_in_conflict_.erase(c.id);
  }
  if (life_) {
    life_->request_parts(now, c.id, parts);
    life_->request_at(now, c.id, Stage::Done);
  }
  gp.release();
  trace_counts();
  if (in_host_ == 0 && queue_.empty() && !fetch_any()) {
    if (on_finished_) on_finished_();
    return;
  }
  // Send the next request now, from the completion: a BEGIN_REQ from inside a BEGIN_RESP
  // handler is legal, and it saves a process activation per request.
  if (!in_pump_) pump();
}

const param::Table<HostConfig>& HostConfig::keys() {
  static const param::Table<HostConfig> t = [] {
    using H = HostConfig;
    param::Table<H> k;
    k.choice("host.scheduler", &H::scheduler, {"noop", "rws", "piq_r", "piq_w", "piq"},
             "host I/O scheduler (PIQ paper): FIFO, reads first, or conflict-free batches of reads/writes/both")
        .integer("host.max_transfer_sectors", &H::max_transfer_sectors, 1, 4294967295ll,
                 "the largest request the host interface carries, in 512-byte sectors (SATA: 65,536, 32 MiB): a "
                 "larger one is split into pieces of this size, each a request of its own, as a host block layer "
                 "splits it").unit("512-byte sectors")
        .choice("host.interface", &H::interface, {"sata", "nvme"},
                "the host interface: sata = one queue of controller.ncq_depth tags over a link of host.link_mb_s; "
                "nvme = submission and completion queues in host memory (nvme.*) over a PCIe link (pcie.*), "
                "docs/host.md")
        .choice("host.dispatch", &H::dispatch, {"ncq", "batch"},
                "how the host queue hands requests to the device: ncq = each as soon as an NCQ tag is free, in the "
                "scheduler's order; batch = a batch at a time (PIQ's Algorithm 1, 'Issue Batch_List.Head'): the "
                "next batch of a batched list only once every request of the one before it has completed "
                "(docs/host.md)")
        .integer("host.queue_length", &H::queue_length, 1, 512, "host I/O scheduler queue length").unit("requests")
        .choice("host.queue_window", &H::queue_window, {"waiting", "waiting_and_outstanding"},
                "what host.queue_length bounds: waiting = the requests in the scheduling queue not yet sent "
                "(those sent and not completed are outside it, bounded by the device's NCQ depth and the "
                "workload's); waiting_and_outstanding = those plus the ones sent and not yet completed, the PIQ "
                "paper's scheduling window (Gao et al. Sec. IV-A): at length 1 the device holds at most one request")
        .flag("host.lookahead", &H::lookahead,
              "accel/: each request the host reads from the workload is announced before it is sent, so the "
              "firmware's lookup tables' lines are fetched meanwhile (simulation speed only: results are identical)")
        .choice("host.lookahead_thread", &H::lookahead_thread, {"auto", "true", "false"},
                "accel/, with host.lookahead: a second thread reads the workload again, up to 512 requests ahead "
                "of the host, to compute the preconditioned image's lookups on the machine's other core "
                "(simulation speed only: results are identical). auto = only where a second core is free for "
                "it: the process may run on two CPUs or more and the machine's one-minute load average leaves "
                "at least 1.5 CPUs idle (accel/cpu_share.h, docs/performance.md)");
    return k;
  }();
  return t;
}

}  // namespace ssd::host
