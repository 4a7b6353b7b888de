#include "controller/host_iface.h"

#include "common/activations.h"
#include "tlm/illegal_phase.h"
#include "tlm/sim_now.h"

#include <cmath>

namespace ssd::ctrl {

using namespace sc_core;

HostIface::HostIface(sc_module_name name, unsigned ncq_depth, double link_mb_s)
    : sc_module(name), host("host"), firmware("firmware"), depth_(ncq_depth), to_host_("to_host") {
  ps_per_byte_ = link_mb_s > 0 ? 1e6 / link_mb_s : 0.0;  // MB = 10^6 bytes
  for (unsigned t = ncq_depth; t-- > 0;) free_tags_.push_back(static_cast<std::uint16_t>(t));
  host.register_nb_transport_fw(this, &HostIface::host_fw);
  firmware.register_nb_transport_bw(this, &HostIface::fw_bw);
  SC_HAS_PROCESS(HostIface);
  SC_METHOD(on_event);
  sensitive << inbound_event_ << to_host_.get_event() << complete_event_;
  dont_initialize();
}

void HostIface::trace(VcdWriter& vcd, const std::string& scope) {
  vcd_ = &vcd;
  tv_tags_ = vcd.declare(scope + ".tags", 16);
  tv_held_ = vcd.declare(scope + ".backpressure", 1);
  tv_inbound_ = vcd.declare(scope + ".inbound", 16);
}

void HostIface::trace_state() {
  if (!vcd_) return;
  const Tick now = sim_now();
  vcd_->change(tv_tags_, now, tags_.in_use());
  vcd_->change(tv_held_, now, waiting_ != nullptr);
  vcd_->change(tv_inbound_, now, inbound_.size());
}

void HostIface::forward(tlm::tlm_generic_payload& gp) {
  host_cmd(gp).t_fw_in = sim_now();
  if (life_) life_->request_at(sim_now(), host_cmd(gp).id, Stage::Firmware);
  to_firmware_.send(gp);
}

Tick HostIface::link(std::uint64_t bytes) {
  const Tick now = sim_now();
  if (ps_per_byte_ == 0.0 || bytes == 0) return now;
  return link_.reserve(now, static_cast<Tick>(std::llround(static_cast<double>(bytes) * ps_per_byte_)));
}

void HostIface::accept(tlm::tlm_generic_payload& gp) {
  HostCommand& c = host_cmd(gp);
  c.tag = free_tags_.back();
  free_tags_.pop_back();
  tags_.change(+1);
  const Tick now = sim_now();
  c.t_tag = now;
  const Tick ready = c.op == HostOp::Write ? link(std::uint64_t{c.sectors} * 512) : now;
  if (ready == now && inbound_.empty()) {  // nothing to wait for: straight to the firmware
    trace_state();
    forward(gp);
    return;
  }
  inbound_.push_back({&gp, ready});
  trace_state();
  const Tick first = inbound_.front().ready;
  inbound_event_.notify(sc_delay(first > now ? first - now : 0));
}

tlm::tlm_sync_enum HostIface::host_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("host interface, from the host", d);
  if (ph == tlm::BEGIN_REQ) {
    if (tags_.in_use() == depth_) {  // all tags in use: hold END_REQ back
      waiting_ = &gp;
      ++backpressure_;
      trace_state();
      return tlm::TLM_ACCEPTED;
    }
    in_host_fw_ = true;
    accept(gp);
    in_host_fw_ = false;
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (ph == tlm::END_RESP) to_host_out_.ended();
  else illegal_phase("host interface, from the host", ph);
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum HostIface::fw_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("host interface, from the firmware", d);
  if (ph == tlm::END_REQ) {
    to_firmware_.ended();
    return tlm::TLM_ACCEPTED;
  }
  if (ph != tlm::BEGIN_RESP) {
    illegal_phase("host interface, from the firmware", ph);
    return tlm::TLM_COMPLETED;
  }
  HostCommand& c = host_cmd(gp);
  const Tick now = sim_now();
  c.t_fw_done = now;
  if (life_) life_->request_at(now, c.id, Stage::HostIface);
  const Tick at = c.op == HostOp::Read ? link(std::uint64_t{c.sectors} * 512) : now;
  if (at != now) {
    to_host_.notify(gp, sc_delay(at - now));
  } else if (in_host_fw_) {
    // Completed inside the host's own BEGIN_REQ call: the host has not seen END_REQ yet,
    // so the response waits one delta.
    complete_now_.push_back(&gp);
    complete_event_.notify(SC_ZERO_TIME);
  } else {
    deliver(gp);
  }
  return tlm::TLM_COMPLETED;
}

void HostIface::deliver(tlm::tlm_generic_payload& gp) {
  HostCommand& c = host_cmd(gp);
  free_tags_.push_back(c.tag);
  tags_.change(-1);
  c.t_done = sim_now();
  trace_state();
  to_host_out_.send(gp);
  if (waiting_ && tags_.in_use() < depth_) {
    tlm::tlm_generic_payload* w = waiting_;
    waiting_ = nullptr;
    in_host_fw_ = true;  // as if in the host's call: its END_REQ comes first
    accept(*w);
    in_host_fw_ = false;
    tlm::tlm_phase endreq = tlm::END_REQ;
    sc_time d2 = SC_ZERO_TIME;
    if (host->nb_transport_bw(*w, endreq, d2) != tlm::TLM_ACCEPTED)  // the base protocol's only answer to END_REQ
      SC_REPORT_ERROR(kExclusionError, "host interface, to the host: END_REQ answered other than TLM_ACCEPTED");
  }
}

void HostIface::on_event() {
  count_activation(kActHostIface);
  const Tick now = sim_now();
  // Completions: the response goes to the host and the tag frees.
  // (Through a list of its own: a delivery may defer another completion to the next
  // delta. Both lists keep their memory.)
  delivering_.swap(complete_now_);
  for (tlm::tlm_generic_payload* gp : delivering_) deliver(*gp);
  delivering_.clear();
  while (tlm::tlm_generic_payload* gp = to_host_.get_next_transaction()) deliver(*gp);
  // Arrivals: forward in order those whose data is in.
  while (!inbound_.empty() && inbound_.front().ready <= now) {
    tlm::tlm_generic_payload* gp = inbound_.front().gp;
    inbound_.pop_front();
    trace_state();
    forward(*gp);
  }
  if (!inbound_.empty()) inbound_event_.notify(sc_delay(inbound_.front().ready - now));
}

const param::Table<HostIfaceConfig>& HostIfaceConfig::keys() {
  static const param::Table<HostIfaceConfig> t = [] {
    param::Table<HostIfaceConfig> k;
    k.integer("controller.ncq_depth", &HostIfaceConfig::ncq_depth, 1, 65535,
              "NCQ tags: commands outstanding in the device (32 = SATA)").unit("commands")
        .number("host.link_mb_s", &HostIfaceConfig::link_mb_s, 0, 1e6, "host link bandwidth, MB/s (0: unlimited)")
        .unit("MB/s");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
