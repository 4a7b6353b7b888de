// SOS (Hahn, Lee and Kim, seed 003): software out-of-order scheduling in the firmware.
// The holding stage's release policy `sos` (controller.firmware_sched; the scheduler block
// then passes through what it is sent: controller.scheduler = pass). Plain C++.
//
// Every flash command the firmware builds is held in its chip's queue in the stage
// (FlashOutlet::hold), in the order built: the paper's per-chip software queues (Fig. 5).
// The dynamic scheduler watches each chip through the firmware's view: whenever a chip is
// idle (no command of it released and not seen complete) it releases one command of the
// chip's queue (which: below), at most one command per chip at a time. Each release is a decision on the
// firmware core (cycles_per_decision), made when the core is free. The head is taken by
// class, as HOS's block takes it (controller.gc_priority = host_first, the default): a
// chip's host commands before its background GC's, urgent GC before the host's writes
// (its host reads still first); with gc_priority = fifo GC commands are of the host's
// class, and the head is the oldest. (Taking the oldest whatever its class, while GC
// starts at once as it does when it yields, left each host read behind some 11 GC
// commands of its chip on the default aged job: GC took 89 % of the releases.)
//
// QSL, the queue size leveler (qsl): when a chip is idle and its queue empty, one
// queued host program moves to it from the longest queue holding more than one host
// program (ties: the lowest chip), the last such program of that queue (it delays no
// command queued before it) that is the oldest queued program of its logical page (so
// no program overtakes an older one of its page: without WHM two can be queued), to the
// plane of the idle chip with the fewest programs waiting for a page (ties: the lowest);
// it is released at once. It runs when a chip goes idle with its queue empty, and when
// a queue gets its second host program while a chip is idle with its queue empty (the
// lowest such chip). The mapping follows, because the program gets its page when it
// leaves for the scheduler block (late binding). One move per idle
// chip and trigger; a GC program never moves (GC's stream placed it).
//
// WHM, the write hit manager (whm): a host program of a logical page for which a
// program is still queued (the paper's completion flag at 0) cancels that program
// before the new one is queued: the newer data supersedes it. A program already
// released runs to its end (it cannot be taken back); its mapping then does not move.
// Each lookup costs cycles_per_whm_lookup.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/params.h"
#include "controller/firmware_sched.h"

namespace ssd::ctrl {

struct SosConfig {
  bool qsl = true;
  bool whm = true;
  // Hahn et al.'s bound, under 4,000 cycles per flash request at 400 MHz, split so that
  // a host program's decision and WHM lookup take all of it (controller/firmware.h).
  std::uint64_t cycles_per_decision = 3000;
  std::uint64_t cycles_per_qsl_move = 1000;
  std::uint64_t cycles_per_whm_lookup = 1000;
  // Its keys (sos_sched.cpp).
  static const param::Table<SosConfig>& keys();
};

class SosScheduler final : public FirmwareScheduler {
 public:
  explicit SosScheduler(const SosConfig& cfg) : cfg_(cfg) {}
  void submit(FwCommand& c, Tick ready, FlashOutlet& out) override;
  void chip_idle(std::uint32_t chip, FlashOutlet& out) override { dispatch(chip, out); }
  std::vector<Stat> stats() const override;

  std::uint64_t qsl_moves() const { return qsl_moves_; }
  std::uint64_t write_hits() const { return write_hits_; }
  std::uint64_t decisions() const { return decisions_; }

 private:
  static bool movable(const FwCommand& c) { return c.cmd->origin == FlashOrigin::HostProgram; }
  void dispatch(std::uint32_t chip, FlashOutlet& out);
  void release(std::uint32_t chip, FlashOutlet& out);  // the queue's candidate
  static FwCommand* candidate(std::uint32_t chip, const FirmwareView& v);
  bool level(std::uint32_t chip, FlashOutlet& out);    // QSL: a program moved to `chip`
  void forget(const FwCommand& c);                     // no longer queued: out of the WHM index
  void hit(const FwCommand& c, FlashOutlet& out);      // WHM: a queued program of c's page cancelled
  void unqueued(std::uint64_t lpn, std::uint64_t order);  // a host program left the queues
  bool oldest_of_page(const FwCommand& c) const;

  SosConfig cfg_;
  std::unordered_map<std::uint64_t, FwCommand*> newest_;  // lpn -> its queued host program (whm)
  // lpn -> the submission numbers (FwCommand::order) of its queued host programs, oldest
  // first (QSL's rule).
  std::unordered_map<std::uint64_t, std::deque<std::uint64_t>> queued_;
  std::uint64_t seq_ = 0;  // submissions, in the order queued: FwCommand::order
  std::uint64_t qsl_moves_ = 0, write_hits_ = 0, decisions_ = 0, host_programs_ = 0;
  // QSL's chances (an idle chip with an empty queue) and why one moved nothing: no other
  // queue held two host programs; each would overtake an older program of its page; every
  // plane of the chip refused it (FlashOutlet::retarget).
  std::uint64_t qsl_chances_ = 0, qsl_no_source_ = 0, qsl_page_order_ = 0, qsl_refused_ = 0;
};

}  // namespace ssd::ctrl
