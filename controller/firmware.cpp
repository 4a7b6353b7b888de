#include "controller/firmware.h"

#include <stdexcept>
#include <string>

#include "controller/read_unit.h"

namespace ssd::ctrl {

namespace {

HoldingStage::Config stage_config(const FirmwareConfig& cfg, bool keep_forecast) {
  HoldingStage::Config s;
  s.batch_depth = cfg.batch_depth;
  s.order = cfg.batch_order;
  s.mark_hazards = cfg.mark_hazards;
  s.keep_forecast = keep_forecast;
  s.delay_from_release = cfg.delay_from_release;
  return s;
}

}  // namespace

Firmware::Firmware(const FtlConfig& ftl, const FirmwareConfig& cfg, std::unique_ptr<WriteAllocator> allocator,
                   std::unique_ptr<FirmwareScheduler> release, FirmwarePorts& ports)
    : cfg_(cfg),
      spp_(ftl.nand.page_bytes / 512),
      ftl_(ftl),
      trace_(ftl_, gc_),
      core_(clock_, cfg.clock_mhz, trace_),
      read_only_(ftl_, clock_, ports),
      gc_port_(ftl_, gc_, stage_, frontier_, core_, recovery_, read_only_, ports, faults_, cfg.cycles_per_gc_page),
      gc_(ftl_, cfg.gc_yields, cfg.gc_copies_in_flight, cfg.gc_in_die, gc_port_, counters_),
      stage_(stage_config(cfg, allocator && allocator->uses_forecast()), ftl_, frontier_, gc_, core_, clock_, ports,
             trace_, counters_, placement_, std::move(release)),
      recovery_(cfg.ecc, stage_, core_, cfg.cycles_per_page, faults_),
      writes_(ftl_, frontier_, stage_, gc_, recovery_, read_only_, splitter_, clock_, ports, counters_, faults_),
      splitter_(ftl_, writes_, recovery_, stage_, gc_, read_only_, clock_, ports, ports, counters_, faults_,
                cfg.read_unit_bytes),
      frontier_(ftl_, gc_, allocator ? std::move(allocator) : std::make_unique<StaticAllocator>(ftl_.static_allocation()),
                stage_, writes_, clock_, counters_, placement_) {
  if (!read_unit_fits(cfg.read_unit_bytes, ftl.nand.page_bytes))
    throw std::invalid_argument("read unit of " + std::to_string(cfg.read_unit_bytes) +
                                " bytes: not a multiple of 512 that divides the page");
  if (recovery_.on()) stage_.route_reads(&recovery_);
}

Tick Firmware::arrived(HostCommand& c) {
  const std::uint64_t pages = page_span(c.lba, c.sectors, spp_).count;
  const std::uint64_t cycles = cfg_.cycles_per_command + pages * cfg_.cycles_per_page;
  const Tick done = core_.charge(cycles);
  c.t_core_start = done - core_.ticks(cycles);
  return done;
}

}  // namespace ssd::ctrl
