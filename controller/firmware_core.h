// The firmware core as a SystemC module: the FTL's units (controller/firmware.h, plain
// C++) running on a modelled embedded core, adapted to the model's sockets and events.
// Host commands arrive in order from the host interface; each costs
// firmware.cycles_per_command plus firmware.cycles_per_page per page on the core (a
// single core: work queues for it), and is processed when that work is done. Flash
// commands go to the scheduler block, and their ends come back, through the flash socket.
// What the module does itself: the sockets (and the base protocol's exclusion rules on
// them), the events (host work done, commands released for a later time, the instant's
// batches, reads being decoded), the time, and the core's busy waveform.
#pragma once

#include <string>

#include <systemc>
#include <tlm_utils/peq_with_get.h>

#include "common/vcd_writer.h"
#include "controller/firmware.h"
#include "tlm/flash_protocol.h"
#include "tlm/host_protocol.h"
#include "tlm/outbox.h"

namespace ssd::ctrl {

class FirmwareCore : public sc_core::sc_module, private FirmwarePorts {
 public:
  HostTargetSocket<FirmwareCore> host;       // from the host interface
  FlashInitiatorSocket<FirmwareCore> flash;  // to the flash scheduler block

  // `allocator` (ftl.write_policy) and `release` (controller.firmware_sched): built by the
  // factories of controller/policies.h (null: static placement, in-order release).
  FirmwareCore(sc_core::sc_module_name name, const FtlConfig& ftl, const FirmwareConfig& fw,
               std::unique_ptr<WriteAllocator> allocator = nullptr, std::unique_ptr<FirmwareScheduler> release = nullptr);

  Firmware& firmware() { return fw_; }
  const Firmware& firmware() const { return fw_; }
  // What the statistics read (the units' own figures: Firmware).
  Ftl& ftl() { return fw_.ftl(); }
  const Ftl& ftl() const { return fw_.ftl(); }
  const FirmwareCounters& counters() const { return fw_.counters(); }
  const FaultCounters& fault_counters() const { return fw_.fault_counters(); }
  const PlacementCounters& placement() const { return fw_.placement(); }
  const WriteGroupCounters* write_groups() const { return fw_.write_groups(); }
  const FirmwareConfig& config() const { return fw_.config(); }
  const FirmwareScheduler& firmware_scheduler() const { return fw_.release_policy(); }
  bool batching() const { return fw_.batching(); }
  bool read_only() const { return fw_.read_only().on(); }
  const WritePath& write_buffer() const { return fw_.write_buffer(); }
  const WriteCache& write_cache() const { return fw_.writes().cache(); }
  Tick read_only_at() const { return fw_.read_only().at(); }
  const std::string& read_only_reason() const { return fw_.read_only().reason(); }
  Tick core_busy(Tick now) const { return fw_.core_busy(now); }
  std::uint64_t sectors_per_page() const { return fw_.sectors_per_page(); }
  const FlashPayloadPool& pool() const { return fw_.commands().pool(); }
  void end_of_workload() { fw_.end_of_workload(); }
  std::uint64_t resume_gc(std::uint64_t seed, FlashBackdoor& nand) { return fw_.resume_gc(seed, nand); }
  void set_listener(FirmwareListener* l) { fw_.set_listener(l); }
  void set_life_listener(LifeListener* l) { fw_.set_life_listener(l); }
  // Waveforms (trace.vcd) under `scope`: controller/firmware_trace.h.
  void trace(VcdWriter& vcd, const std::string& scope);

 private:
  tlm::tlm_sync_enum host_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum flash_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void settle_work();
  void on_work();
  void on_decoded();
  void start();
  void core_idle();
  // FirmwarePorts
  void send(FwCommand& c) override;
  void wake_at(FwCommand& c, Tick at) override;
  void settle_soon() override;
  void alarm_at(Tick at) override;
  void complete(HostWork& w) override;
  void error(const std::string& what) override;
  void warning(const std::string& what) override;

  Firmware fw_;
  std::uint32_t work_backlog_ = 0;  // host commands waiting in work_ (keeps arrival order)
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> work_;       // host commands, core work done
  sc_core::sc_event work_settled_;                               // work_'s and flash_out_'s items, a delta later
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> flash_out_;  // flash commands released for later
  sc_core::sc_event alarm_;                                      // write groups due (HoldingStage::alarm)
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> decode_;     // reads being decoded (ECC on)
  bool in_work_ = false;  // on_work runs: it settles the instant's batches at its end
  sc_core::sc_event idle_event_;  // tracing: the core's reserved work ends
  RequestOutbox<FlashInitiatorSocket<FirmwareCore>> to_block_;  // BEGIN_REQ, one until END_REQ
  ResponseOutbox<HostTargetSocket<FirmwareCore>> to_host_;      // BEGIN_RESP, one until END_RESP
};

}  // namespace ssd::ctrl
