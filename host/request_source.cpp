#include "host/request_source.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <system_error>

namespace ssd::host {

std::unique_ptr<RequestSource> TraceSource::reopen() const {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(cfg_.path, ec)) return nullptr;
  try {
    return std::make_unique<TraceSource>(cfg_);
  } catch (const TraceError&) {
    return nullptr;
  }
}

bool TraceSource::next(HostRequest& r, Tick& arrival) {
  TraceRecord t;
  if (cfg_.limit && given_ == cfg_.limit) {
    // Say once that the limit cut the trace, if a record follows.
    if (!cut_told_ && reader_.next(t)) {
      cut_told_ = true;
      std::cerr << "ssdsim: " << param::key(&WorkloadConfig::requests) << " = " << cfg_.limit << " stops the replay of " << reader_.path()
                << " before its line " << t.line << " (unset it to replay the whole trace)\n";
    }
    return false;
  }
  while (reader_.next(t)) {
    if (t.offset > ~std::uint64_t{0} - t.bytes - 511) {
      std::ostringstream os;
      os << reader_.path() << ':' << t.line << ": field 'offset': offset " << t.offset << " plus size " << t.bytes
         << " is past any device";
      throw TraceError(os.str());
    }
    const std::uint64_t first = t.offset / 512;
    const std::uint64_t end = (t.offset + t.bytes + 511) / 512;  // whole sectors covering the bytes
    std::uint64_t sectors = end - first;
    std::uint64_t lba = first;
    const std::uint64_t cap = cfg_.capacity_sectors;
    if (sectors > cap || sectors > 0xFFFFFFFFull) {
      std::ostringstream os;
      os << reader_.path() << ':' << t.line << ": field 'size': a request of " << t.bytes
         << " bytes is larger than the device (" << cap * 512 << " bytes)";
      throw TraceError(os.str());
    }
    if (end > cap) {
      if (cfg_.out_of_range == OutOfRange::Skip) {
        ++skipped_;
        continue;
      }
      if (cfg_.out_of_range == OutOfRange::Error) {
        std::ostringstream os;
        os << reader_.path() << ':' << t.line << ": field 'offset': the request ends at byte " << end * 512
           << ", past the device's logical capacity of " << cap * 512
           << " bytes (" << param::key(&WorkloadConfig::out_of_range) << " = wrap or skip replays it anyway)";
        throw TraceError(os.str());
      }
      lba = first % (cap - sectors + 1);  // wrap: the start modulo the room left for it
    }
    r.op = t.op;
    r.lba = lba;
    r.sectors = static_cast<std::uint32_t>(sectors);
    r.fua = t.fua;
    arrival = t.time;  // scaled by the reader (workload.time_scale), within range
    ++given_;
    return true;
  }
  if (given_ == 0) {  // a run of no requests is no run: an empty trace is bad input
    std::ostringstream os;
    os << reader_.path();
    if (reader_.line()) os << ':' << reader_.line();
    os << ": no requests in " << reader_.path();
    if (skipped_)
      os << " (all " << skipped_ << " are past the device's capacity: " << param::key(&WorkloadConfig::out_of_range)
         << " = skip)";
    else if (cfg_.device >= 0) os << " of device " << cfg_.device << " (" << param::key(&WorkloadConfig::device) << ")";
    throw TraceError(os.str());
  }
  return false;
}

const param::Table<WorkloadConfig>& WorkloadConfig::keys() {
  static const param::Table<WorkloadConfig> t = [] {
    using W = WorkloadConfig;
    param::Table<W> k;
    k.choice("workload.kind", &W::kind, {"synthetic", "trace", "nand_ops"},
             "synthetic: generated requests; trace: a block trace (workload.path, workload.format); "
             "both through the whole controller. nand_ops: a script of NAND commands replayed at its "
             "timestamps straight to the NAND")
        .text("workload.path", &W::path,
              "trace or NAND script file (nand_ops: empty = the bundled configs/nand_demo.ops)")
        .choice("workload.format", &W::format, {"msr", "spc", "disksim", "mqsim", "blkparse"},
                "trace format (blkparse: Linux blkparse text, its Q events; the only one with trims and flushes)")
        .choice("workload.replay", &W::replay, {"timed", "closed"},
                "trace replay: timed (at trace timestamps x workload.time_scale) or closed (keep "
                "workload.queue_depth outstanding)")
        .number("workload.time_scale", &W::time_scale, 1e-9, 1e9, "timed replay: arrival = trace time x this")
        .integer("workload.device", &W::device, -1, 1000000,
                 "trace: replay only this device/volume number (-1: all)")
        .choice("workload.out_of_range", &W::out_of_range, {"error", "wrap", "skip"},
                "trace: a request past the capacity is an error, wraps around, or is skipped and counted")
        .integer("workload.requests", &W::requests, 0, 1000000000000ll,
                 "host requests to run (synthetic); a trace replays whole unless this is set: then at most this "
                 "many (0 = the whole trace), and stderr says where it stopped").unit("requests")
        .number("workload.read_ratio", &W::read_ratio, 0, 1, "fraction of reads")
        .number("workload.trim_ratio", &W::trim_ratio, 0, 1,
                "synthetic: fraction of trims, sized and placed as the other requests (writes are the rest; "
                "workload.read_ratio + this <= 1)")
        .integer("workload.flush_every", &W::flush_every, 0, 1000000000000ll,
                 "synthetic: a flush after every this many writes, at that write's arrival, beside "
                 "workload.requests (0: none)").unit("writes")
        .number("workload.fua_ratio", &W::fua_ratio, 0, 1,
                "synthetic: the share of writes sent with Force Unit Access (each completes only once its data "
                "is on flash, whatever controller.write_cache; a blkparse trace marks its own: an F after the "
                "kind, as in WFS)")
        .integer("workload.size_bytes", &W::size_bytes, 512, 64 << 20, "request size, bytes (a multiple of 512)")
        .unit("bytes")
        .integer("workload.size_max_bytes", &W::size_max_bytes, 0, 64 << 20,
                 "if larger than workload.size_bytes: sizes uniform between the two, in steps of the alignment")
        .unit("bytes")
        .integer("workload.align_bytes", &W::align_bytes, 0, 64 << 20,
                 "request start alignment, bytes (0: the request size)").unit("bytes")
        .number("workload.zipf_theta", &W::zipf_theta, 0, 0.999,
                "hot/cold skew: Zipf exponent over the addresses (0: uniform)")
        .number("workload.rate_iops", &W::rate_iops, 0, 1e9,
                "synthetic: open loop, Poisson arrivals at this rate (0: closed loop)").unit("IOPS")
        .number("workload.duration_us", &W::duration_us, 0, kMaxTimeUs,
                "stop making requests after this simulated time, us (0: no limit)").unit("us")
        .choice("workload.pattern", &W::pattern, {"random", "sequential"}, "address pattern")
        .integer("workload.queue_depth", &W::queue_depth, 1, 65535, "requests kept outstanding (closed loop)")
        .unit("requests")
        .integer("workload.seed", &W::seed, 0, 0x7FFFFFFFFFFFFFFFll, "random seed");
    return k;
  }();
  return t;
}

const param::Table<StreamConfig>& StreamConfig::keys() {
  static const param::Table<StreamConfig> t = [] {
    using S = StreamConfig;
    param::Table<S> k;
    k.integer("queues", &S::queues, 1, 65535, "NVMe I/O queue pairs of the stream's own (host.interface = nvme)")
        .unit("queues")
        .choice("priority", &S::priority, {"urgent", "high", "medium", "low"},
                "its queues' priority class (nvme.arbitration = wrr)")
        .integer("weight", &S::weight, 0, 256,
                 "its class's weight, commands a round (0: nvme.weight_* as set; streams of one class give one "
                 "weight)").unit("commands");
    return k;
  }();
  return t;
}

StreamKeys stream_keys() {
  StreamKeys out;
  const std::string prefix = "workload.";
  for (const auto& f : WorkloadConfig::keys().fields()) {
    param::Key k = f.key;
    k.name = k.name.substr(prefix.size());
    k.help += " (this stream's; else the top-level key's)";
    out.keys.push_back(k);
    out.defaults.push_back(f.def);
  }
  for (const auto& f : StreamConfig::keys().fields()) {
    out.keys.push_back(f.key);
    out.defaults.push_back(f.def);
  }
  return out;
}

}  // namespace ssd::host
