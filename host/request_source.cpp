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
      std::cerr << "ssdsim: workload.requests = " << cfg_.limit << " stops the replay of " << reader_.path()
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
           << " bytes (workload.out_of_range = wrap or skip replays it anyway)";
        throw TraceError(os.str());
      }
      lba = first % (cap - sectors + 1);  // wrap: the start modulo the room left for it
    }
    r.op = t.op;
    r.lba = lba;
    r.sectors = static_cast<std::uint32_t>(sectors);
    arrival = t.time;  // scaled by the reader (workload.time_scale), within range
    ++given_;
    return true;
  }
  if (given_ == 0) {  // a run of no requests is no run: an empty trace is bad input
    std::ostringstream os;
    os << reader_.path();
    if (reader_.line()) os << ':' << reader_.line();
    os << ": no requests in " << reader_.path();
    if (skipped_) os << " (all " << skipped_ << " are past the device's capacity: workload.out_of_range = skip)";
    else if (cfg_.device >= 0) os << " of device " << cfg_.device << " (workload.device)";
    throw TraceError(os.str());
  }
  return false;
}

}  // namespace ssd::host
