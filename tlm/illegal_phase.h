// A TLM-2.0 base-protocol phase that a module does not take on one of its hops: the
// module on the other side broke the protocol. Reported as an SC_ERROR naming the hop
// and the phase (thrown by default: ssdsim ends with exit 1 and the message), never
// ignored; the caller then answers TLM_COMPLETED.
#pragma once

#include <sstream>

#include <systemc>
#include <tlm>

namespace ssd {

constexpr const char* kIllegalPhase = "/ssd/tlm/illegal_phase";

inline void illegal_phase(const char* hop, const tlm::tlm_phase& ph) {
  std::ostringstream os;
  os << hop << ": illegal phase " << ph;
  SC_REPORT_ERROR(kIllegalPhase, os.str().c_str());
}

}  // namespace ssd
