// NVMe interrupt coalescing, plain C++ (the Interrupt Coalescing feature): a completion
// queue's interrupt vector fires once `threshold` completions have been posted since its
// last interrupt, or once `time` has passed since the first of them, whichever comes first;
// with threshold 1 (or both 0) every completion interrupts at once. (The specification's
// aggregation threshold is 0-based and its time in 100 us units; here they are a count and
// picoseconds.) The front end asks it at each completion and at the time it named.
#pragma once

#include <cstdint>

namespace ssd::ctrl {

class InterruptCoalescer {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  // `threshold`: completions an interrupt gathers at most (0 or 1: each its own);
  // `time_ps`: the longest a completion waits for its interrupt (0: no limit but the count).
  InterruptCoalescer(std::uint32_t threshold, std::uint64_t time_ps) : threshold_(threshold), time_(time_ps) {}

  // A completion posted at `now`: true if the vector fires now (it takes every completion
  // pending). Else the completion waits, and deadline() says until when at most.
  bool completion(std::uint64_t now) {
    if (pending_++ == 0) first_ = now;
    if (threshold_ <= 1 || pending_ >= threshold_ || (time_ && now >= first_ + time_)) {
      fire();
      return true;
    }
    return false;
  }
  // The time the pending completions' interrupt is due by the time limit (kNever: none
  // pending, or no time limit).
  std::uint64_t deadline() const { return pending_ && time_ ? first_ + time_ : kNever; }
  // The time limit came at `now`: true if the vector fires (completions were pending and
  // their time is up).
  bool timer(std::uint64_t now) {
    if (!pending_ || !time_ || now < first_ + time_) return false;
    fire();
    return true;
  }
  std::uint32_t pending() const { return pending_; }
  std::uint64_t interrupts() const { return interrupts_; }
  // The completions the last interrupt took.
  std::uint32_t last_batch() const { return last_batch_; }

 private:
  void fire() {
    last_batch_ = pending_;
    pending_ = 0;
    ++interrupts_;
  }
  std::uint32_t threshold_;
  std::uint64_t time_;
  std::uint32_t pending_ = 0, last_batch_ = 0;
  std::uint64_t first_ = 0, interrupts_ = 0;
};

}  // namespace ssd::ctrl
