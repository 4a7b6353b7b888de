// A count of the model's own process activations (every SC_METHOD of the model
// adds one when it runs), for the benchmark's activations-per-request figure.
#pragma once

#include <cstdint>

namespace ssd {

inline std::uint64_t g_process_activations = 0;
inline void count_activation() { ++g_process_activations; }

}  // namespace ssd
