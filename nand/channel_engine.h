// The timing engine of one NAND channel: its bus, its chips, their dies and
// planes with data and cache registers, and the page state (tokens, write
// pointers, erase counts). Plain C++ with integer picosecond time: the SystemC
// module NandChannel only feeds it commands and wakes it at next_event().
//
// Execution rules (docs/nand-timing.md has the formulas):
//  - Commands of one die start in the order they were submitted (in-order per
//    die); dies and chips run concurrently, sharing only the channel bus.
//  - A command starts when its die can take it and the bus is free; its bus
//    phase is cmd/addr (READ, ERASE) or cmd/addr + data-in (PROGRAM), per plane.
//  - Without cache operations a die runs one command at a time, from its first
//    bus cycle to its completion.
//  - CACHE READ: a read's page moves from the data register to the cache register
//    when that is free; the next read of the die may then start its array time
//    while the cache register streams the page out.
//  - CACHE PROGRAM: a program's data-in goes to the cache registers while the die
//    programs the previous page; it moves to the data registers and starts its
//    tPROG when the array is free.
//  - CELLS OF n BITS (nand.bits_per_cell): a PROGRAM writes a wordline, its n pages
//    per plane moved in (command and data per page and plane) before one tPROG. With
//    cache program, one whose die's array is busy moves only its first page per plane
//    into the cache registers; its other pages follow, as a second bus phase, once the
//    array is free and the first page has moved on to a data register.
//  - INDEPENDENT PLANE READS (nand.independent_plane_reads): a die takes a read on any
//    planes whose data registers are free while it has only reads in flight; reads on
//    different planes sense at once, each at its own page, and share the bus for their
//    commands and data.
//  - SLC MODE (FlashCommand::slc, n > 1): an ERASE sets its blocks' mode; a block in
//    SLC mode takes programs and reads of one page (its wordline's only), in SLC times.
//  - Bus arbitration when the bus frees: the waiting phase that became ready
//    first; at equal times command phases before data-out phases; then the older
//    command (submission order).
//  - SUSPEND and RESUME (docs/nand-timing.md, "Suspend and resume"): a read that asks
//    for it (FlashCommand::suspend) may start while its die's array runs a program or
//    erase: a SUSPEND on the bus, the suspend latency (the array works on), then the
//    operation is held with its remaining time and the die takes reads (and, as a
//    key, programs during an erase suspend) until a RESUME restarts it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "nand/chip_activity.h"
#include "nand/fault_model.h"
#include "nand/wait_meter.h"
#include "nand/nand_config.h"
#include "nand/page_image.h"
#include "common/big_array.h"
#include "common/pages_by_block.h"
#include "tlm/flash_command.h"

namespace ssd::nand {

// Calls f(plane) for each plane of a mask, in ascending order.
template <typename F>
inline void for_planes(std::uint8_t mask, F f) {
  for (unsigned m = mask; m; m &= m - 1) f(static_cast<unsigned>(__builtin_ctz(m)));
}

enum class BusPhase : std::uint8_t { Idle = 0, CmdAddr = 1, DataIn = 2, DataOut = 3 };
enum class ArrayState : std::uint8_t { Idle = 0, Read = 1, Program = 2, Erase = 3 };
enum class RegState : std::uint8_t { Free = 0, ReadData = 1, ProgramData = 2 };
// A program's or erase's suspension as waveforms show it: a SUSPEND asked (the array
// works on through the suspend latency), suspended (held, the array free for reads),
// resumed (running again to its end); None before and after.
enum class SuspendPhase : std::uint8_t { None = 0, Suspending = 1, Suspended = 2, Resumed = 3 };

// What a waveform tracer or a timeline log wants to hear. With an observer
// attached, a multi-segment bus phase (cmd/addr then data-in, per plane) wakes
// the engine at each segment boundary; without one it costs one event.
class NandObserver {
 public:
  virtual ~NandObserver() = default;
  // The command on the bus (null when it goes idle), or starting or ending its array
  // operation (ArrayState::Idle at its end).
  virtual void on_bus(Tick t, BusPhase phase, const FlashCommand* c) = 0;
  virtual void on_array(Tick t, const FlashCommand& c, ArrayState s) = 0;
  virtual void on_registers(Tick t, unsigned chip, unsigned die, unsigned plane, RegState data,
                            RegState cache) = 0;
  virtual void on_queue(Tick t, unsigned chip, unsigned die, unsigned queued) = 0;
  // A program or erase `op` entering a phase of its suspension.
  virtual void on_suspend(Tick t, const FlashCommand& op, SuspendPhase s) {}
};

struct ChannelCounters {
  std::uint64_t reads = 0, programs = 0, erases = 0;  // completed commands
  // Per operation (FlashOp: read, program, erase), the pages (erase: blocks) moved by
  // commands of n planes, at [op][n - 1]; of them, GC's (FlashCommand::gc_mask()), all
  // and in commands of two planes or more.
  std::array<std::array<std::uint64_t, kMaxPlanes>, 3> pages_by_planes{};
  std::array<std::uint64_t, 3> gc_pages{}, gc_multiplane_pages{};
  // The pages (erase: blocks) of an operation, whatever their command's plane count.
  std::uint64_t pages(FlashOp op) const {
    std::uint64_t n = 0;
    for (std::uint64_t k : pages_by_planes[static_cast<unsigned>(op)]) n += k;
    return n;
  }
  std::uint64_t protocol_errors = 0;
  // The fault model's (nand/fault_model.h): pages whose program failed, blocks whose
  // erase failed, page reads at a shifted level (read retry) and soft-decision reads.
  std::uint64_t failed_programs = 0, failed_erases = 0, retry_reads = 0, soft_reads = 0;
  Tick bus_busy = 0;
  // Suspend and resume: suspensions of programs [0] and erases [1]; SUSPENDs whose
  // operation ended within the suspend latency (void: nothing held); reads asking for a
  // suspension their die did not need (it could take them as they were); RESUMEs; the
  // time operations spent suspended, in all and the longest one stretch.
  std::array<std::uint64_t, 2> suspends{};
  std::uint64_t suspends_void = 0, suspend_ignored = 0, resumes = 0;
  Tick suspended_ticks = 0, max_suspended_ticks = 0;
};

class ChannelEngine {
 public:
  // `activity` may be shared by all channels of a device (chip indices are global:
  // channel * chips_per_channel + chip); it may be null.
  // `faults` (shared by the device's channels; null: a NAND that never fails) decides
  // program and erase failures and a read's bit errors.
  ChannelEngine(const NandConfig& cfg, unsigned channel, ChipActivity* activity = nullptr,
                FaultModel* faults = nullptr);

  void set_observer(NandObserver* obs) { observer_ = obs; }

  // Accepts a command at time `now` (never refuses), with its submitter's handle `owner`
  // (given back with it when it completes). A command whose address is invalid
  // completes with a protocol error at the next advance().
  void submit(FlashCommand* cmd, Tick now, void* owner = nullptr);

  // A command that completed, and the handle it was submitted with.
  struct Completed {
    FlashCommand* cmd;
    void* owner;
  };
  // Processes everything due at `now` (>= the previous call) and appends the
  // commands that completed to `done`.
  void advance(Tick now, std::vector<Completed>& done);

  // Time of the next internal event, kNever when idle.
  Tick next_event() const { return next_event_; }

  // The power fails at `now` (>= the last advance): every command the channel holds ends
  // unfinished, appended to `lost` in submission order with FlashStatus::PowerLoss and
  // t_done = now (docs/nand-timing.md, "Power loss"). A program whose array time began
  // (or held suspended) leaves its pages torn: they read kTornToken, and the block's next
  // page stays past them; one whose data was still in the registers leaves its pages
  // erased. An erase that began leaves its blocks torn to their last page: each reads
  // kTornToken and takes no program until erased again (its erase counts). A lost
  // program's or erase's `failed_planes` names the planes it left torn.
  // A read leaves nothing. The bus, the registers, the queues and any suspension are
  // cleared; the counters count completed commands only.
  void power_cut(Tick now, std::vector<Completed>& lost);
  std::uint64_t torn_pages() const { return torn_pages_; }  // pages left torn by cut programs and erases

  // The end of a READ or ERASE command phase (or of a PROGRAM's without cache program)
  // only starts the array: when no phase waits for the bus and nothing traces the
  // channel, next_event() skips it and names the array end that follows instead. The
  // skipped phase end is processed, at its own time, by the next advance() or by
  // catch_up(), which a scheduler calls before sampling the channel's state.
  void catch_up(Tick now) {
    if (lazy_bus_end_ && bus_op_ && seg_end_ <= now) finish_lazy_bus_end();
  }

  // What the engine will read of its state for command `c`, for whoever holds the command
  // before submitting it (nothing for an address outside the geometry):
  //  - block_state_read_by: line(address) for each of its blocks' page state (write
  //    pointer, image flag), read when it starts;
  //  - tokens_read_by (a read): line(address) for each page's stored token, read at its
  //    array end, or image_page(page) for a page whose token is still the image's (its
  //    device-wide index: PageImage::token).
  template <typename Line>
  void block_state_read_by(const FlashCommand& c, Line&& line) const {
    if (!statically_valid(c)) return;
    for_planes(c.plane_mask, [&](unsigned p) { line(static_cast<const void*>(&pages_[block_index(c, p)])); });
  }
  template <typename Line, typename ImagePage>
  void tokens_read_by(const FlashCommand& c, Line&& line, ImagePage&& image_page_of) const {
    if (c.op != FlashOp::Read || c.page >= cfg_.pages_per_block || !statically_valid(c)) return;
    for_planes(c.plane_mask, [&](unsigned p) {
      const std::size_t bi = block_index(c, p);
      if (c.page >= pages_[bi].image_pages) line(tokens_.address(bi, c.page * units_ + c.unit));
      else image_page_of(image_page(bi, c.page, c.unit));
    });
  }

  // ---- read-only status for schedulers and statistics ----
  bool bus_busy() const { return bus_op_ != nullptr; }
  // Bus busy time up to `now` (>= the last advance), a phase under way counted to now. A
  // command phase whose end was left to be taken lazily (catch_up) ended at its own
  // time, whether or not it has been taken yet.
  Tick bus_busy_ticks(Tick now) const {
    if (!bus_op_) return counters_.bus_busy;
    const Tick end = lazy_bus_end_ && seg_end_ < now ? seg_end_ : now;
    return counters_.bus_busy + (end > bus_start_ ? end - bus_start_ : 0);
  }
  unsigned queued(unsigned chip, unsigned die) const { return die_at(chip, die).queued; }
  // Suspend and resume, for a scheduler block. The die's offer of a read by suspension:
  // the planes and condition bit of a read (FlashCommand::start_need() of a read, which
  // could start now with `suspend` set), then bit kSuspendErase if its array runs an
  // erase, kSuspendHeld if it holds a suspended operation, kSuspendResumable if a
  // RESUME could start now.
  static constexpr std::uint32_t kSuspendErase = 1u << kStartBits, kSuspendHeld = 2u << kStartBits,
                                 kSuspendResumable = 4u << kStartBits;
  std::uint32_t suspend_word(unsigned chip, unsigned die) const {
    const Die& d = die_at(chip, die);
    const Job* t = d.parked ? d.parked : d.array_op;
    std::uint32_t w = suspend_offer(d);
    if (t && t->c->op == FlashOp::Erase) w |= kSuspendErase;
    if (d.parked) w |= kSuspendHeld;
    if (accept_word(chip, die) & kResumeNeed) w |= kSuspendResumable;
    return w;
  }
  // What a suspension of the die's operation would save at `now`: its remaining array
  // time beyond the suspend latency (0 when nothing is offered, or nothing would be saved).
  Tick suspend_margin(unsigned chip, unsigned die, Tick now) const {
    const Die& d = die_at(chip, die);
    if (!suspend_offer(d)) return 0;
    const Tick latency = d.array_op->c->op == FlashOp::Erase ? t_suspend_erase_ : t_suspend_program_;
    return d.array_end > now + latency ? d.array_end - now - latency : 0;
  }
  // From now on a scheduler block reads suspend_word(): the start of a program's or
  // erase's array time (when an offer appears) is then an event of its own.
  void set_suspend_offers(bool on) { suspend_offers_ = on; }
  unsigned held_dies() const { return held_dies_; }  // dies holding a suspended operation
  bool die_idle(unsigned chip, unsigned die) const {
    const Die& d = die_at(chip, die);
    return d.inflight == 0 && d.queued == 0;
  }
  bool chip_idle(unsigned chip) const;
  std::uint64_t in_flight() const { return in_flight_; }
  const ChannelCounters& counters() const { return counters_; }
  std::uint32_t erase_count(unsigned chip, unsigned die, unsigned plane, std::uint32_t block) const;
  std::uint32_t write_pointer(unsigned chip, unsigned die, unsigned plane, std::uint32_t block) const;
  const NandConfig& config() const { return cfg_; }
  unsigned channel() const { return channel_; }

  // ---- backdoor: page state without simulated time (preconditioning, checks) ----
  // Programs the next page of a block (throws std::logic_error on a protocol violation).
  // Pages of several units (NandConfig::units_per_page): its next unit, `unit` of `page`:
  // unit 0 of the next page, or the next unit of the last page the backdoor began (the
  // page's units not yet written read erased).
  void backdoor_program(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                        std::uint32_t page, Token t, unsigned unit = 0);
  // Programs the first n data units of an erased block (pages with several units: its
  // pages in order, unit by unit; n need not fill the last).
  void backdoor_program_block(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                              const Token* tokens, std::uint32_t n);
  // Erases a block `times` times (its erase count grows by that many).
  void backdoor_erase(unsigned chip, unsigned die, unsigned plane, std::uint32_t block, std::uint32_t times = 1);
  // Sets the mode a block was last erased in (SLC mode: FlashCommand::slc), as if that
  // erase had been one in that mode; its erase count stays. It must hold no more pages
  // than the mode allows (std::logic_error); SLC mode needs n > 1 bits per cell.
  void backdoor_set_slc(unsigned chip, unsigned die, unsigned plane, std::uint32_t block, bool slc);
  // The image that blocks loaded by backdoor_load_image read from; it must outlive the
  // engine's use of them. Blocks loaded from it store no tokens until written again.
  void set_image(const PageImage* image);
  // The image numbers blocks otherwise than the NAND (its FTL does not see some): each
  // block loaded from it keeps its image index (backdoor_load_image's `image_block`).
  // Before any block is loaded.
  void keep_image_numbering();
  // Loads a block from the image: its pages [0, pages) are programmed (the rest erased,
  // (pages with several units: its first `pages` units, whole pages)
  // programmed next in order), it was erased `erases` times, and those pages read as
  // image.token(page address) until it is next erased. Nothing is stored per page.
  // Distinct blocks may be loaded concurrently.
  // `image_block`: the block's index as the image numbers them (its first page's index /
  // pages per block); the NAND's own device-wide block index unless the FTL numbers only
  // the good blocks (factory bad blocks: FaultModel), when it differs.
  void backdoor_load_image(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                           std::uint32_t pages, std::uint32_t erases, std::uint32_t image_block = ~0u);
  Token backdoor_read(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                      std::uint32_t page, unsigned unit = 0) const;
  // What a scheduler block samples as "ready" for a command: no command waits for this
  // channel's bus yet (so at most one does), and the command's die can take it now
  // (array idle and registers free, or the cache-operation rules). The bus itself may
  // be busy: the command then starts when it frees, first come first served.
  bool ready_for(const FlashCommand& c) const {
    if (queued_total_ != 0) return false;  // a command already waits for this channel's bus
    return accepts(accept_word(c.chip, c.die), c.start_need());
  }
  // The same question as bits, for a scheduler that asks it of many chips at once with
  // no branch per chip: the die's word offers, per operation, whether it could start one
  // now and on which planes (kStartBits each); a command `c` could start iff
  // accepts(accept_word(c.chip, c.die), c.start_need()).
  static bool accepts(std::uint32_t offer, std::uint32_t need) { return (need & ~offer) == 0; }
  std::uint32_t accept_word(unsigned chip, unsigned die) const { return accept_[chip * cfg_.dies_per_chip + die]; }
  // Every die's word, chip by chip (accept_word(chip, die) at chip * dies_per_chip + die).
  const std::uint32_t* accept_words() const { return accept_.data(); }
  // A die's state as the readiness rules read it (docs/nand-timing.md), read-only.
  struct DieState {
    unsigned inflight, inflight_reads, inflight_programs;  // commands started, not completed
    unsigned waiting_programs;  // cache program: data in a cache register, waiting for the array
    bool array_busy;
    bool in_cmd_phase;  // one of its commands is in its command (and data-in) bus phase
    std::uint8_t data_busy, cache_busy;  // per plane: its data / cache register holds a command
  };
  DieState die_state(unsigned chip, unsigned die) const {
    const Die& d = die_at(chip, die);
    DieState s{d.inflight, d.inflight_reads, d.inflight_programs, d.waiting_programs, d.array_op != nullptr,
               d.in_cmd_phase, 0, 0};
    // planes_per_die <= kMaxPlanes (validated); the second bound is for the compiler.
    for (unsigned p = 0; p < cfg_.planes_per_die && p < kMaxPlanes; ++p) {
      s.data_busy = static_cast<std::uint8_t>(s.data_busy | (d.planes[p].data ? 1u : 0u) << p);
      s.cache_busy = static_cast<std::uint8_t>(s.cache_busy | (d.planes[p].cache ? 1u : 0u) << p);
    }
    return s;
  }
  unsigned queued_total() const { return queued_total_; }
  // The die's work integrals up to `now` (nand/wait_meter.h), for the latency attribution.
  WaitMeter::Ticks wait_meter(unsigned chip, unsigned die, Tick now) const {
    return meter_.at(chip, die, now, bus_busy_ticks(now));
  }
  // Bus time of a command phase and of one page's data, in ticks.
  Tick t_cmd() const { return t_cmd_; }
  Tick t_data() const { return t_data_; }

 private:
  // BusSuspend: a read's SUSPEND on the bus; Suspending: the suspend latency; WaitCmd: the
  // read's own command waits for the bus; Held: a suspended program or erase; BusResume:
  // a RESUME on the bus.
  enum Stage : std::uint8_t {
    Queued, BusCmd, WaitArray, Array, WaitReg, WaitOut, BusOut, WaitRest, BusRest, Done, BusSuspend, Suspending,
    WaitCmd, Held, BusResume
  };
  // A command the channel holds, with the channel's own state of it (the protocol's
  // command carries none): where it is, its submission number, since when its waiting
  // phase could go, the next command of its die's queue, and its submitter's handle.
  // Jobs are reused: one is taken at submit and given back at completion.
  struct Job {
    FlashCommand* c = nullptr;
    void* owner = nullptr;
    std::uint64_t seq = 0;
    Tick ready_at = 0;
    Job* next = nullptr;
    Stage stage = Queued;
    bool via_cache = false;  // a read during a program suspend: sensed into, and out of, the cache register
    Tick sense_end = kNever;  // independent plane reads: its tR's end (Die::sensing)
    // A wordline program that moved in its first pages only (cache program, the array
    // busy): the rest follow in a bus phase of their own (WaitRest, BusRest).
    bool rest = false;
    bool live = false;       // taken, not yet given back
  };
  struct Plane {
    Job* data = nullptr;   // data register holder
    Job* cache = nullptr;  // cache register holder
  };
  struct Die {
    Job* head = nullptr;  // pending commands, FIFO through Job::next
    Job* tail = nullptr;
    unsigned queued = 0;
    Tick eligible_since = kNever;  // since when the head command could start
    Job* array_op = nullptr;
    Tick array_end = kNever;  // array_op's end, or the earliest of the sensing reads'
    // Independent plane reads: the reads in their tR (array_op then null), in start order.
    std::array<Job*, kMaxPlanes> sensing{};
    unsigned nsensing = 0;
    unsigned inflight = 0, inflight_reads = 0, inflight_programs = 0;
    unsigned waiting_programs = 0;  // cache program: data in cache register, waiting for the array
    // A wordline whose later pages are still to come in (WaitRest, BusRest): the array's
    // next operation, so that no program waiting in a cache register starts before it.
    Job* resting = nullptr;
    bool in_cmd_phase = false;      // one of its commands is in its command (and data-in) phase
    Plane planes[kMaxPlanes];
    // Suspend and resume: the read whose SUSPEND is under way (from its first bus cycle to
    // its own command's), the operation it suspends and the end of the suspend latency;
    // the suspended operation, its remaining array time and since when it is held; the
    // RESUME on the bus.
    Job* suspending = nullptr;
    Job* target = nullptr;
    Tick suspend_end = kNever;
    Job* parked = nullptr;
    Tick left = 0, parked_at = 0;
    Job* resuming = nullptr;
    bool susp = false;  // suspending, parked or resuming: kept by sync_susp()
    bool suspend_state() const { return susp; }
    void sync_susp() { susp = suspending || parked || resuming; }
  };
  struct Segment {
    BusPhase phase;
    Tick duration;
  };

  Die& die_at(unsigned chip, unsigned die) { return dies_[chip * cfg_.dies_per_chip + die]; }
  const Die& die_at(unsigned chip, unsigned die) const {
    return dies_[chip * cfg_.dies_per_chip + die];
  }
  Die& die_of(const FlashCommand& c) { return die_at(c.chip, c.die); }
  std::uint32_t die_index(const Die& d) const { return static_cast<std::uint32_t>(&d - dies_.data()); }
  std::size_t block_at(unsigned chip, unsigned die, unsigned plane, std::uint32_t block) const;
  std::size_t block_index(const FlashCommand& c, unsigned plane) const;  // the block of c in `plane`
  void erase_block(std::size_t bi);  // write pointer to 0, one more erase, no longer from the image
  // Address checks (cheap), and the messages of a failed one (built only then).
  bool statically_valid(const FlashCommand& c) const;
  // Cells of n bits: a program from a wordline's first page (unless in SLC mode), SLC
  // mode only on a part of n > 1 bits. Checked at submit, apart from statically_valid,
  // which the scheduler's hints call too.
  bool cells_valid(const FlashCommand& c) const {
    return bits_ == 1 ? !c.slc : c.op != FlashOp::Program || c.slc || c.page % bits_ == 0;
  }
  bool dynamically_valid(const FlashCommand& c) const;
  std::string static_error(const FlashCommand& c) const;
  std::string dynamic_error(const FlashCommand& c) const;
  // The readiness rules (docs/nand-timing.md), evaluated on the die's state and kept as
  // its accept word; called at every change of that state.
  void refresh_accept(Die& d);
  std::uint32_t held_accept(const Die& d, std::uint32_t data_free, std::uint32_t cache_free) const;
  // Suspend and resume (docs/nand-timing.md): the read offer of suspend_word(); whether a
  // head command that the accept word refuses may go (by suspension, or to fail because
  // the held state can never take it); the protocol error of a command against the
  // die's suspension, empty if none.
  std::uint32_t suspend_offer(const Die& d) const;
  bool cached_behind_held(const Die& d, const FlashCommand& c) const;
  bool suspend_eligible(const Die& d, const FlashCommand& c) const;
  std::string suspend_error(const Die& d, const FlashCommand& c, bool by_suspension) const;
  bool take_head(Die& d, Job* best, Tick now, std::vector<Completed>& done);
  [[gnu::noinline]] bool start_with_suspend(Die& d, Job* best, Tick now, std::vector<Completed>& done);
  void start_bus_suspend(Job* j, Tick now);
  void start_bus_resume(Job* j, Tick now);
  void suspend_void(Die& d, Tick now);
  void suspend_done(Die& d, Tick now);
  bool suspend_latency_ends(Tick now);
  void finish_resume(Die& d, Tick now, std::vector<Completed>& done);
  void finish_lazy_bus_end();  // catch_up()'s work
  void start_bus_command(Job* j, Tick now);
  void start_bus_dataout(Job* j, Tick now);
  void start_bus_rest(Job* j, Tick now);
  // A program's data-in segments for its pages [from, to) of each wordline, page-major.
  void program_segments(const FlashCommand& c, unsigned from, unsigned to);
  [[gnu::always_inline]] inline void start_bus(Job* j, Tick now);
  void finish_bus_segment(Tick now, std::vector<Completed>& done);
  void start_array(Die& d, Job* j, Tick now);
  void finish_array(Die& d, Tick now, std::vector<Completed>& done);
  // Independent plane reads: a read's tR beside the die's other reads; the ones that end.
  void start_sensing(Die& d, Job* j, Tick now);
  void finish_sensing(Die& d, Tick now);
  [[gnu::always_inline]] inline void read_sensed(Job* j, Tick now);  // a read's page is in its data registers
  void register_moves(Die& d, Tick now);
  void complete(Job* j, Tick now, std::vector<Completed>& done);
  void fail(Job* j, Tick now, std::string why, std::vector<Completed>& done);
  bool arbitrate(Tick now, std::vector<Completed>& done);
  Job* take_job(FlashCommand* c, void* owner);
  void give_job(Job* j) {
    j->live = false;
    free_jobs_.push_back(j);
  }
  std::deque<Job> jobs_;  // every job made (stable addresses)
  std::vector<Job*> free_jobs_;
  // Observer notes, inline so that with no observer (tracing off) they cost one test.
  void set_regs(Die& d, const FlashCommand& c, Tick now) {
    if (observer_) observe_regs(d, c, now);
  }
  void note_queue(const Die& d, unsigned chip, unsigned die, Tick now) {
    if (observer_) observer_->on_queue(now, chip, die, d.queued);
  }
  void observe_regs(Die& d, const FlashCommand& c, Tick now);
  void chip_started(unsigned chip, Tick now);
  void chip_finished(unsigned chip, Tick now);

  NandConfig cfg_;
  unsigned channel_;
  ChipActivity* activity_;
  FaultModel* faults_;
  NandObserver* observer_ = nullptr;
  Tick t_cmd_, t_erase_cmd_, t_data_, t_read_, t_prog_, t_erase_;
  bool indep_ = false;                           // nand.independent_plane_reads
  unsigned bits_ = 1;                            // pages per wordline (nand.bits_per_cell)
  unsigned units_ = 1;                           // data units per page (NandConfig::units_per_page)
  std::array<Tick, kMaxBitsPerCell> t_read_type_{};  // tR per page type (page % bits_)
  Tick t_prog_slc_ = 0, t_read_slc_ = 0;            // SLC mode
  // Whether `read` reads a page that program `prog` (of its block on plane p) writes.
  bool writes_page(const FlashCommand& prog, const FlashCommand& read, unsigned p) const {
    return prog.block[p] == read.block[p] && prog.slc == read.slc && read.page >= prog.page &&
           read.page < prog.page + cfg_.pages_written(prog);
  }
  Tick t_retry_cmd_ = 0;      // a shifted read's SET FEATURES cycles
  Tick t_suspend_cmd_, t_suspend_program_, t_suspend_erase_, t_suspend_penalty_;
  bool suspend_offers_ = false;  // set_suspend_offers()
  bool suspend_seen_ = false;    // a command with `suspend`, or a RESUME, was submitted
  unsigned held_dies_ = 0;
  std::uint32_t soft_level_ = 0xFFFFFFFFu;  // read levels from here on are soft-decision reads
  std::uint32_t soft_senses_ = 1;
  bool soft(const FlashCommand& c) const { return c.read_level >= soft_level_; }
  // The device-wide plane number of block index `bi` (the fault model's numbering).
  std::uint32_t plane_of_block(std::size_t bi) const {
    return static_cast<std::uint32_t>(std::size_t{channel_} * cfg_.chips_per_channel * cfg_.dies_per_chip *
                                          cfg_.planes_per_die + bi / cfg_.blocks_per_plane);
  }
  void array_faults(FlashCommand& c, Tick now);  // a command's failures at its array end

  std::vector<Die> dies_;
  // Per die, the readiness rules as bits (accept_word()), refreshed at every change of the die's
  // state; an idle die takes anything. Apart from the dies, so that a scheduler testing
  // a channel's chips reads one or two lines, not a line per die.
  std::vector<std::uint32_t> accept_;
  std::vector<std::uint64_t> in_array_;  // bit i: die i has an array operation (array_op set)
  std::vector<unsigned> chip_inflight_;
  // Per data unit (units_ per page, unit u of page g at g x units_ + u); valid below the
  // write pointer.
  PagesByBlock<Token> tokens_;
  const PageImage* image_ = nullptr;        // the content of blocks loaded from an image
  // Per block, what a command reads when it starts (the write pointer) and at a read's
  // array end (where the pages come from): one line for both, fetched once.
  struct BlockPages {
    std::uint16_t write_ptr = 0;    // next page to program
    std::uint16_t image_pages = 0;  // its pages below this read as image_'s
    bool slc = false;               // in SLC mode (set by its last erase)
    // Pages of several units: the units the backdoor has written of page write_ptr - 1
    // when fewer than all (backdoor_program's unit by unit); 0: that page is whole.
    std::uint8_t partial = 0;
  };
  std::vector<BlockPages> pages_;
  // A data unit's device-wide index, as the image names it (nand/page_image.h: the FTL's
  // numbering, a unit per page but with pages of several units).
  std::uint32_t image_page(std::size_t bi, std::uint32_t page, unsigned unit = 0) const {
    const std::size_t b = image_block_.empty() ? first_block_ + bi : image_block_[bi];
    return static_cast<std::uint32_t>((b * cfg_.pages_per_block + page) * units_ + unit);
  }
  // Per block, its index in the image's numbering, when that is not the NAND's (a device
  // with factory bad blocks); empty otherwise.
  std::vector<std::uint32_t> image_block_;
  // A data unit's token: from the image or stored.
  Token page_token(std::size_t bi, std::uint32_t page, unsigned unit = 0) const {
    return page < pages_[bi].image_pages ? image_->token(image_page(bi, page, unit))
                                         : tokens_.get(bi, page * units_ + unit);
  }
  // Every unit of page `page` of block bi holds `t` (a torn or failed program).
  void fill_page(std::size_t bi, std::uint32_t page, Token t) {
    for (unsigned u = 0; u < units_; ++u) tokens_.at(bi, page * units_ + u) = t;
  }
  // Program c's data for plane p, its `pages` pages from c.page, unit by unit.
  void store_units(std::size_t bi, const FlashCommand& c, unsigned p, unsigned pages);
  std::size_t first_block_ = 0;             // device-wide index of this channel's first block
  std::vector<std::uint32_t> erase_count_;  // per block

  Job* bus_op_ = nullptr;
  Segment segs_[2 * kMaxPlanes * kMaxBitsPerCell];
  unsigned nseg_ = 0, iseg_ = 0;
  Tick seg_end_ = kNever;
  Tick bus_start_ = 0;

  std::vector<Job*> waiting_out_;  // reads whose data waits for the bus
  std::vector<Job*> waiting_cmd_;  // reads whose command waits for the bus after their SUSPEND
  std::vector<std::uint32_t> suspending_dies_;  // dies in a suspend latency (suspend_end set)
  Tick next_suspend_end_ = kNever;              // the earliest of their ends (or a stale earlier time)
  std::vector<Job*> rejected_;     // invalid at submit, completed at next advance
  std::uint64_t seq_ = 0;
  unsigned queued_total_ = 0;  // commands waiting to start, all dies
  std::vector<std::uint32_t> heads_;  // dies with a command waiting to start (any order)
  Tick next_array_end_ = kNever;      // earliest array end of all dies
  bool lazy_bus_end_ = false;         // the current command phase's end was skipped by next_event()
  // tR of the page a read senses (its page type's).
  Tick read_time(const FlashCommand& c) const {
    return bits_ == 1 ? t_read_ : c.slc ? t_read_slc_ : t_read_type_[c.page % bits_];
  }
  // A command's array time, one sensing of a read (a soft-decision read senses several times).
  Tick array_time(const FlashCommand& c) const {
    return c.op == FlashOp::Read ? read_time(c) : c.op == FlashOp::Program ? (c.slc ? t_prog_slc_ : t_prog_) : t_erase_;
  }
  // The same with every sensing of a soft-decision read: how long the array is busy.
  Tick array_ticks(const FlashCommand& c) const {
    return c.op == FlashOp::Read && soft(c) ? soft_senses_ * read_time(c) : array_time(c);
  }
  std::uint64_t in_flight_ = 0;  // submitted, not completed
  WaitMeter meter_;
  // The bus busy time up to `now`, asked by the meter only when a die turns idle or busy.
  auto bus_clock(Tick now) const {
    return [this, now] { return bus_busy_ticks(now); };
  }
  void bus_segments_started(Job* j, Tick now);  // attribution: its bus times
  Tick next_event_ = kNever;
  ChannelCounters counters_;
  std::uint64_t torn_pages_ = 0;
};

}  // namespace ssd::nand
