// Where the host's requests come from: the synthetic generator or a trace, with an
// arrival time each (open-loop replay) or none (closed loop at a queue depth).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "host/synthetic.h"
#include "host/trace_reader.h"

namespace ssd::host {

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // The next request and its arrival time; false at the end. May throw InputError (TraceError for a trace).
  virtual bool next(HostRequest& r, Tick& arrival) = 0;
  // Whether arrival times are to be kept (open loop); else closed loop.
  virtual bool timed() const = 0;
  // The number of requests, when known in advance (0: unknown).
  virtual std::uint64_t expected() const = 0;
  virtual std::uint64_t skipped() const { return 0; }
  // A new source that gives the same requests from the first, independent of this one
  // (it may be read on another thread); null when the source cannot be read twice.
  virtual std::unique_ptr<RequestSource> reopen() const { return nullptr; }
};

class SyntheticSource : public RequestSource {
 public:
  explicit SyntheticSource(const SyntheticConfig& c) : cfg_(c), gen_(c), n_(c.requests), timed_(c.rate_iops > 0) {}
  bool next(HostRequest& r, Tick& arrival) override { return gen_.next(r, arrival); }
  bool timed() const override { return timed_; }
  std::uint64_t expected() const override { return n_; }
  std::unique_ptr<RequestSource> reopen() const override { return std::make_unique<SyntheticSource>(cfg_); }

 private:
  SyntheticConfig cfg_;
  SyntheticWorkload gen_;
  std::uint64_t n_;
  bool timed_;
};

enum class OutOfRange { Error, Wrap, Skip };

struct TraceSourceConfig {
  std::string path;
  TraceFormat format = TraceFormat::Msr;
  std::int64_t device = -1;         // -1: all devices/volumes
  bool timed = true;                // replay at trace times, else closed loop
  double time_scale = 1.0;          // arrival = trace time x time_scale
  std::uint64_t limit = 0;          // at most this many requests (0: all); stderr says when it cuts
  OutOfRange out_of_range = OutOfRange::Error;
  std::uint64_t capacity_sectors = 0;
};

class TraceSource : public RequestSource {
 public:
  explicit TraceSource(const TraceSourceConfig& c)
      : cfg_(c), reader_(c.path, c.format, c.device, c.time_scale, c.timed) {}
  bool next(HostRequest& r, Tick& arrival) override;
  bool timed() const override { return cfg_.timed; }
  std::uint64_t expected() const override { return cfg_.limit; }
  std::uint64_t skipped() const override { return skipped_; }
  // Opens the file again: only a regular file (a pipe cannot be read twice).
  std::unique_ptr<RequestSource> reopen() const override;

 private:
  TraceSourceConfig cfg_;
  TraceReader reader_;
  std::uint64_t given_ = 0, skipped_ = 0;
  bool cut_told_ = false;
};

}  // namespace ssd::host
