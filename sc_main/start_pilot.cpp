#include "sc_main/start_pilot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "sc_main/full_ssd.h"
#include "sc_main/settings.h"
#include "sc_main/sim_config.h"

namespace ssd {

bool start_pilot_needed(const Config& cfg) {
  const auto w = cfg.load<host::WorkloadConfig>();
  const auto p = cfg.load<ctrl::PreconditionConfig>();
  return w.kind != "nand_ops" && p.fraction > 0 && p.age > 0 && p.free == "auto" && p.free_blocks == 0;
}

ctrl::GcBalance gc_balance(const ctrl::Ftl& ftl, std::uint64_t preconditioned) {
  ctrl::GcBalance b;
  b.blocks_per_plane = ftl.config().nand.blocks_per_plane;  // the good blocks
  b.pages_per_block = ftl.config().nand.pages_per_block;
  b.gc_low = ftl.gc_low_mark();
  b.gc_reserve = ftl.gc_reserve();
  b.valid_pages = static_cast<double>(preconditioned) / ftl.planes();
  return b;
}

namespace {

// The child's work: the pilot run, its figures as one line of text.
std::string pilot_line(Config c, std::uint64_t requests, double until_us) {
  using host::WorkloadConfig;
  const std::string at = "pilot";
  c.set(&ctrl::PreconditionConfig::free, "gc_running", at);
  c.set(&WorkloadConfig::requests, std::to_string(requests), at);
  char until[32];
  std::snprintf(until, sizeof until, "%.17g", until_us);
  c.set(&WorkloadConfig::duration_us, until, at);
  c.set(&ReportConfig::warmup, "fixed", at);
  c.set(&ReportConfig::warmup_requests, "0", at);
  c.set(&ReportConfig::warmup_us, "0", at);
  c.set(&ReportConfig::interval_us, "0", at);
  c.set(&ReportConfig::requests_csv, "", at);
  c.set(&ReportConfig::request_timeline, "", at);
  c.set(&ReportConfig::audit, "false", at);
  c.set(&ReportConfig::calibrate_kernel, "false", at);
  c.set(&TraceConfig::vcd, "", at);
  c.set(&TraceConfig::scopes, "", at);
  c.set(&TraceConfig::request, "", at);
  c.set(&host::HostConfig::lookahead_thread, "false", at);
  FullSsd top("pilot", c);
  const ctrl::GcUnit& gc = top.firmware->firmware().gc();
  const ctrl::Ftl& ftl = top.firmware->ftl();
  const std::uint32_t planes = ftl.planes();
  // Every few completions: the time, the FTL's counts and the planes with a run under way.
  struct Sample {
    Tick at;
    FtlCounters ftl;
    std::uint32_t active;
  };
  std::vector<Sample> samples{{0, FtlCounters::of(ftl), planes}};  // gc_running: every plane collects at 0
  top.host->set_rounds(std::max<std::uint64_t>(1, requests / 400), [&](const host::HostDriver::Round& r) {
    std::uint32_t active = 0;
    for (std::uint32_t p = 0; p < planes; ++p) active += gc.active(p) ? 1 : 0;
    samples.push_back({r.end, FtlCounters::of(ftl), active});
  });
  sc_core::sc_start();
  // The workload's own errors (a trace's bad line) are the configuration's: the run would
  // refuse them alike, with exit status 2.
  if (top.host->input_error()) throw ConfigError(top.host->errors().front());
  if (!top.host->errors().empty()) throw std::runtime_error(top.host->errors().front());
  // The rates over the second half of the pilot's simulated time (the first holds the
  // ramp of every plane starting a run at once); over the whole pilot if no plane
  // collected in the second half (GC's rate is measured where it runs). Too few
  // completions to measure (a load so light that its requests come later than the pilot's
  // time): no rates, no host writes seen, GC has nothing to keep up with.
  auto measure = [&](std::size_t from, double& seconds, double& collecting, FtlCounters& d) {
    const Sample &a = samples[from], &b = samples.back();
    double weighted = 0;  // plane-time collecting: each sample's planes held since the one before
    for (std::size_t k = from + 1; k < samples.size(); ++k)
      weighted += static_cast<double>(samples[k].active) * static_cast<double>(samples[k].at - samples[k - 1].at);
    const double span = static_cast<double>(b.at - a.at);
    seconds = span / 1e12;
    collecting = span > 0 ? weighted / span / planes : 0;
    d = b.ftl - a.ftl;
  };
  double seconds = 0, collecting = 0;
  FtlCounters d;
  if (samples.size() >= 3) {
    std::size_t half = 0;
    while (half + 2 < samples.size() && samples[half].at < samples.back().at / 2) ++half;
    measure(half, seconds, collecting, d);
    if (collecting == 0 || d.gc_pages == 0) measure(0, seconds, collecting, d);
  }
  const double H = seconds > 0 ? static_cast<double>(d.host_pages) / planes / seconds : 0;
  const double C = seconds > 0 && collecting > 0 ? static_cast<double>(d.gc_pages) / (collecting * planes) / seconds : 0;
  const ctrl::GcBalance::Choice choice = gc_balance(ftl, top.preconditioned).choose(H, C);
  char line[512];
  std::snprintf(line, sizeof line, "ok %.17g %.17g %.17g %.17g %.17g %.17g %d %.17g %.17g %llu\n", seconds, H, C,
                collecting, d.write_amplification(), choice.free_blocks, static_cast<int>(choice.regime),
                choice.collecting, choice.write_amplification,
                static_cast<unsigned long long>(top.host->completed()));
  return line;
}

}  // namespace

StartPilot resolve_start_state(Config& cfg) {
  StartPilot pilot;
  if (!start_pilot_needed(cfg)) return pilot;
  (void)warmup_mode(cfg);  // what the run would refuse, refused before the pilot runs
  // The pilot is the same length whatever the run's (a short run starts where a long one
  // does); a trace's pilot stays within the requests the run replays.
  const Settings s = cfg.load<Settings>();
  std::uint64_t requests = s.report.start_pilot_requests;
  const std::uint64_t asked = s.workload.requests;
  if (s.workload.kind == "trace" && !cfg.is_default(&host::WorkloadConfig::requests) && asked)
    requests = std::min(requests, asked);
  const double until_us = s.workload.kind == "synthetic" ? s.report.start_pilot_us : 0;

  const auto wall0 = std::chrono::steady_clock::now();
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("start pilot: cannot make a pipe");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("start pilot: cannot fork");
  if (pid == 0) {  // the child: no output but the line, then gone without unwinding
    close(fds[0]);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    std::string line;
    int status = 0;
    try {
      line = pilot_line(cfg, requests, until_us);
    } catch (const ConfigError& e) {
      line = std::string("config ") + e.what() + "\n";
      status = 2;
    } catch (const std::exception& e) {
      line = std::string("error ") + e.what() + "\n";
      status = 1;
    }
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t n = write(fds[1], line.data() + done, line.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(status);
  }
  close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.rfind("config ", 0) == 0) throw ConfigError(text.substr(7, text.find_last_not_of('\n') - 6));
  int regime = 0;
  ctrl::GcBalance::Choice& c = pilot.choice;
  if (text.rfind("ok ", 0) != 0 ||
      std::sscanf(text.c_str() + 3, "%lf %lf %lf %lf %lf %lf %d %lf %lf %" SCNu64, &pilot.seconds, &pilot.host_pages_per_s,
                  &pilot.copies_per_s, &pilot.collecting, &pilot.write_amplification, &c.free_blocks, &regime,
                  &c.collecting, &c.write_amplification, &pilot.requests) != 10 ||
      regime < 0 || regime > 2)
    throw std::runtime_error("start pilot (" + param::key(&ctrl::PreconditionConfig::free) + " = auto) failed" +
                             (text.rfind("error ", 0) == 0 ? ": " + text.substr(6, text.find_last_not_of('\n') - 5)
                                                           : std::string(" (exit status ") + std::to_string(status) + ")"));
  c.regime = static_cast<ctrl::GcBalance::Regime>(regime);
  pilot.ran = true;
  pilot.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  cfg.set(&ctrl::PreconditionConfig::free_blocks, free_blocks_text(pilot.choice.free_blocks), "start pilot");
  return pilot;
}

std::string free_blocks_text(double mean) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f", mean);
  return text;
}

}  // namespace ssd
