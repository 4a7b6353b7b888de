// The controller <-> NAND protocol: a generic payload carrying a FlashExtension,
// its own protocol-types class (so a NAND socket cannot be bound to a generic
// memory by mistake), the sockets, and the phases.
//
// Phases (base protocol, approximately timed):
//   BEGIN_REQ  controller -> channel: a command for one die. The channel queues it
//              per die and answers TLM_UPDATED/END_REQ at once: it never refuses,
//              so a scheduler that wants to control order must issue only when the
//              die is ready (see nand::NandStatus).
//   BEGIN_RESP channel -> controller: the command completed (read data tokens and
//              status in the extension). Answer TLM_COMPLETED, or TLM_ACCEPTED and
//              END_RESP later; the channel holds further responses until then.
#pragma once

#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/command_extension.h"
#include "tlm/flash_command.h"

namespace ssd {

struct FlashExtension : CommandExtension<FlashExtension, FlashCommand> {};
struct FlashProtocol;
using flash_protocol_types = tagged_protocol_types<FlashProtocol>;

template <typename Module>
using FlashInitiatorSocket = tlm_utils::simple_initiator_socket<Module, 8, flash_protocol_types>;
template <typename Module>
using FlashTargetSocket = tlm_utils::simple_target_socket<Module, 8, flash_protocol_types>;

// The flash command of a payload that came from a FlashPayloadPool.
inline FlashCommand& flash_cmd(tlm::tlm_generic_payload& gp) { return payload_cmd<FlashExtension>(gp); }

}  // namespace ssd

#include <tlm_utils/simple_initiator_socket.h>
namespace ssd {
// One initiator socket per channel, the channel's index passed to the callback.
template <typename Module>
using FlashInitiatorSocketTagged =
    tlm_utils::simple_initiator_socket_tagged<Module, 8, flash_protocol_types>;
}  // namespace ssd
