// NVMe command arbitration (controller/nvme_arbiter.h), without the kernel: saturated and
// partly empty queues, counted grant by grant.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "controller/nvme_arbiter.h"

using namespace ssd::ctrl;
using P = NvmeArbiter::Priority;

namespace {

// Grants `rounds` times on queues that never run dry (each keeps `depth` commands waiting);
// returns the commands each queue fetched.
std::vector<std::uint64_t> saturate(NvmeArbiter& a, std::vector<std::uint32_t> pending, int rounds) {
  std::vector<std::uint64_t> got(pending.size(), 0);
  for (int i = 0; i < rounds; ++i) {
    const NvmeArbiter::Grant g = a.next(pending);
    REQUIRE(g.queue != NvmeArbiter::kNone);
    REQUIRE(g.commands >= 1);
    REQUIRE(g.commands <= pending[g.queue]);
    got[g.queue] += g.commands;
  }
  return got;
}

NvmeArbiter::Config wrr(std::uint32_t h, std::uint32_t m, std::uint32_t l, std::uint32_t burst = 1) {
  NvmeArbiter::Config c;
  c.method = NvmeArbiter::Method::Weighted;
  c.weight_high = h;
  c.weight_medium = m;
  c.weight_low = l;
  c.burst = burst;
  return c;
}

}  // namespace

TEST_CASE("nvme arbitration: round robin gives saturated queues even shares, a burst a turn", "[nvme][arbiter]") {
  NvmeArbiter::Config c;
  c.burst = 4;
  NvmeArbiter a(c, {P::Low, P::High, P::Urgent});  // classes do not matter to round robin
  // Admin, then I/O queues 1..3 in order, 4 commands each turn.
  const std::vector<std::uint32_t> pending{100, 100, 100, 100};
  for (std::uint32_t turn = 0; turn < 8; ++turn) {
    const NvmeArbiter::Grant g = a.next(pending);
    CHECK(g.queue == turn % 4);
    CHECK(g.commands == 4);
  }
  const auto got = saturate(a, pending, 4000);
  for (const std::uint64_t n : got) CHECK(n == 4000);  // exactly even
}

TEST_CASE("nvme arbitration: round robin passes over empty queues and fetches what is there", "[nvme][arbiter]") {
  NvmeArbiter::Config c;
  c.burst = 8;
  NvmeArbiter a(c, {P::Low, P::Low, P::Low});
  std::vector<std::uint32_t> pending{0, 3, 0, 20};
  NvmeArbiter::Grant g = a.next(pending);
  CHECK((g.queue == 1 && g.commands == 3));
  g = a.next(pending);
  CHECK((g.queue == 3 && g.commands == 8));
  pending = {0, 0, 0, 0};
  CHECK(a.next(pending).queue == NvmeArbiter::kNone);
  // No limit (0): the whole queue.
  c.burst = 0;
  NvmeArbiter b(c, {P::Low});
  g = b.next({0, 500});
  CHECK((g.queue == 1 && g.commands == 500));
}

TEST_CASE("nvme arbitration: weights 4:2:1 give saturated classes shares 4:2:1", "[nvme][arbiter]") {
  for (const std::uint32_t burst : {1u, 2u, 8u, 0u}) {
    NvmeArbiter a(wrr(4, 2, 1, burst), {P::High, P::Medium, P::Low});
    const auto got = saturate(a, {0, 64, 64, 64}, 7000);
    const double total = static_cast<double>(got[1] + got[2] + got[3]);
    INFO("burst " << burst);
    CHECK(got[0] == 0);
    CHECK(got[1] / total == Approx(4.0 / 7).epsilon(0.05));
    CHECK(got[2] / total == Approx(2.0 / 7).epsilon(0.05));
    CHECK(got[3] / total == Approx(1.0 / 7).epsilon(0.05));
  }
  // Burst 1: a round is H H H H M M L, exactly.
  NvmeArbiter a(wrr(4, 2, 1), {P::High, P::Medium, P::Low});
  const std::vector<std::uint32_t> pending{0, 9, 9, 9}, order{1, 1, 1, 1, 2, 2, 3};
  for (int round = 0; round < 3; ++round)
    for (const std::uint32_t q : order) CHECK(a.next(pending).queue == q);
}

TEST_CASE("nvme arbitration: the admin queue, then the urgent class, go before the weighted classes",
          "[nvme][arbiter]") {
  NvmeArbiter a(wrr(4, 2, 1), {P::High, P::Urgent, P::Low, P::Urgent});
  std::vector<std::uint32_t> pending{2, 5, 3, 5, 3};
  // Admin first (a burst of 1 at a time), then the two urgent queues in turns, and only
  // when neither has a command do the weighted classes get a grant.
  std::vector<std::uint32_t> order;
  for (;;) {
    const NvmeArbiter::Grant g = a.next(pending);
    if (g.queue == NvmeArbiter::kNone) break;
    pending[g.queue] -= g.commands;
    order.push_back(g.queue);
  }
  const std::vector<std::uint32_t> expect{0, 0, 2, 4, 2, 4, 2, 4, 1, 1, 1, 1, 3, 1, 3, 3, 3, 3};
  CHECK(order == expect);
}

TEST_CASE("nvme arbitration: queues of one class take turns and an idle class does not hold the round",
          "[nvme][arbiter]") {
  NvmeArbiter a(wrr(2, 1, 1), {P::High, P::High, P::Low});
  // Two high queues alternate within their class's 2 a round; low takes 1.
  const std::vector<std::uint32_t> pending{0, 9, 9, 9};
  const std::vector<std::uint32_t> order{1, 2, 3, 1, 2, 3};
  for (const std::uint32_t q : order) CHECK(a.next(pending).queue == q);
  // Only low has commands: served every time, its credit renewed each round.
  for (int i = 0; i < 5; ++i) CHECK(a.next({0, 0, 0, 4}).queue == 3);
}

TEST_CASE("nvme arbitration: a burst or weight out of range is refused, naming it", "[nvme][arbiter]") {
  NvmeArbiter::Config c;
  c.burst = 3;
  CHECK_THROWS_WITH(NvmeArbiter(c, {}), Catch::Contains("burst = 3"));
  c.burst = 128;
  CHECK_THROWS_WITH(NvmeArbiter(c, {}), Catch::Contains("burst = 128"));
  CHECK_THROWS_WITH(NvmeArbiter(wrr(0, 1, 1), {}), Catch::Contains("high weight = 0"));
  CHECK_THROWS_WITH(NvmeArbiter(wrr(1, 257, 1), {}), Catch::Contains("medium weight = 257"));
  CHECK_NOTHROW(NvmeArbiter(wrr(256, 1, 1, 64), {P::Low}));
  NvmeArbiter ok(c = NvmeArbiter::Config{}, {P::Low});
  CHECK_THROWS_AS(ok.next({1}), std::invalid_argument);  // two queues, one count
}

TEST_CASE("nvme arbitration: a grant capped by free slots charges a class only what it fetches", "[nvme][arbiter]") {
  // Weights 8:4:1 with bursts of 4, but one free slot at each arbitration (a saturated
  // controller frees one command slot per completion): each grant fetches one command and
  // must cost its class one credit, so that the shares stay 8:4:1. (Charging the whole
  // burst made them 2:1:1.)
  NvmeArbiter a(wrr(8, 4, 1, 4), {P::High, P::Medium, P::Low});
  const std::vector<std::uint32_t> pending{0, 100, 100, 100};
  std::vector<std::uint64_t> got(4, 0);
  for (int i = 0; i < 13 * 100; ++i) {
    const NvmeArbiter::Grant g = a.next(pending, 1);
    REQUIRE(g.commands == 1);
    got[g.queue] += g.commands;
  }
  CHECK(got[1] == 800);
  CHECK(got[2] == 400);
  CHECK(got[3] == 100);
}
