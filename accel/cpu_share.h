// Whether a second core is free for a helper thread (host.lookahead_thread=auto): the
// CPUs this process may run on and the machine's recent load, read once at the start.
// A thread that computes ahead pays only on a core of its own: on the simulation's core
// it takes the simulation's time (on one core, the bench job ran in 0.886 of the wall
// time and 0.786 of the CPU time without it; docs/performance.md has the measurements).
#pragma once

#include <sched.h>
#include <unistd.h>

#include <cstdio>

namespace ssd::accel {

struct CpuShare {
  unsigned allowed = 1;  // CPUs the process may use: its affinity mask, within its cgroup's quota
  unsigned online = 1;   // CPUs of the machine
  double load = 0;       // the machine's one-minute load average (0 when unknown)
};

inline CpuShare read_cpu_share() {
  CpuShare s;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) s.allowed = static_cast<unsigned>(CPU_COUNT(&set));
  // A container's CPU quota (cgroup v2 "QUOTA PERIOD", or "max"): CPUs' worth of time.
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/cpu.max", "r")) {
    double quota = 0, period = 0;
    if (std::fscanf(f, "%lf %lf", &quota, &period) == 2 && quota > 0 && period > 0) {
      const double cpus = quota / period;
      if (cpus < s.allowed) s.allowed = cpus < 1 ? 1u : static_cast<unsigned>(cpus);
    }
    std::fclose(f);
  }
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  s.online = n > 0 ? static_cast<unsigned>(n) : s.allowed;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    double load = 0;
    if (std::fscanf(f, "%lf", &load) == 1 && load >= 0) s.load = load;
    std::fclose(f);
  }
  return s;
}

// The rule: the process may run on two CPUs or more, and the load leaves at least 1.5 of
// the machine's CPUs idle (one for the simulation, most of another for the thread). The
// load is read before the simulation runs: it counts the others' work, and for a minute
// or so the work of runs that just ended.
inline bool second_core_free(const CpuShare& s) {
  return s.allowed >= 2 && static_cast<double>(s.online) - s.load >= 1.5;
}

}  // namespace ssd::accel
