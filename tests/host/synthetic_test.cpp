// The synthetic workload generator, plain C++.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "host/synthetic.h"

using namespace ssd;
using namespace ssd::host;

namespace {
SyntheticConfig base() {
  SyntheticConfig c;
  c.requests = 100000;
  c.capacity_sectors = 1ull << 27;  // 64 GiB
  c.seed = 7;
  return c;
}
}  // namespace

TEST_CASE("synthetic: fixed sizes aligned to themselves, inside the capacity, the read ratio", "[synthetic]") {
  SyntheticConfig c = base();
  c.size_bytes = 16384;
  SyntheticWorkload w(c);
  HostRequest r;
  Tick at;
  std::uint64_t reads = 0, n = 0;
  while (w.next(r, at)) {
    ++n;
    REQUIRE(r.sectors == 32);
    REQUIRE(r.lba % 32 == 0);
    REQUIRE(r.lba + r.sectors <= c.capacity_sectors);
    REQUIRE(at == 0);  // closed loop
    reads += r.op == HostOp::Read;
  }
  CHECK(n == c.requests);
  CHECK(static_cast<double>(reads) / n == Approx(0.7).margin(0.01));
}

TEST_CASE("synthetic: uniform sizes between the bounds in steps of the alignment", "[synthetic]") {
  SyntheticConfig c = base();
  c.size_bytes = 4096;
  c.size_max_bytes = 65536;
  c.align_bytes = 4096;
  SyntheticWorkload w(c);
  HostRequest r;
  Tick at;
  std::set<std::uint32_t> sizes;
  while (w.next(r, at)) {
    REQUIRE(r.sectors * 512 >= 4096);
    REQUIRE(r.sectors * 512 <= 65536);
    REQUIRE(r.sectors % 8 == 0);
    REQUIRE(r.lba % 8 == 0);
    sizes.insert(r.sectors);
  }
  CHECK(sizes.size() == 16);  // 4, 8, ..., 64 KiB all occur
}

TEST_CASE("synthetic: 512-byte alignment gives unaligned 4 KiB requests", "[synthetic]") {
  SyntheticConfig c = base();
  c.align_bytes = 512;
  SyntheticWorkload w(c);
  HostRequest r;
  Tick at;
  int unaligned = 0;
  while (w.next(r, at)) unaligned += r.lba % 8 != 0;
  CHECK(unaligned > 80000);  // 7 of 8 starts
}

TEST_CASE("synthetic: Zipf skew concentrates requests on few addresses", "[synthetic][zipf]") {
  auto top_share = [](double theta) {
    SyntheticConfig c = base();
    c.capacity_sectors = 8ull << 20;  // 1M 4 KiB slots
    c.zipf_theta = theta;
    SyntheticWorkload w(c);
    HostRequest r;
    Tick at;
    std::map<std::uint64_t, int> hits;
    while (w.next(r, at)) ++hits[r.lba];
    std::vector<int> counts;
    for (const auto& [lba, k] : hits) counts.push_back(k);
    std::sort(counts.rbegin(), counts.rend());
    int top = 0;
    for (std::size_t i = 0; i < counts.size() && i < 1000; ++i) top += counts[i];  // the hottest 0.1 %
    return std::make_pair(static_cast<double>(top) / 100000.0, hits.size());
  };
  const auto uniform = top_share(0.0), skewed = top_share(0.99);
  INFO("uniform top-0.1% share " << uniform.first << ", zipf " << skewed.first);
  CHECK(uniform.first < 0.05);
  CHECK(skewed.first > 0.40);
  CHECK(skewed.second < uniform.second / 2);
}

TEST_CASE("synthetic: open loop, Poisson arrivals at the rate, stopped by the duration", "[synthetic][rate]") {
  SyntheticConfig c = base();
  c.requests = 0;
  c.rate_iops = 50000;
  c.duration = us_to_ticks(2e6);  // 2 s
  SyntheticWorkload w(c);
  HostRequest r;
  Tick at, last = 0;
  std::uint64_t n = 0;
  while (w.next(r, at)) {
    REQUIRE(at >= last);
    REQUIRE(at < c.duration);
    last = at;
    ++n;
  }
  CHECK(static_cast<double>(n) == Approx(100000).epsilon(0.02));  // rate x duration
}

TEST_CASE("synthetic: the same seed gives the same requests, another seed others", "[synthetic]") {
  auto first = [](std::uint64_t seed) {
    SyntheticConfig c = base();
    c.seed = seed;
    c.zipf_theta = 0.8;
    SyntheticWorkload w(c);
    HostRequest r;
    Tick at;
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 100 && w.next(r, at); ++i) v.push_back(r.lba * 2 + (r.op == HostOp::Read));
    return v;
  };
  CHECK(first(1) == first(1));
  CHECK(first(1) != first(2));
}


TEST_CASE("synthetic: FUA writes take a draw of their own after the write's, none without them", "[synthetic][fua]") {
  SyntheticConfig plain = base();
  plain.requests = 20000;
  plain.read_ratio = 0.5;
  SyntheticConfig fua = plain;
  fua.fua_ratio = 0.25;
  SyntheticWorkload a(plain), b(fua);
  HostRequest ra, rb;
  Tick ta, tb;
  std::uint64_t writes = 0, fuas = 0, same = 0;
  // The first request draws alike; after the first write the streams part (its extra draw).
  bool parted = false;
  while (a.next(ra, ta)) {
    REQUIRE(b.next(rb, tb));
    CHECK_FALSE(ra.fua);
    if (!parted) {
      CHECK(rb.lba == ra.lba);
      CHECK(rb.op == ra.op);
      ++same;
    }
    if (rb.op == HostOp::Write) {
      ++writes;
      fuas += rb.fua;
      parted = true;
    } else {
      CHECK_FALSE(rb.fua);
    }
  }
  CHECK(same >= 1);
  CHECK(static_cast<double>(fuas) / static_cast<double>(writes) == Approx(0.25).margin(0.02));
}

TEST_CASE("synthetic: trims take their share from the writes' draws, flushes take no draw", "[synthetic][trim]") {
  SyntheticConfig plain = base();
  plain.requests = 20000;
  plain.read_ratio = 0.5;
  SyntheticConfig mixed = plain;
  mixed.trim_ratio = 0.2;
  mixed.flush_every = 7;
  SyntheticWorkload a(plain), b(mixed);
  HostRequest ra, rb;
  Tick ta, tb;
  std::uint64_t trims = 0, writes = 0, flushes = 0, writes_since_flush = 0;
  while (a.next(ra, ta)) {
    REQUIRE(b.next(rb, tb));
    // A flush follows every 7th write, at its arrival, with no sectors.
    while (rb.op == HostOp::Flush) {
      ++flushes;
      CHECK(writes_since_flush == 7);
      CHECK(rb.sectors == 0);
      writes_since_flush = 0;
      REQUIRE(b.next(rb, tb));
    }
    // The same draws: the same address and size; a read where the plain one reads, and
    // a write of the plain run a trim or a write.
    CHECK(rb.lba == ra.lba);
    CHECK(rb.sectors == ra.sectors);
    CHECK((rb.op == HostOp::Read) == (ra.op == HostOp::Read));
    trims += rb.op == HostOp::Trim;
    if (rb.op == HostOp::Write) {
      ++writes;
      ++writes_since_flush;
    }
  }
  if (writes_since_flush == 7) {  // the last write's flush comes after the last request
    REQUIRE(b.next(rb, tb));
    CHECK(rb.op == HostOp::Flush);
    ++flushes;
  }
  CHECK_FALSE(b.next(rb, tb));
  CHECK(static_cast<double>(trims) / plain.requests == Approx(0.2).margin(0.01));
  CHECK(flushes == writes / 7);
}
