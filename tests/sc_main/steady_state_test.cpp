// The SNIA PTS steady-state rule (sc_main/steady_state.h), without the kernel: windows
// computed by hand.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sc_main/steady_state.h"

using namespace ssd;

namespace {

SteadyStateRule::Round round_of(std::vector<double> v) {
  SteadyStateRule::Round r;
  r.values = std::move(v);
  return r;
}

// Adds the rounds of one value; returns the index of the round whose add() said steady
// (-1: none).
int feed(SteadyStateRule& rule, const std::vector<double>& xs) {
  int at = -1;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (rule.add(round_of({xs[i]})) && at < 0) at = static_cast<int>(i);
  return at;
}

}  // namespace

TEST_CASE("steady state: constant rounds are steady at the window's last", "[steady]") {
  SteadyStateRule rule({"iops"});
  CHECK(feed(rule, {5, 5, 5, 5}) == -1);  // fewer rounds than the window (5)
  CHECK(rule.why_not().empty());
  CHECK(rule.add(round_of({5})));
  CHECK(rule.reached());
  CHECK(rule.window_first() == 0);
  CHECK_FALSE(rule.add(round_of({500})));  // once: later rounds are kept, the answer stays
  CHECK(rule.reached());
  CHECK(rule.rounds().size() == 6);
}

TEST_CASE("steady state: a round 25 % from the window's average fails the data excursion", "[steady]") {
  // 100, 100, 100, 100, 130: average 106; 130 is 22.6 % from it (more than 20 %).
  SteadyStateRule rule({"write_amplification"});
  CHECK(feed(rule, {100, 100, 100, 100, 130}) == -1);
  CHECK_THAT(rule.why_not(), Catch::Contains("write_amplification") && Catch::Contains("22.6 %") &&
                                 Catch::Contains("average 106"));
  // 100, 100, 100, 100, 125: average 105, 125 is 19.0 % from it; the fitted line's slope
  // is sum((x - 2)(y - 105)) / sum((x - 2)^2) = 50 / 10 = 5
  // a round, a change of 20 across the window: 19.0 % (more than 10 %).
  SteadyStateRule slope({"x"});
  CHECK(feed(slope, {100, 100, 100, 100, 125}) == -1);
  CHECK_THAT(slope.why_not(), Catch::Contains("fitted line changes by 20") && Catch::Contains("19.0 %"));
}

TEST_CASE("steady state: a slow ramp passes, a faster one fails the slope excursion", "[steady]") {
  // 100 .. 108 by 2: average 104, change 8 = 7.7 % of it.
  SteadyStateRule slow({"x"});
  CHECK(feed(slow, {100, 102, 104, 106, 108}) == 4);
  // 100 .. 112 by 3: average 106, change 12 = 11.3 %; no round is more than 5.7 % off.
  SteadyStateRule fast({"x"});
  CHECK(feed(fast, {100, 103, 106, 109, 112}) == -1);
  CHECK_THAT(fast.why_not(), Catch::Contains("fitted line") && Catch::Contains("11.3 %"));
}

TEST_CASE("steady state: the first steady window after a transient, and where it starts", "[steady]") {
  // [50 80 100 100 100]: 50 is 41.9 % from 86. [80 100 100 100 100]: 80 is 16.7 % from 96,
  // within 20 %, but the line rises 4 a round, 16 = 16.7 % across. [100 x 5]: steady.
  SteadyStateRule rule({"x"});
  CHECK(feed(rule, {50, 80, 100, 100, 100, 100, 100}) == 6);
  CHECK(rule.window_first() == 2);
}

TEST_CASE("steady state: every value must hold, and one missing throughout is not tracked", "[steady]") {
  const double m = SteadyStateRule::kMissing;
  SteadyStateRule rule({"write_amplification", "iops", "write_mean_us"});
  // Write latency missing from every round (a read-only window): tracked are the others.
  for (int i = 0; i < 4; ++i) CHECK_FALSE(rule.add(round_of({3.0, 1000, m})));
  CHECK(rule.add(round_of({3.1, 1010, m})));

  SteadyStateRule mixed({"iops", "write_mean_us"});
  for (int i = 0; i < 4; ++i) mixed.add(round_of({1000, 700}));
  CHECK_FALSE(mixed.add(round_of({1000, m})));  // missing from one round: not yet
  CHECK_THAT(mixed.why_not(), Catch::Contains("write_mean_us: missing from 1 of the window's rounds"));

  SteadyStateRule one_bad({"write_amplification", "iops"});
  for (int i = 0; i < 4; ++i) one_bad.add(round_of({3.0, 1000}));
  CHECK_FALSE(one_bad.add(round_of({3.0, 2000})));  // IOPS doubled in the last round
  CHECK_THAT(one_bad.why_not(), Catch::StartsWith("iops:"));
}

TEST_CASE("steady state: the window and the excursions are checked", "[steady]") {
  CHECK_THROWS_AS(SteadyStateRule({"x"}, 1), std::invalid_argument);
  CHECK_THROWS_AS(SteadyStateRule({"x"}, 5, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(SteadyStateRule({"x"}, 5, 0.2, 1.5), std::invalid_argument);
  SteadyStateRule rule({"x", "y"});
  CHECK_THROWS_AS(rule.add(round_of({1})), std::invalid_argument);
  // A window of 2 rounds with +/-50 %: 10 and 14 (average 12, 16.7 % off; the line's change
  // 4 is 33 % of it, over a 10 % slope excursion) fail; 10 and 11 (9.5 %) pass.
  SteadyStateRule two({"x"}, 2, 0.5, 0.1);
  CHECK(feed(two, {10, 14}) == -1);
  SteadyStateRule two_ok({"x"}, 2, 0.5, 0.1);
  CHECK(feed(two_ok, {10, 11}) == 1);
}
