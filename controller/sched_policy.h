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
//    candidate is ready. The candidate is the head of the chip's queue, or with
//    read_first the oldest read in it (else the head). At most one command per channel
//    per edge. Reset state: the pointer of every channel at its last chip, so chip 0
//    is scanned first.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "tlm/flash_command.h"
#include "tlm/prefetch.h"

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

 private:
  std::deque<FlashCommand*> fifo_;
  std::vector<std::uint32_t> per_chip_, per_channel_;
  unsigned chips_;
};

class HosPolicy final : public SchedPolicy {
 public:
  HosPolicy(unsigned channels, unsigned chips_per_channel, bool read_first)
      : channels_(channels), chips_(chips_per_channel), read_first_(read_first),
        queues_(channels * chips_per_channel), rr_(channels, chips_per_channel - 1), per_channel_(channels, 0) {}
  void push(FlashCommand* c) override {
    ChipQueue& q = queues_[c->channel * chips_ + c->chip];
    c->queue_next = nullptr;
    if (!q.head) q.set_head(c);
    else link(q.tail, c);
    q.tail = c;
    ++q.size;
    ++total_;
    ++per_channel_[c->channel];
  }
  std::size_t queued_on_channel(unsigned channel) const override { return per_channel_[channel]; }
  std::size_t queued() const override { return total_; }
  std::size_t queued_on_chip(unsigned channel, unsigned chip) const override {
    return queues_[channel * chips_ + chip].size;
  }

 public:
  // The same as decide() and any_ready() with the callables inlined (no virtual call per
  // candidate): for a caller that knows it holds a HosPolicy.
  template <typename Ready, typename ChannelOpen>
  void decide_with(Ready&& ready, ChannelOpen&& open, std::vector<FlashCommand*>& out,
                   const std::vector<unsigned>* changed) {
    if (total_ == 0) return;
    if (changed) {
      for (unsigned ch : *changed) decide_channel(ch, ready, open, out);
    } else {
      for (unsigned ch = 0; ch < channels_; ++ch) decide_channel(ch, ready, open, out);
    }
  }
  // Readiness as bits, for a caller whose NAND state offers it so (the NAND engine's
  // accept words): with read_first off, each chip queue keeps what its head needs to
  // start (FlashCommand::start_need()), and a channel's chips are tested together with
  // no branch per chip. `offer(ch)` returns an object whose accept_word(chip, die) is
  // the die's offer, up to date at the decision's time. The decisions are those of
  // decide_with() with the same readiness (a test checks it).
  bool masked() const { return !read_first_ && chips_ <= 64; }
  // Bit `chip`: the head of the chip's queue on channel `ch` could start.
  template <typename Offers>
  std::uint64_t ready_chips(unsigned ch, const Offers& offers) const {
    const ChipQueue* q = &queues_[ch * chips_];
    std::uint64_t bits = 0;
    for (unsigned chip = 0; chip < chips_; ++chip) {
      const std::uint32_t need = q[chip].need;  // 0: an empty queue
      const bool ready = (need != 0) & ((need & ~offers.accept_word(chip, q[chip].die)) == 0);
      bits |= std::uint64_t{ready} << chip;
    }
    return bits;
  }
  template <typename Offer, typename ChannelOpen>
  void decide_masked(Offer&& offer, ChannelOpen&& open, std::vector<FlashCommand*>& out,
                     const std::vector<unsigned>& changed) {
    if (total_ == 0) return;
    for (unsigned ch : changed) {
      if (!per_channel_[ch] || !open(ch)) continue;
      const std::uint64_t bits = ready_chips(ch, offer(ch));
      if (!bits) continue;
      // Round-robin: the first ready chip after the one last granted, else the first.
      const unsigned from = rr_[ch] + 1;
      const std::uint64_t after = from < 64 ? bits & (~std::uint64_t{0} << from) : 0;
      const unsigned chip = static_cast<unsigned>(__builtin_ctzll(after ? after : bits));
      ChipQueue& q = queues_[ch * chips_ + chip];
      take(ch, chip, q, {q.head, nullptr}, out);
    }
  }
  template <typename Ready>
  bool any_ready_with(unsigned ch, Ready&& ready) const {
    if (!per_channel_[ch]) return false;
    for (unsigned chip = 0; chip < chips_; ++chip) {
      const ChipQueue& q = queues_[ch * chips_ + chip];
      if (q.head && ready(*candidate(q).pick)) return true;
    }
    return false;
  }

 protected:
  void decide_impl(const ReadyFn& ready, std::vector<FlashCommand*>& out,
                   const std::vector<unsigned>* changed) override {
    decide_with([&ready](const FlashCommand& c) { return ready(c); },
                [&ready](unsigned ch) { return ready.channel_open(ch); }, out, changed);
  }
  bool any_ready_impl(unsigned ch, const ReadyFn& ready) const override {
    return ready.channel_open(ch) && any_ready_with(ch, [&ready](const FlashCommand& c) { return ready(c); });
  }

 private:
  // A chip's queue, oldest first, linked through FlashCommand::queue_next.
  struct ChipQueue {
    FlashCommand* head = nullptr;
    FlashCommand* tail = nullptr;
    std::uint32_t size = 0;
    std::uint32_t need = 0;  // head->start_need(), 0 when empty
    std::uint16_t die = 0;   // head->die
    void set_head(FlashCommand* c) {
      head = c;
      need = c ? c->start_need() : 0;
      die = c ? c->die : 0;
    }
    // The head is taken: its successor's need and die come from the head (in the cache,
    // just issued), not from the successor (a command that may have waited long).
    void pop_head() {
      need = head->queue_next ? head->queue_next_need : 0;
      die = head->queue_next_die;
      head = head->queue_next;
      // The new head is read when it is taken, often long after it was queued: its
      // successor's line is fetched now.
      if (head) ssd::prefetch(&head->queue_next);
    }
  };
  // c follows `prev` in its queue.
  static void link(FlashCommand* prev, FlashCommand* c) {
    prev->queue_next = c;
    prev->queue_next_need = c ? c->start_need() : 0;
    prev->queue_next_die = c ? c->die : 0;
  }
  struct Candidate {
    FlashCommand* pick;
    FlashCommand* before;  // the command ahead of it in the queue (null: it is the head)
  };
  // The command a chip queue offers: its head, or with read_first its oldest read.
  Candidate candidate(const ChipQueue& q) const {
    if (read_first_) {
      FlashCommand* before = nullptr;
      for (FlashCommand* c = q.head; c; before = c, c = c->queue_next)
        if (c->op == FlashOp::Read) return {c, before};
    }
    return {q.head, nullptr};
  }
  template <typename Ready, typename ChannelOpen>
  void decide_channel(unsigned ch, Ready& ready, ChannelOpen& open, std::vector<FlashCommand*>& out) {
    if (!per_channel_[ch] || !open(ch)) return;
    unsigned chip = rr_[ch];
    for (unsigned k = 0; k < chips_; ++k) {
      if (++chip == chips_) chip = 0;
      ChipQueue& q = queues_[ch * chips_ + chip];
      if (!q.head) continue;
      const Candidate c = candidate(q);
      if (!ready(*c.pick)) continue;
      take(ch, chip, q, c, out);
      return;
    }
  }
  // Issues a chip queue's candidate.
  void take(unsigned ch, unsigned chip, ChipQueue& q, Candidate c, std::vector<FlashCommand*>& out) {
    out.push_back(c.pick);
    if (c.before) link(c.before, c.pick->queue_next);
    else q.pop_head();
    if (q.tail == c.pick) q.tail = c.before;
    c.pick->queue_next = nullptr;
    --q.size;
    --total_;
    --per_channel_[ch];
    rr_[ch] = chip;
  }

  unsigned channels_, chips_;
  bool read_first_;
  std::vector<ChipQueue> queues_;
  std::vector<unsigned> rr_;
  std::vector<std::uint32_t> per_channel_;
  std::size_t total_ = 0;
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
