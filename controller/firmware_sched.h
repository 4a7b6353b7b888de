// Firmware scheduling: the seam where the firmware may hold back or reorder the flash
// commands it has built before the scheduler block sees them, charging its core for the
// decisions (SOS's firmware-side scheduling lives here). Plain C++.
//
// The firmware hands every command to its FirmwareScheduler once the command's core work
// is done (submit); the policy passes commands on through a FlashOutlet (release), now,
// at a later time, or when a completion frees something (completed). InOrderRelease is
// today's policy: each command goes on as soon as it is ready.
//
// A policy must release every command it is given (the run ends only when every command
// has completed), and may change only the command's priority class before releasing it:
// its address, data and origin are the firmware's.
#pragma once

#include <cstdint>

#include "tlm/flash_command.h"

namespace ssd::ctrl {

class FlashOutlet {
 public:
  virtual ~FlashOutlet() = default;
  virtual Tick now() const = 0;
  // Passes c to the scheduler block at `at` (at once if `at` is not after now).
  virtual void release(FlashCommand& c, Tick at) = 0;
  // Reserves `cycles` of the firmware core (one piece of work at a time) from when it is
  // next free; returns when they end.
  virtual Tick charge(std::uint64_t cycles) = 0;
};

class FirmwareScheduler {
 public:
  virtual ~FirmwareScheduler() = default;
  // The firmware built `c`; its core work ends at `ready` (not before now).
  virtual void submit(FlashCommand& c, Tick ready, FlashOutlet& out) = 0;
  // The scheduler block completed `c`; the firmware acts on it right after. A policy
  // holding commands may release some now.
  virtual void completed(const FlashCommand& c, FlashOutlet& out) {}
};

class InOrderRelease final : public FirmwareScheduler {
 public:
  void submit(FlashCommand& c, Tick ready, FlashOutlet& out) override { out.release(c, ready); }
};

}  // namespace ssd::ctrl
