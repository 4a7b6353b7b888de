#include "controller/gc_port.h"

#include "controller/holding_stage.h"

namespace ssd::ctrl {

GcPort::GcPort(Ftl& ftl, GcUnit& gc, HoldingStage& stage, WriteFrontier& frontier, Core& core, ReadRecovery& recovery,
               ReadOnly& read_only, Reports& reports, FaultCounters& faults, std::uint64_t cycles_per_gc_page)
    : ftl_(ftl), gc_(gc), stage_(stage), frontier_(frontier), core_(core), recovery_(recovery),
      read_only_(read_only), reports_(reports), faults_(faults), cycles_(cycles_per_gc_page) {}

std::uint32_t GcPort::commands_outstanding(std::uint32_t chip) const { return stage_.outstanding(chip); }

void GcPort::copy_read(std::uint32_t plane, std::uint32_t from) {
  if (listener_) listener_->copy_read_issued(from);
  FwCommand& f = stage_.build(FlashOp::Read, from, FlashOrigin::GcRead, reads_);
  f.plane = plane;
  stage_.submit(f, core_.charge(cycles_));
}

void GcPort::copy_program(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                          Token token) {
  FwCommand& p = stage_.build(FlashOp::Program, to, FlashOrigin::GcProgram, programs_, plane);
  p.cmd->token[p.cmd->first_plane()] = token;
  p.plane = plane;
  p.cmd->lpn = lpn;
  p.copy_from = from;
  p.replaces = from;
  stage_.submit(p, core_.charge(cycles_));
}

void GcPort::erase(std::uint32_t plane, std::uint32_t victim) { erases(&plane, &victim, 1, plane); }

void GcPort::erases(const std::uint32_t* planes, const std::uint32_t* victims, unsigned n, std::uint32_t lead) {
  FwCommand* built[kMaxPlanes];
  Tick ready = 0;
  for (unsigned i = 0; i < n; ++i) {
    built[i] = &stage_.build(FlashOp::Erase, victims[i] * ftl_.config().nand.pages_per_block, FlashOrigin::GcErase,
                             erases_, lead);
    built[i]->plane = planes[i];
    ready = core_.charge(cycles_);  // the core's work for each; all ready when the last is
  }
  for (unsigned i = 0; i < n; ++i) stage_.submit(*built[i], ready);
}

void GcPort::wordlines_due(std::uint32_t plane) { stage_.gc_wordlines_due(plane); }

std::uint32_t GcPort::copies_unbound(std::uint32_t plane) const {
  const std::uint32_t ppd = ftl_.config().nand.planes_per_die;
  const bool die = gc_.copies_in_die();
  const std::uint32_t first = die ? plane / ppd * ppd : plane, n = die ? ppd : 1;
  std::uint32_t held = 0;
  for (std::uint32_t p = first; p < first + n; ++p) held += frontier_.held_pages(p, true);
  return held;
}

void GcPort::CopyReads::ended(FwCommand& f) {
  const FlashCommand& fc = *f.cmd;
  if (fc.status == FlashStatus::Uncorrectable) {
    // Still its logical page's data: poisoned, so that the copy is never returned as good.
    if (port.ftl_.is_valid(f.ppa)) port.recovery_.poison(port.ftl_.written_owner(f.ppa));
  } else if (fc.status != FlashStatus::Ok && fc.status != FlashStatus::ReadRetried) {
    port.reports_.error(unrecovered(fc, "a read cannot end so"));
    return;
  }
  port.gc_.copy_read_ended(f.plane, f.ppa, fc.token[fc.first_plane()]);
}

void GcPort::CopyPrograms::ended(FwCommand& f) {
  const FlashCommand& fc = *f.cmd;
  if (fc.status == FlashStatus::ProgramFailed) {
    ++port.faults_.program_failures;
    port.ftl_.retire(port.ftl_.block_of_ppa(f.ppa));
    port.read_only_.block_failed(port.ftl_.plane_of_ppa(f.ppa));  // the block failed where the copy went
    if (port.gc_.copy_program_failed(f.plane, f.ppa, f.copy_from, fc.lpn, fc.token[fc.first_plane()], fc.priority,
                                        f.latched))
      ++port.faults_.recopied_pages;
    return;
  }
  if (fc.status != FlashStatus::Ok) {
    port.reports_.error(unrecovered(fc, "a program cannot end so"));
    return;
  }
  port.gc_.copy_program_ended(f.plane, f.ppa, f.copy_from, fc.lpn, fc.priority, f.latched);
}

void GcPort::Erases::ended(FwCommand& f) {
  const FlashCommand& fc = *f.cmd;
  const std::uint32_t plane = f.plane, victim = port.ftl_.block_of_ppa(f.ppa);
  if (fc.status == FlashStatus::EraseFailed) {
    ++port.faults_.erase_failures;
    port.gc_.erase_failed(plane, victim);
    port.read_only_.block_failed(plane);
    port.gc_.next_run(plane);
    return;
  }
  if (fc.status != FlashStatus::Ok) {
    port.reports_.error(unrecovered(fc, "an erase cannot end so"));
    return;
  }
  port.gc_.erase_ended(plane, victim);
  port.frontier_.wake(plane);  // host writes that waited for the space
  port.gc_.next_run(plane);
}

}  // namespace ssd::ctrl
