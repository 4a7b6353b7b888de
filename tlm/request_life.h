// Where a host request, and each flash command serving it, is in its life: what a
// tracer or a timeline that follows chosen requests wants to hear (trace.request,
// report.request_timeline). The layers tell a listener when one is set; it changes
// nothing the simulation sees, and without one each call site costs one test.
#pragma once

#include <cstdint>

#include "tlm/flash_command.h"
#include "tlm/host_protocol.h"
#include "tlm/latency_parts.h"

namespace ssd {

// In order of a request's life. A flash command goes BlockQueue, Bus, Array, then for a
// read Register (its data waits for the bus) and Bus again; a program's data waits in a
// register for the array with cache programming.
enum class Stage : std::uint8_t {
  None = 0,
  HostQueue = 1,  // in the host: its queue and I/O scheduler
  HostIface = 2,  // at the host interface: waiting for an NCQ tag, or its data on the host link
  Firmware = 3,   // on the firmware core (waiting for it, or for a page in the write buffer)
  BlockQueue = 4, // a command queued in the scheduler block (or a NAND die's queue)
  Bus = 5,        // a command on its channel's bus
  Array = 6,      // a command's array operation (tR, tPROG, tBERS)
  Register = 7,   // a command's data waiting in a page register
  Done = 8,
};
const char* to_string(Stage s);

class LifeListener {
 public:
  virtual ~LifeListener() = default;
  // Request `id` entered the host's scheduling queue at `t` (once, first); it arrived at
  // `arrival` (<= t: an open-loop arrival may wait for room in that queue).
  virtual void request_arrived(Tick t, std::uint64_t id, HostOp op, std::uint64_t lba, std::uint32_t sectors,
                               Tick arrival) = 0;
  // Request `id` reached a host-side stage: HostIface, Firmware, Done.
  virtual void request_at(Tick t, std::uint64_t id, Stage s) = 0;
  // Its page `page` was answered without a flash command of its own (from the write
  // buffer, or never written).
  virtual void page_answered(Tick t, std::uint64_t id, std::uint32_t page) = 0;
  // A flash command reached stage s (the NAND tells of every command; a listener keeps
  // those that carry a request: c.request != 0, or joined to one, command_carries).
  virtual void command_at(Tick t, const FlashCommand& c, Stage s) = 0;
  // Command `part` (serving a request) joined command `whole` at `t` (the scheduler
  // block's multi-plane rescheduling): its request follows whole's stages from now.
  virtual void command_joined(Tick /*t*/, const FlashCommand& /*part*/, const FlashCommand& /*whole*/) {}
  // Command `part` is carried by command `whole` from `t` (the firmware joined it into an
  // n-plane command before sending it): its request follows whole's stages from now, and
  // `whole` serves only its parts' requests.
  virtual void command_carries(Tick /*t*/, const FlashCommand& /*whole*/, const FlashCommand& /*part*/) {}
  // Request `id` completed at `t` with these latency parts (tlm/latency_parts.h), told
  // just before request_at(t, id, Done).
  virtual void request_parts(Tick /*t*/, std::uint64_t /*id*/, const PartTicks& /*parts*/) {}
};

}  // namespace ssd
