#include "controller/firmware_core.h"

#include "common/activations.h"
#include "tlm/illegal_phase.h"
#include "tlm/sim_now.h"

namespace ssd::ctrl {

using namespace sc_core;

namespace {
constexpr const char* kFirmware = "/ssd/controller/firmware";
constexpr const char* kFromHost = "firmware, from the host interface";
constexpr const char* kFromBlock = "firmware, from the scheduler block";
}  // namespace

FirmwareCore::FirmwareCore(sc_module_name name, const FtlConfig& ftl, const FirmwareConfig& fw,
                           std::unique_ptr<WriteAllocator> allocator, std::unique_ptr<FirmwareScheduler> release)
    : sc_module(name),
      host("host"),
      flash("flash"),
      fw_(ftl, fw, std::move(allocator), std::move(release), *this),
      work_("work"),
      flash_out_("flash_out"),
      decode_("decode"),
      to_block_(flash, "firmware, to the scheduler block"),
      to_host_(host, "firmware, to the host interface") {
  host.register_nb_transport_fw(this, &FirmwareCore::host_fw);
  flash.register_nb_transport_bw(this, &FirmwareCore::flash_bw);
  SC_HAS_PROCESS(FirmwareCore);
  SC_METHOD(on_work);
  sensitive << work_settled_;
  dont_initialize();
  SC_METHOD(settle_work);
  sensitive << work_.get_event() << flash_out_.get_event() << alarm_;
  dont_initialize();
  SC_METHOD(on_decoded);
  sensitive << decode_.get_event();
  dont_initialize();
  SC_METHOD(start);  // no sensitivity: runs once, at initialization
  SC_METHOD(core_idle);
  sensitive << idle_event_;
  dont_initialize();
}

void FirmwareCore::trace(VcdWriter& vcd, const std::string& scope) {
  fw_.trace().attach(vcd, scope, [this](Tick t) { idle_event_.notify(sc_delay(t - sim_now())); });
}

void FirmwareCore::core_idle() { fw_.trace().core_idle(sim_now()); }

void FirmwareCore::start() {
  fw_.set_time(sim_now());
  fw_.start();
}

tlm::tlm_sync_enum FirmwareCore::host_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay(kFromHost, d);
  if (ph != tlm::BEGIN_REQ) {
    if (ph == tlm::END_RESP) to_host_.ended();
    else illegal_phase(kFromHost, ph);
    return tlm::TLM_COMPLETED;
  }
  HostCommand& c = host_cmd(gp);
  const Tick now = sim_now();
  fw_.set_time(now);
  const Tick done = fw_.arrived(c);
  if (done == now && !work_backlog_) {
    fw_.process(c, &gp);  // the core is free and the work takes no time
  } else {
    ++work_backlog_;
    work_.notify(gp, sc_delay(done - now));
    fw_.trace().work_queue(work_backlog_, now);
  }
  ph = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

// Core work that ends at time t (a host command's, or a release for t) is taken one
// delta cycle after t's timed events: a flash completion at t (delivered in those events'
// delta) is always handled first. In the same delta the kernel may run the two in either
// order (the accel/ hooks change it), and the commands each builds would take their ids
// and pages in a different order.
void FirmwareCore::settle_work() { work_settled_.notify(SC_ZERO_TIME); }

void FirmwareCore::on_work() {
  count_activation(kActFirmware);
  const Tick now = sim_now();
  fw_.set_time(now);
  in_work_ = true;
  while (tlm::tlm_generic_payload* gp = work_.get_next_transaction()) {
    --work_backlog_;
    fw_.trace().work_queue(work_backlog_, now);
    fw_.process(host_cmd(*gp), gp);
  }
  // Commands released for now: a program takes its page when it leaves for the block,
  // not when it was released (one released later for an earlier time must not pass it
  // with a later page).
  while (tlm::tlm_generic_payload* gp = flash_out_.get_next_transaction()) fw_.time_came(fw_.commands().of(*gp));
  fw_.alarm();  // write groups due leave
  in_work_ = false;
  fw_.settle();
}

tlm::tlm_sync_enum FirmwareCore::flash_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay(kFromBlock, d);
  if (ph == tlm::END_REQ) {
    to_block_.ended();
    return tlm::TLM_ACCEPTED;
  }
  if (ph != tlm::BEGIN_RESP) {
    illegal_phase(kFromBlock, ph);
    return tlm::TLM_COMPLETED;
  }
  FwCommand* issued = fw_.commands().issued(gp);
  if (!issued) {
    error("a completion of a command it did not issue: " + flash_cmd(gp).describe());
    return tlm::TLM_COMPLETED;
  }
  FwCommand& c = *issued;
  fw_.set_time(sim_now());
  if (fw_.decodes(c)) {  // the controller's decoder takes the data as it comes out: handled once decoded
    decode_.notify(gp, sc_delay(c.ecc_ticks));
    return tlm::TLM_COMPLETED;
  }
  fw_.completed(c);
  return tlm::TLM_COMPLETED;
}

void FirmwareCore::on_decoded() {
  fw_.set_time(sim_now());
  while (tlm::tlm_generic_payload* gp = decode_.get_next_transaction()) fw_.completed(fw_.commands().of(*gp));
}

void FirmwareCore::send(FwCommand& c) { to_block_.send(*static_cast<tlm::tlm_generic_payload*>(c.payload)); }

void FirmwareCore::wake_at(FwCommand& c, Tick at) {
  flash_out_.notify(*static_cast<tlm::tlm_generic_payload*>(c.payload), sc_delay(at - sim_now()));
}

void FirmwareCore::alarm_at(Tick at) { alarm_.notify(sc_delay(at - sim_now())); }

void FirmwareCore::settle_soon() {
  if (!in_work_) work_settled_.notify(SC_ZERO_TIME);  // on_work settles at its end
}

void FirmwareCore::complete(HostWork& w) {
  auto& gp = *static_cast<tlm::tlm_generic_payload*>(w.payload);
  gp.set_response_status(w.response == HostWork::Response::Ok            ? tlm::TLM_OK_RESPONSE
                         : w.response == HostWork::Response::AddressError ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                                         : tlm::TLM_GENERIC_ERROR_RESPONSE);
  to_host_.send(gp);
}

void FirmwareCore::error(const std::string& what) { SC_REPORT_ERROR(kFirmware, what.c_str()); }
void FirmwareCore::warning(const std::string& what) { SC_REPORT_WARNING(kFirmware, what.c_str()); }

}  // namespace ssd::ctrl
