// The holding stage, plain C++: the one place where the firmware keeps the flash commands
// it has built, from their build until they leave for the scheduler block, and where
// their ends come back.
//
// A command enters when its issuer builds it (build) and is handed to the release policy
// when its core work is done (submit: controller/firmware_sched.h, `controller.
// firmware_sched`). Until the policy releases it, it is held: in its chip's queue (hold),
// or by the policy's decision of the moment. Released, it leaves at its time through the
// batching (controller/die_batcher.h, `ftl.batch_depth`): host work and GC's programs
// and erases wait in their die's lanes while the block has enough of the die's work of
// their class, and leave joined with the die's other planes when they are at one page
// offset (GC's copy reads go on at once). A
// program is unbound all the while it is held, host or GC: it binds its page when it
// leaves (controller/write_frontier.h), so until then it can be joined with others of
// its die into one n-plane command (release_together, or the batching), and a host
// program moved to another plane (retarget) or cancelled when a newer write supersedes
// it (cancel). The rule is stated once in docs/scheduler.md, "The holding stage".
//
// With cells of n bits (nand.bits_per_cell > 1) a PROGRAM writes a wordline of n pages,
// and a plane stream's pages bind in order, so a program that binds a wordline's lower
// page waits (Latched) for the programs that bind the wordline's other pages: a stream
// per wordline (host data with host data, GC copies with GC copies), but for GC copies
// that fill a host wordline (mixed: Config::wordline_mix, in the host's class). The program that
// binds its last page carries the others (FwCommand::lower) into the command, and goes on
// through the batching's joining of planes. A latched page is in the firmware's buffer,
// not the block's: not counted outstanding on its chip until its wordline leaves. A
// partial wordline is padded with filler pages (firmware.padded_pages): the host
// stream's once ftl.wordline_fill_us has passed since its first page latched and no host
// program is built and unbound on its plane; GC's when its run has no copy left to come
// (gc_wordlines_due). docs/controller.md, "Wordlines", states the rule.
//
// At a command's end the stage hands each page out (a part of an n-plane command as if it
// had run alone) to the release policy and then to the command's issuer
// (CommandIssuer::ended), and keeps the counts the firmware's views read: per chip the
// commands released and not seen complete, per die the commands built and not completed,
// the busy forecast (controller/busy_forecast.h).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "controller/busy_forecast.h"
#include "controller/core.h"
#include "controller/die_batcher.h"
#include "controller/firmware_counters.h"
#include "controller/firmware_ports.h"
#include "controller/firmware_sched.h"
#include "controller/firmware_trace.h"
#include "controller/fw_command.h"
#include "controller/ftl.h"
#include "controller/gc_unit.h"
#include "controller/reschedule.h"
#include "controller/write_allocator.h"
#include "controller/write_frontier.h"
#include "tlm/request_life.h"

namespace ssd::ctrl {

class HoldingStage {
 public:
  struct Config {
    std::uint32_t batch_depth = 0;  // the batching's depth (0: off); on only with n-plane commands
    DieBatcher::Order order;        // the scheduler block's order, which the batching keeps
    bool mark_hazards = false;      // mark commands that conflict with ones in flight (keep_order)
    bool keep_forecast = false;     // keep the busy forecast (a write allocator weighs it)
    bool delay_from_release = false;  // its delays from release, not arrival (FirmwareConfig)
    Tick wordline_fill = 0;  // cells of n bits: a partial wordline's wait before padding (ftl.wordline_fill_us)
    bool wordline_mix = false;  // cells of n bits: GC copies fill the host stream's partial wordlines
  };
  // Where a command is, from its build to its leaving.
  enum Where : std::uint8_t { Built, Submitted, Held, TakenOut, Timed, Grouped, Queued, Sent, Gathering, Latched };

  HoldingStage(const Config& cfg, Ftl& ftl, WriteFrontier& frontier, GcUnit& gc, Core& core, const Clock& clock,
               FirmwarePorts& ports, FirmwareTrace& trace, FirmwareCounters& counters, PlacementCounters& placement,
               std::unique_ptr<FirmwareScheduler> policy);
  HoldingStage(const HoldingStage&) = delete;
  HoldingStage& operator=(const HoldingStage&) = delete;

  // ---- what the issuers call ----
  // A command of `op` for page `ppa` (an erase: its block's first page), built now for
  // `issuer`: its address, its GC class (GC's: for the run of `gc_plane`, which a copy's
  // program may serve from another plane of the die), counted for its die; a program is
  // unbound (its page held in its plane's stream).
  FwCommand& build(FlashOp op, std::uint32_t ppa, FlashOrigin origin, CommandIssuer& issuer,
                   std::uint32_t gc_plane = kUnmapped);
  // A map log command (controller/map_log.h) of `op` at `a`, a log block of `plane` the
  // FTL does not number: built now for `issuer`, bound (its page is the log's), counted
  // for its die. Its `ppa` is the plane's first page, which only names its plane.
  FwCommand& build_map(FlashOp op, std::uint32_t plane, const PhysAddr& a, CommandIssuer& issuer);
  // Its core work ends at `ready`: to the release policy.
  void submit(FwCommand& c, Tick ready);
  // Reads built from now on end at `r` first, which hands them on to their issuer (read
  // recovery, with the controller's ECC on; null: none).
  void route_reads(CommandIssuer* r) { reads_via_ = r; }
  // Host program `c`, just built, belongs to write group `g` (Chen's, the placement's:
  // WriteAllocator::group_note). With the batching on, a group's programs released wait
  // for one another (Gathering) and leave together, at one instant, so that the batching
  // joins those of a die at one offset: once the group is complete (full, or a later page
  // went to another group, and each of its programs released or cancelled), or at its
  // forecast start at the latest.
  void join_group(FwCommand& c, const WriteAllocator::GroupNote& g);
  // Cells of n bits: GC's run of `plane` has no copy left to come: the GC stream's
  // partial wordlines of its die (GC by die) or of the plane, with no program of the
  // stream unbound there, are padded at the instant's settle.
  void gc_wordlines_due(std::uint32_t plane);
  // A write group was opened for a page that then waited for space (built later, in
  // another group): the group before it takes no more pages.
  void close_group();

  // ---- what the module calls ----
  void time_came(FwCommand& c);  // FlashOut::wake_at's time
  void settle();                 // FlashOut::settle_soon's: the instant's batches leave
  void alarm();                  // FlashOut::alarm_at's time: write groups due leave
  void completed(FwCommand& c);  // the scheduler block completed c (decoded, with ECC)
  FwCommands& commands() { return commands_; }
  const FwCommands& commands() const { return commands_; }

  // ---- views ----
  // Commands released on a chip whose completion the firmware has not seen.
  std::uint32_t outstanding(std::uint32_t chip) const { return outstanding_[chip]; }
  // Commands built for a die and not completed, by operation.
  AllocationView::DieLoad die_load(std::uint32_t die) const { return load_[die]; }
  const BusyForecast& forecast() const { return forecast_; }
  bool batching() const { return batcher_.on(); }
  const FirmwareScheduler& policy() const { return *policy_; }
  void set_listener(FirmwareListener* l) { listener_ = l; }
  void set_life_listener(LifeListener* l) { life_ = l; }
  std::uint32_t chip_of(const FwCommand& c) const {
    return std::uint32_t{c.cmd->channel} * nand_.chips_per_channel + c.cmd->chip;
  }

 private:
  // A fresh single-page command of `op` at `a` for `issuer`, built now, its record's page
  // `ppa`.
  FwCommand& acquire_at(FlashOp op, const PhysAddr& a, FlashOrigin origin, std::uint32_t ppa, CommandIssuer& issuer);
  std::uint32_t die_of(const FwCommand& c) const { return chip_of(c) * nand_.dies_per_chip + c.cmd->die; }
  std::uint32_t plane_of(const FwCommand& c) const { return ftl_.plane_of_ppa(c.ppa); }
  void load_add(std::uint32_t plane, FlashOp op, int delta);
  void chip_activity(std::uint32_t chip, int delta);
  // The policy's operations (FlashOutlet).
  void release(FwCommand& c, Tick at);
  void hold(FwCommand& c, Tick ready);
  std::size_t take_out(FwCommand& c);
  void put_back(FwCommand& c, std::size_t place);
  bool retarget(FwCommand& c, std::uint32_t plane);
  bool cancel(FwCommand& c);
  bool release_together(FwCommand* const* parts, unsigned n, Tick at);
  // Why `n` commands cannot be released together (empty: they can), as of now.
  std::string why_not_together(FwCommand* const* parts, unsigned n) const;
  void issued(FwCommand& c);  // released: counted per chip, forecast, told
  void settle_batches();      // the dies' batches of the instant, oldest head first
  // Where the forecast's delay of a released command counts from (Chen's Eq. 9).
  Tick delay_origin(const FwCommand& c) const { return cfg_.delay_from_release ? c.t_released : c.t_arrived; }
  void leave(FwCommand& c);   // at its time: through the batching, or on at once
  void leave_group(FwCommand& first);  // programs released together: joined, or one by one
  void send(FwCommand& c);    // bound, marked, on to the block
  void bind(FwCommand& c);
  // The page offset a command runs at (unbound: the next page of the plane stream it
  // binds in), with WriteFrontier::kSlcOffset set for a page of the SLC cache: commands
  // join only at one offset, and so in one cell mode.
  std::uint32_t offset(const FwCommand& c) const {
    // (In the FTL's pages: with mapping units, a page's units are offsets of their own.)
    if (c.bound) return (c.cmd->page * units_ + c.cmd->unit) | (c.cmd->slc ? WriteFrontier::kSlcOffset : 0);
    const std::uint32_t plane = plane_of(c);
    if (mixes(c)) {
      const Latch& H = latches_[latch_of(plane, false)];
      return H.page[0]->ppa % ftl_.config().nand.pages_per_block + H.count;
    }
    return frontier_.next_bound_offset(plane, c.cmd->origin == FlashOrigin::GcProgram);
  }
  // Whether program `c`, binding now, is a GC copy that binds into its plane's host
  // stream's partial wordline (Config::wordline_mix): not urgent (an urgent copy would go
  // on in the host's class, behind host work, while its plane is short of space), the
  // host stream has a partial wordline in its open block, and no host program built and
  // unbound there (one would bind its next page).
  bool mixes(const FwCommand& c) const {
    if (!cfg_.wordline_mix || bits_ == 1 || c.cmd->origin != FlashOrigin::GcProgram ||
        c.cmd->priority == FlashPriority::UrgentGc)
      return false;
    const std::uint32_t plane = plane_of(c);
    const Latch& H = latches_[latch_of(plane, false)];
    // (Not into a page of the SLC cache, which holds host data alone.)
    return H.count && !frontier_.held_pages(plane, false) && !H.page[0]->cmd->slc &&
           ftl_.open_block(plane, false) == ftl_.block_of_ppa(H.page[0]->ppa);
  }
  // Whether `parts` (bound) are all of one class: a mixed GC copy went on in the host's,
  // and is not joined with others, lest it lend its class to a GC block's page, which
  // could then pass that block's earlier wordlines in the scheduler block.
  static bool one_class(FwCommand* const* parts, unsigned n) {
    for (unsigned i = 1; i < n; ++i)
      if (parts[i]->cmd->priority != parts[0]->cmd->priority) return false;
    return true;
  }
  // An n-plane command made of `parts` (bound), its record's parts set.
  FwCommand& combine(FwCommand* const* parts, unsigned n);
  // The commands that go through the batching when it is on: all but GC's copy reads. A
  // victim's valid pages lie at scattered offsets, so its reads rarely join, and they go
  // to the block at once, where its order puts them behind the host's work; GC's programs
  // line up at one offset in the die's GC stream (controller/gc_unit.h), and a die's run
  // erases its victims together.
  bool batched(const FwCommand& c) const { return batcher_.on() && c.cmd->origin != FlashOrigin::GcRead; }
  void part_ended(FwCommand& p, const FwCommand& released);
  // ---- wordlines (cells of n bits) ----
  // Whether program `c`, bound, goes on now: a wordline's last page, carrying the others,
  // or any command with one bit per cell. False: it waits for its wordline (Latched).
  bool wordline(FwCommand& c);
  // Of `parts` (bound), those that go on now, kept in order in parts[0..): their count.
  unsigned going_on(FwCommand** parts, unsigned n);
  // A plane stream's partial wordline: the programs latched, lowest page first.
  struct Latch {
    std::array<FwCommand*, kMaxBitsPerCell * kMaxUnitsPerPage - 1> page{};
    unsigned count = 0;
    Tick due = 0;  // padded from then on, once its stream has no program unbound there
    bool queued = false;  // in pads_
    // GC's: a run's end came (gc_wordlines_due) while programs of the stream were still
    // to bind; one that binds into the host's wordline instead (mixed) leaves it to pad.
    bool tail = false;
  };
  // Queues latch `l`'s partial wordline for padding at the instant's settle.
  void pad_soon(std::uint32_t l);
  // A plane's latches: its host stream's in cells of n bits, its GC stream's, and (mapping
  // units smaller than a page) its host stream's in the SLC cache, whose pages latch too.
  static std::uint32_t latch_of(std::uint32_t plane, bool gc) { return plane * 3 + (gc ? 1 : 0); }
  static std::uint32_t slc_latch(std::uint32_t plane) { return plane * 3 + 2; }
  static std::uint32_t plane_of_latch(std::uint32_t l) { return l / 3; }
  static bool gc_latch(std::uint32_t l) { return l % 3 == 1; }
  static bool is_slc_latch(std::uint32_t l) { return l % 3 == 2; }
  // Pads the latch if it is due and its stream holds no page for a program (at the
  // instant's settle), or asks for an alarm at its time.
  void wordline_check(std::uint32_t latch);
  // `moved_on`: its stream binds in another block now (the latch's closed when a program
  // to it failed): padded whatever the stream holds.
  void pad(std::uint32_t latch, bool moved_on = false);
  // The lower pages `carrier` took to the flash, ended with `whole`'s result.
  void lower_ended(FwCommand& carrier, const FlashCommand& whole);
  // Tells the request-life listener that `c` carries each page it stands for (each_page).
  void tell_carries(const FwCommand& c) {
    each_page(c, [&](const FwCommand& p) { life_->command_carries(clock_.now(), *c.cmd, *p.cmd); });
  }
  // Calls `f` on each single-page command `c` stands for: its parts (a command of several
  // planes) or itself, and the lower pages each carries for its wordline.
  template <class F>
  static void each_page(const FwCommand& c, F&& f) {
    const auto with_lower = [&f](const FwCommand& p) {
      f(p);
      for (const FwCommand* q = p.lower; q; q = q->next_lower) f(*q);
    };
    if (!c.combined()) {
      with_lower(c);
      return;
    }
    for (const FwCommand* p : c.part)
      if (p) with_lower(*p);
  }
  // The issuer of the filler pages: their program's end, for the FTL.
  class Filler final : public CommandIssuer {
   public:
    explicit Filler(HoldingStage& s) : s_(s) {}
    void ended(FwCommand& c) override;

   private:
    HoldingStage& s_;
  };
  // The chips' queues (hold): FIFOs through FwCommand::prev/next.
  struct Queue {
    FwCommand* head = nullptr;
    FwCommand* tail = nullptr;
    std::uint32_t size = 0, programs = 0;
  };
  static bool movable(const FwCommand& c) { return c.cmd->origin == FlashOrigin::HostProgram; }
  void link_back(FwCommand& c);
  void link_before(FwCommand& c, FwCommand* at);
  void unlink(FwCommand& c);

  class View final : public FirmwareView {
   public:
    explicit View(const HoldingStage& s) : s_(s) {}
    std::uint32_t chips() const override { return static_cast<std::uint32_t>(s_.outstanding_.size()); }
    std::uint32_t planes() const override { return s_.ftl_.planes(); }
    std::uint32_t held_by_block(std::uint32_t chip) const override { return s_.outstanding_[chip]; }
    std::uint32_t unbound_programs(std::uint32_t plane) const override { return s_.frontier_.unbound_programs(plane); }
    std::uint32_t plane_of(const FwCommand& c) const override { return s_.plane_of(c); }
    std::uint32_t chip_of(const FwCommand& c) const override { return s_.chip_of(c); }
    bool superseded(const FwCommand& c) const override { return c.issuer && c.issuer->superseded(c); }
    std::uint32_t held(std::uint32_t chip) const override { return s_.queues_[chip].size; }
    std::uint32_t held_programs(std::uint32_t chip) const override { return s_.queues_[chip].programs; }
    FwCommand* first_held(std::uint32_t chip) const override { return s_.queues_[chip].head; }
    FwCommand* last_held(std::uint32_t chip) const override { return s_.queues_[chip].tail; }
    FwCommand* next_held(const FwCommand& c) const override { return c.where == Held ? c.next : nullptr; }
    FwCommand* prev_held(const FwCommand& c) const override { return c.where == Held ? c.prev : nullptr; }
    bool in_queue(const FwCommand& c) const override { return c.where == Held; }

   private:
    const HoldingStage& s_;
  };
  class Outlet final : public FlashOutlet {
   public:
    explicit Outlet(HoldingStage& s) : s_(s) {}
    Tick now() const override { return s_.clock_.now(); }
    void release(FwCommand& c, Tick at) override { s_.release(c, at); }
    void hold(FwCommand& c, Tick ready) override { s_.hold(c, ready); }
    std::size_t take_out(FwCommand& c) override { return s_.take_out(c); }
    void put_back(FwCommand& c, std::size_t place) override { s_.put_back(c, place); }
    Tick charge(std::uint64_t cycles) override { return s_.core_.charge(cycles); }
    const FirmwareView& view() const override { return s_.view_; }
    bool retarget(FwCommand& c, std::uint32_t plane) override { return s_.retarget(c, plane); }
    bool cancel(FwCommand& c) override { return s_.cancel(c); }
    bool release_together(FwCommand* const* parts, unsigned n, Tick at) override {
      return s_.release_together(parts, n, at);
    }

   private:
    HoldingStage& s_;
  };

  const nand::NandConfig& nand_;
  Config cfg_;
  Ftl& ftl_;
  WriteFrontier& frontier_;
  GcUnit& gc_;
  Core& core_;
  FirmwarePorts& ports_;
  const Clock& clock_;
  FirmwareTrace& trace_;
  FirmwareCounters& counters_;
  PlacementCounters& placement_;
  FwCommands commands_;
  std::unique_ptr<FirmwareScheduler> policy_;
  View view_{*this};
  Outlet outlet_{*this};
  CommandIssuer* reads_via_ = nullptr;
  std::vector<std::uint32_t> outstanding_;  // per chip
  std::vector<Queue> queues_;               // per chip
  std::vector<AllocationView::DieLoad> load_;  // per die
  BusyForecast forecast_;
  // Write groups not yet gone (join_group), oldest first: the programs gathered so far.
  struct WriteGroup {
    std::uint64_t id = 0;      // 0: gone
    Tick until = 0;
    std::uint32_t joined = 0;  // programs built in it and not cancelled
    bool closed = false;       // no more programs will join
    std::vector<FwCommand*> gathered;
  };
  std::deque<WriteGroup> write_groups_;
  WriteGroup* write_group(std::uint64_t id);
  void gather(FwCommand& c, WriteGroup& g);
  void group_may_leave(WriteGroup& g);
  void leaves_group(FwCommand& c);
  DieBatcher batcher_;
  std::vector<std::uint32_t> dirty_dies_;  // dies that may send a batch, this instant
  std::vector<char> die_dirty_;
  HazardKeys hazards_;  // the commands in the block and the NAND (Config::mark_hazards)
  const std::uint32_t bits_;        // nand.bits_per_cell
  const std::uint32_t units_;       // mapping units a page (Ftl::units_per_page)
  const std::uint32_t wpl_;         // the FTL's pages a wordline program writes (Ftl::wordline_pages)
  std::vector<Latch> latches_;      // per plane and stream (wpl_ > 1)
  // The FTL's pages a program of the latch's block writes: a wordline's, or in SLC mode a
  // page's units.
  unsigned latch_size(bool slc) const { return slc ? units_ : wpl_; }
  std::uint32_t partial_ = 0;       // latches holding pages
  Tick next_due_ = ~Tick{0};        // the earliest due among them, as last looked at
  std::vector<std::uint32_t> pads_;  // latches to pad at the instant's settle
  std::vector<FwCommand*> just_latched_;  // programs latched this instant, told at its settle
  bool padding_ = false;
  Filler filler_{*this};
  FirmwareListener* listener_ = nullptr;
  LifeListener* life_ = nullptr;
};

}  // namespace ssd::ctrl
