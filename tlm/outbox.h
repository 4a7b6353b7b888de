// The base protocol's exclusion rules, for the side that sends (IEEE 1666-2011, 15.2.6):
// after a BEGIN_REQ, no other BEGIN_REQ on that socket until its END_REQ (request
// exclusion); after a BEGIN_RESP, no other BEGIN_RESP until its END_RESP (response
// exclusion). A module sends its BEGIN_REQs (or BEGIN_RESPs) on a socket through an
// Outbox: one the other side takes at once (TLM_UPDATED with END_REQ; TLM_COMPLETED or
// TLM_UPDATED with END_RESP for a response) leaves the way open; one it answers
// TLM_ACCEPTED closes it until the module hears the END_REQ (END_RESP) and calls
// ended(); what it sends meanwhile is kept, in order, and sent then. Any other answer is
// a broken protocol on the other side: an error naming the hop, never ignored.
#pragma once

#include <deque>
#include <string>

#include <systemc>
#include <tlm>

namespace ssd {

inline constexpr const char* kExclusionError = "/ssd/tlm/exclusion";

// Socket: an initiator socket (Forward: BEGIN_REQ through nb_transport_fw) or a target
// socket (!Forward: BEGIN_RESP through nb_transport_bw).
template <typename Socket, bool Forward>
class Outbox {
 public:
  Outbox(Socket& socket, const char* hop) : socket_(socket), hop_(hop) {}
  void send(tlm::tlm_generic_payload& gp) {
    if (waiting_) held_.push_back(&gp);
    else post(gp);
  }
  // The END_REQ (END_RESP) of the transaction it waited for arrived.
  void ended() {
    waiting_ = false;
    while (!waiting_ && !held_.empty()) {
      tlm::tlm_generic_payload* gp = held_.front();
      held_.pop_front();
      post(*gp);
    }
  }
  bool waiting() const { return waiting_; }
  std::size_t held() const { return held_.size(); }

 private:
  void post(tlm::tlm_generic_payload& gp) {
    tlm::tlm_phase ph = Forward ? tlm::BEGIN_REQ : tlm::BEGIN_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    tlm::tlm_sync_enum r;
    if constexpr (Forward) r = socket_->nb_transport_fw(gp, ph, d);
    else r = socket_->nb_transport_bw(gp, ph, d);
    if (r == tlm::TLM_ACCEPTED) {
      waiting_ = true;
      return;
    }
    const tlm::tlm_phase done = Forward ? tlm::END_REQ : tlm::END_RESP;
    if ((r == tlm::TLM_UPDATED && ph == done) || (!Forward && r == tlm::TLM_COMPLETED)) return;
    std::string what = std::string(hop_) + ": " + (Forward ? "BEGIN_REQ" : "BEGIN_RESP") + " answered ";
    what += r == tlm::TLM_COMPLETED ? "TLM_COMPLETED" : "TLM_UPDATED with another phase";
    what += Forward ? " (the request must be taken, END_REQ, and answered later)" : " (only END_RESP ends a response)";
    SC_REPORT_ERROR(kExclusionError, what.c_str());
  }

  Socket& socket_;
  const char* hop_;
  bool waiting_ = false;
  std::deque<tlm::tlm_generic_payload*> held_;
};

template <typename Socket>
using RequestOutbox = Outbox<Socket, true>;
template <typename Socket>
using ResponseOutbox = Outbox<Socket, false>;

// A TLM call arrived with an annotated delay: the model's modules take every transaction
// at the time of the call (none of them sends a delay but the scheduler block's decision
// taken ahead, which the channel takes at its time: nand/nand_channel.cpp), so a delay
// elsewhere would be silently dropped: an error naming the hop.
inline void expect_no_delay(const char* hop, const sc_core::sc_time& d) {
  if (d != sc_core::SC_ZERO_TIME)
    SC_REPORT_ERROR(kExclusionError, (std::string(hop) + ": an annotated delay of " + d.to_string() +
                                      " (this hop takes transactions at the time of the call)")
                                         .c_str());
}

}  // namespace ssd
