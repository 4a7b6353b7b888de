// The PCIe link's timing (tlm/pcie_link.h) and NVMe interrupt coalescing
// (controller/interrupt_coalescer.h), computed by hand.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "controller/interrupt_coalescer.h"
#include "tlm/pcie_link.h"

using namespace ssd;
using ssd::ctrl::InterruptCoalescer;

TEST_CASE("pcie: Gen3 x4 moves a byte in 253.90625 ps, a TLP costs 24 bytes more", "[pcie][nvme]") {
  const PcieLink l(PcieConfig{});  // Gen3 x4, 256-byte payloads, 64-bit addresses
  // 4 lanes x 8 GT/s x 128/130 / 8 bits = 3.9385 bytes a ns: 130,000 / 512 ps a byte.
  CHECK(l.bytes_per_ns() == Approx(4.0 * 8.0 * 128.0 / 130.0 / 8.0));
  CHECK(l.overhead() == 24);  // STP 4 + 4-doubleword header 16 + LCRC 4
  CHECK(l.time_ps(512) == 130000);
  // A 4 KiB read's data: 16 TLPs of 256 bytes, 4,096 + 16 x 24 = 4,480 bytes: 1,137,500 ps.
  CHECK(l.tlps(4096) == 16);
  CHECK(l.link_bytes(4096) == 4480);
  CHECK(l.data_ps(4096) == 1137500);
  // 128 KiB: 512 TLPs, 131,072 + 12,288 = 143,360 bytes: 36.4 us.
  CHECK(l.data_ps(128 * 1024) == 36400000);
  // A partial last TLP: 300 bytes are 2 TLPs, 348 bytes: 88,359.375 ps, rounded up.
  CHECK(l.data_ps(300) == 88360);
  // A request without data (a memory read request): one 24-byte TLP, 6,093.75 ps.
  CHECK(l.request_ps() == 6094);
  CHECK(l.data_ps(0) == 0);
}

TEST_CASE("pcie: each generation's rate and encoding, lanes, headers", "[pcie][nvme]") {
  PcieConfig c;
  c.generation = 1;
  c.lanes = 1;
  // 2.5 GT/s x 8/10 / 8 = 0.25 bytes a ns: 4,000 ps a byte. A 64-byte command fetched: 88 bytes.
  CHECK(PcieLink(c).data_ps(64) == 352000);
  c.generation = 2;
  CHECK(PcieLink(c).time_ps(1) == 2000);
  c.generation = 5;
  c.lanes = 16;  // 32 GT/s x 128/130 x 16 / 8: 130,000 / 8,192 ps a byte
  CHECK(PcieLink(c).time_ps(8192) == 130000);
  c.generation = 4;
  c.lanes = 8;
  c.address64 = false;  // 3-doubleword headers: 20 bytes a TLP
  c.max_payload = 512;
  const PcieLink l(c);
  CHECK(l.overhead() == 20);
  CHECK(l.link_bytes(4096) == 4096 + 8 * 20);
  // 16 GT/s x 128/130 x 8 lanes / 8 bits: 130,000 / 2,048 ps a byte.
  CHECK(l.time_ps(2048) == 130000);
}

TEST_CASE("pcie: a generation, lane count or payload out of range is refused, naming it", "[pcie][nvme]") {
  PcieConfig c;
  c.generation = 6;
  CHECK_THROWS_WITH(PcieLink(c), Catch::Contains("generation 6"));
  c = PcieConfig{};
  c.lanes = 3;
  CHECK_THROWS_WITH(PcieLink(c), Catch::Contains("lanes 3"));
  c = PcieConfig{};
  c.max_payload = 100;
  CHECK_THROWS_WITH(PcieLink(c), Catch::Contains("payload 100"));
}

TEST_CASE("nvme interrupts: coalesced by count, or by time from the first completion", "[nvme][interrupts]") {
  constexpr std::uint64_t us = 1000000;
  InterruptCoalescer ic(4, 100 * us);
  CHECK(ic.deadline() == InterruptCoalescer::kNever);
  CHECK_FALSE(ic.completion(0));
  CHECK(ic.deadline() == 100 * us);
  CHECK_FALSE(ic.completion(10 * us));
  CHECK_FALSE(ic.completion(20 * us));
  CHECK(ic.completion(30 * us));  // the fourth: one interrupt for four
  CHECK(ic.last_batch() == 4);
  CHECK(ic.interrupts() == 1);
  CHECK(ic.deadline() == InterruptCoalescer::kNever);
  // Two completions, then the time limit from the first: 100 us after 200 us.
  CHECK_FALSE(ic.completion(200 * us));
  CHECK_FALSE(ic.completion(250 * us));
  CHECK(ic.deadline() == 300 * us);
  CHECK_FALSE(ic.timer(299 * us));
  CHECK(ic.timer(300 * us));
  CHECK(ic.last_batch() == 2);
  CHECK_FALSE(ic.timer(400 * us));  // nothing pending
  CHECK(ic.interrupts() == 2);
}

TEST_CASE("nvme interrupts: without coalescing each completion interrupts and a count alone has no deadline",
          "[nvme][interrupts]") {
  InterruptCoalescer off(0, 0), one(1, 500);
  for (std::uint64_t t = 0; t < 5; ++t) {
    CHECK(off.completion(t));
    CHECK(one.completion(t));
  }
  CHECK(off.interrupts() == 5);
  InterruptCoalescer count(3, 0);
  CHECK_FALSE(count.completion(0));
  CHECK(count.deadline() == InterruptCoalescer::kNever);
  CHECK_FALSE(count.timer(1000000000));
  CHECK_FALSE(count.completion(5));
  CHECK(count.completion(7));
  CHECK(count.last_batch() == 3);
}
