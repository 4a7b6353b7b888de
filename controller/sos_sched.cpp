#include "controller/sos_sched.h"

#include <algorithm>

namespace ssd::ctrl {

void SosScheduler::submit(FwCommand& c, Tick ready, FlashOutlet& out) {
  const std::uint32_t chip = out.view().chip_of(c);
  if (movable(c)) {
    ++host_programs_;
    if (cfg_.whm) {
      ready = std::max(ready, out.charge(cfg_.cycles_per_whm_lookup));
      hit(c, out);
      newest_[c.cmd->lpn] = &c;
    }
    queued_[c.cmd->lpn].push_back(seq_);
  }
  c.order = seq_++;
  out.hold(c, ready);
  dispatch(chip, out);
  // A second program queued where a chip sits idle with nothing queued: QSL need not wait
  // for that chip's next completion (it may have had none to come).
  const FirmwareView& v = out.view();
  if (cfg_.qsl && movable(c) && v.held_programs(chip) > 1)
    for (std::uint32_t k = 0; k < v.chips(); ++k)
      if (k != chip && v.held(k) == 0 && !v.busy(k)) {
        dispatch(k, out);
        break;
      }
}

void SosScheduler::unqueued(std::uint64_t lpn, std::uint64_t order) {
  const auto it = queued_.find(lpn);
  if (it == queued_.end()) return;
  std::deque<std::uint64_t>& d = it->second;
  const auto k = std::find(d.begin(), d.end(), order);
  if (k == d.end()) return;
  d.erase(k);
  if (d.empty()) queued_.erase(it);
}

bool SosScheduler::oldest_of_page(const FwCommand& c) const {
  const auto it = queued_.find(c.cmd->lpn);
  return it == queued_.end() || it->second.front() == c.order;
}

// WHM: the completion flag of c's page at 0 (a program of it queued): that program is
// cancelled, c's data superseding it.
void SosScheduler::hit(const FwCommand& c, FlashOutlet& out) {
  const auto it = newest_.find(c.cmd->lpn);
  if (it == newest_.end()) return;
  FwCommand* old = it->second;
  newest_.erase(it);
  if (!out.view().in_queue(*old)) return;  // being moved by QSL this instant (c came during the move): it goes on
  // Out of its queue before the cancel, which completes host work (and so may bring new
  // commands here at once).
  const std::uint64_t lpn = old->cmd->lpn, order = old->order;
  const std::size_t place = out.take_out(*old);
  unqueued(lpn, order);
  if (out.cancel(*old)) {
    ++write_hits_;
  } else {  // refused (never for a queued, superseded program), nothing changed: it stays
    out.put_back(*old, place);
    std::deque<std::uint64_t>& d = queued_[lpn];
    d.insert(std::lower_bound(d.begin(), d.end(), order), order);
  }
}

void SosScheduler::forget(const FwCommand& c) {
  if (!movable(c) || !cfg_.whm) return;
  const auto it = newest_.find(c.cmd->lpn);
  if (it != newest_.end() && it->second == &c) newest_.erase(it);
}

// The command a chip's queue offers, by the class its issuer gave it (GC's: controller.
// gc_priority), as the scheduler block's HOS takes it (controller/sched_policy.h): while
// urgent GC waits, the chip's oldest host read (it takes no free space, so holding it back
// cannot end the GC run sooner); else the oldest command of the first class that has one,
// urgent GC, the host's, background GC. With gc_priority = fifo every command is of the
// host's class: the queue's head.
FwCommand* SosScheduler::candidate(std::uint32_t chip, const FirmwareView& v) {
  FwCommand* oldest[3] = {nullptr, nullptr, nullptr};  // per FlashPriority
  FwCommand* host_read = nullptr;
  for (FwCommand* e = v.first_held(chip); e; e = v.next_held(*e)) {
    const auto cls = static_cast<unsigned>(e->cmd->priority);
    if (cls < 3 && !oldest[cls]) oldest[cls] = e;
    if (!host_read && e->cmd->priority == FlashPriority::Host && e->cmd->op == FlashOp::Read) host_read = e;
  }
  if (oldest[static_cast<unsigned>(FlashPriority::UrgentGc)] && host_read) return host_read;
  for (FwCommand* c : oldest)
    if (c) return c;
  return v.first_held(chip);
}

void SosScheduler::release(std::uint32_t chip, FlashOutlet& out) {
  FwCommand& c = *candidate(chip, out.view());
  if (movable(c)) unqueued(c.cmd->lpn, c.order);
  forget(c);
  ++decisions_;
  out.release(c, std::max(c.ready, out.charge(cfg_.cycles_per_decision)));
}

void SosScheduler::dispatch(std::uint32_t chip, FlashOutlet& out) {
  const FirmwareView& v = out.view();
  if (v.busy(chip)) return;
  if (v.held(chip) == 0) {
    if (!cfg_.qsl || !level(chip, out)) return;
    if (v.busy(chip)) return;  // a command the move brought (GC) went first
  }
  release(chip, out);
}

// QSL: a program from the longest queue holding more than one host program, its last,
// to a plane of `chip` (whose queue is empty); false if none moves.
bool SosScheduler::level(std::uint32_t chip, FlashOutlet& out) {
  const FirmwareView& v = out.view();
  ++qsl_chances_;
  std::uint32_t from = chip;
  for (std::uint32_t k = 0; k < v.chips(); ++k)
    if (k != chip && v.held_programs(k) > 1 && (from == chip || v.held(k) > v.held(from))) from = k;
  if (from == chip) {
    ++qsl_no_source_;
    return false;
  }
  FwCommand* e = v.last_held(from);
  while (e && !(movable(*e) && oldest_of_page(*e))) e = v.prev_held(*e);
  if (!e) {  // each would overtake an older program of its page
    ++qsl_page_order_;
    return false;
  }
  // Out of its queue while it moves: a move frees a page where host writes may wait and
  // may start GC, so commands may arrive during it, and another idle chip's QSL must not
  // take the same program.
  FwCommand& moving = *e;
  const std::size_t place = out.take_out(moving);
  // The planes of `chip`, fewest programs waiting for a page first (ties: the lowest).
  const std::uint32_t per_chip = v.planes() / v.chips();
  std::vector<std::uint32_t> planes(per_chip);
  for (std::uint32_t p = 0; p < per_chip; ++p) planes[p] = chip * per_chip + p;
  std::stable_sort(planes.begin(), planes.end(), [&v](std::uint32_t a, std::uint32_t b) {
    return v.unbound_programs(a) < v.unbound_programs(b);
  });
  for (std::uint32_t plane : planes) {
    if (!out.retarget(moving, plane)) continue;  // refused: nothing changed, nothing came
    out.hold(moving, std::max(moving.ready, out.charge(cfg_.cycles_per_qsl_move)));
    ++qsl_moves_;
    return true;
  }
  out.put_back(moving, place);  // stays where it was
  ++qsl_refused_;
  return false;
}

std::vector<FirmwareScheduler::Stat> SosScheduler::stats() const {
  return {{"sos_decisions", static_cast<double>(decisions_), true},
          {"qsl_moves", static_cast<double>(qsl_moves_), true},
          {"qsl_chances", static_cast<double>(qsl_chances_), true},
          {"qsl_no_source", static_cast<double>(qsl_no_source_), true},
          {"qsl_page_order", static_cast<double>(qsl_page_order_), true},
          {"qsl_refused", static_cast<double>(qsl_refused_), true},
          {"write_hits", static_cast<double>(write_hits_), true},
          {"write_hit_ratio", host_programs_ ? static_cast<double>(write_hits_) / static_cast<double>(host_programs_) : 0.0,
           false}};
}

const param::Table<SosConfig>& SosConfig::keys() {
  static const param::Table<SosConfig> t = [] {
    const std::string src = " (default scaled from Hahn et al.'s < 10 us per flash request at 400 MHz; 0: free)";
    param::Table<SosConfig> k;
    k.flag("controller.sos_qsl", &SosConfig::qsl,
           "controller.firmware_sched = sos: the queue size leveler moves a queued host program to an idle chip "
           "whose queue is empty (controller/sos_sched.h)")
        .flag("controller.sos_whm", &SosConfig::whm,
              "controller.firmware_sched = sos: the write hit manager cancels a queued host program that a newer "
              "write of its logical page supersedes")
        .integer("firmware.cycles_per_decision", &SosConfig::cycles_per_decision, 0, 100000000,
                 "controller.firmware_sched = sos: core cycles per release decision of its dynamic scheduler" + src)
        .unit("core cycles")
        .integer("firmware.cycles_per_qsl_move", &SosConfig::cycles_per_qsl_move, 0, 100000000,
                 "controller.firmware_sched = sos: core cycles per QSL move" + src).unit("core cycles")
        .integer("firmware.cycles_per_whm_lookup", &SosConfig::cycles_per_whm_lookup, 0, 100000000,
                 "controller.firmware_sched = sos: core cycles per WHM lookup, one per host page program" + src)
        .unit("core cycles");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
