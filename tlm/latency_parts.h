// Where a host request's latency goes: its named parts, in the order of its critical
// path (docs/controller.md, "Latency attribution", gives the event that starts and ends
// each). The parts of a request sum to its latency exactly, to the picosecond: each is
// the time between two consecutive events of the path, and the scheduler block's queue
// is split by what the command's die or chip was doing meanwhile.
//
// The critical path is that of the page whose completion ended the request (the page the
// firmware counted last: of pages done at the same time, the last one handled), followed
// back through every stage that page waited in or was served by; the host-side stages
// are the request's own. Time spent on other pages in parallel is not counted again.
#pragma once

#include <array>
#include <cstdint>

#include "tlm/flash_command.h"

namespace ssd {

enum class Part : std::uint8_t {
  HostQueue,         // arrival -> sent to the device (host I/O scheduler and its queue)
  NcqWait,           // sent -> given an NCQ tag
  HostLinkIn,        // tag -> passed to the firmware (write data over the host link)
  FirmwareQueue,     // passed to the firmware -> the core starts its work
  FirmwareBusy,      // the core's cycles for the command
  WriteBuffer,       // waiting for another write's data in the write buffer
  RmwRead,           // read-modify-write: the merge read, whole
  WriteStall,        // a program waiting for a free page (GC to erase a block)
  ReadRetry,         // a read's earlier attempts, whole, up to the build of the one that decoded
  FirmwareSched,     // a flash command built -> taken by the scheduler block
  ConflictHostRead,  // in the block while its die (or chip) served a host read
  ConflictHostWrite, //   ... a host program
  ConflictGcRead,    //   ... a GC copy read
  ConflictGcProgram, //   ... a GC copy program
  ConflictErase,     //   ... an erase
  BlockQueue,        // in the block while its chip and its channel's bus were idle
  BusWait,           // its die ready, waiting for the bus (its chip idle in the block; at the channel; data out)
  BusCommand,        // command and address cycles
  BusData,           // data in (program) or out (read)
  RegisterWait,      // data in a page register, waiting for the array or a register
  Array,             // tR, tPROG, tBERS
  EccDecode,         // the controller's decode of a read's data (with a fault model: controller/ecc.h)
  Completion,        // the NAND done -> the firmware answers the host interface
  HostLinkOut,       // read data over the host link -> the host has the response
  // Suspend and resume (controller.suspend; shown only then: part_shown):
  Suspended,         // its program held suspended while its die served reads
  SuspendWait,       // a read's SUSPEND: the command, the suspend latency, the bus after it
  // The mapping's journal (ftl.map_persist = journal; shown only then):
  ConflictMap,       // in the block while its die served a map log program or erase
  // Cells of n bits (nand.bits_per_cell > 1; shown only then): taken out of firmware_sched
  WordlineWait,      // a program's page latched in the firmware until its wordline's last page binds
  Count
};
constexpr unsigned kParts = static_cast<unsigned>(Part::Count);
constexpr unsigned kFirstOptionalPart = static_cast<unsigned>(Part::Suspended);
// The optional parts a run has (bit k: part kFirstOptionalPart + k), set once before the
// run by its composition root: the parts of a feature that is off stay out of every
// output (stats.json, the CSVs, the time series), whose columns then are as without it.
inline std::uint32_t& optional_parts() {
  static std::uint32_t shown = 0;
  return shown;
}
inline bool part_shown(unsigned k) {
  return k < kFirstOptionalPart || (optional_parts() >> (k - kFirstOptionalPart) & 1u);
}
using PartTicks = std::array<Tick, kParts>;

// snake_case names, as stats.json, the request CSV and the time series use them.
inline const char* part_name(unsigned p) {
  static const char* const names[kParts] = {
      "host_queue",         "ncq_wait",          "host_link_in",     "firmware_queue", "firmware_busy",
      "write_buffer",       "rmw_read",          "write_stall",      "read_retry",     "firmware_sched",
      "conflict_host_read", "conflict_host_write", "conflict_gc_read", "conflict_gc_program", "conflict_erase",
      "block_queue",        "bus_wait",          "bus_command",      "bus_data",       "register_wait",
      "array",              "ecc_decode",        "completion",       "host_link_out",  "suspended",
      "suspend_wait",       "conflict_map",      "wordline_wait"};
  return p < kParts ? names[p] : "?";
}
inline Tick& at(PartTicks& t, Part p) { return t[static_cast<unsigned>(p)]; }

// What a die is doing, as the scheduler block's queue time is split by it: the kinds of
// work (the command's origin), then the channel's bus held by another chip.
// (kWaitKinds, in flash_command.h: host read, host write, GC read, GC program, erase, map
// log, then the bus.)
constexpr unsigned kWorkKinds = kWaitKinds - 1;
constexpr unsigned kWaitBus = kWorkKinds;
// The part a die's kind of work is to the commands waiting behind it.
inline Part conflict_part(unsigned kind) {
  return kind == 5 ? Part::ConflictMap : static_cast<Part>(static_cast<unsigned>(Part::ConflictHostRead) + kind);
}
// The kind of work a command is (a read-modify-write read counts as a host read, and a
// command without an origin by its operation).
inline unsigned work_kind(const FlashCommand& c) {
  switch (c.origin) {
    case FlashOrigin::HostRead:
    case FlashOrigin::RmwRead: return 0;
    case FlashOrigin::HostProgram: return 1;
    case FlashOrigin::GcRead: return 2;
    case FlashOrigin::GcProgram: return 3;
    case FlashOrigin::GcErase: return 4;
    case FlashOrigin::MapLog: return 5;
    case FlashOrigin::None: break;
  }
  return c.op == FlashOp::Read ? 0 : c.op == FlashOp::Program ? 1 : 4;
}

// The parts of a flash command's path, from `from` (its page was ready to be built and
// sent) to `now` (its issuer handled its completion): firmware_sched, the block's queue
// split by f.waited, then the NAND's phases from its timestamps, the controller's decode
// of a read's data (`ecc_ticks` after its data is out), and completion. Added to `p`;
// they sum to now - from when the events are in order.
inline void flash_path_parts(const FlashCommand& f, Tick ecc_ticks, Tick from, Tick now, PartTicks& p) {
  at(p, Part::FirmwareSched) += f.t_queued - from;
  // In the block: what its die (or chip) did meanwhile; the rest with both idle.
  Tick metered = 0;
  for (unsigned k = 0; k < kWaitKinds; ++k) metered += f.waited[k];
  for (unsigned k = 0; k < kWorkKinds; ++k) at(p, conflict_part(k)) += f.waited[k];
  at(p, Part::BusWait) += f.waited[kWaitBus] + (f.t_start - f.t_submit);
  at(p, Part::BlockQueue) += (f.t_submit - f.t_queued) - metered;
  Tick bus = f.t_bus_end - f.t_start;
  if (f.t_suspend_done) {  // a read that suspended an operation: its own command came after
    const Tick cmd_start = f.t_bus_end - f.bus_cmd_ticks;
    at(p, Part::SuspendWait) += cmd_start - f.t_start;
    bus = f.t_bus_end - cmd_start;
  }
  // A wordline program loaded in two bus phases: between them it waited for registers,
  // then for the bus.
  bus -= f.t_wordline_wait + f.t_wordline_bus_wait;
  at(p, Part::BusWait) += f.t_wordline_bus_wait;
  at(p, Part::RegisterWait) += f.t_array_start - f.t_bus_end + f.t_wordline_wait;
  at(p, Part::Array) += f.t_array_end - f.t_array_start - f.t_suspended;
  at(p, Part::Suspended) += f.t_suspended;
  if (f.op == FlashOp::Read) {  // its data out: from a register, when the bus is free
    at(p, Part::RegisterWait) += f.t_out_ready - f.t_array_end;
    at(p, Part::BusWait) += f.t_out_start - f.t_out_ready;
    bus += f.t_done - f.t_out_start;
  }
  at(p, Part::BusCommand) += f.bus_cmd_ticks;
  at(p, Part::BusData) += bus - f.bus_cmd_ticks;
  at(p, Part::EccDecode) += ecc_ticks;
  at(p, Part::Completion) += now - f.t_done - ecc_ticks;
}

}  // namespace ssd
