#include "tlm/payload_pool.h"
#include "tlm/request_life.h"

#include <sstream>

#include <systemc>

namespace ssd {

const char* to_string(Stage s) {
  switch (s) {
    case Stage::None: return "-";
    case Stage::HostQueue: return "host queue";
    case Stage::HostIface: return "host interface";
    case Stage::Firmware: return "firmware";
    case Stage::BlockQueue: return "block queue";
    case Stage::Bus: return "bus";
    case Stage::Array: return "array";
    case Stage::Register: return "register";
    case Stage::Done: return "done";
  }
  return "?";
}

const char* to_string(HostOp op) {
  switch (op) {
    case HostOp::Read: return "READ";
    case HostOp::Write: return "WRITE";
    case HostOp::Trim: return "TRIM";
    case HostOp::Flush: return "FLUSH";
  }
  return "?";
}

const char* to_string(FlashStatus s) {
  switch (s) {
    case FlashStatus::Pending: return "pending";
    case FlashStatus::Ok: return "ok";
    case FlashStatus::ProtocolError: return "protocol error";
    case FlashStatus::ReadRetried: return "read after retries";
    case FlashStatus::ProgramFailed: return "program failed";
    case FlashStatus::EraseFailed: return "erase failed";
    case FlashStatus::Uncorrectable: return "uncorrectable read";
    case FlashStatus::PowerLoss: return "cut short by a power loss";
  }
  return "?";
}

const char* to_string(FlashOrigin o) {
  switch (o) {
    case FlashOrigin::None: return "-";
    case FlashOrigin::HostRead: return "host read";
    case FlashOrigin::RmwRead: return "RMW read";
    case FlashOrigin::HostProgram: return "host program";
    case FlashOrigin::GcRead: return "GC read";
    case FlashOrigin::GcProgram: return "GC program";
    case FlashOrigin::GcErase: return "GC erase";
    case FlashOrigin::MapLog: return "map log";
  }
  return "?";
}

const char* to_string(FlashOp op) {
  switch (op) {
    case FlashOp::Read: return "READ";
    case FlashOp::Program: return "PROGRAM";
    case FlashOp::Erase: return "ERASE";
    case FlashOp::Resume: return "RESUME";
  }
  return "?";
}

void FlashCommand::reset() {
  // Only the planes in plane_mask are meaningful in block and token: they are
  // left as they were (the issuer sets the ones it uses), the rest is cleared.
  op = FlashOp::Read;
  channel = chip = die = 0;
  plane_mask = 0;
  page = 0;
  unit = 0;
  unit_planes = 0;
  out_bytes = 0;
  id = 0;
  status = FlashStatus::Pending;
  t_submit = t_start = t_array_start = t_array_end = t_done = 0;
  error.clear();
  t_bus_end = t_out_ready = t_out_start = bus_cmd_ticks = t_wordline_wait = t_wordline_bus_wait = t_queued = 0;
  waited = {};
  metered = false;
  origin = FlashOrigin::None;
  lpn = kNoLpn;
  host_page = 0;
  request = 0;
  gc_plane_mask = 0;
  priority = FlashPriority::Host;
  keep_order = false;
  read_level = 0;
  suspend = false;
  slc = false;
  suspends = 0;
  t_suspended = t_suspend_done = 0;
  bit_errors = {};
  failed_planes = 0;
}

std::string FlashCommand::describe() const {
  std::ostringstream os;
  os << to_string(op) << " ch" << channel << ".chip" << chip << ".die" << die << " planes{";
  bool first = true;
  for (unsigned p = 0; p < kMaxPlanes; ++p) {
    if (!(plane_mask >> p & 1u)) continue;
    os << (first ? "" : ",") << p;
    first = false;
  }
  os << "} blk";
  std::uint32_t b0 = 0;
  bool same = true;
  first = true;
  for (unsigned p = 0; p < kMaxPlanes; ++p) {
    if (!(plane_mask >> p & 1u)) continue;
    if (first) b0 = block[p];
    else if (block[p] != b0) same = false;
    first = false;
  }
  if (same) {
    os << ' ' << b0;
  } else {
    for (unsigned p = 0; p < kMaxPlanes; ++p)
      if (plane_mask >> p & 1u) os << ' ' << block[p];
  }
  if (op != FlashOp::Erase) os << " pg " << page;
  if (op == FlashOp::Read && read_level) os << " level " << unsigned{read_level};
  if (slc) os << " SLC";
  return os.str();
}

tlm::tlm_generic_payload* PayloadPoolBase::take() {
  if (free_.empty()) {
    all_.push_back(create(static_cast<std::uint32_t>(all_.size())));
    free_.push_back(all_.back().get());
  }
  tlm::tlm_generic_payload* gp = free_.back();
  free_.pop_back();
  ++outstanding_;
  ++acquired_total_;
  return gp;
}

void PayloadPoolBase::free(tlm::tlm_generic_payload* gp) {
  // Extensions stay attached (set_extension, not auto): they are reused.
  free_.push_back(gp);
  --outstanding_;
}

void PayloadPoolBase::check_all_returned() const {
  if (outstanding_ == 0) return;
  std::ostringstream os;
  os << "payload pool '" << name_ << "': " << outstanding_ << " of " << all_.size()
     << " payloads were never released (a transaction was lost or leaked)";
  SC_REPORT_ERROR("/ssd/tlm/pool", os.str().c_str());
}

}  // namespace ssd
