// The host interface: a TLM-2.0 AT target, SATA-NCQ-like. At most ncq_depth
// commands are outstanding (one tag each); while all tags are in use, END_REQ is
// withheld (TLM_ACCEPTED) and sent when a tag frees: back-pressure, nothing dropped.
// Commands go to the firmware in arrival order, a write once its data has crossed
// the host link; a read's data crosses the link before its completion reaches the
// host. The link (host.link_mb_s, 0 = unlimited) carries one transfer at a time.
#pragma once

#include <deque>
#include <vector>

#include <systemc>
#include <tlm_utils/peq_with_get.h>

#include "common/params.h"
#include "controller/host_front.h"
#include "controller/timeline.h"
#include "common/vcd_writer.h"
#include "tlm/host_protocol.h"
#include "tlm/outbox.h"
#include "tlm/request_life.h"
#include "tlm/sim_now.h"

namespace ssd::ctrl {

// The host interface's parameters: its NCQ and the host link (host_iface.cpp declares the keys).
struct HostIfaceConfig {
  unsigned ncq_depth = 32;  // NCQ tags (32 = SATA)
  double link_mb_s = 0;     // host link bandwidth, MB/s; 0: unlimited
  static const param::Table<HostIfaceConfig>& keys();
};

class HostIface : public sc_core::sc_module, public HostFront {
 public:
  HostTargetSocket<HostIface> host;      // from the host
  HostInitiatorSocket<HostIface> firmware;  // to the firmware core

  HostIface(sc_core::sc_module_name name, unsigned ncq_depth, double link_mb_s);

  unsigned tags_in_use() const override { return tags_.in_use(); }
  unsigned max_tags_in_use() const override { return tags_.max(); }
  unsigned depth() const override { return depth_; }
  // Tags in use integrated over time up to `at`, tag-picoseconds (TagCount::ticks): the
  // requests the device held; over a window, divided by its length, the mean number held.
  double tag_ticks(Tick at) const override { return tags_.ticks(at); }
  std::uint64_t backpressure_events() const override { return backpressure_; }
  // Link busy time up to `now` (transfers reserved past it not counted).
  Tick link_busy(Tick now) const override { return link_.busy(now); }
  // Waveforms (trace.vcd) under `scope`: NCQ tags in use, back-pressure (a command held
  // while every tag is in use), and commands waiting for the firmware (a write's data
  // still on the link, or one before it).
  void trace(VcdWriter& vcd, const std::string& scope) override;
  // Told where each request is (null: none). A request is at the firmware once it is
  // forwarded, and at the host interface again while its completion crosses the link.
  void set_life_listener(LifeListener* l) override { life_ = l; }

 private:
  tlm::tlm_sync_enum host_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum fw_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void accept(tlm::tlm_generic_payload& gp);
  void on_event();
  Tick link(std::uint64_t bytes);

  unsigned depth_;
  double ps_per_byte_;  // 0: unlimited
  TagCount tags_;  // tags in use
  std::vector<std::uint16_t> free_tags_;
  tlm::tlm_generic_payload* waiting_ = nullptr;  // BEGIN_REQ held back while tags are full
  // The base protocol's exclusion rules toward the firmware (one BEGIN_REQ until its
  // END_REQ) and the host (one BEGIN_RESP until its END_RESP).
  RequestOutbox<HostInitiatorSocket<HostIface>> to_firmware_{firmware, "host interface, to the firmware"};
  ResponseOutbox<HostTargetSocket<HostIface>> to_host_out_{host, "host interface, to the host"};
  struct Inbound {
    tlm::tlm_generic_payload* gp;
    Tick ready;
  };
  std::deque<Inbound> inbound_;  // to the firmware, in arrival order
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> to_host_;  // completions delayed by the link
  std::vector<tlm::tlm_generic_payload*> complete_now_;        // completions deferred by one delta
  std::vector<tlm::tlm_generic_payload*> delivering_;          // on_event()'s: those it delivers
  sc_core::sc_event complete_event_;
  // Inside a host command's BEGIN_REQ call (or an END_REQ given as if in one): the host
  // has not seen that END_REQ yet, so a completion the firmware sends meanwhile (the
  // chain runs re-entrantly, docs/performance.md) waits one delta cycle.
  bool in_host_fw_ = false;
  void deliver(tlm::tlm_generic_payload& gp);
  sc_core::sc_event inbound_event_;
  Timeline link_;  // the host link: one transfer at a time
  std::uint64_t backpressure_ = 0;
  void forward(tlm::tlm_generic_payload& gp);  // to the firmware
  void trace_state();
  VcdWriter* vcd_ = nullptr;
  int tv_tags_ = VcdWriter::kNoVar, tv_held_ = VcdWriter::kNoVar, tv_inbound_ = VcdWriter::kNoVar;
  LifeListener* life_ = nullptr;
};

}  // namespace ssd::ctrl
