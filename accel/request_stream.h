// The host's requests to come, read on another thread than the simulation's (accel/
// only): the lookahead worker (lookahead_worker.h) reads a replica of the workload
// (replica_stream.h) through this interface.
#pragma once

#include <cstdint>

#include "tlm/host_protocol.h"

namespace ssd::accel {

class RequestStream {
 public:
  enum class Next { Request, Ahead, End };
  virtual ~RequestStream() = default;
  // Request: the next request is in op, lba, sectors. Ahead: the host is far enough
  // behind; ask again later. End: the workload is over, or the stream was cancelled.
  virtual Next next(HostOp& op, std::uint64_t& lba, std::uint32_t& sectors) = 0;
  // Makes next() return End from now on, on any thread.
  virtual void cancel() = 0;
};

}  // namespace ssd::accel
