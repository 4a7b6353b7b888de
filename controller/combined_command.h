// A flash command of several pages, one per plane of one die at one page offset (an
// n-plane read, program or erase: docs/nand-timing.md), made of single-page commands:
// its parts. The scheduler block and the NAND see the combined command only; at its end
// each part takes the result for its plane and is handled as if it had run alone. These
// are the protocol's rules for it, on FlashCommand alone: the firmware's holding stage
// (controller/holding_stage.h) joins the commands it holds with them, and the scheduler
// block's multi-plane rescheduling (controller/flash_sched.cpp) the commands it queues.
// Plain C++.
#pragma once

#include <string>

#include "tlm/flash_command.h"

namespace ssd::ctrl {

// Why `part` cannot join `whole` (empty: it can): both of one operation, for one die, at
// one page offset (an erase: any blocks), the part a single-page command on a plane
// `whole` does not have yet, both sensing at one read level, both in one cell mode (SLC
// mode or the part's own: a die runs an n-plane command in one), reads of one data unit
// (FlashCommand::unit: the command carries one column).
inline std::string why_not_joined(const FlashCommand& whole, const FlashCommand& part) {
  if (part.plane_count() != 1) return "not a single-page command";
  if (part.op != whole.op) return "another operation";
  if (part.slc != whole.slc) return "another cell mode";
  if (part.channel != whole.channel || part.chip != whole.chip || part.die != whole.die) return "another die";
  if (part.op != FlashOp::Erase && part.page != whole.page) return "another page offset";
  if (part.read_level != whole.read_level) return "another read level";
  if (part.unit != whole.unit) return "another data unit";
  if (whole.plane_mask & part.plane_mask) return "a plane the command has already";
  return {};
}

// Starts `whole` (a fresh command) as the combined command of `first`: its address, its
// priority, and what it is for (for logs and the request-life waveform: the first
// part's; join() gives it the first part serving a host request, whose wait the block
// then measures for the command, as every part waits the same).
inline void begin_combined(FlashCommand& whole, const FlashCommand& first) {
  whole.op = first.op;
  whole.channel = first.channel;
  whole.chip = first.chip;
  whole.die = first.die;
  whole.page = first.page;
  whole.unit = first.unit;
  whole.unit_planes = 0;
  whole.plane_mask = 0;
  whole.gc_plane_mask = 0;
  whole.out_bytes = first.out_bytes;
  whole.read_level = first.read_level;
  whole.slc = first.slc;
  whole.priority = first.priority;
  whole.origin = first.origin;
  whole.lpn = first.lpn;
  whole.host_page = first.host_page;
  whole.request = first.request;
}

// Adds `part`'s plane to `whole` (why_not_joined empty): its plane, block and data (a
// wordline program's every page). A read moves out whole pages unless every part moves
// the same bytes. The firmware's joining (join) and the block's multi-plane rescheduling
// (FlashSched::merge) both take a plane so.
inline void join_plane(FlashCommand& whole, const FlashCommand& part) {
  const unsigned p = part.first_plane();
  whole.gc_plane_mask = static_cast<std::uint8_t>(whole.gc_plane_mask | part.gc_mask());
  whole.plane_mask = static_cast<std::uint8_t>(whole.plane_mask | part.plane_mask);
  whole.block[p] = part.block[p];
  whole.token[p] = part.token[p];
  for (unsigned k = 0; k + 1 < kMaxBitsPerCell; ++k) whole.wordline_token[k][p] = part.wordline_token[k][p];
  if (part.unit_planes >> p & 1u) {  // its units' data, from the part's own
    whole.unit_tokens[p] = part.unit_tokens[p];
    whole.unit_planes = static_cast<std::uint8_t>(whole.unit_planes | 1u << p);
  }
  if (part.out_bytes != whole.out_bytes) whole.out_bytes = 0;
}

// Adds `part` (why_not_joined empty) to `whole` (join_plane); the command takes the most
// urgent class of its parts.
inline void join(FlashCommand& whole, const FlashCommand& part) {
  join_plane(whole, part);
  if (part.priority < whole.priority) whole.priority = part.priority;
  if (!whole.request && part.request) {
    whole.origin = part.origin;
    whole.lpn = part.lpn;
    whole.host_page = part.host_page;
    whole.request = part.request;
  }
}

// The status of `whole` for its planes `mask`: a program or erase failed on some plane
// failed for the parts on those planes only (ONFI reports FAIL per plane).
inline FlashStatus part_status(const FlashCommand& whole, std::uint8_t mask) {
  if ((whole.status == FlashStatus::ProgramFailed || whole.status == FlashStatus::EraseFailed) &&
      !(whole.failed_planes & mask))
    return FlashStatus::Ok;
  return whole.status;
}

// The NAND's result of `whole` for its part on plane `p`: the outcome, the times and, for
// a read, the plane's data (the part keeps its own wait in the scheduler block).
inline void take_result(const FlashCommand& whole, FlashCommand& part) {
  const unsigned p = part.first_plane();
  part.status = part_status(whole, part.plane_mask);
  part.failed_planes = static_cast<std::uint8_t>(whole.failed_planes & part.plane_mask);
  part.bit_errors[p] = whole.bit_errors[p];
  part.error = whole.error;
  part.t_submit = whole.t_submit;
  part.t_start = whole.t_start;
  part.t_array_start = whole.t_array_start;
  part.t_array_end = whole.t_array_end;
  part.t_done = whole.t_done;
  part.t_bus_end = whole.t_bus_end;
  part.t_out_ready = whole.t_out_ready;
  part.t_out_start = whole.t_out_start;
  part.bus_cmd_ticks = whole.bus_cmd_ticks;
  part.t_wordline_wait = whole.t_wordline_wait;
  part.t_wordline_bus_wait = whole.t_wordline_bus_wait;
  part.suspends = whole.suspends;  // suspend and resume: the whole's, for the attribution
  part.t_suspended = whole.t_suspended;
  part.t_suspend_done = whole.t_suspend_done;
  if (whole.op == FlashOp::Read) part.token[p] = whole.token[p];
}

// The end of `whole`, for its part on plane `p`: its result, and the block's measurement
// of its wait (every part of a command the firmware combined waited as the whole did).
inline void hand_out(const FlashCommand& whole, FlashCommand& part) {
  take_result(whole, part);
  part.t_queued = whole.t_queued;
  part.waited = whole.waited;
  part.metered = whole.metered;
}

}  // namespace ssd::ctrl
