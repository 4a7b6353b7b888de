// Dispatch policies of the flash scheduler block, plain C++ (docs/scheduler.md has
// the exact rules a Verilog version must match cycle for cycle).
//
// At each decision edge the block samples, for every queued candidate, whether the
// NAND could start it this instant (`ready`: its die's NAND queue empty, the die able
// to take it, the channel bus free), then issues:
//  - IOS: the head of one FIFO in arrival order, if ready; nothing else (head-of-line
//    blocking). At most one command per edge.
//  - HOS: per channel, scanning its chips round-robin from the one after the chip last
//    granted on that channel: the first chip whose queue is non-empty and whose
//    candidate is ready. The candidate: with priorities, the first non-empty class
//    (urgent GC, host, background GC), but while urgent GC waits the host's oldest read
//    goes first; in it (or in the whole queue without
//    priorities) the oldest command, or with read_first the oldest read (else the
//    oldest command). At most one command per channel per edge. Reset state: the
//    pointer of every channel at its last chip, so chip 0 is scanned first. With
//    independent plane reads (set_plane_reads), a chip whose candidate is a read its die
//    cannot start offers a later read of that die and class which it can (plane_read).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "controller/reschedule.h"
#include "nand/channel_status.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

// A command the block grants at an edge, with the partners multi-plane rescheduling joined
// to it (in the order they joined): the block sends it as one n-plane command. `owner`:
// the handle its initiator sent it with (its payload), as push() was given it.
struct Grant {
  explicit Grant(FlashCommand* c = nullptr, void* o = nullptr) : cmd(c), owner(o) {}
  FlashCommand* cmd;
  void* owner;
  unsigned partners = 0;
  // [0, partners) meaningful (left unset otherwise: a grant is made at every decision).
  std::array<FlashCommand*, kMaxPlanes - 1> part;
  std::array<void*, kMaxPlanes - 1> part_owner;
  // Suspend and resume (controller.suspend): the read goes with FlashCommand::suspend set;
  // or, `cmd` null, a RESUME of the operation held on (channel, chip, die).
  bool suspend = false;
  bool resume = false;
  std::uint16_t channel = 0, chip = 0, die = 0;
};

// A command a policy queues, with the policy's own state of it (the protocol's command
// carries none): its owner, the next command of its list, its arrival number. Entries
// are reused: a policy takes one at push and gives it back when it grants the command.
struct Queued {
  FlashCommand* c = nullptr;
  void* owner = nullptr;
  Queued* next = nullptr;
  std::uint64_t seq = 0;
};
class QueuedPool {
 public:
  Queued* take(FlashCommand* c, void* owner) {
    Queued* q;
    if (!free_.empty()) {
      q = free_.back();
      free_.pop_back();
    } else {
      q = &all_.emplace_back();
    }
    q->c = c;
    q->owner = owner;
    q->next = nullptr;
    return q;
  }
  void give(Queued* q) { free_.push_back(q); }

 private:
  std::deque<Queued> all_;  // stable addresses
  std::vector<Queued*> free_;
};

class SchedPolicy {
 public:
  virtual ~SchedPolicy() = default;
  // Queues `c`, which its initiator sent with handle `owner` (the grant gives it back).
  virtual void push(FlashCommand* c, void* owner = nullptr) = 0;
  // One decision edge; appends the issued commands (removed from the queues) to `out`.
  // Ready is a callable bool(const FlashCommand&); ChannelOpen a callable bool(unsigned
  // channel), false when no command of that channel can be ready (a shortcut: it must
  // agree with Ready). `changed` (optional): the channels, in ascending order, whose
  // queue or NAND state changed since the last decision; a channel with no change would
  // decide exactly as last time (nothing), so it is skipped.
  template <typename Ready>
  void decide(Ready&& ready, std::vector<Grant>& out, const std::vector<unsigned>* changed = nullptr) {
    decide(ready, [](unsigned) { return true; }, out, changed);
  }
  template <typename Ready, typename ChannelOpen>
  void decide(Ready&& ready, ChannelOpen&& open, std::vector<Grant>& out, const std::vector<unsigned>* changed);
  // Whether a decision now would issue a command on `channel` (some candidate of it is
  // ready): the block skips edges where it would not.
  template <typename Ready>
  bool any_ready(unsigned channel, Ready&& ready) const;
  virtual std::size_t queued() const = 0;
  virtual std::size_t queued_on_chip(unsigned channel, unsigned chip) const = 0;
  virtual std::size_t queued_on_channel(unsigned channel) const = 0;

  // ---- what the scheduler block calls (controller/flash_sched.h) ----
  // The decision of the edge `now` on the channels as the block samples them
  // (nand/channel_status.h; a channel is brought up to `now`, at(), before its dies are
  // read), for the channels in `changed`. By default each candidate's readiness is asked
  // of its channel (ready_for); a policy may read the dies' accept words instead.
  virtual void decide_on(std::vector<nand::ChannelStatus>& nand, Tick now, std::vector<Grant>& out,
                         const std::vector<unsigned>& changed) {
    const auto ready = [&nand, now](const FlashCommand& c) { return nand[c.channel].at(now).ready_for(c); };
    const auto open = [&nand](unsigned ch) { return nand[ch].queued_total() == 0; };
    decide(ready, open, out, &changed);
  }
  // Whether decide_on() would issue on `channel` now: `ch` is up to now and no command
  // waits for its bus.
  virtual bool could_issue_on(unsigned channel, const nand::ChannelStatus& ch) const {
    return any_ready(channel, [&ch](const FlashCommand& c) { return ch.ready_for(c); });
  }
  // Whether, after an edge that issued, the block decides again at the next edge even if
  // no channel changed (IOS: the queue's new head may be on a channel that did not).
  virtual bool decides_again_after_issue() const { return false; }
  // The configuration of the Verilog block (rtl/) that takes the same decisions.
  struct RtlForm {
    bool ios;
    bool read_first;
    bool by_priority;
  };
  virtual RtlForm rtl_form() const = 0;
  // What its rescheduling did (controller.reschedule); null when it has none.
  virtual const RescheduleCounters* reschedule_counters() const { return nullptr; }
  // Suspend and resume (controller.suspend, docs/scheduler.md): `mode` bit 0 erase, bit 1
  // program; a suspension must save more than `min_margin_us` beyond the suspend latency;
  // `gc_reads`: GC's reads suspend too; `hold_programs`: a program waits while the read
  // that may suspend waits for its die. False if the policy cannot (IOS). Before the first
  // push.
  virtual bool set_suspend(std::uint8_t mode, std::uint32_t min_margin_us, bool gc_reads, bool hold_programs) {
    return false;
  }
  // Independent plane reads (nand.independent_plane_reads, docs/scheduler.md): a chip whose
  // candidate is a read its die cannot start offers a later read that it can. False if
  // the policy has no such rule (IOS: its head's readiness is per plane already, and
  // nothing passes the head). Before the first push.
  virtual bool set_plane_reads(bool) { return false; }
  // Reads granted so (set_plane_reads) ahead of their chip's candidate.
  virtual std::uint64_t plane_reads_granted() const { return 0; }

 protected:
  struct ReadyFn {
    virtual bool operator()(const FlashCommand& c) const = 0;
    // False when no command of the channel can be ready (one already waits for its bus).
    virtual bool channel_open(unsigned channel) const = 0;
  };
  virtual void decide_impl(const ReadyFn& ready, std::vector<Grant>& out, const std::vector<unsigned>* changed) = 0;
  virtual bool any_ready_impl(unsigned channel, const ReadyFn& ready) const = 0;
};

class IosPolicy : public SchedPolicy {
 public:
  IosPolicy(unsigned channels, unsigned chips_per_channel)
      : per_chip_(channels * chips_per_channel, 0), per_channel_(channels, 0), chips_(chips_per_channel) {}
  void push(FlashCommand* c, void* owner = nullptr) override {
    fifo_.push_back({c, owner});
    ++per_chip_[c->channel * chips_ + c->chip];
    ++per_channel_[c->channel];
  }
  std::size_t queued_on_channel(unsigned channel) const override { return per_channel_[channel]; }
  std::size_t queued() const override { return fifo_.size(); }
  std::size_t queued_on_chip(unsigned channel, unsigned chip) const override {
    return per_chip_[channel * chips_ + chip];
  }

 protected:
  void decide_impl(const ReadyFn& ready, std::vector<Grant>& out, const std::vector<unsigned>*) override {
    if (fifo_.empty() || !ready(*fifo_.front().c)) return;
    const Entry e = fifo_.front();
    fifo_.pop_front();
    --per_chip_[e.c->channel * chips_ + e.c->chip];
    --per_channel_[e.c->channel];
    out.emplace_back(e.c, e.owner);
  }
  bool any_ready_impl(unsigned channel, const ReadyFn& ready) const override {
    return !fifo_.empty() && fifo_.front().c->channel == channel && ready(*fifo_.front().c);
  }

 public:
  bool decides_again_after_issue() const override { return true; }
  RtlForm rtl_form() const override { return {true, false, false}; }

 private:
  struct Entry {
    FlashCommand* c;
    void* owner;
  };
  std::deque<Entry> fifo_;
  std::vector<std::uint32_t> per_chip_, per_channel_;
  unsigned chips_;
};

class HosPolicy final : public SchedPolicy {
 public:
  // `by_priority`: a chip serves its commands by class (FlashCommand::priority: urgent GC,
  // host, background GC), oldest first within a class; false: one class, arrival order.
  HosPolicy(unsigned channels, unsigned chips_per_channel, bool read_first, bool by_priority = false)
      : channels_(channels), chips_(chips_per_channel), read_first_(read_first), by_priority_(by_priority),
        queues_(channels * chips_per_channel), rr_(channels, chips_per_channel - 1), per_channel_(channels, 0) {}
  // Park et al.'s rescheduling (controller/reschedule.h), set before the first push; the
  // NAND's dies per chip (the die a command's last operation is kept for).
  void set_reschedule(const RescheduleConfig& r, unsigned dies_per_chip) {
    resched_ = r;
    dies_ = dies_per_chip;
    last_op_.assign(std::size_t{channels_} * chips_ * dies_per_chip, kNoOp);
  }
  const RescheduleCounters* reschedule_counters() const override { return resched_.on() ? &counters_ : nullptr; }
  bool set_suspend(std::uint8_t mode, std::uint32_t min_margin_us, bool gc_reads, bool hold_programs) override {
    suspend_ = mode;
    min_margin_us_ = min_margin_us;
    suspend_gc_ = gc_reads;
    hold_programs_ = hold_programs;
    return true;
  }
  bool set_plane_reads(bool on) override {
    plane_reads_ = on;
    return true;
  }
  std::uint64_t plane_reads_granted() const override { return plane_reads_granted_; }
  void push(FlashCommand* c, void* owner = nullptr) override {
    ChipQueue& q = queues_[c->channel * chips_ + c->chip];
    Queued* e = pool_.take(c, owner);
    e->seq = ++seq_;
    q.list(class_of(*c), c->op == FlashOp::Read).push(e);
    ++q.size;
    ++total_;
    ++per_channel_[c->channel];
    refresh(q);
  }
  std::size_t queued_on_channel(unsigned channel) const override { return per_channel_[channel]; }
  std::size_t queued() const override { return total_; }
  std::size_t queued_on_chip(unsigned channel, unsigned chip) const override {
    return queues_[channel * chips_ + chip].size;
  }

 public:
  // Readiness from the dies' accept words, the form the NAND offers it in
  // (ChannelEngine::accept_word; FlashCommand::start_need()): `offer(ch)` returns an
  // object whose accept_word(chip, die) is the die's word, up to date at the decision's
  // time; `open(ch)` is false when no command of the channel can start (one already waits
  // for its bus). The same rule as decide() (decide_channel below), without a call per
  // candidate; each chip queue keeps its candidate's need and die.
  template <typename Offer, typename ChannelOpen>
  void decide_on_offers(Offer&& offer, ChannelOpen&& open, std::vector<Grant>& out,
                        const std::vector<unsigned>& changed) {
    if (total_ == 0) return;
    for (unsigned ch : changed) {
      if (!per_channel_[ch] || !open(ch)) continue;
      const auto& o = offer(ch);
      const auto ready = [&o](unsigned chip, const ChipQueue& q) { return offered(o, chip, q); };
      const auto fits = fits_on(o);
      if (plane_reads_) decide_channel_planes(ch, ready, fits, out);
      else decide_channel<false>(ch, ready, fits, out);
    }
  }
  // Whether decide_on_offers() would issue on `ch` now (the channel open).
  template <typename Offers>
  bool any_ready_on_offers(unsigned ch, const Offers& o) const {
    if (!per_channel_[ch]) return false;
    const auto ready = [&o](unsigned chip, const ChipQueue& q) { return offered(o, chip, q); };
    const auto fits = fits_on(o);
    return plane_reads_ ? any_chip_ready_planes(ch, ready, fits) : any_chip_ready<false>(ch, ready, fits);
  }
  // The block's calls, on the accept words (a channel brought up to now once, when its
  // chips are tested).
  void decide_on(std::vector<nand::ChannelStatus>& nand, Tick now, std::vector<Grant>& out,
                 const std::vector<unsigned>& changed) override {
    const auto open = [&nand, now](unsigned ch) {
      nand::ChannelStatus& c = nand[ch];
      if (c.queued_total() != 0) return false;
      c.at(now);
      return true;
    };
    if (suspend_) {
      decide_with_suspend(nand, now, out, changed);
      return;
    }
    const auto offer = [&nand](unsigned ch) -> const nand::ChannelStatus& { return nand[ch]; };
    decide_on_offers(offer, open, out, changed);
  }
  bool could_issue_on(unsigned channel, const nand::ChannelStatus& ch) const override {
    if (suspend_) return could_issue_with_suspend(channel, ch);
    return any_ready_on_offers(channel, ch);
  }
  // The same with suspend on: out of line, so that the path without it stays as small.
  [[gnu::noinline]] void decide_with_suspend(std::vector<nand::ChannelStatus>& nand, Tick now, std::vector<Grant>& out,
                                             const std::vector<unsigned>& changed) {
    const auto open = [&nand, now](unsigned ch) {
      nand::ChannelStatus& c = nand[ch];
      if (c.queued_total() != 0) return false;
      c.at(now);
      return true;
    };
    decide_on_suspend_offers([&nand](unsigned ch) -> const nand::ChannelStatus& { return nand[ch]; }, open, out,
                             changed);
  }
  [[gnu::noinline]] bool could_issue_with_suspend(unsigned channel, const nand::ChannelStatus& ch) const {
    for (unsigned chip = 0; chip < chips_; ++chip) {
      unsigned die;
      Queued *read, *prev;
      if (suspend_choice(channel, chip, ch, die, read, prev) != Choice::None) return true;
    }
    return false;
  }
  RtlForm rtl_form() const override { return {false, read_first_, by_priority_}; }

 protected:
  void decide_impl(const ReadyFn& ready, std::vector<Grant>& out, const std::vector<unsigned>* changed) override {
    if (total_ == 0) return;
    const auto chip_ready = [&ready](unsigned, const ChipQueue& q) { return ready(*q.cand->c); };
    // A merged command's readiness: the head asked with the planes it would have.
    const auto fits = [&ready](const FlashCommand& c, std::uint8_t mask) {
      FlashCommand& h = const_cast<FlashCommand&>(c);
      const std::uint8_t own = h.plane_mask;
      h.plane_mask = mask;
      const bool ok = ready(h);
      h.plane_mask = own;
      return ok;
    };
    for (unsigned k = 0, n = changed ? static_cast<unsigned>(changed->size()) : channels_; k < n; ++k) {
      const unsigned ch = changed ? (*changed)[k] : k;
      if (!per_channel_[ch] || !ready.channel_open(ch)) continue;
      if (plane_reads_) decide_channel_planes(ch, chip_ready, fits, out);
      else decide_channel<false>(ch, chip_ready, fits, out);
    }
  }
  bool any_ready_impl(unsigned ch, const ReadyFn& ready) const override {
    if (!per_channel_[ch] || !ready.channel_open(ch)) return false;
    const auto chip_ready = [&ready](unsigned, const ChipQueue& q) { return ready(*q.cand->c); };
    const auto fits = [&ready](const FlashCommand& c, std::uint8_t) { return ready(c); };  // (own planes only)
    return plane_reads_ ? any_chip_ready_planes(ch, chip_ready, fits) : any_chip_ready<false>(ch, chip_ready, fits);
  }

 private:
  static constexpr std::uint8_t kNoOp = 0xFF;
  // A list of the block's entries, oldest first, linked through Queued::next.
  struct List {
    Queued* head = nullptr;
    Queued* tail = nullptr;
    void push(Queued* e) {
      if (!head) head = e;
      else tail->next = e;
      tail = e;
    }
    void pop() {
      Queued* e = head;
      head = e->next;
      if (!head) tail = nullptr;
      e->next = nullptr;
    }
    // Removes `e`, which follows `prev` (null: e is the head).
    void unlink(Queued* prev, Queued* e) {
      if (!prev) {
        pop();
        return;
      }
      prev->next = e->next;
      if (tail == e) tail = prev;
      e->next = nullptr;
    }
  };
  // A chip's queue: per priority class, its reads and its other commands, each oldest
  // first. The candidate (what the chip offers) is kept up to date at every push and
  // take, so a decision reads it in O(1) (refresh() has the rule).
  struct ChipQueue {
    List lists[kPriorityClasses][2];  // [class][0: reads, 1: others]
    Queued* cand = nullptr;
    std::uint32_t size = 0;
    std::uint32_t need = 0;  // cand's start_need(), 0 when empty
    std::uint16_t die = 0;   // cand's die
    bool moved = false;      // pipeline: cand goes ahead of an older command of the other list
    std::uint32_t passes = 0;  // pipeline: grants in a row that were `moved`
    List& list(unsigned cls, bool read) { return lists[cls][read ? 0 : 1]; }
  };
  // The candidate: while urgent GC waits, the host's oldest read (it takes no free space,
  // so holding it back cannot bring the plane's GC sooner to its end; only the host's
  // writes wait); else the first class with a command: its oldest command, or with
  // read_first its oldest read (else its oldest command). With pipeline rescheduling the
  // other list's head of that class goes instead when it continues its die's last
  // operation and the one chosen does not, it is not marked keep_order, and the queue has not
  // passed an older command `window` times in a row.
  void refresh(ChipQueue& q) {
    q.cand = nullptr;
    q.moved = false;
    const unsigned urgent = static_cast<unsigned>(FlashPriority::UrgentGc);
    const unsigned host = static_cast<unsigned>(FlashPriority::Host);
    if (q.lists[urgent][0].head || q.lists[urgent][1].head) {
      if (Queued* r = q.lists[host][0].head) q.cand = r;
    }
    for (unsigned k = 0; k < kPriorityClasses && !q.cand; ++k) {
      Queued* r = q.lists[k][0].head;
      Queued* o = q.lists[k][1].head;
      if (!r) q.cand = o;
      else if (!o || read_first_) q.cand = r;
      else q.cand = r->seq < o->seq ? r : o;
      if (resched_.pipeline && r && o && q.passes < resched_.window) {
        Queued* alt = q.cand == r ? o : r;
        if (continues(*alt->c) && !continues(*q.cand->c)) {
          if (alt->c->keep_order) {
            ++counters_.held_by_dependency;
          } else {
            q.cand = alt;
            q.moved = true;
          }
        }
      }
    }
    q.need = q.cand ? q.cand->c->start_need() : 0;
    q.die = q.cand ? q.cand->c->die : 0;
  }
  std::size_t die_index(const FlashCommand& c) const { return (std::size_t{c.channel} * chips_ + c.chip) * dies_ + c.die; }
  // Whether `c` is of the operation its die was last granted.
  bool continues(const FlashCommand& c) const { return last_op_[die_index(c)] == static_cast<std::uint8_t>(c.op); }
  unsigned class_of(const FlashCommand& c) const {
    return by_priority_ ? static_cast<unsigned>(c.priority) : static_cast<unsigned>(FlashPriority::Host);
  }
  template <typename Offers>
  static bool offered(const Offers& o, unsigned chip, const ChipQueue& q) {
    return (q.need & ~o.accept_word(chip, q.die)) == 0;
  }
  // fits(c, mask) on the accept words `o` offers: whether c's die could start c with the
  // planes `mask`.
  template <typename Offers>
  static auto fits_on(const Offers& o) {
    return [&o](const FlashCommand& c, std::uint8_t mask) {
      return (c.start_need(mask) & ~o.accept_word(c.chip, c.die)) == 0;
    };
  }
  // The rule, once: on channel `ch`, scanning its chips round-robin from the one after
  // the chip last granted, the first whose queue has a candidate that
  // `ready(chip, queue)` finds ready is granted it; `fits(c, mask)`: whether c's die
  // could start c with the planes `mask` (multi-plane rescheduling).
  // `kPlaneReads` (plane_reads_, a loop of its own so that the one without stays as
  // small): a chip whose candidate `ready` finds not ready offers its plane read instead
  // (plane_read).
  template <bool kPlaneReads, typename ChipReady, typename Fits>
  void decide_channel(unsigned ch, ChipReady&& ready, Fits&& fits, std::vector<Grant>& out) {
    unsigned chip = rr_[ch];
    for (unsigned k = 0; k < chips_; ++k) {
      if (++chip == chips_) chip = 0;
      ChipQueue& q = queues_[ch * chips_ + chip];
      if (!q.cand || !ready(chip, q)) {
        if constexpr (kPlaneReads) {
          if (q.cand && try_plane_read(ch, chip, q, fits, out)) return;
        }
        continue;
      }
      take(ch, chip, q, fits, out);
      return;
    }
  }
  // The loops with plane reads, out of line.
  template <typename ChipReady, typename Fits>
  [[gnu::noinline]] void decide_channel_planes(unsigned ch, ChipReady&& ready, Fits&& fits, std::vector<Grant>& out) {
    decide_channel<true>(ch, ready, fits, out);
  }
  template <typename ChipReady, typename Fits>
  [[gnu::noinline]] bool any_chip_ready_planes(unsigned ch, ChipReady&& ready, Fits&& fits) const {
    return any_chip_ready<true>(ch, ready, fits);
  }
  template <bool kPlaneReads, typename ChipReady, typename Fits>
  bool any_chip_ready(unsigned ch, ChipReady&& ready, Fits&& fits) const {
    for (unsigned chip = 0; chip < chips_; ++chip) {
      const ChipQueue& q = queues_[ch * chips_ + chip];
      if (q.cand && ready(chip, q)) return true;
      if constexpr (kPlaneReads) {
        if (q.cand && has_plane_read(q, fits)) return true;
      }
    }
    return false;
  }
  // Independent plane reads (set_plane_reads; docs/scheduler.md, "Independent plane
  // reads"): when the chip's candidate is a read its die cannot start, the oldest read of
  // the candidate's die and class, after it, that the die can start now on its planes
  // (`fits(c, c.plane_mask)`) and that is not marked keep_order; null if none, or if the
  // candidate is no read (a program or erase is never passed by this rule: reads that
  // could start while it waits would keep its die busy). `prev`: the entry before it in
  // its list. The candidate is the head of its class's reads, so the read found is on
  // another plane than the one the candidate waits for.
  template <typename Fits>
  Queued* plane_read(const ChipQueue& q, Fits&& fits, Queued*& prev) const {
    prev = nullptr;
    const FlashCommand& cand = *q.cand->c;
    if (cand.op != FlashOp::Read) return nullptr;
    for (Queued* e = q.lists[class_of(cand)][0].head; e; prev = e, e = e->next)
      if (e != q.cand && e->c->die == cand.die && !e->c->keep_order && fits(*e->c, e->c->plane_mask)) return e;
    return nullptr;
  }
  // Out of line, so that the decision's loop stays as small without plane reads.
  template <typename Fits>
  [[gnu::noinline]] bool try_plane_read(unsigned ch, unsigned chip, ChipQueue& q, Fits&& fits, std::vector<Grant>& out) {
    Queued* prev;
    Queued* r = plane_read(q, fits, prev);
    if (r) take_plane_read(ch, chip, q, fits, out, r, prev);
    return r != nullptr;
  }
  template <typename Fits>
  [[gnu::noinline]] bool has_plane_read(const ChipQueue& q, Fits&& fits) const {
    Queued* prev;
    return plane_read(q, fits, prev) != nullptr;
  }
  template <typename Fits>
  void take_plane_read(unsigned ch, unsigned chip, ChipQueue& q, Fits&& fits, std::vector<Grant>& out, Queued* r,
                       Queued* prev) {
    q.moved = false;  // (the pipeline rule moved the candidate, not this read)
    ++plane_reads_granted_;
    take(ch, chip, q, fits, out, r, prev);
  }
  // Suspend and resume (docs/scheduler.md): per chip, in this order, (1) its oldest read
  // that may suspend (suspends_for: the head of its host reads; with suspend_gc_, else the
  // head of the urgent then the background GC reads) if its die holds a suspended
  // operation and takes the read now; (2) the candidate, as without suspend; (3) that read by
  // suspension, if its die offers one of an operation `suspend_` names and it would save
  // more than the threshold; (4) the RESUME of the lowest die of the chip that holds an
  // operation and could resume now. `die`: the resume's.
  // With hold_programs_, (2) skips a candidate that is a program of the die the suspend
  // read waits for (read priority over a cached program: its cache register stays free).
  enum class Choice : std::uint8_t { None, HeldRead, Candidate, PlaneRead, Suspend, Resume };
  bool suspends_for(const FlashCommand& c) const {
    return !c.keep_order && (c.priority == FlashPriority::Host || suspend_gc_);
  }
  // With plane reads, (2) is followed by the chip's plane read (plane_read), returned in
  // `read` with the entry before it in `prev`.
  template <typename Status>
  Choice suspend_choice(unsigned ch, unsigned chip, const Status& st, unsigned& die, Queued*& read,
                        Queued*& prev) const {
    using E = nand::ChannelEngine;
    const ChipQueue& q = queues_[ch * chips_ + chip];
    read = nullptr;
    for (const FlashPriority cls : {FlashPriority::Host, FlashPriority::UrgentGc, FlashPriority::BackgroundGc}) {
      Queued* h = q.lists[static_cast<unsigned>(cls)][0].head;
      if (h && suspends_for(*h->c)) {
        read = h;
        break;
      }
      if (!suspend_gc_) break;
    }
    const FlashCommand* rc = read ? read->c : nullptr;
    std::uint32_t rw = 0;
    bool read_waits = false;
    if (rc) {
      rw = st.suspend_word(chip, rc->die);
      read_waits = (rc->start_need() & ~st.accept_word(chip, rc->die)) != 0;
      if ((rw & E::kSuspendHeld) && !read_waits) return Choice::HeldRead;
    }
    if (q.cand && offered(st, chip, q) &&
        !(hold_programs_ && read_waits && q.cand->c->op == FlashOp::Program && q.cand->c->die == rc->die))
      return Choice::Candidate;
    if (plane_reads_ && q.cand) {
      if (Queued* r = plane_read(q, fits_on(st), prev)) {
        read = r;
        return Choice::PlaneRead;
      }
    }
    if (rc) {
      const std::uint8_t kind = (rw & E::kSuspendErase) ? 1 : 2;  // SchedConfig::kSuspendErase, kSuspendProgram
      if ((suspend_ & kind) && (rc->start_need() & ~rw) == 0 &&
          std::min<Tick>(st.suspend_margin(chip, rc->die) / kTicksPerUs, 65535) > min_margin_us_)
        return Choice::Suspend;
    }
    if (st.held_dies())
      for (die = 0; die < st.dies_per_chip(); ++die)
        if (st.suspend_word(chip, die) & E::kSuspendResumable) return Choice::Resume;
    return Choice::None;
  }

 public:
  // The decision with suspend on (set_suspend), on `status_of(ch)`: an object with a
  // channel's words as nand::ChannelStatus gives them (accept_word, suspend_word,
  // suspend_margin, held_dies, dies_per_chip), up to date at the decision's time.
  template <typename StatusOf, typename ChannelOpen>
  void decide_on_suspend_offers(StatusOf&& status_of, ChannelOpen&& open, std::vector<Grant>& out,
                                const std::vector<unsigned>& changed) {
    const auto fits = [](const FlashCommand&, std::uint8_t) { return false; };  // no rescheduling with suspend
    for (unsigned ch : changed) {
      const auto& st = status_of(ch);
      if ((!per_channel_[ch] && !st.held_dies()) || !open(ch)) continue;
      unsigned chip = rr_[ch];
      for (unsigned k = 0; k < chips_; ++k) {
        if (++chip == chips_) chip = 0;
        unsigned die = 0;
        Queued *read = nullptr, *prev = nullptr;
        const Choice how = suspend_choice(ch, chip, st, die, read, prev);
        if (how == Choice::None) continue;
        ChipQueue& q = queues_[ch * chips_ + chip];
        if (how == Choice::Resume) {
          Grant& g = out.emplace_back();
          g.resume = true;
          g.channel = static_cast<std::uint16_t>(ch);
          g.chip = static_cast<std::uint16_t>(chip);
          g.die = static_cast<std::uint16_t>(die);
          rr_[ch] = chip;
        } else if (how == Choice::Candidate) {
          take(ch, chip, q, fits, out);
        } else if (how == Choice::PlaneRead) {
          take_plane_read(ch, chip, q, fits, out, read, prev);
        } else {
          take(ch, chip, q, fits, out, read);
          out.back().suspend = how == Choice::Suspend;
        }
        break;
      }
    }
  }

 private:
  // Issues a chip queue's candidate (always the head of its list), with its partners
  // under multi-plane rescheduling; or `head`, the head of another list, or, `prev` not
  // null, the entry after `prev` in its list (a plane read).
  template <typename Fits>
  void take(unsigned ch, unsigned chip, ChipQueue& q, Fits&& fits, std::vector<Grant>& out, Queued* head = nullptr,
            Queued* prev = nullptr) {
    Queued* e = head ? head : q.cand;
    FlashCommand* c = e->c;
    Grant& g = out.emplace_back(c, e->owner);
    List& l = q.list(class_of(*c), c->op == FlashOp::Read);
    if (prev) l.unlink(prev, e);
    else l.pop();
    --q.size;
    --total_;
    --per_channel_[ch];
    rr_[ch] = chip;
    if (resched_.on()) {
      Queued* partners[kMaxPlanes] = {};
      unsigned n = 0;
      if (resched_.multiplane && c->plane_count() == 1) n = join_partners(ch, q, l, *c, fits, partners);
      account(q, *e, partners, n);
      for (unsigned i = 0; i < n; ++i) {
        g.part[i] = partners[i]->c;
        g.part_owner[i] = partners[i]->owner;
        pool_.give(partners[i]);
      }
      g.partners = n;
    }
    pool_.give(e);
    refresh(q);
  }
  // Multi-plane rescheduling: the first `window` commands of the head's list, in order;
  // the first command met of each other plane of the head's die joins it if it is a
  // single-page command of the same operation at the same page offset (an erase: any
  // block), not marked keep_order, and the die can start them all. Returns the partners
  // (taken out of the list) in `out`.
  template <typename Fits>
  unsigned join_partners(unsigned ch, ChipQueue& q, List& l, FlashCommand& h, Fits&& fits, Queued** out) {
    std::uint8_t seen = h.plane_mask;  // planes whose first command was met
    std::uint8_t mask = h.plane_mask;  // the head's planes with its partners'
    Queued* prev = nullptr;
    unsigned joined = 0;
    Queued* e = l.head;
    for (std::uint32_t k = 0; e && k < resched_.window; ++k) {
      Queued* next = e->next;
      const FlashCommand& x = *e->c;
      const bool here = x.die == h.die;
      const bool first = here && !(seen & x.plane_mask);
      if (here) seen = static_cast<std::uint8_t>(seen | x.plane_mask);
      const std::uint8_t with = static_cast<std::uint8_t>(mask | x.plane_mask);
      bool join = first && x.op == h.op && x.plane_count() == 1 && x.slc == h.slc &&
                  (h.op == FlashOp::Erase || (x.page == h.page && x.read_level == h.read_level && x.unit == h.unit));
      if (join && x.keep_order) {
        ++counters_.held_by_dependency;
        join = false;
      }
      if (join && fits(h, with)) {
        l.unlink(prev, e);
        --q.size;
        --total_;
        --per_channel_[ch];
        mask = with;  // for the next partner's fit; FlashSched merges them
        out[joined++] = e;
      } else {
        prev = e;
      }
      e = next;
    }
    if (!joined) return 0;
    ++counters_.merged_commands;
    counters_.merged_parts += joined;
    ++counters_.merged_sizes[std::min<unsigned>(joined + 1, kMaxPlanes)];
    return joined;
  }
  // The counters of a grant: its type switch and its (and its partners') reordering
  // distance, the older commands of the chip queue left waiting.
  void account(ChipQueue& q, const Queued& head, Queued* const* partners, unsigned n) {
    const FlashCommand& c = *head.c;
    std::uint8_t& last = last_op_[die_index(c)];
    if (last != kNoOp && last != static_cast<std::uint8_t>(c.op)) ++counters_.type_switches;
    last = static_cast<std::uint8_t>(c.op);
    if (q.moved) {
      ++counters_.switches_avoided;
      ++q.passes;
    } else {
      q.passes = 0;
    }
    for (unsigned k = 0; k <= n; ++k) {
      const std::uint64_t seq = k == 0 ? head.seq : partners[k - 1]->seq;
      ++counters_.granted;
      std::uint64_t older = 0;
      for (auto& cls : q.lists)
        for (List& l : cls)
          for (const Queued* e = l.head; e && e->seq < seq; e = e->next) ++older;
      if (!older) continue;
      ++counters_.reordered;
      counters_.distance_sum += older;
      counters_.distance_max = std::max(counters_.distance_max, older);
    }
  }

  unsigned channels_, chips_;
  bool read_first_, by_priority_;
  std::vector<ChipQueue> queues_;
  std::vector<unsigned> rr_;
  std::vector<std::uint32_t> per_channel_;
  std::size_t total_ = 0;
  std::uint64_t seq_ = 0;  // arrival numbers
  RescheduleConfig resched_;
  unsigned dies_ = 1;
  std::vector<std::uint8_t> last_op_;  // per die: the operation last granted (kNoOp: none yet)
  RescheduleCounters counters_;
  QueuedPool pool_;
  std::uint8_t suspend_ = 0;  // set_suspend()
  std::uint32_t min_margin_us_ = 0;
  bool suspend_gc_ = false;
  bool hold_programs_ = false;
  bool plane_reads_ = false;  // set_plane_reads()
  std::uint64_t plane_reads_granted_ = 0;
};

template <typename Ready>
bool SchedPolicy::any_ready(unsigned channel, Ready&& ready) const {
  struct Fn : ReadyFn {
    Ready& r;
    explicit Fn(Ready& rr) : r(rr) {}
    bool operator()(const FlashCommand& c) const override { return r(c); }
    bool channel_open(unsigned) const override { return true; }
  } fn(ready);
  return any_ready_impl(channel, fn);
}

template <typename Ready, typename ChannelOpen>
void SchedPolicy::decide(Ready&& ready, ChannelOpen&& open, std::vector<Grant>& out,
                         const std::vector<unsigned>* changed) {
  struct Fn : ReadyFn {
    Ready& r;
    ChannelOpen& o;
    Fn(Ready& rr, ChannelOpen& oo) : r(rr), o(oo) {}
    bool operator()(const FlashCommand& c) const override { return r(c); }
    bool channel_open(unsigned ch) const override { return o(ch); }
  } fn(ready, open);
  decide_impl(fn, out, changed);
}

}  // namespace ssd::ctrl
