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
//    pointer of every channel at its last chip, so chip 0 is scanned first.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "nand/channel_status.h"
#include "tlm/flash_command.h"

namespace ssd::ctrl {

class SchedPolicy {
 public:
  virtual ~SchedPolicy() = default;
  virtual void push(FlashCommand* c) = 0;
  // One decision edge; appends the issued commands (removed from the queues) to `out`.
  // Ready is a callable bool(const FlashCommand&); ChannelOpen a callable bool(unsigned
  // channel), false when no command of that channel can be ready (a shortcut: it must
  // agree with Ready). `changed` (optional): the channels, in ascending order, whose
  // queue or NAND state changed since the last decision; a channel with no change would
  // decide exactly as last time (nothing), so it is skipped.
  template <typename Ready>
  void decide(Ready&& ready, std::vector<FlashCommand*>& out,
              const std::vector<unsigned>* changed = nullptr) {
    decide(ready, [](unsigned) { return true; }, out, changed);
  }
  template <typename Ready, typename ChannelOpen>
  void decide(Ready&& ready, ChannelOpen&& open, std::vector<FlashCommand*>& out,
              const std::vector<unsigned>* changed);
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
  virtual void decide_on(std::vector<nand::ChannelStatus>& nand, Tick now, std::vector<FlashCommand*>& out,
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

 protected:
  struct ReadyFn {
    virtual bool operator()(const FlashCommand& c) const = 0;
    // False when no command of the channel can be ready (one already waits for its bus).
    virtual bool channel_open(unsigned channel) const = 0;
  };
  virtual void decide_impl(const ReadyFn& ready, std::vector<FlashCommand*>& out,
                           const std::vector<unsigned>* changed) = 0;
  virtual bool any_ready_impl(unsigned channel, const ReadyFn& ready) const = 0;
};

class IosPolicy : public SchedPolicy {
 public:
  IosPolicy(unsigned channels, unsigned chips_per_channel)
      : per_chip_(channels * chips_per_channel, 0), per_channel_(channels, 0), chips_(chips_per_channel) {}
  void push(FlashCommand* c) override {
    fifo_.push_back(c);
    ++per_chip_[c->channel * chips_ + c->chip];
    ++per_channel_[c->channel];
  }
  std::size_t queued_on_channel(unsigned channel) const override { return per_channel_[channel]; }
  std::size_t queued() const override { return fifo_.size(); }
  std::size_t queued_on_chip(unsigned channel, unsigned chip) const override {
    return per_chip_[channel * chips_ + chip];
  }

 protected:
  void decide_impl(const ReadyFn& ready, std::vector<FlashCommand*>& out,
                   const std::vector<unsigned>*) override {
    if (fifo_.empty() || !ready(*fifo_.front())) return;
    FlashCommand* c = fifo_.front();
    fifo_.pop_front();
    --per_chip_[c->channel * chips_ + c->chip];
    --per_channel_[c->channel];
    out.push_back(c);
  }
  bool any_ready_impl(unsigned channel, const ReadyFn& ready) const override {
    return !fifo_.empty() && fifo_.front()->channel == channel && ready(*fifo_.front());
  }

 public:
  bool decides_again_after_issue() const override { return true; }
  RtlForm rtl_form() const override { return {true, false, false}; }

 private:
  std::deque<FlashCommand*> fifo_;
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
  void push(FlashCommand* c) override {
    ChipQueue& q = queues_[c->channel * chips_ + c->chip];
    c->queue_next = nullptr;
    c->queue_seq = ++seq_;
    q.list(class_of(*c), c->op == FlashOp::Read).push(c);
    ++q.size;
    ++total_;
    ++per_channel_[c->channel];
    q.refresh(read_first_);
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
  void decide_on_offers(Offer&& offer, ChannelOpen&& open, std::vector<FlashCommand*>& out,
                        const std::vector<unsigned>& changed) {
    if (total_ == 0) return;
    for (unsigned ch : changed) {
      if (!per_channel_[ch] || !open(ch)) continue;
      const auto& o = offer(ch);
      decide_channel(ch, [&o](unsigned chip, const ChipQueue& q) { return offered(o, chip, q); }, out);
    }
  }
  // Whether decide_on_offers() would issue on `ch` now (the channel open).
  template <typename Offers>
  bool any_ready_on_offers(unsigned ch, const Offers& o) const {
    return per_channel_[ch] && any_chip_ready(ch, [&o](unsigned chip, const ChipQueue& q) { return offered(o, chip, q); });
  }
  // The block's calls, on the accept words (a channel brought up to now once, when its
  // chips are tested).
  void decide_on(std::vector<nand::ChannelStatus>& nand, Tick now, std::vector<FlashCommand*>& out,
                 const std::vector<unsigned>& changed) override {
    const auto open = [&nand, now](unsigned ch) {
      nand::ChannelStatus& c = nand[ch];
      if (c.queued_total() != 0) return false;
      c.at(now);
      return true;
    };
    const auto offer = [&nand](unsigned ch) -> const nand::ChannelStatus& { return nand[ch]; };
    decide_on_offers(offer, open, out, changed);
  }
  bool could_issue_on(unsigned channel, const nand::ChannelStatus& ch) const override {
    return any_ready_on_offers(channel, ch);
  }
  RtlForm rtl_form() const override { return {false, read_first_, by_priority_}; }

 protected:
  void decide_impl(const ReadyFn& ready, std::vector<FlashCommand*>& out,
                   const std::vector<unsigned>* changed) override {
    if (total_ == 0) return;
    const auto chip_ready = [&ready](unsigned, const ChipQueue& q) { return ready(*q.cand); };
    for (unsigned k = 0, n = changed ? static_cast<unsigned>(changed->size()) : channels_; k < n; ++k) {
      const unsigned ch = changed ? (*changed)[k] : k;
      if (per_channel_[ch] && ready.channel_open(ch)) decide_channel(ch, chip_ready, out);
    }
  }
  bool any_ready_impl(unsigned ch, const ReadyFn& ready) const override {
    return per_channel_[ch] && ready.channel_open(ch) &&
           any_chip_ready(ch, [&ready](unsigned, const ChipQueue& q) { return ready(*q.cand); });
  }

 private:
  // A list of commands, oldest first, linked through FlashCommand::queue_next.
  struct List {
    FlashCommand* head = nullptr;
    FlashCommand* tail = nullptr;
    void push(FlashCommand* c) {
      if (!head) head = c;
      else tail->queue_next = c;
      tail = c;
    }
    void pop() {
      FlashCommand* c = head;
      head = c->queue_next;
      if (!head) tail = nullptr;
      c->queue_next = nullptr;
    }
  };
  // A chip's queue: per priority class, its reads and its other commands, each oldest
  // first. The candidate (what the chip offers) is kept up to date at every push and
  // take, so a decision reads it in O(1): the first class with a command; in it, the
  // oldest command, or with read_first its oldest read (else its oldest command).
  struct ChipQueue {
    List lists[kPriorityClasses][2];  // [class][0: reads, 1: others]
    FlashCommand* cand = nullptr;
    std::uint32_t size = 0;
    std::uint32_t need = 0;  // cand->start_need(), 0 when empty
    std::uint16_t die = 0;   // cand->die
    List& list(unsigned cls, bool read) { return lists[cls][read ? 0 : 1]; }
    void refresh(bool read_first) {
      cand = nullptr;
      // A host read goes before urgent GC: it takes no free space, so holding it back
      // cannot bring the plane's GC sooner to its end; only the host's writes wait.
      const unsigned urgent = static_cast<unsigned>(FlashPriority::UrgentGc);
      const unsigned host = static_cast<unsigned>(FlashPriority::Host);
      if (lists[urgent][0].head || lists[urgent][1].head) {
        if (FlashCommand* r = lists[host][0].head) cand = r;
      }
      for (unsigned k = 0; k < kPriorityClasses && !cand; ++k) {
        FlashCommand* r = lists[k][0].head;
        FlashCommand* o = lists[k][1].head;
        if (!r) cand = o;
        else if (!o || read_first) cand = r;
        else cand = r->queue_seq < o->queue_seq ? r : o;
      }
      need = cand ? cand->start_need() : 0;
      die = cand ? cand->die : 0;
    }
  };
  unsigned class_of(const FlashCommand& c) const {
    return by_priority_ ? static_cast<unsigned>(c.priority) : static_cast<unsigned>(FlashPriority::Host);
  }
  template <typename Offers>
  static bool offered(const Offers& o, unsigned chip, const ChipQueue& q) {
    return (q.need & ~o.accept_word(chip, q.die)) == 0;
  }
  // The rule, once: on channel `ch`, scanning its chips round-robin from the one after
  // the chip last granted, the first whose queue has a candidate that
  // `ready(chip, queue)` finds ready is granted it.
  template <typename ChipReady>
  void decide_channel(unsigned ch, ChipReady&& ready, std::vector<FlashCommand*>& out) {
    unsigned chip = rr_[ch];
    for (unsigned k = 0; k < chips_; ++k) {
      if (++chip == chips_) chip = 0;
      ChipQueue& q = queues_[ch * chips_ + chip];
      if (!q.cand || !ready(chip, q)) continue;
      take(ch, chip, q, out);
      return;
    }
  }
  template <typename ChipReady>
  bool any_chip_ready(unsigned ch, ChipReady&& ready) const {
    for (unsigned chip = 0; chip < chips_; ++chip) {
      const ChipQueue& q = queues_[ch * chips_ + chip];
      if (q.cand && ready(chip, q)) return true;
    }
    return false;
  }
  // Issues a chip queue's candidate (always the head of its list).
  void take(unsigned ch, unsigned chip, ChipQueue& q, std::vector<FlashCommand*>& out) {
    FlashCommand* c = q.cand;
    out.push_back(c);
    q.list(class_of(*c), c->op == FlashOp::Read).pop();
    --q.size;
    --total_;
    --per_channel_[ch];
    rr_[ch] = chip;
    q.refresh(read_first_);
  }

  unsigned channels_, chips_;
  bool read_first_, by_priority_;
  std::vector<ChipQueue> queues_;
  std::vector<unsigned> rr_;
  std::vector<std::uint32_t> per_channel_;
  std::size_t total_ = 0;
  std::uint64_t seq_ = 0;  // arrival numbers
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
void SchedPolicy::decide(Ready&& ready, ChannelOpen&& open, std::vector<FlashCommand*>& out,
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
