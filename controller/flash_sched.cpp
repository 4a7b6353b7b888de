#include "controller/flash_sched.h"

#include "controller/combined_command.h"

#include "common/activations.h"
#include "tlm/illegal_phase.h"
#include "tlm/sim_now.h"

#include <algorithm>
#include <cmath>

namespace ssd::ctrl {

using namespace sc_core;

FlashSched::FlashSched(sc_module_name name, const SchedConfig& cfg, const nand::NandConfig& n,
                       std::unique_ptr<SchedPolicy> policy)
    : sc_module(name), target("target"), cfg_(cfg), policy_(std::move(policy)) {
  period_ = static_cast<Tick>(std::llround(1e6 / cfg.clock_mhz));
  if (period_ == 0) period_ = 1;
  target.register_nb_transport_fw(this, &FlashSched::fw);
  for (unsigned c = 0; c < n.channels; ++c) {
    nand.push_back(std::make_unique<FlashInitiatorSocketTagged<FlashSched>>(("nand" + std::to_string(c)).c_str()));
    nand.back()->register_nb_transport_bw(this, &FlashSched::bw, static_cast<int>(c));
  }
  SC_HAS_PROCESS(FlashSched);
  SC_METHOD(decide);
  sensitive << decide_event_;
  dont_initialize();
  changed_bits_.assign((n.channels + 63) / 64, 0);
  changed_.reserve(n.channels);
  chips_per_channel_ = n.chips_per_channel;
  dies_per_chip_ = n.dies_per_chip;
  if (cfg.suspend && !policy_->set_suspend(cfg.suspend, cfg.suspend_min_remaining_us, cfg.suspend_gc_reads,
                                           cfg.suspend_hold_programs))
    throw std::invalid_argument(param::key(&SchedConfig::suspend) + ": this scheduler policy cannot suspend");
}

void FlashSched::attach(nand::NandDevice& device) {
  const nand::NandConfig& d = device.config();
  if (d.channels != nand.size() || d.chips_per_channel != chips_per_channel_ || d.dies_per_chip != dies_per_chip_)
    throw std::invalid_argument(std::string(name()) + ": attached to a NAND of " + std::to_string(d.channels) + " x " +
                                std::to_string(d.chips_per_channel) + " x " + std::to_string(d.dies_per_chip) +
                                " (channels x chips x dies), built for " + std::to_string(nand.size()) + " x " +
                                std::to_string(chips_per_channel_) + " x " + std::to_string(dies_per_chip_));
  device_ = &device;
  nand_.clear();
  for (unsigned ch = 0; ch < nand.size(); ++ch) {
    nand[ch]->bind(device.channel(ch).socket);
    device.channel(ch).set_listener(this);
    if (cfg_.suspend) device.channel(ch).enable_suspend();
    nand_.push_back(device.channel(ch).scheduler_view());
  }
}

void FlashSched::end_of_elaboration() {
  if (!device_)
    SC_REPORT_ERROR("/ssd/controller/sched", (std::string(name()) + ": not attached to a NAND (FlashSched::attach)").c_str());
}

void FlashSched::trace(VcdWriter& vcd, const std::string& scope) {
  vcd_ = &vcd;
  for (unsigned ch = 0; ch < nand.size(); ++ch) {
    const std::string c = scope + ".ch" + std::to_string(ch);
    tv_grant_.push_back(vcd.declare(c + ".grant", 64));
    for (unsigned chip = 0; chip < chips_per_channel_; ++chip)
      tv_queued_.push_back(vcd.declare(c + ".chip" + std::to_string(chip) + ".queued", 16));
  }
  traced_queued_.assign(tv_queued_.size(), 0);
}

// At a decision edge: the grants, and the queues they left.
void FlashSched::trace_issue(Tick now) {
  for (unsigned ch : traced_granted_) vcd_->change(tv_grant_[ch], now, 0);
  traced_granted_.clear();
  for (const Grant& g : out_) {
    const FlashCommand* c = g.cmd;
    if (!c) continue;  // a RESUME: the NAND's waveform shows it
    vcd_->change(tv_grant_[c->channel], now, c->id);
    traced_granted_.push_back(c->channel);
    const unsigned i = c->channel * chips_per_channel_ + c->chip;
    traced_queued_[i] -= 1 + g.partners;
    vcd_->change(tv_queued_[i], now, traced_queued_[i]);
  }
}

tlm::tlm_sync_enum FlashSched::fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("scheduler block, from the firmware", d);
  if (ph == tlm::BEGIN_REQ) {
    FlashCommand& c = flash_cmd(gp);
    // The latency attribution: when it came, and, for a host request's command, its die's
    // meter then (an address outside the geometry is refused by the channel later; it
    // waits unmetered).
    c.t_queued = sim_now();
    const bool chip_exists = c.channel < nand_.size() && c.chip < chips_per_channel_;
    if (c.request && chip_exists && c.die < dies_per_chip_) {
      c.waited = nand_[c.channel].wait_meter(c, c.t_queued);
      c.metered = true;
    }
    if (decision_listener_) decision_listener_->command_queued(c);
    if (life_ && c.request) life_->command_at(sim_now(), c, Stage::BlockQueue);
    if (vcd_ && chip_exists) {
      const unsigned i = c.channel * chips_per_channel_ + c.chip;
      vcd_->change(tv_queued_[i], sim_now(), ++traced_queued_[i]);
    }
    if (twin_) {
      twin_->push(c, sim_now());
      if (!twin_->failure().empty()) twin_failed(twin_->failure());
    }
    if (twin_decides()) {
      twin_held_[c.id] = {&c, &gp};
      if (twin_on_channel_.empty()) twin_on_channel_.assign(nand_.size(), 0);
      ++twin_on_channel_[c.channel];
    } else {
      policy_->push(&c, &gp);
    }
    mark_changed(c.channel);
    if (!decision_pending() && could_issue(c.channel)) request_decision();
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (ph == tlm::END_RESP) to_firmware_.ended();
  else illegal_phase("scheduler block, from the firmware", ph);
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum FlashSched::bw(int, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  expect_no_delay("scheduler block, from a NAND channel", d);
  // A channel takes every command at once (END_REQ in the answer to BEGIN_REQ): it only
  // ever sends responses here.
  if (ph != tlm::BEGIN_RESP) {
    illegal_phase("scheduler block, from a NAND channel", ph);
    return tlm::TLM_COMPLETED;
  }
  // Pass the completion up to the firmware. A command the block merged goes back to its
  // own page first, and each partner takes the result for its plane, as if it had run
  // alone.
  FlashCommand& c = flash_cmd(gp);
  if (c.op == FlashOp::Resume) {  // the block's own: back to its pool
    gp.release();
    return tlm::TLM_COMPLETED;
  }
  Merged m{Grant(), 0, 0};
  bool merged = false;
  for (std::size_t i = 0; i < merged_.size(); ++i)
    if (merged_[i].grant.cmd == &c) {
      m = merged_[i];
      merged_[i] = merged_.back();
      merged_.pop_back();
      merged = true;
      break;
    }
  if (merged) {
    for (unsigned i = 0; i < m.grant.partners; ++i) take_result(c, *m.grant.part[i]);  // its own wait stays (merge())
    c.status = part_status(c, m.own_mask);
    c.failed_planes = static_cast<std::uint8_t>(c.failed_planes & m.own_mask);
    c.plane_mask = m.own_mask;
    c.out_bytes = m.own_out_bytes;
  }
  to_firmware_.send(gp);
  for (unsigned i = 0; merged && i < m.grant.partners; ++i)
    to_firmware_.send(*static_cast<tlm::tlm_generic_payload*>(m.grant.part_owner[i]));
  return tlm::TLM_COMPLETED;
}

void FlashSched::channel_changed(unsigned channel) {
  mark_changed(channel);
  if (!decision_pending() && could_issue(channel)) request_decision();
}

// A decision is scheduled at an edge not yet passed: it is the first edge a new request
// could get (request_decision() would keep it), and it looks at every changed channel,
// so there is nothing to check now.
bool FlashSched::decision_pending() const { return next_edge_ != kNever && next_edge_ >= at(); }

// Whether a decision would issue a command on `channel` if it were taken now: a command
// of the block is queued for it, none waits for its bus, and a candidate is ready (IOS:
// only its head can go). Until the channel or the queue changes again the answer stays
// the same, so an edge is scheduled only when it is true.
bool FlashSched::could_issue(unsigned channel) {
  if (twin_decides()) {
    const bool held = !twin_on_channel_.empty() && twin_on_channel_[channel];
    if (!held && !(cfg_.suspend && nand_[channel].held_dies())) return false;
    nand::ChannelStatus& ch = nand_[channel];
    if (ch.queued_total() != 0) return false;
    return twin_->would_grant(channel, ch.at(at()));
  }
  if (!policy_->queued_on_channel(channel) && !(cfg_.suspend && nand_[channel].held_dies())) return false;
  nand::ChannelStatus& ch = nand_[channel];
  if (ch.queued_total() != 0) return false;
  return policy_->could_issue_on(channel, ch.at(at()));
}

void FlashSched::request_decision() {
  const Tick now = at();
  Tick edge = (now + period_ - 1) / period_ * period_;
  // One decision per edge: a change made by (or after) this edge's decision is decided
  // at the next edge.
  if (last_decided_ != kNever && edge <= last_decided_) edge = last_decided_ + period_;
  if (next_edge_ != kNever && next_edge_ >= now && next_edge_ <= edge) return;  // already due
  next_edge_ = edge;
  if (decision_listener_ && decision_listener_->decision_asked(edge)) return;
  decide_event_.notify(sc_delay(edge - sim_now()));
}

void FlashSched::decide_early() {
  ahead_ = next_edge_;
  decide_at(next_edge_);  // may ask for the next edge's decision
  ahead_ = kNever;
}

void FlashSched::decide() {
  // The decision of an edge comes after every other change at its time
  // (docs/scheduler.md). The kernel runs processes woken by timed events of one time in
  // an order the model does not fix (they leave its queue, a heap, in any order), so when
  // the NAND's process is due now too, it runs first and the block decides a delta
  // later. (A decision taken ahead, accel/block_ahead.h, always comes after it.)
  if (device_->due_at(sim_now())) {
    decide_event_.notify(SC_ZERO_TIME);
    return;
  }
  count_activation(kActScheduler);
  decide_at(sim_now());
}

void FlashSched::decide_at(Tick now) {
  next_edge_ = kNever;
  last_decided_ = now;
  ++decisions_;
  out_.clear();
  // Channels in ascending order (the order the block scans them); only those that
  // changed can decide differently from last time. A channel's state is brought up to
  // now (a skipped command-phase end) before it is sampled.
  changed_.clear();
  for (std::size_t w = 0; w < changed_bits_.size(); ++w) {
    for (std::uint64_t bits = changed_bits_[w]; bits; bits &= bits - 1)
      changed_.push_back(static_cast<unsigned>(w * 64 + __builtin_ctzll(bits)));
    changed_bits_[w] = 0;
  }
  if (twin_decides()) {
    twin_decision(now);
  } else {
    policy_->decide_on(nand_, now, out_, changed_);
  }
  if (twin_ && !twin_decides()) twin_decision(now);
  issue(now);
}

void FlashSched::twin_failed(const std::string& what) {
  SC_REPORT_ERROR("/ssd/controller/rtl", (param::key(&SchedConfig::rtl) + ": " + what).c_str());
}

// The other model samples every channel at the edge (the C++ block only the changed
// ones: an unchanged channel decides as it did, nothing, and `check` holds it to that).
void FlashSched::twin_decision(Tick now) {
  for (nand::ChannelStatus& ch : nand_) ch.at(now);
  twin_->decide(now, nand_, twin_granted_);
  const std::uint64_t cycle = now / period_;
  const auto slot = [this](unsigned ch, unsigned k) { return twin_granted_[std::size_t{ch} * kMaxPlanes + k]; };
  const unsigned channels = static_cast<unsigned>(twin_granted_.size() / kMaxPlanes);
  if (twin_decides()) {
    out_.clear();
    for (unsigned ch = 0; ch < channels; ++ch) {
      Grant* g = nullptr;
      if (slot(ch, 0) & kSlotResume) {  // a RESUME: no command of the block's
        Grant& r = out_.emplace_back();
        r.resume = true;
        r.channel = static_cast<std::uint16_t>(ch);
        r.chip = static_cast<std::uint16_t>(slot(ch, 0) >> 8 & 0xFFFF);
        r.die = static_cast<std::uint16_t>(slot(ch, 0) & 0xFF);
        continue;
      }
      // The command granted, then its partners (multi-plane rescheduling).
      for (unsigned k = 0; k < kMaxPlanes && slot(ch, k); ++k) {
        const auto it = twin_held_.find(slot(ch, k) & ~kSlotSuspend);
        if (it == twin_held_.end() || it->second.c->channel != ch) {
          twin_failed("cycle " + std::to_string(cycle) + ": the RTL block granted command " +
                      std::to_string(slot(ch, k)) + " on channel " + std::to_string(ch) + ", which it does not hold there");
          break;
        }
        const Held h = it->second;
        twin_held_.erase(it);
        --twin_on_channel_[ch];
        if (!g) {
          g = &out_.emplace_back(h.c, h.owner);
          g->suspend = (slot(ch, k) & kSlotSuspend) != 0;
        } else {
          g->part[g->partners] = h.c;
          g->part_owner[g->partners++] = h.owner;
        }
      }
    }
    return;
  }
  // check: the C++ block's grants (out_, at most one per channel, with its partners)
  // against the model's, slot by slot.
  ++compared_;
  std::vector<const Grant*> cpp(channels, nullptr);
  for (const Grant& g : out_) cpp[g.resume ? g.channel : g.cmd->channel] = &g;
  const auto name = [](std::uint64_t id) {
    if (id & kSlotResume) return "a RESUME of chip " + std::to_string(id >> 8 & 0xFFFF) + " die " + std::to_string(id & 0xFF);
    if (!id) return std::string("nothing");
    return "command " + std::to_string(id & ~kSlotSuspend) + (id & kSlotSuspend ? " by suspension" : "");
  };
  for (unsigned ch = 0; ch < channels; ++ch) {
    const Grant* g = cpp[ch];
    if (g && g->resume) {
      const std::uint64_t want = kSlotResume | std::uint64_t{g->chip} << 8 | g->die;
      if (slot(ch, 0) != want)
        twin_failed("check: cycle " + std::to_string(cycle) + ", channel " + std::to_string(ch) + ": the C++ block granted " +
                    name(want) + ", the RTL block " + name(slot(ch, 0)));
      if (slot(ch, 0) != want) return;
      continue;
    }
    for (unsigned k = 0; k < kMaxPlanes; ++k) {
      const FlashCommand* p = !g ? nullptr : k == 0 ? g->cmd : k <= g->partners ? g->part[k - 1] : nullptr;
      const std::uint64_t want = p ? p->id | (k == 0 && g->suspend ? kSlotSuspend : 0) : 0;
      if (want == slot(ch, k)) {
        if (!want) break;
        continue;
      }
      twin_failed("check: cycle " + std::to_string(cycle) + ", channel " + std::to_string(ch) + ": the C++ block granted " +
                  (k ? "as partner " + std::to_string(k) + " of command " + std::to_string(g->cmd->id) + " " : "") +
                  name(want) + (p ? " (chip " + std::to_string(p->chip) + ")" : "") + ", the RTL block " + name(slot(ch, k)));
      return;
    }
  }
}

// Multi-plane rescheduling: the head granted with partners carries their planes, blocks
// and data as one n-plane command; each partner's wait in the block ends now, and its
// request's waveform follows the head's id from now.
void FlashSched::merge(const Grant& g, Tick now) {
  FlashCommand& h = *g.cmd;
  merged_.push_back({g, h.plane_mask, h.out_bytes});
  h.gc_plane_mask = h.gc_mask();
  for (unsigned i = 0; i < g.partners; ++i) {
    FlashCommand* p = g.part[i];
    join_plane(h, *p);
    if (p->metered) {
      const nand::WaitMeter::Ticks at = nand_[p->channel].wait_meter(*p, now);
      for (unsigned k = 0; k < kWaitKinds; ++k) p->waited[k] = at[k] - p->waited[k];
    }
    if (life_ && p->request) life_->command_joined(now, *p, h);
  }
}

void FlashSched::issue(Tick now) {
  if (vcd_) trace_issue(now);
  for (const Grant& g : out_) {
    if (g.resume) {
      send_resume(g, now);
      continue;
    }
    FlashCommand* c = g.cmd;
    if (g.suspend) {
      c->suspend = true;
      ++suspend_grants_;
    }
    // The log: the command granted, then its partners (multi-plane rescheduling).
    if (log_on_) {
      log_.push_back({now / period_, c->id, c->channel, c->chip});
      for (unsigned i = 0; i < g.partners; ++i)
        log_.push_back({now / period_, g.part[i]->id, g.part[i]->channel, g.part[i]->chip});
    }
    if (cfg_.reschedule.on()) {
      for (unsigned i = 0; i <= g.partners; ++i) {
        const Tick w = now - (i == 0 ? c : g.part[i - 1])->t_queued;
        ++waits_.granted;
        waits_.sum += w;
        waits_.max = std::max(waits_.max, w);
      }
      if (g.partners) merge(g, now);
    }
    ++issued_;
    if (decision_listener_) decision_listener_->command_issued(*c);
    auto* gp = static_cast<tlm::tlm_generic_payload*>(g.owner);
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_time delay = sc_delay(now - sim_now());  // non-zero for a decision taken ahead
    // The flash protocol's channel takes every command at once (END_REQ): anything else
    // is a broken protocol.
    if ((*nand[c->channel])->nb_transport_fw(*gp, ph, delay) != tlm::TLM_UPDATED || ph != tlm::END_REQ)
      SC_REPORT_ERROR(kExclusionError, "scheduler block, to a NAND channel: BEGIN_REQ not taken at once (END_REQ)");
  }
  // A policy whose next candidate may sit on a channel that did not change (IOS: the
  // queue's new head) looks at it at the next edge; others re-decide a channel when it
  // changes.
  if (!out_.empty() && policy_->decides_again_after_issue() &&
      (twin_decides() ? !twin_held_.empty() : policy_->queued() != 0))
    request_decision();
}

// A RESUME of the operation held on a die: a command of the block's own (id 0), logged
// as a grant of nothing on its chip.
void FlashSched::send_resume(const Grant& g, Tick now) {
  tlm::tlm_generic_payload* gp = resumes_.acquire();
  FlashCommand& c = flash_cmd(*gp);
  c.op = FlashOp::Resume;
  c.channel = g.channel;
  c.chip = g.chip;
  c.die = g.die;
  c.plane_mask = 1;
  ++resumes_sent_;
  if (log_on_) log_.push_back({now / period_, 0, g.channel, g.chip});
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time delay = sc_delay(now - sim_now());
  if ((*nand[g.channel])->nb_transport_fw(*gp, ph, delay) != tlm::TLM_UPDATED || ph != tlm::END_REQ)
    SC_REPORT_ERROR(kExclusionError, "scheduler block, to a NAND channel: BEGIN_REQ not taken at once (END_REQ)");
}

const param::Table<RescheduleConfig>& RescheduleConfig::keys() {
  static const param::Table<RescheduleConfig> t = [] {
    using R = RescheduleConfig;
    std::vector<std::string> names;
    for (const char* const* n = reschedule_names(); *n; ++n) names.push_back(*n);
    param::Table<R> k;
    k.choice(
         "controller.reschedule", &R::multiplane, names,
         [](R& r, const std::string& name) { r = parse_reschedule(name, r.window); },
         [](const R& r) { return std::string(r.name()); },
         "hos: Park et al.'s request rescheduling in the scheduler block (docs/scheduler.md, Rescheduling): "
         "multiplane = a granted command takes the first queued command of each other plane of its die with "
         "the same operation and page offset as one n-plane command (needs nand.multiplane); pipeline = a "
         "command of its die's last operation goes ahead of an older one of the other list, for cache "
         "pipelining; both; commands sharing a page, an erased block or a logical page keep their order. "
         "The firmware's batching (ftl.batch_depth) is off with it")
        .integer("controller.reschedule_window", &R::window, 1, 16,
                 "controller.reschedule: commands of a list searched for multi-plane partners, and grants in a row "
                 "a chip queue may pass an older command for pipelining (the bound on reordering; at most 16, the "
                 "Verilog block's WMAX)").unit("commands");
    return k;
  }();
  return t;
}

const param::Table<SchedConfig>& SchedConfig::keys() {
  static const param::Table<SchedConfig> t = [] {
    using S = SchedConfig;
    param::Table<S> k;
    k.number("controller.clock_mhz", &S::clock_mhz, 1, 100000, "decision clock of the flash scheduler block, MHz")
        .unit("MHz")
        .choice("controller.rtl", &S::rtl, {"off", "on", "check"},
                "the scheduler block's decisions: off (the C++ block), on (the Verilog block, rtl/, verilated), "
                "check (both; their grants compared at every decision edge, the first difference ends the run with "
                "exit 1)")
        .part(&S::reschedule, RescheduleConfig::keys())
        .flag("controller.read_first", &S::read_first,
              "hos: take the oldest read of a chip queue (of its first class) before its oldest command")
        .flag("controller.decide_ahead", &S::decide_ahead,
              "accel/: take a scheduler decision when the NAND activation that asks for it ends, as at its "
              "edge, if nothing can run before that edge (identical results, fewer kernel time steps); "
              "false: always wake at the edge")
        .choice("controller.suspend", &S::suspend,
                std::vector<std::pair<std::string, std::uint8_t>>{
                    {"off", 0}, {"erase", S::kSuspendErase}, {"program", S::kSuspendProgram},
                    {"both", S::kSuspendErase | S::kSuspendProgram}},
                "hos, pass: a host read whose die is busy with an erase, a program or either suspends it "
                "(docs/scheduler.md, Suspend and resume; the NAND's rules and times: nand.t_suspend_*_us, "
                "nand.max_suspends); off: reads wait")
        .integer("controller.suspend_min_remaining_us", &S::suspend_min_remaining_us, 0, 65535,
                 "controller.suspend: a read suspends an operation only if its remaining array time exceeds the "
                 "suspend latency by more than this (0: any saving, as MQSim's thresholds equal to its latencies)")
        .unit("us")
        .flag("controller.suspend_gc_reads", &S::suspend_gc_reads,
              "controller.suspend: GC's reads suspend too (false: only the host's, GC's reads are not urgent)")
        .flag("controller.suspend_hold_programs", &S::suspend_hold_programs,
              "controller.suspend: read priority over a cached program: a chip's program is held back while the "
              "read that may suspend waits for the same die, so that it does not take the cache register the "
              "read's suspension needs")
        .flag("controller.plane_reads", &S::plane_reads,
              "hos, pass, with nand.independent_plane_reads: a chip whose candidate is a read its die cannot start "
              "offers a later read of that die and class on a free plane (docs/scheduler.md, Independent plane "
              "reads); false: the candidate alone, as without the NAND key (the Verilog block's rule)");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
