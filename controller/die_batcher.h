// The holding stage's batching into n-plane commands (nand.multiplane on, ftl.batch_depth
// > 0; controller/holding_stage.h): the lanes in which the stage keeps the commands
// released for a die while the scheduler block already has `depth` of the die's commands
// (a command of several planes counts once), and the rule that, when the die has room,
// takes its next batch: the command at the head and, from each of the die's other
// planes, the first command held for that plane if it is of the same operation and
// priority class at the same page offset (an erase: any block), as one n-plane command.
// (One class: the block orders a plane's programs only within a class, docs/scheduler.md;
// a batch of two classes would take the more urgent one and could pass a program of its
// plane queued in the other.) The head is the command the block would take first among
// those held (its classes by priority, then reads first, as the block is configured;
// ties: the oldest). Within a class (and kind, with read-first) a plane's commands leave
// in the order they came, as in the block; a batch never passes such a command. The
// depth counts a class's commands and the more urgent ones only, so background work in
// the block never holds back the host's. A command never waits for a partner (a die with
// room takes what is held at once). The commands held at one instant are batched
// together: the stage takes a die's batches once the instant's work is done.
// Plain C++; docs/scheduler.md ("Batching") states the rule.
#pragma once

#include <cstdint>
#include <vector>

#include "controller/fw_command.h"

namespace ssd::ctrl {

class DieBatcher {
 public:
  // The scheduler block's order, which the batching keeps (docs/scheduler.md): classes
  // by priority (FlashCommand::priority, most urgent first), and within a class reads
  // before the other operations.
  struct Order {
    bool by_priority = false;
    bool read_first = false;
  };
  DieBatcher() = default;
  // `depth` 0: off (every command goes on at once, unbatched).
  DieBatcher(std::uint32_t dies, std::uint32_t planes_per_die, std::uint32_t depth, Order order)
      : planes_(planes_per_die),
        depth_(depth),
        order_(order),
        lanes_(std::size_t{dies} * planes_per_die * kLanes),
        in_block_(std::size_t{dies} * kPriorityClasses, 0) {}
  bool on() const { return depth_ != 0; }
  std::uint32_t depth() const { return depth_; }

  // `c` (single page, or several pages on `plane` first) is held on `plane` of `die`,
  // behind the commands of its lane.
  void push(std::uint32_t die, unsigned plane, FwCommand& c) {
    c.seq = ++seq_;
    c.next = nullptr;
    Lane& l = lanes_[(die * planes_ + plane) * kLanes + lane(*c.cmd)];
    if (l.tail) l.tail->next = &c;
    else l.head = &c;
    l.tail = &c;
  }
  bool holds(std::uint32_t die) const {
    for (std::size_t i = std::size_t{die} * planes_ * kLanes, e = i + planes_ * kLanes; i < e; ++i)
      if (lanes_[i].head) return true;
    return false;
  }
  // A batch of command c's class was sent to the block, or completed there.
  void sent(std::uint32_t die, const FlashCommand& c) { ++in_block_[die * kPriorityClasses + cls(c)]; }
  void completed(std::uint32_t die, const FlashCommand& c) { --in_block_[die * kPriorityClasses + cls(c)]; }

  // The arrival number of the head take() would send now (kNothing: none, or no room):
  // the stage sends the dies' batches oldest head first, in the order the commands came,
  // as the block's queues would have received them.
  static constexpr std::uint64_t kNothing = ~std::uint64_t{0};
  std::uint64_t next(std::uint32_t die) const {
    unsigned plane, lane;
    const FwCommand* h = head(die, plane, lane);
    return h && has_room(die, cls(*h->cmd)) ? h->seq : kNothing;
  }

  // Takes die `die`'s next batch into out[0..n), the head first, and returns n; 0 when
  // it holds nothing or the head has no room (the block holds `depth` of the die's
  // commands of its class or a more urgent one). offset(c): the page offset command c
  // would run at (a program not yet bound: its plane stream's next page).
  template <typename Offset>
  unsigned take(std::uint32_t die, FwCommand** out, Offset&& offset) {
    unsigned head_plane, head_lane;
    FwCommand* h = head(die, head_plane, head_lane);
    if (!h || !has_room(die, cls(*h->cmd))) return 0;
    unsigned n = 0;
    out[n++] = h;
    pop(lanes_[(die * planes_ + head_plane) * kLanes + head_lane]);
    const FlashCommand& hc = *h->cmd;
    if (hc.plane_count() != 1) return n;  // already several planes (release_together)
    const std::uint32_t at = hc.op == FlashOp::Erase ? 0 : offset(*h);
    for (unsigned p = 0; p < planes_; ++p) {
      if (p == head_plane) continue;
      Lane& l = lanes_[(die * planes_ + p) * kLanes + head_lane];
      if (!l.head) continue;
      FwCommand& c = *l.head;
      const FlashCommand& cc = *c.cmd;
      if (cc.op != hc.op || cc.priority != hc.priority || cc.plane_count() != 1) continue;
      if (cc.read_level != hc.read_level) continue;  // a die senses an n-plane read at one level
      if (cc.unit != hc.unit) continue;              // of one data unit (the command's column)
      if (cc.slc != hc.slc) continue;                // and runs an n-plane command in one cell mode
      if (hc.op != FlashOp::Erase && offset(c) != at) continue;
      out[n++] = &c;
      pop(l);
    }
    return n;
  }

 private:
  static constexpr unsigned kLanes = kPriorityClasses * 2;  // class, then reads / the rest
  struct Lane {  // commands in arrival order, linked through FwCommand::next
    FwCommand* head = nullptr;
    FwCommand* tail = nullptr;
  };
  static void pop(Lane& l) {
    FwCommand* c = l.head;
    l.head = c->next;
    if (!l.head) l.tail = nullptr;
    c->next = nullptr;
  }
  // The die's head: the first command of the most urgent lane held on any plane (lanes
  // are numbered in the block's order), the oldest among the planes; null if none.
  FwCommand* head(std::uint32_t die, unsigned& plane, unsigned& lane) const {
    FwCommand* best = nullptr;
    plane = lane = 0;
    for (unsigned p = 0; p < planes_; ++p)
      for (unsigned l = 0; l < kLanes; ++l) {
        FwCommand* f = lanes_[(die * planes_ + p) * kLanes + l].head;
        if (!f) continue;
        if (!best || l < lane || (l == lane && f->seq < best->seq)) {
          best = f;
          plane = p;
          lane = l;
        }
        break;  // a plane's later lanes come after its first non-empty one
      }
    return best;
  }
  unsigned cls(const FlashCommand& c) const { return order_.by_priority ? static_cast<unsigned>(c.priority) : 0; }
  unsigned lane(const FlashCommand& c) const {
    return cls(c) * 2 + (order_.read_first && c.op != FlashOp::Read ? 1 : 0);
  }
  bool has_room(std::uint32_t die, unsigned c) const {
    std::uint32_t n = 0;
    const unsigned last = order_.by_priority ? c : kPriorityClasses - 1;
    for (unsigned k = 0; k <= last; ++k) n += in_block_[die * kPriorityClasses + k];
    return n < depth_;
  }
  unsigned planes_ = 1;
  std::uint32_t depth_ = 0;
  Order order_;
  std::uint64_t seq_ = 0;
  std::vector<Lane> lanes_;              // per die, plane and lane
  std::vector<std::uint32_t> in_block_;  // per die and class: commands sent, not completed
};

}  // namespace ssd::ctrl
