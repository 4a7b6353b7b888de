// The base protocol's exclusion rules as a sender keeps them (tlm/outbox.h), and the
// check that a hop taking transactions at the time of the call gets no delay.
#include <catch2/catch.hpp>

#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/outbox.h"

using namespace sc_core;

namespace {

std::vector<std::string>& reports() {
  static std::vector<std::string> r;
  return r;
}
void capture_reports() {
  sc_report_handler::set_handler([](const sc_report& r, const sc_actions&) {
    if (std::string(r.get_msg_type()) == ssd::kExclusionError) reports().push_back(r.get_msg());
  });
}

// A pair of modules: the initiator sends its requests through a RequestOutbox, the
// target its responses through a ResponseOutbox; each side answers as the test says
// and logs what it received, in order.
struct Initiator : sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  ssd::RequestOutbox<tlm_utils::simple_initiator_socket<Initiator>> out{socket, "test initiator"};
  tlm::tlm_sync_enum resp_answer = tlm::TLM_COMPLETED;  // to BEGIN_RESP
  std::vector<std::string> log;
  explicit Initiator(sc_module_name n) : sc_module(n) { socket.register_nb_transport_bw(this, &Initiator::bw); }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
    if (ph == tlm::END_REQ) {
      log.push_back("END_REQ " + std::to_string(gp.get_address()));
      out.ended();
      return tlm::TLM_ACCEPTED;
    }
    log.push_back("BEGIN_RESP " + std::to_string(gp.get_address()));
    return resp_answer;
  }
};
struct Target : sc_module {
  tlm_utils::simple_target_socket<Target> socket{"socket"};
  ssd::ResponseOutbox<tlm_utils::simple_target_socket<Target>> out{socket, "test target"};
  tlm::tlm_sync_enum req_answer = tlm::TLM_UPDATED;  // to BEGIN_REQ (with END_REQ)
  std::vector<std::string> log;
  explicit Target(sc_module_name n) : sc_module(n) { socket.register_nb_transport_fw(this, &Target::fw); }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    if (ph == tlm::END_RESP) {
      log.push_back("END_RESP " + std::to_string(gp.get_address()));
      out.ended();
      return tlm::TLM_COMPLETED;
    }
    ssd::expect_no_delay("test target", d);
    log.push_back("BEGIN_REQ " + std::to_string(gp.get_address()));
    if (req_answer == tlm::TLM_UPDATED) ph = tlm::END_REQ;
    return req_answer;
  }
  // The END_REQ of a request it answered TLM_ACCEPTED.
  void end_req(tlm::tlm_generic_payload& gp) {
    tlm::tlm_phase ph = tlm::END_REQ;
    sc_time d = SC_ZERO_TIME;
    socket->nb_transport_bw(gp, ph, d);
  }
  void end_resp_from(Initiator& i, tlm::tlm_generic_payload& gp) {
    tlm::tlm_phase ph = tlm::END_RESP;
    sc_time d = SC_ZERO_TIME;
    i.socket->nb_transport_fw(gp, ph, d);
  }
};

struct Pair {
  Initiator i{"i"};
  Target t{"t"};
  tlm::tlm_generic_payload gp[3];
  Pair() {
    i.socket.bind(t.socket);
    for (int k = 0; k < 3; ++k) gp[k].set_address(k);
    sc_start(SC_ZERO_TIME);  // elaborated: the sockets are bound
  }
};

}  // namespace

TEST_CASE("outbox: requests taken at once go straight through", "[tlm][outbox]") {
  Pair p;
  p.i.out.send(p.gp[0]);
  p.i.out.send(p.gp[1]);
  CHECK(p.t.log == std::vector<std::string>{"BEGIN_REQ 0", "BEGIN_REQ 1"});
  CHECK_FALSE(p.i.out.waiting());
  CHECK(p.i.out.held() == 0);
}

TEST_CASE("outbox: a request answered TLM_ACCEPTED holds the next ones until its END_REQ", "[tlm][outbox]") {
  Pair p;
  p.t.req_answer = tlm::TLM_ACCEPTED;
  p.i.out.send(p.gp[0]);
  p.i.out.send(p.gp[1]);
  p.i.out.send(p.gp[2]);
  // Request exclusion: nothing more reaches the target before END_REQ of request 0.
  CHECK(p.t.log == std::vector<std::string>{"BEGIN_REQ 0"});
  CHECK(p.i.out.waiting());
  CHECK(p.i.out.held() == 2);
  // END_REQ of 0: request 1 goes, and is accepted without END_REQ again, so 2 stays held.
  p.t.end_req(p.gp[0]);
  CHECK(p.t.log == std::vector<std::string>{"BEGIN_REQ 0", "BEGIN_REQ 1"});
  CHECK(p.i.out.held() == 1);
  // Now the target takes requests at once: END_REQ of 1 sends 2, which goes through.
  p.t.req_answer = tlm::TLM_UPDATED;
  p.t.end_req(p.gp[1]);
  CHECK(p.t.log == std::vector<std::string>{"BEGIN_REQ 0", "BEGIN_REQ 1", "BEGIN_REQ 2"});
  CHECK_FALSE(p.i.out.waiting());
  CHECK(p.i.out.held() == 0);
  CHECK(p.i.log == std::vector<std::string>{"END_REQ 0", "END_REQ 1"});
}

TEST_CASE("outbox: a response answered TLM_ACCEPTED holds the next ones until its END_RESP", "[tlm][outbox]") {
  Pair p;
  p.i.resp_answer = tlm::TLM_ACCEPTED;
  p.t.out.send(p.gp[0]);
  p.t.out.send(p.gp[1]);
  // Response exclusion: the initiator sees one BEGIN_RESP until it sends END_RESP.
  CHECK(p.i.log == std::vector<std::string>{"BEGIN_RESP 0"});
  CHECK(p.t.out.held() == 1);
  p.i.resp_answer = tlm::TLM_COMPLETED;
  p.t.end_resp_from(p.i, p.gp[0]);
  CHECK(p.i.log == std::vector<std::string>{"BEGIN_RESP 0", "BEGIN_RESP 1"});
  CHECK(p.t.log == std::vector<std::string>{"END_RESP 0"});
  CHECK_FALSE(p.t.out.waiting());
}

TEST_CASE("outbox: an answer the protocol does not allow is reported, naming the hop", "[tlm][outbox]") {
  capture_reports();
  reports().clear();
  Pair p;
  p.t.req_answer = tlm::TLM_COMPLETED;  // a request must be taken (END_REQ), not completed at once
  p.i.out.send(p.gp[0]);
  REQUIRE(reports().size() == 1);
  CHECK(reports()[0] ==
        "test initiator: BEGIN_REQ answered TLM_COMPLETED (the request must be taken, END_REQ, and answered later)");
  p.i.resp_answer = tlm::TLM_UPDATED;  // with BEGIN_RESP still: only END_RESP ends a response
  p.t.out.send(p.gp[1]);
  REQUIRE(reports().size() == 2);
  CHECK(reports()[1] == "test target: BEGIN_RESP answered TLM_UPDATED with another phase (only END_RESP ends a response)");
}

TEST_CASE("outbox: a delay annotated on a hop that takes transactions at the call is reported", "[tlm][outbox]") {
  capture_reports();
  reports().clear();
  Pair p;
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d(10, SC_NS);
  p.i.socket->nb_transport_fw(p.gp[0], ph, d);
  REQUIRE(reports().size() == 1);
  CHECK(reports()[0] == "test target: an annotated delay of 10 ns (this hop takes transactions at the time of the call)");
  ph = tlm::BEGIN_REQ;
  d = SC_ZERO_TIME;
  p.i.socket->nb_transport_fw(p.gp[1], ph, d);
  CHECK(reports().size() == 1);  // none without a delay
}
