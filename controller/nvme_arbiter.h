// NVMe command arbitration, plain C++: which submission queue the controller's NVMe front
// end fetches from next, and how many of its commands (NVM Express Base Specification 2.0,
// "Command Arbitration").
//
//  - Round robin (Method::RoundRobin): the admin queue and every I/O queue take turns in
//    queue order, each fetching up to the arbitration burst of its commands a turn; a
//    queue with no command waiting is passed over.
//  - Weighted round robin with urgent priority class (Method::Weighted): strict priority
//    first, the admin queue, then the urgent queues; then the weighted classes high,
//    medium and low. Each weighted class may take its weight in commands a round, high
//    first, then medium, then low; a round ends when no class with commands waiting has
//    credit left, and every class's credit is its weight again. Within a class (urgent
//    included) its queues take turns, each up to the burst a turn. The admin queue too
//    fetches up to the burst a turn.
//
// The specification leaves open how a class's weight interleaves with the others' within a
// round; this one serves a class until its credit or its commands run out, as its figure of
// the arbiter draws it. The front end says which queues have commands (`pending`, a count
// per queue: the admin queue first, then the I/O queues in the order given) and asks for a
// grant; it fetches that many and asks again.
#pragma once

#include <cstdint>
#include <vector>

namespace ssd::ctrl {

class NvmeArbiter {
 public:
  enum class Method : std::uint8_t { RoundRobin, Weighted };
  // An I/O submission queue's priority class (Method::Weighted; round robin ignores it).
  enum class Priority : std::uint8_t { Urgent, High, Medium, Low };
  struct Config {
    Method method = Method::RoundRobin;
    // Commands a queue fetches a turn at most: 1, 2, 4, ..., 64 (the specification's 2^AB),
    // or 0, no limit (its AB = 111b).
    std::uint32_t burst = 1;
    // Commands a round for each weighted class, 1..256 (the specification's 0-based HPW,
    // MPW and LPW plus one).
    std::uint32_t weight_high = 1, weight_medium = 1, weight_low = 1;
  };
  static constexpr std::uint32_t kNone = ~0u;
  struct Grant {
    std::uint32_t queue = kNone;  // 0: the admin queue; i > 0: I/O queue i - 1
    std::uint32_t commands = 0;
  };

  // `io_classes`: each I/O queue's class, in queue order. Throws std::invalid_argument for a
  // burst or a weight out of range, naming it.
  NvmeArbiter(const Config& cfg, std::vector<Priority> io_classes);

  // The next queue to fetch from and how many of its commands, given the commands waiting
  // in each queue (pending.size() == queues()), at most `most` (the front end's free
  // command slots: a weighted class is charged only what it fetches); Grant{} if none
  // waits.
  Grant next(const std::vector<std::uint32_t>& pending, std::uint32_t most = kNone);

  std::uint32_t queues() const { return static_cast<std::uint32_t>(classes_.size()) + 1; }
  const Config& config() const { return cfg_; }

 private:
  // A set of queues that take turns, and whose turn is next.
  struct Group {
    std::vector<std::uint32_t> queues;
    std::size_t cursor = 0;
  };
  // The group's next queue with a command waiting, from its cursor (kNone: none), the
  // cursor moved past it.
  static std::uint32_t take_turn(Group& g, const std::vector<std::uint32_t>& pending);
  bool waiting(const Group& g, const std::vector<std::uint32_t>& pending) const;
  std::uint32_t fetch(std::uint32_t queue, const std::vector<std::uint32_t>& pending, std::uint32_t cap) const;

  Config cfg_;
  std::vector<Priority> classes_;
  Group all_;            // round robin: every queue, the admin queue first
  Group urgent_;         // weighted: the urgent class's queues
  Group weighted_[3];    // weighted: high, medium, low
  std::uint32_t credit_[3] = {};
  std::uint32_t weight_[3] = {};
};

}  // namespace ssd::ctrl
