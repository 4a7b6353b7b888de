// The flash command as every layer sees it: plain C++, no SystemC, so the NAND
// timing engine and the FTL can be unit-tested without the kernel. The TLM
// extension in flash_protocol.h carries one of these per generic payload.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace ssd {

// Simulated time in picoseconds: exact integer arithmetic, so the same config
// and seed give bit-identical timelines. 2^64 ps is 213 days of simulated time.
using Tick = std::uint64_t;
constexpr Tick kNever = ~Tick{0};
constexpr Tick kTicksPerUs = 1000000;
constexpr Tick kTicksPerNs = 1000;
inline double ticks_to_us(Tick t) { return static_cast<double>(t) / 1e6; }
inline Tick us_to_ticks(double us) { return static_cast<Tick>(us * 1e6 + 0.5); }
// The latest time any input (a trace's arrival, a script's command, an open-loop arrival)
// may name: 2^63 ps, about 106.7 days. Simulated time is a 64-bit count of picoseconds
// (sc_time at 1 ps); the half left above keeps every completion after an input's time
// inside the range. A later input is refused, never clamped or wrapped.
constexpr Tick kMaxInputTick = Tick{1} << 63;
constexpr double kMaxInputUs = 9223372036854.775808;  // kMaxInputTick in us
// The largest time a configuration key may give, in us: within that range, and printed by
// --list-keys as the very bound it checks.
constexpr double kMaxTimeUs = 9.2e12;
// `ps` (a real number of picoseconds, >= 0) as a Tick; false if it is past kMaxInputTick
// or not a number.
inline bool ps_to_input_tick(long double ps, Tick& out) {
  if (!(ps >= 0.0L) || ps + 0.5L > static_cast<long double>(kMaxInputTick)) return false;
  out = static_cast<Tick>(ps + 0.5L);
  return true;
}

// The data a page holds, as far as the model is concerned: a 32-bit token the
// writer chose (for example a hash of logical page and write sequence number).
// Token 0 is reserved for "erased".
using Token = std::uint32_t;
constexpr Token kErasedToken = 0;
// What preconditioning leaves in pages whose data was overwritten since (never read:
// a read that returned it would fail the integrity check).
constexpr Token kStaleToken = 0x57A1E5u;
// What a page whose program failed holds (no one's data: a read that returned it would
// fail the integrity check).
constexpr Token kFailedProgramToken = 0xFA11EDu;
// What the pages of a program or erase the power cut short hold (no one's data, as above:
// docs/nand-timing.md, "Power loss").
constexpr Token kTornToken = 0x70A11u;

constexpr unsigned kMaxPlanes = 8;  // planes per die the command format can address
// Bits per cell the command format can address (nand.bits_per_cell): a program of a
// wordline carries this many pages per plane at most.
constexpr unsigned kMaxBitsPerCell = 4;
// Data units per page the model keeps apart (NandConfig::units_per_page: the FTL's mapping
// units), at most.
constexpr unsigned kMaxUnitsPerPage = 16;

// Resume: the controller's RESUME of the program or erase its die holds suspended
// (docs/nand-timing.md, "Suspend and resume"); a command of the protocol, not an
// operation on pages: no counters, statistics or attribution count it.
enum class FlashOp : std::uint8_t { Read, Program, Erase, Resume };
// Readiness as bits: a die's state offers, per operation, kStartBits bits (the planes
// an operation could use now, then one for the die's own condition); a command needs
// its planes and that condition (FlashCommand::start_need()).
constexpr unsigned kStartBits = kMaxPlanes + 1;
// A RESUME's need: the bit above the three operations' fields, offered by a die whose
// suspended operation may resume now.
constexpr std::uint32_t kResumeNeed = 1u << (3 * kStartBits);
static_assert(((1u | 1u << kMaxPlanes) << (kStartBits * 3u)) == kResumeNeed,
              "a RESUME's start_need() (op 3, plane mask 1) is kResumeNeed");
// What a NAND reports at a command's end. Ok; ReadRetried: a read whose data came right
// after extra read-retry or soft-decision steps (its data is good); the failures a NAND
// can report: ProgramFailed and EraseFailed (the status register's FAIL bit),
// Uncorrectable (a read beyond the last decode tier); ProtocolError, a command the NAND
// refused (docs/nand-timing.md). The NAND reports Ok, ProgramFailed, EraseFailed and
// ProtocolError, and a read's bit errors (FlashCommand::bit_errors); ReadRetried and
// Uncorrectable are the controller's ECC verdicts on a read (controller/ecc.h). The
// firmware unit that issued a command says what it does with each (docs/controller.md,
// "Completions and NAND outcomes").
// PowerLoss: the power failed before the command completed (ChannelEngine::power_cut).
enum class FlashStatus : std::uint8_t {
  Pending, Ok, ProtocolError, ReadRetried, ProgramFailed, EraseFailed, Uncorrectable, PowerLoss
};
const char* to_string(FlashStatus s);
// Priority classes of the scheduler block (docs/scheduler.md): a chip serves the lowest
// class it holds first. GC work is background unless its plane's free pool is at its
// last reserve (then foreground: urgent, before the host's work).
enum class FlashPriority : std::uint8_t { UrgentGc = 0, Host = 1, BackgroundGc = 2 };
// What a command is for: set by its issuer for logs and waveforms; the NAND and the
// scheduler block do not act on it (the scheduler acts on `priority`).
// MapLog: the mapping's journal and checkpoints, programs and erases of the map log's
// blocks (controller/map_log.h).
enum class FlashOrigin : std::uint8_t { None = 0, HostRead, RmwRead, HostProgram, GcRead, GcProgram, GcErase, MapLog };
inline bool is_gc(FlashOrigin o) { return o == FlashOrigin::GcRead || o == FlashOrigin::GcProgram || o == FlashOrigin::GcErase; }
constexpr std::uint64_t kNoLpn = ~std::uint64_t{0};
// What a die was doing while a command waited in the scheduler block (tlm/latency_parts.h):
// six kinds of work, then the channel's bus held by another chip.
constexpr unsigned kWaitKinds = 7;
constexpr unsigned kPriorityClasses = 3;

const char* to_string(FlashOp op);
const char* to_string(FlashOrigin o);  // as waves/origin.txt names it

struct FlashCommand {
  // ---- request, filled by the issuer ----
  FlashOp op = FlashOp::Read;
  std::uint16_t channel = 0;
  std::uint16_t chip = 0;         // chip index within its channel
  std::uint16_t die = 0;          // die index within its chip
  std::uint8_t plane_mask = 0;    // bit p set: plane p of the die takes part
  // Page offset within the block (same on every plane). With n-bit cells
  // (nand.bits_per_cell = n > 1) a PROGRAM writes a whole wordline: pages page .. page +
  // n - 1, `page` a multiple of n (docs/nand-timing.md, "Cells of n bits").
  std::uint32_t page = 0;
  // Per plane, indexed by plane number; only the planes in plane_mask are meaningful
  // (reset() leaves the others as they were).
  std::array<std::uint32_t, kMaxPlanes> block{};  // block per plane
  std::array<Token, kMaxPlanes> token{};          // program: written; read: returned
  // (A wordline program's other pages' tokens: wordline_token, at the end.)
  // Pages of several data units (NandConfig::units_per_page = U > 1): a READ returns in
  // `token` the data of unit `unit` of its page (its column: unit x page_bytes / U); a
  // PROGRAM writes each unit's own data: for a plane p in `unit_planes`, from
  // unit_tokens[p], [k x U + u] for page k of its wordline (0 with one bit per cell or in
  // SLC mode) and unit u, kept by its issuer until the command completes (an n-plane
  // command joined from parts takes each part's pointer); for a plane not in it, every
  // unit of page k holds token_of(k, p).
  std::uint8_t unit = 0;
  std::uint8_t unit_planes = 0;
  std::array<const Token*, kMaxPlanes> unit_tokens{};
  // read: the bytes of each plane's page moved out on the bus, from the column given in
  // the command's address cycles (ONFI: a read's address carries its column); 0 = the
  // whole page. tR is the whole page's either way.
  std::uint32_t out_bytes = 0;
  std::uint64_t id = 0;           // the issuer's tag, for logs
  FlashPriority priority = FlashPriority::Host;  // the scheduler block's class
  // The scheduler block must not reorder it ahead of the commands it already holds (its
  // issuer found a data dependency on one: docs/scheduler.md, Rescheduling).
  bool keep_order = false;
  // read: the reference voltages it senses with (nand/fault_model.h): 0 the default,
  // 1..retry steps the read-retry table's (a SET FEATURES before the read), above them a
  // soft-decision read (several sensings, several pages of data out).
  std::uint8_t read_level = 0;
  // read: start with a SUSPEND of the program or erase its die's array is busy with, if
  // the die offers one (docs/nand-timing.md, "Suspend and resume"); ignored by a die
  // that can take the read without it. The scheduler block sets it (controller.suspend).
  bool suspend = false;
  // SLC mode (cells of n > 1 bits: docs/nand-timing.md, "SLC mode"), the part's SLC-mode
  // prefix before the command: an ERASE puts its blocks in SLC mode until their next erase
  // (one without it puts them back); a PROGRAM or READ of such a block carries it. A block
  // in SLC mode holds one page per wordline (nand.pages_per_block / nand.bits_per_cell
  // pages), each programmed alone in nand.t_prog_slc_us and read in nand.t_read_slc_us.
  bool slc = false;

  // ---- result, filled by the NAND ----
  FlashStatus status = FlashStatus::Pending;
  Tick t_submit = 0;       // accepted by the channel
  Tick t_start = 0;        // first bus cycle of its command
  Tick t_array_start = 0;  // array operation (tR, tPROG, tBERS) began
  Tick t_array_end = 0;
  Tick t_done = 0;         // completed (read: last data byte out; program/erase: array done)
  std::string error;       // protocol error text when status == ProtocolError
  // read: per plane, the most bit errors of any ECC codeword moved out (0 without a
  // fault model: nand/fault_model.h). Program, erase: the planes that reported FAIL
  // (status ProgramFailed or EraseFailed names the command's; a part's is its plane's).
  std::array<std::uint16_t, kMaxPlanes> bit_errors{};
  std::uint8_t failed_planes = 0;
  // For the latency attribution (tlm/latency_parts.h), filled by the channel: the end of
  // the command phase (program: with its data in), a read's data ready for the bus (in
  // a register it may leave) and its data-out start, and the bus time of its command and
  // address cycles (the rest of its bus time is data).
  Tick t_bus_end = 0;
  Tick t_out_ready = 0;
  Tick t_out_start = 0;
  Tick bus_cmd_ticks = 0;
  // A wordline program whose first pages went in during the previous program (cache
  // program, n-bit cells): between its two bus phases (inside [t_start, t_bus_end]), the
  // time its later pages waited for the die's data registers, then the time they waited
  // for the bus (0 otherwise).
  Tick t_wordline_wait = 0;
  Tick t_wordline_bus_wait = 0;
  // Suspend and resume. Program, erase: the times it was suspended and the time it spent
  // suspended. A read that suspended one: when the die was ready for its command after
  // the SUSPEND (its suspend latency ends; the suspended operation's end, if that came
  // first), 0 otherwise.
  std::uint8_t suspends = 0;
  Tick t_suspended = 0;
  Tick t_suspend_done = 0;

  // ---- the scheduler block's measurement (the channel completes it when it takes the
  // command; the issuer reads it for the latency attribution) ----
  Tick t_queued = 0;  // the block took it
  // The time it waited in the block [t_queued, t_submit] while its die (or, the die idle,
  // its chip) did each kind of work, and, both idle, while another chip held the bus
  // (tlm/latency_parts.h: work_kind). For a command serving a host request (`request`
  // set), the block stores the die's meter at t_queued and sets `metered`; the channel
  // turns it into the differences at t_submit. Other commands are not metered.
  std::array<Tick, kWaitKinds> waited{};
  bool metered = false;

  // ---- what it is for, filled by the issuer (the scheduler block and the NAND decide
  // nothing on it; the latency attribution, logs and waveforms read it) ----
  FlashOrigin origin = FlashOrigin::None;
  std::uint64_t lpn = kNoLpn;           // the logical page read, programmed or copied (kNoLpn: none, or not known yet)
  std::uint32_t host_page = 0;          // host work: the page's index in its host command
  std::uint64_t request = 0;            // host work: the host request's id (HostCommand::id, from 1); 0: none
  // An n-plane command joined from parts (controller/combined_command.h, the scheduler
  // block's multi-plane rescheduling): the planes whose part is GC work. A command of one
  // plane is GC work by its origin (gc_mask()).
  std::uint8_t gc_plane_mask = 0;

  unsigned plane_count() const { return bits(plane_mask); }
  static unsigned bits(std::uint8_t mask) {  // bits of an 8-bit mask, without a popcount instruction or call
    unsigned m = mask;
    m = m - ((m >> 1) & 0x55u);
    m = (m & 0x33u) + ((m >> 2) & 0x33u);
    return (m + (m >> 4)) & 0x0Fu;
  }
  // The planes of the command whose page (erase: block) is GC work.
  std::uint8_t gc_mask() const {
    if (plane_count() > 1) return static_cast<std::uint8_t>(gc_plane_mask & plane_mask);
    return is_gc(origin) ? plane_mask : std::uint8_t{0};
  }
  // The lowest plane in plane_mask (0 for an empty mask): a single-plane command's plane.
  unsigned first_plane() const {
    unsigned p = 0;
    while (p + 1 < kMaxPlanes && !(plane_mask >> p & 1u)) ++p;
    return p;
  }
  // What the command needs of its die to start: it could start iff
  // (start_need() & ~offer) == 0, where `offer` is the die's word (ChannelEngine::accept_word).
  // (A RESUME, whose plane mask is 1, needs kResumeNeed: its field, above the erase's,
  // keeps only the plane bit within 32 bits.)
  std::uint32_t start_need() const { return start_need(plane_mask); }
  // The same with the planes `mask` (a command the block would merge: controller/reschedule.h).
  std::uint32_t start_need(std::uint8_t mask) const {
    return (std::uint32_t{mask} | (1u << kMaxPlanes)) << (kStartBits * static_cast<unsigned>(op));
  }
  // A wordline program (n-bit cells): the tokens of its pages page + 1 .. page + n - 1,
  // at [k - 1][plane] for page + k; `token` holds its first page's. Last, so that the
  // fields every command reads stay together.
  std::array<std::array<Token, kMaxPlanes>, kMaxBitsPerCell - 1> wordline_token{};
  Token& token_of(unsigned k, unsigned plane) { return k ? wordline_token[k - 1][plane] : token[plane]; }
  Token token_of(unsigned k, unsigned plane) const { return k ? wordline_token[k - 1][plane] : token[plane]; }

  void reset();  // back to a fresh command, without reallocating `error`
  std::string describe() const;  // "READ ch0.chip1.die0 planes{0,1} blk 12 pg 3"
};

}  // namespace ssd
