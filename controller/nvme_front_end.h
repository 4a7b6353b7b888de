// The controller's NVMe front end: a TLM-2.0 module in place of the SATA host interface
// (host.interface = nvme). It holds the controller's side of every I/O queue pair: the
// doorbells the host rings, the submission queue entries it fetches by arbitration
// (round robin, or weighted round robin with an urgent class and a burst: nvme_arbiter.h),
// the commands' data moved by DMA (PRP lists or SGL segments read first), the completion
// entries it posts and the MSI-X interrupts it sends, gathered by coalescing (count and
// time, interrupt_coalescer.h). It also models the PCIe link (tlm/pcie_link.h): two
// directions, each carrying one TLP stream at a time in the order it is queued.
//
// Commands go to the firmware in the order they were fetched, each once it is whole (a
// write's data in, a trim's range in), as the SATA interface forwards in arrival order. At
// most nvme.command_slots commands are in the controller (fetched, not yet completed):
// arbitration runs while a slot is free and a queue has entries to fetch.
//
// Host memory answers at once; the firmware's work, the link's transfers and the
// interrupt's coalescing are the time a command spends here. The order of one command:
//   SQ doorbell (down) -> read request (up) -> entries (down) -> [list request (up) ->
//   list (down)] -> [write: data read requests (up) -> data (down)] -> firmware ->
//   [read: data (up)] -> completion entry (up) -> [MSI-X (up)] -> host's interrupt routine
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>

#include "common/params.h"
#include "controller/due_queue.h"
#include "controller/host_front.h"
#include "controller/interrupt_coalescer.h"
#include "controller/nvme_arbiter.h"
#include "controller/timeline.h"
#include "tlm/host_protocol.h"
#include "tlm/outbox.h"
#include "tlm/pcie_link.h"
#include "tlm/pcie_protocol.h"

namespace ssd::ctrl {

// The NVMe front end's parameters (nvme_front_end.cpp declares the keys).
struct NvmeConfig {
  std::uint32_t queues = 1;          // I/O queue pairs
  std::uint32_t queue_depth = 1024;  // entries a queue has (it holds one command fewer)
  std::string arbitration = "rr";    // rr | wrr
  std::uint32_t burst = 1;           // arbitration burst: 1, 2, 4 .. 64, or 0 (no limit)
  std::uint32_t weight_high = 1, weight_medium = 1, weight_low = 1;
  // Queue classes under wrr, by queue number: the first urgent_queues are urgent, the next
  // high_queues high, the last low_queues low, the rest medium.
  std::uint32_t urgent_queues = 0, high_queues = 0, low_queues = 0;
  // Each queue's class, when given (workload.streams: each stream's queues in its class;
  // the queues after them medium); else by the three counts above. Not a key.
  std::vector<NvmeArbiter::Priority> queue_classes;
  std::uint32_t fetch_limit = 0;      // commands a queue has in the controller at most (0: no limit)
  std::uint32_t command_slots = 256;  // commands the controller holds at once
  std::string data_pointer = "prp";   // prp | sgl
  std::uint32_t page_bytes = 4096;    // the memory page size a PRP entry points to (CC.MPS)
  std::uint32_t irq_coalesce_count = 0;  // completions an interrupt gathers at most (0, 1: each its own)
  double irq_coalesce_us = 0;            // the longest a completion waits for its interrupt (0: no limit)
  static const param::Table<NvmeConfig>& keys();
  // Each I/O queue's class (nvme_arbiter.h), in queue order.
  std::vector<NvmeArbiter::Priority> classes() const;
};

class NvmeFrontEnd : public sc_core::sc_module, public HostFront {
 public:
  PcieTargetSocket<NvmeFrontEnd> mmio;         // the host's doorbell writes
  PcieInitiatorSocket<NvmeFrontEnd> memory;    // host memory: entries read, interrupts
  HostInitiatorSocket<NvmeFrontEnd> firmware;  // to the firmware core

  // Throws std::invalid_argument for a parameter out of range (the arbiter's, the link's).
  NvmeFrontEnd(sc_core::sc_module_name name, const NvmeConfig& cfg, const PcieConfig& pcie);

  // HostFront: tags are command slots.
  unsigned tags_in_use() const override { return slots_.in_use(); }
  unsigned max_tags_in_use() const override { return slots_.max(); }
  unsigned depth() const override { return cfg_.command_slots; }
  double tag_ticks(Tick at) const override { return slots_.ticks(at); }
  // Times arbitration had entries to fetch but no free slot.
  std::uint64_t backpressure_events() const override { return slot_waits_; }
  Tick link_busy(Tick now) const override { return std::max(up_.busy(now), down_.busy(now)); }
  void trace(VcdWriter& vcd, const std::string& scope) override;
  void set_life_listener(LifeListener* l) override { life_ = l; }

  struct Counters {
    std::uint64_t sq_doorbells = 0, cq_doorbells = 0;
    std::uint64_t grants = 0, fetched = 0;        // arbitration grants, entries fetched
    std::uint64_t fetched_by_class[4] = {};       // urgent, high, medium, low
    std::uint64_t list_reads = 0;                 // PRP lists or SGL segments read
    std::uint64_t range_reads = 0;                // Dataset Management ranges read
    std::uint64_t completions = 0, interrupts = 0;
    std::uint64_t up_bytes = 0, down_bytes = 0, up_tlps = 0, down_tlps = 0;
  };
  const Counters& counters() const { return n_; }
  std::uint64_t fetched_of(std::uint32_t queue) const { return queues_.at(queue).fetched; }
  Tick up_busy(Tick now) const { return up_.busy(now); }
  Tick down_busy(Tick now) const { return down_.busy(now); }
  const PcieLink& link() const { return link_; }
  const NvmeConfig& config() const { return cfg_; }

 private:
  // A step of a command or a queue, due at a time (the link's and the coalescer's).
  enum class Step : std::uint8_t {
    Doorbell,      // a doorbell write arrived (queue, value; index 1: the CQ head)
    SqeRequest,    // the entries' read request reached host memory (tag: the batch's first)
    SqesIn,        // the entries arrived (tag: the batch's first)
    ListRequest,   // a PRP list's or SGL segment's read request reached host memory
    ListIn,        // the list arrived
    DataRequest,   // a write's first data read request reached host memory
    DataIn,        // a write's data arrived
    RangeRequest,  // a trim's range read request reached host memory
    RangeIn,       // the range arrived
    IrqTimer,      // a completion queue's coalescing time is up (queue)
    Interrupt,     // an MSI-X write reached the host (queue, value: completions it covers)
  };
  struct Job {
    Step step;
    std::uint32_t queue, value;
    std::uint16_t tag;
  };
  void schedule(Tick at, Step step, std::uint32_t queue, std::uint32_t value, std::uint16_t tag) {
    jobs_.push(at, Job{step, queue, value, tag}, event_);
  }
  void on_event();
  void run(const Job& j);

  // A command in the controller, by slot (its HostCommand::tag).
  struct Cmd {
    tlm::tlm_generic_payload* gp = nullptr;
    std::uint32_t queue = 0;
    std::uint16_t next = 0;   // the batch's next slot (a fetch's entries are linked)
    bool has_next = false;
    bool ready = false;       // whole: may go to the firmware
    bool list_in = true;      // its PRP list or SGL segment (if it needs one) is in
    bool fw_done = false;     // the firmware answered
  };
  // An I/O queue pair's controller side.
  struct Queue {
    std::uint32_t tail = 0;      // the SQ tail the host last rang
    std::uint32_t head = 0;      // the next entry to fetch
    std::uint32_t in_ctrl = 0;   // its commands fetched and not completed
    std::uint32_t cq_head = 0;   // the CQ head the host last rang
    std::uint64_t fetched = 0;   // its entries fetched
    std::deque<tlm::tlm_generic_payload*> posted;  // completions posted, not yet interrupted
    InterruptCoalescer irq;
    explicit Queue(const InterruptCoalescer& c) : irq(c) {}
  };
  std::uint32_t waiting(const Queue& q) const { return (q.tail + cfg_.queue_depth - q.head) % cfg_.queue_depth; }

  tlm::tlm_sync_enum mmio_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum fw_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void arbitrate();
  // A device read of `bytes` from host memory: its requests queued up; `landed` is due
  // when the first reaches the host.
  // What a transfer on the link is (the waves' value: waves/pcie_tlp.txt).
  enum LinkKind : unsigned { kIdle, kDoorbell, kReadRequest, kEntries, kList, kData, kCompletion, kMsi };
  // A transfer of `link_bytes` (its TLPs' headers and framing included) in `tlps` TLPs,
  // queued on one direction (up: device to host) at now: counted, drawn, its arrival returned.
  Tick transfer(bool up, std::uint64_t link_bytes, std::uint32_t tlps, LinkKind kind, std::uint32_t queue);
  // `bytes` of data in TLPs of at most max_payload.
  Tick send(bool up, std::uint64_t bytes, LinkKind kind, std::uint32_t queue) {
    return transfer(up, link_.link_bytes(bytes), link_.tlps(bytes), kind, queue);
  }
  void read_host(std::uint64_t bytes, Step landed, std::uint32_t queue, std::uint32_t value, std::uint16_t tag);
  // The completion of a read request for `bytes`, queued down; `in` is due when it ends.
  void complete_read(std::uint64_t bytes, Step in, std::uint32_t queue, std::uint16_t tag);
  std::uint64_t list_bytes(const HostCommand& c) const;  // its PRP list or SGL segment (0: none)
  static std::uint64_t data_bytes(const HostCommand& c);
  void refresh(std::uint32_t queue);  // its entries the arbiter may fetch (pending_)
  void sqes_in(std::uint16_t first);
  void whole(std::uint16_t tag);  // a command may go to the firmware
  void release_inbound();
  void send_data_and_complete(std::uint16_t tag);
  void post_completion(std::uint16_t tag);
  void interrupt(std::uint32_t queue);
  // A call to host memory (the caller releases the payload returned).
  tlm::tlm_generic_payload* host_call(PcieOp op, std::uint32_t queue, std::uint32_t index, std::uint32_t count);
  void trace_state();

  NvmeConfig cfg_;
  PcieLink link_;
  std::vector<NvmeArbiter::Priority> classes_;  // each I/O queue's
  NvmeArbiter arbiter_;
  std::vector<Queue> queues_;
  std::vector<std::uint32_t> pending_;  // the arbiter's view: entries it may fetch, per queue (0: admin)
  std::uint64_t pending_total_ = 0;
  std::vector<Cmd> cmds_;
  std::vector<std::uint16_t> free_slots_;
  TagCount slots_;
  std::uint64_t slot_waits_ = 0;
  std::deque<std::uint16_t> inbound_;  // fetched, to the firmware in this order
  Timeline up_, down_;                 // device -> host, host -> device
  DueQueue<Job> jobs_;
  sc_core::sc_event event_;
  Tick irq_time_ = 0;
  PciePayloadPool pool_{"PCIe transfers"};
  RequestOutbox<HostInitiatorSocket<NvmeFrontEnd>> to_firmware_{firmware, "NVMe front end, to the firmware"};
  Counters n_;
  VcdWriter* vcd_ = nullptr;
  int tv_slots_ = VcdWriter::kNoVar, tv_inbound_ = VcdWriter::kNoVar, tv_irq_ = VcdWriter::kNoVar,
      tv_fetched_ = VcdWriter::kNoVar, tv_up_ = VcdWriter::kNoVar, tv_down_ = VcdWriter::kNoVar,
      tv_queue_ = VcdWriter::kNoVar;
  // The link's waves (trace.vcd only): what each direction carries, from its start to its
  // end. A transfer is reserved ahead of its time: its changes wait here, in time order,
  // and a process of their own writes each at its time (the VCD's times never decrease).
  struct WaveChange {
    int var;
    unsigned value;
  };
  DueQueue<WaveChange> waves_;
  sc_core::sc_event wave_event_;
  void link_wave(bool up, Tick end, Tick duration, LinkKind kind, std::uint32_t queue);
  void on_wave();
  LifeListener* life_ = nullptr;
};

}  // namespace ssd::ctrl
