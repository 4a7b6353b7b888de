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
  s.wordline_fill = us_to_ticks(cfg.wordline_fill_us);
  s.wordline_mix = cfg.wordline_mix;
  return s;
}

}  // namespace

std::uint64_t cache_capacity(const FirmwareConfig& cfg, const FtlConfig& f) {
  const std::uint64_t pages = cfg.write_cache_pages;
  if (cfg.write_cache == CacheMode::Off) return 0;
  return cfg.write_cache == CacheMode::Plp ? std::min(pages, plp_pages(f.nand, cfg.holdup_us) * f.units_per_page()) : pages;
}

Firmware::Firmware(const FtlConfig& ftl, const FirmwareConfig& cfg, std::unique_ptr<WriteAllocator> allocator,
                   std::unique_ptr<FirmwareScheduler> release, FirmwarePorts& ports)
    : cfg_(cfg),
      spp_(ftl.nand.page_bytes / ftl.units_per_page() / 512),  // the FTL's pages: its mapping units
      ftl_(ftl),
      trace_(ftl_, gc_),
      core_(clock_, cfg.clock_mhz, trace_),
      read_only_(ftl_, clock_, ports),
      gc_port_(ftl_, gc_, stage_, frontier_, core_, recovery_, read_only_, ports, faults_, cfg.cycles_per_gc_page),
      gc_(ftl_, cfg.gc_yields, cfg.gc_copies_in_flight, cfg.gc_in_die, gc_port_, counters_),
      stage_(stage_config(cfg, allocator && allocator->uses_forecast()), ftl_, frontier_, gc_, core_, clock_, ports,
             trace_, counters_, placement_, std::move(release)),
      recovery_(cfg.ecc, stage_, core_, cfg.cycles_per_page, faults_),
      writes_(ftl_, frontier_, stage_, gc_, recovery_, read_only_, splitter_, clock_, ports, counters_, faults_,
              WriteCache(cfg.write_cache, cache_capacity(cfg, ftl))),
      splitter_(ftl_, writes_, recovery_, stage_, gc_, read_only_, clock_, ports, ports, counters_, faults_,
                cfg.read_unit_bytes),
      frontier_(ftl_, gc_, allocator ? std::move(allocator) : std::make_unique<StaticAllocator>(ftl_.static_allocation()),
                stage_, writes_, clock_, counters_, placement_),
      map_port_(ftl_, stage_, core_, read_only_, ports, cfg.cycles_per_gc_page) {
  if (ftl_.config().map_journal) {
    map_log_ = std::make_unique<MapLog>(ftl_, clock_, map_port_, &trace_);
    map_port_.set_log(map_log_.get());
  }
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

const param::Table<EccConfig>& EccConfig::keys() {
  static const param::Table<EccConfig> t = [] {
    param::Table<EccConfig> k;
    k.integer("controller.ecc_hard_bits", &EccConfig::hard_bits, 0, 65534,
              "ECC: bit errors per codeword (nand.fault.codeword_bytes) the hard-decision decode corrects, at the "
              "default read level and each read-retry step (with bit errors modelled: nand.fault.rber_*)")
        .unit("bits per codeword")
        .integer("controller.ecc_soft_bits", &EccConfig::soft_bits, 0, 65534,
                 "ECC: bit errors per codeword the soft-decision decode corrects (the read after the last retry "
                 "step); beyond it a read is uncorrectable").unit("bits per codeword")
        .number("controller.ecc_hard_decode_us", &EccConfig::hard_decode_us, 0, 1e6,
                "ECC: hard-decision decode time after a read's data is out, us (with bit errors modelled)").unit("us")
        .number("controller.ecc_soft_decode_us", &EccConfig::soft_decode_us, 0, 1e6,
                "ECC: soft-decision decode time after a soft read's data is out, us").unit("us");
    return k;
  }();
  return t;
}

const param::Table<FirmwareConfig>& FirmwareConfig::keys() {
  static const param::Table<FirmwareConfig> t = [] {
    using F = FirmwareConfig;
    // Default costs: docs/controller.md "Firmware cost".
    const std::string src = " (default scaled from Hahn et al.'s < 10 us per flash request at 400 MHz; 0: free)";
    param::Table<F> k;
    k.choice("controller.gc_priority", &F::gc_yields, {{"host_first", true}, {"fifo", false}},
             "hos (and sos's release): host_first = a chip serves host commands before GC's, unless the GC's plane "
             "is at its last free block (then GC first: foreground); GC starts as soon as a plane needs it. fifo = "
             "GC commands queue with the host's in arrival order, GC starts when its chip has no command "
             "outstanding")
        .integer("controller.read_unit_bytes", &F::read_unit_bytes, 0, 1 << 20,
                 "partial-page reads: a host read moves out over the bus only the ECC codewords of this many bytes "
                 "that hold its sectors (ONFI: the column is in the read's address; tR stays the whole page's); "
                 "0: every read moves the whole page. A multiple of 512 that divides nand.page_bytes").unit("bytes")
        .part(&F::ecc, EccConfig::keys())
        .choice("controller.write_cache", &F::write_cache,
                {{to_string(CacheMode::Off), CacheMode::Off},
                 {to_string(CacheMode::Volatile), CacheMode::Volatile},
                 {to_string(CacheMode::Plp), CacheMode::Plp}},
                "when a host write completes (docs/controller.md, Write cache and durability): off = once its pages "
                "are programmed (no cache); volatile = once its data is in the firmware's buffer (lost with the "
                "power until programmed; FUA writes and flushes wait for flash); plp = as volatile, with capacitors "
                "that hold the power up for power.holdup_us to program what is buffered (FUA writes and flushes "
                "complete at once)")
        .integer("controller.write_cache_pages", &F::write_cache_pages, 1, 1 << 26,
                 "with controller.write_cache = volatile or plp: pages acknowledged to the host and not yet "
                 "programmed, at most; a write past it waits for room (plp: also at most what power.holdup_us "
                 "programs)").unit("pages")
        .number("power.holdup_us", &F::holdup_us, 0, 1e7,
                "with controller.write_cache = plp: how long the capacitors hold the power up after it fails, us; "
                "the cache keeps no more pages than the NAND programs in it (one tPROG for the programs under way, "
                "then rounds of a page per plane and die, each a tPROG plus its data-in, within each channel's "
                "bus time)").unit("us")
        .number("firmware.clock_mhz", &F::clock_mhz, 1, 100000, "clock of the embedded core running the FTL, MHz")
        .unit("MHz")
        .integer("firmware.cycles_per_command", &F::cycles_per_command, 0, 100000000,
                 "core cycles per host command" + src).unit("core cycles")
        .integer("firmware.cycles_per_page", &F::cycles_per_page, 0, 100000000,
                 "core cycles per logical page of a host command" + src).unit("core cycles")
        .integer("firmware.cycles_per_gc_page", &F::cycles_per_gc_page, 0, 100000000,
                 "core cycles per GC page copy and per GC erase" + src).unit("core cycles")
        .integer("ftl.batch_depth", &F::batch_depth, 0, 65535,
                 "with nand.multiplane and two or more planes per die: the scheduler block holds at most this many "
                 "commands of a die (of a class and the more urgent ones), the firmware batches the rest into "
                 "n-plane commands (docs/scheduler.md, Batching); 0: no batching").unit("commands per die")
        .integer("ftl.gc_copies_in_flight", &F::gc_copies_in_flight, 0, 65535,
                 "GC page copies in flight per victim (read issued, program not ended); 0 = all of a victim's at once")
        .unit("pages per victim")
        .choice("ftl.gc_destination", &F::gc_in_die, {{"die", true}, {"plane", false}},
                "where a GC copy is programmed: die = the die's GC stream, on the plane the die-aligned frontier "
                "picks (the die's planes at one page offset, so that copies run as n-plane programs: "
                "docs/scheduler.md, Write placement); plane = the victim's plane's own GC stream")
        .number("ftl.wordline_fill_us", &F::wordline_fill_us, 0, 1e9,
                "with nand.bits_per_cell > 1: how long a partial wordline of host data waits, from its first "
                "page, for more host pages on its plane before its other pages are padded with filler "
                "(firmware.padded_pages); it waits on while a host program of that plane is built and not yet "
                "bound (GC pads its wordlines at the end of its run: docs/controller.md, Wordlines)").unit("us")
        .flag("ftl.wordline_mix", &F::wordline_mix,
              "with nand.bits_per_cell > 1: a GC copy bound on a plane whose host stream has a partial wordline, "
              "and no host program built and unbound there, fills that wordline (mixed host and GC data) instead "
              "of the GC stream's; false: one stream per wordline (docs/controller.md, Wordlines)")
        .choice("ftl.queue_delay_from", &F::delay_from_release, {{"arrival", false}, {"release", true}},
                "where the busy forecast counts a command's delay from (Chen et al. Eq. 9): its request's arrival at "
                "the controller (arrival, as the paper defines it) or its release to the flash; ftl.write_policy = "
                "delay ranks channels by these delays, and stats.json placement's predicted and actual waits use "
                "the same origin under every policy that keeps the forecast");
    return k;
  }();
  return t;
}

}  // namespace ssd::ctrl
