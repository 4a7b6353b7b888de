#include "nand/nand_channel.h"

#include <algorithm>

#include "tlm/outbox.h"
#include "tlm/sim_now.h"

namespace ssd::nand {

using namespace sc_core;

NandChannel::NandChannel(sc_module_name name, const NandConfig& cfg, unsigned channel, ChannelWaker& waker,
                         ChipActivity* activity, VcdWriter* vcd, FaultModel* faults)
    : sc_module(name), socket("socket"), engine_(cfg, channel, activity, faults), waker_(waker) {
  // The engine counts picoseconds; SystemC's time values must be picoseconds too.
  sc_assert(sc_get_time_resolution() == sc_time(1, SC_PS));
  if (vcd) {
    tracer_ = std::make_unique<NandTracer>(*vcd, std::string(this->name()), cfg);
    watch_.tracer = tracer_.get();
    engine_.set_observer(&watch_);
  }
  socket.register_nb_transport_fw(this, &NandChannel::nb_transport_fw);
}

void NandChannel::set_life_listener(LifeListener* l) {
  watch_.life = l;
  engine_.set_observer(watch_.tracer || watch_.life ? &watch_ : nullptr);
}

void NandChannel::Watch::on_bus(Tick t, BusPhase phase, const FlashCommand* c) {
  if (tracer) tracer->on_bus(t, phase, c);
  if (!life) return;
  // Every command's stages: the listener follows those that serve the requests it
  // watches (their own, or pages a command carries for others).
  if (c) {
    life->command_at(t, *c, Stage::Bus);
  } else if (bus_) {
    // Off the bus: a read's data is out (done); a program's data waits in the cache
    // register for the array (its array start, at this time, comes next otherwise).
    const bool out = bus_->op == FlashOp::Read && bus_->t_array_end != 0 && bus_->t_array_end <= t;
    life->command_at(t, *bus_, out ? Stage::Done : Stage::Register);
  }
  bus_ = c;
}

void NandChannel::Watch::on_array(Tick t, const FlashCommand& c, ArrayState s) {
  if (tracer) tracer->on_array(t, c, s);
  if (!life) return;
  if (s != ArrayState::Idle) life->command_at(t, c, Stage::Array);
  else life->command_at(t, c, c.op == FlashOp::Read ? Stage::Register : Stage::Done);
}

tlm::tlm_sync_enum NandChannel::nb_transport_fw(tlm::tlm_generic_payload& gp,
                                                tlm::tlm_phase& phase, sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    const Tick now = sim_now();
    if (delay == SC_ZERO_TIME) {
      accept(gp, now);
    } else if (listener_ && ahead_ && delayed_.empty() && ahead_->nothing_runs_within(delay)) {
      // From the scheduler block (the listener: the channel's only initiator, which
      // issues in time order), and no process of the simulation can run before the
      // command's time: nothing can reach or change the channel until then, so taking it
      // now as at its time is what taking it then would do, without a time step for it.
      accept(gp, now + delay.value());
    } else {
      delayed_.emplace(now + delay.value(), &gp);  // after earlier ones of the same time
      schedule(now);
    }
    phase = tlm::END_REQ;
    delay = SC_ZERO_TIME;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) {
    expect_no_delay("NAND channel, from its initiator", delay);
    awaiting_end_resp_ = false;
    if (!responses_.empty()) schedule(sim_now());
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(kProtocolError, "nb_transport_fw: unexpected phase (only BEGIN_REQ and END_RESP)");
  return tlm::TLM_COMPLETED;
}

void NandChannel::accept(tlm::tlm_generic_payload& gp, Tick now) {
  FlashCommand& cmd = flash_cmd(gp);
  const bool due = engine_.next_event() <= now;  // something else is due now: let run() do it
  engine_.submit(&cmd, now, &gp);
  if (due || !cmd.error.empty()) {  // a rejected command completes in run(), not here
    schedule(now);
    return;
  }
  // Nothing else is due at this time, so advancing now can only start the new command
  // (every phase lasts > 0), or refuse it with a protocol error: its response then goes
  // out from run(), never from inside this call.
  done_.clear();
  engine_.advance(now, done_);
  if (listener_) listener_->channel_changed(engine_.channel());
  collect();  // any responses go out from run()
  schedule(now);
}

void NandChannel::collect() {
  for (const ChannelEngine::Completed& d : done_) {
    const FlashCommand* c = d.cmd;
    auto* gp = static_cast<tlm::tlm_generic_payload*>(d.owner);
    if (c->status != FlashStatus::ProtocolError) {  // Ok, or a failure the NAND reports (its status)
      gp->set_response_status(tlm::TLM_OK_RESPONSE);
    } else {
      gp->set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      SC_REPORT_ERROR(kProtocolError, c->error.c_str());
    }
    responses_.push_back(gp);
  }
  done_.clear();
}

// Everything the channel may need to run for: responses to send, the engine's next
// event, the next delayed command. (One request replaces the previous one, so it
// always names the earliest of them.)
void NandChannel::schedule(Tick now) {
  Tick next = engine_.next_event();
  if (!delayed_.empty()) next = std::min(next, delayed_.begin()->first);
  if (!responses_.empty() && !awaiting_end_resp_) next = now;
  waker_.request(engine_.channel(), next <= now ? now : next);
}

void NandChannel::run(Tick now) {
  while (!delayed_.empty() && delayed_.begin()->first <= now) {
    tlm::tlm_generic_payload* gp = delayed_.begin()->second;
    delayed_.erase(delayed_.begin());
    accept(*gp, now);
  }
  if (engine_.next_event() <= now) {
    done_.clear();
    engine_.advance(now, done_);
    collect();
  }
  send_responses();
  if (listener_) listener_->channel_changed(engine_.channel());
  schedule(now);
}

void NandChannel::power_cut(Tick now) {
  while (!delayed_.empty() && delayed_.begin()->first <= now) {
    tlm::tlm_generic_payload* gp = delayed_.begin()->second;
    delayed_.erase(delayed_.begin());
    accept(*gp, now);
  }
  done_.clear();
  if (engine_.next_event() <= now) engine_.advance(now, done_);
  engine_.power_cut(now, done_);
  for (const auto& [t, gp] : delayed_) {  // given for a time past the cut: never reached the NAND
    FlashCommand& c = flash_cmd(*gp);
    c.status = FlashStatus::PowerLoss;
    c.t_done = now;
    done_.push_back({&c, gp});
  }
  delayed_.clear();
  collect();
}

void NandChannel::after_cut(Tick now) {
  send_responses();
  if (listener_) listener_->channel_changed(engine_.channel());
  schedule(now);
}

void NandChannel::send_responses() {
  // Base protocol response exclusion: one BEGIN_RESP at a time until END_RESP.
  while (!awaiting_end_resp_ && !responses_.empty()) {
    tlm::tlm_generic_payload* gp = responses_.front();
    responses_.pop_front();
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_time delay = SC_ZERO_TIME;
    const tlm::tlm_sync_enum r = socket->nb_transport_bw(*gp, phase, delay);
    if (r == tlm::TLM_ACCEPTED) awaiting_end_resp_ = true;  // its END_RESP comes later
    else if (r == tlm::TLM_UPDATED && phase != tlm::END_RESP)  // only END_RESP ends a response
      SC_REPORT_ERROR(kExclusionError, "NAND channel, to its initiator: BEGIN_RESP answered TLM_UPDATED with another "
                                       "phase (only END_RESP ends a response)");
  }
}

}  // namespace ssd::nand
