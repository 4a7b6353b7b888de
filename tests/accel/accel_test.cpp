// accel/: the speed-only mechanisms, plain C++ (no kernel). Their effect on whole runs,
// none, is checked by comparing builds (tests/cli_same_builds.sh) and settings
// (host.lookahead, host.lookahead_thread).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "accel/cpu_share.h"
#include "accel/lookahead_worker.h"
#include "accel/replica_stream.h"
#include "host/synthetic.h"

using namespace ssd;
using namespace ssd::accel;
using host::HostRequest;
using host::SyntheticConfig;
using host::SyntheticSource;

namespace {
SyntheticConfig base() {
  SyntheticConfig c;
  c.requests = 100;
  c.capacity_sectors = 1ull << 27;  // 64 GiB
  c.seed = 7;
  return c;
}
}  // namespace

// The lookahead thread (accel/lookahead_worker.h), without the kernel.
namespace {
struct FakeStream : RequestStream {
  // Requests 0..n-1 (lba = index), with an Ahead answer before every fourth; then End,
  // or Ahead for ever.
  FakeStream(std::uint64_t n, bool end) : n_(n), end_(end) {}
  Next next(HostOp& op, std::uint64_t& lba, std::uint32_t& sectors) override {
    if (cancelled_.load()) return Next::End;
    if (i_ == n_) return end_ ? Next::End : Next::Ahead;
    if (i_ % 4 == 0 && !paused_) {
      paused_ = true;
      return Next::Ahead;
    }
    paused_ = false;
    op = HostOp::Read;
    lba = i_++;
    sectors = 8;
    return Next::Request;
  }
  void cancel() override { cancelled_.store(true); }
  std::uint64_t n_, i_ = 0;
  bool end_, paused_ = false;
  std::atomic<bool> cancelled_{false};
};
template <typename F>
bool eventually(F&& f) {  // within 10 s
  for (int i = 0; i < 100000 && !f(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
  return f();
}
}  // namespace

TEST_CASE("accel: the lookahead worker gives the stream's requests in order, and what the simulation posts, on its own thread",
          "[accel][lookahead]") {
  for (bool end : {true, false}) {
    INFO("stream ends: " << end);
    std::vector<std::uint64_t> seen, side;
    {
      LookaheadWorker w(
          std::make_unique<FakeStream>(1000, end),
          [&](HostOp op, std::uint64_t lba, std::uint32_t sectors) {
            REQUIRE(op == HostOp::Read);
            REQUIRE(sectors == 8);
            seen.push_back(lba);
          },
          [&](std::uint64_t v) { side.push_back(v); });
      for (std::uint64_t v = 1; v <= 5000; ++v) {
        w.post(v);  // more than the queue holds, in steps it does
        if (v % 1000 == 0) REQUIRE(eventually([&] { return w.side_values() == v; }));
      }
      REQUIRE(eventually([&] { return w.requests() == 1000; }));
    }  // joins, whether the stream has ended or still answers Ahead
    REQUIRE(seen.size() == 1000);
    for (std::uint64_t i = 0; i < seen.size(); ++i) REQUIRE(seen[i] == i);
    REQUIRE(side.size() == 5000);
    for (std::size_t i = 0; i < side.size(); ++i) REQUIRE(side[i] == i + 1);
  }
}

// The replica of the workload that the lookahead thread reads (accel/replica_stream.h).
TEST_CASE("accel: the replica stream gives the host's requests in order, at most a window ahead, skipping what the host has read",
          "[accel][lookahead]") {
  SyntheticConfig c = base();
  c.requests = 100;
  SyntheticSource host_src(c);
  std::vector<HostRequest> all;
  {
    HostRequest r;
    Tick at;
    while (host_src.next(r, at)) all.push_back(r);
  }
  REQUIRE(all.size() == 100);
  auto progress = std::make_shared<ReplicaStream::Progress>();
  ReplicaStream s(SyntheticSource(c).reopen(), progress, 8);
  HostOp op;
  std::uint64_t lba;
  std::uint32_t sectors;
  auto expect = [&](std::size_t i) {
    REQUIRE(s.next(op, lba, sectors) == RequestStream::Next::Request);
    REQUIRE(op == all[i].op);
    REQUIRE(lba == all[i].lba);
    REQUIRE(sectors == all[i].sectors);
  };
  for (std::size_t i = 0; i < 8; ++i) expect(i);       // a window ahead of a host that read none
  CHECK(s.next(op, lba, sectors) == RequestStream::Next::Ahead);
  progress->read = 3;  // the host is not yet within half the window
  CHECK(s.next(op, lba, sectors) == RequestStream::Next::Ahead);
  progress->read = 5;  // now it is: the replica goes on to a window ahead again
  for (std::size_t i = 8; i < 13; ++i) expect(i);
  CHECK(s.next(op, lba, sectors) == RequestStream::Next::Ahead);
  progress->read = 40;  // the host has overtaken it: what it has read is skipped
  expect(40);
  for (std::size_t i = 41; i < 48; ++i) expect(i);
  CHECK(s.next(op, lba, sectors) == RequestStream::Next::Ahead);
  progress->read = 95;
  for (std::size_t i = 95; i < 100; ++i) expect(i);
  CHECK(s.next(op, lba, sectors) == RequestStream::Next::End);  // the end of the workload

  ReplicaStream t(SyntheticSource(c).reopen(), progress, 8);
  progress->read = 0;
  progress->cancelled = false;
  REQUIRE(t.next(op, lba, sectors) == RequestStream::Next::Request);
  t.cancel();
  CHECK(progress->cancelled);
  CHECK(t.next(op, lba, sectors) == RequestStream::Next::End);
}

TEST_CASE("accel: the lookahead thread's auto rule wants two CPUs allowed and 1.5 of the machine's idle",
          "[accel][cpu]") {
  // allowed, online, load
  CHECK(second_core_free(CpuShare{2, 2, 0.0}));
  CHECK(second_core_free(CpuShare{2, 2, 0.5}));
  CHECK_FALSE(second_core_free(CpuShare{2, 2, 0.6}));   // 1.4 idle: the thread would share a core
  CHECK_FALSE(second_core_free(CpuShare{1, 8, 0.0}));   // pinned to one CPU (taskset)
  CHECK_FALSE(second_core_free(CpuShare{2, 2, 2.0}));   // a parallel test run
  CHECK(second_core_free(CpuShare{2, 16, 10.0}));       // a big machine, busy but with cores to spare
  CHECK_FALSE(second_core_free(CpuShare{4, 16, 15.0}));
  // What this machine says: sane values, whatever the decision.
  const CpuShare here = read_cpu_share();
  CHECK(here.allowed >= 1);
  CHECK(here.online >= 1);
  CHECK(here.load >= 0);
}
