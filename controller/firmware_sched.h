// Firmware scheduling: the seam where the firmware may hold back, reorder, move or drop
// the flash commands it has built before the scheduler block sees them, charging its
// core for the decisions (SOS's firmware-side scheduling lives here). Plain C++.
//
// The firmware hands every command to its FirmwareScheduler as it builds it (submit),
// with the time its core work ends; the policy passes commands on through a FlashOutlet
// (release), now, at a later time, or when a completion frees something (completed).
// InOrderRelease is today's policy: each command goes on as soon as it is ready.
//
// Late binding. A read or an erase has its address when built. A program has its plane
// (the write allocator's choice, or GC's plane) and is *unbound*: it gets its block and
// page when it leaves for the scheduler block (at its release, or at the later time the
// release names), the next page of its plane's write stream (host or GC). So a block's
// pages are bound in the order its programs reach the block, whatever order the policy
// releases them in and for whatever times, and no block has a hole. A released program
// can no longer be moved or cancelled. (The scheduler
// block keeps the programs of a plane in the order it receives them: docs/scheduler.md.)
//
// The contract. A policy must release or cancel every command it is given (the run ends
// only when every command has completed), and may change a command only through the
// outlet: its priority class before releasing it; an unbound host program's plane
// (retarget); or drop an unbound host program whose data a newer write of its logical
// page superseded (cancel). The rest (address, data, origin) is the firmware's. What it
// may look at is view(): what the firmware knows, never the NAND's internals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tlm/flash_command.h"

namespace ssd::ctrl {

// What the firmware knows of the device, for a scheduling policy. Chips are numbered
// channel * chips_per_channel + chip; planes as in controller/write_allocator.h.
class FirmwareView {
 public:
  virtual ~FirmwareView() = default;
  virtual std::uint32_t chips() const = 0;
  virtual std::uint32_t planes() const = 0;
  // Commands released to the scheduler block on the chip whose completion the firmware
  // has not yet seen (held by its batching, in the block or at the NAND); the chip is
  // busy while any is. A command of several pages counts once if the policy made it
  // (release_together), once per page if the firmware's batching did.
  virtual std::uint32_t held_by_block(std::uint32_t chip) const = 0;
  bool busy(std::uint32_t chip) const { return held_by_block(chip) != 0; }
  // Programs built for the plane and not yet bound (no page yet): not released, or held
  // by the firmware's batching until they leave for the block.
  virtual std::uint32_t unbound_programs(std::uint32_t plane) const = 0;
  // The plane and chip a command is for.
  virtual std::uint32_t plane_of(const FlashCommand& c) const = 0;
  virtual std::uint32_t chip_of(const FlashCommand& c) const = 0;
  // Whether a host program's data is superseded: a newer write (or a trim) of its
  // logical page came after it (cancel() takes it).
  virtual bool superseded(const FlashCommand& c) const = 0;
};

class FlashOutlet {
 public:
  virtual ~FlashOutlet() = default;
  virtual Tick now() const = 0;
  // Passes c to the scheduler block at `at` (at once if `at` is not after now). An
  // unbound program gets its block and page now.
  virtual void release(FlashCommand& c, Tick at) = 0;
  // Reserves `cycles` of the firmware core (one piece of work at a time) from when it is
  // next free; returns when they end.
  virtual Tick charge(std::uint64_t cycles) = 0;
  virtual const FirmwareView& view() const = 0;
  // Moves an unbound host program to `plane` (its data and logical page unchanged).
  // False, and nothing changed, if it is not an unbound host program, or the plane has
  // no page free for the host stream or writes waiting for one.
  virtual bool retarget(FlashCommand& c, std::uint32_t plane) = 0;
  // Drops an unbound host program whose data is superseded (view().superseded(c)): its
  // page counts as written for its host request (the newer write carries the data), its
  // write-buffer entry is freed, and the command is gone (`c` must not be used after).
  // Counted in firmware.cancelled_programs. False, and nothing changed, otherwise.
  virtual bool cancel(FlashCommand& c) = 0;
  // Passes the `n` commands of `parts` (2 or more) to the scheduler block at `at` as one
  // n-plane command (controller/combined_command.h): bound single-page commands of one
  // operation and one die, at one page offset (an erase: any blocks), on distinct planes.
  // At its end each part is completed as if it had run alone (completed() is called for
  // each). False, and nothing released, if they cannot be combined, or the NAND takes no
  // multi-plane commands (nand.multiplane). A program is bound only when released, so
  // programs cannot be combined through this call (the allocation policy binds n pages
  // at one offset for that: Ftl::allocate_multi).
  virtual bool release_together(FlashCommand* const* parts, unsigned n, Tick at) = 0;
};

class FirmwareScheduler {
 public:
  virtual ~FirmwareScheduler() = default;
  // The firmware built `c`; its core work ends at `ready` (not before now).
  virtual void submit(FlashCommand& c, Tick ready, FlashOutlet& out) = 0;
  // The scheduler block completed `c`; the firmware acts on it right after. A policy
  // holding commands may release some now.
  virtual void completed(const FlashCommand& c, FlashOutlet& out) {}
  // The firmware has seen the completion of every command it released to `chip`
  // (view().busy(chip) turned false), after acting on the last one.
  virtual void chip_idle(std::uint32_t chip, FlashOutlet& out) {}
  // The policy's own counts, for stats.json's "firmware" section: a key and its value,
  // a count or a ratio.
  struct Stat {
    std::string key;
    double value;
    bool integer;
  };
  virtual std::vector<Stat> stats() const { return {}; }
};

class InOrderRelease final : public FirmwareScheduler {
 public:
  void submit(FlashCommand& c, Tick ready, FlashOutlet& out) override { out.release(c, ready); }
};

}  // namespace ssd::ctrl
