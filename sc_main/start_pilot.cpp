#include "sc_main/start_pilot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <systemc>

#include "sc_main/full_ssd.h"
#include "sc_main/sim_config.h"

namespace ssd {

bool start_pilot_needed(const Config& cfg) {
  return cfg.get_string("workload.kind") != "nand_ops" && cfg.get_double("ftl.precondition") > 0 &&
         cfg.get_double("ftl.precondition_age") > 0 && cfg.get_string("ftl.precondition_free") == "auto" &&
         cfg.get_double("ftl.precondition_free_blocks") == 0;
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
std::string pilot_line(Config c, std::uint64_t requests) {
  c.set_text("ftl.precondition_free", "gc_running", "pilot");
  c.set_text("workload.requests", std::to_string(requests), "pilot");
  c.set_text("workload.duration_us", "0", "pilot");
  c.set_text("report.warmup", "fixed", "pilot");
  c.set_text("report.warmup_requests", std::to_string(requests / 2), "pilot");
  c.set_text("report.warmup_us", "0", "pilot");
  c.set_text("report.interval_us", "0", "pilot");
  c.set_text("report.requests_csv", "", "pilot");
  c.set_text("report.request_timeline", "", "pilot");
  c.set_text("report.audit", "false", "pilot");
  c.set_text("report.calibrate_kernel", "false", "pilot");
  c.set_text("trace.vcd", "", "pilot");
  c.set_text("trace.request", "", "pilot");
  c.set_text("host.lookahead_thread", "false", "pilot");
  FullSsd top("pilot", c);
  const ctrl::GcUnit& gc = top.firmware->firmware().gc();
  const std::uint32_t planes = top.firmware->ftl().planes();
  // The planes with a run under way, sampled every few completions after the warm-up
  // quarter, weighted by the time since the last sample.
  double weighted = 0;
  Tick last = 0;
  bool counting = false;
  top.host->set_rounds(std::max<std::uint64_t>(1, requests / 400), [&](const host::HostDriver::Round& r) {
    if (!counting) {
      counting = top.host->window_start() > 0;
      last = r.end;
      return;
    }
    std::uint32_t active = 0;
    for (std::uint32_t p = 0; p < planes; ++p) active += gc.active(p) ? 1 : 0;
    weighted += static_cast<double>(active) * static_cast<double>(r.end - last);
    last = r.end;
  });
  sc_core::sc_start();
  // The workload's own errors (a trace's bad line) are the configuration's: the run would
  // refuse them alike, with exit status 2.
  if (top.host->input_error()) throw ConfigError(top.host->errors().front());
  if (!top.host->errors().empty()) throw std::runtime_error(top.host->errors().front());
  const FtlCounters d = top.ftl_at_end - top.ftl_at_start;
  const double span = static_cast<double>(last - top.window_start.at);
  const double seconds = static_cast<double>(top.host->last_completion() - top.window_start.at) / 1e12;
  const double collecting = span > 0 ? weighted / span / planes : 1.0;
  const double H = seconds > 0 ? static_cast<double>(d.host_pages) / planes / seconds : 0;
  const double C = seconds > 0 && collecting > 0 ? static_cast<double>(d.gc_pages) / (collecting * planes) / seconds : 0;
  const ctrl::GcBalance::Choice choice = gc_balance(top.firmware->ftl(), top.preconditioned).choose(H, C);
  char line[512];
  std::snprintf(line, sizeof line, "ok %.17g %.17g %.17g %.17g %.17g %.17g %d %.17g %.17g\n", seconds, H, C, collecting,
                d.write_amplification(), choice.free_blocks, static_cast<int>(choice.regime), choice.collecting,
                choice.write_amplification);
  return line;
}

}  // namespace

StartPilot resolve_start_state(Config& cfg) {
  StartPilot pilot;
  if (!start_pilot_needed(cfg)) return pilot;
  (void)warmup_mode(cfg);  // what the run would refuse, refused before the pilot runs
  std::uint64_t requests = static_cast<std::uint64_t>(cfg.get_int("report.start_pilot_requests"));
  const std::uint64_t asked = static_cast<std::uint64_t>(cfg.get_int("workload.requests"));
  if (cfg.get_string("workload.kind") == "trace" && !cfg.is_default("workload.requests")) requests = std::min(requests, asked);
  if (cfg.get_string("workload.kind") == "synthetic" && asked) requests = std::min(requests, asked);
  requests = std::max<std::uint64_t>(requests, 8);

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
      line = pilot_line(cfg, requests);
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
      std::sscanf(text.c_str() + 3, "%lf %lf %lf %lf %lf %lf %d %lf %lf", &pilot.seconds, &pilot.host_pages_per_s,
                  &pilot.copies_per_s, &pilot.collecting, &pilot.write_amplification, &c.free_blocks, &regime,
                  &c.collecting, &c.write_amplification) != 9 ||
      regime < 0 || regime > 2)
    throw std::runtime_error("start pilot (ftl.precondition_free = auto) failed" +
                             (text.rfind("error ", 0) == 0 ? ": " + text.substr(6, text.find_last_not_of('\n') - 5)
                                                           : std::string(" (exit status ") + std::to_string(status) + ")"));
  c.regime = static_cast<ctrl::GcBalance::Regime>(regime);
  pilot.ran = true;
  pilot.requests = requests;
  pilot.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  char mean[32];
  std::snprintf(mean, sizeof mean, "%.6f", pilot.choice.free_blocks);
  cfg.set_text("ftl.precondition_free_blocks", mean, "start pilot");
  return pilot;
}

}  // namespace ssd
