// The host driver: a TLM-2.0 AT initiator. Closed loop: it keeps workload.queue_depth
// requests outstanding. Open loop (a timed trace): requests arrive at their times and
// wait in the host's queue until the device takes them. Either way it sends a command
// only when the device has taken the previous one (END_REQ: NCQ back-pressure) and
// completes it at BEGIN_RESP; latency runs from arrival to completion. It keeps a
// shadow of the token it last wrote to every logical page and checks every read.
#pragma once

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "common/params.h"
#include "host/conflict_tracker.h"
#include "host/durability_ledger.h"
#include "host/io_scheduler.h"
#include "host/request_source.h"
#include "host/token_shadow.h"
#include "tlm/host_protocol.h"
#include "tlm/request_life.h"
#include "host/latency_attribution.h"
#include "common/latency_histogram.h"
#include "common/vcd_writer.h"
#include "tlm/payload_pool.h"
#include "tlm/sim_now.h"

namespace ssd::host {

// The host's keys (host_driver.cpp): its I/O scheduler, the largest command its interface
// carries, and the accel/ lookahead it offers.
struct HostConfig {
  std::string scheduler = "noop";     // parse_scheduler
  std::string dispatch = "ncq";       // parse_dispatch
  unsigned queue_length = 64;
  std::string queue_window = "waiting";  // waiting | waiting_and_outstanding
  std::uint32_t max_transfer_sectors = 65536;  // SATA: 32 MiB
  bool lookahead = true;
  std::string lookahead_thread = "auto";  // auto | true | false
  std::string interface = "sata";  // sata | nvme: the host interface (controller/host_iface.h, nvme_front_end.h)
  static const param::Table<HostConfig>& keys();
};

// Told of each request the host reads from its workload, before it is sent (when the
// host has a free slot for it: closed loop; or at its arrival: open loop). A listener
// must change nothing the simulation sees.
class RequestListener {
 public:
  virtual ~RequestListener() = default;
  virtual void drawn(const HostRequest& r) = 0;
};

class HostDriver : public sc_core::sc_module {
 public:
  HostInitiatorSocket<HostDriver> socket;

  // `logical_pages` and `sectors_per_page` describe the device; pages below
  // `preconditioned` hold precondition_token(lpn) at time 0.
  // The host I/O scheduler: the policy, its queue length, and the location vectors.
  struct SchedulerSetup {
    SchedulerKind kind = SchedulerKind::Noop;
    DispatchKind dispatch = DispatchKind::Ncq;
    unsigned queue_length = 64;
    // What queue_length bounds: the requests waiting to be sent (false), or those plus
    // the ones sent and not yet completed (true: the paper's scheduling window, Gao et
    // al. Sec. IV-A). The device's NCQ depth is a separate limit either way.
    bool window_counts_outstanding = false;
    std::shared_ptr<LocationMapper> locations;
  };
  HostDriver(sc_core::sc_module_name name, std::unique_ptr<RequestSource> source, unsigned queue_depth,
             std::uint64_t logical_pages, std::uint32_t sectors_per_page, std::uint64_t preconditioned,
             const SchedulerSetup& sched);
  // Conflict requests (PIQ paper): requests whose chips overlapped those of another
  // request waiting or outstanding at the same time; and the mean time from arrival to
  // dispatch to the device.
  std::uint64_t conflicts(HostOp op) const { return conflicts_.conflicts(op == HostOp::Read ? 0 : 1); }
  double mean_wait_us(HostOp op) const {
    const int k = op == HostOp::Read ? 0 : 1;
    return dispatched_[k] ? static_cast<double>(wait_sum_[k]) / 1e6 / static_cast<double>(dispatched_[k]) : 0.0;
  }
  // The paper's waiting time (Sec. V-B, "produced when a read request conflicts with the
  // requests ahead of it"), mean over the window's requests: the time its path waited in
  // the scheduler block while its die (or chip) served other host requests' commands
  // (conflict_host_read + conflict_host_write), plus its time in the host queue when it
  // arrived in conflict with a request waiting or outstanding (docs/host.md, "Metrics").
  double mean_conflict_wait_us(HostOp op) const {
    const int k = op == HostOp::Read ? 0 : 1;
    const std::uint64_t n = latency_[k].count();
    return n ? static_cast<double>(conflict_wait_sum_[k]) / 1e6 / static_cast<double>(n) : 0.0;
  }
  // Reads sent ahead of a write that arrived before them (the paper's Fig. 9), and the
  // batches served whole (its read and write cycles), over the whole run.
  std::uint64_t prioritized_reads() const { return sched_.prioritized_reads(); }
  std::uint64_t batches_served(HostOp op) const { return sched_.batches_served(op == HostOp::Read ? 0 : 1); }
  const RequestSource& source() const { return *streams_[0].src; }
  // Another workload stream (workload.streams; the constructor's source is stream 0), with
  // its own queue depth (closed loop) or arrivals (open loop). Before the simulation starts.
  void add_stream(std::unique_ptr<RequestSource> source, unsigned queue_depth) {
    streams_.emplace_back();
    streams_.back().src = std::move(source);
    streams_.back().qd = queue_depth;
  }
  std::size_t streams() const { return streams_.size(); }
  // A stream's figures over the statistics' window (kept with two streams or more).
  struct StreamFigures {
    LatencyHistogram latency[2], all, other[2];
    std::uint64_t bytes[2] = {0, 0};
  };
  const StreamFigures& stream_figures(std::size_t i) const { return streams_[i].fig; }
  const RequestSource& stream_source(std::size_t i) const { return *streams_[i].src; }
  // ssdsim --check: reads the whole workload through its source (every record's rules
  // applied) and returns how many requests it holds; the driver cannot run after it.
  // Throws the source's InputError.
  std::uint64_t read_whole_workload() {
    HostRequest r;
    Tick at;
    std::uint64_t n = 0;
    for (Stream& st : streams_) {
      while (st.src->next(r, at)) ++n;
      st.exhausted = true;
    }
    return n;
  }

  // Reads and writes: trims and flushes are kept apart (trim_latency, flush_latency).
  const LatencyHistogram& latency(HostOp op) const { return latency_[op == HostOp::Read ? 0 : 1]; }
  // Trims and flushes over the statistics' window (their count is the histogram's), and
  // the bytes the trims covered.
  const LatencyHistogram& trim_latency() const { return other_latency_[0]; }
  const LatencyHistogram& flush_latency() const { return other_latency_[1]; }
  std::uint64_t trimmed_bytes() const { return trimmed_bytes_; }
  const LatencyHistogram& latency_all() const { return latency_all_; }
  std::uint64_t bytes(HostOp op) const { return bytes_[op == HostOp::Read ? 0 : 1]; }
  std::uint64_t completed() const { return completed_; }
  // Reads none of whose pages had ever been written (answered without flash, as a drive
  // answers a deallocated LBA): counted here, left out of the latency figures.
  std::uint64_t unwritten_reads() const { return unwritten_reads_; }
  // The warm-up: requests that arrive before it ends (the first `requests` of the
  // workload, and those arriving before `until`) run but are left out of every figure
  // the host keeps. `on_end` is called once, at the arrival of the first request after it
  // (the statistics' window starts then).
  void set_warmup(std::uint64_t requests, Tick until, std::function<void(Tick)> on_end) {
    warmup_requests_ = requests;
    warmup_until_ = until;
    on_warmup_end_ = std::move(on_end);
  }
  std::uint64_t warmup_completed() const { return warmup_completed_; }
  Tick window_start() const { return window_start_; }
  // Rounds (report.warmup = auto): every `requests` completions, `on_round` gets the
  // round's figures, over every request completed in it (warm-up or not).
  struct Round {
    std::uint64_t completed = 0;  // requests completed in the round (any op)
    Tick start = 0, end = 0;      // the previous round's end (or 0), this one's last completion
    std::uint64_t count[2] = {0, 0};  // reads and writes with flash work (as the latency figures)
    Tick latency_sum[2] = {0, 0};
  };
  void set_rounds(std::uint64_t requests, std::function<void(const Round&)> on_round) {
    round_requests_ = requests;
    on_round_ = std::move(on_round);
  }
  void stop_rounds() { round_requests_ = 0; }  // no round after this one (safe inside on_round)
  std::uint64_t admitted() const { return id_; }  // requests admitted so far (ids 1 .. admitted())
  // Ends the warm-up now: the requests admitted so far are warm-up (those still in flight
  // too), the figures kept so far are dropped, and the window starts at the next
  // request's arrival (set_warmup's `on_end` is called then). Returns that request's id.
  std::uint64_t end_warmup_now();
  // Figures since the last take_interval() (report.interval_us), kept once enabled.
  struct Interval {
    LatencyHistogram latency[2];
    std::uint64_t bytes[2] = {0, 0};
    PartTicks part_sum[2] = {};  // the latency parts' sums (tlm/latency_parts.h)
  };
  // Where the requests' time went (tlm/latency_parts.h), over the statistics' window.
  const LatencyAttribution& attribution() const { return attribution_; }
  void enable_intervals() { interval_ = std::make_unique<Interval>(); }
  Interval* interval() { return interval_.get(); }
  // Requests in the host: waiting for its scheduling queue or in it, not yet sent.
  std::size_t host_queue_length() const { return queue_.size() + sched_.waiting(); }
  std::uint64_t reads_checked() const { return reads_checked_; }
  std::uint64_t mismatches() const { return mismatches_; }
  // Reads the device answered with a media error, and their pages it reported unrecovered
  // (HostStatus::MediaError, kUnrecoveredToken): errors, not mismatches.
  std::uint64_t media_errors() const { return media_errors_; }
  std::uint64_t unrecovered_pages() const { return unrecovered_pages_; }
  // Writes the device answered with a media error (a page it could not program).
  std::uint64_t write_errors() const { return write_errors_; }
  // Flushes the device answered with a media error (a write before it lost a page its
  // write cache had acknowledged: it can never be made durable).
  std::uint64_t flush_errors() const { return flush_errors_; }
  // Writes and trims the device refused (HostStatus::WriteProtected: read-only).
  std::uint64_t refused() const { return refused_; }
  const std::vector<std::string>& errors() const { return errors_; }
  bool input_error() const { return input_error_; }  // the errors are the workload's fault
  Tick last_completion() const { return last_done_; }
  Tick first_submit() const { return first_submit_; }
  HostPayloadPool& pool() { return pool_; }
  const TokenShadow& shadow() const { return shadow_; }
  // Writes one line per completed request to `path`:
  // submit_us,complete_us,op,lba,bytes,latency_us, then part_<part>_us for each latency
  // part (tlm/latency_parts.h), in path order, then the request's id (from 1, as
  // trace.request names it), then with workload.streams its stream (throws
  // std::runtime_error if it cannot). After add_stream().
  void write_requests_csv(const std::string& path);
  // No request is made after this simulated time (closed loop; an open-loop source
  // stops its own arrivals).
  void set_time_limit(Tick t) { time_limit_ = t; }
  // Called once, when the last request of the workload has completed.
  void on_finished(std::function<void()> f) { on_finished_ = std::move(f); }
  // Progress on stderr for long runs: a line every `seconds` of wall time (0: none).
  void set_progress(double seconds) { progress_seconds_ = seconds; }
  // The listener told of each request read from the workload (null: none).
  void set_listener(RequestListener* l) { listener_ = l; }
  // Waveforms (trace.vcd) under `scope`: requests outstanding at the device, requests
  // in the host (waiting or in its scheduling queue), and the batch (PIQ; one per
  // request otherwise) and kind of the request last sent.
  void trace(VcdWriter& vcd, const std::string& scope);
  // Told where each request is (trace.request, report.request_timeline; null: none).
  void set_life_listener(LifeListener* l) { life_ = l; }
  // Power cuts (power.*): the ledger of what each write is owed after a cut, kept from
  // now on (null: none), and a hook told of each request as it is sent.
  void set_ledger(DurabilityLedger* l) { ledger_ = l; }
  void set_dispatch_hook(std::function<void(const HostCommand&)> f) { on_dispatch_ = std::move(f); }
  // The order the device takes commands in, if not the order they are sent: NVMe's
  // queues are fetched by arbitration, not in the order the host filled them. With
  // `later`, a command sent is recorded in the integrity shadow (and the ledger) only
  // when commit() is called for it, as the device reads it from host memory; else at
  // once, when sent (SATA: the order sent is the order taken).
  void set_commit_later(bool later) { commit_later_ = later; }
  void commit(tlm::tlm_generic_payload& gp);

 private:
  void pump();
  void on_pump_event();
  RequestListener* listener_ = nullptr;
  LifeListener* life_ = nullptr;
  DurabilityLedger* ledger_ = nullptr;
  std::function<void(const HostCommand&)> on_dispatch_;
  std::unordered_map<std::uint64_t, std::uint64_t> flush_seq_;  // flushes outstanding: their ledger numbers
  void ledger_sent(const HostCommand& c, const std::vector<Token>& before);
  VcdWriter* vcd_ = nullptr;
  struct TraceVars {
    int outstanding, queued, batch, batch_op;
  } tv_{};
  void trace_counts() {  // after the counts changed (one test while tracing is off)
    if (!vcd_) return;
    vcd_->change(tv_.outstanding, sim_now(), outstanding_);
    vcd_->change(tv_.queued, sim_now(), host_queue_length());
  }
  // pump() runs: an END_REQ that arrives inside one of its sends (the completion chain
  // runs re-entrantly, docs/performance.md) leaves the next send to pump() itself.
  bool in_pump_ = false;
  bool commit_later_ = false;
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void finish(tlm::tlm_generic_payload& gp);

  struct Stream {
    std::unique_ptr<RequestSource> src;
    unsigned qd = 0;
    HostRequest next{};
    Tick next_arrival = 0;
    bool have_next = false, exhausted = false;
    unsigned in_host = 0;  // admitted and not completed
    unsigned queued = 0;   // arrived, waiting for room in the scheduling queue
    StreamFigures fig;
  };
  bool fetch(Stream& st);  // reads its next request into st.next (false at the end)
  bool fetch_any();        // fetch() of every stream: true if any has a request
  void admit(const HostRequest& r, Tick arrival, std::uint16_t stream);  // into the scheduling queue
  void admit_and_dispatch();  // requests before the window into it, and out to the device
  void dispatch();                                 // from the scheduling queue to the device
  void send(const IoScheduler::Entry& e);
  void fail(const std::string& msg);

  std::vector<Stream> streams_;  // stream 0: the constructor's source
  struct Waiting {
    HostRequest r;
    Tick arrival;
    std::uint16_t stream;
  };
  std::deque<Waiting> queue_;  // arrived, not yet in the scheduling queue (it is full)
  IoScheduler sched_;
  unsigned queue_length_;
  bool window_counts_outstanding_;
  // Room in the scheduling queue for one more request (SchedulerSetup::queue_length).
  bool window_has_room() const {
    return sched_.waiting() + (window_counts_outstanding_ ? outstanding_ : 0u) < queue_length_;
  }
  std::shared_ptr<LocationMapper> locations_;
  ConflictTracker conflicts_;  // over the requests in the scheduling queue or outstanding
  std::uint64_t wait_sum_[2] = {0, 0}, dispatched_[2] = {0, 0};
  std::uint64_t conflict_wait_sum_[2] = {0, 0};  // ticks, over the window's requests
  std::unordered_set<std::uint64_t> arrived_in_conflict_;  // ids in the host or outstanding
  unsigned in_host_ = 0;  // requests admitted or waiting in the host and not completed
  std::uint32_t spp_;
  TokenShadow shadow_;  // what the host last wrote to each logical page
  HostPayloadPool pool_;
  // The host's own record of each command it sent, by payload slot: per logical page, the
  // token it expects a read to return (the last written), or, for a write or trim, the one
  // the page held before (should the device refuse it). The device never sees it.
  std::vector<std::vector<Token>> expected_;
  std::vector<Token>& expected(const tlm::tlm_generic_payload& gp) {
    const std::uint32_t slot = HostPayloadPool::slot_of(gp);
    if (slot >= expected_.size()) expected_.resize(slot + 1);
    return expected_[slot];
  }
  unsigned outstanding_ = 0;
  bool awaiting_end_req_ = false;
  sc_core::sc_event pump_event_;
  LatencyHistogram latency_[2], latency_all_;
  LatencyHistogram other_latency_[2];  // trims, flushes
  std::uint64_t trimmed_bytes_ = 0;
  LatencyAttribution attribution_;
  std::uint64_t bytes_[2] = {0, 0};
  std::uint64_t completed_ = 0, reads_checked_ = 0, mismatches_ = 0, id_ = 0;
  std::uint64_t media_errors_ = 0, unrecovered_pages_ = 0, refused_ = 0, write_errors_ = 0, flush_errors_ = 0;
  // Pages a refused write or trim touched, and the shadow entry they keep for good.
  std::unordered_map<std::uint64_t, Token> restored_;
  double progress_seconds_ = 0;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
  std::vector<std::string> errors_;
  bool input_error_ = false;
  std::function<void()> on_finished_;
  std::unique_ptr<std::ofstream> csv_;
  Tick time_limit_ = 0;
  Tick last_done_ = 0, first_submit_ = kNever;
  std::uint64_t unwritten_reads_ = 0;
  std::uint64_t warmup_requests_ = 0, warmup_completed_ = 0;
  Tick warmup_until_ = 0, window_start_ = 0;
  bool warmup_over_ = false;
  std::function<void(Tick)> on_warmup_end_;
  bool in_warmup(std::uint64_t id, Tick arrival) const { return id <= warmup_requests_ || arrival < warmup_until_; }
  std::unique_ptr<Interval> interval_;
  std::uint64_t round_requests_ = 0;
  Round round_;
  std::function<void(const Round&)> on_round_;
};

}  // namespace ssd::host
