// SystemC module of one NAND channel: a TLM-2.0 AT target (flash protocol) in
// front of a ChannelEngine. It has no process of its own: it tells its Waker (the
// NandDevice, whose one SC_METHOD runs every channel due at a time, in channel
// order) when it next needs to run: when a command arrives with a delay or an
// internal phase ends (bus segment, array time).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include <systemc>

#include "nand/channel_engine.h"
#include "nand/channel_status.h"
#include "nand/nand_tracer.h"
#include "tlm/flash_protocol.h"
#include "tlm/request_life.h"

namespace ssd::nand {

// Runs channels: request(ch, t) asks for channel ch's run(t) at simulated time t
// (at the current time: in a following delta), replacing its previous request.
class ChannelWaker {
 public:
  virtual ~ChannelWaker() = default;
  virtual void request(unsigned channel, Tick t) = 0;
};

class NandChannel : public sc_core::sc_module {
 public:
  FlashTargetSocket<NandChannel> socket;

  NandChannel(sc_core::sc_module_name name, const NandConfig& cfg, unsigned channel, ChannelWaker& waker,
              ChipActivity* activity = nullptr, VcdWriter* vcd = nullptr, FaultModel* faults = nullptr);
  // Called by the waker at the time it was asked for (or later in the same time).
  void run(Tick now);
  // The power fails at `now`: what is due at `now` happens first, then every command the
  // channel holds, or was given for later, ends unfinished (ChannelEngine::power_cut) with
  // FlashStatus::PowerLoss. Their responses go out at after_cut(), once every channel is
  // cut (an initiator answering one must not reach a channel still powered).
  void power_cut(Tick now);
  void after_cut(Tick now);

  // Read-only state for statistics and traces (counters, die/chip/bus state).
  const ChannelEngine& status() const { return engine_; }
  // What a scheduler samples, as of a time (channel_status.h).
  ChannelStatus scheduler_view() { return ChannelStatus(engine_); }
  // Page-state backdoor (preconditioning); not for use while commands are in flight.
  ChannelEngine& engine() { return engine_; }
  // Called whenever the channel's state changed (a command started or ended a phase,
  // the bus freed), with the channel's index: a scheduler block re-samples its inputs.
  // A plain callback, not an event: it costs no process activation. A listener is the
  // channel's only initiator and sends its commands in time order (so that a command it
  // sends with a delay may be taken early: AcceptAhead).
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void channel_changed(unsigned channel) = 0;
  };
  void set_listener(Listener* l) { listener_ = l; }
  // A helper beside the model, for speed only (accel/block_ahead.h): whether no process of
  // the simulation can run within `delay` from now. A command the listener sent with that
  // delay (a decision taken ahead of its edge) is then taken at once, as at its time:
  // nothing can reach or change the channel before. Without one, such a command waits in
  // the channel for its time; the model sends none without it.
  class AcceptAhead {
   public:
    virtual ~AcceptAhead() = default;
    virtual bool nothing_runs_within(const sc_core::sc_time& delay) const = 0;
  };
  void set_accept_ahead(const AcceptAhead* a) { ahead_ = a; }
  // Told where each command is (bus, array, register, done); null: none. Set before the
  // simulation starts.
  void set_life_listener(LifeListener* l);
  // The scheduler block reads suspend offers (controller.suspend): the engine makes the
  // array starts events, and the waveform gets the suspend variables. Before the
  // simulation starts.
  void enable_suspend() {
    engine_.set_suspend_offers(true);
    if (tracer_) tracer_->declare_suspend();
  }

  // SC_REPORT message type of protocol errors (an illegal command reached the NAND).
  static constexpr const char* kProtocolError = "/ssd/nand/protocol";

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void accept(tlm::tlm_generic_payload& gp, Tick now);  // `now`: the command's time
  void send_responses();
  void schedule(Tick now);  // asks the waker for the next run this channel needs
  void collect();  // done_ -> responses_ (with status; protocol errors reported)

  ChannelEngine engine_;
  std::unique_ptr<NandTracer> tracer_;
  // The engine's observer: the tracer (trace.vcd) and the life listener, either or both.
  class Watch final : public NandObserver {
   public:
    NandTracer* tracer = nullptr;
    LifeListener* life = nullptr;
    void on_bus(Tick t, BusPhase phase, const FlashCommand* c) override;
    void on_array(Tick t, const FlashCommand& c, ArrayState s) override;
    void on_registers(Tick t, unsigned chip, unsigned die, unsigned plane, RegState data, RegState cache) override {
      if (tracer) tracer->on_registers(t, chip, die, plane, data, cache);
    }
    void on_queue(Tick t, unsigned chip, unsigned die, unsigned queued) override {
      if (tracer) tracer->on_queue(t, chip, die, queued);
    }
    void on_suspend(Tick t, const FlashCommand& op, SuspendPhase s) override {
      if (tracer) tracer->on_suspend(t, op, s);
    }

   private:
    const FlashCommand* bus_ = nullptr;  // the command on the bus
  } watch_;
  ChannelWaker& waker_;
  Listener* listener_ = nullptr;
  const AcceptAhead* ahead_ = nullptr;
  std::multimap<Tick, tlm::tlm_generic_payload*> delayed_;  // BEGIN_REQ with a delay, by arrival
  std::vector<ChannelEngine::Completed> done_;
  std::deque<tlm::tlm_generic_payload*> responses_;
  bool awaiting_end_resp_ = false;
};

}  // namespace ssd::nand
