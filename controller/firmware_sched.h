// Firmware scheduling: the release policy of the holding stage (controller/holding_stage.h),
// where the firmware may hold back, reorder, move, join or drop the flash commands it has
// built before the scheduler block sees them, charging its core for the decisions (SOS's
// firmware-side scheduling is one: controller/sos_sched.h). Plain C++.
//
// The holding stage hands every command the firmware builds to its policy (submit), with
// the time its core work ends; the policy passes commands on through a FlashOutlet
// (release), now, at a later time, or when a completion frees something (completed,
// chip_idle). It needs no container of its own for them: a command it does not release
// at once it can hold in the stage (hold: its chip's queue, in the order held), where it
// can see it (FirmwareView), and every other unit can too. InOrderRelease releases each
// command as soon as it is ready.
//
// Late binding. A read or an erase has its address when built. A program has its plane
// (the write allocator's choice, or GC's plane) and is *unbound*: it gets its block and
// page when it leaves the stage for the scheduler block, the next page of its plane's
// write stream (host or GC: controller/write_frontier.h). So a block's pages are bound
// in the order its programs reach the block, whatever order the policy releases them in
// and for whatever times, and no block has a hole. While it is held a program can still
// change; once released it cannot be moved or cancelled. (The scheduler block keeps the
// programs of a plane in the order it receives them: docs/scheduler.md.)
//
// The contract. A policy must release or cancel every command it is given (the run ends
// only when every command has completed), and may change a command only through the
// outlet: an unbound host program's plane (retarget); drop an unbound program whose data
// a newer write of its logical page superseded (cancel); join commands of one die into
// one n-plane command (release_together). The rest (address, data, origin, priority
// class) is the firmware's. What it may
// look at is view(): what the firmware knows, never the NAND's internals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "controller/fw_command.h"

namespace ssd::ctrl {

// What the firmware knows of the device and of the commands it holds, for a scheduling
// policy. Chips are numbered channel * chips_per_channel + chip; planes as in
// controller/write_allocator.h.
class FirmwareView {
 public:
  virtual ~FirmwareView() = default;
  virtual std::uint32_t chips() const = 0;
  virtual std::uint32_t planes() const = 0;
  // Commands released on the chip whose completion the firmware has not yet seen (waiting
  // in the stage for room or their time, in the block or at the NAND); the chip is busy
  // while any is. A command of several pages counts once if the policy made it of bound
  // commands (release_together), once per page if the stage joined them (its batching, or
  // programs released together).
  virtual std::uint32_t held_by_block(std::uint32_t chip) const = 0;
  bool busy(std::uint32_t chip) const { return held_by_block(chip) != 0; }
  // Programs built for the plane and not yet bound (no page yet).
  virtual std::uint32_t unbound_programs(std::uint32_t plane) const = 0;
  // The plane and chip a command is for.
  virtual std::uint32_t plane_of(const FwCommand& c) const = 0;
  virtual std::uint32_t chip_of(const FwCommand& c) const = 0;
  // Whether a host program's data is superseded: a newer write (or a trim) of its
  // logical page came after it (cancel() takes it).
  virtual bool superseded(const FwCommand& c) const = 0;
  // The chip's queue in the stage (FlashOutlet::hold): its commands, in the order held,
  // with how many there are and how many of them are host programs. A command moved
  // (retarget) goes to the back of its new chip's queue.
  virtual std::uint32_t held(std::uint32_t chip) const = 0;
  virtual std::uint32_t held_programs(std::uint32_t chip) const = 0;
  virtual FwCommand* first_held(std::uint32_t chip) const = 0;
  virtual FwCommand* last_held(std::uint32_t chip) const = 0;
  virtual FwCommand* next_held(const FwCommand& c) const = 0;  // null after the last
  virtual FwCommand* prev_held(const FwCommand& c) const = 0;  // null before the first
  virtual bool in_queue(const FwCommand& c) const = 0;         // held in its chip's queue now
};

class FlashOutlet {
 public:
  virtual ~FlashOutlet() = default;
  virtual Tick now() const = 0;
  // Passes c on at `at` (at once if `at` is not after now): it leaves the stage for the
  // scheduler block then, through the stage's batching (controller/holding_stage.h).
  virtual void release(FwCommand& c, Tick at) = 0;
  // Keeps c in its chip's queue in the stage (at its back), ready at `ready`, until the
  // policy releases, moves or cancels it.
  virtual void hold(FwCommand& c, Tick ready) = 0;
  // Takes c out of its chip's queue while the policy works on it (retarget may then bring
  // new commands before it returns: c is in no queue meanwhile); returns its place there.
  // put_back(c, place) puts it back there, if nothing was done to it; hold() puts it at
  // the back of its (new) chip's queue.
  virtual std::size_t take_out(FwCommand& c) = 0;
  virtual void put_back(FwCommand& c, std::size_t place) = 0;
  // Reserves `cycles` of the firmware core (one piece of work at a time) from when it is
  // next free; returns when they end.
  virtual Tick charge(std::uint64_t cycles) = 0;
  virtual const FirmwareView& view() const = 0;
  // Moves an unbound host program to `plane` (its data and logical page unchanged).
  // False, and nothing changed, if it is not an unbound, unreleased host program, or the
  // plane has no page free for the host stream or writes waiting for one. A GC program
  // is never moved (GC's stream placed it).
  virtual bool retarget(FwCommand& c, std::uint32_t plane) = 0;
  // Drops an unbound host program whose data is superseded (view().superseded(c)): its
  // page counts as written for its host request (the newer write carries the data), its
  // write-buffer entry is freed, and the command is gone (`c` must not be used after).
  // Counted in firmware.cancelled_programs. False, and nothing changed, otherwise.
  virtual bool cancel(FwCommand& c) = 0;
  // Passes the `n` commands of `parts` (2 or more) on at `at` as one n-plane command
  // (controller/combined_command.h): single-page, unreleased commands of one operation
  // and one die, on distinct planes, at one page offset (an erase: any blocks). At its
  // end each part is completed as if it had run alone. Bound parts (reads, erases) are
  // combined at once, one command. Unbound programs are joined when they leave (at
  // `at`): bound then, at one page offset, they go as one n-plane command; if their
  // planes' streams are no longer at one offset then, they go one by one. False, and
  // nothing released, if they cannot be combined now, or the NAND takes no multi-plane
  // commands (nand.multiplane).
  virtual bool release_together(FwCommand* const* parts, unsigned n, Tick at) = 0;
};

class FirmwareScheduler {
 public:
  virtual ~FirmwareScheduler() = default;
  // The firmware built `c`; its core work ends at `ready` (not before now).
  virtual void submit(FwCommand& c, Tick ready, FlashOutlet& out) = 0;
  // The scheduler block completed `c` (a part of an n-plane command as if alone); its
  // issuer acts on it right after. A policy holding commands may release some now.
  virtual void completed(const FwCommand& c, FlashOutlet& out) {}
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
  // Whether it releases every command at its ready time and holds none. Only then does
  // the stage gather a write group's programs (HoldingStage::join_group): a policy that
  // holds a busy chip's commands would hold the group's others while one waits.
  virtual bool releases_all() const { return false; }
};

class InOrderRelease final : public FirmwareScheduler {
 public:
  void submit(FwCommand& c, Tick ready, FlashOutlet& out) override { out.release(c, ready); }
  bool releases_all() const override { return true; }
};

}  // namespace ssd::ctrl
