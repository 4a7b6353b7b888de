#include "controller/holding_stage.h"

#include <algorithm>
#include <array>

#include "controller/combined_command.h"

namespace ssd::ctrl {

HoldingStage::HoldingStage(const Config& cfg, Ftl& ftl, WriteFrontier& frontier, GcUnit& gc, Core& core,
                           const Clock& clock, FirmwarePorts& ports, FirmwareTrace& trace, FirmwareCounters& counters,
                           PlacementCounters& placement, std::unique_ptr<FirmwareScheduler> policy)
    : nand_(ftl.part()),
      cfg_(cfg),
      ftl_(ftl),
      frontier_(frontier),
      gc_(gc),
      core_(core),
      ports_(ports),
      clock_(clock),
      trace_(trace),
      counters_(counters),
      placement_(placement),
      policy_(policy ? std::move(policy) : std::make_unique<InOrderRelease>()),
      outstanding_(nand_.chips(), 0),
      queues_(nand_.chips()),
      forecast_(nand_),
      bits_(nand_.bits_per_cell),
      units_(ftl.units_per_page()),
      wpl_(ftl.wordline_pages()) {
  const std::uint32_t dies = static_cast<std::uint32_t>(nand_.chips() * nand_.dies_per_chip);
  load_.assign(dies, {});
  if (cfg.batch_depth && nand_.multiplane && nand_.planes_per_die > 1)
    batcher_ = DieBatcher(dies, nand_.planes_per_die, cfg.batch_depth, cfg.order);
  die_dirty_.assign(dies, 0);
  placement_.predicted_wait_ps.assign(nand_.channels, 0);
  placement_.actual_wait_ps.assign(nand_.channels, 0);
  placement_.predicted_commands.assign(nand_.channels, 0);
  placement_.batch_sizes.assign(nand_.planes_per_die + 1, 0);
  if (wpl_ > 1) latches_.assign(std::size_t{ftl_.planes()} * 3, {});
}

void HoldingStage::load_add(std::uint32_t plane, FlashOp op, int delta) {
  AllocationView::DieLoad& l = load_[plane / nand_.planes_per_die];
  std::uint32_t& v = op == FlashOp::Read ? l.reads : op == FlashOp::Program ? l.programs : l.erases;
  v += delta;
}

FwCommand& HoldingStage::acquire_at(FlashOp op, const PhysAddr& a, FlashOrigin origin, std::uint32_t ppa,
                                     CommandIssuer& issuer) {
  FwCommand& c = commands_.acquire(op, 1, nand_.page_bytes);
  FlashCommand& f = *c.cmd;
  f.op = op;
  f.channel = a.channel;
  f.chip = a.chip;
  f.die = a.die;
  f.plane_mask = static_cast<std::uint8_t>(1u << a.plane);
  f.block[a.plane] = a.block;
  f.page = a.page;
  f.unit = static_cast<std::uint8_t>(a.unit);
  f.origin = origin;
  c.ppa = ppa;
  c.t_built = clock_.now();
  c.t_arrived = c.t_built;
  c.issuer = &issuer;
  return c;
}

FwCommand& HoldingStage::build(FlashOp op, std::uint32_t ppa, FlashOrigin origin, CommandIssuer& issuer,
                               std::uint32_t gc_plane) {
  FwCommand& c = acquire_at(op, ftl_.decode(ppa), origin, ppa, issuer);
  c.cmd->slc = ftl_.slc_page(ppa);  // a read or erase of the SLC cache (a program: when it binds)
  if (op == FlashOp::Read && reads_via_) {  // decoded first (read recovery), then to its issuer
    c.then = &issuer;
    c.issuer = reads_via_;
  }
  const std::uint32_t plane = ftl_.plane_of_ppa(ppa);
  if (is_gc(origin)) c.cmd->priority = gc_.issue_class(origin, gc_plane == kUnmapped ? plane : gc_plane, plane);
  load_add(plane, op, +1);
  if (op == FlashOp::Program) {  // its page held, bound when it leaves
    c.bound = false;
    frontier_.hold_page(ppa, origin == FlashOrigin::GcProgram);
  }
  trace_.command(ppa, +1, c.t_built);  // the firmware's commands: built and not completed
  return c;
}

FwCommand& HoldingStage::build_map(FlashOp op, std::uint32_t plane, const PhysAddr& a, CommandIssuer& issuer) {
  // (Its page numbers are the FTL's: the log's blocks are not among its blocks.)
  const nand::NandConfig& f = ftl_.config().nand;
  FwCommand& c = acquire_at(op, a, FlashOrigin::MapLog, plane * f.blocks_per_plane * f.pages_per_block, issuer);
  c.cmd->slc = bits_ > 1;  // the log is written in SLC mode (Ftl::map_log_pages_per_block)
  load_add(plane, op, +1);
  trace_.command(c.ppa, +1, c.t_built);
  return c;
}

void HoldingStage::submit(FwCommand& c, Tick ready) {
  c.where = Submitted;
  c.ready = ready;
  policy_->submit(c, ready, outlet_);
}

// ---- the chips' queues ----

void HoldingStage::link_back(FwCommand& c) {
  Queue& q = queues_[chip_of(c)];
  c.prev = q.tail;
  c.next = nullptr;
  if (q.tail) q.tail->next = &c;
  else q.head = &c;
  q.tail = &c;
  ++q.size;
  if (movable(c)) ++q.programs;
  c.where = Held;
}

void HoldingStage::link_before(FwCommand& c, FwCommand* at) {
  if (!at) {
    link_back(c);
    return;
  }
  Queue& q = queues_[chip_of(c)];
  c.next = at;
  c.prev = at->prev;
  if (at->prev) at->prev->next = &c;
  else q.head = &c;
  at->prev = &c;
  ++q.size;
  if (movable(c)) ++q.programs;
  c.where = Held;
}

void HoldingStage::unlink(FwCommand& c) {
  Queue& q = queues_[chip_of(c)];
  if (c.prev) c.prev->next = c.next;
  else q.head = c.next;
  if (c.next) c.next->prev = c.prev;
  else q.tail = c.prev;
  c.prev = c.next = nullptr;
  --q.size;
  if (movable(c)) --q.programs;
  c.where = Submitted;
}

void HoldingStage::hold(FwCommand& c, Tick ready) {
  if (c.released) {
    ports_.error("a firmware scheduler held a command it had released: " + c.cmd->describe());
    return;
  }
  if (c.where == Held) unlink(c);
  c.ready = ready;
  link_back(c);
}

std::size_t HoldingStage::take_out(FwCommand& c) {
  if (c.where != Held) {
    ports_.error("a firmware scheduler took out a command its queues do not hold: " + c.cmd->describe());
    return 0;
  }
  std::size_t place = 0;
  for (const FwCommand* e = queues_[chip_of(c)].head; e && e != &c; e = e->next) ++place;
  unlink(c);
  c.where = TakenOut;
  return place;
}

void HoldingStage::put_back(FwCommand& c, std::size_t place) {
  if (c.where != TakenOut) {
    ports_.error("a firmware scheduler put back a command it had not taken out: " + c.cmd->describe());
    return;
  }
  FwCommand* at = queues_[chip_of(c)].head;
  for (std::size_t k = 0; k < place && at; ++k) at = at->next;
  link_before(c, at);
}

// ---- release ----

void HoldingStage::release(FwCommand& c, Tick at) {
  if (c.released) {
    ports_.error("a firmware scheduler released a command twice: " + c.cmd->describe());
    return;
  }
  if (c.where == Held) unlink(c);
  c.released = true;
  issued(c);
  if (at <= clock_.now()) {
    leave(c);
  } else {
    c.where = Timed;
    ports_.wake_at(c, at);
  }
}

void HoldingStage::issued(FwCommand& c) {
  chip_activity(chip_of(c), +1);
  const Tick now = clock_.now();
  c.t_released = now;
  if (cfg_.keep_forecast) c.predicted_wait = forecast_.issued(*c.cmd, now, delay_origin(c));
  if (!listener_ || c.cmd->op != FlashOp::Program) return;
  if (!c.combined()) listener_->program_issued(c.cmd->lpn, c.replaces);
  else
    for (const FwCommand* p : c.part)
      if (p) listener_->program_issued(p->cmd->lpn, p->replaces);
}

void HoldingStage::time_came(FwCommand& c) {
  if (c.group == &c) leave_group(c);
  else leave(c);
}

// A released command leaves at its time: through the batching when it is on, else on at
// once (the block orders GC's against the host's by its class).
void HoldingStage::leave(FwCommand& c) {
  if (c.write_group) {  // a write group's: gathered until the group leaves
    WriteGroup* g = write_group(c.write_group);
    if (g) {
      gather(c, *g);
      return;
    }
    c.write_group = 0;
  }
  if (!batched(c)) {
    send(c);
    return;
  }
  const std::uint32_t die = die_of(c);
  c.where = Queued;
  batcher_.push(die, plane_of(c) % nand_.planes_per_die, c);
  if (!die_dirty_[die]) {
    die_dirty_[die] = 1;
    dirty_dies_.push_back(die);
  }
  ports_.settle_soon();  // the instant's commands are batched together
}

// Late binding: the program takes its plane stream's first page held (in the order
// programs leave: a block's pages in order, whatever order they were released in).
void HoldingStage::bind(FwCommand& c) {
  const std::uint32_t plane = plane_of(c);
  const bool gc = c.cmd->origin == FlashOrigin::GcProgram;
  std::uint32_t ppa;
  if (mixes(c)) {  // into the host stream's partial wordline: its next page
    const Latch& H = latches_[latch_of(plane, false)];
    const std::uint32_t want = H.page[0]->ppa + H.count;
    frontier_.give_back(plane, true);  // the GC stream's last page held (they are alike)
    ppa = ftl_.allocate_tlc(plane, false);
    if (ppa != want) ports_.error("a mixed GC copy is not its host wordline's next page");
    c.mixed = true;
    ++counters_.mixed_pages;
    gc_.copy_mixed(plane, c.cmd->priority);
    c.cmd->priority = FlashPriority::Host;
    // The GC stream's wordline this copy would have filled: padded now if its run's end
    // came while the copy was still to bind (gc_wordlines_due) and no other is to bind.
    const Latch& G = latches_[latch_of(plane, true)];
    if (G.tail && G.count && !G.queued && !frontier_.held_pages(plane, true)) pad_soon(latch_of(plane, true));
  } else {
    ppa = frontier_.bind(plane, gc);
  }
  const PhysAddr a = ftl_.decode(ppa);
  c.cmd->block[a.plane] = a.block;
  c.cmd->page = a.page;
  c.cmd->unit = static_cast<std::uint8_t>(a.unit);
  c.cmd->slc = ftl_.slc_page(ppa);  // the SLC cache's: a program of one page in SLC mode
  c.ppa = ppa;
  c.bound = true;
}

void HoldingStage::send(FwCommand& c) {
  if (!c.bound) bind(c);
  if (wpl_ > 1 && !c.combined()) {
    if (!wordline(c)) return;  // latched: its wordline's last page takes it
    if (life_ && c.lined) tell_carries(c);  // its pages, the wordline's lower ones with it
  }
  if (cfg_.mark_hazards) {
    // A command of several pages the firmware made is checked, then counted, page by page.
    bool conflicts = false;
    each_page(c, [&](const FwCommand& p) { conflicts = conflicts || hazards_.conflicts(*p.cmd); });
    each_page(c, [&](const FwCommand& p) { hazards_.add(*p.cmd); });
    c.cmd->keep_order = conflicts;
  }
  c.where = Sent;
  ports_.send(c);
}

FwCommand& HoldingStage::combine(FwCommand* const* parts, unsigned n) {
  FwCommand& w = commands_.acquire(parts[0]->cmd->op, n, nand_.page_bytes);
  begin_combined(*w.cmd, *parts[0]->cmd);
  w.t_built = parts[0]->t_built;
  w.t_arrived = parts[0]->t_arrived;
  for (unsigned i = 1; i < n; ++i) w.t_arrived = std::min(w.t_arrived, parts[i]->t_arrived);
  w.ppa = parts[0]->ppa;
  for (unsigned i = 0; i < n; ++i) {
    join(*w.cmd, *parts[i]->cmd);
    w.part[parts[i]->cmd->first_plane()] = parts[i];
    parts[i]->released = true;
    parts[i]->where = Sent;
  }
  if (life_) tell_carries(w);  // its pages, plane by plane
  return w;
}

void HoldingStage::settle() {
  if (wpl_ > 1) {
    settle_batches();
    // Their issuers told of the programs latched (GC issues more copies), then partial
    // wordlines due padded and on to the block.
    while (!just_latched_.empty() || !pads_.empty()) {
      std::vector<FwCommand*> told;
      told.swap(just_latched_);
      for (FwCommand* c : told) c->issuer->latched(*c);
      std::vector<std::uint32_t> due;
      due.swap(pads_);
      for (const std::uint32_t l : due) {
        latches_[l].queued = false;
        pad(l);
      }
      settle_batches();
    }
    return;
  }
  settle_batches();
}

void HoldingStage::settle_batches() {
  if (dirty_dies_.empty()) return;
  std::vector<std::uint32_t> dies;
  dies.swap(dirty_dies_);
  const auto at = [this](const FwCommand& c) { return offset(c); };
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
    FwCommand* parts[kMaxPlanes];
    unsigned n = batcher_.take(die, parts, at);
    for (unsigned i = 0; i < n; ++i)
      if (!parts[i]->bound) bind(*parts[i]);
    n = going_on(parts, n);  // a wordline's lower pages wait for its last
    if (n == 0) continue;
    if (!one_class(parts, n)) {  // a mixed copy among them: each alone
      for (unsigned i = 0; i < n; ++i) {
        ++placement_.batches;
        ++placement_.batch_sizes[1];
        batcher_.sent(die, *parts[i]->cmd);
        send(*parts[i]);
      }
      continue;
    }
    FwCommand* c = parts[0];
    if (n > 1) {
      FwCommand& w = combine(parts, n);
      w.released = true;
      w.gathered = true;
      ++counters_.combined_commands;
      placement_.multiplane_pages += n;
      if (cfg_.keep_forecast) forecast_.combined(*w.cmd, n);
      c = &w;
    }
    ++placement_.batches;
    ++placement_.batch_sizes[n];
    batcher_.sent(die, *c->cmd);
    send(*c);
  }
}

// ---- write groups ----

void HoldingStage::join_group(FwCommand& c, const WriteAllocator::GroupNote& g) {
  // Gathered only when the batching may join them and the release policy holds nothing.
  if (!batcher_.on() || !policy_->releases_all()) return;
  write_groups_.erase(std::remove_if(write_groups_.begin(), write_groups_.end(),
                                     [](const WriteGroup& w) { return w.id == 0; }),
                      write_groups_.end());  // gone
  if (g.opened) {
    close_group();
    write_groups_.push_back({g.id, g.until, 0, false, {}});
    if (g.until > clock_.now()) ports_.alarm_at(g.until);
  }
  WriteGroup* w = write_group(g.id);
  if (!w) return;  // gone at its start already: the page goes alone
  ++w->joined;
  c.write_group = g.id;
  if (g.last) w->closed = true;
}

void HoldingStage::close_group() {
  if (write_groups_.empty() || write_groups_.back().closed) return;
  write_groups_.back().closed = true;  // no more pages join it
  group_may_leave(write_groups_.back());
}

HoldingStage::WriteGroup* HoldingStage::write_group(std::uint64_t id) {
  for (WriteGroup& g : write_groups_)
    if (g.id == id) return &g;
  return nullptr;
}

void HoldingStage::gather(FwCommand& c, WriteGroup& g) {
  c.where = Gathering;
  g.gathered.push_back(&c);
  group_may_leave(g);
}

// The group leaves when complete, or at its forecast start: its programs gathered go on
// at this instant, in the order they came; one released later goes on alone.
void HoldingStage::group_may_leave(WriteGroup& g) {
  if (g.id == 0) return;
  if (clock_.now() < g.until && !(g.closed && g.gathered.size() == g.joined)) return;
  g.id = 0;  // gone
  std::vector<FwCommand*> out;
  out.swap(g.gathered);
  for (FwCommand* c : out) {
    c->write_group = 0;
    leave(*c);
  }
}

void HoldingStage::alarm() {
  if (partial_) {
    if (clock_.now() >= next_due_) {  // partial wordlines due
      next_due_ = ~Tick{0};
      for (std::uint32_t l = 0; l < latches_.size(); ++l)
        if (latches_[l].count) wordline_check(l);
    } else if (next_due_ != ~Tick{0}) {
      ports_.alarm_at(next_due_);  // asked again: an earlier call (a write group's) may have taken its place
    }
  }
  if (write_groups_.empty()) return;
  const Tick now = clock_.now();
  Tick next = ~Tick{0};
  for (std::size_t i = 0; i < write_groups_.size(); ++i) {  // by index: leaving may add groups
    if (write_groups_[i].id == 0) continue;
    if (write_groups_[i].until <= now) group_may_leave(write_groups_[i]);
    else next = std::min(next, write_groups_[i].until);
  }
  if (next != ~Tick{0}) ports_.alarm_at(next);
}

// A write group's program that leaves another way (cancelled, released together with
// others by the release policy): the group no longer waits for it.
void HoldingStage::leaves_group(FwCommand& c) {
  if (!c.write_group) return;
  WriteGroup* g = write_group(c.write_group);
  c.write_group = 0;
  if (!g) return;
  --g->joined;
  group_may_leave(*g);
}

// ---- what a policy may change while it holds a command ----

bool HoldingStage::retarget(FwCommand& c, std::uint32_t plane) {
  if (c.bound || c.released || c.cmd->origin != FlashOrigin::HostProgram || plane >= ftl_.planes()) return false;
  const std::uint32_t from = plane_of(c);
  if (plane == from) return true;
  if (frontier_.writes_waiting(plane)) return false;  // writes wait for space there: they go first
  const std::uint32_t ppa = ftl_.allocate(plane, false);
  if (ppa == kUnmapped) return false;
  const bool queued = c.where == Held;
  if (queued) unlink(c);
  leaves_group(c);  // moved off its group's chip: it goes alone
  FlashCommand& f = *c.cmd;
  const Token t = f.token[ftl_.decode(c.ppa).plane];
  frontier_.give_back(from, false);
  load_add(from, FlashOp::Program, -1);
  load_add(plane, FlashOp::Program, +1);
  const PhysAddr a = ftl_.decode(ppa);
  f.channel = a.channel;
  f.chip = a.chip;
  f.die = a.die;
  f.plane_mask = static_cast<std::uint8_t>(1u << a.plane);
  f.token[a.plane] = t;
  c.ppa = ppa;
  frontier_.hold_page(ppa, false);
  if (queued) link_back(c);  // to the back of its new chip's queue
  const Tick now = clock_.now();
  trace_.plane(from, now);
  trace_.plane(plane, now);
  gc_.maybe_start(plane);
  frontier_.wake(from);  // a page freed where writes may wait
  if (wpl_ > 1) {  // its wordlines may wait for no program now
    wordline_check(latch_of(from, false));
    wordline_check(slc_latch(from));
  }
  return true;
}

bool HoldingStage::cancel(FwCommand& c) {
  if (c.bound || c.released || !c.issuer || !c.issuer->superseded(c)) return false;
  leaves_group(c);
  if (c.where == Held) unlink(c);
  const std::uint32_t plane = plane_of(c);
  const bool gc_stream = c.cmd->origin == FlashOrigin::GcProgram;
  frontier_.give_back(plane, gc_stream);
  load_add(plane, FlashOp::Program, -1);
  ++counters_.cancelled_programs;
  CommandIssuer* issuer = c.issuer;
  const std::uint32_t op = c.write_op;
  trace_.command(c.ppa, -1, clock_.now());
  commands_.release(c);
  issuer->cancelled(op);  // the newer write carries the page
  frontier_.wake(plane);
  if (wpl_ > 1) {  // its wordlines may wait for no program now
    wordline_check(latch_of(plane, gc_stream));
    if (!gc_stream) wordline_check(slc_latch(plane));
  }
  return true;
}

std::string HoldingStage::why_not_together(FwCommand* const* parts, unsigned n) const {
  for (unsigned i = 0; i < n; ++i)
    if (!parts[i]) return "a null part";
  if (n == 0) return "no part";
  FlashCommand probe;
  begin_combined(probe, *parts[0]->cmd);
  const std::uint32_t at = parts[0]->cmd->op == FlashOp::Erase ? 0 : offset(*parts[0]);
  for (unsigned i = 0; i < n; ++i) {
    const FwCommand& p = *parts[i];
    if (p.combined()) return "not a single-page command";
    if (p.released) return "already released";
    // One class: the block keeps a plane's programs in order within a class only.
    if (p.cmd->priority != parts[0]->cmd->priority) return "another priority class";
    // An unbound program's offset is its stream's (checked below), not the page held for
    // it: the probe takes that page, so that the other rules (its plane not taken, one
    // read level) are still checked.
    if (!p.bound) probe.page = p.cmd->page;
    const std::string why = why_not_joined(probe, *p.cmd);
    if (!why.empty()) return why;
    if (p.cmd->op != FlashOp::Erase && offset(p) != at) return "another page offset";
    probe.plane_mask = static_cast<std::uint8_t>(probe.plane_mask | p.cmd->plane_mask);
  }
  return {};
}

bool HoldingStage::release_together(FwCommand* const* parts, unsigned n, Tick at) {
  // Checked first, joined after: a part is marked released only when all can join.
  if (n < 2 || n > nand_.planes_per_die || !nand_.multiplane || !why_not_together(parts, n).empty()) return false;
  bool unbound = false;
  for (unsigned i = 0; i < n; ++i) unbound = unbound || !parts[i]->bound;
  if (!unbound) {
    for (unsigned i = 0; i < n; ++i)
      if (parts[i]->where == Held) unlink(*parts[i]);
    FwCommand& w = combine(parts, n);
    ++counters_.combined_commands;
    release(w, at);
    return true;
  }
  // Programs without their pages yet: each released now, the group leaving with its first,
  // joined then if their planes' streams are still at one offset.
  FwCommand& first = *parts[0];
  for (unsigned i = 0; i < n; ++i) {
    FwCommand& p = *parts[i];
    if (p.where == Held) unlink(p);
    p.group = &first;
    p.next = i + 1 < n ? parts[i + 1] : nullptr;
    p.released = true;
    p.where = Grouped;
    leaves_group(p);
    issued(p);
  }
  if (at <= clock_.now()) {
    leave_group(first);
  } else {
    first.where = Timed;
    ports_.wake_at(first, at);
  }
  return true;
}

void HoldingStage::leave_group(FwCommand& first) {
  FwCommand* parts[kMaxPlanes];
  unsigned n = 0;
  for (FwCommand* p = &first; p; p = p->next) parts[n++] = p;
  for (unsigned i = 0; i < n; ++i) {
    parts[i]->next = nullptr;
    parts[i]->group = nullptr;
  }
  bool one_offset = true;
  const std::uint32_t at = offset(*parts[0]);
  for (unsigned i = 1; i < n; ++i) one_offset = one_offset && offset(*parts[i]) == at;
  // Bound now, so on to the block now: a program binds its page only as it leaves for the
  // block, so that a plane's pages reach it in order (one that waited in the batching's
  // lanes bound could be passed there). The batching counts it in the block all the same.
  const auto out = [this](FwCommand& c) {
    if (batched(c)) batcher_.sent(die_of(c), *c.cmd);
    send(c);
  };
  for (unsigned i = 0; i < n; ++i)
    if (!parts[i]->bound) bind(*parts[i]);
  n = going_on(parts, n);  // a wordline's lower pages wait for its last
  if (n == 0) return;
  if (!one_offset || n == 1 || !one_class(parts, n)) {
    for (unsigned i = 0; i < n; ++i) out(*parts[i]);
    return;
  }
  FwCommand& w = combine(parts, n);
  w.released = true;
  w.gathered = true;
  ++counters_.combined_commands;
  if (cfg_.keep_forecast) forecast_.combined(*w.cmd, n);
  out(w);
}

// ---- completions ----

void HoldingStage::chip_activity(std::uint32_t chip, int delta) {
  outstanding_[chip] += delta;
  if (outstanding_[chip] != 0) return;
  gc_.chip_idle(chip);
  if (outstanding_[chip] == 0) policy_->chip_idle(chip, outlet_);
}

void HoldingStage::part_ended(FwCommand& p, const FwCommand& released) {
  load_add(plane_of(p), p.cmd->op, -1);
  // The forecast's error, over the host's commands (the placement policy's concern; GC's
  // background work waits for the host's as long as the host keeps the die busy).
  const FlashOrigin o = p.cmd->origin;
  if (!cfg_.keep_forecast || (o != FlashOrigin::HostRead && o != FlashOrigin::RmwRead && o != FlashOrigin::HostProgram))
    return;
  const FlashCommand& f = *p.cmd;
  const Tick predicted = released.predicted_wait;
  const Tick from = delay_origin(released);
  const Tick actual = f.t_start > from ? f.t_start - from : 0;
  placement_.predicted_wait_ps[f.channel] += predicted;
  placement_.actual_wait_ps[f.channel] += actual;
  ++placement_.predicted_commands[f.channel];
  placement_.abs_error_ps += actual > predicted ? actual - predicted : predicted - actual;
  // A write group's first page: the group's forecast start against its first page's start,
  // both from the group's opening (the page's build).
  if (p.group_start != WriteAllocator::kNoGroup) {
    const Tick gp = p.group_start > p.t_built ? p.group_start - p.t_built : 0;
    const Tick ga = f.t_start > p.t_built ? f.t_start - p.t_built : 0;
    placement_.group_predicted_ps += gp;
    placement_.group_actual_ps += ga;
    placement_.group_abs_error_ps += ga > gp ? ga - gp : gp - ga;
    ++placement_.groups_timed;
  }
}

// A flash command's end, each of its pages handed out as if it had run alone.
void HoldingStage::completed(FwCommand& f) {
  if (cfg_.mark_hazards) each_page(f, [&](const FwCommand& p) { hazards_.remove(*p.cmd); });
  const std::uint32_t chip = chip_of(f);
  const bool combined = f.combined();
  FwCommand* self = &f;
  FwCommand* const* pages = combined ? f.part.data() : &self;
  const unsigned slots = combined ? kMaxPlanes : 1;
  for (unsigned k = 0; k < slots; ++k) {
    FwCommand* p = pages[k];
    if (!p) continue;
    if (combined) {
      hand_out(*f.cmd, *p->cmd);
      p->ecc_ticks = f.ecc_ticks;
    }
    if (p->lined) lower_ended(*p, *f.cmd);  // a wordline's lower pages first, in page order
    part_ended(*p, f.gathered ? *p : f);
    policy_->completed(*p, outlet_);
    if (p->issuer) p->issuer->ended(*p);
    else ports_.error("a completion of a command it did not issue: " + p->cmd->describe());
  }
  // Outstanding until its completion has been handled (the allocations it led to above
  // still saw it), in the forecast as in the count per chip: a joined command's parts one
  // by one, as they were released.
  const bool gathered = f.gathered;
  if (cfg_.keep_forecast) {
    if (!gathered) forecast_.completed(*f.cmd, clock_.now(), f.predicted_wait);
    else
      for (unsigned k = 0; k < slots; ++k)
        if (pages[k]) forecast_.completed(*pages[k]->cmd, clock_.now(), pages[k]->predicted_wait);
  }
  const unsigned counted = gathered ? f.cmd->plane_count() : 1;
  const std::uint32_t die = die_of(f);
  std::array<std::uint32_t, kMaxPlanes> ppas;
  unsigned n = 0;
  for (unsigned k = 0; k < slots; ++k) {
    FwCommand* p = pages[k];
    if (!p) continue;
    ppas[n++] = p->ppa;
    if (combined) commands_.release(*p);
  }
  if (batched(f)) {  // the die has room again: its held commands go on, a delta later
    batcher_.completed(die, *f.cmd);
    if (batcher_.holds(die) && !die_dirty_[die]) {
      die_dirty_[die] = 1;
      dirty_dies_.push_back(die);
      ports_.settle_soon();
    }
  }
  commands_.release(f);
  for (unsigned i = 0; i < counted; ++i) chip_activity(chip, -1);
  const Tick now = clock_.now();
  for (unsigned i = 0; i < n; ++i) trace_.command(ppas[i], -1, now);
}

// ---- wordlines ----

bool HoldingStage::wordline(FwCommand& c) {
  FlashCommand& f = *c.cmd;
  if (f.op != FlashOp::Program || c.lined || f.origin == FlashOrigin::MapLog || (f.slc && units_ == 1)) return true;
  const std::uint32_t plane = plane_of(c);
  const bool gc = f.origin == FlashOrigin::GcProgram && !c.mixed;
  const std::uint32_t l = f.slc ? slc_latch(plane) : latch_of(plane, gc);
  Latch& L = latches_[l];
  // The stream moved on to another block while a wordline of its last was partial (that
  // block closed when a program to it failed): the old wordline is padded first.
  if (L.count && ftl_.block_of_ppa(L.page[0]->ppa) != ftl_.block_of_ppa(c.ppa)) pad(l, true);
  // Its place in the program: its page in the wordline (none in SLC mode), its unit in the page.
  const unsigned size = latch_size(f.slc), k = (f.slc ? 0 : f.page % bits_) * units_ + f.unit;
  if (k != L.count) {
    ports_.error("a program bound page " + std::to_string(f.page) + " of its wordline, whose stream has " +
                 std::to_string(L.count) + " pages latched: " + f.describe());
    return true;
  }
  const std::uint32_t chip = chip_of(c);
  if (k + 1 < size) {  // a lower page: latched until the wordline's last binds
    L.page[k] = &c;
    ++L.count;
    c.where = Latched;
    c.latched = true;
    c.t_latched = clock_.now();
    just_latched_.push_back(&c);
    ports_.settle_soon();
    chip_activity(chip, -1);  // in the firmware's buffer, not the block's
    if (k == 0) {
      ++partial_;
      L.due = clock_.now() + cfg_.wordline_fill;
    }
    if (!padding_) wordline_check(l);
    return false;
  }
  // The last page: the command programs the wordline, its first page's address, each
  // page's data in its place (with mapping units, each unit's: FlashCommand::unit_tokens).
  const unsigned p = f.first_plane();
  Token* units = units_ > 1 ? commands_.unit_tokens(c) : nullptr;
  if (units) {
    units[k] = f.token[p];
    f.unit_tokens[p] = units;
    f.unit_planes = static_cast<std::uint8_t>(1u << p);
  } else {
    f.wordline_token[k - 1][p] = f.token[p];
  }
  FwCommand** next = &c.lower;
  for (unsigned j = 0; j < k; ++j) {
    FwCommand& q = *L.page[j];
    if (units) units[j] = q.cmd->token[p];
    else (j == 0 ? f.token[p] : f.wordline_token[j - 1][p]) = q.cmd->token[p];
    *next = &q;
    next = &q.next_lower;
    q.next_lower = nullptr;
    q.where = Sent;
    q.wordline_wait = clock_.now() - q.t_latched;
    chip_activity(chip, +1);
  }
  f.page -= k / units_;
  f.unit = 0;
  c.lined = true;
  L = Latch{};
  --partial_;
  ++counters_.wordlines;
  return true;
}

void HoldingStage::gc_wordlines_due(std::uint32_t plane) {
  if (wpl_ == 1) return;
  const std::uint32_t ppd = nand_.planes_per_die, first = gc_.copies_in_die() ? plane / ppd * ppd : plane;
  const std::uint32_t n = gc_.copies_in_die() ? ppd : 1;
  for (std::uint32_t p = first; p < first + n; ++p) {
    Latch& L = latches_[latch_of(p, true)];
    if (L.count && !L.queued) {
      if (frontier_.held_pages(p, true)) L.tail = true;  // padded once those have bound (bind)
      else pad_soon(latch_of(p, true));
    }
    // A host wordline holding the run's copies (mixed) is padded too, unless host
    // programs are to come there: the victim's erase waits for those copies.
    Latch& H = latches_[latch_of(p, false)];
    if (!H.count || H.queued || frontier_.held_pages(p, false)) continue;
    bool copies = false;
    for (unsigned k = 0; k < H.count; ++k) copies = copies || H.page[k]->mixed;
    if (copies) pad_soon(latch_of(p, false));
  }
}

void HoldingStage::pad_soon(std::uint32_t l) {
  latches_[l].queued = true;
  pads_.push_back(l);
  ports_.settle_soon();
}

unsigned HoldingStage::going_on(FwCommand** parts, unsigned n) {
  if (wpl_ == 1) return n;
  unsigned m = 0;
  for (unsigned i = 0; i < n; ++i)
    if (wordline(*parts[i])) parts[m++] = parts[i];
  return m;
}

void HoldingStage::wordline_check(std::uint32_t l) {
  Latch& L = latches_[l];
  // GC's: padded at its run's end (gc_wordlines_due), as its next copies come meanwhile.
  if (gc_latch(l)) return;
  if (!L.count || L.queued || frontier_.held_pages(plane_of_latch(l), false)) return;  // programs to come bind its pages
  if (clock_.now() >= L.due) {
    pad_soon(l);
    return;
  }
  if (L.due < next_due_) next_due_ = L.due;
  ports_.alarm_at(L.due);
}

// The wordline's other pages, filler: allocated from its block while the block is its
// stream's open one, else (the block closed when a program to it failed) programmed
// without an allocation, so that the NAND's wordline is whole.
void HoldingStage::pad(std::uint32_t l, bool moved_on) {
  Latch& L = latches_[l];
  const std::uint32_t plane = plane_of_latch(l);
  const bool gc = gc_latch(l), slc = is_slc_latch(l);
  if (!L.count || (!moved_on && frontier_.held_pages(plane, gc))) return;  // a program came for it meanwhile
  const FwCommand& first = *L.page[0];
  const std::uint32_t block = ftl_.block_of_ppa(first.ppa);
  const unsigned from = L.count;
  const Tick now = clock_.now();
  const bool was_padding = padding_;
  padding_ = true;
  for (unsigned k = from, size = latch_size(first.cmd->slc); k < size; ++k) {
    const std::uint32_t ppa = first.ppa + k;
    bool allocated = false;
    if ((slc ? ftl_.open_slc_block(plane) : ftl_.open_block(plane, gc)) == block) {
      if ((slc ? ftl_.allocate_slc(plane) : ftl_.allocate_tlc(plane, gc)) != ppa)
        ports_.error("a filler page is not its wordline's next page");
      allocated = true;
    }
    FwCommand& c = acquire_at(FlashOp::Program, ftl_.decode(ppa), first.cmd->origin, ppa, filler_);
    c.cmd->slc = slc;  // a page of the SLC cache's
    c.cmd->priority = first.cmd->priority;
    c.cmd->token[c.cmd->first_plane()] = kUnwrittenToken;
    c.filler_allocated = allocated;
    c.released = true;
    c.t_released = now;
    load_add(plane, FlashOp::Program, +1);
    trace_.command(ppa, +1, now);
    chip_activity(chip_of(c), +1);
    if (cfg_.keep_forecast) c.predicted_wait = forecast_.issued(*c.cmd, now, now);
    ++counters_.padded_pages;
    if (wordline(c)) {  // the last: on to the block with the others
      if (life_) tell_carries(c);
      if (batched(c)) batcher_.sent(die_of(c), *c.cmd);
      send(c);
    }
  }
  padding_ = was_padding;
}

void HoldingStage::lower_ended(FwCommand& carrier, const FlashCommand& whole) {
  const Tick now = clock_.now();
  for (FwCommand* next = carrier.lower; next;) {
    FwCommand& q = *next;
    next = q.next_lower;
    q.next_lower = nullptr;
    hand_out(whole, *q.cmd);
    part_ended(q, q);
    policy_->completed(q, outlet_);
    q.issuer->ended(q);
    if (cfg_.keep_forecast) forecast_.completed(*q.cmd, now, q.predicted_wait);
    chip_activity(chip_of(q), -1);
    trace_.command(q.ppa, -1, now);
    commands_.release(q);
  }
  carrier.lower = nullptr;
  // The carrier's own page and data again, for its issuer (with mapping units its data
  // stayed in `token`).
  FlashCommand& f = *carrier.cmd;
  if (units_ > 1) {
    const PhysAddr a = ftl_.decode(carrier.ppa);
    f.page = a.page;
    f.unit = static_cast<std::uint8_t>(a.unit);
    return;
  }
  const unsigned p = f.first_plane(), k = bits_ - 1;
  f.page += k;
  f.token[p] = f.wordline_token[k - 1][p];
}

void HoldingStage::Filler::ended(FwCommand& c) {
  const FlashStatus st = c.cmd->status;
  if (st != FlashStatus::Ok && st != FlashStatus::ProgramFailed) {
    s_.ports_.error(unrecovered(*c.cmd, "a program cannot end so"));
    return;
  }
  if (c.filler_allocated) s_.ftl_.programmed(c.ppa);
  // A failed wordline fails its data pages too: their issuers retire the block.
  if (st == FlashStatus::Ok) s_.gc_.maybe_start(s_.plane_of(c));
}

}  // namespace ssd::ctrl
