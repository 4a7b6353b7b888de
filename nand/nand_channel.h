// SystemC module of one NAND channel: a TLM-2.0 AT target (flash protocol) in
// front of a ChannelEngine. One SC_METHOD and one event: the method runs only
// when a command arrives or an internal phase ends (bus segment, array time).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm_utils/peq_with_get.h>

#include "nand/channel_engine.h"
#include "nand/nand_tracer.h"
#include "tlm/flash_protocol.h"

namespace ssd::nand {

class NandChannel : public sc_core::sc_module {
 public:
  FlashTargetSocket<NandChannel> socket;

  NandChannel(sc_core::sc_module_name name, const NandConfig& cfg, unsigned channel,
              ChipActivity* activity = nullptr, VcdWriter* vcd = nullptr);

  // Read-only status for schedulers (queue lengths, die/chip/bus state) and stats.
  const ChannelEngine& status() const { return engine_; }
  // Brings the engine's state up to the current time (a skipped command-phase end),
  // so that status() is exact; a scheduler calls it before sampling.
  void sync() { engine_.catch_up(sc_core::sc_time_stamp().value()); }
  // Page-state backdoor (preconditioning); not for use while commands are in flight.
  ChannelEngine& engine() { return engine_; }
  // Called whenever the channel's state changed (a command started or ended a phase,
  // the bus freed), with the channel's index: a scheduler block re-samples its inputs.
  // A plain callback, not an event: it costs no process activation.
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void channel_changed(unsigned channel) = 0;
  };
  void set_listener(Listener* l) { listener_ = l; }

  // SC_REPORT message type of protocol errors (an illegal command reached the NAND).
  static constexpr const char* kProtocolError = "/ssd/nand/protocol";

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void wake();
  void accept(tlm::tlm_generic_payload& gp);
  void send_responses();
  void schedule(Tick now);  // wake at the engine's next event
  void wake_now();          // wake in the next delta
  void collect();  // done_ -> responses_ (with status; protocol errors reported)

  ChannelEngine engine_;
  std::unique_ptr<NandTracer> tracer_;
  sc_core::sc_event wake_now_, wake_at_;
  Tick armed_ = kNever;  // time of wake_at_'s pending notification (if > now)
  Listener* listener_ = nullptr;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> delayed_;  // BEGIN_REQ with a delay
  std::vector<FlashCommand*> done_;
  std::deque<tlm::tlm_generic_payload*> responses_;
  bool awaiting_end_resp_ = false;
};

}  // namespace ssd::nand
