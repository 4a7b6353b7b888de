// NVMe over PCIe, between the host's NVMe driver (host/nvme_host.h) and the controller's
// NVMe front end (controller/nvme_front_end.h): a generic payload with a PcieExtension,
// its own protocol-types class and sockets.
//
// Only the transfers either side acts on are calls: the host's doorbell writes (MMIO,
// host -> device) and the device's reads of submission queue entries and its MSI-X
// interrupt writes (device -> host memory). The other transfers (PRP and SGL lists,
// command data, completion entries) move only time and bytes: the front end reserves
// them on its PCIe link (tlm/pcie_link.h), and the data's content travels in the host
// command itself (tlm/host_protocol.h). A call happens at the time its transfer reaches
// the far side: the front end, which models the link, makes device -> host calls when
// the transfer arrives and times a doorbell's arrival itself.
//
// Phases (base protocol, AT, never an annotated delay): BEGIN_REQ, answered
// TLM_COMPLETED at once (a posted write, or a host-memory read served in zero time).
// The payload is the caller's again on return.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/command_extension.h"
#include "tlm/payload_pool.h"

namespace ssd {

enum class PcieOp : std::uint8_t {
  SqDoorbell,  // host -> device: a submission queue's new tail (`value`)
  CqDoorbell,  // host -> device: a completion queue's new head (`value`)
  ReadSqes,    // device -> host memory: `count` entries of submission queue `queue` from slot
               // `index`; the host fills `cmds` with the commands they hold, in slot order
  Interrupt,   // device -> host: MSI-X of completion queue `queue`; `cmds` are the commands
               // whose completion entries were posted before it, in posting order
};

struct PcieTransfer {
  PcieOp op = PcieOp::SqDoorbell;
  std::uint32_t queue = 0;  // the I/O queue pair, from 0
  std::uint32_t value = 0;  // a doorbell's tail or head
  std::uint32_t index = 0, count = 0;
  std::vector<tlm::tlm_generic_payload*> cmds;  // host commands (HostExtension payloads)
  void reset() {
    op = PcieOp::SqDoorbell;
    queue = value = index = count = 0;
    cmds.clear();  // keeps its capacity
  }
};

struct PcieExtension : CommandExtension<PcieExtension, PcieTransfer> {};
struct PcieProtocol;
using pcie_protocol_types = tagged_protocol_types<PcieProtocol>;

template <typename Module>
using PcieInitiatorSocket = tlm_utils::simple_initiator_socket<Module, 8, pcie_protocol_types>;
template <typename Module>
using PcieTargetSocket = tlm_utils::simple_target_socket<Module, 8, pcie_protocol_types>;

inline PcieTransfer& pcie_xfer(tlm::tlm_generic_payload& gp) { return payload_cmd<PcieExtension>(gp); }
using PciePayloadPool = PayloadPool<PcieExtension>;

}  // namespace ssd
