// The FTL running as firmware on a modelled embedded core. Host commands arrive in
// order from the host interface; each costs firmware.cycles_per_command plus
// firmware.cycles_per_page per page on the core (a single core: work queues for it);
// 0 cycles is free firmware. Then, per logical page:
//  - READ: the newest data is taken from an in-flight write of the page (the write
//    buffer) if there is one, returned as kUnwrittenToken if the page was never
//    written, else read from flash;
//  - WRITE: a page written only in part is merged with its old data (read-modify-write:
//    a flash read, or the in-flight write's data); the page is allocated (the
//    WriteAllocator: by default statically, ftl.allocation) and programmed; the mapping moves when the program completes, if
//    no newer write of the page came meanwhile (last writer wins);
//  - TRIM: whole pages covered are unmapped; FLUSH completes once the writes taken
//    before it have completed (no volatile cache: a write completes when programmed).
// The write buffer is its own class (controller/write_path.h). GC is its own unit
// (controller/gc_unit.h): the core builds, charges and sends the commands it asks for.
// Policies plug in at two seams, built by name (controller/policies.h): where a page
// write goes (WriteAllocator) and which flash commands go on to the scheduler block and
// when (FirmwareScheduler); a listener is told of what the core issues
// (FirmwareListener).
#pragma once

#include <cmath>
#include <deque>
#include <unordered_set>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm_utils/peq_with_get.h>

#include "controller/combined_command.h"
#include "controller/die_batcher.h"
#include "controller/ecc.h"
#include "controller/reschedule.h"
#include "controller/firmware_counters.h"
#include "controller/ftl.h"
#include "controller/timeline.h"
#include "controller/firmware_sched.h"
#include "controller/gc_unit.h"
#include "controller/sos_sched.h"
#include "controller/write_allocator.h"
#include "controller/write_path.h"
#include "common/vcd_writer.h"
#include "tlm/flash_protocol.h"
#include "tlm/request_life.h"
#include "tlm/host_protocol.h"
#include "tlm/payload_pool.h"

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
  // Copies of a GC run in flight per plane (a copy: its read issued, its program not
  // ended); 0: all of the victim's at once.
  std::uint32_t gc_copies_in_flight = 8;
  // Partial-page reads: a host read moves out only the ECC codewords of this many bytes
  // that hold its sectors (controller/read_unit.h); 0: every read moves its whole page.
  // A multiple of 512 that divides the page.
  std::uint32_t read_unit_bytes = 0;
  // The firmware's scheduling of the flash commands it built (controller.firmware_sched)
  // and where host page writes go (ftl.write_policy): names for the factories of
  // controller/policies.h.
  std::string firmware_sched = "in_order";
  std::string write_policy = "static";
  // Batching into n-plane commands (controller/die_batcher.h), on when the NAND takes
  // multi-plane commands and a die has more than one plane: the scheduler block holds at
  // most this many commands of a die, the firmware the rest, batched. 0: off.
  std::uint32_t batch_depth = 2;
  // Mark each command sent to the scheduler block that conflicts with one sent before and
  // not yet complete (FlashCommand::keep_order: the block's rescheduling must not move
  // it; controller/reschedule.h, HazardKeys). On with controller.reschedule.
  bool mark_hazards = false;
  DieBatcher::Order batch_order;  // the scheduler block's order (full_ssd sets it from its policy)
  EccConfig ecc;  // the decoder of reads' bit errors (on with a NAND that reports them)
  SosConfig sos;  // firmware_sched = sos: its techniques and decision costs
};

// Told of what the firmware issues, so that a helper beside the model can prepare the
// work the firmware will do at the command's end. A listener changes nothing the
// simulation sees; without one the firmware does the same work, only later.
class FirmwareListener {
 public:
  virtual ~FirmwareListener() = default;
  // A program of logical page `lpn` was issued; at its end the mapping of lpn moves and
  // page `replaces` (kUnmapped: none) becomes invalid.
  virtual void program_issued(std::uint64_t lpn, std::uint32_t replaces) = 0;
  // A GC copy's read of page `ppa` was issued; at its end the firmware takes the page's
  // logical page (Ftl::written_owner).
  virtual void copy_read_issued(std::uint32_t ppa) = 0;
};

class FirmwareCore : public sc_core::sc_module {
 public:
  HostTargetSocket<FirmwareCore> host;      // from the host interface
  FlashInitiatorSocket<FirmwareCore> flash;  // to the flash scheduler block

  FirmwareCore(sc_core::sc_module_name name, const FtlConfig& ftl, const FirmwareConfig& fw);

  Ftl& ftl() { return ftl_; }
  const Ftl& ftl() const { return ftl_; }
  const FirmwareCounters& counters() const { return counters_; }
  const FaultCounters& fault_counters() const { return faults_; }
  // Read-only (docs/controller.md, "Read-only"): a plane lost the blocks its share of the
  // logical space and its GC need; from then on host writes and trims are refused
  // (HostStatus::WriteProtected), reads served. When it happened (kNever: not), and why.
  bool read_only() const { return read_only_at_ != kNever; }
  Tick read_only_at() const { return read_only_at_; }
  const std::string& read_only_reason() const { return read_only_reason_; }
  const PlacementCounters& placement() const { return placement_; }
  const FirmwareConfig& config() const { return cfg_; }
  // Whether commands are batched into n-plane commands (FirmwareConfig::batch_depth).
  bool batching() const { return batcher_.on(); }
  // Core busy time up to `now` (work reserved past it not counted).
  Tick core_busy(Tick now) const { return core_.busy(now); }
  FlashPayloadPool& pool() { return pool_; }
  std::uint64_t sectors_per_page() const { return spp_; }
  // The host's workload has ended: no GC run starts from now on (runs under way finish
  // their copies and erase), so the simulation ends once the flash is quiet instead of
  // collecting every plane back up to its low mark after the last request.
  void end_of_workload() { gc_.end_of_workload(); }
  // Preconditioning, in zero simulated time (after Ftl::precondition_image): each plane
  // that needs GC starts in the middle of a GC run, as a long run of the same writes
  // leaves it: its victim chosen, a uniformly drawn share of the victim's valid pages
  // already copied into the GC open block (through `nand`). The runs go on at time 0.
  // Without it every plane would start its run at time 0 and erase its victim in step
  // with all the others. Returns the copies made.
  std::uint64_t resume_gc(std::uint64_t seed, FlashBackdoor& nand) { return gc_.resume(seed, nand); }
  // Where host page writes go (FirmwareConfig::write_policy; a test may set its own).
  void set_write_allocator(std::unique_ptr<WriteAllocator> a) {
    allocator_ = std::move(a);
    keep_forecast_ = allocator_->uses_forecast();
  }
  // Which flash commands go on to the scheduler block, and when
  // (FirmwareConfig::firmware_sched; a test may set its own).
  void set_firmware_scheduler(std::unique_ptr<FirmwareScheduler> s) { fw_sched_ = std::move(s); }
  const FirmwareScheduler& firmware_scheduler() const { return *fw_sched_; }
  // The device as an allocation policy sees it.
  const AllocationView& allocation_view() const { return view_; }
  // The listener told of what the firmware issues (null: none).
  void set_listener(FirmwareListener* l) { listener_ = l; }
  // Waveforms (trace.vcd) under `scope`: the core busy, host commands waiting for it,
  // flash commands outstanding, planes collecting garbage; per plane
  // (chN.chipC.dieD.planeP) GC active and its free blocks.
  void trace(VcdWriter& vcd, const std::string& scope);
  // Told of pages answered without flash (null: none).
  void set_life_listener(LifeListener* l) { life_ = l; }
  // Calls f for the pages of a request that process() looks up at once: a read's (at
  // most four), a write's written in part (read-modify-write: its first and last). False
  // for a request that names none (not a read or write, or past the logical space).
  template <typename F>
  bool pages_looked_up(HostOp op, std::uint64_t lba, std::uint32_t sectors, F&& f) const {
    return pages_looked_up(op, lba, sectors, spp_, ftl_.logical_pages(), f);
  }
  // The same for a device of `logical_pages` pages of `spp` sectors: callable from any
  // thread, reading nothing of the simulation's.
  template <typename F>
  static bool pages_looked_up(HostOp op, std::uint64_t lba, std::uint32_t sectors, std::uint64_t spp,
                              std::uint64_t logical_pages, F&& f) {
    if (sectors == 0 || (op != HostOp::Read && op != HostOp::Write)) return false;
    const PageSpan span = page_span(lba, sectors, spp);
    const std::uint64_t first = span.first, last = span.end() - 1, n = logical_pages;
    if (first >= n) return false;
    if (op == HostOp::Read) {
      for (std::uint64_t lpn = first; lpn <= last && lpn < first + 4 && lpn < n; ++lpn) f(lpn);
      return true;
    }
    if (covers_part(lba, sectors, first, spp)) f(first);
    if (last != first && last < n && covers_part(lba, sectors, last, spp)) f(last);
    return true;
  }

 private:
  using Waited = WritePath::Waited;
  tlm::tlm_sync_enum host_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum flash_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void on_work();
  void settle_work();
  void process(tlm::tlm_generic_payload& gp);
  // Whether a write of `sectors` from `lba` covers logical page `lpn` only in part (its
  // old data must be merged: read-modify-write).
  bool written_in_part(std::uint64_t lba, std::uint32_t sectors, std::uint64_t lpn) const {
    return covers_part(lba, sectors, lpn, spp_);
  }
  // A page of `host` is done: served by flash command `f` (null: answered without flash),
  // after waiting until `known` for `waited_for`. The last page's path becomes the
  // request's attributed parts (tlm/latency_parts.h).
  void page_done(tlm::tlm_generic_payload& host, const FlashCommand* f = nullptr, Tick known = 0,
                 Waited waited_for = Waited::None);
  // A host write's page is done (programmed by `f`, or its program cancelled: null): its
  // write-buffer entry is freed and the page counted for its request.
  void write_page_done(std::uint32_t op, const FlashCommand* f);
  void critical_path(HostCommand& c, const FlashCommand* f, Tick known, Waited waited_for, Tick now) const;
  void complete_host(tlm::tlm_generic_payload& host);
  // FLUSH: a host write is on flash when it completes (every page programmed). A flush
  // completes once every write that reached the firmware before it has completed.
  struct FlushWait {
    tlm::tlm_generic_payload* gp;
    std::uint64_t after;        // the last write taken before it (write_seq_ at its arrival)
    std::uint64_t writes_left;  // of the writes executing when it arrived
  };
  std::deque<FlushWait> flushes_;         // waiting, in arrival order
  std::uint64_t write_seq_ = 0;           // host writes taken, in arrival order
  std::uint64_t writes_executing_ = 0;    // taken and not completed
  void write_completed(std::uint64_t seq);
  Tick reserve_core(std::uint64_t cycles);
  Tick core_ticks(std::uint64_t cycles) const {
    return static_cast<Tick>(std::llround(static_cast<double>(cycles) * cycle_ps_));
  }
  // A command for `ppa`; a program's (an allocated page of its plane's stream) is held
  // for it until release_flash binds it (late binding: controller/firmware_sched.h).
  FlashCommand& new_flash(FlashOp op, std::uint32_t ppa, FlashOrigin origin);
  // Per plane and stream (host 0, GC 1): the pages allocated for unbound programs, in
  // allocation order; a program released takes the first.
  std::vector<std::deque<std::uint32_t>> unbound_;
  std::deque<std::uint32_t>& unbound_of(std::uint32_t plane, bool gc) { return unbound_[plane * 2 + (gc ? 1 : 0)]; }
  const std::deque<std::uint32_t>& unbound_of(std::uint32_t plane, bool gc) const {
    return unbound_[plane * 2 + (gc ? 1 : 0)];
  }
  // The chip a command is for, numbered channel * chips_per_channel + chip.
  std::uint32_t chip_of(const FlashCommand& c) const {
    return std::uint32_t{c.channel} * ftl_.config().nand.chips_per_channel + c.chip;
  }
  void bind(FlashCommand& c);
  // An unbound program's page goes back to its stream (retarget, cancel): the stream's
  // last allocated one, so that no block has a hole.
  void give_back(std::uint32_t plane, bool gc);
  void issued(FlashCommand& c);  // released: counted per chip, forecast, traced, told
  bool retarget(FlashCommand& c, std::uint32_t plane);
  bool cancel(FlashCommand& c);
  bool release_together(FlashCommand* const* parts, unsigned n, Tick at);
  // A pooled payload with a fresh command of `op` on `pages` pages, its id the next.
  tlm::tlm_generic_payload& new_payload(FlashOp op, unsigned pages);
  void command_ended(FlashCommand& f);  // a single-page command's end, to its origin's handler
  void wake_stalled(std::uint32_t plane);  // host writes that waited for space in it
  // A command built, its core work ending at `at`: to the firmware scheduling policy,
  // which releases it to the block (release_flash).
  void send_flash(FlashCommand& c, Tick at) { fw_sched_->submit(c, at, outlet_); }
  void release_flash(FlashCommand& c, Tick at);
  // A released command leaves for the scheduler block: at once, or through the batching.
  void to_block(FlashCommand& c);
  void send_to_block(FlashCommand& c);  // bound, on its way
  void drain_batches();                 // each die with room takes its next batches
  // Whether a command goes through the batching: the host's work (GC's goes on at once:
  // the scheduler block orders it against the host's by its class, gc_priority).
  bool batched(const FlashCommand& c) const {
    return batcher_.on() && (c.origin == FlashOrigin::HostRead || c.origin == FlashOrigin::RmwRead ||
                             c.origin == FlashOrigin::HostProgram);
  }
  std::uint32_t die_of_plane(std::uint32_t plane) const { return plane / ftl_.config().nand.planes_per_die; }
  std::uint32_t die_of(const FlashCommand& c) const { return chip_of(c) * ftl_.config().nand.dies_per_chip + c.die; }
  // The die's commands built and not completed, by operation (AllocationView::die_load).
  void load_add(std::uint32_t plane, FlashOp op, int delta);
  // A part's (or a single command's) end, counted; `released` is the command the
  // firmware released and forecast (the part, or the whole of a release_together).
  void part_ended(FlashCommand& p, const FlashCommand& released);
  // writes (the write buffer: controller/write_path.h)
  // Its data known: allocated a plane, its program built. `again`: its earlier program
  // failed (not counted as a host page again).
  void program(std::uint32_t op, bool again = false);
  void read_answered(tlm::tlm_generic_payload& host, std::uint32_t page, Token t);  // from the buffer
  // gc (controller/gc_unit.h)
  void resume_gc_at_start() { gc_.resume_at_start(); }  // once, at time 0: the runs resume_gc() left under way
  void read_done(std::uint32_t ppa);  // a host or RMW read of ppa completed
  // The completion of a flash command, one handler per origin (flash_bw).
  void host_read_ended(FlashCommand& f);
  void rmw_read_ended(FlashCommand& f);
  void host_program_ended(FlashCommand& f);
  void gc_read_ended(FlashCommand& f);
  void gc_program_ended(FlashCommand& f);
  void gc_erase_ended(FlashCommand& f);
  // Faults and recovery (docs/controller.md, "Faults and recovery").
  // A read's ECC verdict (EccDecoder), on its status: false if the firmware read the page
  // again at the next level (the command's handler is then not called).
  bool decoded(FlashCommand& f);
  void retry_read(const FlashCommand& f);
  void on_decoded();  // reads whose decode time has passed: handled as at their end
  void handle_end(tlm::tlm_generic_payload& gp);
  // Logical pages whose data the firmware knows lost (an uncorrectable read of them, or
  // of the page they were merged with or copied from): their reads answer a media error
  // until a write of the whole page.
  void poison(std::uint64_t lpn);
  void unpoison(std::uint64_t lpn);
  bool poisoned(std::uint64_t lpn) const { return !poisoned_.empty() && poisoned_.count(lpn) != 0; }
  void page_unrecovered(tlm::tlm_generic_payload& host, std::uint32_t page);
  // A block of `plane` failed (retiring, or retired): the device goes read-only when the
  // plane no longer keeps its spare (Ftl::keeps_spare).
  void block_failed(std::uint32_t plane);
  void unrecovered(const FlashCommand& f, const char* recovery);
  // Whether the plane's free pool is at its last reserve: host writes to it blocked or
  // waiting. GC then runs in the foreground (urgent).
  bool at_last_reserve(std::uint32_t plane) const { return ftl_.writes_blocked(plane) || !stalled_[plane].empty(); }
  void chip_activity(std::uint32_t chip, int delta);

  Ftl ftl_;
  FirmwareConfig cfg_;
  std::uint64_t spp_;  // sectors per page
  double cycle_ps_;
  Timeline core_;  // the embedded core: one piece of work at a time
  std::uint32_t work_backlog_ = 0;  // host commands waiting in work_ (keeps arrival order)
  std::uint64_t flash_seq_ = 0;     // ids of the flash commands this core issues
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> work_;       // host commands, core work done
  sc_core::sc_event work_settled_;                               // work_'s and flash_out_'s items, a delta later
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> flash_out_;  // flash commands, core work done
  FlashPayloadPool pool_;
  class WriteOwner final : public WritePath::Owner {
   public:
    explicit WriteOwner(FirmwareCore& fw) : fw_(fw) {}
    void data_known(std::uint32_t op) override { fw_.program(op); }
    void read_answered(void* host, std::uint32_t page, Token t) override {
      fw_.read_answered(*static_cast<tlm::tlm_generic_payload*>(host), page, t);
    }

   private:
    FirmwareCore& fw_;
  };
  WriteOwner write_owner_{*this};
  WritePath writes_{write_owner_};
  tlm::tlm_generic_payload& host_of(std::uint32_t op) const {
    return *static_cast<tlm::tlm_generic_payload*>(writes_.op(op).host);
  }
  std::vector<std::deque<std::uint32_t>> stalled_;            // per plane: page writes waiting for space
  std::vector<std::uint32_t> chip_outstanding_;
  FirmwareCounters counters_;
  FaultCounters faults_;
  EccDecoder ecc_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> decode_;  // reads being decoded (ECC on)
  std::unordered_set<std::uint64_t> poisoned_;
  std::unordered_set<std::uint32_t> again_;  // write ops waiting for space to be programmed again
  Tick read_only_at_ = kNever;
  std::string read_only_reason_;
  PlacementCounters placement_;
  DieBatcher batcher_;
  HazardKeys hazards_;  // the commands in the block and the NAND (FirmwareConfig::mark_hazards)
  std::vector<std::uint32_t> dirty_dies_;  // dies that may send a batch, this instant
  std::vector<char> die_dirty_;
  bool in_work_ = false;                   // on_work runs: it sends the batches at its end
  std::vector<AllocationView::DieLoad> load_;
  FirmwareListener* listener_ = nullptr;
  LifeListener* life_ = nullptr;
  // Tracing (null: off). The core's busy signal falls when its reserved work ends: a
  // process woken then (idle_event_), only while tracing.
  VcdWriter* vcd_ = nullptr;
  struct TraceVars {
    int busy, work_queue, commands, gc_planes;
    std::vector<int> gc, free_blocks;  // per plane
  } tv_{};
  Tick busy_until_ = 0;
  std::uint32_t commands_out_ = 0, gc_planes_ = 0;
  std::vector<char> gc_on_;  // per plane, as last traced
  sc_core::sc_event idle_event_;
  void trace_core_idle();
  void trace_plane(std::uint32_t plane);
  void trace_counts();
  void trace_command(std::uint32_t ppa, int delta);  // a command on ppa issued (+1) or completed (-1)
  class View final : public AllocationView {
   public:
    explicit View(const FirmwareCore& fw) : fw_(fw) {}
    const nand::NandConfig& nand() const override { return fw_.ftl_.config().nand; }
    std::uint32_t planes() const override { return fw_.ftl_.planes(); }
    std::uint32_t chip_of_plane(std::uint32_t plane) const override { return fw_.ftl_.chip_of_plane(plane); }
    std::uint32_t free_blocks(std::uint32_t plane) const override { return fw_.ftl_.free_blocks(plane); }
    std::uint32_t commands_outstanding(std::uint32_t chip) const override { return fw_.chip_outstanding_[chip]; }
    std::uint32_t unbound_programs(std::uint32_t plane) const override { return fw_.sched_view_.unbound_programs(plane); }
    const BusyForecast& forecast() const override { return fw_.forecast_; }
    Tick now() const override;
    bool can_place(std::uint32_t plane) const override {
      return fw_.stalled_[plane].empty() && !fw_.ftl_.writes_blocked(plane);
    }
    std::uint32_t next_offset(std::uint32_t plane) const override { return fw_.ftl_.next_offset(plane, false); }
    DieLoad die_load(std::uint32_t die) const override { return fw_.load_[die]; }

   private:
    const FirmwareCore& fw_;
  };
  BusyForecast forecast_;
  bool keep_forecast_ = false;  // the allocator weighs it
  View view_{*this};
  std::unique_ptr<WriteAllocator> allocator_;
  class SchedView final : public FirmwareView {
   public:
    explicit SchedView(const FirmwareCore& fw) : fw_(fw) {}
    std::uint32_t chips() const override { return static_cast<std::uint32_t>(fw_.chip_outstanding_.size()); }
    std::uint32_t planes() const override { return fw_.ftl_.planes(); }
    std::uint32_t held_by_block(std::uint32_t chip) const override { return fw_.chip_outstanding_[chip]; }
    std::uint32_t unbound_programs(std::uint32_t plane) const override {
      return static_cast<std::uint32_t>(fw_.unbound_of(plane, false).size() + fw_.unbound_of(plane, true).size());
    }
    std::uint32_t plane_of(const FlashCommand& c) const override { return fw_.ftl_.plane_of_ppa(c.issuer.ppa); }
    std::uint32_t chip_of(const FlashCommand& c) const override { return fw_.chip_of(c); }
    bool superseded(const FlashCommand& c) const override {
      return c.origin == FlashOrigin::HostProgram && !fw_.writes_.newest(c.issuer.write_op);
    }

   private:
    const FirmwareCore& fw_;
  };
  SchedView sched_view_{*this};
  class Outlet final : public FlashOutlet {
   public:
    explicit Outlet(FirmwareCore& fw) : fw_(fw) {}
    Tick now() const override;
    void release(FlashCommand& c, Tick at) override { fw_.release_flash(c, at); }
    Tick charge(std::uint64_t cycles) override { return fw_.reserve_core(cycles); }
    const FirmwareView& view() const override { return fw_.sched_view_; }
    bool retarget(FlashCommand& c, std::uint32_t plane) override { return fw_.retarget(c, plane); }
    bool cancel(FlashCommand& c) override { return fw_.cancel(c); }
    bool release_together(FlashCommand* const* parts, unsigned n, Tick at) override {
      return fw_.release_together(parts, n, at);
    }

   private:
    FirmwareCore& fw_;
  };
  Outlet outlet_{*this};
  std::unique_ptr<FirmwareScheduler> fw_sched_;
  // What GC asks of the firmware: its commands built, charged and sent.
  class GcPort final : public GcUnit::Firmware {
   public:
    explicit GcPort(FirmwareCore& fw) : fw_(fw) {}
    bool at_last_reserve(std::uint32_t plane) const override { return fw_.at_last_reserve(plane); }
    bool writes_waiting(std::uint32_t plane) const override { return !fw_.stalled_[plane].empty(); }
    std::uint32_t commands_outstanding(std::uint32_t chip) const override { return fw_.chip_outstanding_[chip]; }
    void copy_read(std::uint32_t plane, std::uint32_t from) override;
    void copy_program(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                      Token token) override;
    void erase(std::uint32_t plane, std::uint32_t victim) override;

   private:
    FirmwareCore& fw_;
  };
  GcPort gc_port_{*this};
  GcUnit gc_;
};

}  // namespace ssd::ctrl
