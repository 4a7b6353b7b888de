// The host's workload to come, for the lookahead worker (lookahead.h): a replica of the
// host's source (RequestSource::reopen()), never more than `window` requests ahead of
// what the host has read. Once that far ahead it answers Ahead until the host is within
// half the window; requests the host has read already are skipped. The simulation's
// side publishes how many requests the host has read through the shared Progress, and
// cancels it when it is done. Reading the replica changes nothing in the simulation.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "host/request_source.h"
#include "accel/request_stream.h"

namespace ssd::accel {

using host::HostRequest;
using host::RequestSource;

class ReplicaStream final : public RequestStream {
 public:
  struct Progress {
    std::atomic<std::uint64_t> read{0};  // requests the host has read from its source
    std::atomic<bool> cancelled{false};
  };
  ReplicaStream(std::unique_ptr<RequestSource> replica, std::shared_ptr<Progress> progress, std::uint64_t window)
      : src_(std::move(replica)), progress_(std::move(progress)), window_(window < 2 ? 2 : window) {}

  Next next(HostOp& op, std::uint64_t& lba, std::uint32_t& sectors) override {
    for (;;) {
      if (progress_->cancelled.load(std::memory_order_relaxed)) return Next::End;
      // Once a window ahead, wait until the host is within half of it. The host's count
      // is read again only when the replica may be that far ahead by it (the line is the
      // host's, written at every request).
      const auto ahead = [this] { return given_ >= host_ + (waiting_ ? window_ / 2 : window_); };
      if (ahead()) {
        host_ = progress_->read.load(std::memory_order_relaxed);
        if (ahead()) {
          waiting_ = true;
          return Next::Ahead;
        }
      }
      waiting_ = false;
      HostRequest r;
      Tick arrival;
      try {
        if (!src_->next(r, arrival)) return Next::End;
      } catch (const host::InputError&) {
        return Next::End;  // the host meets the same error and reports it
      }
      if (++given_ <= host_) continue;  // the host has it already
      op = r.op;
      lba = r.lba;
      sectors = r.sectors;
      return Next::Request;
    }
  }
  void cancel() override { progress_->cancelled.store(true, std::memory_order_relaxed); }

 private:
  std::unique_ptr<RequestSource> src_;
  std::shared_ptr<Progress> progress_;
  std::uint64_t window_;
  std::uint64_t given_ = 0;  // requests read from the replica
  std::uint64_t host_ = 0;   // the host's count, as last read
  bool waiting_ = false;
};

}  // namespace ssd::accel
