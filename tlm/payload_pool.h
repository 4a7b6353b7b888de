// A memory manager that recycles generic payloads with their extension attached:
// no heap allocation per transaction once the pool has grown to the number of
// transactions in flight. At the end of simulation every payload must be back:
// check_all_returned() reports the ones that are not.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <tlm>

#include "tlm/flash_protocol.h"

namespace ssd {

class PayloadPoolBase : public tlm::tlm_mm_interface {
 public:
  explicit PayloadPoolBase(std::string name) : name_(std::move(name)) {}
  std::size_t outstanding() const { return outstanding_; }
  std::size_t capacity() const { return all_.size(); }
  std::size_t acquired_total() const { return acquired_total_; }
  // Raises an SC_REPORT_ERROR naming the pool when payloads are still out.
  void check_all_returned() const;
  void free(tlm::tlm_generic_payload* gp) override;

 protected:
  tlm::tlm_generic_payload* take();
  // A new payload with this pool as its memory manager and its extension attached, in
  // slot `slot` (the payloads made before it: 0, 1, ...).
  virtual std::unique_ptr<tlm::tlm_generic_payload> create(std::uint32_t slot) = 0;

 private:
  std::string name_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
  std::size_t outstanding_ = 0;
  std::size_t acquired_total_ = 0;
};

// Payloads carrying an extension Ext (which must have a `cmd` member with reset()).
template <typename Ext>
class PayloadPool : public PayloadPoolBase {
 public:
  using PayloadPoolBase::PayloadPoolBase;
  // A payload with reference count 1 and a reset command; release() it when done.
  tlm::tlm_generic_payload* acquire() {
    tlm::tlm_generic_payload* gp = take();
    static_cast<PooledPayload<Ext>*>(gp)->ext().cmd.reset();
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    gp->acquire();
    return gp;
  }
  // The slot of one of this pool's payloads (PooledPayload::slot): < capacity().
  static std::uint32_t slot_of(const tlm::tlm_generic_payload& gp) {
    return static_cast<const PooledPayload<Ext>&>(gp).slot();
  }

 protected:
  std::unique_ptr<tlm::tlm_generic_payload> create(std::uint32_t slot) override {
    return std::make_unique<PooledPayload<Ext>>(this, slot);
  }
};

using FlashPayloadPool = PayloadPool<FlashExtension>;

}  // namespace ssd

#include "tlm/host_protocol.h"
namespace ssd {
using HostPayloadPool = PayloadPool<HostExtension>;
}  // namespace ssd
