// A side channel beside the host protocol, for simulation speed only. The host tells the
// device which logical blocks a request it has read from its workload, but not yet sent,
// will touch; the device's model may fetch the lines of its lookup tables meanwhile (the
// firmware's L2P, the preconditioned image), so that the lookup at the command's arrival
// finds them in the processor's cache. Like DMI it bypasses the protocol; unlike DMI it
// carries no data and no time, changes no state and no result, and may be left unbound
// (the host's port) or ignored (a device). `host.lookahead` turns the host's calls off;
// the test suite checks that the results are identical either way.
#pragma once

#include <cstdint>

#include <systemc>

#include "tlm/host_protocol.h"

namespace ssd {

class LookaheadIf : public virtual sc_core::sc_interface {
 public:
  // A request of `op` on `sectors` sectors from `lba` is on its way. Changes nothing.
  virtual void lookahead(HostOp op, std::uint64_t lba, std::uint32_t sectors) = 0;
};

using LookaheadPort = sc_core::sc_port<LookaheadIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

}  // namespace ssd
