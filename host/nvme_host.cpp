#include "host/nvme_host.h"

#include "tlm/illegal_phase.h"
#include "tlm/sim_now.h"

namespace ssd::host {

using namespace sc_core;

NvmeHost::NvmeHost(sc_module_name name, std::uint32_t queues, std::uint32_t queue_depth)
    : sc_module(name), upper("upper"), mmio("mmio"), memory("memory"), depth_(queue_depth), queues_(queues) {
  for (QueuePair& q : queues_) q.sq.assign(queue_depth, nullptr);
  upper.register_nb_transport_fw(this, &NvmeHost::upper_fw);
  memory.register_nb_transport_fw(this, &NvmeHost::memory_fw);
}

void NvmeHost::doorbell(PcieOp op, std::uint32_t queue, std::uint32_t value) {
  tlm::tlm_generic_payload* gp = pool_.acquire();
  PcieTransfer& x = pcie_xfer(*gp);
  x.op = op;
  x.queue = queue;
  x.value = value;
  gp->set_command(tlm::TLM_WRITE_COMMAND);
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  if (mmio->nb_transport_fw(*gp, ph, d) != tlm::TLM_COMPLETED)
    SC_REPORT_ERROR(kExclusionError, "NVMe host driver, to the device: a doorbell answered other than TLM_COMPLETED");
  gp->release();
}

void NvmeHost::set_stream_queues(std::vector<std::uint32_t> first, std::vector<std::uint32_t> count) {
  streams_.assign(first.size(), StreamQueues{});
  stream_of_queue_.assign(queues_.size(), 0);
  for (std::size_t i = 0; i < first.size(); ++i) {
    streams_[i].first = first[i];
    streams_[i].count = count[i];
    for (std::uint32_t q = first[i]; q < first[i] + count[i] && q < queues_.size(); ++q)
      stream_of_queue_[q] = static_cast<std::uint32_t>(i);
  }
}

bool NvmeHost::submit(tlm::tlm_generic_payload& gp) {
  std::uint32_t base = 0, n = static_cast<std::uint32_t>(queues_.size());
  std::uint32_t* cursor = &cursor_;
  if (!streams_.empty()) {
    StreamQueues& sq = streams_.at(host_cmd(gp).stream);
    base = sq.first;
    n = sq.count;
    cursor = &sq.cursor;
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t qi = base + (*cursor + k) % n;
    QueuePair& q = queues_[qi];
    if (q.outstanding + 1 >= depth_) continue;
    q.sq[q.tail] = &gp;
    q.tail = (q.tail + 1) % depth_;
    ++q.outstanding;
    ++submitted_;
    *cursor = (qi - base + 1) % n;
    host_cmd(gp).t_tag = sim_now();  // its entry written
    doorbell(PcieOp::SqDoorbell, qi, q.tail);
    return true;
  }
  return false;
}

tlm::tlm_sync_enum NvmeHost::upper_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("NVMe host driver, from the host", d);
  if (ph == tlm::BEGIN_REQ) {
    if (!streams_.empty()) {  // a stream's own software queue when its queues are full
      StreamQueues& sq = streams_.at(host_cmd(gp).stream);
      if (!sq.waiting.empty() || !submit(gp)) {
        sq.waiting.push_back(&gp);
        ++full_waits_;
      }
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    if (!submit(gp)) {
      waiting_ = &gp;
      ++full_waits_;
      return tlm::TLM_ACCEPTED;
    }
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (ph == tlm::END_RESP) to_driver_.ended();
  else illegal_phase("NVMe host driver, from the host", ph);
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum NvmeHost::memory_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("NVMe host memory, from the device", d);
  if (ph != tlm::BEGIN_REQ) {
    illegal_phase("NVMe host memory, from the device", ph);
    return tlm::TLM_COMPLETED;
  }
  PcieTransfer& x = pcie_xfer(gp);
  if (x.queue >= queues_.size()) SC_REPORT_ERROR("/ssd/nvme", "NVMe host memory: a queue that does not exist");
  QueuePair& q = queues_[x.queue];
  if (x.op == PcieOp::ReadSqes) {
    for (std::uint32_t k = 0; k < x.count; ++k) {
      tlm::tlm_generic_payload*& e = q.sq[(x.index + k) % depth_];
      if (!e) SC_REPORT_ERROR("/ssd/nvme", "NVMe host memory: the device read an entry the host never wrote");
      x.cmds.push_back(e);
      if (on_fetched_) on_fetched_(*e);
      e = nullptr;
    }
  } else if (x.op == PcieOp::Interrupt) {
    // The interrupt routine: each completion to the host driver, a waiting command into the
    // room it leaves, then the completion queue's new head.
    for (tlm::tlm_generic_payload* c : x.cmds) {
      --q.outstanding;
      host_cmd(*c).t_done = sim_now();
      to_driver_.send(*c);
      if (!streams_.empty()) {
        StreamQueues& sq = streams_[stream_of_queue_[x.queue]];
        while (!sq.waiting.empty() && submit(*sq.waiting.front())) sq.waiting.pop_front();
      } else if (waiting_ && submit(*waiting_)) {
        tlm::tlm_generic_payload* w = waiting_;
        waiting_ = nullptr;
        tlm::tlm_phase endreq = tlm::END_REQ;
        sc_time d2 = SC_ZERO_TIME;
        if (upper->nb_transport_bw(*w, endreq, d2) != tlm::TLM_ACCEPTED)
          SC_REPORT_ERROR(kExclusionError, "NVMe host driver, to the host: END_REQ answered other than TLM_ACCEPTED");
      }
    }
    q.cq_head = static_cast<std::uint32_t>((q.cq_head + x.cmds.size()) % depth_);
    doorbell(PcieOp::CqDoorbell, x.queue, q.cq_head);
  } else {
    SC_REPORT_ERROR("/ssd/nvme", "NVMe host memory: a device transfer it does not serve");
  }
  return tlm::TLM_COMPLETED;
}

}  // namespace ssd::host
