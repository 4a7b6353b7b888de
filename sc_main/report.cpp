#include "sc_main/report.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>

#include "sc_main/settings.h"

namespace ssd {

namespace {

json::Value obj() {
  json::Value v;
  v.kind = json::Value::Kind::Object;
  return v;
}
json::Value num(double d) {
  json::Value v;
  if (!std::isfinite(d)) return v;  // JSON has no infinity or NaN: null (e.g. an infinite balance WA)
  v.kind = json::Value::Kind::Number;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", d);
  v.str = buf;
  return v;
}
json::Value integer(std::uint64_t n) {
  json::Value v;
  v.kind = json::Value::Kind::Number;
  v.str = std::to_string(n);
  return v;
}
json::Value text(const std::string& s) {
  json::Value v;
  v.kind = json::Value::Kind::String;
  v.str = s;
  return v;
}
json::Value array(const std::vector<double>& xs) {
  json::Value v;
  v.kind = json::Value::Kind::Array;
  for (double x : xs) v.items.push_back(num(x));
  return v;
}
json::Value boolean(bool b) {
  json::Value v;
  v.kind = json::Value::Kind::Bool;
  v.b = b;
  return v;
}
void put(json::Value& o, const std::string& k, json::Value v) { o.members.emplace_back(k, std::move(v)); }

// Per operation (FlashOp's order), the share of the pages the NAND moved in commands of
// two planes or more: all of them, the host's and GC's (0 where there were none).
const char* const kOpNames[3] = {"read", "program", "erase"};
struct PlaneShares {
  double all[3], host[3], gc[3];
};
PlaneShares plane_shares(const nand::ChannelCounters& t) {
  const auto ratio = [](std::uint64_t a, std::uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; };
  PlaneShares s{};
  for (unsigned op = 0; op < 3; ++op) {
    const std::uint64_t all = t.pages(static_cast<FlashOp>(op)), multi = all - t.pages_by_planes[op][0];
    const std::uint64_t g = t.gc_pages[op], gm = t.gc_multiplane_pages[op];
    s.all[op] = ratio(multi, all);
    s.host[op] = ratio(multi - gm, all - g);
    s.gc[op] = ratio(gm, g);
  }
  return s;
}

// Chen's write groups as stats.json and the summary give them: groups, mean pages formed
// and predicted, and the mean forecast, actual and |error| of the delay from a group's
// opening to its first page's start.
struct GroupFigures {
  std::uint64_t groups = 0;
  double mean_size = 0, mean_predicted_size = 0, predicted_delay_us = 0, actual_delay_us = 0, delay_error_us = 0;
};
GroupFigures group_figures(const ctrl::WriteGroupCounters& g, const ctrl::PlacementCounters& pc) {
  GroupFigures r;
  std::uint64_t pages = 0, predicted_pages = 0;
  for (std::size_t n = 1; n < g.formed.size(); ++n) {
    r.groups += g.formed[n];
    pages += n * g.formed[n];
    predicted_pages += n * g.predicted[n];
  }
  const double ng = static_cast<double>(r.groups), nt = static_cast<double>(pc.groups_timed);
  if (r.groups) {
    r.mean_size = static_cast<double>(pages) / ng;
    r.mean_predicted_size = static_cast<double>(predicted_pages) / ng;
  }
  if (pc.groups_timed) {
    r.predicted_delay_us = static_cast<double>(pc.group_predicted_ps) / nt / 1e6;
    r.actual_delay_us = static_cast<double>(pc.group_actual_ps) / nt / 1e6;
    r.delay_error_us = static_cast<double>(pc.group_abs_error_ps) / nt / 1e6;
  }
  return r;
}

json::Value op_stats(const LatencyHistogram& h, std::uint64_t bytes, double sim_s) {
  json::Value o = obj();
  put(o, "count", integer(h.count()));
  put(o, "iops", num(sim_s > 0 ? static_cast<double>(h.count()) / sim_s : 0));
  put(o, "bandwidth_mb_s", num(sim_s > 0 ? static_cast<double>(bytes) / 1e6 / sim_s : 0));
  json::Value l = obj();
  put(l, "mean", num(h.mean() / 1e6));
  put(l, "p50", num(static_cast<double>(h.quantile(0.50)) / 1e6));
  put(l, "p99", num(static_cast<double>(h.quantile(0.99)) / 1e6));
  put(l, "p999", num(static_cast<double>(h.quantile(0.999)) / 1e6));
  put(l, "max", num(static_cast<double>(h.max()) / 1e6));
  put(o, "latency_us", l);
  return o;
}

// `<op>.latency_parts.<part>`: mean_us, p99_us, share (of the mean latency), tail_us (its
// mean over the slowest requests: the p99's histogram bucket and above).
json::Value parts_json(const host::LatencyAttribution& a, int op) {
  json::Value o = obj();
  const host::LatencyAttribution::Summary s = a.figures(op);
  for (unsigned k = 0; k < kParts; ++k) {
    if (!part_shown(k)) continue;
    const host::LatencyAttribution::Figures& f = s.parts[k];
    json::Value p = obj();
    put(p, "mean_us", num(f.mean_us));
    put(p, "p99_us", num(f.p99_us));
    put(p, "share", num(f.share));
    put(p, "tail_us", num(f.tail_us));
    put(o, part_name(k), p);
  }
  return o;
}

// One summary line: the largest parts of the mean, and of the tail's mean.
void parts_line(std::ostream& os, const char* name, const host::LatencyAttribution& a, int op) {
  if (!a.count(op)) return;
  std::vector<std::pair<double, unsigned>> mean, tail;
  const host::LatencyAttribution::Summary s = a.figures(op);
  for (unsigned k = 0; k < kParts; ++k) {
    const host::LatencyAttribution::Figures& f = s.parts[k];
    mean.emplace_back(f.mean_us, k);
    tail.emplace_back(f.tail_us, k);
  }
  const auto top = [&os](std::vector<std::pair<double, unsigned>>& v, double total) {
    std::stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (std::size_t i = 0; i < 4 && i < v.size() && v[i].first > 0; ++i)
      os << (i ? ", " : " ") << part_name(v[i].second) << ' ' << std::setprecision(0)
         << (total > 0 ? 100.0 * v[i].first / total : 0.0) << " %";
  };
  double mean_total = 0;
  for (const auto& m : mean) mean_total += m.first;
  os << "  " << std::left << std::setw(6) << name << std::right << " parts of the mean (" << std::setprecision(1)
     << mean_total << " us):";
  top(mean, mean_total);
  os << "; of the slowest " << s.tail_count << " (" << std::setprecision(1) << s.tail_mean_us << " us):";
  top(tail, s.tail_mean_us);
  os << '\n';
}

// The latency table of both summaries: a header, then one row per operation.
void latency_header(std::ostream& os) {
  os << "  op          count       IOPS      MB/s      mean us       p50 us       p99 us     p99.9 us       max us\n";
}
void latency_row(std::ostream& os, const char* name, const LatencyHistogram& h, std::uint64_t bytes, double sim_s) {
  os << "  " << std::left << std::setw(8) << name << std::right << std::setw(9) << h.count() << std::setprecision(0)
     << std::setw(11) << (sim_s > 0 ? static_cast<double>(h.count()) / sim_s : 0.0) << std::setprecision(2)
     << std::setw(10) << (sim_s > 0 ? static_cast<double>(bytes) / 1e6 / sim_s : 0.0) << std::setprecision(3);
  for (double v : {h.mean() / 1e6, static_cast<double>(h.quantile(0.5)) / 1e6,
                   static_cast<double>(h.quantile(0.99)) / 1e6, static_cast<double>(h.quantile(0.999)) / 1e6,
                   static_cast<double>(h.max()) / 1e6})
    os << ' ' << std::setw(12) << v;
  os << '\n';
}

}  // namespace

json::Value nand_section(const nand::NandDevice& nand, const WindowFigures& w);

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

json::Value nand_ops_stats(const NandScriptDriver& drv, const nand::NandDevice& nand, const WindowFigures& win,
                           const RunFigures& run) {
  const Tick end = win.end;
  const double sim_s = static_cast<double>(end) / 1e12;
  const std::uint64_t pb = nand.config().page_bytes;
  const LatencyHistogram& r = drv.latency(FlashOp::Read);
  const LatencyHistogram& w = drv.latency(FlashOp::Program);
  json::Value root = obj();
  put(root, "read", op_stats(r, drv.pages(FlashOp::Read) * pb, sim_s));
  put(root, "write", op_stats(w, drv.pages(FlashOp::Program) * pb, sim_s));
  put(root, "all", op_stats(drv.latency_all(), (drv.pages(FlashOp::Read) + drv.pages(FlashOp::Program)) * pb, sim_s));
  put(root, "erase", op_stats(drv.latency(FlashOp::Erase), 0, sim_s));
  put(root, "sim_time_us", num(ticks_to_us(end)));
  put(root, "nand", nand_section(nand, win));

  json::Value integ = obj();
  put(integ, "reads_checked", integer(drv.reads_checked()));
  put(integ, "mismatches", integer(drv.mismatches()));
  put(root, "integrity", integ);
  if (drv.power_cuts()) {  // a script with power_cut lines (docs/nand-timing.md, "Power loss")
    json::Value pw = obj();
    put(pw, "cuts", integer(drv.power_cuts()));
    put(pw, "lost_commands", integer(drv.lost()));
    put(pw, "torn_pages", integer(nand.torn_pages()));
    put(root, "power", pw);
  }

  json::Value rn = obj();
  put(rn, "wall_seconds", num(run.wall_seconds));
  put(rn, "nand_commands_per_wall_second",
      num(run.wall_seconds > 0 ? static_cast<double>(drv.completed()) / run.wall_seconds : 0));
  put(rn, "peak_rss_mb", num(run.peak_rss_mb));
  put(root, "run", rn);
  return root;
}

json::Value nand_section(const nand::NandDevice& nand, const WindowFigures& w) {
  json::Value n = obj();
  put(n, "chip_utilization", num(w.chip_utilization));
  put(n, "chip_utilization_while_busy", num(w.chip_utilization_while_busy));
  put(n, "chip_busy_ratio", array(w.chip_busy));
  put(n, "chip_idle_while_others_busy_ratio", array(w.chip_idle_while_others_busy));
  put(n, "bus_utilization", array(w.bus_utilization));
  const nand::ChannelCounters t = nand.totals();
  put(n, "reads", integer(t.reads));
  put(n, "programs", integer(t.programs));
  put(n, "erases", integer(t.erases));
  put(n, "read_pages", integer(t.pages(FlashOp::Read)));
  put(n, "programmed_pages", integer(t.pages(FlashOp::Program)));
  put(n, "protocol_errors", integer(t.protocol_errors));
  // The n-plane commands as the NAND ran them, over the whole run (warm-up included):
  // per operation, the share of its pages (erase: blocks) moved in commands of two planes
  // or more, all, the host's and GC's, and the pages by the command's plane count.
  const PlaneShares ps = plane_shares(t);
  const unsigned ppd = nand.config().planes_per_die;
  json::Value share = obj(), host = obj(), gc = obj(), by_n = obj();
  for (unsigned op = 0; op < 3; ++op) {
    json::Value counts;
    counts.kind = json::Value::Kind::Array;
    for (unsigned k = 0; k < ppd && k < kMaxPlanes; ++k) counts.items.push_back(integer(t.pages_by_planes[op][k]));
    put(share, kOpNames[op], num(ps.all[op]));
    put(host, kOpNames[op], num(ps.host[op]));
    put(gc, kOpNames[op], num(ps.gc[op]));
    put(by_n, kOpNames[op], std::move(counts));
  }
  put(n, "multiplane_page_share", std::move(share));
  put(n, "multiplane_page_share_host", std::move(host));
  put(n, "multiplane_page_share_gc", std::move(gc));
  put(n, "pages_by_planes", std::move(by_n));
  return n;
}

namespace {

// stats.json's steady_state (report.warmup): the rule, whether it held, where the window
// starts, and each round's values up to the steady window's end (null: missing).
json::Value steady_json(const FullRun& f) {
  json::Value st = obj();
  put(st, "warmup", text(f.warmup));
  const SteadyStateRule* r = f.steady;
  put(st, "reached", boolean(r && r->reached()));
  put(st, "window_start_request", integer(f.steady_window_start_request));
  if (!r) return st;
  put(st, "window_rounds", integer(r->window()));
  put(st, "round_requests", integer(f.steady_round_requests));
  put(st, "data_excursion", num(r->data_excursion()));
  put(st, "slope_excursion", num(r->slope_excursion()));
  if (r->reached()) put(st, "window_first_round", integer(r->window_first()));
  else put(st, "not_steady_because", text(r->why_not()));
  json::Value rounds;
  rounds.kind = json::Value::Kind::Array;
  for (const SteadyStateRule::Round& x : r->rounds()) {
    json::Value o = obj();
    put(o, "first_completion", integer(x.first_completion));
    put(o, "last_completion", integer(x.last_completion));
    put(o, "start_us", num(x.start_us));
    put(o, "end_us", num(x.end_us));
    for (std::size_t k = 0; k < r->names().size(); ++k)
      put(o, r->names()[k], std::isnan(x.values[k]) ? json::Value{} : num(x.values[k]));
    rounds.items.push_back(std::move(o));
  }
  put(st, "rounds", std::move(rounds));
  return st;
}

// workload.streams: each stream's slowdown (its mean shared / alone; negative without its
// run alone), and the fairness (the lowest slowdown / the highest; negative unless every
// stream has its slowdown).
struct Slowdowns {
  std::vector<double> of;
  double fairness = -1;
};
Slowdowns slowdowns(const FullRun& f) {
  Slowdowns s;
  double lo = 0, hi = 0;
  bool all = !f.streams.empty();
  for (std::size_t k = 0; k < f.streams.size(); ++k) {
    const double alone = f.streams[k].alone_mean_us;
    const double x = alone > 0 ? f.host.stream_figures(k).all.mean() / 1e6 / alone : -1.0;
    s.of.push_back(x);
    if (x < 0) all = false;
    lo = k == 0 ? x : std::min(lo, x);
    hi = k == 0 ? x : std::max(hi, x);
  }
  if (all && hi > 0) s.fairness = lo / hi;
  return s;
}

}  // namespace

json::Value full_stats(const FullRun& f, const RunFigures& run) {
  const Tick end = f.window.end;
  const double sim_s = static_cast<double>(end - f.window.start) / 1e12;
  const FtlCounters gc = f.ftl_end - f.ftl_start;  // the GC figures over the window
  json::Value root = obj();
  // Each op's figures, with its latency parts (op 0 reads, 1 writes, 2 all).
  const auto op_section = [&](int op, const LatencyHistogram& h, std::uint64_t bytes) {
    json::Value o = op_stats(h, bytes, sim_s);
    put(o, "latency_parts", parts_json(f.host.attribution(), op));
    if (op < 2) put(o, "conflict_wait_us", num(f.host.mean_conflict_wait_us(op == 0 ? HostOp::Read : HostOp::Write)));
    return o;
  };
  put(root, "read", op_section(0, f.host.latency(HostOp::Read), f.host.bytes(HostOp::Read)));
  put(root, "write", op_section(1, f.host.latency(HostOp::Write), f.host.bytes(HostOp::Write)));
  put(root, "all", op_section(2, f.host.latency_all(), f.host.bytes(HostOp::Read) + f.host.bytes(HostOp::Write)));
  // Trims and flushes, apart from the data's figures (bandwidth: the bytes trimmed).
  put(root, "trim", op_stats(f.host.trim_latency(), f.host.trimmed_bytes(), sim_s));
  put(root, "flush", op_stats(f.host.flush_latency(), 0, sim_s));
  put(root, "sim_time_us", num(ticks_to_us(end - f.window.start)));
  put(root, "window_start_us", num(ticks_to_us(f.window.start)));
  if (f.streams.size() > 1) {  // workload.streams: each stream's figures, and fairness
    json::Value sj = obj();
    const Slowdowns sd = slowdowns(f);
    for (std::size_t k = 0; k < f.streams.size(); ++k) {
      const FullRun::Stream& st = f.streams[k];
      const host::HostDriver::StreamFigures& g = f.host.stream_figures(k);
      json::Value o = obj();
      put(o, "priority", text(st.priority));
      put(o, "queues", integer(st.queues));
      put(o, "read", op_stats(g.latency[0], g.bytes[0], sim_s));
      put(o, "write", op_stats(g.latency[1], g.bytes[1], sim_s));
      put(o, "all", op_stats(g.all, g.bytes[0] + g.bytes[1], sim_s));
      put(o, "trim", op_stats(g.other[0], 0, sim_s));
      put(o, "flush", op_stats(g.other[1], 0, sim_s));
      if (sd.of[k] >= 0) {
        put(o, "alone_mean_us", num(st.alone_mean_us));
        put(o, "slowdown", num(sd.of[k]));
      }
      put(sj, std::to_string(st.index), o);
    }
    put(root, "streams", sj);
    if (sd.fairness >= 0) put(root, "fairness", num(sd.fairness));
  }
  {
    json::Value n = nand_section(f.nand, f.window);
    if (f.sched.config().suspend) {  // controller.suspend: what the NAND did of it, over the whole run
      const nand::ChannelCounters t = f.nand.totals();
      json::Value su = obj();
      put(su, "program_suspends", integer(t.suspends[0]));
      put(su, "erase_suspends", integer(t.suspends[1]));
      put(su, "void_suspends", integer(t.suspends_void));
      put(su, "ignored", integer(t.suspend_ignored));
      put(su, "resumes", integer(t.resumes));
      put(su, "suspended_us", num(ticks_to_us(t.suspended_ticks)));
      put(su, "max_suspended_us", num(ticks_to_us(t.max_suspended_ticks)));
      put(su, "reads_granted_to_suspend", integer(f.sched.suspend_grants()));
      put(n, "suspend", std::move(su));
    }
    put(root, "nand", std::move(n));
  }

  const ctrl::Ftl& ftl = f.firmware.ftl();
  const ctrl::FirmwareCounters& fc = f.firmware.counters();
  json::Value ft = obj();
  put(ft, "gc_erases", integer(gc.gc_erases));
  put(ft, "write_amplification", num(gc.write_amplification()));
  put(ft, "host_pages_programmed", integer(gc.host_pages));
  put(ft, "gc_pages_copied", integer(gc.gc_pages));
  put(ft, "blocks_opened", integer(gc.blocks_opened));
  put(ft, "gc_runs", integer(fc.gc_runs));
  put(ft, "gc_foreground", integer(fc.gc_foreground));
  put(ft, "stalled_writes", integer(fc.stalled_writes));
  put(ft, "gc_skipped_copies", integer(fc.gc_skipped_copies));
  put(ft, "gc_urgent_commands", integer(fc.gc_urgent_commands));
  std::uint32_t emin, emax;
  double emean;
  ftl.erase_stats(emin, emax, emean);
  put(ft, "erase_count_min", integer(emin));
  put(ft, "erase_count_max", integer(emax));
  put(ft, "erase_count_mean", num(emean));
  put(ft, "logical_pages", integer(ftl.logical_pages()));
  put(ft, "precondition_state", text(f.precondition_state));
  // Where the planes started in their GC cycle and where the window left them.
  auto spread = [](const std::vector<std::uint32_t>& v) {
    json::Value o = obj();
    std::uint32_t lo = ~0u, hi = 0;
    double sum = 0;
    for (std::uint32_t x : v) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
    }
    std::vector<double> planes(v.empty() ? 0 : hi + 1, 0.0);
    for (std::uint32_t x : v) planes[x] += 1;
    put(o, "min", integer(v.empty() ? 0 : lo));
    put(o, "mean", num(v.empty() ? 0 : sum / static_cast<double>(v.size())));
    put(o, "max", integer(hi));
    put(o, "planes_by_free_blocks", array(planes));
    return o;
  };
  if (!ftl.start_free_blocks().empty()) {
    put(ft, "free_blocks_start", spread(ftl.start_free_blocks()));
    put(ft, "gc_copies_pending_at_start", integer(f.gc_copies_pending_at_start));
  }
  if (f.free_at_end) put(ft, "free_blocks_end", spread(*f.free_at_end));
  if (const ctrl::MapLog* log = f.firmware.firmware().map_log()) {
    // The map log: its pages and erases over the window, the rest over the whole run.
    const ctrl::MapLog::Counters& mc = log->counters();
    json::Value ml = obj();
    put(ml, "pages_programmed", integer(gc.map_pages));
    put(ml, "erases", integer(gc.map_erases));
    put(ml, "write_amplification", num(gc.write_amplification_with_map()));
    put(ml, "entries", integer(mc.entries));
    put(ml, "journal_pages", integer(mc.journal_pages));
    put(ml, "checkpoint_pages", integer(mc.checkpoint_pages));
    put(ml, "checkpoints", integer(mc.checkpoints));
    put(ml, "checkpoints_forced", integer(mc.checkpoints_forced));
    put(ml, "journal_waits", integer(mc.journal_waits));
    put(ml, "peak_ram_pages", integer(mc.peak_ram_pages));
    put(ml, "program_failures", integer(mc.program_failures));
    put(ml, "erase_failures", integer(mc.erase_failures));
    put(ml, "checkpoint_size_pages", integer(log->checkpoint_size()));
    put(ml, "blocks_per_plane", integer(log->stripes()));
    put(ft, "map_log", std::move(ml));
  }
  // Every page programmed per host page, by cause (with filler pages or a map log): what
  // ftl.write_amplification (host + GC) leaves out.
  if (f.nand.config().bits_per_cell > 1 || f.firmware.firmware().map_log()) {
    put(ft, "write_amplification_all", num(gc.write_amplification_all()));
    json::Value by = obj();
    put(by, "host", num(gc.per_host_page(gc.host_pages)));
    put(by, "gc", num(gc.per_host_page(gc.gc_pages)));
    put(by, "filler", num(gc.per_host_page(gc.filler_pages)));
    put(by, "map_log", num(gc.per_host_page(gc.map_pages)));
    if (ftl.slc_blocks()) put(by, "fold", num(gc.per_host_page(gc.fold_pages)));
    put(ft, "write_amplification_by_cause", std::move(by));
    put(ft, "filler_pages", integer(gc.filler_pages));
  }
  if (const std::uint32_t S = ftl.slc_blocks()) {
    // The SLC cache (docs/controller.md, "The SLC cache"): over the window, but the folds
    // begun and the blocks at the end.
    json::Value sc = obj();
    put(sc, "blocks_per_plane", integer(S));
    put(sc, "pages_per_block", integer(ftl.slc_pages_per_block()));
    put(sc, "host_pages", integer(gc.slc_host_pages));
    put(sc, "host_share", num(gc.host_pages ? static_cast<double>(gc.slc_host_pages) / gc.host_pages : 0.0));
    put(sc, "fold_pages", integer(gc.fold_pages));
    put(sc, "erases", integer(gc.slc_erases));
    put(sc, "folds", integer(fc.fold_runs));
    std::vector<std::uint32_t> free_end(ftl.planes());
    for (std::uint32_t p = 0; p < ftl.planes(); ++p) free_end[p] = ftl.slc_free_blocks(p);
    put(sc, "free_blocks_end", spread(free_end));
    put(ft, "slc_cache", std::move(sc));
  }
  put(root, "ftl", ft);

  json::Value fw = obj();
  put(fw, "core_utilization", num(f.window.core_utilization));
  put(fw, "flash_reads", integer(fc.flash_reads));
  put(fw, "buffer_hits", integer(fc.buffer_hits));
  put(fw, "unwritten_reads", integer(fc.unwritten_reads));
  put(fw, "rmw_reads", integer(fc.rmw_reads));
  put(fw, "superseded_programs", integer(fc.superseded_programs));
  put(fw, "trimmed_pages", integer(fc.trimmed_pages));
  put(fw, "flushes_waited", integer(fc.flushes_waited));
  put(fw, "cancelled_programs", integer(fc.cancelled_programs));
  put(fw, "combined_commands", integer(fc.combined_commands));
  // Cells of n bits, or pages of several mapping units: the firmware's wordlines.
  if (f.nand.config().bits_per_cell > 1 || f.nand.config().units_per_page > 1) {
    put(fw, "wordlines", integer(fc.wordlines));
    put(fw, "padded_pages", integer(fc.padded_pages));
    put(fw, "mixed_pages", integer(fc.mixed_pages));
    if (f.nand.config().units_per_page > 1) put(fw, "gc_carried_wordlines", integer(fc.gc_carried_wordlines));
  }
  // The write cache and FUA (docs/controller.md, "Write cache and durability"): shown when
  // either is in use, over the whole run.
  const ctrl::WriteCache& cache = f.firmware.write_cache();
  if (cache.on() || fc.fua_writes) {
    json::Value wc = obj();
    put(wc, "mode", text(ctrl::to_string(cache.mode())));
    put(wc, "capacity_pages", integer(cache.capacity()));
    put(wc, "acknowledged_pages", integer(cache.acknowledged()));
    put(wc, "waited_pages", integer(cache.waited()));
    put(wc, "peak_dirty_pages", integer(cache.peak_dirty()));
    put(wc, "dirty_pages_at_end", integer(cache.dirty()));
    put(wc, "fua_writes", integer(fc.fua_writes));
    put(wc, "failed_acknowledged_pages", integer(f.firmware.fault_counters().failed_acknowledged_pages));
    put(fw, "write_cache", wc);
  }
  for (const ctrl::FirmwareScheduler::Stat& s : f.firmware.firmware_scheduler().stats())
    put(fw, s.key, s.integer ? integer(static_cast<std::uint64_t>(s.value)) : num(s.value));
  put(root, "firmware", fw);

  // Power cuts (docs/controller.md, "Power loss"): over the whole run, summed over its cuts.
  if (const PowerFigures* p = f.power) {
    json::Value pw = obj();
    put(pw, "mode", text(f.power_mode));
    put(pw, "write_cache", text(ctrl::to_string(cache.mode())));
    put(pw, "cuts", integer(p->cuts));
    put(pw, "cuts_not_made", integer(p->cuts_not_made));
    put(pw, "durable_lost", integer(p->lost.durable_lost));
    put(pw, "volatile_lost", integer(p->lost.volatile_lost));
    put(pw, "in_flight_lost", integer(p->lost.unacked_lost));
    put(pw, "torn_writes", integer(p->lost.torn));
    put(pw, "order_violations", integer(p->lost.order_violations));
    put(pw, "pages_off_contract", integer(p->lost.foreign_pages));
    put(pw, "writes_checked", integer(p->lost.writes_checked));
    put(pw, "pages_checked", integer(p->lost.pages_checked));
    json::Value rec = obj();
    put(rec, "mean", num(p->recovery_mean_us()));
    put(rec, "max", num(p->recovery_max_us));
    put(pw, "recovery_us", rec);
    json::Value scan = obj();
    put(scan, "mean", num(p->cuts ? static_cast<double>(p->scan_pages_sum) / static_cast<double>(p->cuts) : 0.0));
    put(scan, "max", integer(p->scan_pages_max));
    put(pw, "scan_pages", scan);
    if (f.firmware.firmware().map_log()) {  // the map log's pages read before the scan
      json::Value lp = obj();
      put(lp, "mean", num(p->cuts ? static_cast<double>(p->log_pages_sum) / static_cast<double>(p->cuts) : 0.0));
      put(lp, "max", integer(p->log_pages_max));
      put(pw, "log_pages", lp);
    }
    put(root, "power", pw);
  }

  // Where host pages went, and the forecast's waits against the waits that happened
  // (whole run; predicted only under a policy that weighs the forecast).
  const ctrl::PlacementCounters& pc = f.firmware.placement();
  json::Value pl = obj();
  put(pl, "write_policy", text(f.write_policy));
  put(pl, "placed_off_static", integer(pc.placed_off_static));
  std::vector<double> predicted, actual;
  std::uint64_t predicted_n = 0;
  for (std::size_t ch = 0; ch < pc.predicted_commands.size(); ++ch) {
    const double n = static_cast<double>(pc.predicted_commands[ch]);
    predicted_n += pc.predicted_commands[ch];
    predicted.push_back(n ? static_cast<double>(pc.predicted_wait_ps[ch]) / n / 1e6 : 0.0);
    actual.push_back(n ? static_cast<double>(pc.actual_wait_ps[ch]) / n / 1e6 : 0.0);
  }
  put(pl, "predicted_commands", integer(predicted_n));
  put(pl, "predicted_wait_us", array(predicted));
  put(pl, "actual_wait_us", array(actual));
  put(pl, "prediction_error_us",
      num(predicted_n ? static_cast<double>(pc.abs_error_ps) / static_cast<double>(predicted_n) / 1e6 : 0.0));
  // Chen's write groups (weight, delay): the groups by pages formed and by size predicted
  // (index 0: one page), and the forecast against the actual delay from a group's opening
  // to its first page's start.
  if (const ctrl::WriteGroupCounters* g = f.firmware.write_groups()) {
    const GroupFigures gf = group_figures(*g, pc);
    json::Value wg = obj();
    std::vector<double> formed, predicted_sizes;
    for (std::size_t n = 1; n < g->formed.size(); ++n) {
      formed.push_back(static_cast<double>(g->formed[n]));
      predicted_sizes.push_back(static_cast<double>(g->predicted[n]));
    }
    put(wg, "groups", integer(gf.groups));
    put(wg, "sizes", array(formed));
    put(wg, "predicted_sizes", array(predicted_sizes));
    put(wg, "mean_size", num(gf.mean_size));
    put(wg, "mean_predicted_size", num(gf.mean_predicted_size));
    put(wg, "timed", integer(pc.groups_timed));
    put(wg, "predicted_delay_us", num(gf.predicted_delay_us));
    put(wg, "actual_delay_us", num(gf.actual_delay_us));
    put(wg, "delay_error_us", num(gf.delay_error_us));
    put(pl, "write_groups", std::move(wg));
  }
  put(root, "placement", pl);

  // Batching into n-plane commands (whole run).
  json::Value bt = obj();
  put(bt, "enabled", boolean(f.firmware.batching()));
  put(bt, "batches", integer(pc.batches));
  std::vector<double> sizes;
  for (std::size_t n = 1; n < pc.batch_sizes.size(); ++n) sizes.push_back(static_cast<double>(pc.batch_sizes[n]));
  put(bt, "batch_sizes", array(sizes));
  put(bt, "multiplane_commands", integer(fc.combined_commands));
  put(bt, "multiplane_pages", integer(pc.multiplane_pages));
  const std::uint64_t sent = f.sched.issued();
  put(bt, "multiplane_share", num(sent ? static_cast<double>(fc.combined_commands) / static_cast<double>(sent) : 0.0));
  put(root, "batching", bt);

  // The scheduler block's rescheduling (controller.reschedule; whole run), when on and the
  // C++ block decides.
  if (const ctrl::RescheduleCounters* rc = f.sched.reschedule_counters()) {
    json::Value rs = obj();
    const ctrl::BlockWaits& bw = f.sched.waits();
    put(rs, "setting", text(f.sched.config().reschedule.name()));
    put(rs, "window", integer(f.sched.config().reschedule.window));
    put(rs, "granted", integer(rc->granted));
    put(rs, "merged_commands", integer(rc->merged_commands));
    put(rs, "merged_parts", integer(rc->merged_parts));
    std::vector<double> msizes;
    for (std::size_t n = 2; n < rc->merged_sizes.size(); ++n) msizes.push_back(static_cast<double>(rc->merged_sizes[n]));
    put(rs, "merged_sizes", array(msizes));
    put(rs, "type_switches", integer(rc->type_switches));
    put(rs, "switches_avoided", integer(rc->switches_avoided));
    put(rs, "held_by_dependency", integer(rc->held_by_dependency));
    put(rs, "reordered", integer(rc->reordered));
    put(rs, "reorder_distance_mean",
        num(rc->granted ? static_cast<double>(rc->distance_sum) / static_cast<double>(rc->granted) : 0.0));
    put(rs, "reorder_distance_max", integer(rc->distance_max));
    put(rs, "block_wait_mean_us", num(bw.granted ? ticks_to_us(bw.sum) / static_cast<double>(bw.granted) : 0.0));
    put(rs, "block_wait_max_us", num(ticks_to_us(bw.max)));
    put(root, "reschedule", rs);
  }
  // Failures and their recovery (nand.fault.*; whole run), when the NAND can fail.
  if (const nand::FaultModel* fm = f.nand.faults()) {
    const ctrl::FaultCounters& fa = f.firmware.fault_counters();
    const nand::ChannelCounters nt = f.nand.totals();
    json::Value fj = obj();
    put(fj, "factory_bad_blocks", integer(ftl.factory_bad_blocks()));
    put(fj, "grown_bad_blocks", integer(ftl.retired_blocks()));
    put(fj, "program_failures", integer(fa.program_failures));
    put(fj, "erase_failures", integer(fa.erase_failures));
    put(fj, "nand_failed_programs", integer(nt.failed_programs));
    put(fj, "nand_failed_erases", integer(nt.failed_erases));
    put(fj, "reprogrammed_pages", integer(fa.reprogrammed_pages));
    put(fj, "recopied_pages", integer(fa.recopied_pages));
    put(fj, "retired_by_gc", integer(fc.gc_retired));
    put(fj, "retire_copies", integer(fc.gc_retire_copies));
    // Pages programmed because of failures, per host page programmed.
    const double host_pages = static_cast<double>(std::max<std::uint64_t>(1, ftl.host_pages_written()));
    put(fj, "recovery_write_amplification",
        num(static_cast<double>(fa.reprogrammed_pages + fa.recopied_pages + fc.gc_retire_copies) / host_pages));
    json::Value tiers = obj();
    put(tiers, "hard", integer(fa.tier_reads[0]));
    put(tiers, "retry", integer(fa.tier_reads[1]));
    put(tiers, "soft", integer(fa.tier_reads[2]));
    put(tiers, "uncorrectable", integer(fa.uncorrectable_reads));
    put(fj, "reads_by_tier", tiers);
    json::Value hist;
    hist.kind = json::Value::Kind::Array;
    for (const std::uint64_t n : fa.retries) hist.items.push_back(integer(n));
    put(fj, "retries_per_read", hist);
    put(fj, "retry_reads", integer(fa.retry_reads));
    put(fj, "nand_retry_reads", integer(nt.retry_reads));
    put(fj, "nand_soft_reads", integer(nt.soft_reads));
    put(fj, "uncorrectable_reads", integer(fa.uncorrectable_reads));
    put(fj, "host_pages_unrecovered", integer(fa.host_pages_unrecovered));
    put(fj, "host_media_errors", integer(f.host.media_errors()));
    put(fj, "lost_pages", integer(fa.lost_pages));
    put(fj, "wear_cycles", num(fm->config().wear_cycles));
    put(fj, "gc_dropped_copies", integer(fc.gc_dropped_copies));
    put(fj, "read_only", boolean(f.firmware.read_only()));
    put(fj, "read_only_at_us", num(f.firmware.read_only() ? ticks_to_us(f.firmware.read_only_at()) : 0.0));
    put(fj, "read_only_reason", text(f.firmware.read_only_reason()));
    put(fj, "refused_writes", integer(fa.refused_writes));
    put(fj, "refused_trims", integer(fa.refused_trims));
    put(fj, "failed_write_pages", integer(fa.failed_write_pages));
    put(fj, "host_write_errors", integer(f.host.write_errors()));
    put(fj, "host_flush_errors", integer(f.host.flush_errors()));
    put(root, "faults", fj);
  }

  json::Value ct = obj();
  put(ct, "ncq_backpressure", integer(f.iface.backpressure_events()));
  put(ct, "ncq_tags_mean", num(f.window.ncq_tags_mean));
  put(ct, "ncq_tags_max", integer(f.iface.max_tags_in_use()));
  put(ct, "scheduler_decisions", integer(f.sched.decisions()));
  put(ct, "flash_commands", integer(f.sched.issued()));
  if (f.nand.config().independent_plane_reads && f.sched.config().plane_reads)  // reads granted ahead of their chip's candidate (HOS)
    put(ct, "plane_reads_granted", integer(f.sched.policy().plane_reads_granted()));
  put(ct, "link_utilization", num(f.window.link_utilization));
  if (f.nvme) {
    const ctrl::NvmeFrontEnd& nv = *f.nvme;
    const ctrl::NvmeFrontEnd::Counters& n = nv.counters();
    const ctrl::NvmeConfig& nc = nv.config();
    json::Value nj = obj();
    put(nj, "queues", integer(nc.queues));
    put(nj, "queue_depth", integer(nc.queue_depth));
    put(nj, "arbitration", text(nc.arbitration));
    put(nj, "command_slots", integer(nc.command_slots));
    put(nj, "sq_doorbells", integer(n.sq_doorbells));
    put(nj, "cq_doorbells", integer(n.cq_doorbells));
    put(nj, "arbitration_grants", integer(n.grants));
    put(nj, "commands_fetched", integer(n.fetched));
    json::Value by = obj();
    static const char* kClass[] = {"urgent", "high", "medium", "low"};
    for (unsigned k = 0; k < 4; ++k) put(by, kClass[k], integer(n.fetched_by_class[k]));
    put(nj, "fetched_by_class", by);
    put(nj, "slot_waits", integer(nv.backpressure_events()));
    put(nj, "list_reads", integer(n.list_reads));
    put(nj, "range_reads", integer(n.range_reads));
    put(nj, "completions", integer(n.completions));
    put(nj, "interrupts", integer(n.interrupts));
    put(nj, "completions_per_interrupt",
        num(n.interrupts ? static_cast<double>(n.completions) / static_cast<double>(n.interrupts) : 0.0));
    put(ct, "nvme", nj);
    json::Value pj = obj();
    const PcieLink& l = nv.link();
    put(pj, "generation", integer(l.config().generation));
    put(pj, "lanes", integer(l.config().lanes));
    put(pj, "tlp_overhead_bytes", integer(l.overhead()));
    put(pj, "bytes_per_ns", num(l.bytes_per_ns()));
    put(pj, "up_utilization", num(f.window.pcie_up_utilization));
    put(pj, "down_utilization", num(f.window.pcie_down_utilization));
    put(pj, "up_bytes", integer(n.up_bytes));
    put(pj, "down_bytes", integer(n.down_bytes));
    put(pj, "up_tlps", integer(n.up_tlps));
    put(pj, "down_tlps", integer(n.down_tlps));
    put(ct, "pcie", pj);
  }
  put(root, "controller", ct);

  json::Value hs = obj();
  put(hs, "requests", integer(f.host.completed()));
  put(hs, "warmup_requests", integer(f.host.warmup_completed()));
  put(hs, "unwritten_reads", integer(f.host.unwritten_reads()));
  put(hs, "out_of_range_skipped", integer(f.host.source().skipped()));
  put(hs, "split_requests", integer(f.host.source().split()));
  put(hs, "read_conflicts", integer(f.host.conflicts(HostOp::Read)));
  put(hs, "write_conflicts", integer(f.host.conflicts(HostOp::Write)));
  put(hs, "read_wait_us", num(f.host.mean_wait_us(HostOp::Read)));
  put(hs, "write_wait_us", num(f.host.mean_wait_us(HostOp::Write)));
  put(hs, "prioritized_reads", integer(f.host.prioritized_reads()));
  put(hs, "read_batches", integer(f.host.batches_served(HostOp::Read)));
  put(hs, "write_batches", integer(f.host.batches_served(HostOp::Write)));
  put(root, "host", hs);

  put(root, "steady_state", steady_json(f));

  json::Value integ = obj();
  put(integ, "reads_checked", integer(f.host.reads_checked()));
  put(integ, "mismatches", integer(f.host.mismatches()));
  put(integ, "audited_pages", integer(run.audited_pages));
  put(integ, "audit_mismatches", integer(run.audit_mismatches));
  if (f.nand.faults()) {  // reads the device reported it could not recover: errors, not mismatches
    put(integ, "media_errors", integer(f.host.media_errors()));
    put(integ, "unrecovered_pages", integer(f.host.unrecovered_pages()));
  }
  put(root, "integrity", integ);

  json::Value rn = obj();
  put(rn, "wall_seconds", num(run.wall_seconds));
  if (f.pilot && f.pilot->ran) put(rn, "start_pilot_seconds", num(f.pilot->wall_seconds));  // in wall_seconds
  if (f.pilot && f.pilot->ran) {  // how this run chose its start (a run of its config.json needs no pilot)
    const StartPilot& p = *f.pilot;
    json::Value sp = obj();
    put(sp, "regime", text(ctrl::regime_name(p.choice.regime)));
    put(sp, "free_blocks_mean", num(p.choice.free_blocks));
    put(sp, "planes_collecting", num(p.choice.collecting));
    put(sp, "balance_write_amplification", num(p.choice.write_amplification));
    put(sp, "pilot_requests", integer(p.requests));
    put(sp, "pilot_seconds", num(p.seconds));
    put(sp, "pilot_host_pages_per_s", num(p.host_pages_per_s));
    put(sp, "pilot_copies_per_s", num(p.copies_per_s));
    put(sp, "pilot_collecting", num(p.collecting));
    put(sp, "pilot_write_amplification", num(p.write_amplification));
    put(rn, "start_pilot", sp);
  }
  put(rn, "host_requests_per_wall_second",
      num(run.wall_seconds > 0 ? static_cast<double>(f.host.completed()) / run.wall_seconds : 0));
  put(rn, "peak_rss_mb", num(run.peak_rss_mb));
  put(rn, "precondition_seconds", num(run.precondition_seconds));
  put(rn, "simulation_seconds", num(run.simulation_seconds));
  const double req = static_cast<double>(std::max<std::uint64_t>(1, f.host.completed()));
  put(rn, "process_activations_per_request", num(static_cast<double>(run.process_activations) / req));
  json::Value by = obj();
  for (int k = 0; k < kActSources; ++k)
    put(by, activation_source_name(k), num(static_cast<double>(run.activations_by[k]) / req));
  put(rn, "process_activations_per_request_by_module", by);
  // How the run was simulated, not a result: the scheduler decisions taken ahead of their
  // edge (controller.decide_ahead).
  put(rn, "scheduler_decisions_ahead", integer(run.decisions_ahead));
  // controller.rtl = check: the decision edges at which both blocks' grants were compared.
  put(rn, "rtl_decisions_compared", integer(f.sched.decisions_compared()));
  // ... and the reads the firmware was told of ahead (host.lookahead).
  put(rn, "lookahead_hints", integer(run.lookahead_hints));
  // ... the requests the lookahead thread read ahead (host.lookahead_thread), and the
  // image's lookups it had computed in time (these depend on the machine's timing).
  put(rn, "lookahead_thread_requests", integer(run.lookahead_thread_requests));
  // Whether the thread ran, and what host.lookahead_thread=auto read (0 without accel/).
  put(rn, "lookahead_thread", boolean(run.lookahead_thread));
  put(rn, "cpus_allowed", integer(run.cpus_allowed));
  put(rn, "cpus_online", integer(run.cpus_online));
  put(rn, "load_average", num(run.load_average));
  if (run.image_results) {
    put(rn, "image_lookups_precomputed", integer(run.image_lookups_precomputed));
    put(rn, "image_lookups_computed", integer(run.image_lookups_computed));
  }
  if (run.kernel_activations_per_second > 0) {
    put(rn, "kernel_activations_per_second", num(run.kernel_activations_per_second));
    put(rn, "kernel_peq_events_per_second", num(run.kernel_peq_events_per_second));
    put(rn, "kernel_activations_per_request", num(run.wall_seconds * run.kernel_activations_per_second / req));
    put(rn, "kernel_activations_per_request_simulation",
        num(run.simulation_seconds * run.kernel_activations_per_second / req));
  }
  put(root, "run", rn);
  return root;
}

void print_full_summary(std::ostream& os, const FullRun& f, const RunFigures& run) {
  const Tick end = f.window.end;
  const double sim_s = static_cast<double>(end - f.window.start) / 1e12;
  const FtlCounters gc = f.ftl_end - f.ftl_start;  // the GC figures over the window
  os << std::fixed;
  os << "\nSummary (host-visible latency: submit to completion)\n";
  latency_header(os);
  latency_row(os, "read", f.host.latency(HostOp::Read), f.host.bytes(HostOp::Read), sim_s);
  latency_row(os, "write", f.host.latency(HostOp::Write), f.host.bytes(HostOp::Write), sim_s);
  latency_row(os, "all", f.host.latency_all(), f.host.bytes(HostOp::Read) + f.host.bytes(HostOp::Write), sim_s);
  if (f.host.trim_latency().count()) latency_row(os, "trim", f.host.trim_latency(), f.host.trimmed_bytes(), sim_s);
  if (f.host.flush_latency().count()) latency_row(os, "flush", f.host.flush_latency(), 0, sim_s);
  parts_line(os, "read", f.host.attribution(), 0);
  parts_line(os, "write", f.host.attribution(), 1);
  if (f.streams.size() > 1) {
    const Slowdowns sd = slowdowns(f);
    for (std::size_t k = 0; k < f.streams.size(); ++k) {
      const FullRun::Stream& st = f.streams[k];
      const host::HostDriver::StreamFigures& g = f.host.stream_figures(k);
      os << std::setprecision(3) << "  stream " << st.index << " (" << st.priority << ", " << st.queues << " queue"
         << (st.queues == 1 ? "" : "s") << "): " << g.all.count() << " requests, mean " << g.all.mean() / 1e6
         << " us (read " << g.latency[0].mean() / 1e6 << ", write " << g.latency[1].mean() / 1e6 << "), p99 "
         << static_cast<double>(g.all.quantile(0.99)) / 1e6 << " us";
      if (sd.of[k] >= 0) os << "; alone " << st.alone_mean_us << " us, slowdown " << sd.of[k];
      os << '\n';
    }
    if (sd.fairness >= 0)
      os << "  fairness            " << sd.fairness << " (lowest slowdown / highest; 1 = every stream slowed alike)\n";
  }
  os << std::setprecision(3);
  if (f.window.start)
    os << "  simulated time      " << ticks_to_us(end - f.window.start) << " us (the statistics' window: from "
       << ticks_to_us(f.window.start) << " us, after a warm-up of " << f.host.warmup_completed()
       << " requests, to the last host completion)\n";
  else
    os << "  simulated time      " << ticks_to_us(end) << " us (the statistics' window: to the last host completion)\n";
  if (const SteadyStateRule* r = f.steady) {
    const std::uint64_t per_round = f.steady_round_requests;
    if (f.steady_window_start_request)
      os << "  steady state        reached after " << r->rounds().size() << " rounds of " << per_round
         << " requests (SNIA PTS rule over " << r->window() << " rounds): the statistics start at request "
         << f.steady_window_start_request << "\n";
    else if (r->reached())
      os << "  steady state        WARNING: reached only when every request was admitted: the statistics include start-up\n";
    else
      os << "  steady state        WARNING: not reached in " << r->rounds().size() << " rounds of " << per_round
         << " requests ("
         << (r->why_not().empty() ? "fewer than the window's " + std::to_string(r->window()) : r->why_not())
         << "): the statistics include start-up\n";
  }
  os << "  chip utilization    " << f.window.chip_utilization << " chips busy on average over the window (of "
     << f.window.chips << "), " << f.window.chip_utilization_while_busy << " over the time any chip is busy\n";
  os << "  host queue          " << f.host.conflicts(HostOp::Read) << " read and " << f.host.conflicts(HostOp::Write)
     << " write conflict requests; mean wait before dispatch " << f.host.mean_wait_us(HostOp::Read) << " us (read), "
     << f.host.mean_wait_us(HostOp::Write) << " us (write)\n";
  if (f.host.source().split())
    os << "  split requests      " << f.host.source().split()
       << " of the workload's requests were larger than " << param::key(&host::HostConfig::max_transfer_sectors)
       << ": each was sent in pieces\n";
  os << "  GC                  " << gc.gc_erases << " erases, write amplification " << gc.write_amplification()
     << " (device at time 0: " << f.precondition_state << ")\n";
  if (f.nand.config().bits_per_cell > 1)
    os << "  wordlines           " << gc.filler_pages << " filler pages padded partial wordlines, "
       << f.firmware.counters().mixed_pages << " GC copies filled host ones (whole run); every page programmed "
       << "per host page " << gc.write_amplification_all() << " (GC " << gc.per_host_page(gc.gc_pages) << ", filler "
       << gc.per_host_page(gc.filler_pages) << ", map log " << gc.per_host_page(gc.map_pages);
  if (f.nand.config().bits_per_cell > 1) {
    if (f.firmware.ftl().slc_blocks()) os << ", folds " << gc.per_host_page(gc.fold_pages);
    os << ")\n";
  }
  if (const std::uint32_t S = f.firmware.ftl().slc_blocks()) {
    const ctrl::Ftl& ftl = f.firmware.ftl();
    double free_sum = 0;
    for (std::uint32_t p = 0; p < ftl.planes(); ++p) free_sum += ftl.slc_free_blocks(p);
    os << "  SLC cache           " << gc.slc_host_pages << " of " << gc.host_pages << " host pages written to it ("
       << (gc.host_pages ? 100.0 * gc.slc_host_pages / gc.host_pages : 0.0) << " %), " << gc.fold_pages
       << " pages folded out of it; " << f.firmware.counters().fold_runs << " folds (whole run); free SLC blocks at "
       << "the end " << free_sum / ftl.planes() << " of " << S << " per plane on average\n";
  }
  if (const ctrl::MapLog* log = f.firmware.firmware().map_log())
    os << "  map log             " << gc.map_pages << " pages programmed, " << gc.map_erases
       << " blocks erased; write amplification with it " << gc.write_amplification_with_map() << " (whole run: "
       << log->counters().checkpoints << " checkpoints of " << log->checkpoint_size() << " pages, "
       << log->counters().checkpoints_forced << " started for want of room; " << log->counters().journal_pages
       << " journal pages)\n";
  if (f.pilot && f.pilot->ran)
    os << "  start state         " << ctrl::regime_name(f.pilot->choice.regime) << ": " << f.pilot->choice.free_blocks
       << " free blocks per plane on average, " << 100 * f.pilot->choice.collecting
       << " % of planes collecting (pilot of " << f.pilot->requests << " requests, " << f.pilot->wall_seconds
       << " s of wall time: " << f.pilot->host_pages_per_s << " host pages/s and " << f.pilot->copies_per_s
       << " GC copies/s per plane)\n";
  if (f.nand.config().planes_per_die > 1) {
    const PlaneShares ps = plane_shares(f.nand.totals());
    os << "  multi-plane         pages the NAND moved in n-plane commands (whole run): read " << 100 * ps.all[0]
       << " %, program " << 100 * ps.all[1] << " % (host " << 100 * ps.host[1] << " %, GC " << 100 * ps.gc[1]
       << " %), erase " << 100 * ps.all[2] << " % of blocks\n";
  }
  if (const ctrl::WriteGroupCounters* g = f.firmware.write_groups()) {
    const GroupFigures gf = group_figures(*g, f.firmware.placement());
    os << "  write groups        " << gf.groups << " of " << std::setprecision(2) << gf.mean_size
       << " pages on average (predicted " << gf.mean_predicted_size << "); a group's first page started "
       << std::setprecision(1) << gf.actual_delay_us << " us after it opened (forecast " << gf.predicted_delay_us
       << " us, mean |error| " << gf.delay_error_us << " us)\n" << std::setprecision(3);
  }
  const std::uint64_t reads = f.host.latency(HostOp::Read).count() + f.host.unwritten_reads();
  if (f.host.unwritten_reads())
    os << "  unwritten reads     " << f.host.unwritten_reads()
       << " reads of never-written or trimmed pages, answered without flash, left out of the latencies\n";
  if (reads && f.host.unwritten_reads() * 100 > reads)
    std::cerr << "ssdsim: warning: " << f.host.unwritten_reads() << " of " << reads
              << " reads (more than 1 %) read never-written or trimmed pages and were answered without flash; "
              << (f.host.trim_latency().count() ? "trims unmapped them, or " : "")
              << "precondition more of the logical space (" << param::key(&ctrl::PreconditionConfig::fraction)
              << ") to measure flash reads\n";
  if (f.nvme) {
    const ctrl::NvmeFrontEnd::Counters& n = f.nvme->counters();
    const ctrl::NvmeConfig& nc = f.nvme->config();
    const PcieConfig& pc = f.nvme->link().config();
    os << "  NVMe                " << nc.queues << " queue pair" << (nc.queues == 1 ? "" : "s") << " of "
       << nc.queue_depth << " entries, " << nc.arbitration << "; " << n.fetched << " commands fetched in "
       << n.grants << " grants, " << n.interrupts << " interrupts ("
       << (n.interrupts ? static_cast<double>(n.completions) / static_cast<double>(n.interrupts) : 0.0)
       << " completions each); " << f.window.ncq_tags_mean << " of " << nc.command_slots
       << " command slots in use on average\n";
    os << "  PCIe link           Gen" << pc.generation << " x" << pc.lanes << ": up (to the host) "
       << f.window.pcie_up_utilization << " busy, down " << f.window.pcie_down_utilization << " busy\n";
  }
  os << "  firmware core       " << f.window.core_utilization << " busy\n";
  if (const ctrl::WriteCache& cache = f.firmware.write_cache(); cache.on() || f.firmware.counters().fua_writes) {
    os << "  write cache         " << ctrl::to_string(cache.mode());
    if (cache.on())
      os << ", " << cache.capacity() << " pages: " << cache.acknowledged() << " pages acknowledged before flash ("
         << cache.waited() << " waited for room, at most " << cache.peak_dirty() << " dirty)";
    else
      os << " (writes complete once programmed)";
    os << "; " << f.firmware.counters().fua_writes << " FUA writes\n";
  }
  if (const PowerFigures* p = f.power) {
    os << "  power cuts          " << p->cuts << " (" << f.power_mode << ", write cache "
       << ctrl::to_string(f.firmware.write_cache().mode()) << "): " << p->lost.durable_lost << " durable writes lost, "
       << p->lost.volatile_lost << " volatile lost, " << p->lost.unacked_lost << " in flight lost, " << p->lost.torn
       << " torn, " << p->lost.order_violations << " out of order, " << p->lost.foreign_pages
       << " pages off the contract; recovery " << (f.firmware.firmware().map_log() ? "(map log, then scan) " : "scan ")
       << p->recovery_mean_us() << " us mean, " << p->recovery_max_us << " max";
    if (f.firmware.firmware().map_log())
      os << " (" << (p->cuts ? static_cast<double>(p->log_pages_sum) / static_cast<double>(p->cuts) : 0.0)
         << " log pages read, " << (p->cuts ? static_cast<double>(p->scan_pages_sum) / static_cast<double>(p->cuts) : 0.0)
         << " pages scanned, on average)";
    if (p->cuts_not_made) os << "; " << p->cuts_not_made << " due after the workload, not made";
    os << "\n";
  }
  os << "  integrity           " << f.host.reads_checked() << " page reads checked, " << f.host.mismatches()
     << " mismatches\n";
  if (f.nand.faults()) {
    const ctrl::FaultCounters& fa = f.firmware.fault_counters();
    os << "  faults              " << fa.program_failures << " program and " << fa.erase_failures
       << " erase failures, " << f.firmware.ftl().retired_blocks() << " blocks retired, "
       << f.firmware.ftl().factory_bad_blocks() << " factory bad; reads by tier: " << fa.tier_reads[0] << " hard, "
       << fa.tier_reads[1] << " retry, " << fa.tier_reads[2] << " soft, " << fa.uncorrectable_reads
       << " uncorrectable (" << f.host.unrecovered_pages() << " host pages reported as media errors)\n";
    if (f.firmware.read_only())
      os << "  read-only           from " << ticks_to_us(f.firmware.read_only_at()) << " us: "
         << f.firmware.read_only_reason() << "; " << fa.refused_writes << " writes and " << fa.refused_trims
         << " trims refused\n";
    if (fa.failed_write_pages)
      os << "  failed writes       " << f.host.write_errors() << " host writes ended with a media error: "
         << fa.failed_write_pages << " pages their planes could gain no space for (kept in the write buffer); "
         << fa.failed_acknowledged_pages << " of them acknowledged by the write cache, and "
         << f.host.flush_errors() << " flushes after them ended with a media error\n";
  }
  if (run.audited)
    os << "  audit               " << run.audited_pages << " logical pages read back, " << run.audit_mismatches
       << " mismatches\n";
  os << std::setprecision(2) << "  wall time           " << run.wall_seconds << " s (preconditioning "
     << run.precondition_seconds << " s), "
     << (run.wall_seconds > 0 ? static_cast<double>(f.host.completed()) / run.wall_seconds : 0.0)
     << " requests per second, peak RSS " << run.peak_rss_mb << " MB\n";
  const double req = static_cast<double>(std::max<std::uint64_t>(1, f.host.completed()));
  os << "  simulation          " << run.simulation_seconds << " s, "
     << (run.simulation_seconds > 0 ? req / run.simulation_seconds : 0.0) << " requests per second, "
     << std::setprecision(1) << static_cast<double>(run.process_activations) / req
     << " process activations per request\n";
  if (run.kernel_activations_per_second > 0)
    os << "  kernel cost         " << std::setprecision(1) << run.wall_seconds * run.kernel_activations_per_second / req
       << " kernel activations per request (whole process), "
       << run.simulation_seconds * run.kernel_activations_per_second / req << " (simulation only); kernel rate "
       << std::setprecision(2) << run.kernel_activations_per_second / 1e6 << "e6 activations/s (peq_with_get "
       << run.kernel_peq_events_per_second / 1e6 << "e6 events/s)\n";
  os.unsetf(std::ios::floatfield);
}

void print_nand_ops_summary(std::ostream& os, const NandScriptDriver& drv, const nand::NandDevice& nand,
                            const WindowFigures& w, const RunFigures& run) {
  const Tick end = w.end;
  const double sim_s = static_cast<double>(end) / 1e12;
  const std::uint64_t pb = nand.config().page_bytes;
  os << std::fixed;
  os << "\nSummary (NAND command script; latency = submit to completion)\n";
  latency_header(os);
  latency_row(os, "read", drv.latency(FlashOp::Read), drv.pages(FlashOp::Read) * pb, sim_s);
  latency_row(os, "program", drv.latency(FlashOp::Program), drv.pages(FlashOp::Program) * pb, sim_s);
  latency_row(os, "erase", drv.latency(FlashOp::Erase), 0, sim_s);
  os << std::setprecision(3);
  os << "  simulated time      " << ticks_to_us(end) << " us\n";
  os << "  chip utilization    " << w.chip_utilization << " chips busy on average (of " << w.chips << ")\n";
  os << "  bus utilization    ";
  for (unsigned ch = 0; ch < nand.channels(); ++ch) {
    if (ch == 8) {
      os << " ...";
      break;
    }
    os << " ch" << ch << ' ' << w.bus_utilization[ch];
  }
  os << '\n';
  os << "  integrity           " << drv.reads_checked() << " page reads checked, "
     << drv.mismatches() << " mismatches\n";
  os << "  protocol errors     " << nand.totals().protocol_errors << '\n';
  if (drv.power_cuts())
    os << "  power cuts          " << drv.power_cuts() << ": " << drv.lost() << " commands cut short, "
       << nand.torn_pages() << " pages left torn\n";
  os << std::setprecision(2) << "  wall time           " << run.wall_seconds << " s, peak RSS "
     << run.peak_rss_mb << " MB\n";
  os.unsetf(std::ios::floatfield);
}

void print_timeline(std::ostream& os, const NandScriptDriver& drv, std::size_t max_lines) {
  std::vector<const CommandRecord*> recs;
  for (const CommandRecord& r : drv.records()) recs.push_back(&r);
  std::stable_sort(recs.begin(), recs.end(), [](const CommandRecord* a, const CommandRecord* b) {
    if (a->cmd.t_submit != b->cmd.t_submit) return a->cmd.t_submit < b->cmd.t_submit;
    if (a->line != b->line) return a->line < b->line;
    return a->cmd.t_start < b->cmd.t_start;
  });
  os << "Timeline (us): submit, first bus cycle, array start-end, done; wait = start - submit\n";
  os << " line  command                                    submit      start          array               done      wait   latency\n";
  os << std::fixed << std::setprecision(3);
  std::size_t n = 0;
  for (const CommandRecord* r : recs) {
    if (n++ == max_lines) break;
    const FlashCommand& c = r->cmd;
    os << std::setw(5) << r->line << "  " << std::left << std::setw(40) << c.describe() << std::right
       << std::setw(10) << ticks_to_us(c.t_submit) << std::setw(11) << ticks_to_us(c.t_start)
       << std::setw(12) << ticks_to_us(c.t_array_start) << '-' << std::left << std::setw(12)
       << ticks_to_us(c.t_array_end) << std::right << std::setw(11) << ticks_to_us(c.t_done)
       << std::setw(10) << ticks_to_us(c.t_start - c.t_submit) << std::setw(10)
       << ticks_to_us(c.t_done - c.t_submit) << '\n';
  }
  if (drv.completed() > n || recs.size() < drv.completed())
    os << "  (" << std::min(n, recs.size()) << " of " << drv.completed()
       << " commands shown; " << param::key(&ReportConfig::timeline_max) << " sets the limit)\n";
  os.unsetf(std::ios::floatfield);
}

}  // namespace ssd
