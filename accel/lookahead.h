// The lookahead: what the model knows of a request before it needs it, used for speed
// only. The host reads each request from its workload some time before the firmware
// looks its pages up; the tables the lookups read are far larger than the processor's
// caches, so the lines they will read are fetched meanwhile:
//  - at each request drawn by the host (host::RequestListener): the lines of its pages'
//    entries in the host's integrity shadow, and (host.lookahead) those of the
//    firmware's mapping and of the preconditioned image that process() will read
//    (HostSplitter::pages_looked_up, Ftl::map_entry, SteadyImage::l2p_reads);
//  - at each program the firmware issues (ctrl::FirmwareListener): the mapping line it
//    will change at its end and the valid bit it will clear;
//  - with a preconditioned image, a machine of two cores or more and
//    host.lookahead_thread: a thread (lookahead_worker.h) reads a replica of the
//    workload (replica_stream.h), at most 512 requests ahead of the host, and computes
//    the image's lookups of those pages (and the owners of the GC copies the firmware
//    issues) into a table (image_results.h) that the image's lookups ask first.
// None of it changes a result: a build without accel/ (cmake -DSSD_ACCEL=OFF) gives
// the same stats.json, request log and waveforms (tests/cli_same_builds.sh).
#pragma once

#include <cstdint>
#include <memory>

#include "accel/image_results.h"
#include "accel/lookahead_worker.h"
#include "accel/replica_stream.h"
#include "controller/firmware_core.h"
#include "host/host_driver.h"

namespace ssd::accel {

struct LookaheadConfig {
  bool hints = true;         // host.lookahead: the firmware's lines fetched at each request drawn
  bool thread = true;        // host.lookahead_thread (with hints; auto decided by the caller): the worker thread
  std::uint64_t window = 512;  // the worker at most this many requests ahead of the host
};

class Lookahead final : public host::RequestListener, public ctrl::FirmwareListener {
 public:
  // Listens to `host` and `firmware` (both must outlive it). `replica`: the host's
  // workload read again from its start (RequestSource::reopen()), null if it cannot be.
  Lookahead(host::HostDriver& host, ctrl::FirmwareCore& firmware, std::unique_ptr<host::RequestSource> replica,
            const LookaheadConfig& cfg);
  ~Lookahead() override;
  Lookahead(const Lookahead&) = delete;
  Lookahead& operator=(const Lookahead&) = delete;

  // At the start of simulation (after preconditioning): starts the thread if it can run
  // (a replica, a preconditioned image, a second core).
  void start();
  // The host's last request has completed: the thread has nothing more to read.
  void end_of_workload() {
    if (progress_) progress_->cancelled.store(true, std::memory_order_relaxed);
  }
  std::uint64_t hints() const { return hints_; }  // requests whose lookups were announced
  std::uint64_t thread_requests() const { return worker_ ? worker_->requests() : 0; }
  bool thread_running() const { return worker_ != nullptr; }
  // The table the thread fills, null while it does not run.
  const ImageResultTable* results() const { return results_.get(); }

  void drawn(const host::HostRequest& r) override;
  void program_issued(std::uint64_t lpn, std::uint32_t replaces) override;
  // The page's owner, asked at the read's end: for a page still the image's computed
  // meanwhile by the thread, else its P2L entry's line fetched.
  void copy_read_issued(std::uint32_t ppa) override;

 private:
  host::HostDriver& host_;
  ctrl::FirmwareCore& firmware_;
  std::unique_ptr<host::RequestSource> replica_;
  LookaheadConfig cfg_;
  std::uint32_t spp_;
  std::uint64_t hints_ = 0;
  std::uint64_t drawn_ = 0;
  std::unique_ptr<ImageResultTable> results_;          // the image's lookups the thread computed
  std::shared_ptr<ReplicaStream::Progress> progress_;  // shared with the worker's stream
  std::unique_ptr<LookaheadWorker> worker_;            // last: its thread stops first
};

}  // namespace ssd::accel
