#include "controller/firmware_core.h"

#include "controller/policies.h"
#include "controller/read_unit.h"
#include "common/activations.h"
#include "tlm/illegal_phase.h"
#include "tlm/sim_now.h"

#include <algorithm>
#include <cmath>

namespace ssd::ctrl {

using namespace sc_core;

FirmwareCore::FirmwareCore(sc_module_name name, const FtlConfig& ftl, const FirmwareConfig& fw)
    : sc_module(name),
      host("host"),
      flash("flash"),
      ftl_(ftl),
      cfg_(fw),
      work_("work"),
      flash_out_("flash_out"),
      pool_("firmware flash commands"),
      ecc_(fw.ecc),
      decode_("decode"),
      forecast_(ftl.nand),
      gc_(ftl_, fw.gc_yields, fw.gc_copies_in_flight, gc_port_, counters_) {
  spp_ = ftl.nand.page_bytes / 512;
  if (!read_unit_fits(fw.read_unit_bytes, ftl.nand.page_bytes))
    throw std::invalid_argument("read unit of " + std::to_string(fw.read_unit_bytes) +
                                " bytes: not a multiple of 512 that divides the page");
  cycle_ps_ = 1e6 / fw.clock_mhz;
  stalled_.resize(ftl_.planes());
  unbound_.resize(std::size_t{ftl_.planes()} * 2);
  chip_outstanding_.assign(ftl.nand.chips(), 0);
  const std::uint32_t dies = static_cast<std::uint32_t>(ftl.nand.chips() * ftl.nand.dies_per_chip);
  load_.assign(dies, {});
  if (fw.batch_depth && ftl.nand.multiplane && ftl.nand.planes_per_die > 1)
    batcher_ = DieBatcher(dies, ftl.nand.planes_per_die, fw.batch_depth, fw.batch_order);
  die_dirty_.assign(dies, 0);
  placement_.predicted_wait_ps.assign(ftl.nand.channels, 0);
  placement_.actual_wait_ps.assign(ftl.nand.channels, 0);
  placement_.predicted_commands.assign(ftl.nand.channels, 0);
  placement_.batch_sizes.assign(ftl.nand.planes_per_die + 1, 0);
  set_write_allocator(make_write_allocator(fw.write_policy, ftl_));
  fw_sched_ = make_firmware_scheduler(fw.firmware_sched, fw.sos);
  host.register_nb_transport_fw(this, &FirmwareCore::host_fw);
  flash.register_nb_transport_bw(this, &FirmwareCore::flash_bw);
  SC_HAS_PROCESS(FirmwareCore);
  SC_METHOD(on_work);
  sensitive << work_settled_;
  dont_initialize();
  SC_METHOD(settle_work);
  sensitive << work_.get_event() << flash_out_.get_event();
  dont_initialize();
  SC_METHOD(on_decoded);
  sensitive << decode_.get_event();
  dont_initialize();
  faults_.retries.assign(ecc_.soft_level() + 1, 0);
  SC_METHOD(resume_gc_at_start);  // no sensitivity: runs once, at initialization
  SC_METHOD(trace_core_idle);
  sensitive << idle_event_;
  dont_initialize();
}

void FirmwareCore::trace(VcdWriter& vcd, const std::string& scope) {
  vcd_ = &vcd;
  tv_.busy = vcd.declare(scope + ".busy", 1);
  tv_.work_queue = vcd.declare(scope + ".work_queue", 16);
  tv_.commands = vcd.declare(scope + ".commands", 32);
  tv_.gc_planes = vcd.declare(scope + ".gc_planes", 32);
  const nand::NandConfig& n = ftl_.config().nand;
  const std::uint64_t pages_per_plane = std::uint64_t{n.blocks_per_plane} * n.pages_per_block;
  for (std::uint32_t p = 0; p < ftl_.planes(); ++p) {
    const PhysAddr a = ftl_.decode(static_cast<std::uint32_t>(p * pages_per_plane));
    const std::string name = scope + ".ch" + std::to_string(a.channel) + ".chip" + std::to_string(a.chip) + ".die" +
                             std::to_string(a.die) + ".plane" + std::to_string(a.plane);
    tv_.gc.push_back(vcd.declare(name + ".gc", 1));
    tv_.free_blocks.push_back(vcd.declare(name + ".free_blocks", 32, ftl_.free_blocks(p)));
  }
  gc_on_.assign(ftl_.planes(), 0);
}

void FirmwareCore::trace_core_idle() {
  const Tick now = sim_now();
  if (busy_until_ > now) {
    idle_event_.notify(sc_delay(busy_until_ - now));
    return;
  }
  vcd_->change(tv_.busy, now, 0);
}

void FirmwareCore::trace_plane(std::uint32_t plane) {
  if (!vcd_) return;
  const Tick now = sim_now();
  const char on = gc_.active(plane) ? 1 : 0;
  if (on != gc_on_[plane]) {
    gc_on_[plane] = on;
    gc_planes_ += on ? 1 : -1;
    vcd_->change(tv_.gc[plane], now, static_cast<unsigned>(on));
    vcd_->change(tv_.gc_planes, now, gc_planes_);
  }
  vcd_->change(tv_.free_blocks[plane], now, ftl_.free_blocks(plane));
}

void FirmwareCore::trace_command(std::uint32_t ppa, int delta) {
  if (!vcd_) return;
  commands_out_ += delta;
  trace_counts();
  trace_plane(ftl_.plane_of_ppa(ppa));
}

void FirmwareCore::trace_counts() {
  if (!vcd_) return;
  vcd_->change(tv_.work_queue, sim_now(), work_backlog_);
  vcd_->change(tv_.commands, sim_now(), commands_out_);
}

Tick FirmwareCore::reserve_core(std::uint64_t cycles) {
  const Tick now = sim_now();
  const Tick done = core_.reserve(now, core_ticks(cycles));
  if (vcd_ && done > now) {
    vcd_->change(tv_.busy, now, 1);
    if (busy_until_ <= now) idle_event_.notify(sc_delay(done - now));  // else a wake-up is pending
    busy_until_ = done;
  }
  return done;
}

tlm::tlm_sync_enum FirmwareCore::host_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
  if (ph != tlm::BEGIN_REQ) {
    if (ph != tlm::END_RESP) illegal_phase("firmware, from the host interface", ph);
    return tlm::TLM_COMPLETED;
  }
  HostCommand& c = host_cmd(gp);
  const std::uint64_t pages = page_span(c.lba, c.sectors, spp_).count;
  const Tick now = sim_now();
  const std::uint64_t cycles = cfg_.cycles_per_command + pages * cfg_.cycles_per_page;
  const Tick done = reserve_core(cycles);
  c.t_core_start = done - core_ticks(cycles);
  if (done == now && !work_backlog_) {
    process(gp);  // the core is free and the work takes no time
  } else {
    ++work_backlog_;
    work_.notify(gp, sc_delay(done - now));
    trace_counts();
  }
  ph = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

// Core work that ends at time t (a host command's, or a release for t) is taken one
// delta cycle after t's timed events: a flash completion at t (delivered in those events'
// delta) is always handled first. In the same delta the kernel may run the two in either
// order (the accel/ hooks change it), and the commands each builds would take their ids
// and pages in a different order.
void FirmwareCore::settle_work() { work_settled_.notify(sc_core::SC_ZERO_TIME); }

void FirmwareCore::on_work() {
  count_activation(kActFirmware);
  in_work_ = true;
  while (tlm::tlm_generic_payload* gp = work_.get_next_transaction()) {
    --work_backlog_;
    trace_counts();
    process(*gp);
  }
  // Commands released for now: a program takes its page when it leaves for the block,
  // not when it was released (one released later for an earlier time must not pass it
  // with a later page).
  while (tlm::tlm_generic_payload* gp = flash_out_.get_next_transaction()) to_block(flash_cmd(*gp));
  in_work_ = false;
  drain_batches();
}

void FirmwareCore::to_block(FlashCommand& f) {
  if (!batched(f)) {
    send_to_block(f);
    return;
  }
  const std::uint32_t plane = ftl_.plane_of_ppa(f.issuer.ppa);
  const std::uint32_t die = die_of_plane(plane);
  batcher_.push(die, plane % ftl_.config().nand.planes_per_die, f);
  if (!die_dirty_[die]) {
    die_dirty_[die] = 1;
    dirty_dies_.push_back(die);
  }
  // The instant's commands are batched together: by on_work at its end, or a delta later.
  if (!in_work_) work_settled_.notify(SC_ZERO_TIME);
}

void FirmwareCore::send_to_block(FlashCommand& f) {
  if (!f.issuer.bound) bind(f);
  if (cfg_.mark_hazards) {
    f.keep_order = hazards_.conflicts(f);
    hazards_.add(f);
  }
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  flash->nb_transport_fw(*static_cast<tlm::tlm_generic_payload*>(f.exec.owner), ph, d);
}

void FirmwareCore::drain_batches() {
  if (dirty_dies_.empty()) return;
  std::vector<std::uint32_t> dies;
  dies.swap(dirty_dies_);
  const auto offset = [this](const FlashCommand& c) -> std::uint32_t {
    if (c.issuer.bound) return c.page;
    const std::deque<std::uint32_t>& q =
        unbound_of(ftl_.plane_of_ppa(c.issuer.ppa), c.origin == FlashOrigin::GcProgram);
    return ftl_.decode(q.front()).page;
  };
  for (const std::uint32_t die : dies) die_dirty_[die] = 0;
  // The dies' batches in the order their heads came (oldest first), as the block's queues
  // would have received the commands without batching.
  for (;;) {
    std::uint32_t die = 0;
    std::uint64_t oldest = DieBatcher::kNothing;
    for (const std::uint32_t d : dies)
      if (const std::uint64_t seq = batcher_.next(d); seq < oldest) {
        oldest = seq;
        die = d;
      }
    if (oldest == DieBatcher::kNothing) break;
    FlashCommand* parts[kMaxPlanes];
    const unsigned n = batcher_.take(die, parts, offset);
    for (unsigned i = 0; i < n; ++i)
      if (!parts[i]->issuer.bound) bind(*parts[i]);
    FlashCommand* c = parts[0];
    if (n > 1) {
      tlm::tlm_generic_payload& gp = new_payload(parts[0]->op, n);
      FlashCommand& w = flash_cmd(gp);
      begin_combined(w, *parts[0]);
      for (unsigned i = 0; i < n; ++i) join(w, *parts[i]);
      w.issuer.released = true;
      w.issuer.gathered = true;
      ++counters_.combined_commands;
      placement_.multiplane_pages += n;
      if (keep_forecast_) forecast_.combined(w, n);
      c = &w;
    }
    ++placement_.batches;
    ++placement_.batch_sizes[n];
    batcher_.sent(die, *c);
    send_to_block(*c);
  }
}

void FirmwareCore::load_add(std::uint32_t plane, FlashOp op, int delta) {
  AllocationView::DieLoad& l = load_[die_of_plane(plane)];
  std::uint32_t& v = op == FlashOp::Read ? l.reads : op == FlashOp::Program ? l.programs : l.erases;
  v += delta;
}

FlashCommand& FirmwareCore::new_flash(FlashOp op, std::uint32_t ppa, FlashOrigin origin) {
  tlm::tlm_generic_payload& gp = new_payload(op, 1);
  FlashCommand& f = flash_cmd(gp);
  const PhysAddr a = ftl_.decode(ppa);
  f.op = op;
  f.channel = a.channel;
  f.chip = a.chip;
  f.die = a.die;
  f.plane_mask = static_cast<std::uint8_t>(1u << a.plane);
  f.block[a.plane] = a.block;
  f.page = a.page;
  f.origin = origin;
  f.issuer.ppa = ppa;
  f.issuer.t_built = sim_now();
  const bool gc = origin == FlashOrigin::GcRead || origin == FlashOrigin::GcProgram || origin == FlashOrigin::GcErase;
  if (gc) f.priority = gc_.issue_class(origin, ftl_.plane_of_ppa(ppa));
  load_add(ftl_.plane_of_ppa(ppa), op, +1);
  if (op == FlashOp::Program) {  // its page held, bound at release
    f.issuer.bound = false;
    unbound_of(ftl_.plane_of_ppa(ppa), origin == FlashOrigin::GcProgram).push_back(ppa);
  }
  trace_command(ppa, +1);  // the firmware's commands: built and not completed
  return f;
}

// Late binding: the program takes its plane stream's first page held (in release order:
// a block's pages in order, whatever order programs are released in).
void FirmwareCore::bind(FlashCommand& c) {
  std::deque<std::uint32_t>& q = unbound_of(ftl_.plane_of_ppa(c.issuer.ppa), c.origin == FlashOrigin::GcProgram);
  const std::uint32_t ppa = q.front();
  q.pop_front();
  const PhysAddr a = ftl_.decode(ppa);
  c.block[a.plane] = a.block;
  c.page = a.page;
  c.issuer.ppa = ppa;
  c.issuer.bound = true;
}

void FirmwareCore::issued(FlashCommand& c) {
  chip_activity(chip_of(c), +1);
  c.issuer.t_released = sim_now();
  if (keep_forecast_) c.issuer.predicted_wait = forecast_.issued(c, sim_now());
  if (!listener_ || c.op != FlashOp::Program) return;
  const auto told = [this](const FlashCommand& p) {
    listener_->program_issued(p.lpn, p.origin == FlashOrigin::GcProgram ? p.copy_from : writes_.op(p.issuer.write_op).replaces);
  };
  if (!c.issuer.combined()) told(c);
  else
    for (const FlashCommand* p : c.issuer.part)
      if (p) told(*p);
}

tlm::tlm_generic_payload& FirmwareCore::new_payload(FlashOp op, unsigned pages) {
  tlm::tlm_generic_payload* gp = pool_.acquire();
  FlashCommand& f = flash_cmd(*gp);
  f.exec.owner = gp;
  f.id = ++flash_seq_;
  gp->set_command(op == FlashOp::Read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  gp->set_data_length(op == FlashOp::Erase ? 0 : pages * ftl_.config().nand.page_bytes);
  return *gp;
}

bool FirmwareCore::release_together(FlashCommand* const* parts, unsigned n, Tick at) {
  // Checked first, joined after: a part is marked released only when all can join.
  if (n < 2 || n > ftl_.config().nand.planes_per_die || !ftl_.config().nand.multiplane ||
      !why_not_combined(parts, n).empty())
    return false;
  tlm::tlm_generic_payload& gp = new_payload(parts[0]->op, n);
  FlashCommand& w = flash_cmd(gp);
  begin_combined(w, *parts[0]);
  for (unsigned i = 0; i < n; ++i) join(w, *parts[i]);
  ++counters_.combined_commands;
  release_flash(w, at);
  return true;
}

void FirmwareCore::give_back(std::uint32_t plane, bool gc) {
  std::deque<std::uint32_t>& q = unbound_of(plane, gc);
  ftl_.unallocate(q.back(), gc);
  q.pop_back();
}

void FirmwareCore::wake_stalled(std::uint32_t plane) {
  std::deque<std::uint32_t> waiting;
  waiting.swap(stalled_[plane]);
  for (std::uint32_t op : waiting) program(op);
}

bool FirmwareCore::retarget(FlashCommand& c, std::uint32_t plane) {
  if (c.issuer.bound || c.issuer.released || c.origin != FlashOrigin::HostProgram || plane >= ftl_.planes()) return false;
  const std::uint32_t from = ftl_.plane_of_ppa(c.issuer.ppa);
  if (plane == from) return true;
  if (!stalled_[plane].empty()) return false;  // writes wait for space there: they go first
  const std::uint32_t ppa = ftl_.allocate(plane, false);
  if (ppa == kUnmapped) return false;
  const Token t = c.token[ftl_.decode(c.issuer.ppa).plane];
  give_back(from, false);
  load_add(from, FlashOp::Program, -1);
  load_add(plane, FlashOp::Program, +1);
  const PhysAddr a = ftl_.decode(ppa);
  c.channel = a.channel;
  c.chip = a.chip;
  c.die = a.die;
  c.plane_mask = static_cast<std::uint8_t>(1u << a.plane);
  c.token[a.plane] = t;
  c.issuer.ppa = ppa;
  unbound_of(plane, false).push_back(ppa);
  if (vcd_) {
    trace_plane(from);
    trace_plane(plane);
  }
  gc_.maybe_start(plane);
  wake_stalled(from);  // a page freed where writes may wait
  return true;
}

bool FirmwareCore::cancel(FlashCommand& c) {
  if (c.issuer.bound || c.issuer.released || c.origin != FlashOrigin::HostProgram || !sched_view_.superseded(c)) return false;
  const std::uint32_t plane = ftl_.plane_of_ppa(c.issuer.ppa);
  give_back(plane, false);
  load_add(plane, FlashOp::Program, -1);
  ++counters_.cancelled_programs;
  const std::uint32_t op = c.issuer.write_op;
  trace_command(c.issuer.ppa, -1);
  static_cast<tlm::tlm_generic_payload*>(c.exec.owner)->release();
  write_page_done(op, nullptr);  // the newer write carries the page
  wake_stalled(plane);
  return true;
}

Tick FirmwareCore::Outlet::now() const { return sim_now(); }
Tick FirmwareCore::View::now() const { return sim_now(); }

void FirmwareCore::release_flash(FlashCommand& f, Tick at) {
  if (f.issuer.released) {
    SC_REPORT_ERROR("/ssd/controller/firmware", ("a firmware scheduler released a command twice: " + f.describe()).c_str());
    return;
  }
  f.issuer.released = true;
  issued(f);
  auto* gp = static_cast<tlm::tlm_generic_payload*>(f.exec.owner);
  const Tick now = sim_now();
  if (at <= now) {
    to_block(f);
  } else {
    flash_out_.notify(*gp, sc_delay(at - now));
  }
}

void FirmwareCore::chip_activity(std::uint32_t chip, int delta) {
  chip_outstanding_[chip] += delta;
  if (chip_outstanding_[chip] != 0) return;
  gc_.chip_idle(chip);
  if (chip_outstanding_[chip] == 0) fw_sched_->chip_idle(chip, outlet_);
}

void FirmwareCore::process(tlm::tlm_generic_payload& gp) {
  HostCommand& c = host_cmd(gp);
  c.exec.owner = &gp;
  const PageSpan span = page_span(c.lba, c.sectors, spp_);
  const std::uint64_t first = span.first, pages = span.count;
  const Tick now = sim_now();
  c.t_processed = now;  // the core's work is done, whatever the answer
  if (c.sectors && first + pages > ftl_.logical_pages()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    complete_host(gp);
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (read_only() && (c.op == HostOp::Write || c.op == HostOp::Trim)) {  // refused: nothing of it done
    ++(c.op == HostOp::Write ? faults_.refused_writes : faults_.refused_trims);
    c.status = HostStatus::WriteProtected;
    c.exec.pages_left = 0;
    complete_host(gp);
    return;
  }
  c.exec.pages_left = static_cast<std::uint32_t>(pages);
  switch (c.op) {
    case HostOp::Read:
      ++counters_.host_reads;
      c.tokens.assign(pages, kUnwrittenToken);
      for (std::uint32_t i = 0; i < pages; ++i) {
        const std::uint64_t lpn = first + i;
        Token t;
        const WritePath::Read r = writes_.read(lpn, &gp, i, t);
        if (r == WritePath::Read::Answered) read_answered(gp, i, t);
        if (r != WritePath::Read::Miss) continue;
        if (poisoned(lpn)) {  // its data is known lost: a media error, without flash
          page_unrecovered(gp, i);
          if (life_) life_->page_answered(now, c.id, i);
          page_done(gp);
          continue;
        }
        const std::uint32_t ppa = ftl_.lookup(lpn);
        if (ppa == kUnmapped) {
          ++counters_.unwritten_reads;
          if (life_) life_->page_answered(now, c.id, i);
          page_done(gp);
          continue;
        }
        FlashCommand& f = new_flash(FlashOp::Read, ppa, FlashOrigin::HostRead);
        f.host = &gp;
        f.host_page = i;
        f.request = c.id;
        f.lpn = lpn;
        f.out_bytes = read_out_bytes(c.lba, c.sectors, lpn, static_cast<std::uint32_t>(spp_), cfg_.read_unit_bytes);
        ftl_.add_pending_read(ppa);
        ++counters_.flash_reads;
        send_flash(f, now);
      }
      break;
    case HostOp::Write: {
      ++counters_.host_writes;
      if (c.tokens.size() != pages) {
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        complete_host(gp);
        return;
      }
      c.exec.write_seq = ++write_seq_;
      ++writes_executing_;
      for (std::uint32_t i = 0; i < pages; ++i) {
        const std::uint64_t lpn = first + i;
        if (!written_in_part(c.lba, c.sectors, lpn)) unpoison(lpn);  // new data for all of it
        std::uint32_t op;
        if (writes_.write(lpn, &gp, c.tokens[i], written_in_part(c.lba, c.sectors, lpn), now, op) !=
            WritePath::Start::NeedsOldData)
          continue;
        if (const std::uint32_t ppa = ftl_.lookup(lpn); ppa != kUnmapped) {
          FlashCommand& f = new_flash(FlashOp::Read, ppa, FlashOrigin::RmwRead);
          f.issuer.write_op = op;
          f.lpn = lpn;
          f.host_page = i;
          f.request = c.id;
          writes_.reading_old_data(op, ppa);
          ftl_.add_pending_read(ppa);
          ++counters_.rmw_reads;
          send_flash(f, now);
        } else {
          writes_.old_data(op, kUnwrittenToken, now);
        }
      }
      break;
    }
    case HostOp::Trim:
      ++counters_.host_trims;
      for (std::uint64_t lpn = first; lpn < first + pages; ++lpn) {
        if (covers_part(c.lba, c.sectors, lpn, spp_)) continue;  // partial: kept
        writes_.trim(lpn);  // an in-flight write of it becomes superseded
        ftl_.trim(lpn);
        unpoison(lpn);
        ++counters_.trimmed_pages;
      }
      c.exec.pages_left = 0;
      complete_host(gp);
      break;
    case HostOp::Flush:
      ++counters_.host_flushes;
      c.exec.pages_left = 0;
      if (writes_executing_ == 0) {  // every earlier write is on flash (a later flush waits longer)
        complete_host(gp);
      } else {
        ++counters_.flushes_waited;
        flushes_.push_back({&gp, write_seq_, writes_executing_});
      }
      break;
  }
}

void FirmwareCore::read_answered(tlm::tlm_generic_payload& host, std::uint32_t page, Token t) {
  HostCommand& c = host_cmd(host);
  c.tokens[page] = t;
  ++counters_.buffer_hits;
  if (life_) life_->page_answered(sim_now(), c.id, page);
  page_done(host);
}

void FirmwareCore::program(std::uint32_t op, bool again) {
  const WritePath::Op& w = writes_.op(op);
  if (!again_.empty() && again_.erase(op)) again = true;  // stalled after its program failed
  const std::uint32_t plane = allocator_->plane_for(w.lpn, view_);
  if (!stalled_[plane].empty()) {  // keep the order of writes to a plane
    if (again) again_.insert(op);
    stalled_[plane].push_back(op);
    return;
  }
  const std::uint32_t ppa = ftl_.allocate(plane, false);
  if (ppa == kUnmapped) {
    if (again) again_.insert(op);
    stalled_[plane].push_back(op);
    ++counters_.stalled_writes;
    gc_.maybe_start(plane);
    return;
  }
  if (plane != ftl_.plane_of_lpn(w.lpn)) ++placement_.placed_off_static;
  FlashCommand& f = new_flash(FlashOp::Program, ppa, FlashOrigin::HostProgram);
  f.token[ftl_.decode(ppa).plane] = w.token;
  f.issuer.write_op = op;
  f.lpn = w.lpn;
  const HostCommand& hc = host_cmd(host_of(op));
  f.request = hc.id;
  f.host_page = static_cast<std::uint32_t>(f.lpn - hc.lba / spp_);
  if (!again) ftl_.count_host_page();
  send_flash(f, sim_now());
  gc_.maybe_start(plane);
}

void FirmwareCore::write_page_done(std::uint32_t op, const FlashCommand* f) {
  tlm::tlm_generic_payload& host_gp = host_of(op);
  const Tick known = writes_.op(op).t_known;
  const Waited waited_for = writes_.op(op).waited_for;
  writes_.release(op);
  page_done(host_gp, f, known, waited_for);
}

void FirmwareCore::page_done(tlm::tlm_generic_payload& gp, const FlashCommand* f, Tick known,
                             Waited waited_for) {
  HostCommand& c = host_cmd(gp);
  if (--c.exec.pages_left != 0) return;
  critical_path(c, f, known, waited_for, sim_now());
  complete_host(gp);
}

// The parts of the request's last page, from the core's work done (t_processed) to now
// (docs/controller.md, "Latency attribution"). Each is the time between two events of
// the page's path, so they sum to now - t_processed; a part that would be negative
// wraps, and the host's check of the sum against each part catches it.
void FirmwareCore::critical_path(HostCommand& c, const FlashCommand* f, Tick known, Waited waited_for,
                                 Tick now) const {
  PartTicks& p = c.parts;
  p = {};
  Tick t = c.t_processed;
  if (waited_for != Waited::None) {
    at(p, waited_for == Waited::Buffer ? Part::WriteBuffer : Part::RmwRead) = known - t;
    t = known;
  }
  if (!f) {  // answered from the write buffer (after waiting for its data), or unwritten
    at(p, Part::WriteBuffer) += now - t;
    return;
  }
  if (f->op == FlashOp::Program) {  // waited for a free page from its data's arrival
    at(p, Part::WriteStall) = f->issuer.t_built - t;
    t = f->issuer.t_built;
  }
  if (f->issuer.t_first_built) {  // read again at further levels: the earlier attempts, whole
    at(p, Part::ReadRetry) = f->issuer.t_built - t;
    t = f->issuer.t_built;
  }
  flash_path_parts(*f, t, now, p);
}

void FirmwareCore::complete_host(tlm::tlm_generic_payload& gp) {
  const std::uint64_t seq = host_cmd(gp).exec.write_seq;
  tlm::tlm_phase ph = tlm::BEGIN_RESP;
  sc_time d = SC_ZERO_TIME;
  host->nb_transport_bw(gp, ph, d);
  if (seq) write_completed(seq);  // the flushes it held complete after it
}

// Host write `seq` is on flash. Each flush waiting counts down the writes that were
// executing when it arrived: this one, if it was taken before the flush (seq <= after;
// it had not completed, or it would not be completing now). The flushes are in arrival
// order and a later one waits for a superset, so they complete from the front.
void FirmwareCore::write_completed(std::uint64_t seq) {
  --writes_executing_;
  for (auto f = flushes_.rbegin(); f != flushes_.rend() && f->after >= seq; ++f) --f->writes_left;
  while (!flushes_.empty() && flushes_.front().writes_left == 0) {
    tlm::tlm_generic_payload& gp = *flushes_.front().gp;
    flushes_.pop_front();
    HostCommand& c = host_cmd(gp);
    c.parts = {};
    at(c.parts, Part::WriteBuffer) = sim_now() - c.t_processed;  // waiting for the write buffer to drain
    complete_host(gp);
  }
}

tlm::tlm_sync_enum FirmwareCore::flash_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
  if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
  if (ph != tlm::BEGIN_RESP) {
    illegal_phase("firmware, from the scheduler block", ph);
    return tlm::TLM_COMPLETED;
  }
  FlashCommand& f = flash_cmd(gp);
  if (ecc_.on() && f.op == FlashOp::Read && !f.issuer.decoded) {
    // The controller's decoder takes the data as it comes out: handled once decoded.
    f.issuer.decoded = true;
    f.issuer.ecc_ticks = ecc_.decode_ticks(f.read_level);
    decode_.notify(gp, sc_delay(f.issuer.ecc_ticks));
    return tlm::TLM_COMPLETED;
  }
  handle_end(gp);
  return tlm::TLM_COMPLETED;
}

void FirmwareCore::on_decoded() {
  while (tlm::tlm_generic_payload* gp = decode_.get_next_transaction()) handle_end(*gp);
}

// A flash command's end, each of its pages handled as if it had run alone.
void FirmwareCore::handle_end(tlm::tlm_generic_payload& gp) {
  FlashCommand& f = flash_cmd(gp);
  if (cfg_.mark_hazards) hazards_.remove(f);
  const std::uint32_t chip = chip_of(f);
  // Each page as if it had run alone: a combined command's parts, or the command.
  const bool combined = f.issuer.combined();
  FlashCommand* self = &f;
  FlashCommand* const* pages = combined ? f.issuer.part.data() : &self;
  const unsigned slots = combined ? kMaxPlanes : 1;
  for (unsigned k = 0; k < slots; ++k) {
    FlashCommand* p = pages[k];
    if (!p) continue;
    if (combined) {
      hand_out(f, *p);
      p->issuer.ecc_ticks = f.issuer.ecc_ticks;
    }
    part_ended(*p, f.issuer.gathered ? *p : f);
    fw_sched_->completed(*p, outlet_);
    command_ended(*p);
  }
  // Outstanding until its completion has been handled (the allocations it led to above
  // still saw it), in the forecast as in the count per chip: a batch's parts one by
  // one, as they were released.
  const bool gathered = f.issuer.gathered;
  if (keep_forecast_) {
    if (!gathered) forecast_.completed(f, sim_now(), f.issuer.predicted_wait);
    else
      for (unsigned k = 0; k < slots; ++k)
        if (pages[k]) forecast_.completed(*pages[k], sim_now(), pages[k]->issuer.predicted_wait);
  }
  const unsigned counted = gathered ? f.plane_count() : 1;
  const std::uint32_t die = die_of(f);
  std::array<std::uint32_t, kMaxPlanes> ppas;
  unsigned n = 0;
  for (unsigned k = 0; k < slots; ++k) {
    FlashCommand* p = pages[k];
    if (!p) continue;
    ppas[n++] = p->issuer.ppa;
    if (combined) static_cast<tlm::tlm_generic_payload*>(p->exec.owner)->release();
  }
  if (batched(f)) {  // the die has room again: its held commands go on, a delta later
    batcher_.completed(die, f);
    if (batcher_.holds(die) && !die_dirty_[die]) {
      die_dirty_[die] = 1;
      dirty_dies_.push_back(die);
      work_settled_.notify(SC_ZERO_TIME);
    }
  }
  gp.release();
  for (unsigned i = 0; i < counted; ++i) chip_activity(chip, -1);
  for (unsigned i = 0; i < n; ++i) trace_command(ppas[i], -1);
}

void FirmwareCore::part_ended(FlashCommand& p, const FlashCommand& released) {
  load_add(ftl_.plane_of_ppa(p.issuer.ppa), p.op, -1);
  // The forecast's error, over the host's commands (the placement policy's concern; GC's
  // background work waits for the host's as long as the host keeps the die busy).
  if (!keep_forecast_ || (p.origin != FlashOrigin::HostRead && p.origin != FlashOrigin::RmwRead &&
                          p.origin != FlashOrigin::HostProgram))
    return;
  const Tick predicted = released.issuer.predicted_wait;
  const Tick actual = p.t_start > released.issuer.t_released ? p.t_start - released.issuer.t_released : 0;
  placement_.predicted_wait_ps[p.channel] += predicted;
  placement_.actual_wait_ps[p.channel] += actual;
  ++placement_.predicted_commands[p.channel];
  placement_.abs_error_ps += actual > predicted ? actual - predicted : predicted - actual;
}

void FirmwareCore::command_ended(FlashCommand& f) {
  if (f.op == FlashOp::Read && ecc_.on() && f.status == FlashStatus::Ok && !decoded(f)) return;
  // One handler per origin; each says what it does with every outcome.
  switch (f.origin) {
    case FlashOrigin::HostRead: host_read_ended(f); break;
    case FlashOrigin::RmwRead: rmw_read_ended(f); break;
    case FlashOrigin::HostProgram: host_program_ended(f); break;
    case FlashOrigin::GcRead: gc_read_ended(f); break;
    case FlashOrigin::GcProgram: gc_program_ended(f); break;
    case FlashOrigin::GcErase: gc_erase_ended(f); break;
    case FlashOrigin::None:
      SC_REPORT_ERROR("/ssd/controller/firmware", ("a completion of a command it did not issue: " + f.describe()).c_str());
      break;
  }
}

// A failure the firmware does not recover from: a protocol error, or an outcome a handler
// does not expect of its operation. An error naming the command and what failed.
void FirmwareCore::unrecovered(const FlashCommand& f, const char* what) {
  SC_REPORT_ERROR("/ssd/controller/firmware",
                  ("flash command failed (" + std::string(to_string(f.status)) + "): " + f.describe() +
                   (f.error.empty() ? std::string() : ": " + f.error) + "; " + what)
                      .c_str());
}

// The decoder's verdict on a read's worst codeword, as its status: Ok (decoded at the
// default level), ReadRetried (decoded at a further level), Uncorrectable (beyond the
// soft decode); or the page read again at the next level (false).
bool FirmwareCore::decoded(FlashCommand& f) {
  const unsigned level = f.read_level;
  switch (ecc_.verdict(f.bit_errors[f.first_plane()], level)) {
    case EccDecoder::Verdict::Decoded:
      ++faults_.tier_reads[ecc_.tier(level)];
      ++faults_.retries[level];
      if (level) f.status = FlashStatus::ReadRetried;
      return true;
    case EccDecoder::Verdict::Retry:
      retry_read(f);
      return false;
    case EccDecoder::Verdict::Uncorrectable:
      ++faults_.uncorrectable_reads;
      ++faults_.retries[level];
      f.status = FlashStatus::Uncorrectable;
      return true;
  }
  return true;
}

// The page read again at the next level (a read-retry step, then the soft-decision read),
// for the same purpose: its reads in flight stay counted (Ftl::add_pending_read) until
// the last attempt's end.
void FirmwareCore::retry_read(const FlashCommand& f) {
  ++faults_.retry_reads;
  FlashCommand& r = new_flash(FlashOp::Read, f.issuer.ppa, f.origin);
  r.read_level = static_cast<std::uint8_t>(f.read_level + 1);
  r.host = f.host;
  r.host_page = f.host_page;
  r.request = f.request;
  r.lpn = f.lpn;
  r.out_bytes = f.out_bytes;
  r.expected = f.expected;
  r.issuer.write_op = f.issuer.write_op;
  r.issuer.plane = f.issuer.plane;
  r.issuer.t_first_built = f.issuer.t_first_built ? f.issuer.t_first_built : f.issuer.t_built;
  send_flash(r, reserve_core(cfg_.cycles_per_page));
}

void FirmwareCore::block_failed(std::uint32_t plane) {
  if (read_only() || ftl_.keeps_spare(plane)) return;
  read_only_at_ = sim_now();
  const PhysAddr a = ftl_.decode(static_cast<std::uint32_t>(std::uint64_t{plane} * ftl_.config().nand.blocks_per_plane *
                                                            ftl_.config().nand.pages_per_block));
  read_only_reason_ = "plane ch" + std::to_string(a.channel) + ".chip" + std::to_string(a.chip) + ".die" +
                      std::to_string(a.die) + ".plane" + std::to_string(a.plane) + " keeps " +
                      std::to_string(ftl_.usable_blocks(plane)) + " usable blocks of " +
                      std::to_string(ftl_.config().nand.blocks_per_plane) + ", needs " +
                      std::to_string(ftl_.blocks_needed()) +
                      " (its share of the logical space, the GC low mark and an open block)";
  SC_REPORT_WARNING("/ssd/controller/firmware",
                    ("the device is read-only from " + std::to_string(ticks_to_us(read_only_at_)) + " us: " +
                     read_only_reason_ + "; host writes and trims are refused from now on")
                        .c_str());
}

void FirmwareCore::poison(std::uint64_t lpn) {
  if (lpn == kNoLpn || !poisoned_.insert(lpn).second) return;
  ++faults_.lost_pages;
}

void FirmwareCore::unpoison(std::uint64_t lpn) {
  if (!poisoned_.empty() && poisoned_.erase(lpn)) --faults_.lost_pages;
}

void FirmwareCore::page_unrecovered(tlm::tlm_generic_payload& host, std::uint32_t page) {
  HostCommand& c = host_cmd(host);
  c.tokens[page] = kUnrecoveredToken;
  c.status = HostStatus::MediaError;
  ++faults_.host_pages_unrecovered;
}

// Reads: Ok and ReadRetried deliver the data (a retried read only took longer).
// Uncorrectable: the page's data is lost (no parity across pages is modelled): the host
// page is answered with a media error, never with the data, and the logical page is
// poisoned. ProtocolError, or a program or erase outcome: an error.
void FirmwareCore::host_read_ended(FlashCommand& f) {
  read_done(f.issuer.ppa);
  auto& host_gp = *static_cast<tlm::tlm_generic_payload*>(f.host);
  if (f.status == FlashStatus::Uncorrectable) {
    if (ftl_.lookup(f.lpn) == f.issuer.ppa) poison(f.lpn);  // still its data (a newer write's program clears it)
    page_unrecovered(host_gp, f.host_page);
  } else if (f.status == FlashStatus::Ok || f.status == FlashStatus::ReadRetried) {
    host_cmd(host_gp).tokens[f.host_page] = f.token[f.first_plane()];
  } else {
    unrecovered(f, "a read cannot end so");
    return;
  }
  page_done(host_gp, &f);
}

// Read-modify-write: the old data uncorrectable, the page written is part new, part lost:
// the write goes on (with what the cells held, as the model knows it) and the logical page
// is poisoned until a write of all of it.
void FirmwareCore::rmw_read_ended(FlashCommand& f) {
  read_done(f.issuer.ppa);
  if (f.status == FlashStatus::Uncorrectable) {
    if (writes_.newest(f.issuer.write_op)) poison(f.lpn);  // a newer write of the page would replace it all
  } else if (f.status != FlashStatus::Ok && f.status != FlashStatus::ReadRetried) {
    unrecovered(f, "a read cannot end so");
    return;
  }
  writes_.old_data(f.issuer.write_op, f.token[f.first_plane()], sim_now());
}

// Programs: Ok. ProgramFailed: the page holds nothing; its block is retired (GC moves its
// valid pages first) and the data, still in the write buffer, is programmed again to
// another page (of another block). Anything else: an error.
void FirmwareCore::host_program_ended(FlashCommand& f) {
  const std::uint32_t ppa = f.issuer.ppa;
  const std::uint32_t op = f.issuer.write_op;
  if (f.status == FlashStatus::ProgramFailed) {
    ++faults_.program_failures;
    ftl_.programmed(ppa);
    ftl_.retire(ftl_.block_of_ppa(ppa));
    block_failed(ftl_.plane_of_ppa(ppa));
    if (writes_.newest(op)) {
      ++faults_.reprogrammed_pages;
      program(op, true);
    } else {
      ++counters_.superseded_programs;  // a newer write or a trim came meanwhile: nothing to write again
      write_page_done(op, &f);
    }
    gc_.maybe_start(ftl_.plane_of_ppa(ppa));  // the block may be collected at once
    return;
  }
  if (f.status != FlashStatus::Ok) {
    unrecovered(f, "a program cannot end so");
    return;
  }
  ftl_.programmed(ppa);
  if (writes_.newest(op)) {
    ftl_.map(writes_.op(op).lpn, ppa);
    // All of the page new: whatever an uncorrectable read found lost of it meanwhile is
    // replaced (a read of the old page may have ended after this write was taken).
    if (!writes_.op(op).partial) unpoison(writes_.op(op).lpn);
    writes_.on_flash(op);
  } else {
    ++counters_.superseded_programs;  // a newer write or a trim came meanwhile
  }
  write_page_done(op, &f);
  gc_.maybe_start(ftl_.plane_of_ppa(ppa));  // its block may have become a GC candidate
}

// A copy's read uncorrectable: the copy goes on (the model knows what the cells held) and
// the logical page is poisoned, so that no read returns it as good data.
void FirmwareCore::gc_read_ended(FlashCommand& f) {
  if (f.status == FlashStatus::Uncorrectable) {
    if (ftl_.is_valid(f.issuer.ppa)) poison(ftl_.written_owner(f.issuer.ppa));  // still its logical page's data
  } else if (f.status != FlashStatus::Ok && f.status != FlashStatus::ReadRetried) {
    unrecovered(f, "a read cannot end so");
    return;
  }
  gc_.copy_read_ended(f.issuer.plane, f.issuer.ppa, f.token[f.first_plane()]);
}

void FirmwareCore::gc_program_ended(FlashCommand& f) {
  if (f.status == FlashStatus::ProgramFailed) {
    ++faults_.program_failures;
    ftl_.retire(ftl_.block_of_ppa(f.issuer.ppa));
    block_failed(f.issuer.plane);
    if (gc_.copy_program_failed(f.issuer.plane, f.issuer.ppa, f.copy_from, f.lpn, f.token[f.first_plane()], f.priority))
      ++faults_.recopied_pages;
    return;
  }
  if (f.status != FlashStatus::Ok) {
    unrecovered(f, "a program cannot end so");
    return;
  }
  gc_.copy_program_ended(f.issuer.plane, f.issuer.ppa, f.copy_from, f.lpn, f.priority);
}

// Erases: Ok. EraseFailed: the block is retired instead of joining the free pool, and GC
// goes on with another victim if the plane still needs one. Anything else: an error.
void FirmwareCore::gc_erase_ended(FlashCommand& f) {
  const std::uint32_t plane = f.issuer.plane;
  if (f.status == FlashStatus::EraseFailed) {
    ++faults_.erase_failures;
    gc_.erase_failed(plane);
    block_failed(plane);
    gc_.maybe_start(plane);
    return;
  }
  if (f.status != FlashStatus::Ok) {
    unrecovered(f, "an erase cannot end so");
    return;
  }
  gc_.erase_ended(plane);
  wake_stalled(plane);  // host writes that waited for the space
  gc_.maybe_start(plane);
}

void FirmwareCore::read_done(std::uint32_t ppa) {
  ftl_.remove_pending_read(ppa);
  gc_.host_read_ended(ftl_.plane_of_ppa(ppa));
}

void FirmwareCore::GcPort::copy_read(std::uint32_t plane, std::uint32_t from) {
  if (fw_.listener_) fw_.listener_->copy_read_issued(from);
  FlashCommand& f = fw_.new_flash(FlashOp::Read, from, FlashOrigin::GcRead);
  f.issuer.plane = plane;
  fw_.send_flash(f, fw_.reserve_core(fw_.cfg_.cycles_per_gc_page));
}

void FirmwareCore::GcPort::copy_program(std::uint32_t plane, std::uint32_t to, std::uint32_t from, std::uint64_t lpn,
                                        Token token) {
  FlashCommand& p = fw_.new_flash(FlashOp::Program, to, FlashOrigin::GcProgram);
  p.token[fw_.ftl_.decode(to).plane] = token;
  p.issuer.plane = plane;
  p.lpn = lpn;
  p.copy_from = from;
  fw_.send_flash(p, fw_.reserve_core(fw_.cfg_.cycles_per_gc_page));
}

void FirmwareCore::GcPort::erase(std::uint32_t plane, std::uint32_t victim) {
  FlashCommand& f = fw_.new_flash(FlashOp::Erase, victim * fw_.ftl_.config().nand.pages_per_block, FlashOrigin::GcErase);
  f.issuer.plane = plane;
  fw_.send_flash(f, fw_.reserve_core(fw_.cfg_.cycles_per_gc_page));
}

}  // namespace ssd::ctrl
