#include "host/io_scheduler.h"

#include <stdexcept>

namespace ssd::host {

LocationVector LocationMapper::vector(std::uint64_t lba, std::uint32_t sectors) const {
  LocationVector v(chips_);
  const PageSpan span = page_span(lba, sectors, spp_);
  // Formula 1: the pages of the span; after N_C pages every chip is set.
  for (std::uint64_t p = span.first; p < span.end() && p < span.first + chips_; ++p) v.set_chip(chip_of_page_(p));
  return v;
}

SchedulerKind parse_scheduler(const std::string& name) {
  if (name == "noop") return SchedulerKind::Noop;
  if (name == "rws") return SchedulerKind::Rws;
  if (name == "piq_r") return SchedulerKind::PiqR;
  if (name == "piq_w") return SchedulerKind::PiqW;
  if (name == "piq") return SchedulerKind::Piq;
  throw std::invalid_argument("unknown host scheduler '" + name + "' (noop, rws, piq_r, piq_w, piq)");
}

DispatchKind parse_dispatch(const std::string& name) {
  if (name == "ncq") return DispatchKind::Ncq;
  if (name == "batch") return DispatchKind::Batch;
  throw std::invalid_argument("unknown host dispatch '" + name + "' (ncq, batch)");
}

int IoScheduler::list_of(HostOp op) const {
  if (kind_ == SchedulerKind::Noop) return 0;
  return op == HostOp::Read ? 0 : 1;
}

bool IoScheduler::batched(int list) const {
  switch (kind_) {
    case SchedulerKind::Noop:
    case SchedulerKind::Rws: return false;
    case SchedulerKind::PiqR: return list == 0;
    case SchedulerKind::PiqW: return list == 1;
    case SchedulerKind::Piq: return true;
  }
  return false;
}

void IoScheduler::push(const Entry& in) {
  List& l = lists_[list_of(in.op)];
  ++waiting_;
  if (!l.batched) {  // one request per batch: FIFO
    l.fifo.push_back(in);
    l.fifo.back().batch = next_batch_++;
    return;
  }
  // A phase serves the batches present when it began (docs/host.md, "Rounds"): while a
  // phase of this list runs, its batches are closed to arrivals, which join or open a
  // batch of the list's next round.
  const bool running = round_open_ && phase_ == list_of(in.op);
  // A trim or a flush (no chip: an empty vector, which would join the first batch) opens
  // a batch at the end instead, so that it is sent after every request of its list that
  // arrived before it: a flush then covers every earlier write, and a trim is never sent
  // ahead of an earlier write to its pages.
  for (Batch& b : l.batches) {  // Algorithm 1, lines 7-17
    if (!is_data(in.op)) break;
    if (running && b.number < round_end_) continue;
    if (b.v.conflicts(in.v)) continue;
    b.v.merge(in.v);
    b.waiting.push_back(in);
    b.waiting.back().batch = b.number;
    return;
  }
  Batch& b = l.batches.emplace_back();  // lines 18-22
  b.number = next_batch_++;
  b.v = in.v;
  b.waiting.push_back(in);
  b.waiting.back().batch = b.number;
}

IoScheduler::Take IoScheduler::take(List& l, std::uint64_t limit, Entry& out) {
  if (!l.batched) {
    if (l.fifo.empty() || l.fifo.front().batch >= limit) return Take::None;
    out = l.fifo.front();
    l.fifo.pop_front();
    --waiting_;
    return Take::Took;
  }
  for (Batch& b : l.batches) {
    if (b.number >= limit) break;
    if (b.waiting.empty()) {
      // Batch dispatch: the issued batch (the oldest, whose members have all been sent)
      // holds the list until its last member completes; complete() then erases it.
      if (dispatch_ == DispatchKind::Batch) return Take::Held;
      continue;
    }
    out = b.waiting.front();
    b.waiting.pop_front();
    b.in_flight.push_back(out);
    --waiting_;
    return Take::Took;
  }
  return Take::None;
}

bool IoScheduler::pop(Entry& out) {
  if (waiting_ == 0) return false;
  if (kind_ == SchedulerKind::Noop) return take(lists_[0], ~std::uint64_t{0}, out) == Take::Took;
  // Rounds: the read batches present when a read phase starts, then the write batches
  // present when the write phase starts, and so on: reads first, writes never starve.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!round_open_) {
      round_end_ = next_batch_;
      round_open_ = true;
    }
    const Take t = take(lists_[phase_], round_end_, out);
    if (t == Take::Took) {
      if (out.op == HostOp::Read && write_waiting_before(out.id)) ++prioritized_;
      return true;
    }
    if (t == Take::Held) return false;  // the phase goes on when its batch completes
    round_open_ = false;
    phase_ ^= 1;
  }
  return false;
}

bool IoScheduler::write_waiting_before(std::uint64_t id) const {
  const List& w = lists_[1];
  if (!w.batched) return !w.fifo.empty() && w.fifo.front().id < id;
  for (const Batch& b : w.batches)  // a batch's waiting members are in arrival order
    if (!b.waiting.empty() && b.waiting.front().id < id) return true;
  return false;
}

void IoScheduler::recompute(Batch& b) {
  b.v = LocationVector(chips_);
  for (const Entry& e : b.waiting) b.v.merge(e.v);
  for (const Entry& e : b.in_flight) b.v.merge(e.v);
}

void IoScheduler::complete(std::uint64_t id, HostOp op) {
  List& l = lists_[list_of(op)];
  std::uint64_t& served = served_[op == HostOp::Read ? 0 : 1];
  if (!l.batched) {  // nothing kept after dispatch: the request was its own batch
    ++served;
    return;
  }
  for (auto b = l.batches.begin(); b != l.batches.end(); ++b) {
    for (std::size_t i = 0; i < b->in_flight.size(); ++i) {
      if (b->in_flight[i].id != id) continue;
      b->in_flight[i] = b->in_flight.back();
      b->in_flight.pop_back();
      if (b->waiting.empty() && b->in_flight.empty()) {
        l.batches.erase(b);
        ++served;
      } else {
        recompute(*b);
      }
      return;
    }
  }
}

std::vector<std::uint64_t> IoScheduler::batch_values(int list) const {
  std::vector<std::uint64_t> r;
  const List& l = lists_[list];
  if (l.batched) {
    for (const Batch& b : l.batches) r.push_back(b.v.value());
  } else {
    for (const Entry& e : l.fifo) r.push_back(e.v.value());
  }
  return r;
}

}  // namespace ssd::host
