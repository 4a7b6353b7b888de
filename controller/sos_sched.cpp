#include "controller/sos_sched.h"

#include <algorithm>

namespace ssd::ctrl {

std::deque<SosScheduler::Entry>& SosScheduler::queue_of(std::uint32_t chip, const FlashOutlet& out) {
  if (queues_.empty()) {
    queues_.resize(out.view().chips());
    programs_.assign(out.view().chips(), 0);
  }
  return queues_[chip];
}

void SosScheduler::submit(FlashCommand& c, Tick ready, FlashOutlet& out) {
  const std::uint32_t chip = out.view().chip_of(c);
  std::deque<Entry>& q = queue_of(chip, out);
  if (movable(c)) {
    ++host_programs_;
    if (cfg_.whm) {
      ready = std::max(ready, out.charge(cfg_.cycles_per_whm_lookup));
      hit(c, out);
      newest_[c.lpn] = &c;
    }
    ++programs_[chip];
    queued_[c.lpn].push_back(seq_);
  }
  q.push_back({&c, ready, seq_++});
  dispatch(chip, out);
  // A second program queued where a chip sits idle with nothing queued: QSL need not wait
  // for that chip's next completion (it may have had none to come).
  if (cfg_.qsl && movable(c) && programs_[chip] > 1)
    for (std::uint32_t k = 0; k < queues_.size(); ++k)
      if (k != chip && queues_[k].empty() && !out.view().busy(k)) {
        dispatch(k, out);
        break;
      }
}

void SosScheduler::unqueued(std::uint64_t lpn, std::uint64_t seq) {
  const auto it = queued_.find(lpn);
  if (it == queued_.end()) return;
  std::deque<std::uint64_t>& d = it->second;
  const auto k = std::find(d.begin(), d.end(), seq);
  if (k == d.end()) return;
  d.erase(k);
  if (d.empty()) queued_.erase(it);
}

bool SosScheduler::oldest_of_page(const Entry& e) const {
  const auto it = queued_.find(e.c->lpn);
  return it == queued_.end() || it->second.front() == e.seq;
}

// WHM: the completion flag of c's page at 0 (a program of it queued): that program is
// cancelled, c's data superseding it.
void SosScheduler::hit(const FlashCommand& c, FlashOutlet& out) {
  const auto it = newest_.find(c.lpn);
  if (it == newest_.end()) return;
  FlashCommand* old = it->second;
  newest_.erase(it);
  const std::uint32_t old_chip = out.view().chip_of(*old);
  std::deque<Entry>& oq = queues_[old_chip];
  const auto e = std::find_if(oq.begin(), oq.end(), [old](const Entry& x) { return x.c == old; });
  if (e == oq.end()) return;  // being moved by QSL this instant (c came during the move): it goes on
  // Out of its queue before the cancel, which completes host work (and so may bring new
  // commands here at once); its command may be reused meanwhile (a payload back to the
  // pool, a stalled write built in it), so everything needed afterwards is taken now.
  const Entry kept = *e;
  const std::uint64_t lpn = old->lpn;
  const std::size_t at = static_cast<std::size_t>(e - oq.begin());
  oq.erase(e);
  --programs_[old_chip];
  unqueued(lpn, kept.seq);
  if (out.cancel(*old)) {
    ++write_hits_;
  } else {  // refused (never for a queued, superseded program), nothing changed: it stays
    oq.insert(oq.begin() + static_cast<std::ptrdiff_t>(at), kept);
    ++programs_[old_chip];
    std::deque<std::uint64_t>& d = queued_[lpn];
    d.insert(std::lower_bound(d.begin(), d.end(), kept.seq), kept.seq);
  }
}

void SosScheduler::forget(const FlashCommand& c) {
  if (!movable(c) || !cfg_.whm) return;
  const auto it = newest_.find(c.lpn);
  if (it != newest_.end() && it->second == &c) newest_.erase(it);
}

void SosScheduler::release(std::uint32_t chip, FlashOutlet& out) {
  std::deque<Entry>& q = queues_[chip];
  const Entry e = q.front();
  q.pop_front();
  if (movable(*e.c)) {
    --programs_[chip];
    unqueued(e.c->lpn, e.seq);
  }
  forget(*e.c);
  ++decisions_;
  out.release(*e.c, std::max(e.ready, out.charge(cfg_.cycles_per_decision)));
}

void SosScheduler::dispatch(std::uint32_t chip, FlashOutlet& out) {
  if (out.view().busy(chip)) return;
  if (queue_of(chip, out).empty()) {
    if (!cfg_.qsl || !level(chip, out)) return;
    if (out.view().busy(chip)) return;  // a command the move brought (GC) went first
  }
  release(chip, out);
}

// QSL: a program from the longest queue holding more than one host program, its last,
// to a plane of `chip` (whose queue is empty); false if none moves.
bool SosScheduler::level(std::uint32_t chip, FlashOutlet& out) {
  const FirmwareView& v = out.view();
  std::uint32_t from = chip;
  for (std::uint32_t k = 0; k < queues_.size(); ++k)
    if (k != chip && programs_[k] > 1 && (from == chip || queues_[k].size() > queues_[from].size())) from = k;
  if (from == chip) return false;
  // Out of its queue while it moves: a move frees a page where host writes may wait and
  // may start GC, so commands may arrive during it, and another idle chip's QSL must not
  // take the same program.
  std::deque<Entry>& src = queues_[from];
  const auto e = std::find_if(src.rbegin(), src.rend(),
                              [this](const Entry& x) { return movable(*x.c) && oldest_of_page(x); });
  if (e == src.rend()) return false;  // each would overtake an older program of its page
  const Entry moving = *e;
  const std::size_t at = static_cast<std::size_t>(src.rend() - e) - 1;
  src.erase(std::next(e).base());
  --programs_[from];
  // The planes of `chip`, fewest programs waiting for a page first (ties: the lowest).
  const std::uint32_t per_chip = v.planes() / v.chips();
  std::vector<std::uint32_t> planes(per_chip);
  for (std::uint32_t p = 0; p < per_chip; ++p) planes[p] = chip * per_chip + p;
  std::stable_sort(planes.begin(), planes.end(), [&v](std::uint32_t a, std::uint32_t b) {
    return v.unbound_programs(a) < v.unbound_programs(b);
  });
  for (std::uint32_t plane : planes) {
    if (!out.retarget(*moving.c, plane)) continue;  // refused: nothing changed, nothing came
    ++programs_[chip];
    queues_[chip].push_back({moving.c, std::max(moving.ready, out.charge(cfg_.cycles_per_qsl_move)), moving.seq});
    ++qsl_moves_;
    return true;
  }
  src.insert(src.begin() + static_cast<std::ptrdiff_t>(at), moving);  // stays where it was
  ++programs_[from];
  return false;
}

std::vector<const FlashCommand*> SosScheduler::queue(std::uint32_t chip) const {
  std::vector<const FlashCommand*> v;
  if (chip < queues_.size())
    for (const Entry& e : queues_[chip]) v.push_back(e.c);
  return v;
}

std::vector<FirmwareScheduler::Stat> SosScheduler::stats() const {
  return {{"sos_decisions", static_cast<double>(decisions_), true},
          {"qsl_moves", static_cast<double>(qsl_moves_), true},
          {"write_hits", static_cast<double>(write_hits_), true},
          {"write_hit_ratio", host_programs_ ? static_cast<double>(write_hits_) / static_cast<double>(host_programs_) : 0.0,
           false}};
}

}  // namespace ssd::ctrl
