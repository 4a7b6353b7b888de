// Garbage collection as its own unit, plain C++: when a plane's GC run starts, which
// victim it collects (greedy: controller/victim.h), how its copies are paced (at most
// gc_copies_in_flight per victim), and when the victim is erased. Its port (GcUnit::Port:
// controller/gc_port.h in the firmware) carries the unit's commands out (builds them,
// charges the core, hands them to the holding stage), shows it the write frontier's and
// the stage's state, and tells it of their ends.
//
// A run starts when a plane's free blocks fall below the GC low mark. With in_die and
// more than one plane per die, a die collects in runs of its own: a run begins when a
// plane of the die needs one and the die has none under way, and takes a victim in that
// plane and in each other plane of the die that needs GC and has no more free blocks
// than it (a plane better off waits, so that the planes the host writes least collect
// least); their copies share the die's GC stream, and their erases are issued together
// once every victim of the run is emptied (one n-plane erase), so that the planes' free
// blocks come back together. When the run's last victim is erased, the die's plane with
// the fewest free blocks that needs GC begins the next. A run starts:
//  - yielding GC (gc_yields, the default): at once; its commands are background work at
//    the chip unless the plane is at its last reserve (host writes to it blocked or
//    waiting), then they are urgent (foreground);
//  - otherwise: when the plane's chip has no flash command outstanding, or at once when
//    the plane is at its last reserve; its commands queue with the host's.
// A copy is a read of a valid page of the victim, then its program into a GC stream: with
// in_die (the default) the die's, whose next page goes to the plane the die-aligned
// frontier's rule picks (Ftl::allocate_in_die: controller/die_frontier.h), so that the
// copies line up at one page offset over the die's planes and run as n-plane programs;
// otherwise the victim's plane's own. The logical page it carries comes with the data,
// as from a page's spare area (Ftl::written_owner, when the read ends). A page
// invalidated before its read is issued is skipped; one invalidated meanwhile is copied
// but left invalid (Ftl::relocate). The victim is erased once every copy has ended and no
// host read of it is outstanding.
//
// Mapping units smaller than a page (a wordline of n·U units): a run whose copies are all
// read and some of whom wait in the GC stream's partial wordline (latched in the firmware),
// with no copy unbound that could still fill it, is parked: its victim waits for those
// copies, and the next run begins at once, its copies filling that wordline. The partial
// wordlines are padded only when GC does not go on there (no next run begins on the
// plane, or with die runs on the die, or the workload has ended), so that a run's last
// wordline costs filler only when GC pauses (firmware.gc_carried_wordlines counts the runs
// parked). With one unit a page a run's wordlines are padded at its end, as they were.
//
// Space that cannot come (only after blocks failed: docs/controller.md, "Faults and
// recovery"): a run whose copies found no free page ends without erasing (stuck), and the
// plane does not collect again until a block of it (with die runs, of its die) is erased,
// unless its best victim holds no valid page. A plane whose host writes wait for space
// while no run of it (or of its die) is under way and none can start, because it is stuck
// or no block is worth collecting and no program or read in flight there could change
// that, can gain no space: the port is told (Port::no_space) and the writes fail.
#pragma once

#include <cstdint>
#include <vector>

#include "controller/firmware_counters.h"
#include "controller/ftl.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {


class GcUnit {
 public:
  // What GC asks of the rest of the firmware.
  class Port {
   public:
    virtual ~Port() = default;
    // Host writes to the plane are blocked or waiting for free space.
    virtual bool at_last_reserve(std::uint32_t plane) const = 0;
    // Host writes to the plane wait for free space (they cannot complete without GC).
    virtual bool writes_waiting(std::uint32_t) const { return false; }
    // Flash commands of the chip issued and not yet ended.
    virtual std::uint32_t commands_outstanding(std::uint32_t chip) const = 0;
    // Issue a copy's read of page `from` (its logical page comes with the data:
    // copy_read_ended), its program to `to`, or the erase of a block (global index).
    virtual void copy_read(std::uint32_t plane, std::uint32_t from) = 0;
    virtual void copy_program(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                              Token token) = 0;
    virtual void erase(std::uint32_t plane, std::uint32_t victim) = 0;
    // The erases of the victims of a die's run (planes[i]'s victims[i], i < n), issued
    // together, so that they can run as one n-plane erase: of one class, that of the run
    // of `lead`, and ready at one time.
    virtual void erases(const std::uint32_t* planes, const std::uint32_t* victims, unsigned n, std::uint32_t lead) {
      (void)lead;
      for (unsigned i = 0; i < n; ++i) erase(planes[i], victims[i]);
    }
    // Host writes wait for space in the plane and GC can give it none (no_space()): they
    // fail. The port may call back into the unit.
    virtual void no_space(std::uint32_t) {}
    // Cells of n bits: the run of `plane` has issued its copies and every one not ended
    // waits for its wordline: the GC stream's partial wordlines where its copies go
    // (the die's, or the plane's) are padded now, so that its victim can be erased.
    virtual void wordlines_due(std::uint32_t) {}
    // Cells of n bits: GC copy programs built and not yet bound on the planes of the GC
    // stream `plane`'s copies go to (they may still fill its partial wordline).
    virtual std::uint32_t copies_unbound(std::uint32_t) const { return 0; }
  };

  // `in_die`: copies go to the die's GC stream (ftl.gc_destination = die), else to the
  // victim's plane's (plane).
  GcUnit(Ftl& ftl, bool yields, std::uint32_t copies_in_flight, bool in_die, Port& fw, FirmwareCounters& counters);

  // A plane may need GC (its free blocks fell, or a victim's reads ended): a run starts
  // if it needs one and none is under way.
  void maybe_start(std::uint32_t plane);
  // A chip has no command outstanding: runs waiting for it (not yielding) start.
  void chip_idle(std::uint32_t chip);
  // No run starts from now on (the host's workload has ended); runs under way finish.
  void end_of_workload() { workload_ended_ = true; }
  // The class a GC command of `origin` for the run of `plane`, on plane `on` (a copy's
  // program: the plane its page is in), is issued in, counted as issued: urgent while
  // `plane` is at its last reserve, unless `on` has background GC programs queued (a
  // block's pages go to the NAND in order).
  FlashPriority issue_class(FlashOrigin origin, std::uint32_t plane, std::uint32_t on);
  // A copy program issued in class `cls` on plane `on` bound into the host stream's
  // wordline there (mixed: HoldingStage): it is no longer one of the GC block's programs,
  // and it goes on in the host's class, as the host block's wordlines must reach the NAND
  // in page order.
  void copy_mixed(std::uint32_t on, FlashPriority cls) {
    if (cls == FlashPriority::BackgroundGc) --background_programs_[on];
  }

  // Ends of the unit's commands, and of host reads (a victim waits for them).
  void copy_read_ended(std::uint32_t plane, std::uint32_t from, Token token);
  // `latched`: the copy's program waited in the firmware for its wordline (copy_latched).
  void copy_program_ended(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                          FlashPriority cls, bool latched = false);
  // Cells of n bits: a copy's program of `plane`'s run (from page `from`) waits in the
  // firmware for the other pages of its wordline. It no longer counts against
  // gc_copies_in_flight, so that the run issues the copies that fill the wordline (it still
  // holds the victim).
  void copy_latched(std::uint32_t plane, std::uint32_t from = kUnmapped);
  // The plane's victim (`victim`: that block, its run's or a parked run's; kUnmapped: its
  // run's) is free again.
  void erase_ended(std::uint32_t plane, std::uint32_t victim = kUnmapped);
  // A victim of `plane` was erased (or its erase failed) and the host writes that waited
  // for the space were placed: the plane's next run may begin, and with die runs, once
  // the die's run is over, the die's next one (its neediest plane first).
  void next_run(std::uint32_t plane);
  // Failures (docs/controller.md, "Faults and recovery"): a copy's program to `to` failed
  // (its block retiring): the copy is programmed again to the GC stream's next page; the
  // victim's erase failed: it is retired, and the plane's run is over.
  // Returns whether it was programmed again (false: dropped for want of a page).
  bool copy_program_failed(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn, Token token,
                           FlashPriority cls, bool latched = false);
  void erase_failed(std::uint32_t plane, std::uint32_t victim = kUnmapped);
  void host_read_ended(std::uint32_t plane);
  // A host or read-modify-write read of `ppa` ended: no longer in flight in its block
  // (Ftl::remove_pending_read), whose erase may have waited for it.
  void read_ended(std::uint32_t ppa) {
    ftl_.remove_pending_read(ppa);
    host_read_ended(ftl_.plane_of_ppa(ppa));
  }

  // Preconditioning (Firmware::resume_gc): each plane that needs GC starts in the
  // middle of a run, a uniformly drawn share of its victim's valid pages copied through
  // `nand` before time 0. Returns the copies made. resume_at_start() then issues the
  // rest at time 0.
  std::uint64_t resume(std::uint64_t seed, FlashBackdoor& nand);
  void resume_at_start();

  // A run of the plane under way, or a parked run's victim not yet erased.
  bool active(std::uint32_t plane) const {
    if (jobs_[plane].active) return true;
    for (const Parked& p : parked_)
      if (p.plane == plane) return true;
    return false;
  }
  // The copies of the runs under way not yet ended (at time 0: the backlog resume() left).
  std::uint64_t copies_pending() const {
    std::uint64_t n = 0;
    for (const Job& j : jobs_) n += j.active ? j.copies_left : 0;
    return n;
  }

  // Whether a plane's copies go to its die's GC stream (ftl.gc_destination = die).
  bool copies_in_die() const { return in_die_; }
  // Cells of n bits: the most filler pages the last wordlines of a run's copies take (n - 1
  // on each plane of the GC stream they go to). A victim must hold fewer valid pages than
  // a block less this, or collecting it would free nothing.
  std::uint32_t filler_slack() const { return slack_; }

 private:
  struct Job {
    bool active = false;
    std::uint32_t victim = kUnmapped;
    std::uint32_t copies_left = 0;  // not yet ended (issued or not)
    std::uint32_t in_flight = 0;    // issued, not ended
    // Copy reads issued, not ended: copies whose programs are still to be built. (A copy's
    // program built and unbound holds its page in the frontier; one bound is in a
    // wordline already, which its end or failure does not change.)
    std::uint32_t reading = 0;
    std::uint32_t latched = 0;  // copies latched in a partial wordline, not ended
    bool erase_issued = false;
    bool stuck = false;  // a copy found no free page: the victim is not erased
    std::vector<std::uint32_t> pages;  // the victim's valid pages when chosen
    std::size_t next = 0;              // the first of them not yet issued
  };
  // A parked run (cells of n bits): its copies all read, some latched in a partial
  // wordline that the next run's copies fill; its victim is erased alone once they end.
  struct Parked {
    std::uint32_t plane = 0, victim = kUnmapped;
    std::uint32_t copies_left = 0;  // not yet ended
    bool stuck = false;             // a copy found no free page: the victim is not erased
    bool erase_issued = false;
  };
  // The parked run whose victim is block `victim`, or holds page `from` (null: none; the
  // plane's run's then).
  Parked* parked_block(std::uint32_t victim);
  Parked* parked_of(std::uint32_t from);
  // Parks the run of `plane` (tail_latched), and lets the next begin.
  void park(std::uint32_t plane);
  // A parked run's copy ended (or was dropped): its victim erased once none is left.
  void parked_ended(Parked& p);
  void parked_erase(Parked& p);
  void unpark(const Parked& p);
  // GC does not go on where `plane`'s copies go (no run of its die, with die runs, or of
  // the plane under way): the wordlines that hold parked runs' copies are padded now.
  // Returns whether there were any.
  bool pad_parked(std::uint32_t plane);
  // open() picks the plane's victim and lists its valid pages (false if there is none
  // to collect); run() issues its copies, and its erase once none is left.
  bool open(std::uint32_t plane);
  void run(std::uint32_t plane);
  void start(std::uint32_t plane);
  void issue_copies(std::uint32_t plane);  // up to copies_in_flight
  // Cells of n bits: the run's copies all issued and the ones left latched: pad them.
  void tail_latched(std::uint32_t plane);
  void tails(std::uint32_t plane);  // tail_latched() for the runs that share plane's GC stream
  void maybe_erase(std::uint32_t plane);
  void drop_copy(std::uint32_t plane);
  // Whether `plane`'s GC stream has no page for a copy (its last run stuck) and its best
  // victim holds a valid page.
  bool stuck(std::uint32_t plane) const;
  // Nothing of `plane` started: if its host writes wait and no run of its die is under
  // way, and it is stuck or nothing in flight in it could give it a victim, it can gain
  // no space (Port::no_space).
  void check_space(std::uint32_t plane);
  // Whether `plane` would collect now (it needs GC; after the workload, only for host
  // writes that wait for space).
  bool may_collect(std::uint32_t plane) const {
    return !jobs_[plane].active && (!workload_ended_ || fw_.writes_waiting(plane)) &&
           (gc_needed(plane) || ftl_.fold_due(plane));
  }
  // Ftl::gc_needed, with the plane's parked victims counted free (they are erased once the
  // next run's copies fill their wordline, or it is padded).
  bool gc_needed(std::uint32_t plane) const;
  bool die_runs() const { return !die_jobs_.empty(); }
  std::uint32_t slack_ = 0;  // filler_slack()
  // Runs are parked (mapping units smaller than a page: a wordline of n·U units, whose
  // padding at every run's end took up to n·U - 1 units a plane).
  bool parks_ = false;
  // Starts the run of `plane`, and with die runs the run of its die: a victim in each of
  // its planes that would collect now.
  void begin(std::uint32_t plane);
  // With die runs: the die's victims are erased together once all are emptied.
  void die_erases(std::uint32_t die);
  // The job of `plane` ended (cleared); with die runs, the die's run may be over, and
  // then (`next`) the die's next run begins if a plane needs one.
  void job_ended(std::uint32_t plane, bool next = true);
  // A page of the GC stream for a copy of the run of `plane` (kUnmapped: none).
  std::uint32_t copy_page(std::uint32_t plane) {
    return in_die_ ? ftl_.allocate_in_die(plane / ppd_, true) : ftl_.allocate(plane, true);
  }

  Ftl& ftl_;
  bool yields_;
  std::uint32_t limit_;  // copies in flight per victim
  bool in_die_;
  std::uint32_t ppd_;                 // planes per die
  std::vector<std::uint32_t> die_jobs_;  // die runs, per die: the run's victims not yet erased
  Port& fw_;
  FirmwareCounters& counters_;
  std::vector<Job> jobs_;
  std::vector<Parked> parked_;  // few: at most the runs whose copies fit in a partial wordline
  std::vector<std::uint32_t> background_programs_;  // per plane: GC programs in flight as background work
  std::vector<std::uint8_t> wanted_;                // per chip: a plane of it waits to start GC
  std::vector<std::uint8_t> stuck_;                 // per plane: its last run found no page for a copy
  bool workload_ended_ = false;
};

}  // namespace ssd::ctrl
