// A side channel beside the host protocol, for simulation speed only. The host tells the
// device which logical blocks a request it has read from its workload, but not yet sent,
// will touch; the device's model may fetch the lines of its lookup tables meanwhile (the
// firmware's L2P, the preconditioned image), so that the lookup at the command's arrival
// finds them in the processor's cache. Like DMI it bypasses the protocol; unlike DMI it
// carries no data and no time, changes no state and no result, and may be left unbound
// (the host's port) or ignored (a device). `host.lookahead` turns the host's calls off;
// the test suite checks that the results are identical either way.
//
// Besides the request next in line, the host may hand over its whole workload to come
// as a RequestStream: a replica of its source, to be read on a thread of the device
// model's own, ahead of the host (never more than a window ahead: the stream waits for
// the host). The device computes there, on the machine's other core, what its lookups
// will need and can compute from the request alone (the preconditioned image's pure
// lookups: controller/lookahead_worker.h). `host.lookahead_thread` turns it off.
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>

#include "tlm/host_protocol.h"

namespace ssd {

// The host's requests to come, read on another thread than the simulation's.
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

class LookaheadIf : public virtual sc_core::sc_interface {
 public:
  // A request of `op` on `sectors` sectors from `lba` is on its way. Changes nothing.
  virtual void lookahead(HostOp op, std::uint64_t lba, std::uint32_t sectors) = 0;
  // The workload to come, for a thread of the device's (before the simulation starts).
  // A device with no use for it lets it go.
  virtual void lookahead_stream(std::unique_ptr<RequestStream> /*stream*/) {}
};

using LookaheadPort = sc_core::sc_port<LookaheadIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

}  // namespace ssd
