#include "controller/nvme_arbiter.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ssd::ctrl {

namespace {

bool valid_burst(std::uint32_t b) { return b == 0 || (b <= 64 && (b & (b - 1)) == 0); }

void check_weight(const char* name, std::uint32_t w) {
  if (w < 1 || w > 256)
    throw std::invalid_argument(std::string("NVMe arbitration: ") + name + " = " + std::to_string(w) +
                                ": a weighted class's weight is 1..256 commands a round");
}

}  // namespace

NvmeArbiter::NvmeArbiter(const Config& cfg, std::vector<Priority> io_classes)
    : cfg_(cfg), classes_(std::move(io_classes)) {
  if (!valid_burst(cfg.burst))
    throw std::invalid_argument("NVMe arbitration: burst = " + std::to_string(cfg.burst) +
                                ": the arbitration burst is 1, 2, 4, 8, 16, 32 or 64 commands, or 0 (no limit)");
  check_weight("high weight", cfg.weight_high);
  check_weight("medium weight", cfg.weight_medium);
  check_weight("low weight", cfg.weight_low);
  weight_[0] = cfg.weight_high;
  weight_[1] = cfg.weight_medium;
  weight_[2] = cfg.weight_low;
  std::copy(weight_, weight_ + 3, credit_);
  all_.queues.push_back(0);
  for (std::uint32_t i = 0; i < classes_.size(); ++i) {
    const std::uint32_t q = i + 1;
    all_.queues.push_back(q);
    if (classes_[i] == Priority::Urgent) urgent_.queues.push_back(q);
    else weighted_[static_cast<unsigned>(classes_[i]) - 1].queues.push_back(q);
  }
}

std::uint32_t NvmeArbiter::take_turn(Group& g, const std::vector<std::uint32_t>& pending) {
  const std::size_t n = g.queues.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (g.cursor + k) % n;
    if (pending[g.queues[i]]) {
      g.cursor = (i + 1) % n;
      return g.queues[i];
    }
  }
  return kNone;
}

bool NvmeArbiter::waiting(const Group& g, const std::vector<std::uint32_t>& pending) const {
  for (const std::uint32_t q : g.queues)
    if (pending[q]) return true;
  return false;
}

std::uint32_t NvmeArbiter::fetch(std::uint32_t queue, const std::vector<std::uint32_t>& pending,
                                 std::uint32_t cap) const {
  std::uint32_t n = pending[queue];
  if (cfg_.burst) n = std::min(n, cfg_.burst);
  return std::min(n, cap);
}

NvmeArbiter::Grant NvmeArbiter::next(const std::vector<std::uint32_t>& pending, std::uint32_t most) {
  if (pending.size() != queues())
    throw std::invalid_argument("NvmeArbiter::next: " + std::to_string(pending.size()) + " counts for " +
                                std::to_string(queues()) + " queues");
  const std::uint32_t any = most;
  if (cfg_.method == Method::RoundRobin) {
    const std::uint32_t q = take_turn(all_, pending);
    return q == kNone ? Grant{} : Grant{q, fetch(q, pending, any)};
  }
  if (pending[0]) return Grant{0, fetch(0, pending, any)};  // the admin queue first
  if (const std::uint32_t q = take_turn(urgent_, pending); q != kNone) return Grant{q, fetch(q, pending, any)};
  // The weighted classes: the first with credit and a command waiting; when none has
  // both, a new round if any has a command waiting.
  for (int round = 0; round < 2; ++round) {
    for (unsigned c = 0; c < 3; ++c) {
      if (!credit_[c] || !waiting(weighted_[c], pending)) continue;
      const std::uint32_t q = take_turn(weighted_[c], pending);
      const std::uint32_t n = fetch(q, pending, std::min(credit_[c], most));
      credit_[c] -= n;
      return Grant{q, n};
    }
    bool any_waiting = false;
    for (unsigned c = 0; c < 3; ++c) any_waiting = any_waiting || waiting(weighted_[c], pending);
    if (!any_waiting) break;
    std::copy(weight_, weight_ + 3, credit_);
  }
  return Grant{};
}

}  // namespace ssd::ctrl
