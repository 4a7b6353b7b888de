// Measures this machine's SystemC kernel rate in the same process as a run: after
// the workload, one SC_METHOD re-notifies itself with a 1 ns timed notification
// `iterations` times; activations per wall second = iterations / elapsed. The model's
// cost is then expressed in those units (kernel activations per host request), a
// figure that does not depend on how fast or loaded the machine is.
#pragma once

#include <chrono>
#include <cstdint>

#include <systemc>

namespace ssd {

class KernelCalibrator : public sc_core::sc_module {
 public:
  KernelCalibrator(sc_core::sc_module_name name, std::uint64_t iterations)
      : sc_module(name), target_(iterations) {
    SC_HAS_PROCESS(KernelCalibrator);
    SC_METHOD(step);
    sensitive << ev_;
    dont_initialize();
  }
  void start() {
    t0_ = std::chrono::steady_clock::now();
    ev_.notify(sc_core::sc_time(1, sc_core::SC_NS));
  }
  double activations_per_second() const { return rate_; }
  double seconds() const { return seconds_; }  // wall time the calibration itself took

 private:
  void step() {
    if (++n_ < target_) {
      ev_.notify(sc_core::sc_time(1, sc_core::SC_NS));
      return;
    }
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    rate_ = seconds_ > 0 ? static_cast<double>(target_) / seconds_ : 0.0;
  }
  std::uint64_t target_, n_ = 0;
  std::chrono::steady_clock::time_point t0_;
  double rate_ = 0, seconds_ = 0;
  sc_core::sc_event ev_;
};

}  // namespace ssd
