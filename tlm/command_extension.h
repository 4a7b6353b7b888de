// A generic-payload extension that carries one command struct (FlashCommand,
// HostCommand, ...), and the protocol-types class that keeps each protocol's
// sockets apart (a flash socket cannot be bound to a host socket or a plain memory).
#pragma once

#include <cstdint>
#include <typeinfo>

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

// A generic payload that holds its extension Ext as a member, always attached: what
// the payload pools (tlm/payload_pool.h) hand out. Any other module still finds the
// extension through get_extension(); payload_cmd() reaches it without that call (an
// out-of-line lookup in the library, some twenty per host request on the hot path).
// Each has its slot in its pool (0, 1, ... in the order the pool made them): the pool's
// owner may keep its own state of a payload in a table of its own indexed by the slot
// (the firmware's record of each flash command it builds: controller/fw_command.h), so
// that the protocol carries none of it.
template <typename Ext>
class PooledPayload final : public tlm::tlm_generic_payload {
 public:
  PooledPayload(tlm::tlm_mm_interface* mm, std::uint32_t slot) : tlm::tlm_generic_payload(mm), slot_(slot) {
    set_extension(&ext_);
  }
  // The base class frees the extensions it holds; this one is a member.
  ~PooledPayload() override { clear_extension(&ext_); }
  Ext& ext() { return ext_; }
  std::uint32_t slot() const { return slot_; }

 private:
  Ext ext_;
  std::uint32_t slot_;
};

// The command of a payload carrying extension Ext: directly for a pooled payload (one
// type test: a pointer compare), else through the payload's extension array.
template <typename Ext>
auto& payload_cmd(tlm::tlm_generic_payload& gp) {
  if (typeid(gp) == typeid(PooledPayload<Ext>)) return static_cast<PooledPayload<Ext>&>(gp).ext().cmd;
  Ext* ext = nullptr;
  gp.get_extension(ext);
  sc_assert(ext != nullptr);
  return ext->cmd;
}

}  // namespace ssd
