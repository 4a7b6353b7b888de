#include "controller/nvme_front_end.h"

#include <algorithm>
#include <cmath>

#include "common/activations.h"
#include "tlm/illegal_phase.h"
#include "tlm/sim_now.h"

namespace ssd::ctrl {

using namespace sc_core;

namespace {

constexpr std::uint32_t kSqeBytes = 64, kCqeBytes = 16, kMsiBytes = 4, kDoorbellBytes = 4, kRangeBytes = 16;
constexpr std::uint32_t kPrpEntryBytes = 8, kSglDescriptorBytes = 16;

NvmeArbiter::Config arbiter_config(const NvmeConfig& c) {
  NvmeArbiter::Config a;
  a.method = c.arbitration == "wrr" ? NvmeArbiter::Method::Weighted : NvmeArbiter::Method::RoundRobin;
  a.burst = c.burst;
  a.weight_high = c.weight_high;
  a.weight_medium = c.weight_medium;
  a.weight_low = c.weight_low;
  return a;
}

}  // namespace

std::vector<NvmeArbiter::Priority> NvmeConfig::classes() const {
  std::vector<NvmeArbiter::Priority> c(queues, NvmeArbiter::Priority::Medium);
  if (!queue_classes.empty()) {
    for (std::uint32_t i = 0; i < queues && i < queue_classes.size(); ++i) c[i] = queue_classes[i];
    return c;
  }
  for (std::uint32_t i = 0; i < queues; ++i) {
    if (i < urgent_queues) c[i] = NvmeArbiter::Priority::Urgent;
    else if (i < urgent_queues + high_queues) c[i] = NvmeArbiter::Priority::High;
    else if (i + low_queues >= queues) c[i] = NvmeArbiter::Priority::Low;
  }
  return c;
}

NvmeFrontEnd::NvmeFrontEnd(sc_module_name name, const NvmeConfig& cfg, const PcieConfig& pcie)
    : sc_module(name), mmio("mmio"), memory("memory"), firmware("firmware"), cfg_(cfg), link_(pcie),
      classes_(cfg.classes()), arbiter_(arbiter_config(cfg), classes_) {
  irq_time_ = static_cast<Tick>(std::llround(cfg.irq_coalesce_us * 1e6));
  queues_.assign(cfg.queues, Queue(InterruptCoalescer(cfg.irq_coalesce_count, irq_time_)));
  pending_.assign(std::size_t{cfg.queues} + 1, 0);
  cmds_.resize(cfg.command_slots);
  for (std::uint32_t t = cfg.command_slots; t-- > 0;) free_slots_.push_back(static_cast<std::uint16_t>(t));
  mmio.register_nb_transport_fw(this, &NvmeFrontEnd::mmio_fw);
  firmware.register_nb_transport_bw(this, &NvmeFrontEnd::fw_bw);
  SC_HAS_PROCESS(NvmeFrontEnd);
  SC_METHOD(on_event);
  sensitive << event_;
  dont_initialize();
  SC_METHOD(on_wave);  // notified only while tracing
  sensitive << wave_event_;
  dont_initialize();
}

void NvmeFrontEnd::trace(VcdWriter& vcd, const std::string& scope) {
  vcd_ = &vcd;
  tv_slots_ = vcd.declare(scope + ".commands", 16);
  tv_inbound_ = vcd.declare(scope + ".inbound", 16);
  tv_fetched_ = vcd.declare(scope + ".fetched", 32);
  tv_irq_ = vcd.declare(scope + ".interrupts", 32);
  tv_up_ = vcd.declare(scope + ".pcie_up", 3);
  tv_down_ = vcd.declare(scope + ".pcie_down", 3);
  tv_queue_ = vcd.declare(scope + ".pcie_queue", 16);
}

void NvmeFrontEnd::link_wave(bool up, Tick end, Tick duration, LinkKind kind, std::uint32_t queue) {
  if (!vcd_ || duration == 0) return;
  const int var = up ? tv_up_ : tv_down_;
  const Tick start = end - duration;
  waves_.push(start, {var, kind}, wave_event_);
  waves_.push(start, {tv_queue_, queue}, wave_event_);
  waves_.push(end, {var, kIdle}, wave_event_);
}

void NvmeFrontEnd::on_wave() {
  waves_.take_due(wave_event_, [this](const WaveChange& w) { vcd_->change(w.var, sim_now(), w.value); });
}

void NvmeFrontEnd::trace_state() {
  if (!vcd_) return;
  const Tick now = sim_now();
  vcd_->change(tv_slots_, now, slots_.in_use());
  vcd_->change(tv_inbound_, now, inbound_.size());
  vcd_->change(tv_fetched_, now, n_.fetched);
  vcd_->change(tv_irq_, now, n_.interrupts);
}

void NvmeFrontEnd::on_event() {
  count_activation(kActHostIface);
  jobs_.take_due(event_, [this](const Job& j) { run(j); });
}

tlm::tlm_sync_enum NvmeFrontEnd::mmio_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("NVMe front end, from the host", d);
  if (ph != tlm::BEGIN_REQ) {
    illegal_phase("NVMe front end, from the host", ph);
    return tlm::TLM_COMPLETED;
  }
  const PcieTransfer& x = pcie_xfer(gp);
  if ((x.op != PcieOp::SqDoorbell && x.op != PcieOp::CqDoorbell) || x.queue >= queues_.size() ||
      x.value >= cfg_.queue_depth)
    SC_REPORT_ERROR("/ssd/nvme", "NVMe front end: a host write that is no doorbell of an I/O queue");
  const Tick at = send(false, kDoorbellBytes, kDoorbell, x.queue);
  schedule(at, Step::Doorbell, x.queue, x.value, x.op == PcieOp::CqDoorbell ? 1 : 0);
  return tlm::TLM_COMPLETED;
}

void NvmeFrontEnd::refresh(std::uint32_t qi) {
  const Queue& q = queues_[qi];
  std::uint32_t n = waiting(q);
  if (cfg_.fetch_limit) n = std::min(n, cfg_.fetch_limit > q.in_ctrl ? cfg_.fetch_limit - q.in_ctrl : 0u);
  pending_total_ += n;
  pending_total_ -= pending_[qi + 1];
  pending_[qi + 1] = n;
}

void NvmeFrontEnd::arbitrate() {
  while (!free_slots_.empty() && pending_total_ > 0) {
    const NvmeArbiter::Grant g = arbiter_.next(pending_, static_cast<std::uint32_t>(free_slots_.size()));
    if (g.queue == NvmeArbiter::kNone || g.queue == 0) break;
    const std::uint32_t qi = g.queue - 1;
    Queue& q = queues_[qi];
    const std::uint32_t n = g.commands;  // at most the free slots
    std::uint16_t first = 0, prev = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint16_t t = free_slots_.back();
      free_slots_.pop_back();
      cmds_[t] = Cmd{};
      cmds_[t].queue = qi;
      if (k == 0) first = t;
      else {
        cmds_[prev].next = t;
        cmds_[prev].has_next = true;
      }
      prev = t;
    }
    slots_.change(static_cast<int>(n));
    const std::uint32_t index = q.head;
    q.head = (q.head + n) % cfg_.queue_depth;
    q.in_ctrl += n;
    q.fetched += n;
    refresh(qi);
    ++n_.grants;
    n_.fetched += n;
    n_.fetched_by_class[static_cast<unsigned>(classes_[qi])] += n;
    read_host(std::uint64_t{kSqeBytes} * n, Step::SqeRequest, qi, index, first);
  }
  if (free_slots_.empty() && pending_total_ > 0) ++slot_waits_;
  trace_state();
}

Tick NvmeFrontEnd::transfer(bool up, std::uint64_t link_bytes, std::uint32_t tlps, LinkKind kind,
                             std::uint32_t queue) {
  const Tick duration = link_.time_ps(link_bytes);
  const Tick end = (up ? up_ : down_).reserve(sim_now(), duration);
  (up ? n_.up_tlps : n_.down_tlps) += tlps;
  (up ? n_.up_bytes : n_.down_bytes) += link_bytes;
  link_wave(up, end, duration, kind, queue);
  return end;
}

void NvmeFrontEnd::read_host(std::uint64_t bytes, Step landed, std::uint32_t queue, std::uint32_t value,
                             std::uint16_t tag) {
  const std::uint32_t requests = link_.read_requests(bytes);
  const std::uint64_t link_bytes = std::uint64_t{requests} * link_.tlp_bytes(0);
  const Tick end = transfer(true, link_bytes, requests, kReadRequest, queue);
  // The host memory acts on the first request as it lands; the others follow it.
  schedule(end - link_.time_ps(link_bytes) + link_.request_ps(), landed, queue, value, tag);
}

void NvmeFrontEnd::complete_read(std::uint64_t bytes, Step in, std::uint32_t queue, std::uint16_t tag) {
  const LinkKind kind = in == Step::SqesIn ? kEntries : in == Step::DataIn ? kData : kList;
  schedule(send(false, bytes, kind, queue), in, queue, 0, tag);
}

std::uint64_t NvmeFrontEnd::data_bytes(const HostCommand& c) { return std::uint64_t{c.sectors} * 512; }

std::uint64_t NvmeFrontEnd::list_bytes(const HostCommand& c) const {
  if (!is_data(c.op)) return 0;
  // The host's buffer is whole memory pages, each anywhere in memory.
  const std::uint64_t pages = (data_bytes(c) + cfg_.page_bytes - 1) / cfg_.page_bytes;
  if (cfg_.data_pointer == "sgl") return pages > 1 ? pages * kSglDescriptorBytes : 0;  // one inline descriptor
  return pages > 2 ? (pages - 1) * kPrpEntryBytes : 0;  // PRP1, and PRP2 a page or the list
}

tlm::tlm_generic_payload* NvmeFrontEnd::host_call(PcieOp op, std::uint32_t queue, std::uint32_t index,
                                                  std::uint32_t count) {
  tlm::tlm_generic_payload* gp = pool_.acquire();
  PcieTransfer& x = pcie_xfer(*gp);
  x.op = op;
  x.queue = queue;
  x.index = index;
  x.count = count;
  if (op == PcieOp::Interrupt) {
    Queue& q = queues_[queue];
    for (std::uint32_t k = 0; k < count; ++k) {
      x.cmds.push_back(q.posted.front());
      q.posted.pop_front();
    }
  }
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  if (memory->nb_transport_fw(*gp, ph, d) != tlm::TLM_COMPLETED)
    SC_REPORT_ERROR(kExclusionError, "NVMe front end, to host memory: BEGIN_REQ answered other than TLM_COMPLETED");
  return gp;
}

void NvmeFrontEnd::run(const Job& j) {
  Queue& q = queues_[j.queue];
  switch (j.step) {
    case Step::Doorbell:
      if (j.tag == 0) {
        q.tail = j.value;
        ++n_.sq_doorbells;
        refresh(j.queue);
        arbitrate();
      } else {
        q.cq_head = j.value;
        ++n_.cq_doorbells;
      }
      return;
    case Step::SqeRequest: {
      std::uint32_t n = 1;
      for (std::uint16_t t = j.tag; cmds_[t].has_next; t = cmds_[t].next) ++n;
      tlm::tlm_generic_payload* gp = host_call(PcieOp::ReadSqes, j.queue, j.value, n);
      const PcieTransfer& x = pcie_xfer(*gp);
      if (x.cmds.size() != n) SC_REPORT_ERROR("/ssd/nvme", "NVMe front end: host memory returned other entries than read");
      std::uint16_t t = j.tag;
      for (std::uint32_t k = 0; k < n; ++k, t = cmds_[t].next) {
        cmds_[t].gp = x.cmds[k];
        host_cmd(*x.cmds[k]).tag = t;
      }
      gp->release();
      complete_read(std::uint64_t{kSqeBytes} * n, Step::SqesIn, j.queue, j.tag);
      return;
    }
    case Step::SqesIn:
      sqes_in(j.tag);
      return;
    case Step::ListRequest:
      complete_read(list_bytes(host_cmd(*cmds_[j.tag].gp)), Step::ListIn, j.queue, j.tag);
      return;
    case Step::ListIn: {
      Cmd& m = cmds_[j.tag];
      const HostCommand& c = host_cmd(*m.gp);
      m.list_in = true;
      ++n_.list_reads;
      if (c.op == HostOp::Write) read_host(data_bytes(c), Step::DataRequest, j.queue, 0, j.tag);
      else if (m.fw_done) send_data_and_complete(j.tag);
      return;
    }
    case Step::DataRequest:
      complete_read(data_bytes(host_cmd(*cmds_[j.tag].gp)), Step::DataIn, j.queue, j.tag);
      return;
    case Step::RangeRequest:
      ++n_.range_reads;
      complete_read(kRangeBytes, Step::RangeIn, j.queue, j.tag);
      return;
    case Step::DataIn:
    case Step::RangeIn:
      cmds_[j.tag].ready = true;
      release_inbound();
      return;
    case Step::IrqTimer:
      if (q.irq.timer(sim_now())) interrupt(j.queue);
      return;
    case Step::Interrupt: {
      ++n_.interrupts;
      tlm::tlm_generic_payload* gp = host_call(PcieOp::Interrupt, j.queue, 0, j.value);
      gp->release();
      trace_state();
      return;
    }
  }
}

void NvmeFrontEnd::sqes_in(std::uint16_t first) {
  for (std::uint16_t t = first;; t = cmds_[t].next) {
    Cmd& m = cmds_[t];
    const HostCommand& c = host_cmd(*m.gp);
    inbound_.push_back(t);
    const std::uint64_t list = list_bytes(c);
    if (list) m.list_in = false;
    switch (c.op) {
      case HostOp::Read:
        m.ready = true;  // its data pointers are needed only for its data, after the flash
        if (list) read_host(list, Step::ListRequest, m.queue, 0, t);
        break;
      case HostOp::Write:
        read_host(list ? list : data_bytes(c), list ? Step::ListRequest : Step::DataRequest, m.queue, 0, t);
        break;
      case HostOp::Trim:
        read_host(kRangeBytes, Step::RangeRequest, m.queue, 0, t);
        break;
      case HostOp::Flush:
        m.ready = true;
        break;
    }
    if (!m.has_next) break;
  }
  release_inbound();
}

void NvmeFrontEnd::release_inbound() {
  while (!inbound_.empty() && cmds_[inbound_.front()].ready) {
    tlm::tlm_generic_payload& gp = *cmds_[inbound_.front()].gp;
    inbound_.pop_front();
    HostCommand& c = host_cmd(gp);
    c.t_fw_in = sim_now();
    if (life_) life_->request_at(sim_now(), c.id, Stage::Firmware);
    to_firmware_.send(gp);
  }
  trace_state();
}

tlm::tlm_sync_enum NvmeFrontEnd::fw_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("NVMe front end, from the firmware", d);
  if (ph == tlm::END_REQ) {
    to_firmware_.ended();
    return tlm::TLM_ACCEPTED;
  }
  if (ph != tlm::BEGIN_RESP) {
    illegal_phase("NVMe front end, from the firmware", ph);
    return tlm::TLM_COMPLETED;
  }
  HostCommand& c = host_cmd(gp);
  const Tick now = sim_now();
  c.t_fw_done = now;
  if (life_) life_->request_at(now, c.id, Stage::HostIface);
  Cmd& m = cmds_[c.tag];
  m.fw_done = true;
  if (c.op != HostOp::Read) post_completion(c.tag);
  else if (m.list_in) send_data_and_complete(c.tag);  // else when its list is in
  return tlm::TLM_COMPLETED;
}

void NvmeFrontEnd::send_data_and_complete(std::uint16_t tag) {
  send(true, data_bytes(host_cmd(*cmds_[tag].gp)), kData, cmds_[tag].queue);
  post_completion(tag);
}

void NvmeFrontEnd::post_completion(std::uint16_t tag) {
  Cmd& m = cmds_[tag];
  const std::uint32_t qi = m.queue;
  Queue& q = queues_[qi];
  const Tick at = send(true, kCqeBytes, kCompletion, qi);  // behind the command's data
  q.posted.push_back(m.gp);
  ++n_.completions;
  m.gp = nullptr;
  free_slots_.push_back(tag);
  slots_.change(-1);
  --q.in_ctrl;
  refresh(qi);
  if (q.irq.completion(at)) interrupt(qi);
  else if (q.irq.pending() == 1 && q.irq.deadline() != InterruptCoalescer::kNever)
    schedule(q.irq.deadline(), Step::IrqTimer, qi, 0, 0);
  arbitrate();
}

void NvmeFrontEnd::interrupt(std::uint32_t queue) {
  const Tick at = send(true, kMsiBytes, kMsi, queue);  // behind the completions it covers
  schedule(at, Step::Interrupt, queue, queues_[queue].irq.last_batch(), 0);
}

const param::Table<NvmeConfig>& NvmeConfig::keys() {
  static const param::Table<NvmeConfig> t = [] {
    using N = NvmeConfig;
    param::Table<N> k;
    k.integer("nvme.queues", &N::queues, 1, 65535, "NVMe I/O queue pairs (host.interface = nvme)").unit("queues")
        .integer("nvme.queue_depth", &N::queue_depth, 2, 65535,
                 "entries of each submission and completion queue: a queue holds one command fewer")
        .unit("entries")
        .choice("nvme.arbitration", &N::arbitration, {"rr", "wrr"},
                "command arbitration: rr = round robin over the queues; wrr = weighted round robin with an urgent "
                "class (urgent first, then high, medium and low by their weights)")
        .integer("nvme.arbitration_burst", &N::burst, 0, 64,
                 "commands one queue's turn fetches at most: 1, 2, 4, 8, 16, 32 or 64; 0 = no limit")
        .unit("commands")
        .integer("nvme.weight_high", &N::weight_high, 1, 256, "wrr: commands the high class fetches a round")
        .unit("commands")
        .integer("nvme.weight_medium", &N::weight_medium, 1, 256, "wrr: commands the medium class fetches a round")
        .unit("commands")
        .integer("nvme.weight_low", &N::weight_low, 1, 256, "wrr: commands the low class fetches a round")
        .unit("commands")
        .integer("nvme.urgent_queues", &N::urgent_queues, 0, 65535,
                 "wrr: the first this many queues are of the urgent class").unit("queues")
        .integer("nvme.high_queues", &N::high_queues, 0, 65535,
                 "wrr: the next this many queues are of the high class").unit("queues")
        .integer("nvme.low_queues", &N::low_queues, 0, 65535,
                 "wrr: the last this many queues are of the low class (the others: medium)").unit("queues")
        .integer("nvme.fetch_limit", &N::fetch_limit, 0, 65535,
                 "commands of one queue the controller holds at most (fetched, not completed); 0 = no limit")
        .unit("commands")
        .integer("nvme.command_slots", &N::command_slots, 1, 65535,
                 "commands the controller holds at once, fetched and not yet completed: arbitration fetches while "
                 "one is free").unit("commands")
        .choice("nvme.data_pointer", &N::data_pointer, {"prp", "sgl"},
                "how a command points to its data: prp = PRP entries (a list read first above 2 pages); sgl = a "
                "scatter-gather list (a segment read first above 1 page, 16 bytes a page)")
        .integer("nvme.page_bytes", &N::page_bytes, 4096, 4096,
                 "the host memory page a PRP entry points to (CC.MPS)").unit("bytes")
        .integer("nvme.irq_coalesce_count", &N::irq_coalesce_count, 0, 256,
                 "interrupt coalescing: completions an interrupt gathers at most (0 or 1: an interrupt each)")
        .unit("completions")
        .number("nvme.irq_coalesce_us", &N::irq_coalesce_us, 0, 25500,
                "interrupt coalescing: the longest a completion waits for its interrupt, us (0: no limit but the "
                "count)").unit("us");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
