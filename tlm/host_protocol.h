// The host <-> controller protocol: a generic payload with a HostExtension
// (SATA-NCQ-like command: tag, opcode, LBA, sector count, and one data token per
// logical page the command touches), its own protocol-types class and sockets.
//
// Phases (base protocol, AT): BEGIN_REQ host -> device. The device answers
// TLM_UPDATED/END_REQ when an NCQ tag is free, or TLM_ACCEPTED and sends END_REQ
// later when one frees (back-pressure; the host sends nothing meanwhile).
// BEGIN_RESP device -> host at completion; the host answers TLM_COMPLETED.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/command_extension.h"
#include "tlm/flash_command.h"
#include "tlm/latency_parts.h"

namespace ssd {

enum class HostOp : std::uint8_t { Read, Write, Trim, Flush };
const char* to_string(HostOp op);
// Whether the command moves data (a read or a write; a trim or a flush does not).
inline bool is_data(HostOp op) { return op == HostOp::Read || op == HostOp::Write; }

// A logical page never written (or trimmed) reads as this token, without flash access.
constexpr Token kUnwrittenToken = 0;
// Never a data token (the functions below avoid it, as they avoid kErasedToken): the
// host's integrity shadow marks a trimmed page with it (host/token_shadow.h).
constexpr Token kTrimmedMark = 0xFFFFFFFFu;
// What a read returns for a page the device could not read (its ECC failed at every tier:
// the command's status is HostStatus::MediaError). Never a data token.
constexpr Token kUnrecoveredToken = kTrimmedMark;
// A command's outcome as the device reports it (an NVMe completion's status): Ok, or
// MediaError, a read with a page the device could not recover (its token
// kUnrecoveredToken; the others are good), or a write with a page the device could not
// program (its plane could gain no space; the page reads as written until it is written
// again or trimmed);
// WriteProtected, a write or trim the device refused, read-only (nothing of it done).
enum class HostStatus : std::uint8_t { Ok, MediaError, WriteProtected };
// A token as data may carry it: neither erased nor the trimmed mark.
inline Token data_token(Token t) { return t == kErasedToken || t == kTrimmedMark ? 1 : t; }

// The token of a page after a write that covers only part of it: the old page's
// token mixed with the write's own, so a wrong read-modify-write shows up later.
inline Token merge_tokens(Token old_page, Token written) {
  std::uint64_t x = (std::uint64_t{old_page} << 32 | written) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return data_token(static_cast<Token>(x >> 16));
}

// The token preconditioning gives logical page lpn (host and device agree on it).
inline Token precondition_token(std::uint64_t lpn) {
  std::uint64_t x = (lpn + 0x51ED270B27A3C8F1ull) * 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  return data_token(static_cast<Token>(x));
}

// A fresh token for page lpn written by host command `id`.
inline Token write_token(std::uint64_t lpn, std::uint64_t id) {
  std::uint64_t x = lpn * 0x9E3779B97F4A7C15ull ^ (id + 0x632BE59BD9B4E019ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return data_token(static_cast<Token>(x));
}

// The logical pages (of `spp` sectors each) that `sectors` sectors from `lba` touch:
// [first, first + count); none when `sectors` is 0.
struct PageSpan {
  std::uint64_t first = 0, count = 0;
  std::uint64_t end() const { return first + count; }
};
inline PageSpan page_span(std::uint64_t lba, std::uint64_t sectors, std::uint64_t spp) {
  const std::uint64_t first = lba / spp;
  return {first, sectors ? (lba + sectors - 1) / spp - first + 1 : 0};
}
// Whether those sectors cover logical page `lpn` only in part (a write of it merges with
// the old page; a trim keeps it).
inline bool covers_part(std::uint64_t lba, std::uint64_t sectors, std::uint64_t lpn, std::uint64_t spp) {
  return lba > lpn * spp || lba + sectors < (lpn + 1) * spp;
}

struct HostCommand {
  HostOp op = HostOp::Read;
  std::uint64_t lba = 0;       // 512-byte sectors
  std::uint32_t sectors = 0;
  // A write with Force Unit Access: it completes only once its data is on flash, whatever
  // the write cache (controller.write_cache).
  bool fua = false;
  std::uint16_t tag = 0;       // NCQ tag, set by the host interface
  std::uint64_t id = 0;        // the host's sequence number
  std::uint16_t stream = 0;    // the host's workload stream (workload.streams; 0 without)
  // Write: the token of each logical page touched, first page first (a partial page's
  // token is the written part's own; the device merges it with the old page's).
  // Read: filled by the device.
  std::vector<Token> tokens;
  HostStatus status = HostStatus::Ok;  // set by the device
  Tick t_submit = 0;           // host sent BEGIN_REQ
  Tick t_done = 0;             // device sent BEGIN_RESP
  // The latency attribution (tlm/latency_parts.h): the request's events along its path,
  // set by the layer each happens in, and the parts of the page that ended it (the
  // firmware's, from write_buffer to completion).
  Tick t_dispatch = 0;   // the host sent it (BEGIN_REQ)
  Tick t_tag = 0;        // NCQ tag given
  Tick t_fw_in = 0;      // passed to the firmware
  Tick t_core_start = 0; // the core started its work
  Tick t_processed = 0;  // the core's work done: split into pages
  Tick t_fw_done = 0;    // the firmware answered the host interface
  PartTicks parts{};

  void reset() {
    op = HostOp::Read;
    lba = 0;
    sectors = 0;
    fua = false;
    tag = 0;
    id = 0;
    stream = 0;
    tokens.clear();  // keeps its capacity: no allocation once warmed up
    status = HostStatus::Ok;
    t_submit = t_done = 0;
    t_dispatch = t_tag = t_fw_in = t_core_start = t_processed = t_fw_done = 0;
    parts = {};
  }
};

struct HostExtension : CommandExtension<HostExtension, HostCommand> {};
struct HostProtocol;
using host_protocol_types = tagged_protocol_types<HostProtocol>;

template <typename Module>
using HostInitiatorSocket = tlm_utils::simple_initiator_socket<Module, 8, host_protocol_types>;
template <typename Module>
using HostTargetSocket = tlm_utils::simple_target_socket<Module, 8, host_protocol_types>;

inline HostCommand& host_cmd(tlm::tlm_generic_payload& gp) { return payload_cmd<HostExtension>(gp); }

}  // namespace ssd
