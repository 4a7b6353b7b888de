// Where the host's requests come from: the synthetic generator or a trace, with an
// arrival time each (open-loop replay) or none (closed loop at a queue depth).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/params.h"
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
  // Requests split into pieces of the host's largest transfer (SplitSource).
  virtual std::uint64_t split() const { return 0; }
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

// The workload's keys (request_source.cpp): what the host sends, from a generator or a
// trace (a NAND script, kind nand_ops, goes straight to the NAND).
struct WorkloadConfig {
  std::string kind = "synthetic";  // synthetic | trace | nand_ops
  std::string path;
  std::string format = "msr";      // parse_trace_format
  std::string replay = "timed";    // timed | closed
  double time_scale = 1.0;
  std::int64_t device = -1;
  std::string out_of_range = "error";  // error | wrap | skip
  std::uint64_t requests = 100000;
  double read_ratio = 0.7;
  double trim_ratio = 0;
  std::uint64_t flush_every = 0;
  double fua_ratio = 0;
  std::uint32_t size_bytes = 4096;
  std::uint32_t size_max_bytes = 0;
  std::uint32_t align_bytes = 0;
  double zipf_theta = 0;
  double rate_iops = 0;
  double duration_us = 0;
  std::string pattern = "random";  // random | sequential
  std::uint32_t queue_depth = 32;
  std::uint64_t seed = 1;
  static const param::Table<WorkloadConfig>& keys();
};

// A stream (a tenant) of workload.streams: its workload (WorkloadConfig, each key given for
// the stream or else the top-level workload.* value; its seed workload.seed + its index
// unless given), and what it adds: the NVMe queues of its own and their priority class.
// Key names here are within the item: workload.streams.<i>.NAME.
struct StreamConfig {
  std::uint32_t queues = 1;         // NVMe I/O queue pairs of its own
  std::string priority = "medium";  // urgent | high | medium | low (nvme.arbitration = wrr)
  std::uint32_t weight = 0;         // its class's weight (0: nvme.weight_* as set)
  static const param::Table<StreamConfig>& keys();
};
// The keys of one item of workload.streams (WorkloadConfig's without "workload.", then
// StreamConfig's), with their defaults.
struct StreamKeys {
  std::vector<param::Key> keys;
  std::vector<param::Value> defaults;
};
StreamKeys stream_keys();
inline constexpr const char* kStreamsPrefix = "workload.streams";
inline constexpr unsigned kMaxStreams = 64;

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

// A request larger than the host interface's largest transfer (host.max_transfer_sectors),
// split as a host block layer splits it: into pieces of at most max_sectors, in address
// order, each a request of its own with the original's arrival, sent, measured and checked
// as one. So memory stays bounded by the outstanding requests, whatever one line asks.
class SplitSource : public RequestSource {
 public:
  SplitSource(std::unique_ptr<RequestSource> inner, std::uint32_t max_sectors)
      : inner_(std::move(inner)), max_(max_sectors) {}
  bool next(HostRequest& r, Tick& arrival) override {
    if (left_ == 0) {
      if (!inner_->next(cur_, at_)) return false;
      left_ = cur_.sectors;
      lba_ = cur_.lba;
      if (cur_.sectors > max_) ++split_;
    }
    r = cur_;
    r.lba = lba_;
    r.sectors = left_ < max_ ? left_ : max_;
    lba_ += r.sectors;
    left_ -= r.sectors;
    arrival = at_;
    return true;
  }
  bool timed() const override { return inner_->timed(); }
  std::uint64_t expected() const override { return inner_->expected(); }  // before splitting
  std::uint64_t skipped() const override { return inner_->skipped(); }
  std::unique_ptr<RequestSource> reopen() const override {
    std::unique_ptr<RequestSource> again = inner_->reopen();
    return again ? std::make_unique<SplitSource>(std::move(again), max_) : nullptr;
  }
  // The workload's requests that were split (each into two or more pieces).
  std::uint64_t split() const override { return split_; }

 private:
  std::unique_ptr<RequestSource> inner_;
  std::uint32_t max_;
  HostRequest cur_{};
  Tick at_ = 0;
  std::uint64_t lba_ = 0;
  std::uint32_t left_ = 0;
  std::uint64_t split_ = 0;
};

}  // namespace ssd::host
