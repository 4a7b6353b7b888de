#include "controller/write_frontier.h"

#include "controller/holding_stage.h"

namespace ssd::ctrl {

WriteFrontier::WriteFrontier(Ftl& ftl, GcUnit& gc, std::unique_ptr<WriteAllocator> allocator, const HoldingStage& stage,
                             Resume& resume, const Clock& clock, FirmwareCounters& counters,
                             PlacementCounters& placement)
    : ftl_(ftl), gc_(gc), allocator_(std::move(allocator)), stage_(stage), resume_(resume), clock_(clock),
      counters_(counters), placement_(placement), stalled_(ftl.planes()), streams_(std::size_t{ftl.planes()} * 2) {}

std::uint32_t WriteFrontier::place(std::uint32_t op, std::uint64_t lpn, bool& again) {
  if (!again_.empty() && again_.erase(op)) again = true;  // held back after its program failed
  const std::uint32_t plane = allocator_->plane_for(lpn, view_);
  note_ = allocator_->group_note();
  if (!stalled_[plane].empty()) {  // keep the order of writes to a plane
    if (again) again_.insert(op);
    stalled_[plane].push_back(op);
    return kUnmapped;
  }
  const std::uint32_t ppa = ftl_.allocate(plane, false);
  if (ppa == kUnmapped) {
    if (again) again_.insert(op);
    stalled_[plane].push_back(op);
    ++counters_.stalled_writes;
    const WriteAllocator::GroupNote note = note_;
    gc_.maybe_start(plane);  // may fail the writes waiting there, and so place others
    note_ = note;
    return kUnmapped;
  }
  if (plane != ftl_.plane_of_lpn(lpn)) ++placement_.placed_off_static;
  return ppa;
}

void WriteFrontier::wake(std::uint32_t plane) {
  std::deque<std::uint32_t> waiting;
  waiting.swap(stalled_[plane]);
  for (const std::uint32_t op : waiting) resume_.program(op);
}

void WriteFrontier::fail_stalled(std::uint32_t plane) {
  std::deque<std::uint32_t> waiting;
  waiting.swap(stalled_[plane]);
  for (const std::uint32_t op : waiting) {
    if (!again_.empty()) again_.erase(op);
    resume_.fail(op);
  }
}

std::uint32_t WriteFrontier::View::commands_outstanding(std::uint32_t chip) const {
  return f_.stage_.outstanding(chip);
}
const BusyForecast& WriteFrontier::View::forecast() const { return f_.stage_.forecast(); }
AllocationView::DieLoad WriteFrontier::View::die_load(std::uint32_t die) const { return f_.stage_.die_load(die); }

}  // namespace ssd::ctrl
