// The host's NVMe driver (host.interface = nvme): between the host driver (host_driver.h,
// which keeps the workload and the figures) and the controller's NVMe front end
// (controller/nvme_front_end.h). It owns the I/O queue pairs in host memory: a command
// from the host driver is written as a submission queue entry into the next queue with
// room (round robin over the queues, from the one after the last written), and the
// queue's tail doorbell is rung. The device reads the entries from host memory when its
// arbitration fetches them, and writes completion entries and an MSI-X interrupt; the
// interrupt routine reaps the completions the interrupt covers (the host driver's
// BEGIN_RESP, one each) and rings the completion queue's head doorbell once.
//
// A queue of nvme.queue_depth entries holds one command fewer; a command stays in its
// queue until its completion is reaped (the entry frees earlier, but the host's tag stays
// taken until then), so a completion queue never overflows. While every queue is full the
// host driver's command waits, END_REQ withheld, as SATA's NCQ back-pressure.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include <systemc>

#include "tlm/host_protocol.h"
#include "tlm/outbox.h"
#include "tlm/pcie_protocol.h"

namespace ssd::host {

class NvmeHost : public sc_core::sc_module {
 public:
  HostTargetSocket<NvmeHost> upper;    // from the host driver
  PcieInitiatorSocket<NvmeHost> mmio;  // doorbell writes to the device
  PcieTargetSocket<NvmeHost> memory;   // host memory as the device reads and writes it

  NvmeHost(sc_core::sc_module_name name, std::uint32_t queues, std::uint32_t queue_depth);
  // workload.streams: stream i writes its commands to queues [first[i], first[i] + count[i])
  // only, and a command that finds them full waits in the stream's own software queue
  // (END_REQ at once: one tenant's full queues hold no other's back, as blk-mq's per-queue
  // tags). Without it every command may go to any queue, and a command that finds every
  // queue full waits with END_REQ withheld.
  void set_stream_queues(std::vector<std::uint32_t> first, std::vector<std::uint32_t> count);
  // Told of each command as the device reads its entry (the order the device takes them in).
  void on_fetched(std::function<void(tlm::tlm_generic_payload&)> f) { on_fetched_ = std::move(f); }

  std::uint64_t full_waits() const { return full_waits_; }  // commands that waited for a queue with room
  std::uint64_t submitted() const { return submitted_; }

 private:
  struct QueuePair {
    std::vector<tlm::tlm_generic_payload*> sq;  // the entries, by slot
    std::uint32_t tail = 0, cq_head = 0;
    std::uint32_t outstanding = 0;  // written, not yet reaped
  };
  tlm::tlm_sync_enum upper_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum memory_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  bool submit(tlm::tlm_generic_payload& gp);  // false: every queue it may use is full
  struct StreamQueues {
    std::uint32_t first = 0, count = 0, cursor = 0;
    std::deque<tlm::tlm_generic_payload*> waiting;  // full: its commands in the host's order
  };
  std::vector<StreamQueues> streams_;  // empty: no streams
  std::vector<std::uint32_t> stream_of_queue_;
  void doorbell(PcieOp op, std::uint32_t queue, std::uint32_t value);

  std::uint32_t depth_;
  std::vector<QueuePair> queues_;
  std::uint32_t cursor_ = 0;  // the queue the next command tries first (no streams)
  tlm::tlm_generic_payload* waiting_ = nullptr;  // the host driver's command, END_REQ withheld
  std::function<void(tlm::tlm_generic_payload&)> on_fetched_;
  ResponseOutbox<HostTargetSocket<NvmeHost>> to_driver_{upper, "NVMe host driver, to the host"};
  PciePayloadPool pool_{"NVMe doorbells"};
  std::uint64_t full_waits_ = 0, submitted_ = 0;
};

}  // namespace ssd::host
