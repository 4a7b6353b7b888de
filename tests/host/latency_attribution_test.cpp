// LatencyAttribution (host/latency_attribution.h): a request's parts composed from its
// events, the check that catches a part out of order or a sum that misses, and the
// figures: a part's mean, its p99 with the requests that never had it counted as zeros,
// its share, and its mean over the tail (the p99's bucket and above).
#include <catch2/catch.hpp>

#include "host/latency_attribution.h"

using namespace ssd;
using namespace ssd::host;

namespace {
constexpr Tick us = kTicksPerUs;
PartTicks only(Part k, Tick v) {
  PartTicks p{};
  p[static_cast<unsigned>(k)] = v;
  return p;
}
}  // namespace

TEST_CASE("latency attribution: the host's events and the firmware's page parts compose the latency exactly",
          "[host][attribution]") {
  HostCommand c;
  c.t_submit = 10 * us;      // arrived
  c.t_dispatch = 12 * us;    // 2 us in the host queue
  c.t_tag = 15 * us;         // 3 us for a tag
  c.t_fw_in = 16 * us;       // 1 us of data over the link
  c.t_core_start = 20 * us;  // 4 us queued for the core
  c.t_processed = 21 * us;   // 1 us of core cycles
  c.t_fw_done = 121 * us;
  c.parts = only(Part::Array, 100 * us);  // the firmware's page parts: t_processed to t_fw_done
  PartTicks p;
  CHECK(LatencyAttribution::compose(c, 125 * us, p).empty());
  CHECK(p[static_cast<unsigned>(Part::HostQueue)] == 2 * us);
  CHECK(p[static_cast<unsigned>(Part::NcqWait)] == 3 * us);
  CHECK(p[static_cast<unsigned>(Part::HostLinkIn)] == 1 * us);
  CHECK(p[static_cast<unsigned>(Part::FirmwareQueue)] == 4 * us);
  CHECK(p[static_cast<unsigned>(Part::FirmwareBusy)] == 1 * us);
  CHECK(p[static_cast<unsigned>(Part::Array)] == 100 * us);
  CHECK(p[static_cast<unsigned>(Part::HostLinkOut)] == 4 * us);
  // A page part that misses by a picosecond, or an event out of order (a wrapped part):
  c.parts = only(Part::Array, 100 * us - 1);
  CHECK(LatencyAttribution::compose(c, 125 * us, p).find("sum to") != std::string::npos);
  c.parts = only(Part::Array, 100 * us);
  c.t_tag = 11 * us;  // before its dispatch
  CHECK(LatencyAttribution::compose(c, 125 * us, p).find("ncq_wait") != std::string::npos);
}

TEST_CASE("latency attribution: means, shares, p99 with zeros, and the tail's parts", "[host][attribution]") {
  LatencyAttribution a;
  // 99 reads of 100 us (all array), one of 1000 us (900 of them behind an erase).
  for (int i = 0; i < 99; ++i) a.record(0, 100 * us, only(Part::Array, 100 * us));
  PartTicks slow = only(Part::Array, 100 * us);
  slow[static_cast<unsigned>(Part::ConflictErase)] = 900 * us;
  a.record(0, 1000 * us, slow);
  const auto array = a.figures(0).parts[static_cast<unsigned>(Part::Array)];
  const auto erase = a.figures(0).parts[static_cast<unsigned>(Part::ConflictErase)];
  CHECK(array.mean_us == Approx(100.0));
  CHECK(erase.mean_us == Approx(9.0));
  CHECK(array.share + erase.share == Approx(1.0));
  CHECK(erase.share == Approx(900.0 / 10900.0));
  CHECK(erase.p99_us == 0.0);   // 99 of 100 requests had none: the p99 is a zero
  CHECK(array.p99_us >= 100.0);
  CHECK(array.p99_us == Approx(100.0).epsilon(1.0 / 32));  // rounded up to its bucket
  // The p99 (rank 99 of 100) is a 100 us request: the tail, its bucket and above, is
  // every request here.
  CHECK(a.figures(0).tail_count == 100);
  CHECK(a.figures(0).tail_mean_us == Approx(109.0));
  CHECK(erase.tail_us == Approx(9.0));
  // Writes: none yet; "all" merges both ops.
  CHECK(a.count(1) == 0);
  CHECK(a.figures(1).parts[static_cast<unsigned>(Part::Array)].mean_us == 0.0);
  a.record(1, 50 * us, only(Part::RmwRead, 50 * us));
  CHECK(a.count(2) == 101);
  CHECK(a.figures(2).parts[static_cast<unsigned>(Part::RmwRead)].mean_us == Approx(50.0 / 101));
}

TEST_CASE("latency attribution: the tail is the requests at or above the p99's bucket", "[host][attribution]") {
  LatencyAttribution a;
  for (int i = 0; i < 990; ++i) a.record(0, 100 * us, only(Part::Array, 100 * us));
  for (int i = 0; i < 10; ++i) a.record(0, 5000 * us, only(Part::WriteStall, 5000 * us));
  // rank 990 of 1000 is a 100 us request: the tail holds the 990 fast and 10 slow ones.
  CHECK(a.figures(0).tail_count == 1000);
  for (int i = 0; i < 10; ++i) a.record(0, 5000 * us, only(Part::WriteStall, 5000 * us));
  // rank 1000 of 1010 is a 5000 us one: the tail is the 20 slow requests, all write stall.
  CHECK(a.figures(0).tail_count == 20);
  CHECK(a.figures(0).tail_mean_us == Approx(5000.0));
  CHECK(a.figures(0).parts[static_cast<unsigned>(Part::WriteStall)].tail_us == Approx(5000.0));
  CHECK(a.figures(0).parts[static_cast<unsigned>(Part::Array)].tail_us == 0.0);
}
