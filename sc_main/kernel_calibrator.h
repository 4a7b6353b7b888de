// Measures this machine's SystemC kernel rate in the same process as a run: after
// the workload, one SC_METHOD re-notifies itself with a 1 ns timed notification,
// `rounds` rounds of `iterations` activations each; the rate is that of the fastest
// round (activations per wall second), so that a moment of load from elsewhere on the
// machine does not make the kernel look slower and the model's figure better. The
// model's cost is then expressed in those units (kernel activations per host request),
// a figure that depends much less than wall time on how fast or loaded the machine is.
// Then, for comparison with figures quoted elsewhere, the same for a tlm_utils::
// peq_with_get: one payload re-notified 1 ns ahead and taken from the queue.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>

namespace ssd {

class KernelCalibrator : public sc_core::sc_module {
 public:
  KernelCalibrator(sc_core::sc_module_name name, std::uint64_t iterations, unsigned rounds = 5)
      : sc_module(name), per_round_(iterations), rounds_(rounds), peq_("peq") {
    SC_HAS_PROCESS(KernelCalibrator);
    SC_METHOD(step);
    sensitive << ev_;
    dont_initialize();
    SC_METHOD(peq_step);
    sensitive << peq_.get_event();
    dont_initialize();
  }
  void start() {
    start_ = round_start_ = std::chrono::steady_clock::now();
    ev_.notify(sc_core::sc_time(1, sc_core::SC_NS));
  }
  double activations_per_second() const { return rate_; }  // the fastest round's
  double peq_events_per_second() const { return peq_rate_; }
  double seconds() const { return seconds_; }  // wall time the calibration itself took

 private:
  // Counts one activation; at the end of a round, keeps its rate in `best`. False after
  // the last round.
  bool count(double& best) {
    if (++n_ % per_round_ != 0) return true;
    const auto t = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t - round_start_).count();
    if (s > 0) best = std::max(best, static_cast<double>(per_round_) / s);
    round_start_ = t;
    if (n_ != per_round_ * rounds_) return true;
    n_ = 0;
    seconds_ = std::chrono::duration<double>(t - start_).count();
    return false;
  }
  void step() {
    if (count(rate_)) {
      ev_.notify(sc_core::sc_time(1, sc_core::SC_NS));
    } else {
      peq_.notify(payload_, sc_core::sc_time(1, sc_core::SC_NS));
    }
  }
  void peq_step() {
    while (tlm::tlm_generic_payload* gp = peq_.get_next_transaction())
      if (count(peq_rate_)) peq_.notify(*gp, sc_core::sc_time(1, sc_core::SC_NS));
  }
  std::uint64_t per_round_, n_ = 0;
  unsigned rounds_;
  std::chrono::steady_clock::time_point start_, round_start_;
  double rate_ = 0, peq_rate_ = 0, seconds_ = 0;
  sc_core::sc_event ev_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> peq_;
  tlm::tlm_generic_payload payload_;
};

}  // namespace ssd
