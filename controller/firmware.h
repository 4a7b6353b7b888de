// The FTL as firmware, plain C++: the pipeline of units the firmware core runs
// (docs/controller.md, "The firmware"), wired together. The SystemC module
// (controller/firmware_core.h) only adapts it to its sockets, its events and the time
// (FirmwarePorts); a test drives it without the kernel.
//
//   host command -> HostSplitter --reads--------------------------------> HoldingStage -> scheduler block
//                        | writes                                          ^  (release policy,
//                        v                                                 |   batching, late binding)
//                    WriteUnit (write buffer, RMW reads) -> WriteFrontier -+
//                                                       (placement, stalls, page streams)
//   GcUnit -> GcPort (copy reads and programs, erases) ------------------->+
//   ReadRecovery (ECC decode, reads at further levels, poison) ----------->+
//
// Each command's end comes back to the holding stage, which hands each page to the unit
// that issued it. Each unit is given the others it needs at construction; none calls
// back into the module but through its ports.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "controller/core.h"
#include "controller/ecc.h"
#include "controller/firmware_counters.h"
#include "controller/firmware_ports.h"
#include "controller/firmware_sched.h"
#include "controller/firmware_trace.h"
#include "controller/ftl.h"
#include "controller/gc_port.h"
#include "controller/gc_unit.h"
#include "controller/holding_stage.h"
#include "controller/host_splitter.h"
#include "controller/map_log.h"
#include "controller/map_port.h"
#include "controller/read_only.h"
#include "controller/read_recovery.h"
#include "controller/write_allocator.h"
#include "controller/write_frontier.h"
#include "controller/write_unit.h"

namespace ssd::ctrl {

// The default firmware costs are scaled from the one measured firmware figure among the
// papers the model follows: Hahn et al. (SOS) found their software scheduler took under
// 10 us per flash request on a 400 MHz embedded core, i.e. under 4,000 cycles. The FTL's
// own work per command, per page (map lookup or allocation) and per GC copy or erase is
// taken as a quarter of that budget each; docs/controller.md "Firmware cost" says more.
// They are assumptions, not a product's measurements; 0 everywhere is free firmware.
struct FirmwareConfig {
  double clock_mhz = 500.0;
  std::uint64_t cycles_per_command = 1000;
  std::uint64_t cycles_per_page = 1000;
  std::uint64_t cycles_per_gc_page = 1000;  // per GC copy and per erase
  // GC that yields (the scheduler block serves the host first): GC starts as soon as a
  // plane needs it, its commands are background work unless the plane's free pool is at
  // its last reserve. false: GC starts when the plane's chip has no command outstanding
  // (or at once when host writes are blocked), its commands queued with the host's.
  bool gc_yields = true;
  // Copies of a GC run in flight per victim (a copy: its read issued, its program not
  // ended); 0: all of the victim's at once.
  std::uint32_t gc_copies_in_flight = 8;
  // GC copies go to the die's GC stream, on the plane the die-aligned frontier picks
  // (ftl.gc_destination = die); false: to the victim's plane (plane).
  bool gc_in_die = true;
  // The forecast's delay of a command (Chen's Eq. 9, which queueTotalDelay sums) counts
  // from its request's arrival at the controller, as the paper defines it; true: from the
  // command's release to the flash (ftl.queue_delay_from = release).
  bool delay_from_release = false;
  // Cells of n bits: how long a partial wordline of host data waits, from its first
  // page, for the next host pages on its plane before the rest is padded (it waits on
  // while a host program is built and not yet bound there), us. GC's are padded at the
  // end of its run.
  double wordline_fill_us = 1000.0;
  // Cells of n bits: a GC copy bound on a plane whose host stream has a partial wordline
  // (and no host program to come there) fills it instead of the GC stream's (mixed
  // wordlines): what would otherwise be padded holds data.
  bool wordline_mix = true;
  // Partial-page reads: a host read moves out only the ECC codewords of this many bytes
  // that hold its sectors (controller/read_unit.h); 0: every read moves its whole page.
  // A multiple of 512 that divides the page.
  std::uint32_t read_unit_bytes = 0;
  // The holding stage's batching into n-plane commands (controller/die_batcher.h), on
  // when the NAND takes multi-plane commands and a die has more than one plane: the
  // scheduler block holds at most this many commands of a die, the stage the rest,
  // batched. 0: off.
  std::uint32_t batch_depth = 2;
  // Mark each command sent to the scheduler block that conflicts with one sent before and
  // not yet complete (FlashCommand::keep_order: the block's rescheduling must not move
  // it; controller/reschedule.h, HazardKeys). On with controller.reschedule.
  bool mark_hazards = false;
  DieBatcher::Order batch_order;  // the scheduler block's order (its policy's rtl_form)
  EccConfig ecc;  // the decoder of reads' bit errors (on with a NAND that reports them)
  // The write cache (controller/write_cache.h): when host writes are acknowledged, how
  // many pages may be acknowledged and not yet on flash, and under plp the hold-up time
  // the capacitors give to program them.
  CacheMode write_cache = CacheMode::Off;
  std::uint32_t write_cache_pages = 2048;
  double holdup_us = 20000.0;
  // Its keys (firmware.cpp): firmware.clock_mhz and costs, the GC and batching keys, ECC's.
  static const param::Table<FirmwareConfig>& keys();
};

// The pages the write cache may hold acknowledged and not yet programmed: the key's,
// under plp at most what the hold-up programs (plp_pages()), none without a cache; in the
// FTL's pages (with mapping units, units: the hold-up programs whole NAND pages of them).
std::uint64_t cache_capacity(const FirmwareConfig& cfg, const FtlConfig& f);

class Firmware {
 public:
  // `allocator`: where host page writes go (ftl.write_policy); `release`: the holding
  // stage's release policy (controller.firmware_sched; null: in order). Built by the
  // factories of controller/policies.h. Throws std::invalid_argument for a read unit that
  // does not fit the page.
  Firmware(const FtlConfig& ftl, const FirmwareConfig& cfg, std::unique_ptr<WriteAllocator> allocator,
           std::unique_ptr<FirmwareScheduler> release, FirmwarePorts& ports);
  Firmware(const Firmware&) = delete;
  Firmware& operator=(const Firmware&) = delete;

  // ---- what the module calls ----
  // The simulation's time, set at every entry into the firmware (the calls below), before
  // the call.
  void set_time(Tick now) { clock_.set(now); }
  // Host command `c` arrived now: its core work (firmware.cycles_per_command + pages x
  // cycles_per_page) reserved; returns when it ends, when process() takes it.
  Tick arrived(HostCommand& c);
  void process(HostCommand& c, void* payload) { splitter_.process(c, payload); }
  void time_came(FwCommand& c) { stage_.time_came(c); }
  void settle() { stage_.settle(); }
  void alarm() { stage_.alarm(); }
  // A command's end from the scheduler block: decoded first (decodes(c): the module hands
  // it on after c.ecc_ticks), then completed().
  bool decodes(FwCommand& c) { return recovery_.decodes(c); }
  void completed(FwCommand& c) { stage_.completed(c); }
  FwCommands& commands() { return stage_.commands(); }
  const FwCommands& commands() const { return stage_.commands(); }
  // Time 0: the GC runs resume_gc() left under way go on; the map log (if any) journals
  // the run's mapping updates from now.
  void start() {
    if (map_log_) ftl_.set_changes(map_log_.get());
    gc_.resume_at_start();
  }
  // The host's workload has ended: no GC run starts from now on (runs under way finish
  // their copies and erase), so the simulation ends once the flash is quiet instead of
  // collecting every plane back up to its low mark after the last request.
  void end_of_workload() { gc_.end_of_workload(); }
  // Preconditioning, in zero simulated time (after Ftl::precondition_image): each plane
  // that needs GC starts in the middle of a GC run, as a long run of the same writes
  // leaves it: its victim chosen, a uniformly drawn share of the victim's valid pages
  // already copied into the GC open block (through `nand`). The runs go on at time 0
  // (start()). Without it every plane would start its run at time 0 and erase its victim
  // in step with all the others. Returns the copies made.
  std::uint64_t resume_gc(std::uint64_t seed, FlashBackdoor& nand) { return gc_.resume(seed, nand); }
  FirmwareTrace& trace() { return trace_; }
  void set_listener(FirmwareListener* l) {
    stage_.set_listener(l);
    gc_port_.set_listener(l);
  }
  void set_life_listener(LifeListener* l) {
    splitter_.set_life_listener(l);
    stage_.set_life_listener(l);
  }

  // ---- what it shows ----
  Ftl& ftl() { return ftl_; }
  const Ftl& ftl() const { return ftl_; }
  const FirmwareConfig& config() const { return cfg_; }
  const FirmwareCounters& counters() const { return counters_; }
  const FaultCounters& fault_counters() const { return faults_; }
  const PlacementCounters& placement() const { return placement_; }
  // Chen's write groups, under a policy that forms them (null otherwise).
  const WriteGroupCounters* write_groups() const { return frontier_.allocator().groups(); }
  const ReadOnly& read_only() const { return read_only_; }
  // The map log (ftl.map_persist = journal), null without one.
  const MapLog* map_log() const { return map_log_.get(); }
  const WritePath& write_buffer() const { return writes_.buffer(); }
  bool batching() const { return stage_.batching(); }
  const FirmwareScheduler& release_policy() const { return stage_.policy(); }
  const AllocationView& allocation_view() const { return frontier_.view(); }
  Tick core_busy(Tick now) const { return core_.busy(now); }
  std::uint64_t sectors_per_page() const { return spp_; }
  // The units (tests reach each through them).
  HoldingStage& stage() { return stage_; }
  WriteFrontier& frontier() { return frontier_; }
  WriteUnit& writes() { return writes_; }
  const WriteUnit& writes() const { return writes_; }
  HostSplitter& splitter() { return splitter_; }
  ReadRecovery& recovery() { return recovery_; }
  GcUnit& gc() { return gc_; }
  // HostSplitter::pages_looked_up on this device.
  template <typename F>
  bool pages_looked_up(HostOp op, std::uint64_t lba, std::uint32_t sectors, F&& f) const {
    return HostSplitter::pages_looked_up(op, lba, sectors, spp_, ftl_.logical_pages(), f);
  }

 private:
  FirmwareConfig cfg_;
  std::uint64_t spp_;  // sectors per page
  Clock clock_;
  Ftl ftl_;
  FirmwareCounters counters_;
  FaultCounters faults_;
  PlacementCounters placement_;
  // The units, each given those it needs. A unit may be given one declared after it (a
  // reference to it, used only once all are built); one that takes another as one of its
  // bases (GcUnit::Port, WriteFrontier::Resume) comes after it.
  FirmwareTrace trace_;
  Core core_;
  ReadOnly read_only_;
  GcPort gc_port_;
  GcUnit gc_;
  HoldingStage stage_;
  ReadRecovery recovery_;
  WriteUnit writes_;
  HostSplitter splitter_;
  WriteFrontier frontier_;
  MapPort map_port_;
  std::unique_ptr<MapLog> map_log_;
};

}  // namespace ssd::ctrl
