// NVMe end to end (host.interface = nvme): one command's life through the PCIe link,
// checked to the picosecond from the link's and the NAND's timing equations; command
// arbitration's shares under saturation; interrupt coalescing; integrity. One model per
// test case (each case is its own process).
#include <catch2/catch.hpp>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include "sc_main/full_ssd.h"
#include "sc_main/sim_config.h"
#include "tlm/pcie_link.h"

using namespace ssd;

namespace {

FullSsd* run(const std::vector<std::string>& sets) {
  Config cfg = make_config();
  apply_preset(cfg, "default");
  cfg.set_assignment("report.warmup=fixed");
  cfg.set_assignment("host.interface=nvme");
  for (const std::string& s : sets) cfg.set_assignment(s);
  resolve_start_state(cfg);
  FullSsd* m = new FullSsd("ssd", cfg, nullptr, "", false, {});
  sc_core::sc_start();
  m->host->pool().check_all_returned();
  m->firmware->pool().check_all_returned();
  REQUIRE(m->host->errors().empty());
  REQUIRE(m->host->mismatches() == 0);
  return m;
}

// Free firmware, 400 MT/s NAND bus (2,500 ps a byte), 1,000 MHz scheduler decisions, a
// device of 64-block planes.
const std::vector<std::string> kFree = {
    "firmware.cycles_per_command=0", "firmware.cycles_per_page=0", "firmware.cycles_per_gc_page=0",
    "firmware.cycles_per_decision=0", "firmware.cycles_per_qsl_move=0", "firmware.cycles_per_whm_lookup=0",
    "controller.clock_mhz=1000", "nand.bus_mts=400", "nand.blocks_per_plane=64", "ftl.overprovisioning=0.1"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Gen3 x4, 64-bit addresses: a byte takes 253.90625 ps, a TLP 24 bytes more; each
// transfer's time is rounded up to the picosecond once.
constexpr Tick kDoorbell = 7110;   // MemWr of 4 bytes: 28 link bytes, 7,109.4 ps
constexpr Tick kRequest = 6094;    // MemRd request, no data: 24 link bytes, 6,093.75 ps
constexpr Tick kSqe = 22344;       // one 64-byte entry completed: 88 link bytes, 22,343.75 ps
constexpr Tick kCqe = 10157;       // a 16-byte completion entry: 40 link bytes, 10,156.25 ps
constexpr Tick kMsi = 7110;        // MSI-X MemWr of 4 bytes

}  // namespace

TEST_CASE("nvme: the link transfers by hand from the equations of tlm/pcie_link.h", "[nvme][timeline]") {
  const PcieLink l(PcieConfig{});
  CHECK(l.data_ps(4) == kDoorbell);
  CHECK(l.request_ps() == kRequest);
  CHECK(l.data_ps(64) == kSqe);
  CHECK(l.data_ps(16) == kCqe);
  CHECK(l.data_ps(4096) == 1137500);  // 16 TLPs of 256 bytes: 4,480 link bytes
}

TEST_CASE("nvme: one 4 KiB read through PCIe Gen3 x4 to the picosecond", "[nvme][timeline]") {
  FullSsd* m = run(with(kFree, {"ftl.precondition=1", "ftl.precondition_age=0", "workload.read_ratio=1",
                                "workload.queue_depth=1", "workload.requests=1"}));
  const LatencyHistogram& h = m->host->latency(HostOp::Read);
  REQUIRE(h.count() == 1);
  // Doorbell down, then the entry's read request up, then the entry down: in the front end.
  const Tick fw_in = kDoorbell + kRequest + kSqe;
  CHECK(fw_in == 35548);
  // The scheduler block decides at its next 1 ns edge (36,000 ps); then the NAND: 7 command
  // and address cycles, tR, the 8 KiB page out, at 2,500 ps a cycle.
  const Tick edge = (fw_in + 999) / 1000 * 1000;
  const Tick flash = 7 * 2500 + 75000000 + 8192 * 2500;
  // The data up (16 TLPs), its completion entry behind it, the MSI-X behind that: the
  // interrupt routine completes the command as the MSI-X lands.
  const Tick expect = edge + flash + 1137500 + kCqe + kMsi;
  CHECK(expect == 96688267);
  INFO("latency " << h.max() << " ps");
  CHECK(h.max() == expect);
  CHECK(h.min() == expect);
  const auto& n = m->nvme->counters();
  CHECK(n.sq_doorbells == 1);
  CHECK(n.cq_doorbells == 1);
  CHECK(n.interrupts == 1);
  CHECK(n.list_reads == 0);  // one page: PRP1 alone
}

TEST_CASE("nvme: one 128 KiB write through PCIe Gen3 x4 to the picosecond", "[nvme][timeline]") {
  FullSsd* m = run(with(kFree, {"ftl.precondition=0", "controller.write_cache=volatile", "workload.read_ratio=0",
                                "workload.size_bytes=131072", "workload.queue_depth=1", "workload.requests=1"}));
  const LatencyHistogram& h = m->host->latency(HostOp::Write);
  REQUIRE(h.count() == 1);
  // Doorbell, the entry (request up, entry down), then its PRP list: 32 pages are PRP1 and
  // a list of 31 entries, 248 bytes (request up, one 272-byte TLP down: 69,063 ps).
  const Tick list_in = kDoorbell + kRequest + kSqe + kRequest + 69063;
  CHECK(list_in == 110705);
  // The data: 256 read requests of 512 bytes go up; the first lands after 6,094 ps and
  // host memory answers it at once, so the completions start then: 512 TLPs of 256 bytes,
  // 143,360 link bytes, 36.4 us. The volatile write cache takes the data at once, the
  // completion entry and the MSI-X follow.
  const Tick data_in = list_in + kRequest + 36400000;
  const Tick expect = data_in + kCqe + kMsi;
  CHECK(expect == 36534066);
  INFO("latency " << h.max() << " ps");
  CHECK(h.max() == expect);
  CHECK(m->nvme->counters().list_reads == 1);
}

namespace {

// Fetched commands by class, and their total.
struct Shares {
  double of[4] = {};
  std::uint64_t total = 0;
};
Shares shares(const FullSsd& m) {
  Shares s;
  const auto& n = m.nvme->counters();
  for (unsigned k = 0; k < 4; ++k) s.total += n.fetched_by_class[k];
  for (unsigned k = 0; k < 4; ++k) s.of[k] = static_cast<double>(n.fetched_by_class[k]) / static_cast<double>(s.total);
  return s;
}

// Three queues kept full (the host holds 3 x 63 commands; the controller 4 at a time):
// every arbitration finds every queue waiting.
const std::vector<std::string> kSaturated = {
    "ftl.precondition=1", "ftl.precondition_age=0", "workload.read_ratio=1", "nvme.queues=3",
    "nvme.queue_depth=64", "workload.queue_depth=189", "nvme.command_slots=4", "workload.requests=14000"};

}  // namespace

TEST_CASE("nvme: weighted round robin gives saturated queues of weights 4:2:1 their shares", "[nvme][arbitration]") {
  // Queue 0 high (4), queue 1 medium (2), queue 2 low (1).
  FullSsd* m = run(with(kFree, with(kSaturated, {"nvme.arbitration=wrr", "nvme.high_queues=1", "nvme.low_queues=1",
                                                 "nvme.weight_high=4", "nvme.weight_medium=2", "nvme.weight_low=1"})));
  const Shares s = shares(*m);
  std::cout << "figure: wrr 4:2:1 shares high " << s.of[1] << " medium " << s.of[2] << " low " << s.of[3] << " of "
            << s.total << std::endl;
  REQUIRE(s.total == 14000);
  CHECK(std::abs(s.of[1] / (4.0 / 7) - 1) < 0.05);
  CHECK(std::abs(s.of[2] / (2.0 / 7) - 1) < 0.05);
  CHECK(std::abs(s.of[3] / (1.0 / 7) - 1) < 0.05);
  CHECK(m->nvme->backpressure_events() > 0);  // the controller's slots were the limit
}

TEST_CASE("nvme: weighted round robin keeps the 4:2:1 shares with bursts of 4 and few free slots", "[nvme][arbitration]") {
  // Each completion frees one slot: a grant fetches one command, and its class pays one.
  FullSsd* m = run(with(kFree, with(kSaturated, {"nvme.arbitration=wrr", "nvme.high_queues=1", "nvme.low_queues=1",
                                                 "nvme.weight_high=4", "nvme.weight_medium=2", "nvme.weight_low=1",
                                                 "nvme.arbitration_burst=4"})));
  const Shares s = shares(*m);
  std::cout << "figure: wrr 4:2:1 burst 4 shares high " << s.of[1] << " medium " << s.of[2] << " low " << s.of[3]
            << std::endl;
  CHECK(std::abs(s.of[1] / (4.0 / 7) - 1) < 0.05);
  CHECK(std::abs(s.of[2] / (2.0 / 7) - 1) < 0.05);
  CHECK(std::abs(s.of[3] / (1.0 / 7) - 1) < 0.05);
}

TEST_CASE("nvme: round robin serves saturated queues evenly", "[nvme][arbitration]") {
  FullSsd* m = run(with(kFree, with(kSaturated, {"nvme.arbitration=rr"})));
  const auto& n = m->nvme->counters();
  REQUIRE(n.fetched == 14000);
  // rr ignores classes: all are medium. Per queue: the completions each queue's host side saw.
  const Shares s = shares(*m);
  CHECK(s.of[2] == 1.0);
  const std::uint64_t q0 = m->nvme->fetched_of(0), q1 = m->nvme->fetched_of(1), q2 = m->nvme->fetched_of(2);
  std::cout << "figure: rr shares " << q0 << " " << q1 << " " << q2 << std::endl;
  for (const std::uint64_t q : {q0, q1, q2}) CHECK(std::abs(static_cast<double>(q) / (14000.0 / 3) - 1) < 0.05);
}

TEST_CASE("nvme: the urgent class is fetched before the weighted ones", "[nvme][arbitration]") {
  // Queue 0 urgent, queues 1 and 2 medium; the host keeps every queue full, so the urgent
  // queue always has entries waiting: the others are fetched only while it has none.
  FullSsd* m = run(with(kFree, with(kSaturated, {"nvme.arbitration=wrr", "nvme.urgent_queues=1"})));
  const Shares s = shares(*m);
  std::cout << "figure: urgent share " << s.of[0] << std::endl;
  const std::uint64_t q0 = m->nvme->fetched_of(0);
  // The medium queues are fetched only when the urgent queue has been drained below the
  // controller's free slots: at its first fill, and at the end of the workload.
  CHECK(s.of[0] > 0.95);
  CHECK(q0 == m->nvme->counters().fetched_by_class[0]);
}

TEST_CASE("nvme: a coalescing time delays a lone completion's interrupt by exactly that time", "[nvme][coalescing]") {
  FullSsd* m = run(with(kFree, {"ftl.precondition=1", "ftl.precondition_age=0", "workload.read_ratio=1",
                                "workload.queue_depth=1", "workload.requests=1", "nvme.irq_coalesce_count=4",
                                "nvme.irq_coalesce_us=50"}));
  // The 4 KiB read's timeline, the MSI-X sent 50 us after its completion entry landed.
  const Tick expect = 96688267 + 50000000;
  CHECK(m->host->latency(HostOp::Read).max() == expect);
  CHECK(m->nvme->counters().interrupts == 1);
}

TEST_CASE("nvme: a coalescing count gathers that many completions an interrupt", "[nvme][coalescing]") {
  // 8 commands outstanding and 4 a batch: each interrupt covers 4; the time limit (10 ms)
  // never runs out.
  FullSsd* m = run(with(kFree, {"ftl.precondition=1", "ftl.precondition_age=0", "workload.read_ratio=1",
                                "workload.queue_depth=8", "workload.requests=4000", "nvme.irq_coalesce_count=4",
                                "nvme.irq_coalesce_us=10000"}));
  const auto& n = m->nvme->counters();
  CHECK(n.completions == 4000);
  CHECK(n.interrupts == 1000);
  CHECK(n.cq_doorbells == 1000);  // one head doorbell an interrupt
}
