// A count of the model's own process activations (every SC_METHOD of the model
// adds one when it runs), for the benchmark's activations-per-request figure.
#pragma once

#include <cstdint>

namespace ssd {

// Which process ran: the benchmark reports activations per request by module.
enum ActivationSource : int { kActNand, kActHost, kActScheduler, kActHostIface, kActFirmware, kActOther, kActSources };
inline const char* activation_source_name(int k) {
  static const char* names[] = {"nand", "host", "scheduler", "host_interface", "firmware", "other"};
  return names[k];
}
inline std::uint64_t g_process_activations = 0;
inline std::uint64_t g_activations_by[kActSources] = {};
inline void count_activation(int source = kActOther) {
  ++g_process_activations;
  ++g_activations_by[source];
}

}  // namespace ssd
