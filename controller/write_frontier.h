// The write frontier, plain C++: where the firmware's writes go and where each plane's
// write streams stand.
//  - Placement: the plane of each host page write (the WriteAllocator,
//    ftl.write_policy), which sees the device through a read-only AllocationView.
//  - Stalls: a page write whose plane has no free page waits for space there (GC erasing
//    a block); writes to a plane keep their order, so a write to a plane where others
//    wait waits behind them. They are placed again, in order, when space comes (wake).
//  - Page streams: per plane, a host stream and a GC stream (Ftl::allocate). A program's
//    page is allocated when it is built, but only held for it: a program is unbound until
//    it leaves the holding stage, and then binds the first page its plane's stream holds
//    (late binding: controller/firmware_sched.h), so a block's pages are programmed in
//    order whatever order programs leave in; a program moved or cancelled gives the
//    stream's last page back.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_set>
#include <vector>

#include "controller/firmware_counters.h"
#include "controller/firmware_ports.h"
#include "controller/ftl.h"
#include "controller/gc_unit.h"
#include "controller/write_allocator.h"

namespace ssd::ctrl {

class HoldingStage;

class WriteFrontier {
 public:
  // Who programs the page writes the frontier held back: told, in order, when one can be
  // placed again.
  class Resume {
   public:
    virtual ~Resume() = default;
    virtual void program(std::uint32_t op) = 0;
    // The plane can gain no space: the page write fails.
    virtual void fail(std::uint32_t op) = 0;
  };

  // `stage`: what the allocation view reads of the commands built (outstanding per chip,
  // loads per die, the forecast). `resume` programs the writes woken.
  WriteFrontier(Ftl& ftl, GcUnit& gc, std::unique_ptr<WriteAllocator> allocator, const HoldingStage& stage,
                Resume& resume, const Clock& clock, FirmwareCounters& counters, PlacementCounters& placement);

  // ---- placement and stalls ----
  // The page for page write `op` of logical page `lpn` (a write whose program failed
  // before: `again`, or one held back after such a failure): kUnmapped when it must wait
  // (it is held back, in order, until wake() of its plane). A write placed off its static
  // plane is counted (placement.placed_off_static).
  std::uint32_t place(std::uint32_t op, std::uint64_t lpn, bool& again);
  // Space may have come in `plane` (a block erased, a page given back): its held-back
  // writes are placed again, in order.
  void wake(std::uint32_t plane);
  // The plane can gain no space (GcUnit::Port::no_space): its held-back writes fail.
  void fail_stalled(std::uint32_t plane);
  // Whether host writes wait for space in the plane.
  bool writes_waiting(std::uint32_t plane) const { return !stalled_[plane].empty(); }
  // Whether the plane's free pool is at its last reserve: host writes to it blocked or
  // waiting (GC then runs in the foreground).
  bool at_last_reserve(std::uint32_t plane) const { return ftl_.writes_blocked(plane) || writes_waiting(plane); }
  // The write group of the page the last place() placed (or held back): kept when place()
  // returns, as a write it made wait may fail at once and let other writes be placed
  // meanwhile (GcUnit::Port::no_space).
  WriteAllocator::GroupNote group_note() const { return note_; }
  const AllocationView& view() const { return view_; }
  const WriteAllocator& allocator() const { return *allocator_; }
  bool uses_forecast() const { return allocator_->uses_forecast(); }

  // ---- page streams ----
  // A page allocated for an unbound program of its plane's stream (`gc`: the GC stream).
  void hold_page(std::uint32_t ppa, bool gc) { stream(plane_of(ppa), gc).push_back(ppa); }
  // A program of `plane`'s stream leaves: the first page its stream holds.
  std::uint32_t bind(std::uint32_t plane, bool gc) {
    std::deque<std::uint32_t>& q = stream(plane, gc);
    const std::uint32_t ppa = q.front();
    q.pop_front();
    return ppa;
  }
  // The page offset the next program of the stream to leave binds.
  // A page of the SLC cache: with kSlcOffset set, so that offsets are equal only in one
  // cell mode (what an n-plane command needs).
  static constexpr std::uint32_t kSlcOffset = 1u << 31;
  std::uint32_t next_bound_offset(std::uint32_t plane, bool gc) const {
    const std::uint32_t ppa = stream(plane, gc).front();
    // (In the FTL's pages: with mapping units, a page's units are offsets of their own.)
    return ppa % ftl_.config().nand.pages_per_block | (ftl_.slc_page(ppa) ? kSlcOffset : 0);
  }
  // An unbound program will not be made there (moved, cancelled): the stream's last page
  // goes back, so that no block has a hole (Ftl::unallocate).
  void give_back(std::uint32_t plane, bool gc) {
    std::deque<std::uint32_t>& q = stream(plane, gc);
    ftl_.unallocate(q.back(), gc);
    q.pop_back();
  }
  // Pages one stream of the plane holds for its programs not yet bound.
  std::uint32_t held_pages(std::uint32_t plane, bool gc) const {
    return static_cast<std::uint32_t>(stream(plane, gc).size());
  }
  // Programs built for the plane and not yet bound, both streams.
  std::uint32_t unbound_programs(std::uint32_t plane) const {
    return static_cast<std::uint32_t>(stream(plane, false).size() + stream(plane, true).size());
  }

 private:
  std::uint32_t plane_of(std::uint32_t ppa) const { return ftl_.plane_of_ppa(ppa); }
  std::deque<std::uint32_t>& stream(std::uint32_t plane, bool gc) { return streams_[plane * 2 + (gc ? 1 : 0)]; }
  const std::deque<std::uint32_t>& stream(std::uint32_t plane, bool gc) const {
    return streams_[plane * 2 + (gc ? 1 : 0)];
  }

  class View final : public AllocationView {
   public:
    explicit View(const WriteFrontier& f) : f_(f) {}
    const nand::NandConfig& nand() const override { return f_.ftl_.config().nand; }
    std::uint32_t planes() const override { return f_.ftl_.planes(); }
    std::uint32_t chip_of_plane(std::uint32_t plane) const override { return f_.ftl_.chip_of_plane(plane); }
    std::uint32_t free_blocks(std::uint32_t plane) const override { return f_.ftl_.free_blocks(plane); }
    std::uint32_t commands_outstanding(std::uint32_t chip) const override;
    std::uint32_t unbound_programs(std::uint32_t plane) const override { return f_.unbound_programs(plane); }
    const BusyForecast& forecast() const override;
    Tick now() const override { return f_.clock_.now(); }
    bool can_place(std::uint32_t plane) const override {
      return !f_.writes_waiting(plane) && !f_.ftl_.writes_blocked(plane);
    }
    std::uint32_t next_offset(std::uint32_t plane) const override { return f_.ftl_.next_offset(plane, false); }
    DieLoad die_load(std::uint32_t die) const override;

   private:
    const WriteFrontier& f_;
  };

  Ftl& ftl_;
  GcUnit& gc_;
  std::unique_ptr<WriteAllocator> allocator_;
  const HoldingStage& stage_;
  Resume& resume_;
  const Clock& clock_;
  FirmwareCounters& counters_;
  PlacementCounters& placement_;
  View view_{*this};
  std::vector<std::deque<std::uint32_t>> stalled_;  // per plane: page writes waiting for space
  std::unordered_set<std::uint32_t> again_;         // among them, writes whose program failed
  WriteAllocator::GroupNote note_;                  // the last place()'s write group
  std::vector<std::deque<std::uint32_t>> streams_;  // per plane and stream: pages held for unbound programs
};

}  // namespace ssd::ctrl
