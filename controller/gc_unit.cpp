#include "controller/gc_unit.h"

#include <algorithm>
#include <stdexcept>

#include "common/splitmix.h"
#include "controller/firmware_counters.h"
#include "controller/victim.h"
#include "tlm/host_protocol.h"

namespace ssd::ctrl {

GcUnit::GcUnit(Ftl& ftl, bool yields, std::uint32_t copies_in_flight, bool in_die, Port& fw,
               FirmwareCounters& counters)
    : ftl_(ftl),
      yields_(yields),
      limit_(copies_in_flight ? copies_in_flight : ~0u),
      in_die_(in_die),
      ppd_(ftl.config().nand.planes_per_die),
      die_jobs_(in_die && ppd_ > 1 ? ftl.planes() / ppd_ : 0, 0),
      fw_(fw),
      counters_(counters),
      jobs_(ftl.planes()), background_programs_(ftl.planes(), 0), wanted_(ftl.config().nand.chips(), 0),
      stuck_(ftl.planes(), 0) {
  slack_ = (ftl.wordline_pages() - 1) * (in_die ? ppd_ : 1);
  parks_ = ftl.units_per_page() > 1;
}


bool GcUnit::stuck(std::uint32_t plane) const {
  if (!stuck_[plane]) return false;
  const std::uint32_t v = greedy_victim(ftl_, plane, filler_slack());
  return v == kUnmapped || ftl_.valid_pages(v) != 0;
}

void GcUnit::check_space(std::uint32_t plane) {
  // A parked run's victim is erased once its wordline is padded: space comes.
  if (pad_parked(plane)) return;
  // Only blocks that failed, or with cells of n bits the filler a victim's copies need,
  // take a plane's space for good: a NAND of one bit per cell that never fails keeps its
  // writes waiting (as before failures were modelled).
  if (!ftl_.config().failures && slack_ == 0) return;
  if (jobs_[plane].active || !fw_.writes_waiting(plane) || (die_runs() && die_jobs_[plane / ppd_])) return;
  if (!stuck(plane) && ftl_.work_in_flight(plane)) return;  // its end calls maybe_start again
  fw_.no_space(plane);
}

void GcUnit::maybe_start(std::uint32_t plane) {
  // After the workload, only a plane whose host writes wait for space starts a run.
  if (!may_collect(plane)) return;
  if (stuck(plane)) {
    check_space(plane);
    return;
  }
  if (die_runs() && die_jobs_[plane / ppd_]) {
    // The die's run is under way: a plane at its last reserve joins it (its host writes
    // wait for space: GC in the foreground); the others wait for the next run.
    if (fw_.at_last_reserve(plane) && open(plane)) {
      ++die_jobs_[plane / ppd_];
      ++counters_.gc_runs;
      ++counters_.gc_foreground;
      run(plane);
    }
    return;
  }
  const std::uint32_t chip = ftl_.chip_of_plane(plane);
  if (fw_.at_last_reserve(plane)) {
    ++counters_.gc_foreground;
    begin(plane);
    if (!jobs_[plane].active) check_space(plane);  // no victim
  } else if (yields_ || fw_.commands_outstanding(chip) == 0) {
    begin(plane);  // yielding GC waits at the chip, behind the host's work
  } else {
    wanted_[chip] = 1;
  }
}

void GcUnit::begin(std::uint32_t plane) {
  if (!die_runs()) {
    start(plane);
    return;
  }
  // Every victim of the die's run chosen first, then their copies issued.
  const std::uint32_t die = plane / ppd_, first = die * ppd_;
  bool opened[kMaxPlanes] = {};
  // A plane better off than the one that began the run (more free blocks) waits for a
  // run of its own: the planes the host writes least collect least.
  const std::uint32_t m = ftl_.free_blocks(plane);
  for (std::uint32_t p = first; p < first + ppd_; ++p)
    if ((p == plane || (may_collect(p) && ftl_.free_blocks(p) <= m && !stuck(p))) && open(p)) {
      opened[p - first] = true;
      ++die_jobs_[die];
      ++counters_.gc_runs;
    }
  for (std::uint32_t p = first; p < first + ppd_; ++p)
    if (opened[p - first]) run(p);
}

void GcUnit::die_erases(std::uint32_t die) {
  const std::uint32_t first = die * ppd_;
  // Ready: every victim emptied and without reads in flight; a run that is stuck or
  // whose victim retires ends through its own maybe_erase (neither is erased).
  for (std::uint32_t p = first; p < first + ppd_; ++p) {
    const Job& job = jobs_[p];
    if (job.active && !job.erase_issued &&
        (job.copies_left || ftl_.pending_reads(job.victim) || job.stuck || ftl_.retiring(job.victim)))
      return;
  }
  // One class for them all: urgent if a plane of them is at its last reserve.
  std::uint32_t planes[kMaxPlanes], victims[kMaxPlanes], lead = kUnmapped;
  unsigned n = 0;
  for (std::uint32_t p = first; p < first + ppd_; ++p) {
    Job& job = jobs_[p];
    if (!job.active || job.erase_issued) continue;
    job.erase_issued = true;
    planes[n] = p;
    victims[n++] = job.victim;
    if (lead == kUnmapped || (!fw_.at_last_reserve(lead) && fw_.at_last_reserve(p))) lead = p;
  }
  if (n) fw_.erases(planes, victims, n, lead);
}

void GcUnit::job_ended(std::uint32_t plane, bool next) {
  if (!die_runs()) return;
  const std::uint32_t die = plane / ppd_, first = die * ppd_;
  if (--die_jobs_[die]) {
    die_erases(die);  // the others may have waited for this one
    return;
  }
  if (next) next_run(first);
}

void GcUnit::chip_idle(std::uint32_t chip) {
  if (!wanted_[chip]) return;
  wanted_[chip] = 0;
  const std::uint32_t per_chip = ftl_.config().nand.dies_per_chip * ftl_.config().nand.planes_per_die;
  for (std::uint32_t p = chip * per_chip; p < (chip + 1) * per_chip; ++p) maybe_start(p);
}

FlashPriority GcUnit::issue_class(FlashOrigin origin, std::uint32_t plane, std::uint32_t on) {
  FlashPriority cls = !yields_                  ? FlashPriority::Host
                      : fw_.at_last_reserve(plane) ? FlashPriority::UrgentGc
                                                   : FlashPriority::BackgroundGc;
  // Programs of a block go to the NAND in page order: an urgent program may not overtake
  // the background programs of its plane still queued (they are in the same GC block).
  if (origin == FlashOrigin::GcProgram && cls == FlashPriority::UrgentGc && background_programs_[on])
    cls = FlashPriority::BackgroundGc;
  if (origin == FlashOrigin::GcProgram && cls == FlashPriority::BackgroundGc) ++background_programs_[on];
  if (cls == FlashPriority::UrgentGc) ++counters_.gc_urgent_commands;
  return cls;
}

void GcUnit::copy_read_ended(std::uint32_t plane, std::uint32_t from, Token token) {
  --jobs_[plane].reading;
  const std::uint32_t to = copy_page(plane);
  if (to == kUnmapped) {  // only after blocks were retired: docs/controller.md, "Faults and recovery"
    drop_copy(plane);
    return;
  }
  fw_.copy_program(plane, to, from, ftl_.written_owner(from), token);
  const std::uint32_t on = ftl_.plane_of_ppa(to);
  if (on != plane) maybe_start(on);  // the copy may have opened a block there
}

// No free page for a copy (the plane, or with GC by die every plane of the die, lost
// blocks to failures): the page stays where it is,
// valid, and the run ends without erasing its victim, which stays a full block.
void GcUnit::drop_copy(std::uint32_t plane) {
  Job& job = jobs_[plane];
  job.stuck = true;
  const auto left = static_cast<std::uint32_t>(job.pages.size() - job.next) + 1;  // this one and those not issued
  counters_.gc_dropped_copies += left;
  job.copies_left -= left;
  job.next = job.pages.size();
  --job.in_flight;
  tail_latched(plane);
  maybe_erase(plane);
}

void GcUnit::copy_latched(std::uint32_t plane, std::uint32_t from) {
  if (from != kUnmapped && parked_of(from)) {  // a parked run's: it issues no more copies
    pad_parked(plane);  // its wordline is padded if no run goes on to fill it
    tails(plane);
    return;
  }
  Job& job = jobs_[plane];
  --job.in_flight;
  ++job.latched;
  issue_copies(plane);
  tails(plane);
}

void GcUnit::tail_latched(std::uint32_t plane) {
  const Job& job = jobs_[plane];
  // No copy is left to be read: none is still to bind a page (the stage pads once the
  // programs built and unbound have bound), though programs bound may still be in flight.
  // Copies of it latched, and none unbound that could still fill their wordline: if GC
  // goes on, parked (the next run's copies fill it), else padded now.
  if (!job.active || job.next < job.pages.size() || job.reading || !job.copies_left) return;
  if (!parks_) {  // one unit a page: padded now
    fw_.wordlines_due(plane);
    return;
  }
  if (!job.latched || fw_.copies_unbound(plane)) return;
  if (!workload_ended_ && !job.stuck && !ftl_.retiring(job.victim)) park(plane);
  else fw_.wordlines_due(plane);
}

bool GcUnit::gc_needed(std::uint32_t plane) const {
  if (!ftl_.gc_needed(plane)) return false;
  std::uint32_t parked = 0;
  for (const Parked& p : parked_) parked += p.plane == plane && !p.stuck;
  return parked == 0 || ftl_.free_blocks(plane) + parked < ftl_.gc_low_mark() ||
         ftl_.retiring_victim(plane) != kUnmapped;
}

void GcUnit::tails(std::uint32_t plane) {
  if (!die_runs() || !parks_) {
    tail_latched(plane);
    return;
  }
  // The die's runs share its GC stream: a copy of one bound may leave another's with no
  // copy unbound to fill its wordline.
  const std::uint32_t first = plane / ppd_ * ppd_;
  for (std::uint32_t p = first; p < first + ppd_; ++p) tail_latched(p);
}

GcUnit::Parked* GcUnit::parked_block(std::uint32_t victim) {
  for (Parked& p : parked_)
    if (p.victim == victim) return &p;
  return nullptr;
}

GcUnit::Parked* GcUnit::parked_of(std::uint32_t from) {
  return parked_.empty() ? nullptr : parked_block(ftl_.block_of_ppa(from));
}

void GcUnit::park(std::uint32_t plane) {
  Job& job = jobs_[plane];
  Parked p;
  p.plane = plane;
  p.victim = job.victim;
  p.copies_left = job.copies_left;
  parked_.push_back(p);
  ++counters_.gc_carried_wordlines;
  job.active = false;  // its pages' list kept for the plane's next run
  job.victim = kUnmapped;
  job.copies_left = job.in_flight = job.latched = 0;
  if (die_runs()) {
    job_ended(plane);  // the die's others may erase now; the last begins the next run
  } else {
    next_run(plane);
  }
}

void GcUnit::parked_ended(Parked& p) {
  if (--p.copies_left == 0) parked_erase(p);
}

void GcUnit::parked_erase(Parked& p) {
  if (p.copies_left || p.erase_issued || ftl_.pending_reads(p.victim)) return;
  if (p.stuck) {  // copies dropped: the victim keeps its pages
    ftl_.release_victim(p.victim);
    stuck_[p.plane] = 1;
    const std::uint32_t plane = p.plane;
    unpark(p);
    next_run(plane);
    return;
  }
  if (ftl_.retiring(p.victim)) {
    ftl_.retired(p.victim);
    ++counters_.gc_retired;
    const std::uint32_t plane = p.plane;
    unpark(p);
    next_run(plane);
    return;
  }
  p.erase_issued = true;
  fw_.erase(p.plane, p.victim);
}

void GcUnit::unpark(const Parked& p) {
  const std::size_t i = static_cast<std::size_t>(&p - parked_.data());
  parked_.erase(parked_.begin() + static_cast<std::ptrdiff_t>(i));
}

bool GcUnit::pad_parked(std::uint32_t plane) {
  if (parked_.empty()) return false;
  const std::uint32_t first = die_runs() ? plane / ppd_ * ppd_ : plane, n = die_runs() ? ppd_ : 1;
  if (die_runs() ? die_jobs_[plane / ppd_] != 0 : jobs_[plane].active) return false;  // GC goes on there
  bool any = false;
  for (const Parked& p : parked_)
    if (p.plane >= first && p.plane < first + n && !p.erase_issued) any = true;
  if (any) fw_.wordlines_due(plane);
  return any;
}

void GcUnit::copy_program_ended(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                                FlashPriority cls, bool latched) {
  ftl_.count_gc_copy(from);
  ftl_.programmed(to);
  if (ftl_.relocate(lpn, to, from)) ++counters_.gc_copies;
  else ++counters_.gc_stale_copies;
  const std::uint32_t on = ftl_.plane_of_ppa(to);
  if (cls == FlashPriority::BackgroundGc) --background_programs_[on];
  if (Parked* p = parked_of(from)) {
    parked_ended(*p);
    if (on != plane) maybe_start(on);
    return;
  }
  Job& job = jobs_[plane];
  --job.copies_left;
  if (!latched) --job.in_flight;
  else --job.latched;
  issue_copies(plane);
  // (A latched copy ends with its wordline, before the page that carried it: the runs'
  // tails are looked at when that page's end comes.)
  if (!latched || !parks_) tails(plane);
  maybe_erase(plane);
  if (on != plane) maybe_start(on);  // the block written may have become a candidate
}

void GcUnit::erase_ended(std::uint32_t plane, std::uint32_t victim) {
  Parked* parked = victim != kUnmapped && victim != jobs_[plane].victim ? parked_block(victim) : nullptr;
  ftl_.erased(parked ? victim : jobs_[plane].victim);
  if (die_runs()) std::fill_n(stuck_.begin() + plane / ppd_ * ppd_, ppd_, 0);  // the die's GC stream has a block
  else stuck_[plane] = 0;
  if (parked) {  // a parked run's: the plane's run goes on
    unpark(*parked);
    return;  // the next run: next_run()
  }
  jobs_[plane] = Job{};
  job_ended(plane, false);  // the next run: next_run(), once the woken writes are placed
}

void GcUnit::next_run(std::uint32_t plane) {
  if (!die_runs()) {
    maybe_start(plane);
    pad_parked(plane);  // none began: the parked runs' wordlines are padded
    return;
  }
  const std::uint32_t die = plane / ppd_, first = die * ppd_;
  if (die_jobs_[die]) return;  // the run's other victims are not erased yet
  // The die's next run, begun by its plane with the fewest free blocks that needs one
  // (ties: the lower plane).
  std::uint32_t order[kMaxPlanes];
  for (std::uint32_t p = 0; p < ppd_; ++p) order[p] = first + p;
  std::stable_sort(order, order + ppd_,
                   [this](std::uint32_t a, std::uint32_t b) { return ftl_.free_blocks(a) < ftl_.free_blocks(b); });
  for (std::uint32_t i = 0; i < ppd_ && !die_jobs_[die]; ++i) maybe_start(order[i]);
  pad_parked(first);  // none began: the parked runs' wordlines are padded
}

bool GcUnit::copy_program_failed(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                                 Token token, FlashPriority cls, bool latched) {
  Parked* parked = parked_of(from);
  if (latched && !parked) {  // in flight again, programmed again or dropped
    ++jobs_[plane].in_flight;
    --jobs_[plane].latched;
  }
  ftl_.programmed(to);  // ended: the page holds nothing and is never mapped
  if (cls == FlashPriority::BackgroundGc) --background_programs_[ftl_.plane_of_ppa(to)];
  const std::uint32_t again = copy_page(plane);
  if (parked && again == kUnmapped) {  // dropped: the parked victim keeps its pages
    ++counters_.gc_dropped_copies;
    parked->stuck = true;
    parked_ended(*parked);
    return false;
  }
  if (again == kUnmapped) {
    drop_copy(plane);
    return false;
  }
  fw_.copy_program(plane, again, from, lpn, token);
  return true;
}

void GcUnit::erase_failed(std::uint32_t plane, std::uint32_t victim) {
  Parked* parked = victim != kUnmapped && victim != jobs_[plane].victim ? parked_block(victim) : nullptr;
  ftl_.retired(parked ? victim : jobs_[plane].victim);
  if (parked) {  // a parked run's: the plane's run goes on
    unpark(*parked);
    return;  // the next run: next_run()
  }
  jobs_[plane] = Job{};
  job_ended(plane, false);  // the next run: next_run()
}

void GcUnit::host_read_ended(std::uint32_t plane) {
  // Parked victims may have waited for it (each looked up again: one erased or retired
  // leaves the list).
  std::vector<std::uint32_t> waited;
  for (const Parked& p : parked_)
    if (p.plane == plane && !p.copies_left && !p.erase_issued) waited.push_back(p.victim);
  for (const std::uint32_t v : waited)
    if (Parked* p = parked_block(v)) parked_erase(*p);
  maybe_erase(plane);  // the victim may have waited for this read
  maybe_start(plane);  // GC may have found no victim while reads were pending
}

std::uint64_t GcUnit::resume(std::uint64_t seed, FlashBackdoor& nand) {
  std::uint64_t x = seed ^ 0x47432052554E5321ull, copies = 0;  // one stream for the planes in order
  auto below = [&x](std::uint64_t n) { return splitmix64::below(splitmix64::next(x), n); };
  for (std::uint32_t plane = 0; plane < ftl_.planes(); ++plane) {
    if (jobs_[plane].active || !ftl_.gc_needed(plane) || !open(plane)) continue;
    if (die_runs()) ++die_jobs_[plane / ppd_];  // the die's run: its planes under way
    Job& job = jobs_[plane];
    // Done before time 0: [0, n) of its n copies, so that at least one is left to run.
    const std::uint64_t done = below(job.pages.size());
    while (job.next < done) {
      const std::uint32_t from = job.pages[job.next];
      const std::uint32_t to = ftl_.allocate(plane, true);
      if (to == kUnmapped) break;  // no room left for GC in the plane: the rest runs in the run
      const std::uint64_t lpn = ftl_.owner(from);
      nand.program(ftl_.decode(to), nand.read(ftl_.decode(from)));
      ftl_.programmed(to);
      if (!ftl_.relocate(lpn, to, from)) throw std::logic_error("GcUnit::resume: a victim's page lost its owner");
      ++job.next;
      ++copies;
    }
    job.copies_left -= static_cast<std::uint32_t>(job.next);
    // Cells of n bits (or pages of several mapping units): the GC stream's wordline padded,
    // as the firmware pads a partial one.
    if (const std::uint32_t w = ftl_.wordline_pages(); w > 1)
      while (ftl_.open_block(plane, true) != kUnmapped && ftl_.next_offset(plane, true) % w) {
        const std::uint32_t to = ftl_.allocate(plane, true);
        nand.program(ftl_.decode(to), kUnwrittenToken);
        ftl_.programmed(to);
      }
  }
  ftl_.clear_counters();
  return copies;
}

void GcUnit::resume_at_start() {
  for (std::uint32_t plane = 0; plane < ftl_.planes(); ++plane) {
    const Job& job = jobs_[plane];
    if (job.active && !job.in_flight && !job.erase_issued) run(plane);
  }
}

bool GcUnit::open(std::uint32_t plane) {
  // GC first when the plane's blocks of n-bit cells need it (a fold's copies take their
  // space); else, or when GC has no victim worth collecting, a fold of the SLC cache (it
  // frees a block the host stream can write).
  std::uint32_t victim = gc_needed(plane) ? take_greedy_victim(ftl_, plane, filler_slack()) : kUnmapped;
  if (victim == kUnmapped && ftl_.fold_due(plane) && (victim = fold_victim(ftl_, plane)) != kUnmapped) {
    ftl_.make_victim(victim);
    ++counters_.fold_runs;
  }
  if (victim == kUnmapped) return false;  // nothing to collect yet (reads pending on every candidate)
  Job& job = jobs_[plane];
  std::vector<std::uint32_t> pages = std::move(job.pages);  // keeps its capacity from the plane's last run
  pages.clear();
  job = Job{};
  job.pages = std::move(pages);
  job.active = true;
  job.victim = victim;
  ftl_.valid_ppas(victim, job.pages);
  job.copies_left = static_cast<std::uint32_t>(job.pages.size());
  if (ftl_.retiring(victim)) counters_.gc_retire_copies += job.copies_left;
  return true;
}

void GcUnit::run(std::uint32_t plane) {
  issue_copies(plane);
  maybe_erase(plane);
}

void GcUnit::start(std::uint32_t plane) {
  if (!open(plane)) return;
  ++counters_.gc_runs;
  run(plane);
}

void GcUnit::issue_copies(std::uint32_t plane) {
  Job& job = jobs_[plane];
  while (job.next < job.pages.size() && job.in_flight < limit_) {
    const std::uint32_t from = job.pages[job.next++];
    if (!ftl_.is_valid(from)) {  // rewritten or trimmed since the victim was chosen: nothing to copy
      --job.copies_left;
      ++counters_.gc_skipped_copies;
      continue;
    }
    ++job.in_flight;
    ++job.reading;
    fw_.copy_read(plane, from);
  }
}

void GcUnit::maybe_erase(std::uint32_t plane) {
  Job& job = jobs_[plane];
  if (!job.active || job.erase_issued || job.copies_left || ftl_.pending_reads(job.victim)) return;
  if (job.stuck) {  // copies dropped: the victim keeps its pages
    ftl_.release_victim(job.victim);
    job.active = false;
    job.victim = kUnmapped;
    stuck_[plane] = 1;
    job_ended(plane, false);  // the die's next run starts on its planes' events
    // Writes that wait for space get none from this run: GC looks again (a victim may need
    // no copy now), and a plane that still cannot collect fails its writes (check_space).
    const std::uint32_t first = die_runs() ? plane / ppd_ * ppd_ : plane, n = die_runs() ? ppd_ : 1;
    for (std::uint32_t p = first; p < first + n; ++p)
      if (fw_.writes_waiting(p)) {
        next_run(plane);
        break;
      }
    pad_parked(plane);  // GC stops here: parked runs' wordlines padded
    return;
  }
  if (ftl_.retiring(job.victim)) {  // a program to it failed: emptied, it leaves use instead of being erased
    ftl_.retired(job.victim);
    ++counters_.gc_retired;
    job.active = false;
    job.victim = kUnmapped;
    job_ended(plane);
    maybe_start(plane);
    return;
  }
  if (die_runs()) {
    die_erases(plane / ppd_);
    return;
  }
  job.erase_issued = true;
  fw_.erase(plane, job.victim);
}

}  // namespace ssd::ctrl
