// An error of the workload's input (exit status 2): a synthetic workload that cannot run
// as configured, or a trace line the reader refuses (TraceError).
#pragma once

#include <stdexcept>

namespace ssd::host {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ssd::host
