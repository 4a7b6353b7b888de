// A generic-payload extension that carries one command struct (FlashCommand,
// HostCommand, ...), and the protocol-types class that keeps each protocol's
// sockets apart (a flash socket cannot be bound to a host socket or a plain memory).
#pragma once

#include <tlm>

namespace ssd {

template <typename Derived, typename Cmd>
struct CommandExtension : tlm::tlm_extension<Derived> {
  Cmd cmd;
  tlm::tlm_extension_base* clone() const override {
    auto* e = new Derived;
    e->cmd = cmd;
    return e;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    cmd = static_cast<const Derived&>(other).cmd;
  }
};

// One protocol-types class per protocol tag: same payload and phases, distinct types.
template <typename ProtocolTag>
struct tagged_protocol_types {
  typedef tlm::tlm_generic_payload tlm_payload_type;
  typedef tlm::tlm_phase tlm_phase_type;
};

// The command of a payload carrying extension Ext.
template <typename Ext>
auto& payload_cmd(tlm::tlm_generic_payload& gp) {
  Ext* ext = nullptr;
  gp.get_extension(ext);
  sc_assert(ext != nullptr);
  return ext->cmd;
}

}  // namespace ssd
