// Steady state detected by the rule of the SNIA Solid State Storage Performance Test
// Specification (PTS): the run is cut into rounds, and steady state is reached at the
// first window of `window` consecutive rounds over which every tracked value
//  - stays within +/-`data` (20 %) of its average over the window (data excursion), and
//  - has a least-squares line whose change from the window's first round to its last is
//    within `slope` (10 %) of that average (slope excursion).
// Plain C++ (report.warmup = auto: sc_main/full_ssd.cpp feeds it the rounds).
//
// A value may be missing from a round (NaN: too few samples to mean anything, such as a
// write latency in a round of reads). A value missing from every round of a window is
// not tracked over it; one missing from some rounds only keeps the window from being
// steady (the next rounds decide).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ssd {

class SteadyStateRule {
 public:
  static constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

  struct Round {
    std::uint64_t first_completion = 0, last_completion = 0;  // the completions in it, counted from 1
    double start_us = 0, end_us = 0;
    std::vector<double> values;  // one per name, kMissing where missing
  };

  // Throws std::invalid_argument for a window under 2 rounds or excursions outside (0, 1].
  explicit SteadyStateRule(std::vector<std::string> names, unsigned window = 5, double data = 0.2,
                           double slope = 0.1);

  // Adds the next round. Returns true when the window ending with it is the first steady
  // one (once: later rounds are recorded, and reached() stays true).
  bool add(Round r);

  bool reached() const { return reached_; }
  // The window's first round (an index into rounds()), when reached.
  std::size_t window_first() const { return first_; }
  const std::vector<Round>& rounds() const { return rounds_; }
  const std::vector<std::string>& names() const { return names_; }
  unsigned window() const { return window_; }
  double data_excursion() const { return data_; }
  double slope_excursion() const { return slope_; }
  // Why the latest window is not steady ("" if it is, or too few rounds yet): the first
  // value and rule it fails, with its figures.
  const std::string& why_not() const { return why_not_; }

  // Whether the values v (none missing) pass both rules; if not, `why` says which.
  bool steady(const std::vector<double>& v, std::string& why) const;

 private:
  std::vector<std::string> names_;
  unsigned window_;
  double data_, slope_;
  std::vector<Round> rounds_;
  bool reached_ = false;
  std::size_t first_ = 0;
  std::string why_not_;
};

}  // namespace ssd
