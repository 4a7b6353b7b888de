#include "sc_main/settings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "common/text_fields.h"
#include "controller/read_unit.h"

namespace ssd {

using param::key;

const param::Table<TraceConfig>& TraceConfig::keys() {
  static const param::Table<TraceConfig> t = [] {
    using T = TraceConfig;
    param::Table<T> k;
    k.text("trace.vcd", &T::vcd, "write a VCD waveform to this file (empty: tracing off; a relative path is inside --out when given)")
        .number("trace.start_us", &T::start_us, 0, 1e12, "first simulated time recorded in the VCD, us").unit("us")
        .number("trace.end_us", &T::end_us, 0, 1e12, "last simulated time recorded, us (0: to the end)").unit("us")
        .text("trace.scopes", &T::scopes,
              "comma-separated scopes to trace, each a whole dotted name and what is under it, e.g. ssd.nand.ch0 "
              "(empty: all; needs trace.vcd)")
        .text("trace.request", &T::request,
              "host request ids (from 1, comma-separated) whose life the VCD shows as signals of their own "
              "(ssd.request.rID; needs trace.vcd)")
        .integer("trace.request_pages", &T::request_pages, 1, 4096,
                 "page slots shown per traced request (its first pages)").unit("pages");
    return k;
  }();
  return t;
}

const param::Table<ReportConfig>& ReportConfig::keys() {
  static const param::Table<ReportConfig> t = [] {
    using R = ReportConfig;
    param::Table<R> k;
    k.integer("report.start_pilot_requests", &R::start_pilot_requests, 8, 1000000000,
              "ftl.precondition_free = auto: the start pilot's requests (a trace's: at most its run's own); its "
              "rates are over the second half of its simulated time (the first holds the ramp of every plane "
              "starting a GC run at once)").unit("requests")
        .number("report.start_pilot_us", &R::start_pilot_us, 1000, kMaxTimeUs,
                "ftl.precondition_free = auto: a synthetic workload's start pilot ends after this much simulated "
                "time if its requests have not all completed (a light load: GC's rate shows in a few runs)")
        .unit("us")
        .text("report.request_timeline", &R::request_timeline,
              "host request ids (from 1, comma-separated) whose life is printed as a table after the run")
        .flag("report.stream_alone", &R::stream_alone,
              "workload.streams: after the run, run each stream alone (the same device, config and queues, the "
              "other streams left out) and report each stream's slowdown (its mean latency shared / alone) and "
              "the fairness (lowest slowdown / highest), as MQSim does")
        .integer("report.stream_only", &R::stream_only, -1, 63,
                 "workload.streams: run only this stream (-1: all of them); report.stream_alone's runs set it")
        .flag("report.calibrate_kernel", &R::calibrate_kernel,
              "after the workload, measure the kernel's activations per second (the fastest of ten rounds "
              "of 400,000 timed notifications; then a peq_with_get loop alike) and report the run's cost in "
              "kernel activations per host request")
        .text("report.requests_csv", &R::requests_csv,
              "write one line per host request to this CSV file: submit_us,complete_us,op,lba,bytes,latency_us, "
              "part_<part>_us for each latency part (docs/controller.md), id (a relative path is inside --out when "
              "given)")
        .flag("report.audit", &R::audit,
              "after the workload, read every logical page back through the NAND's backdoor and check it "
              "against what the host last wrote (finds data lost where no read of the run looked)")
        .integer("report.warmup_requests", &R::warmup_requests, 0, 1000000000000ll,
                 "the first this many requests run but are left out of the statistics (the window starts at the "
                 "arrival of the first request after the warm-up)").unit("requests")
        .number("report.warmup_us", &R::warmup_us, 0, kMaxTimeUs,
                "requests arriving before this simulated time run but are left out of the statistics").unit("us")
        .choice("report.warmup", &R::warmup, {"default", "auto", "fixed"},
                "how the statistics' window starts. auto = run in rounds of report.warmup_round_requests "
                "completions and end the warm-up at steady state, by the SNIA PTS rule: over "
                "report.warmup_window_rounds rounds, each round's write amplification, IOPS and mean latency "
                "per op within +/-20 % of the window's average and its fitted line within 10 % of it across the "
                "window (stats.json steady_state; not reached: the statistics include start-up, and the summary "
                "warns); fixed = report.warmup_requests and report.warmup_us (0: none); default = auto for a "
                "synthetic workload without report.warmup_requests or report.warmup_us, else fixed")
        .integer("report.warmup_round_requests", &R::warmup_round_requests, 10, 1000000000000ll,
                 "report.warmup = auto: requests completed per round").unit("requests")
        .integer("report.warmup_window_rounds", &R::warmup_window_rounds, 2, 1000,
                 "report.warmup = auto: the rounds a steady window spans").unit("rounds")
        .number("report.interval_us", &R::interval_us, 0, kMaxTimeUs,
                "write --out DIR/timeseries.csv with one row per this many simulated us (0: none)").unit("us")
        .flag("report.timeline", &R::timeline, "print each NAND command's timeline (nand_ops workloads)")
        .integer("report.timeline_max", &R::timeline_max, 0, 1000000, "at most this many timeline lines")
        .unit("lines");
    return k;
  }();
  return t;
}

const param::Table<PowerConfig>& PowerConfig::keys() {
  static const param::Table<PowerConfig> t = [] {
    using P = PowerConfig;
    param::Table<P> k;
    k.text("power.cut_at_us", &P::cut_at_us,
           "power cuts at these simulated times, us, comma-separated (e.g. 1500,20000.5; each > 0; empty: none). "
           "Cuts after the workload's last completion are made only while the write buffer holds pages "
           "(docs/controller.md, Power loss)")
        .integer("power.cuts", &P::cuts, 0, 10000000,
                 "seeded power cuts: each falls a drawn time (up to power.cut_window_us) after the k-th request "
                 "of the workload is sent, k drawn (flushes not counted; needs a workload of a known number of "
                 "requests)").unit("cuts")
        .integer("power.cut_seed", &P::cut_seed, 0, 4294967295ll, "seed of the drawn requests and times of power.cuts")
        .number("power.cut_window_us", &P::cut_window_us, 0, 1e9,
                "a seeded cut falls uniformly within this long after its request is sent, us").unit("us")
        .choice("power.cut_mode", &P::cut_mode, {"probe"},
                "what a cut does: probe = measures what the host would lose (durable and volatile writes, tears, "
                "order) and how long the recovery scan would take, from the device's state at the cut; the run "
                "goes on as if the power had held");
    return k;
  }();
  return t;
}

std::vector<double> cut_times(const std::string& list) {
  std::vector<double> out;
  for (const std::string& item : comma_items(list)) {
    char* end = nullptr;
    const double v = item.empty() ? 0 : std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !std::isfinite(v))
      throw std::invalid_argument("item " + std::to_string(out.size() + 1) + " ('" + item + "') is not a number");
    if (v <= 0 || v > kMaxInputUs)
      throw std::invalid_argument("item " + std::to_string(out.size() + 1) + " (" + param::number_text(v) +
                                  ") is not within (0, " + param::number_text(kMaxInputUs) + "] us");
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const param::Table<Settings>& Settings::keys() {
  static const param::Table<Settings> t = [] {
    using S = Settings;
    param::Table<S> k;
    k.part(&S::ftl, ctrl::FtlConfig::keys())
        .part(&S::hif, ctrl::HostIfaceConfig::keys())
        .part(&S::sched, ctrl::SchedConfig::keys())
        .part(&S::policy, ctrl::PolicyChoice::keys())
        .part(&S::sos, ctrl::SosConfig::keys())
        .part(&S::fw, ctrl::FirmwareConfig::keys())
        .part(&S::start, ctrl::PreconditionConfig::keys())
        .part(&S::host, host::HostConfig::keys())
        .part(&S::workload, host::WorkloadConfig::keys())
        .part(&S::trace, TraceConfig::keys())
        .part(&S::report, ReportConfig::keys())
        .part(&S::power, PowerConfig::keys())
        .part(&S::nvme, ctrl::NvmeConfig::keys())
        .part(&S::pcie, PcieConfig::keys());
    return k;
  }();
  return t;
}

namespace {

std::string num(double v) { return param::number_text(v); }

// The rules, each with the keys it involves (named by their declarations).
std::vector<Rule> make_rules() {
  using Given = std::function<bool(const std::string&)>;
  using ctrl::FirmwareConfig;
  using ctrl::PolicyChoice;
  using host::WorkloadConfig;
  const std::string sched = key(&PolicyChoice::scheduler), release = key(&PolicyChoice::firmware_sched);
  const std::string reschedule = key(&ctrl::RescheduleConfig::multiplane);
  const std::string batch = key(&FirmwareConfig::batch_depth);
  const std::string reads = key(&WorkloadConfig::read_ratio), trims = key(&WorkloadConfig::trim_ratio);
  const std::string size = key(&WorkloadConfig::size_bytes), size_max = key(&WorkloadConfig::size_max_bytes);
  const std::string align = key(&WorkloadConfig::align_bytes), kind = key(&WorkloadConfig::kind);
  const std::string path = key(&WorkloadConfig::path), requests = key(&WorkloadConfig::requests);
  const std::string duration = key(&WorkloadConfig::duration_us);
  const std::string warmup = key(&ReportConfig::warmup), warm_n = key(&ReportConfig::warmup_requests),
                    warm_us = key(&ReportConfig::warmup_us);
  const std::string free_mode = key(&ctrl::PreconditionConfig::free),
                    free_blocks = key(&ctrl::PreconditionConfig::free_blocks);
  const std::string vcd = key(&TraceConfig::vcd), scopes = key(&TraceConfig::scopes),
                    traced = key(&TraceConfig::request), t_start = key(&TraceConfig::start_us),
                    t_end = key(&TraceConfig::end_us);
  const std::string unit = key(&FirmwareConfig::read_unit_bytes), page = key(&nand::NandConfig::page_bytes);
  const std::string suspend = key(&ctrl::SchedConfig::suspend);

  std::vector<Rule> r;
  r.push_back({{release, sched}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.policy.firmware_sched != "sos" || s.policy.scheduler == "pass") return "";
                 return release + " = sos needs " + sched + " = pass (it is " + s.policy.scheduler +
                        "): SOS schedules in the firmware, the block passes through";
               }});
  r.push_back({{reschedule, batch}, [=](const Settings& s, const Given& given) -> std::string {
                 if (!s.sched.reschedule.on() || !given(batch) || s.fw.batch_depth == 0) return "";
                 return reschedule + " = " + s.sched.reschedule.name() + " replaces the firmware's batching: leave " +
                        batch + " unset or 0";
               }});
  // The rules of a workload's shape hold for the workload that uses those keys: the
  // synthetic one (sizes, ratios), or any the controller runs (the request size).
  const auto synthetic = [](const Settings& s) { return s.workload.kind == "synthetic"; };
  const auto controller = [](const Settings& s) { return s.workload.kind != "nand_ops"; };
  r.push_back({{reads, trims}, [=](const Settings& s, const Given&) -> std::string {
                 if (!synthetic(s) || s.workload.read_ratio + s.workload.trim_ratio <= 1.0) return "";
                 return trims + " = " + num(s.workload.trim_ratio) + " with " + reads + " = " +
                        num(s.workload.read_ratio) + " leaves a negative share of writes (their sum must be at most 1)";
               }});
  r.push_back({{size}, [=](const Settings& s, const Given&) -> std::string {
                 if (!controller(s) || s.workload.size_bytes % 512 == 0) return "";
                 return size + " = " + std::to_string(s.workload.size_bytes) + " is not a multiple of 512";
               }});
  r.push_back({{align}, [=](const Settings& s, const Given&) -> std::string {
                 if (!synthetic(s) || s.workload.align_bytes % 512 == 0) return "";
                 return align + " = " + std::to_string(s.workload.align_bytes) + " is not a multiple of 512";
               }});
  r.push_back({{size_max}, [=](const Settings& s, const Given&) -> std::string {
                 if (!synthetic(s) || s.workload.size_max_bytes % 512 == 0) return "";
                 return size_max + " = " + std::to_string(s.workload.size_max_bytes) + " is not a multiple of 512";
               }});
  r.push_back({{size_max, size}, [=](const Settings& s, const Given&) -> std::string {
                 if (!synthetic(s) || s.workload.size_max_bytes == 0 || s.workload.size_max_bytes >= s.workload.size_bytes)
                   return "";
                 return size_max + " must be 0 or at least " + size;
               }});
  r.push_back({{kind, path}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.workload.kind != "trace" || !s.workload.path.empty()) return "";
                 return kind + " = trace needs " + path + " (the trace file)";
               }});
  r.push_back({{requests, duration, kind}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.workload.kind != "synthetic" || s.workload.requests != 0 || s.workload.duration_us > 0)
                   return "";
                 return requests + " = 0 needs " + duration + " > 0 for a synthetic workload";
               }});
  r.push_back({{warmup, warm_n, warm_us}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.report.warmup != "auto" || (s.report.warmup_requests == 0 && s.report.warmup_us <= 0))
                   return "";
                 return warmup + " = auto ends the warm-up at steady state: leave " + warm_n + " and " + warm_us +
                        " at 0, or set " + warmup + " = fixed";
               }});
  r.push_back({{warmup, kind}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.report.warmup != "auto" || s.workload.kind != "nand_ops") return "";
                 return warmup + " = auto needs host requests: a nand_ops script has none (" + kind + ")";
               }});
  r.push_back({{free_blocks, free_mode}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.start.fraction <= 0 || s.start.free == "auto" || s.start.free_blocks <= 0) return "";
                 return free_blocks + " is the start of " + free_mode + " = auto, not of " + s.start.free;
               }});
  r.push_back({{t_end, t_start}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.trace.end_us <= 0 || us_to_ticks(s.trace.end_us) > us_to_ticks(s.trace.start_us)) return "";
                 return t_end + " must be greater than " + t_start + " (or 0 for no end)";
               }});
  r.push_back({{scopes, vcd}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.trace.scopes.find_first_not_of(' ') == std::string::npos || !s.trace.vcd.empty()) return "";
                 return scopes + " chooses what the VCD shows: set " + vcd + " too";
               }});
  r.push_back({{traced, vcd}, [=](const Settings& s, const Given&) -> std::string {
                 if (!controller(s) || s.trace.request.find_first_not_of(' ') == std::string::npos || !s.trace.vcd.empty())
                   return "";
                 return traced + " shows requests in the VCD: set " + vcd + " too";
               }});
  r.push_back({{unit, page}, [=](const Settings& s, const Given&) -> std::string {
                 if (!controller(s) || ctrl::read_unit_fits(s.fw.read_unit_bytes, s.ftl.nand.page_bytes)) return "";
                 return unit + " = " + std::to_string(s.fw.read_unit_bytes) +
                        " is not a multiple of 512 that divides " + page + " = " +
                        std::to_string(s.ftl.nand.page_bytes);
               }});
  r.push_back({{kind}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.workload.kind != "nand_ops" || !s.ftl.nand.fault.on()) return "";
                 return kind + " = nand_ops drives the NAND without a controller: it takes no nand.fault.* keys "
                               "(they need the firmware's recovery)";
               }});
  // Suspend and resume: the block's HOS form decides them (hos, and pass under SOS), without
  // rescheduling.
  const auto suspending = [](const Settings& s) { return s.sched.suspend != 0; };
  const auto suspend_name = [](const Settings& s) {
    const std::uint8_t m = s.sched.suspend;
    return std::string(m == 1 ? "erase" : m == 2 ? "program" : "both");
  };
  r.push_back({{suspend, sched}, [=](const Settings& s, const Given&) -> std::string {
                 if (!suspending(s) || s.policy.scheduler != "ios") return "";
                 return suspend + " = " + suspend_name(s) + " needs " + sched +
                        " = hos or pass (it is ios: one FIFO, no chip queue to take a read from)";
               }});
  r.push_back({{suspend, reschedule}, [=](const Settings& s, const Given&) -> std::string {
                 if (!suspending(s) || !s.sched.reschedule.on()) return "";
                 return suspend + " = " + suspend_name(s) + " does not combine with " + reschedule + " = " +
                        s.sched.reschedule.name() + " (set one of them off)";
               }});
  r.push_back({{suspend, kind}, [=](const Settings& s, const Given&) -> std::string {
                 if (!suspending(s) || controller(s)) return "";
                 return suspend + " is the scheduler block's: a nand_ops script drives the NAND without it (" + kind +
                        ")";
               }});
  // A cache held up by capacitors that cannot program one page is no protection.
  const std::string cache = key(&FirmwareConfig::write_cache), holdup = key(&FirmwareConfig::holdup_us),
                    t_prog = key(&nand::NandConfig::t_prog_us);
  r.push_back({{cache, holdup, t_prog}, [=](const Settings& s, const Given&) -> std::string {
                 if (s.fw.write_cache != ctrl::CacheMode::Plp || ctrl::plp_pages(s.ftl.nand, s.fw.holdup_us) > 0)
                   return "";
                 return cache + " = plp with " + holdup + " = " + num(s.fw.holdup_us) +
                        " programs no page once the power fails (it must cover the programs under way, " + t_prog +
                        " = " + num(s.ftl.nand.t_prog_us) + ", then at least one more tPROG and its data-in)";
               }});
  // Power cuts: times that parse.
  const std::string cut_at = key(&PowerConfig::cut_at_us);
  r.push_back({{cut_at}, [=](const Settings& s, const Given&) -> std::string {
                 try {
                   cut_times(s.power.cut_at_us);
                 } catch (const std::invalid_argument& e) {
                   return cut_at + ": " + e.what();
                 }
                 return "";
               }});
  // Mapping units smaller than a page: a read's codewords lie within its unit; recovery
  // after a power cut and the map log read the NAND in pages, not units.
  const std::string map_unit = key(&ctrl::FtlConfig::mapping_unit_bytes), persist = key(&ctrl::FtlConfig::map_journal),
                    cuts = key(&PowerConfig::cuts);
  r.push_back({{map_unit, unit}, [=](const Settings& s, const Given&) -> std::string {
                 if (!controller(s) || s.ftl.units_per_page() == 1 || s.fw.read_unit_bytes == 0 ||
                     s.ftl.mapping_unit_bytes % s.fw.read_unit_bytes == 0)
                   return "";
                 return unit + " = " + std::to_string(s.fw.read_unit_bytes) + " does not divide " + map_unit + " = " +
                        std::to_string(s.ftl.mapping_unit_bytes) + ": a unit's read moves out its own codewords";
               }});
  r.push_back({{map_unit, persist, cut_at, cuts}, [=](const Settings& s, const Given&) -> std::string {
                 if (!controller(s) || s.ftl.units_per_page() == 1) return "";
                 if (s.ftl.map_journal)
                   return map_unit + " = " + std::to_string(s.ftl.mapping_unit_bytes) + " with " + persist +
                          " = journal: the map log's recovery reads pages, not mapping units; set " + persist +
                          " = instant or " + map_unit + " = 0";
                 if (!s.power.cut_at_us.empty() || s.power.cuts)
                   return map_unit + " = " + std::to_string(s.ftl.mapping_unit_bytes) +
                          " with power cuts: recovery's scan reads pages, not mapping units; set " + map_unit + " = 0";
                 return "";
               }});
  // The NVMe interface's keys hold only with it, and SATA's only without it.
  {
    const std::string iface = key(&host::HostConfig::interface);
    const std::string ncq = key(&ctrl::HostIfaceConfig::ncq_depth), link = key(&ctrl::HostIfaceConfig::link_mb_s);
    // By value, not by whether a key was given: a config.json of a SATA run holds every key.
    const auto differs = [](const auto& table, const auto& now, const std::string& name) {
      for (const auto& f : table.fields())
        if (f.key.name == name) return param::value_text(f.key, f.get(now)) != param::value_text(f.key, f.def);
      return false;
    };
    const auto nvme_only = [&](const auto& table, auto part) {
      for (const auto& f : table.fields()) {
        const std::string k = f.key.name;
        r.push_back({{iface, k}, [=, &table](const Settings& s, const Given&) -> std::string {
                       if (s.host.interface == "nvme" || !differs(table, s.*part, k)) return "";
                       return k + " is a key of the NVMe interface: set " + iface + " = nvme, or leave it at its default";
                     }});
      }
    };
    nvme_only(ctrl::NvmeConfig::keys(), &Settings::nvme);
    nvme_only(PcieConfig::keys(), &Settings::pcie);
    const std::string slots = key(&ctrl::NvmeConfig::command_slots);
    r.push_back({{iface, ncq, link}, [=](const Settings& s, const Given&) -> std::string {
                   if (s.host.interface != "nvme") return "";
                   if (s.hif.ncq_depth != ctrl::HostIfaceConfig{}.ncq_depth)
                     return ncq + " is SATA's: with " + iface + " = nvme the controller holds " + slots + " commands";
                   if (s.hif.link_mb_s != 0) return link + " is SATA's link: with " + iface + " = nvme the link is pcie.*";
                   return "";
                 }});
    const std::string burst = key(&ctrl::NvmeConfig::burst), lanes = key(&PcieConfig::lanes),
                      payload = key(&PcieConfig::max_payload), mrrs = key(&PcieConfig::max_read_request);
    const auto pow2 = [](std::uint64_t v) { return v && (v & (v - 1)) == 0; };
    r.push_back({{burst}, [=](const Settings& s, const Given&) -> std::string {
                   if (s.nvme.burst == 0 || pow2(s.nvme.burst)) return "";
                   return burst + " = " + std::to_string(s.nvme.burst) + ": 1, 2, 4, 8, 16, 32 or 64, or 0 (no limit)";
                 }});
    r.push_back({{lanes}, [=](const Settings& s, const Given&) -> std::string {
                   if (pow2(s.pcie.lanes)) return "";
                   return lanes + " = " + std::to_string(s.pcie.lanes) + ": 1, 2, 4, 8 or 16";
                 }});
    for (const auto& [k, field] : {std::pair{payload, &PcieConfig::max_payload}, std::pair{mrrs, &PcieConfig::max_read_request}})
      r.push_back({{k}, [=, f = field](const Settings& s, const Given&) -> std::string {
                     if (pow2(s.pcie.*f)) return "";
                     return k + " = " + std::to_string(s.pcie.*f) + ": a power of 2, 128 .. 4096";
                   }});
    const std::string queues = key(&ctrl::NvmeConfig::queues), urgent = key(&ctrl::NvmeConfig::urgent_queues),
                      high = key(&ctrl::NvmeConfig::high_queues), low = key(&ctrl::NvmeConfig::low_queues);
    r.push_back({{queues, urgent, high, low}, [=](const Settings& s, const Given&) -> std::string {
                   const std::uint64_t sum = std::uint64_t{s.nvme.urgent_queues} + s.nvme.high_queues + s.nvme.low_queues;
                   if (sum <= s.nvme.queues) return "";
                   return urgent + " + " + high + " + " + low + " = " + std::to_string(sum) + " is more than " + queues +
                          " = " + std::to_string(s.nvme.queues);
                 }});
    const std::string count = key(&ctrl::NvmeConfig::irq_coalesce_count), time = key(&ctrl::NvmeConfig::irq_coalesce_us);
    r.push_back({{count, time}, [=](const Settings& s, const Given&) -> std::string {
                   // At least 1 ps: the front end counts in picoseconds (a smaller time would be 0).
                   if (s.nvme.irq_coalesce_count <= 1 || s.nvme.irq_coalesce_us >= 1e-6) return "";
                   return count + " = " + std::to_string(s.nvme.irq_coalesce_count) + " needs " + time +
                          " of 1 ps (1e-6 us) or more: a queue with fewer completions outstanding would never be "
                          "interrupted";
                 }});
    const std::string depth = key(&ctrl::NvmeConfig::queue_depth);
    r.push_back({{queues, depth}, [=](const Settings& s, const Given&) -> std::string {
                   // The host's rings hold a pointer an entry: at most 2^24 entries (128 MiB).
                   const std::uint64_t entries = std::uint64_t{s.nvme.queues} * s.nvme.queue_depth;
                   if (s.host.interface != "nvme" || entries <= (std::uint64_t{1} << 24)) return "";
                   return queues + " x " + depth + " = " + std::to_string(entries) +
                          " entries: the model holds at most 16,777,216 (2^24) submission queue entries";
                 }});
    r.push_back({{iface, key(&PowerConfig::cuts), key(&PowerConfig::cut_at_us)},
                 [=](const Settings& s, const Given&) -> std::string {
                   if (s.host.interface != "nvme" || !s.power.on()) return "";
                   return iface + " = nvme does not take power cuts yet (power.*): use " + iface + " = sata";
                 }});
  }
  return r;
}

}  // namespace

const std::vector<Rule>& rules() {
  static const std::vector<Rule> all = make_rules();
  return all;
}

std::string key_at(const Config& cfg, const std::string& k) {
  for (const Config::Key& c : cfg.keys())
    if (c.name == k) {
      const std::string v = param::value_text(c, c);
      return k + " = " + (c.type == param::Type::String ? json::quote(v) : v) + " (" + c.origin + ")";
    }
  return k;
}

void check_rules(const Config& cfg, const Settings& s, const std::vector<std::string>& involving) {
  const auto given = [&cfg](const std::string& k) { return !cfg.is_default(k); };
  const auto involved = [&](const Rule& rule) {
    for (const std::string& k : rule.keys)
      if (std::find(involving.begin(), involving.end(), k) != involving.end()) return true;
    return involving.empty();
  };
  for (const Rule& rule : rules()) {
    if (!involved(rule)) continue;
    const std::string broken = rule.broken(s, given);
    if (broken.empty()) continue;
    std::string keys;
    for (const std::string& k : rule.keys) keys += (keys.empty() ? "" : "; ") + key_at(cfg, k);
    throw ConfigError(cfg.locate(broken) + " [" + keys + "]");
  }
}

void check_streams(const Config& cfg, const Settings& s) {
  const std::string prefix = host::kStreamsPrefix;
  const std::string iface = key(&host::HostConfig::interface), queues = key(&ctrl::NvmeConfig::queues);
  const std::string only = key(&ReportConfig::stream_only), alone = key(&ReportConfig::stream_alone);
  if (s.streams.empty()) {
    if (s.report.stream_only >= 0) throw ConfigError(cfg.locate(only + " needs " + prefix));
    if (s.report.stream_alone) throw ConfigError(cfg.locate(alone + " needs " + prefix));
    return;
  }
  if (s.workload.kind == "nand_ops")
    throw ConfigError(cfg.locate(key(&host::WorkloadConfig::kind) + " = nand_ops runs no host: no " + prefix));
  if (s.report.stream_only >= static_cast<int>(s.streams.size()))
    throw ConfigError(cfg.locate(only + " = " + std::to_string(s.report.stream_only) + ": " + prefix + " has " +
                                 std::to_string(s.streams.size()) + " streams"));
  if (s.power.on()) throw ConfigError(cfg.locate(prefix + " with power cuts (power.*) is not modelled yet"));
  std::uint64_t total = 0;
  std::uint32_t weight[4] = {};
  for (std::size_t i = 0; i < s.streams.size(); ++i) {
    const host::StreamConfig& st = s.streams[i].stream;
    const std::string item = prefix + "." + std::to_string(i) + ".";
    total += st.queues;
    if (s.host.interface != "nvme" && (st.queues != 1 || st.priority != "medium" || st.weight != 0)) {
      std::string set;
      for (const char* k : {"queues", "priority", "weight"})
        if (cfg.has(item + k) && !cfg.is_default(item + k)) set += (set.empty() ? "" : ", ") + item + k;
      throw ConfigError(cfg.locate(set + ": a stream's queues, priority and weight are the NVMe interface's: set " +
                                   iface + " = nvme"));
    }
    const int c = st.priority == "urgent" ? 0 : st.priority == "high" ? 1 : st.priority == "medium" ? 2 : 3;
    if (st.weight && c == 0)
      throw ConfigError(cfg.locate(item + "weight: the urgent class has no weight (it goes first)"));
    if (st.weight && weight[c] && weight[c] != st.weight)
      throw ConfigError(cfg.locate(item + "weight = " + std::to_string(st.weight) + ": another stream of class " +
                                   st.priority + " gives " + std::to_string(weight[c]) +
                                   " (the arbitration weighs classes, not streams)"));
    if (st.weight) weight[c] = st.weight;
  }
  if (s.host.interface == "nvme") {
    if (total > s.nvme.queues)
      throw ConfigError(cfg.locate(queues + " = " + std::to_string(s.nvme.queues) + " is fewer than the " +
                                   std::to_string(total) + " queues of " + prefix));
    if (s.nvme.urgent_queues || s.nvme.high_queues || s.nvme.low_queues)
      throw ConfigError(cfg.locate(key(&ctrl::NvmeConfig::urgent_queues) + ", " + key(&ctrl::NvmeConfig::high_queues) +
                                   " and " + key(&ctrl::NvmeConfig::low_queues) + " with " + prefix +
                                   ": each stream's priority gives its queues' class"));
  }
}

std::vector<StreamSettings> load_streams(const Config& cfg, const Settings& s) {
  std::vector<StreamSettings> out;
  const unsigned n = cfg.family_items(host::kStreamsPrefix);
  const std::string wprefix = "workload.";
  for (unsigned i = 0; i < n; ++i) {
    const std::string item = std::string(host::kStreamsPrefix) + "." + std::to_string(i) + ".";
    StreamSettings st;
    st.workload = s.workload;
    st.workload.seed = s.workload.seed + i;
    for (const auto& f : host::WorkloadConfig::keys().fields()) {
      const std::string k = item + f.key.name.substr(wprefix.size());
      if (cfg.has(k) && !cfg.is_default(k)) f.set(st.workload, cfg.value(k));
    }
    for (const auto& f : host::StreamConfig::keys().fields()) {
      const std::string k = item + f.key.name;
      if (cfg.has(k) && !cfg.is_default(k)) f.set(st.stream, cfg.value(k));
    }
    const host::WorkloadConfig& w = st.workload;
    if (w.kind == "nand_ops")
      throw ConfigError(cfg.locate(item + "kind = nand_ops: a stream is a host workload (synthetic or trace)"));
    // The workload's rules hold for each stream, with its keys named as the item's.
    Settings t = s;
    t.workload = w;
    std::vector<std::pair<std::string, std::string>> names;  // workload.X -> item.X, longest first
    for (const auto& f : host::WorkloadConfig::keys().fields())
      names.emplace_back(f.key.name, item + f.key.name.substr(wprefix.size()));
    std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    const auto rename = [&names](std::string m) {
      for (const auto& [from, to] : names)
        for (std::size_t at = m.find(from); at != std::string::npos; at = m.find(from, at + to.size()))
          if (at + from.size() == m.size() || (std::isalnum(static_cast<unsigned char>(m[at + from.size()])) == 0 &&
                                                m[at + from.size()] != '_'))
            m.replace(at, from.size(), to);
      return m;
    };
    const auto given = [&](const std::string& k) {
      const std::string own = k.compare(0, wprefix.size(), wprefix) == 0 ? item + k.substr(wprefix.size()) : k;
      return (cfg.has(own) && !cfg.is_default(own)) || !cfg.is_default(k);
    };
    for (const Rule& rule : rules()) {
      const bool of_workload = std::any_of(rule.keys.begin(), rule.keys.end(),
                                           [&](const std::string& k) { return k.compare(0, wprefix.size(), wprefix) == 0; });
      if (!of_workload) continue;
      const std::string broken = rule.broken(t, given);
      if (!broken.empty()) throw ConfigError(cfg.locate(rename(broken)));
    }
    // A closed loop ends at the run's time limit (workload.duration_us): a stream's own
    // duration holds only for its open-loop arrivals.
    const std::string dur = item + "duration_us";
    if (w.kind == "synthetic" && w.rate_iops <= 0 && cfg.has(dur) && !cfg.is_default(dur) &&
        w.duration_us != s.workload.duration_us)
      throw ConfigError(cfg.locate(dur + " = " + param::number_text(w.duration_us) + ": a closed-loop stream runs "
                                   "until the run's " + key(&host::WorkloadConfig::duration_us) +
                                   " (a stream's own ends only its open-loop arrivals, rate_iops > 0)"));
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace ssd
