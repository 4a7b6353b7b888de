// The controller end to end (host -> NCQ -> firmware FTL -> scheduler block -> NAND),
// checked against figures computed from the configuration. One model per test case
// (each case is its own process: SystemC elaborates once per process).
#include <catch2/catch.hpp>

#include <cmath>
#include <deque>
#include <map>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include "sc_main/full_ssd.h"
#include "sc_main/start_pilot.h"
#include "sc_main/sim_config.h"
#include "tlm/illegal_phase.h"
#include "tlm/payload_pool.h"

using namespace ssd;

namespace {

struct Result {
  const host::HostDriver* host;
  const ctrl::FirmwareCore* fw;
  const nand::NandDevice* nand;
  double sim_s;
  double mb_s(HostOp op) const { return static_cast<double>(host->bytes(op)) / 1e6 / sim_s; }
};

// Builds the model from a preset and --set style assignments (it lives to the end of the
// process, like any SystemC module).
// `policies`: the firmware's own, instead of the configuration's.
FullSsd* build(const std::string& preset, const std::vector<std::string>& sets, FullSsd::Policies policies = {}) {
  Config cfg = make_config();
  apply_preset(cfg, preset);
  // The figures here are timing equations over the whole run: no warm-up unless a test
  // asks for one.
  cfg.set_assignment("report.warmup=fixed");
  for (const std::string& s : sets) cfg.set_assignment(s);
  resolve_start_state(cfg);  // ftl.precondition_free = auto: the pilot, as ssdsim runs it
  return new FullSsd("ssd", cfg, nullptr, "", false, std::move(policies));
}

// Builds the model and runs it.
Result run(FullSsd*& keep, const std::string& preset, const std::vector<std::string>& sets) {
  keep = build(preset, sets);
  sc_core::sc_start();
  keep->host->pool().check_all_returned();
  keep->firmware->pool().check_all_returned();
  REQUIRE(keep->host->errors().empty());
  REQUIRE(keep->host->mismatches() == 0);
  return Result{keep->host.get(), keep->firmware.get(), keep->nand.get(),
                static_cast<double>(keep->host->last_completion()) / 1e12};
}

const std::vector<std::string> kFree = {  // free firmware, unlimited link, 1000 MHz decisions
    "firmware.cycles_per_command=0", "firmware.cycles_per_page=0", "firmware.cycles_per_gc_page=0",
    "firmware.cycles_per_decision=0", "firmware.cycles_per_qsl_move=0", "firmware.cycles_per_whm_lookup=0",
    "host.link_mb_s=0", "controller.clock_mhz=1000"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

double us(std::uint64_t ps) { return static_cast<double>(ps) / 1e6; }

}  // namespace

TEST_CASE("e2e: isolated 4 KiB reads on a full device take 7 cycles + tR + page data-out", "[e2e][check1]") {
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.blocks_per_plane=64", "ftl.overprovisioning=0.1",
                                            "ftl.precondition=1", "ftl.precondition_age=0",
                                            "workload.read_ratio=1", "workload.queue_depth=1",
                                            "workload.requests=3000"}));
  const nand::NandConfig& n = r.nand->config();
  const double expect = n.cmd_addr_cycles / n.bus_mts + n.t_read_us + n.page_bytes / n.bus_mts;
  const LatencyHistogram& h = r.host->latency(HostOp::Read);
  REQUIRE(h.count() == 3000);
  std::cout << "figure: " << "mean " << us(static_cast<std::uint64_t>(h.mean())) << " us, max " << us(h.max()) << " us, expected " << expect << std::endl;
  INFO("mean " << us(static_cast<std::uint64_t>(h.mean())) << " us, max " << us(h.max()) << " us, expected " << expect);
  CHECK(std::abs(h.mean() / 1e6 - expect) <= 0.010);  // within 10 ns
  CHECK(std::abs(us(h.max()) - expect) <= 0.010);
  CHECK(r.fw->counters().flash_reads == 3000);  // every read went to flash
}

TEST_CASE("e2e: partial-page reads move only their codewords: 7 cycles + tR + the codewords' bytes", "[e2e][check1][partial]") {
  // 8 KiB pages; 1 KiB reads at 512-byte alignment, 2 KiB codewords: a read inside one
  // codeword moves 2 KiB, one across two moves 4 KiB; tR stays the page's.
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.blocks_per_plane=64", "ftl.overprovisioning=0.1",
                                            "ftl.precondition=1", "ftl.precondition_age=0",
                                            "controller.read_unit_bytes=2048", "workload.size_bytes=1024",
                                            "workload.align_bytes=512", "workload.read_ratio=1",
                                            "workload.queue_depth=1", "workload.requests=3000"}));
  const nand::NandConfig& n = r.nand->config();
  const double one = n.cmd_addr_cycles / n.bus_mts + n.t_read_us + 2048 / n.bus_mts;
  const double two = n.cmd_addr_cycles / n.bus_mts + n.t_read_us + 4096 / n.bus_mts;
  const LatencyHistogram& h = r.host->latency(HostOp::Read);
  REQUIRE(h.count() == 3000);
  INFO("min " << us(h.min()) << " us, max " << us(h.max()) << " us, expected " << one << " and " << two);
  CHECK(std::abs(us(h.min()) - one) <= 0.010);
  CHECK(std::abs(us(h.max()) - two) <= 0.010);
  // Of a codeword's 4 sector starts, the last (1 of 4) straddles two codewords.
  const double mean = us(static_cast<std::uint64_t>(h.mean()));
  CHECK(mean > one + 0.15 * (two - one));
  CHECK(mean < one + 0.35 * (two - one));
  CHECK(r.fw->counters().flash_reads >= 3000);  // a read from a page's last sector reads two pages
}

TEST_CASE("e2e: isolated 4 KiB writes on a fresh device take 7 cycles + page data-in + tPROG", "[e2e][check1]") {
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.blocks_per_plane=64", "nand.page_bytes=4096",
                                            "ftl.overprovisioning=0.1", "ftl.precondition=0", "workload.read_ratio=0",
                                            "workload.queue_depth=1", "workload.requests=3000"}));
  const nand::NandConfig& n = r.nand->config();
  const double expect = n.cmd_addr_cycles / n.bus_mts + n.page_bytes / n.bus_mts + n.t_prog_us;
  const LatencyHistogram& h = r.host->latency(HostOp::Write);
  REQUIRE(h.count() == 3000);
  std::cout << "figure: " << "mean " << h.mean() / 1e6 << " us, max " << us(h.max()) << " us, expected " << expect << std::endl;
  INFO("mean " << h.mean() / 1e6 << " us, max " << us(h.max()) << " us, expected " << expect);
  CHECK(std::abs(h.mean() / 1e6 - expect) <= 0.010);
  CHECK(std::abs(us(h.max()) - expect) <= 0.010);
}

TEST_CASE("e2e: sequential 4 KiB writes at deep queue on Chen's device reach the bus bound", "[e2e][check2]") {
  FullSsd* m;
  Result r = run(m, "delay", with(kFree, {"nand.blocks_per_plane=64", "ftl.overprovisioning=0.1",
                                          "ftl.precondition=0", "controller.ncq_depth=512", "workload.queue_depth=512",
                                          "workload.read_ratio=0", "workload.pattern=sequential",
                                          "workload.requests=40000"}));
  const nand::NandConfig& n = r.nand->config();
  // Each channel's bus carries one page per (7 + page_bytes) cycles: 16 x 38 x 4096 / 4103 MB/s.
  const double bound = n.channels * n.bus_mts * n.page_bytes / (n.page_bytes + n.cmd_addr_cycles);
  std::cout << "figure: " << "write " << r.mb_s(HostOp::Write) << " MB/s, bus bound " << bound << std::endl;
  INFO("write " << r.mb_s(HostOp::Write) << " MB/s, bus bound " << bound);
  CHECK(r.mb_s(HostOp::Write) == Approx(bound).epsilon(0.01));
}

TEST_CASE("e2e: one plane behind a 10 MT/s bus, writes without cache program: 4096/(0.7 + 409.6 + 500) MB/s", "[e2e][check3]") {
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.channels=1", "nand.chips_per_channel=1", "nand.dies_per_chip=1",
                                            "nand.planes_per_die=1", "nand.blocks_per_plane=64", "nand.pages_per_block=64",
                                            "nand.page_bytes=4096", "nand.bus_mts=10", "nand.t_prog_us=500",
                                            "nand.cache_program=false", "ftl.overprovisioning=0.1", "ftl.precondition=0",
                                            "workload.read_ratio=0", "workload.pattern=sequential",
                                            "workload.queue_depth=8", "workload.requests=1000"}));
  const nand::NandConfig& n = r.nand->config();
  const double per_page_us = n.cmd_addr_cycles / n.bus_mts + n.page_bytes / n.bus_mts + n.t_prog_us;
  std::cout << "figure: " << "write " << r.mb_s(HostOp::Write) << " MB/s" << std::endl;
  INFO("write " << r.mb_s(HostOp::Write) << " MB/s");
  CHECK(r.mb_s(HostOp::Write) == Approx(n.page_bytes / per_page_us).epsilon(0.01));
}

TEST_CASE("e2e: one plane behind a 10 MT/s bus, writes with cache program: 4096/500 MB/s", "[e2e][check3]") {
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.channels=1", "nand.chips_per_channel=1", "nand.dies_per_chip=1",
                                            "nand.planes_per_die=1", "nand.blocks_per_plane=64", "nand.pages_per_block=64",
                                            "nand.page_bytes=4096", "nand.bus_mts=10", "nand.t_prog_us=500",
                                            "nand.cache_program=true", "ftl.overprovisioning=0.1", "ftl.precondition=0",
                                            "workload.read_ratio=0", "workload.pattern=sequential",
                                            "workload.queue_depth=8", "workload.requests=1000"}));
  const nand::NandConfig& n = r.nand->config();
  std::cout << "figure: " << "write " << r.mb_s(HostOp::Write) << " MB/s" << std::endl;
  INFO("write " << r.mb_s(HostOp::Write) << " MB/s");
  CHECK(r.mb_s(HostOp::Write) == Approx(n.page_bytes / n.t_prog_us).epsilon(0.01));
}

TEST_CASE("e2e: random 4 KiB reads at QD 64 on one 38 MB/s channel of 4 chips reach the bus bound", "[e2e][check4]") {
  FullSsd* m;
  Result r = run(m, "delay", with(kFree, {"nand.channels=1", "nand.chips_per_channel=4", "nand.blocks_per_plane=64",
                                          "ftl.overprovisioning=0.1", "ftl.precondition=1", "ftl.precondition_age=0",
                                          "controller.ncq_depth=64", "workload.queue_depth=64",
                                          "workload.read_ratio=1", "workload.requests=20000"}));
  const nand::NandConfig& n = r.nand->config();
  const double bound = n.bus_mts * n.page_bytes / (n.page_bytes + n.cmd_addr_cycles);
  std::cout << "figure: " << "read " << r.mb_s(HostOp::Read) << " MB/s, bus bound " << bound << std::endl;
  INFO("read " << r.mb_s(HostOp::Read) << " MB/s, bus bound " << bound);
  CHECK(r.mb_s(HostOp::Read) == Approx(bound).epsilon(0.02));
}

TEST_CASE("e2e: a 90 % full small device under random 50/50 load runs GC and loses nothing", "[e2e][check5][gc][integrity]") {
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.channels=4", "nand.chips_per_channel=2", "nand.blocks_per_plane=64",
                                            "nand.pages_per_block=64", "nand.page_bytes=4096",
                                            "ftl.overprovisioning=0.1", "ftl.precondition=0.9", "ftl.precondition_age=1",
                                            "workload.read_ratio=0.5", "workload.queue_depth=32",
                                            "workload.requests=300000"}));
  const ctrl::Ftl& ftl = r.fw->ftl();
  std::cout << "figure: " << "gc erases " << ftl.gc_erases() << ", WA " << ftl.write_amplification() << ", reads checked "
       << r.host->reads_checked() << std::endl;
  INFO("gc erases " << ftl.gc_erases() << ", WA " << ftl.write_amplification() << ", reads checked "
       << r.host->reads_checked());
  CHECK(ftl.gc_erases() > 0);
  CHECK(ftl.write_amplification() > 1.0);
  CHECK(r.host->reads_checked() >= 100000);
  CHECK(r.host->mismatches() == 0);
  CHECK(r.nand->totals().protocol_errors == 0);
  CHECK(r.host->shadow().dense());  // the integrity shadow moved from its map to its array mid-run
}

TEST_CASE("e2e: with a 1 MHz controller clock, commands are issued on clock edges only", "[e2e][scheduler][clock]") {
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"controller.clock_mhz=1", "nand.blocks_per_plane=64",
                                            "ftl.overprovisioning=0.1", "ftl.precondition=1",
                                            "ftl.precondition_age=0", "workload.read_ratio=1",
                                            "workload.queue_depth=1", "workload.requests=500"}));
  const nand::NandConfig& n = r.nand->config();
  const double x = n.cmd_addr_cycles / n.bus_mts + n.t_read_us + n.page_bytes / n.bus_mts;  // us
  // Request 1 arrives at 0, an edge. Every later one arrives when the previous completes,
  // at (an edge + x), and waits for the next edge: 1 - frac(x) us.
  const double wait = 1.0 - (x - std::floor(x));
  const LatencyHistogram& h = r.host->latency(HostOp::Read);
  std::cout << "figure: min " << us(h.min()) << " us, max " << us(h.max()) << " us, expected " << x << " and "
            << x + wait << std::endl;
  CHECK(std::abs(us(h.min()) - x) <= 0.001);
  CHECK(std::abs(us(h.max()) - (x + wait)) <= 0.001);
  CHECK(std::abs(h.mean() / 1e6 - (x + wait * 499.0 / 500.0)) <= 0.001);
}

TEST_CASE("e2e: the in-order scheduler (IOS) replaying a real trace completes every request", "[e2e][ios][shared]") {
  // These conditions once exposed three faults: a missed decision for a new IOS head, two
  // decisions at one edge, and a lost channel wake. run() checks every payload came back.
  FullSsd* m;
  Result r = run(m, "piq", with(kFree, {"controller.scheduler=ios", "workload.kind=trace",
                                        std::string("workload.path=") + SSD_TRACES_DIR + "/msr_hm_0_excerpt.csv",
                                        "workload.replay=closed", "workload.queue_depth=64", "workload.requests=0",
                                        "ftl.precondition=1"}));
  std::cout << "figure: IOS " << r.host->completed() << " requests, " << r.host->reads_checked() << " page reads checked"
            << std::endl;
  CHECK(r.host->completed() == 7016);
}

TEST_CASE("e2e: the run ends with the workload: no GC run starts after the last request", "[e2e][gc][steady]") {
  // Every plane starts at its last reserve and a GC low mark far above it, so GC is
  // still wanted everywhere when the last request completes. GC runs under way finish
  // (one erase per plane at most); none starts after the workload (a run that collected
  // every plane back to its low mark erased thousands of blocks after the last request).
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.channels=2", "nand.chips_per_channel=2", "nand.blocks_per_plane=128",
                                            "nand.pages_per_block=32", "ftl.overprovisioning=0.3",
                                            "ftl.gc_threshold=0.2", "ftl.precondition_free=reserve",
                                            "workload.read_ratio=0.5", "workload.requests=5000"}));
  const std::uint64_t planes = 2 * 2 * 2 * 2;
  const std::uint64_t window_erases = m->ftl_at_end.gc_erases;
  const std::uint64_t all_erases = r.fw->ftl().gc_erases();
  INFO("erases by the last request " << window_erases << ", by the end of the simulation " << all_erases);
  CHECK(window_erases > 0);
  CHECK(all_erases - window_erases <= planes);
}

TEST_CASE("e2e: aged preconditioning leaves GC runs under way, part done, and loses nothing", "[e2e][gc][steady][integrity]") {
  // gc_running: every plane one block under its GC low mark with a run under way; a
  // uniformly drawn share of each victim's valid pages copied before time 0 (through the
  // backdoor), the rest copied in the run. Every read and the audit see the data.
  FullSsd* m;
  Result r = run(m, "default", with(kFree, {"nand.channels=2", "nand.chips_per_channel=2", "nand.blocks_per_plane=64",
                                            "nand.pages_per_block=64", "ftl.overprovisioning=0.15",
                                            "ftl.gc_threshold=0.1", "ftl.precondition_free=gc_running",
                                            "workload.read_ratio=0.5", "workload.requests=20000"}));
  const std::uint64_t planes = 2 * 2 * 2 * 2;
  INFO("copies before time 0 " << m->precondition_gc_copies);
  // Victims hold most of a block valid; a uniform share of them is half on average.
  CHECK(m->precondition_gc_copies > planes * 64 / 8);
  CHECK(m->precondition_gc_copies < planes * 64 * 7 / 8);
  CHECK(r.host->reads_checked() > 5000);
  const FullSsd::Audit a = m->audit();
  INFO(a.first);
  CHECK(a.mismatches == 0);
  CHECK(a.pages == r.fw->ftl().logical_pages());
}

TEST_CASE("e2e: the host reports a phase its socket does not take, never reads it as a response", "[e2e][protocol]") {
  static std::vector<std::string> reports;
  sc_core::sc_report_handler::set_handler([](const sc_core::sc_report& r, const sc_core::sc_actions&) {
    if (std::string(r.get_msg_type()) == kIllegalPhase) reports.push_back(r.get_msg());
  });
  Config cfg = make_config();
  cfg.set_assignment("workload.requests=1");
  cfg.set_assignment("nand.blocks_per_plane=64");
  cfg.set_assignment("ftl.overprovisioning=0.1");
  resolve_start_state(cfg);
  FullSsd* m = new FullSsd("ssd", cfg);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  HostPayloadPool pool("probe");
  tlm::tlm_generic_payload* gp = pool.acquire();
  tlm::tlm_phase ph = tlm::END_RESP;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  CHECK(m->iface->host->nb_transport_bw(*gp, ph, d) == tlm::TLM_COMPLETED);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0] == "host, from the host interface: illegal phase END_RESP");
  CHECK(m->host->completed() == 0);  // not taken for a completion
  gp->release();
}

// The device the policy seams are tried on: small, aged, under mixed load, so that GC
// runs while host reads and writes go on.
const std::vector<std::string> kSeamDevice = with(
    kFree, {"nand.channels=2", "nand.chips_per_channel=2", "nand.blocks_per_plane=64", "nand.pages_per_block=64",
            "nand.page_bytes=4096", "ftl.overprovisioning=0.15", "ftl.precondition=0.8", "ftl.precondition_age=1",
            "workload.read_ratio=0.5", "workload.queue_depth=16"});

// The write allocation seam (controller/write_allocator.h): a policy other than the
// static orders moves logical pages between planes; the FTL, GC and the integrity
// checks hold. This one sends each write to the least busy chip's plane with the most
// free blocks.
namespace {
struct LeastBusyAllocator final : ctrl::WriteAllocator {
  std::uint64_t calls = 0;
  std::uint32_t plane_for(std::uint64_t, const ctrl::AllocationView& v) override {
    ++calls;
    std::uint32_t best = 0;
    for (std::uint32_t p = 1; p < v.planes(); ++p) {
      const std::uint32_t a = v.commands_outstanding(v.chip_of_plane(p)), b = v.commands_outstanding(v.chip_of_plane(best));
      if (a < b || (a == b && v.free_blocks(p) > v.free_blocks(best))) best = p;
    }
    return best;
  }
};
}  // namespace

namespace {
// Runs the seam device (60,000 requests, audited, GC copies in their plane) with `alloc`
// placing the host's writes, checks that nothing was lost, and returns the pages left off
// their static plane.
template <typename Allocator>
std::uint64_t run_with_allocator(std::unique_ptr<Allocator> alloc) {
  const Allocator* a = alloc.get();
  // GC keeps each copy in its plane, so that a page off its static plane is the allocator's.
  FullSsd* m = build("default", with(kSeamDevice, {"workload.requests=60000", "report.audit=true", "ftl.gc_destination=plane"}),
                     {std::move(alloc), nullptr});
  sc_core::sc_start();
  REQUIRE(m->host->errors().empty());
  const ctrl::Ftl& ftl = m->firmware->ftl();
  std::uint64_t moved = 0;
  for (std::uint64_t lpn = 0; lpn < ftl.logical_pages(); ++lpn) {
    const std::uint32_t ppa = ftl.lookup(lpn);
    if (ppa != ctrl::kUnmapped && ftl.plane_of_ppa(ppa) != ftl.plane_of_lpn(lpn)) ++moved;
  }
  INFO("allocator calls " << a->calls << ", pages off their static plane " << moved << ", GC erases "
                          << ftl.gc_erases() << ", reads checked " << m->host->reads_checked());
  CHECK(a->calls >= 25000);
  CHECK(ftl.gc_erases() > 0);
  CHECK(m->host->reads_checked() >= 25000);
  CHECK(m->host->mismatches() == 0);
  CHECK(m->audit().mismatches == 0);
  return moved;
}
}  // namespace

TEST_CASE("e2e: a dynamic write allocator moves pages between planes and loses nothing", "[e2e][allocation][integrity]") {
  CHECK(run_with_allocator(std::make_unique<LeastBusyAllocator>()) > 1000);
}

// The same seam with the firmware's forecast (controller/busy_forecast.h): each write
// goes to a plane of the die whose issued work is forecast to end first. The forecast
// agrees with the firmware's own count of outstanding commands at every call, and a die
// with nothing outstanding is forecast idle.
namespace {
struct EarliestEndAllocator final : ctrl::WriteAllocator {
  std::uint64_t calls = 0, disagreements = 0, busy_idle = 0;
  bool uses_forecast() const override { return true; }
  std::uint32_t plane_for(std::uint64_t, const ctrl::AllocationView& v) override {
    ++calls;
    const ctrl::BusyForecast& f = v.forecast();
    const nand::NandConfig& n = v.nand();
    std::uint32_t best = 0;
    Tick best_end = kNever;
    for (std::uint32_t p = 0; p < v.planes(); ++p) {
      const std::uint32_t chip = v.chip_of_plane(p), die = p / n.planes_per_die % n.dies_per_chip;
      const Tick end = std::max(f.die_end(chip, die), v.now());
      if (end < best_end || (end == best_end && v.free_blocks(p) > v.free_blocks(best))) {
        best = p;
        best_end = end;
      }
      if (f.die_outstanding(chip, die) == 0 && f.die_end(chip, die) > v.now()) ++busy_idle;
    }
    for (std::uint32_t chip = 0; chip < n.chips(); ++chip) {
      std::uint32_t sum = 0;
      for (std::uint32_t d = 0; d < n.dies_per_chip; ++d) sum += f.die_outstanding(chip, d);
      disagreements += sum != v.commands_outstanding(chip);
    }
    return best;
  }
};
}  // namespace

TEST_CASE("e2e: a write allocator by forecast completion moves pages to idle dies and loses nothing",
          "[e2e][allocation][integrity]") {
  auto alloc = std::make_unique<EarliestEndAllocator>();
  const EarliestEndAllocator* a = alloc.get();  // the build outlives the test case (build())
  CHECK(run_with_allocator(std::move(alloc)) > 1000);
  CHECK(a->disagreements == 0);
  CHECK(a->busy_idle == 0);
}

// The firmware scheduling seam (controller/firmware_sched.h): a policy that holds
// commands back so that each chip has at most one at the scheduler block, and charges
// the core 50 cycles per command it passes on. Every command is released, every read
// is right, and the core's time shows the charge.
namespace {
struct OnePerChip final : ctrl::FirmwareScheduler {
  std::map<std::uint32_t, std::deque<std::pair<ctrl::FwCommand*, Tick>>> held;
  std::map<std::uint32_t, unsigned> at_block;
  unsigned max_at_block = 0;
  std::uint64_t released = 0, completions = 0;
  static std::uint32_t chip(const ctrl::FwCommand& c) { return std::uint32_t{c.cmd->channel} << 16 | c.cmd->chip; }
  void pass(ctrl::FwCommand& c, Tick ready, ctrl::FlashOutlet& out) {
    const Tick decided = out.charge(50);
    out.release(c, std::max(ready, decided));
    max_at_block = std::max(max_at_block, ++at_block[chip(c)]);
    ++released;
  }
  void submit(ctrl::FwCommand& c, Tick ready, ctrl::FlashOutlet& out) override {
    if (at_block[chip(c)] == 0 && held[chip(c)].empty()) pass(c, ready, out);
    else held[chip(c)].emplace_back(&c, ready);
  }
  void completed(const ctrl::FwCommand& c, ctrl::FlashOutlet& out) override {
    ++completions;
    --at_block[chip(c)];
    auto& q = held[chip(c)];
    if (q.empty()) return;
    const auto [next, ready] = q.front();
    q.pop_front();
    pass(*next, std::max(ready, out.now()), out);
  }
};
}  // namespace

TEST_CASE("e2e: a firmware scheduling policy holds commands back, charges the core, and loses nothing",
          "[e2e][firmware_sched][integrity]") {
  auto policy = std::make_unique<OnePerChip>();
  OnePerChip* p = policy.get();
  FullSsd* m = build("default", with(kSeamDevice, {"workload.requests=20000"}), {nullptr, std::move(policy)});
  sc_core::sc_start();
  REQUIRE(m->host->errors().empty());
  m->firmware->pool().check_all_returned();
  const Tick end = sc_core::sc_time_stamp().value();  // the last command's end
  INFO("released " << p->released << ", completions " << p->completions << ", core busy "
                   << us(m->firmware->core_busy(end)) << " us");
  CHECK(p->max_at_block == 1);
  CHECK(p->released == p->completions);
  CHECK(p->released > 20000);
  for (const auto& [chip, q] : p->held) CHECK(q.empty());
  CHECK(m->host->reads_checked() >= 8000);
  CHECK(m->host->mismatches() == 0);
  // The firmware's own work is free here (kFree): the core's time is the policy's, 50
  // cycles at the default 500 MHz, 100 ns per command passed on.
  CHECK(m->firmware->core_busy(end) == p->released * 100000);
}

// Late binding (controller/firmware_sched.h): a policy that holds programs and releases
// them in a shuffled order across planes and chips, moves some to another plane and drops
// the superseded ones, on a tiny device where GC runs thousands of times. Every read and
// the audit are right, no NAND protocol error (a block's pages out of order would be
// one), no payload lost, and no page left allocated without its program.
namespace {
struct Shuffler final : ctrl::FirmwareScheduler {
  std::vector<std::pair<ctrl::FwCommand*, Tick>> held;
  std::uint64_t state = 0x2545F4914F6CDD1Dull;
  std::uint64_t released = 0, completions = 0, cancelled = 0, retargeted = 0, retarget_refused = 0, shuffled = 0;
  std::uint64_t programs_for_later = 0;  // programs released for a time after their release
  std::uint64_t rand() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  void flush(ctrl::FlashOutlet& out) {
    std::vector<std::pair<ctrl::FwCommand*, Tick>> now;
    now.swap(held);
    for (std::size_t i = now.size(); i > 1; --i) std::swap(now[i - 1], now[rand() % i]);  // Fisher-Yates
    if (now.size() > 1) ++shuffled;
    const ctrl::FirmwareView& v = out.view();
    for (auto [c, ready] : now) {
      if (c->cmd->origin == FlashOrigin::HostProgram && v.superseded(*c)) {
        REQUIRE(out.cancel(*c));
        ++cancelled;
        continue;
      }
      if (c->cmd->origin == FlashOrigin::HostProgram && rand() % 4 == 0) {
        const std::uint32_t to = static_cast<std::uint32_t>(rand() % v.planes());
        if (out.retarget(*c, to)) ++retargeted;
        else ++retarget_refused;
      }
      if (c->cmd->op == FlashOp::Program && ready > out.now()) ++programs_for_later;
      out.release(*c, std::max(ready, out.now()));
      ++released;
    }
  }
  void submit(ctrl::FwCommand& c, Tick ready, ctrl::FlashOutlet& out) override {
    if (c.cmd->op != FlashOp::Program) {
      out.release(c, ready);
      ++released;
    } else {
      held.emplace_back(&c, ready);
    }
    if (held.size() >= 12 || released == completions) flush(out);
  }
  void completed(const ctrl::FwCommand&, ctrl::FlashOutlet& out) override {
    ++completions;
    if (held.size() >= 6 || released == completions) flush(out);
  }
};
}  // namespace

static void shuffled_release_loses_nothing(const std::vector<std::string>& firmware_cost, bool for_later) {
  auto policy = std::make_unique<Shuffler>();
  Shuffler* p = policy.get();
  FullSsd* m = build("default", with(firmware_cost, {"nand.channels=2", "nand.chips_per_channel=2", "nand.dies_per_chip=1",
                                             "nand.planes_per_die=2", "nand.blocks_per_plane=16",
                                             "nand.pages_per_block=8", "nand.page_bytes=4096",
                                             "ftl.overprovisioning=0.25", "ftl.precondition=0.5",
                                             "workload.read_ratio=0.5", "workload.size_bytes=512",
                                             "workload.size_max_bytes=32768", "workload.align_bytes=512",
                                             "workload.requests=30000", "workload.queue_depth=32"}),
                     {nullptr, std::move(policy)});
  sc_core::sc_start();
  REQUIRE(m->host->errors().empty());
  m->firmware->pool().check_all_returned();
  m->host->pool().check_all_returned();
  const ctrl::Ftl& ftl = m->firmware->ftl();
  INFO("released " << p->released << ", shuffled batches " << p->shuffled << ", cancelled " << p->cancelled
                   << ", buffer hits " << m->firmware->counters().buffer_hits
                   << ", retargeted " << p->retargeted << " (refused " << p->retarget_refused << "), GC erases "
                   << ftl.gc_erases() << ", reads checked " << m->host->reads_checked());
  CHECK(p->held.empty());
  CHECK(p->released == p->completions);
  CHECK(p->shuffled > 1000);
  CHECK(p->cancelled > 100);
  CHECK(m->firmware->counters().cancelled_programs == p->cancelled);
  // Reads of pages with a program in flight (held by the policy, moved, superseded or
  // not yet ended): served from the write path, and checked like every read.
  CHECK(m->firmware->counters().buffer_hits > 500);
  INFO("programs released for later times " << p->programs_for_later);
  CHECK((p->programs_for_later > 100) == for_later);
  CHECK(p->retargeted > 1000);
  CHECK(ftl.gc_erases() > 2000);
  CHECK(m->host->reads_checked() > 20000);
  CHECK(m->host->mismatches() == 0);
  CHECK(m->nand->totals().protocol_errors == 0);
  CHECK(m->audit().mismatches == 0);
  std::uint64_t in_flight = 0, unbound = 0;
  for (std::uint32_t b = 0; b < ftl.planes() * 16; ++b) in_flight += ftl.programs_in_flight(b);
  for (std::uint32_t pl = 0; pl < ftl.planes(); ++pl) unbound += m->firmware->firmware().allocation_view().unbound_programs(pl);
  CHECK(in_flight == 0);
  CHECK(unbound == 0);
}

TEST_CASE("e2e: programs released out of order, moved and cancelled keep every block in order and lose nothing",
          "[e2e][firmware_sched][late_binding][integrity]") {
  shuffled_release_loses_nothing(kFree, false);
}

// With firmware that costs core cycles, GC's programs are released for the later time its
// core work ends, and the policy releases others at once: a program takes its page when it
// leaves for the block, so one released later for an earlier time never passes another
// with a later page of its block (bound at release, it did: a NAND protocol error).
TEST_CASE("e2e: programs released for later times, shuffled, keep every block in order",
          "[e2e][firmware_sched][late_binding][integrity]") {
  shuffled_release_loses_nothing({"firmware.cycles_per_command=1000", "firmware.cycles_per_page=1000",
                                  "firmware.cycles_per_gc_page=1000", "host.link_mb_s=0", "controller.clock_mhz=1000"},
                                 true);
}

TEST_CASE("e2e: the warm-up ends at steady state and every request is counted once, warm-up or window",
          "[e2e][steady]") {
  FullSsd* m;
  // The default device at 90 % reads: GC bound, steady after a few rounds.
  Result r = run(m, "default", {"report.warmup=auto", "workload.read_ratio=0.9", "workload.requests=20000"});
  const SteadyStateRule& rule = *m->steady;
  REQUIRE(rule.reached());
  REQUIRE(m->steady_window_start_request > 0);
  const host::HostDriver& h = *r.host;
  // The requests admitted before the window are warm-up, those still in flight at the
  // steady round's end included: ids 1 .. start - 1.
  CHECK(h.warmup_completed() == m->steady_window_start_request - 1);
  const std::uint64_t window = h.latency(HostOp::Read).count() + h.latency(HostOp::Write).count() + h.unwritten_reads();
  CHECK(window + h.warmup_completed() == h.completed());
  CHECK(h.completed() == 20000);
  // The window starts at the first request after the warm-up, after the steady round's end.
  const SteadyStateRule::Round& last = rule.rounds().back();
  CHECK(rule.rounds().size() == rule.window_first() + rule.window());
  CHECK(m->window_start.at >= us_to_ticks(last.end_us) - 1);
  CHECK(last.last_completion == 2000 * rule.rounds().size());
  // The GC figures count from the window's start too.
  CHECK(m->ftl_at_start.host_pages > 0);
}

// The PIQ paper's scheduling window (Sec. IV-A): host.queue_length bounds the waiting and
// the outstanding requests together, so that at length 1 the device holds one request at
// a time, whatever its NCQ depth; counting only the waiting ones, the NCQ fills.
namespace {
const std::vector<std::string> kWindowDevice = with(
    kFree, {"nand.chips_per_channel=2", "nand.blocks_per_plane=64", "ftl.precondition=0.5",
            "workload.queue_depth=16", "workload.requests=3000", "workload.read_ratio=0.5", "host.queue_length=1"});
}  // namespace

TEST_CASE("e2e: a host queue of length 1 counting outstanding requests leaves one request in the device",
          "[e2e][host][window]") {
  FullSsd* m;
  Result r = run(m, "piq", with(kWindowDevice, {"host.queue_window=waiting_and_outstanding"}));
  INFO("most NCQ tags in use " << m->iface->max_tags_in_use());
  CHECK(m->iface->max_tags_in_use() == 1);
  CHECK(m->window().ncq_tags_mean <= 1.0);
  CHECK(m->window().ncq_tags_mean > 0.5);  // a request in the device most of the time
  CHECK(r.host->completed() == 3000);
  CHECK(r.host->reads_checked() > 1000);
}

TEST_CASE("e2e: a host queue of length 1 counting only waiting requests lets the NCQ fill", "[e2e][host][window]") {
  FullSsd* m;
  Result r = run(m, "piq", with(kWindowDevice, {"host.queue_window=waiting"}));
  INFO("most NCQ tags in use " << m->iface->max_tags_in_use());
  CHECK(m->iface->max_tags_in_use() == 16);  // the closed loop's 16, all in the device
  CHECK(m->window().ncq_tags_mean > 8.0);
  CHECK(r.host->completed() == 3000);
}
