#include "controller/map_log.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ssd::ctrl {

MapLog::MapLog(const Ftl& ftl, const Clock& clock, Port& port, FirmwareTrace* trace)
    : ftl_(ftl), clock_(clock), port_(port), trace_(trace), planes_(ftl.planes()), ppb_(ftl.map_log_pages_per_block()),
      epp_(journal_entries_per_page(ftl.part().page_bytes)),
      ckpt_pages_(checkpoint_pages(ftl.logical_pages(), ftl.part().page_bytes)),
      interval_updates_(ftl.config().checkpoint_interval_updates),
      interval_ticks_(us_to_ticks(ftl.config().checkpoint_interval_us)) {
  const FtlConfig& c = ftl.config();
  if (!c.map_journal || c.reserved_blocks() == 0) throw std::invalid_argument("MapLog: the FTL keeps no map log");
  // Stripe order: channel fastest, then chip, die, plane (as the static allocation CWDP).
  const StaticAllocator stripe_order(c.nand, "CWDP");
  for (std::uint32_t s = 0; s < planes_; ++s) order_.push_back(stripe_order.plane_of(s));
  stripe_pages_ = std::uint64_t{planes_} * ppb_;
  stripes_.resize(c.reserved_blocks());
  for (StripeState& s : stripes_) s.retired.assign(planes_, 0);
  queues_.resize(planes_);
  busy_.resize(planes_);
  in_flight_.assign(planes_, 0);
}

std::uint64_t MapLog::usable_pages(const StripeState& s) const {
  std::uint64_t planes = 0;
  for (const char r : s.retired) planes += !r;
  return planes * ppb_;
}

std::uint64_t MapLog::free_pages() const {
  std::uint64_t n = 0;
  for (const StripeState& s : stripes_)
    if (s.state == Stripe::Erased || s.state == Stripe::Erasing) n += usable_pages(s);
  return n;
}

// What a journal page must leave free: the pages of the checkpoint under way not yet
// programmed (each may fail and need another place), and room for the next one once that
// completes (less what its completion erases: the full stripes older than its start);
// with none under way, a checkpoint.
std::uint64_t MapLog::reserve_pages() const {
  if (!ckpt_active_) return ckpt_pages_;
  std::uint64_t freed = 0;
  for (const StripeState& s : stripes_)
    if (s.state == Stripe::Full && s.max_seq <= ckpt_start_seq_) freed += usable_pages(s);
  return ckpt_to_end_ + (ckpt_pages_ > freed ? ckpt_pages_ - freed : 0);
}

void MapLog::changed(std::uint32_t ppa) {
  ++counters_.entries;
  ++updates_since_;
  if (ppa != kUnmapped) {
    const std::uint32_t block = ftl_.block_of_ppa(ppa);
    if (ram_blocks_.empty() || ram_blocks_.back() != block || ram_barrier_) ram_blocks_.push_back(block);
    ram_barrier_ = false;
  }
  if (++ram_entries_ == epp_) {  // a full page: to the log
    const std::uint64_t id = ++journal_ids_;
    std::vector<std::uint32_t>& b = unpersisted_[id];
    std::sort(ram_blocks_.begin(), ram_blocks_.end());
    ram_blocks_.erase(std::unique(ram_blocks_.begin(), ram_blocks_.end()), ram_blocks_.end());
    b.swap(ram_blocks_);
    ram_entries_ = 0;
    journal_ready_.push_back(id);
    counters_.peak_ram_pages = std::max<std::uint64_t>(counters_.peak_ram_pages, journal_ready_.size());
  }
  if (!ckpt_active_ && ((interval_updates_ && updates_since_ >= interval_updates_) ||
                        (interval_ticks_ && clock_.now() - ckpt_began_ >= interval_ticks_)))
    start_checkpoint(false);
  pump();
}

void MapLog::start_checkpoint(bool forced) {
  ckpt_active_ = true;
  ++ckpt_number_;
  ckpt_start_seq_ = seq_;
  ckpt_to_place_ = ckpt_to_end_ = ckpt_pages_;
  ckpt_began_ = clock_.now();
  updates_since_ = 0;
  journal_since_start_ = 0;
  // The updates made so far are the checkpoint's once it is complete: the journal pages
  // formed until now, and the RAM page's entries until now (the next entry starts a run
  // of its own).
  ckpt_start_journal_id_ = journal_ids_;
  ram_mark_ = ram_blocks_.size();
  ram_barrier_ = true;
  if (forced) ++counters_.checkpoints_forced;
  traced();
}

// The cursor on to the next place: the next page offset of the stripe, or the next stripe
// (erased) when this one is full.
bool MapLog::advance_cursor() {
  for (;;) {
    if (cur_ != kUnmapped && cur_page_ < ppb_) {
      if (!stripes_[cur_].retired[order_[cur_slot_]]) return true;
      if (++cur_slot_ == planes_) {
        cur_slot_ = 0;
        ++cur_page_;
      }
      continue;
    }
    // A new stripe.
    const std::uint32_t next = cur_ == kUnmapped ? 0 : (cur_ + 1) % stripes();
    if (stripes_[next].state != Stripe::Erased) return false;
    if (cur_ != kUnmapped) stripes_[cur_].state = Stripe::Full;
    cur_ = next;
    cur_page_ = cur_slot_ = 0;
    stripes_[cur_].state = Stripe::Open;
    if (usable_pages(stripes_[cur_]) == 0) cur_page_ = ppb_;  // every block of it retired: on to the next
  }
}

// The places left in the open stripe (its blocks not retired).
std::uint64_t MapLog::open_rest() const {
  if (cur_ == kUnmapped || cur_page_ >= ppb_) return 0;
  const StripeState& s = stripes_[cur_];
  std::uint64_t row = 0;
  for (std::uint32_t i = cur_slot_; i < planes_; ++i) row += !s.retired[order_[i]];
  return row + usable_pages(s) / ppb_ * (ppb_ - cur_page_ - 1);
}

bool MapLog::place(std::uint32_t& stripe, std::uint32_t& page, std::uint32_t& plane) {
  if (!advance_cursor()) return false;
  stripe = cur_;
  page = cur_page_;
  plane = order_[cur_slot_];
  if (++cur_slot_ == planes_) {
    cur_slot_ = 0;
    ++cur_page_;
  }
  return true;
}

void MapLog::pump() {
  for (;;) {
    // Short of room and no checkpoint under way: one starts (the log frees only behind
    // one), while the free stripes still hold it and one more.
    if (!ckpt_active_ && !spent_ && free_pages() < ckpt_pages_ + 2 * stripe_pages_) start_checkpoint(true);
    std::uint32_t stripe = 0, page = 0, plane = 0;
    Op op;
    // A checkpoint's pages first: journal pages placed meanwhile would take the room it
    // was started with.
    // A journal page leaves the checkpoints their room (reserve_pages), counted over the
    // erased stripes and the rest of the open one.
    if (ckpt_to_place_ && place(stripe, page, plane)) {
      op.checkpoint = true;
      op.item = ckpt_number_;
      --ckpt_to_place_;
    } else if (!ckpt_to_place_ && !journal_ready_.empty() && free_pages() + open_rest() > reserve_pages() &&
               place(stripe, page, plane)) {
      op.item = journal_ready_.front();
      journal_ready_.pop_front();
      waiting_ = false;
    } else {
      if (!journal_ready_.empty() && !waiting_) {
        waiting_ = true;
        ++counters_.journal_waits;
      }
      break;
    }
    op.stripe = stripe;
    op.page = page;
    op.seq = seq_++;
    stripes_[stripe].max_seq = op.seq + 1;
    queue(plane, op);
  }
  // Work waiting with nothing under way that could make room: after failures (which
  // take a block's remaining places at once), the end of the log (read-only); without
  // any, a defect (the config's check leaves room).
  if ((!journal_ready_.empty() || ckpt_to_place_) && issued_ == 0 && !spent_) {
    bool queued = false;
    for (const auto& q : queues_) queued = queued || !q.empty();
    if (!queued) {
      if (!counters_.program_failures && !counters_.erase_failures)
        throw std::logic_error("map log: no room and nothing under way (" + std::to_string(stripes()) +
                               " stripes, checkpoint of " + std::to_string(ckpt_pages_) + " pages)");
      spend();
    }
  }
}

// The log holds what the config's check asks of it: two checkpoints and three stripes.
bool MapLog::short_of_blocks() const {
  std::uint64_t usable = 0;
  for (const StripeState& s : stripes_) usable += usable_pages(s);
  return usable < 2 * ckpt_pages_ + 3 * stripe_pages_;
}

void MapLog::spend() {
  if (spent_) return;
  spent_ = true;
  std::uint32_t retired = 0;
  for (const StripeState& s : stripes_)
    for (const char r : s.retired) retired += r;
  port_.spent("the map log lost " + std::to_string(retired) + " of its " + std::to_string(stripes() * planes_) +
              " blocks to failures: it no longer has room for a checkpoint of " + std::to_string(ckpt_pages_) +
              " pages");
}

void MapLog::queue(std::uint32_t plane, const Op& op) {
  queues_[plane].push_back(op);
  issue(plane);
}

void MapLog::issue(std::uint32_t plane) {
  if (in_flight_[plane] || queues_[plane].empty()) return;
  busy_[plane] = queues_[plane].front();
  queues_[plane].pop_front();
  in_flight_[plane] = 1;
  ++issued_;
  const Op& op = busy_[plane];
  if (op.erase) port_.erase(plane, op.stripe);
  else port_.program(plane, op.stripe, op.page);
  traced();
}

void MapLog::requeue_block(std::uint32_t plane, std::uint32_t stripe) {
  std::deque<Op>& q = queues_[plane];
  std::deque<Op> kept;
  for (const Op& o : q) {
    if (o.erase || o.stripe != stripe) kept.push_back(o);
    else place_again(o);
  }
  q.swap(kept);
}

// A program placed that will not be made there: its page goes back to be placed (a
// journal page first in line; a page of the checkpoint under way, one more to place).
void MapLog::place_again(const Op& o) {
  if (!o.checkpoint) journal_ready_.push_front(o.item);
  else if (ckpt_active_ && o.item == ckpt_number_) ++ckpt_to_place_;
}

void MapLog::program_ended(std::uint32_t plane, bool ok) {
  if (!in_flight_[plane] || busy_[plane].erase) throw std::logic_error("map log: a program ended that was not issued");
  const Op op = busy_[plane];
  in_flight_[plane] = 0;
  --issued_;
  if (!ok) {
    ++counters_.program_failures;
    stripes_[op.stripe].retired[plane] = 1;  // the block's later pages are skipped
    if (short_of_blocks()) spend();
    place_again(op);
    requeue_block(plane, op.stripe);
  } else if (op.checkpoint) {
    ++counters_.checkpoint_pages;
    if (ckpt_active_ && op.item == ckpt_number_ && --ckpt_to_end_ == 0) {  // complete
      ckpt_active_ = false;
      ++counters_.checkpoints;
      tail_seq_ = ckpt_start_seq_;
      journal_since_tail_ = journal_since_start_;
      // What the checkpoint holds recovery need not find by a scan.
      unpersisted_.erase(unpersisted_.begin(), unpersisted_.upper_bound(ckpt_start_journal_id_));
      if (journal_ids_ == ckpt_start_journal_id_)  // the RAM page of the start: its entries before it
        ram_blocks_.erase(ram_blocks_.begin(), ram_blocks_.begin() + static_cast<std::ptrdiff_t>(ram_mark_));
      reclaim();
    }
  } else {
    ++counters_.journal_pages;
    unpersisted_.erase(op.item);
    if (op.seq >= tail_seq_) ++journal_since_tail_;
    if (ckpt_active_ && op.seq >= ckpt_start_seq_) ++journal_since_start_;
  }
  issue(plane);
  pump();
  traced();
}

// Every full stripe older than the last complete checkpoint's start is erased.
void MapLog::reclaim() {
  for (std::uint32_t s = 0; s < stripes(); ++s) {
    StripeState& st = stripes_[s];
    if (st.state != Stripe::Full || st.max_seq > tail_seq_) continue;
    st.state = Stripe::Erasing;
    for (std::uint32_t p = 0; p < planes_; ++p) {
      if (st.retired[p]) continue;
      ++st.erasing;
      Op op;
      op.erase = true;
      op.stripe = s;
      queue(p, op);
    }
    if (!st.erasing) {  // nothing left to erase in it
      st.state = Stripe::Erased;
      st.max_seq = 0;
    }
  }
}

void MapLog::erase_ended(std::uint32_t plane, bool ok) {
  if (!in_flight_[plane] || !busy_[plane].erase) throw std::logic_error("map log: an erase ended that was not issued");
  const std::uint32_t s = busy_[plane].stripe;
  in_flight_[plane] = 0;
  --issued_;
  StripeState& st = stripes_[s];
  if (ok) {
    ++counters_.erases;
  } else {
    ++counters_.erase_failures;
    st.retired[plane] = 1;
    if (short_of_blocks()) spend();
  }
  if (--st.erasing == 0) {
    st.state = Stripe::Erased;
    st.max_seq = 0;
  }
  issue(plane);
  pump();
  traced();
}

MapLog::Reads MapLog::reads() const {
  Reads r;
  r.checkpoint_pages = ckpt_pages_;
  r.journal_pages = journal_since_tail_;
  return r;
}

void MapLog::unjournaled_blocks(std::vector<std::uint32_t>& out) const {
  const std::size_t from = out.size();
  out.insert(out.end(), ram_blocks_.begin(), ram_blocks_.end());
  for (const auto& [id, blocks] : unpersisted_) out.insert(out.end(), blocks.begin(), blocks.end());
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(from), out.end()), out.end());
}

}  // namespace ssd::ctrl
