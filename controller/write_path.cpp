#include "controller/write_path.h"

#include "tlm/host_protocol.h"

#include <stdexcept>
#include <string>

namespace ssd::ctrl {

std::uint32_t WritePath::new_op() {
  ++in_flight_;
  if (free_op_ != kNone) {
    const std::uint32_t i = free_op_;
    free_op_ = ops_[i].next_free;
    ops_[i] = Op{};
    ops_[i].live = true;
    return i;
  }
  ops_.emplace_back();
  ops_.back().live = true;
  return static_cast<std::uint32_t>(ops_.size() - 1);
}

void WritePath::release(std::uint32_t op) {
  if (ops_[op].waiters != kNone || !ops_[op].known)
    throw std::logic_error("write path: page write " + std::to_string(op) + " released before its data was known");
  if (ops_[op].riders != kNone)
    throw std::logic_error("write path: page write " + std::to_string(op) +
                           " released with cancelled writes riding on it (they would never complete)");
  --in_flight_;
  ops_[op].live = false;
  const std::uint64_t lpn = ops_[op].lpn;
  const std::uint32_t n = live_.find(lpn);
  if (n > 1) {
    live_.set(lpn, n - 1);
  } else {
    live_.erase(lpn);
    floor_.erase(lpn);
  }
  ops_[op].host = nullptr;  // no longer any write's: a caller holding its index can tell
  ops_[op].next_free = free_op_;
  free_op_ = op;
}

void WritePath::park(std::uint32_t on_op, const Parked& p) {
  std::uint32_t i;
  if (!free_parked_.empty()) {
    i = free_parked_.back();
    free_parked_.pop_back();
    parked_[i] = p;
  } else {
    i = static_cast<std::uint32_t>(parked_.size());
    parked_.push_back(p);
  }
  parked_[i].next = kNone;
  Op& w = ops_[on_op];
  if (w.waiters_tail == kNone) w.waiters = i;
  else parked_[w.waiters_tail].next = i;
  w.waiters_tail = i;
}

WritePath::Read WritePath::read(std::uint64_t lpn, void* host, std::uint32_t page, Token& out) {
  const std::uint32_t op = newest_op(lpn);
  if (op == kNone) return Read::Miss;
  if (ops_[op].known) {
    out = ops_[op].token;
    return Read::Answered;
  }
  park(op, Parked{false, host, page, kNone});
  return Read::Parked;
}

WritePath::Start WritePath::write(std::uint64_t lpn, void* host, Token fresh, bool partial, Tick now,
                                  std::uint32_t& op, const Origin& origin) {
  op = new_op();
  Op& w = ops_[op];
  w.lpn = lpn;
  w.host = host;
  w.origin = origin;
  w.fresh = fresh;
  w.partial = partial;
  if (++seq_ == LpnMap::kAbsent) ++seq_;  // never the map's "absent"
  w.seq = seq_;
  const std::uint32_t live = live_.find(lpn);
  live_.set(lpn, live == LpnMap::kAbsent ? 1 : live + 1);
  const std::uint32_t prev = newest_op(lpn);
  newest_.set(lpn, op);
  if (prev != kNone && ops_[prev].failed) {  // replaced: its data only merged, if at all
    const Token kept = ops_[prev].token;
    drop_failed(prev);
    set_token(op, partial ? merge_tokens(kept, fresh) : fresh, now);
    return Start::Known;
  }
  if (!partial) {
    set_token(op, fresh, now);
    return Start::Known;
  }
  if (prev == kNone) return Start::NeedsOldData;
  if (ops_[prev].known) {
    set_token(op, merge_tokens(ops_[prev].token, fresh), now);
    return Start::Known;
  }
  w.waited_for = Waited::Buffer;
  park(prev, Parked{true, nullptr, op, kNone});
  return Start::Waits;
}

void WritePath::fail(std::uint32_t op) {
  if (!newest(op)) {
    release(op);
    return;
  }
  ops_[op].failed = true;
  ops_[op].host = nullptr;  // its host write completes now
  ++failed_kept_;
}

void WritePath::old_data(std::uint32_t op, Token old_page, Tick now) {
  set_token(op, merge_tokens(old_page, ops_[op].fresh), now);
}

// The data of `op` is known: what waited for it is served in arrival order (a merge
// waiting on it becomes known in turn, and is programmed before `op`), then `op` is
// programmed.
void WritePath::set_token(std::uint32_t op, Token t, Tick now) {
  ops_[op].token = t;
  ops_[op].known = true;
  ops_[op].t_known = now;
  for (std::uint32_t i = ops_[op].waiters; i != kNone;) {
    const Parked p = parked_[i];
    free_parked_.push_back(i);
    i = p.next;
    if (p.is_write) set_token(p.page_or_op, merge_tokens(t, ops_[p.page_or_op].fresh), now);
    else owner_.read_answered(p.host, p.page_or_op, t);
  }
  ops_[op].waiters = ops_[op].waiters_tail = kNone;
  owner_.data_known(op);
}

}  // namespace ssd::ctrl
