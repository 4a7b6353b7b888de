#include "sc_main/sim_config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "controller/firmware_core.h"
#include "controller/flash_sched.h"
#include "controller/policies.h"

#ifndef SSD_DATA_DIR
#define SSD_DATA_DIR "."
#endif

namespace ssd {

std::string data_dir() {
  if (const char* d = std::getenv("SSDSIM_DATA_DIR")) return d;
  return SSD_DATA_DIR;
}

// The largest time a key may give, in us: within the simulated range (2^63 ps, about
// 9.22e12 us) and printed by --list-keys as the very bound it checks.
constexpr double kMaxTimeUs = 9.2e12;

Config make_config() {
  Config c;
  const nand::NandConfig n;  // the defaults live in one place: NandConfig
  c.add_int("nand.channels", n.channels, 1, 1024, "channels (independent buses)");
  c.add_int("nand.chips_per_channel", n.chips_per_channel, 1, 1024, "chips sharing a channel's bus");
  c.add_int("nand.dies_per_chip", n.dies_per_chip, 1, 64, "dies per chip (array operations overlap)");
  c.add_int("nand.planes_per_die", n.planes_per_die, 1, kMaxPlanes, "planes per die (multi-plane commands)");
  c.add_int("nand.blocks_per_plane", n.blocks_per_plane, 1, 1 << 24, "erase blocks per plane");
  c.add_int("nand.pages_per_block", n.pages_per_block, 1, 65535, "pages per block");
  c.add_int("nand.page_bytes", n.page_bytes, 512, 1 << 20, "page data bytes moved on the bus");
  c.add_double("nand.bus_mts", n.bus_mts, 0.001, 100000, "bus rate, MT/s on an 8-bit bus (one byte per transfer)");
  c.add_int("nand.cmd_addr_cycles", n.cmd_addr_cycles, 1, 1000, "command+address bus cycles of a read or program");
  c.add_int("nand.erase_cmd_cycles", n.erase_cmd_cycles, 1, 1000, "command+address bus cycles of an erase");
  c.add_double("nand.t_read_us", n.t_read_us, 0.001, 1e7, "tR: array to data register, us");
  c.add_double("nand.t_prog_us", n.t_prog_us, 0.001, 1e7, "tPROG: data register to array, us");
  c.add_double("nand.t_erase_us", n.t_erase_us, 0.001, 1e7, "tBERS: block erase, us");
  c.add_bool("nand.cache_read", n.cache_read, "cache read: stream page n out while reading n+1");
  c.add_bool("nand.cache_program", n.cache_program, "cache program: data-in of the next page during tPROG");
  c.add_bool("nand.multiplane", n.multiplane, "multi-plane read/program/erase commands allowed");
  // The fault model (nand/fault_model.h; docs/nand-timing.md, "Faults"): all off by default.
  const nand::FaultConfig f;
  const std::string wear = " (a power law in the block's P/E cycles from its value new to its value at "
                           "nand.fault.rated_cycles: docs/nand-timing.md)";
  c.add_int("nand.fault.seed", static_cast<std::int64_t>(f.seed), 0, 9007199254740992ll,
            "the fault model's seed: the same config and seed give the same faults");
  c.add_double("nand.fault.bad_block_fraction", f.bad_block_fraction, 0, 0.5,
               "factory bad blocks: this fraction of every plane's blocks (rounded; the same count per plane, "
               "places drawn from the seed), marked before time 0; the FTL never uses them and the logical "
               "capacity comes from the good blocks");
  c.add_double("nand.fault.rated_cycles", f.rated_cycles, 1, 1e9, "P/E cycles of rated endurance (end of life)");
  c.add_double("nand.fault.wear_exponent", f.wear_exponent, 0.01, 100, "exponent of the wear power law");
  c.add_double("nand.fault.wear_cycles", f.wear_cycles, 0, 1e9,
               "P/E cycles added to every block's erase count: a device aged this far without running its history");
  c.add_double("nand.fault.program_fail_new", f.program_fail_new, 0, 1, "probability that a page program fails, new block" + wear);
  c.add_double("nand.fault.program_fail_eol", f.program_fail_eol, 0, 1, "the same at the rated cycles");
  c.add_double("nand.fault.erase_fail_new", f.erase_fail_new, 0, 1, "probability that a block erase fails, new block" + wear);
  c.add_double("nand.fault.erase_fail_eol", f.erase_fail_eol, 0, 1, "the same at the rated cycles");
  c.add_double("nand.fault.rber_new", f.rber_new, 0, 0.5,
               "raw bit error rate of a read at the default reference voltages, new block" + wear +
                   "; errors are drawn per ECC codeword");
  c.add_double("nand.fault.rber_eol", f.rber_eol, 0, 0.5, "the same at the rated cycles");
  c.add_double("nand.fault.rber_sigma", f.rber_sigma, 0, 5,
               "page-to-page variation: each page's raw bit error rate is the curve's times a log-normal factor of "
               "this sigma (mean 1), drawn per page and erase cycle; 0: none");
  c.add_double("nand.fault.retry_gain", f.retry_gain, 1e-6, 1,
               "each read-retry step (shifted reference voltages) multiplies the raw bit error rate by this");
  c.add_int("nand.fault.retry_steps", f.retry_steps, 0, 64, "entries of the read-retry table (read levels 1..n)");
  c.add_int("nand.fault.soft_senses", f.soft_senses, 1, 16,
            "a soft-decision read (the level after the last retry step): its sensings (each a tR) and the pages "
            "of hard and soft data it moves out");
  c.add_double("nand.fault.soft_gain", f.soft_gain, 1e-6, 1,
               "a soft-decision read's raw bit error rate: the last retry step's times this");
  c.add_int("nand.fault.retry_cmd_cycles", f.retry_cmd_cycles, 1, 1000,
            "bus cycles of the SET FEATURES that sets a read-retry level before a shifted read");
  c.add_int("nand.fault.codeword_bytes", f.codeword_bytes, 64, 1 << 20,
            "ECC codeword data bytes: bit errors are drawn and corrected per codeword");
  c.add_string("nand.fault.script", f.script,
               "deterministic injections, one per line: program_fail ch chip die plane block page [at_us]; "
               "erase_fail ch chip die plane block [at_us]; read_retry ch chip die plane block page steps [at_us] "
               "(the page's reads below level `steps` are beyond every decoder); each once, from its time on");

  // The defaults of the controller's keys are its config structs' (one place each).
  const ctrl::SchedConfig sched;
  const ctrl::RescheduleConfig resched;
  const ctrl::FirmwareConfig fw;
  const ctrl::SosConfig sos;
  const ctrl::FtlConfig ftl;
  c.add_int("controller.ncq_depth", 32, 1, 65535, "NCQ tags: commands outstanding in the device (32 = SATA)");
  c.add_double("controller.clock_mhz", sched.clock_mhz, 1, 100000, "decision clock of the flash scheduler block, MHz");
  c.add_enum("controller.scheduler", ctrl::kDefaultScheduler, ctrl::names_of(ctrl::sched_policies()),
             "the flash scheduler block's queue discipline: " + ctrl::described(ctrl::sched_policies()));
  c.add_enum("controller.firmware_sched", ctrl::kDefaultFirmwareSched, ctrl::names_of(ctrl::firmware_schedulers()),
             "the firmware's release of the flash commands it built to the scheduler block "
             "(controller/firmware_sched.h): " + ctrl::described(ctrl::firmware_schedulers()));
  c.add_enum("controller.rtl", "off", {"off", "on", "check"},
             "the scheduler block's decisions: off (the C++ block), on (the Verilog block, rtl/, verilated), check (both; "
             "their grants compared at every decision edge, the first difference ends the run with exit 1)");
  c.add_bool("controller.sos_qsl", sos.qsl,
             "controller.firmware_sched = sos: the queue size leveler moves a queued host program to an idle chip "
             "whose queue is empty (controller/sos_sched.h)");
  c.add_bool("controller.sos_whm", sos.whm,
             "controller.firmware_sched = sos: the write hit manager cancels a queued host program that a newer "
             "write of its logical page supersedes");
  c.add_enum("controller.reschedule", resched.name(), {"none", "multiplane", "pipeline", "both"},
             "hos: Park et al.'s request rescheduling in the scheduler block (docs/scheduler.md, Rescheduling): "
             "multiplane = a granted command takes the first queued command of each other plane of its die with "
             "the same operation and page offset as one n-plane command (needs nand.multiplane); pipeline = a "
             "command of its die's last operation goes ahead of an older one of the other list, for cache "
             "pipelining; both; commands sharing a page, an erased block or a logical page keep their order. "
             "The firmware's batching (ftl.batch_depth) is off with it");
  c.add_int("controller.reschedule_window", resched.window, 1, 16,
            "controller.reschedule: commands of a list searched for multi-plane partners, and grants in a row "
            "a chip queue may pass an older command for pipelining (the bound on reordering; at most 16, the "
            "Verilog block's WMAX)");
  c.add_bool("controller.read_first", false, "hos: take the oldest read of a chip queue (of its first class) before its oldest command");
  c.add_enum("controller.gc_priority", fw.gc_yields ? "host_first" : "fifo", {"host_first", "fifo"},
             "hos (and sos's release): host_first = a chip serves host commands before GC's, unless the GC's plane is at its last "
             "free block (then GC first: foreground); GC starts as soon as a plane needs it. fifo = GC commands "
             "queue with the host's in arrival order, GC starts when its chip has no command outstanding");
  c.add_bool("controller.decide_ahead", true,
             "accel/: take a scheduler decision when the NAND activation that asks for it ends, as at its "
             "edge, if nothing can run before that edge (identical results, fewer kernel time steps); "
             "false: always wake at the edge");
  c.add_int("controller.read_unit_bytes", fw.read_unit_bytes, 0, 1 << 20,
            "partial-page reads: a host read moves out over the bus only the ECC codewords of this many bytes "
            "that hold its sectors (ONFI: the column is in the read's address; tR stays the whole page's); "
            "0: every read moves the whole page. A multiple of 512 that divides nand.page_bytes");
  c.add_int("controller.ecc_hard_bits", fw.ecc.hard_bits, 0, 65534,
            "ECC: bit errors per codeword (nand.fault.codeword_bytes) the hard-decision decode corrects, at the "
            "default read level and each read-retry step (with bit errors modelled: nand.fault.rber_*)");
  c.add_int("controller.ecc_soft_bits", fw.ecc.soft_bits, 0, 65534,
            "ECC: bit errors per codeword the soft-decision decode corrects (the read after the last retry step); "
            "beyond it a read is uncorrectable");
  c.add_double("controller.ecc_hard_decode_us", fw.ecc.hard_decode_us, 0, 1e6,
               "ECC: hard-decision decode time after a read's data is out, us (with bit errors modelled)");
  c.add_double("controller.ecc_soft_decode_us", fw.ecc.soft_decode_us, 0, 1e6,
               "ECC: soft-decision decode time after a soft read's data is out, us");
  c.add_double("firmware.clock_mhz", fw.clock_mhz, 1, 100000, "clock of the embedded core running the FTL, MHz");
  // Default costs: controller/firmware.h (FirmwareConfig) and docs/controller.md "Firmware cost".
  const std::string src = " (default scaled from Hahn et al.'s < 10 us per flash request at 400 MHz; 0: free)";
  c.add_int("firmware.cycles_per_command", static_cast<std::int64_t>(fw.cycles_per_command), 0, 100000000,
            "core cycles per host command" + src);
  c.add_int("firmware.cycles_per_page", static_cast<std::int64_t>(fw.cycles_per_page), 0, 100000000,
            "core cycles per logical page of a host command" + src);
  c.add_int("firmware.cycles_per_gc_page", static_cast<std::int64_t>(fw.cycles_per_gc_page), 0, 100000000,
            "core cycles per GC page copy and per GC erase" + src);
  c.add_int("firmware.cycles_per_decision", static_cast<std::int64_t>(sos.cycles_per_decision), 0, 100000000,
            "controller.firmware_sched = sos: core cycles per release decision of its dynamic scheduler" + src);
  c.add_int("firmware.cycles_per_qsl_move", static_cast<std::int64_t>(sos.cycles_per_qsl_move), 0, 100000000,
            "controller.firmware_sched = sos: core cycles per QSL move" + src);
  c.add_int("firmware.cycles_per_whm_lookup", static_cast<std::int64_t>(sos.cycles_per_whm_lookup), 0, 100000000,
            "controller.firmware_sched = sos: core cycles per WHM lookup, one per host page program" + src);
  c.add_double("ftl.overprovisioning", ftl.overprovisioning, 0, 0.89, "fraction of the physical pages hidden from the host");
  c.add_enum("ftl.write_policy", ctrl::kDefaultWritePolicy, ctrl::names_of(ctrl::write_policies()),
             "where a host page write goes (controller/write_allocator.h): " + ctrl::described(ctrl::write_policies()));
  c.add_int("ftl.batch_depth", fw.batch_depth, 0, 65535,
            "with nand.multiplane and two or more planes per die: the scheduler block holds at most this many "
            "commands of a die (of a class and the more urgent ones), the firmware batches the rest into n-plane "
            "commands (docs/scheduler.md, Batching); 0: no batching");
  c.add_string("ftl.allocation", ftl.allocation, "static allocation order, fastest first: C channel, W chip, D die, P plane");
  c.add_double("ftl.gc_threshold", ftl.gc_threshold, 0.001, 0.49, "GC a plane when its free blocks fall below this fraction");
  c.add_int("ftl.gc_copies_in_flight", fw.gc_copies_in_flight, 0, 65535,
            "GC page copies in flight per victim (read issued, program not ended); 0 = all of a victim's at once");
  c.add_enum("ftl.gc_destination", fw.gc_in_die ? "die" : "plane", {"die", "plane"},
             "where a GC copy is programmed: die = the die's GC stream, on the plane the die-aligned frontier picks "
             "(the die's planes at one page offset, so that copies run as n-plane programs: docs/scheduler.md, Write "
             "placement); plane = the victim's plane's own GC stream");
  c.add_enum("ftl.queue_delay_from", fw.delay_from_release ? "release" : "arrival", {"arrival", "release"},
             "where the busy forecast counts a command's delay from (Chen et al. Eq. 9): its request's arrival at the "
             "controller (arrival, as the paper defines it) or its release to the flash; ftl.write_policy = delay "
             "ranks channels by these delays, and stats.json placement's predicted and actual waits use the same "
             "origin under every policy that keeps the forecast");
  c.add_double("ftl.precondition", 1.0, 0, 1,
               "fraction of the logical space written (and aged) before time 0 (1: every host read reaches the flash)");
  c.add_double("ftl.precondition_age", 1.0, 0, 1000,
               "0: the filled pages are written once, in order; > 0: the steady state of uniform random "
               "overwrites under greedy GC, with this many drive writes of erase history");
  c.add_enum("ftl.precondition_free", "auto", {"auto", "gc_mark", "gc_running", "reserve"},
             "aged preconditioning: where each plane starts in its GC cycle. auto = where the workload holds "
             "it: a pilot run of the workload's first report.start_pilot_requests measures its host write "
             "rate and GC's copy rate, and the planes start at the free blocks that balance them "
             "(controller/start_state.h; the mean goes to ftl.precondition_free_blocks; stats.json ftl.start); "
             "gc_mark = at the GC low mark, no GC run under way; gc_running = one block under the mark with "
             "a GC run under way on every plane, part of its copies done; reserve = the last free block and "
             "one more, runs under way");
  c.add_double("ftl.precondition_free_blocks", 0, 0, 16777216,
               "ftl.precondition_free = auto: the mean free blocks per plane at time 0, from the last reserve + 1 "
               "to the GC low mark (each plane gets the integer below or above it, drawn from the seed; a "
               "plane under the mark starts with a GC run under way). 0 = from the start pilot (ssdsim sets "
               "it, and config.json keeps it: a run of that file needs no pilot)");
  c.add_int("report.start_pilot_requests", 24000, 8, 1000000000,
            "ftl.precondition_free = auto: the start pilot's requests (a trace's: at most its run's own); its "
            "rates are over the second half of its simulated time (the first holds the ramp of every plane "
            "starting a GC run at once)");
  c.add_double("report.start_pilot_us", 2000000, 1000, kMaxTimeUs,
               "ftl.precondition_free = auto: a synthetic workload's start pilot ends after this much simulated "
               "time if its requests have not all completed (a light load: GC's rate shows in a few runs)");
  c.add_double("host.link_mb_s", 0, 0, 1e6, "host link bandwidth, MB/s (0: unlimited)");
  c.add_enum("host.scheduler", "noop", {"noop", "rws", "piq_r", "piq_w", "piq"},
             "host I/O scheduler (PIQ paper): FIFO, reads first, or conflict-free batches of reads/writes/both");
  c.add_int("host.max_transfer_sectors", 65536, 1, 4294967295ll,
            "the largest request the host interface carries, in 512-byte sectors (SATA: 65,536, 32 MiB): a larger "
            "one is split into pieces of this size, each a request of its own, as a host block layer splits it");
  c.add_enum("host.dispatch", "ncq", {"ncq", "batch"},
             "how the host queue hands requests to the device: ncq = each as soon as an NCQ tag is free, in the "
             "scheduler's order; batch = a batch at a time (PIQ's Algorithm 1, 'Issue Batch_List.Head'): the next "
             "batch of a batched list only once every request of the one before it has completed (docs/host.md)");
  c.add_int("host.queue_length", 64, 1, 512, "host I/O scheduler queue length");
  c.add_enum("host.queue_window", "waiting", {"waiting", "waiting_and_outstanding"},
             "what host.queue_length bounds: waiting = the requests in the scheduling queue not yet sent "
             "(those sent and not completed are outside it, bounded by the device's NCQ depth and the workload's); "
             "waiting_and_outstanding = those plus the ones sent and not yet completed, the PIQ paper's "
             "scheduling window (Gao et al. Sec. IV-A): at length 1 the device holds at most one request");
  c.add_bool("host.lookahead", true,
             "accel/: each request the host reads from the workload is announced before it is sent, so the "
             "firmware's lookup tables' lines are fetched meanwhile (simulation speed only: results are identical)");
  c.add_enum("host.lookahead_thread", "auto", {"auto", "true", "false"},
             "accel/, with host.lookahead: a second thread reads the workload again, up to 512 requests ahead "
             "of the host, to compute the preconditioned image's lookups on the "
             "machine's other core (simulation speed only: results are identical). auto = only where a second "
             "core is free for it: the process may run on two CPUs or more and the machine's one-minute load "
             "average leaves at least 1.5 CPUs idle (accel/cpu_share.h, docs/performance.md)");

  c.add_enum("workload.kind", "synthetic", {"synthetic", "trace", "nand_ops"},
             "synthetic: generated requests; trace: a block trace (workload.path, workload.format); "
             "both through the whole controller. nand_ops: a script of NAND commands replayed at its "
             "timestamps straight to the NAND");
  c.add_string("workload.path", "", "trace or NAND script file (nand_ops: empty = the bundled configs/nand_demo.ops)");
  c.add_enum("workload.format", "msr", {"msr", "spc", "disksim", "mqsim", "blkparse"},
             "trace format (blkparse: Linux blkparse text, its Q events; the only one with trims and flushes)");
  c.add_enum("workload.replay", "timed", {"timed", "closed"},
             "trace replay: timed (at trace timestamps x workload.time_scale) or closed (keep "
             "workload.queue_depth outstanding)");
  c.add_double("workload.time_scale", 1.0, 1e-9, 1e9, "timed replay: arrival = trace time x this");
  c.add_int("workload.device", -1, -1, 1000000, "trace: replay only this device/volume number (-1: all)");
  c.add_enum("workload.out_of_range", "error", {"error", "wrap", "skip"},
             "trace: a request past the capacity is an error, wraps around, or is skipped and counted");
  c.add_int("workload.requests", 100000, 0, 1000000000000ll,
            "host requests to run (synthetic); a trace replays whole unless this is set: then at most this many "
            "(0 = the whole trace), and stderr says where it stopped");
  c.add_double("workload.read_ratio", 0.7, 0, 1, "fraction of reads");
  c.add_double("workload.trim_ratio", 0, 0, 1,
               "synthetic: fraction of trims, sized and placed as the other requests (writes are the rest; "
               "workload.read_ratio + this <= 1)");
  c.add_int("workload.flush_every", 0, 0, 1000000000000ll,
            "synthetic: a flush after every this many writes, at that write's arrival, beside "
            "workload.requests (0: none)");
  c.add_int("workload.size_bytes", 4096, 512, 64 << 20, "request size, bytes (a multiple of 512)");
  c.add_int("workload.size_max_bytes", 0, 0, 64 << 20,
            "if larger than workload.size_bytes: sizes uniform between the two, in steps of the alignment");
  c.add_int("workload.align_bytes", 0, 0, 64 << 20, "request start alignment, bytes (0: the request size)");
  c.add_double("workload.zipf_theta", 0, 0, 0.999, "hot/cold skew: Zipf exponent over the addresses (0: uniform)");
  c.add_double("workload.rate_iops", 0, 0, 1e9, "synthetic: open loop, Poisson arrivals at this rate (0: closed loop)");
  c.add_double("workload.duration_us", 0, 0, kMaxTimeUs, "stop making requests after this simulated time, us (0: no limit)");
  c.add_enum("workload.pattern", "random", {"random", "sequential"}, "address pattern");
  c.add_int("workload.queue_depth", 32, 1, 65535, "requests kept outstanding (closed loop)");
  c.add_int("workload.seed", 1, 0, 0x7FFFFFFFFFFFFFFFll, "random seed");

  c.add_string("trace.vcd", "", "write a VCD waveform to this file (empty: tracing off)");
  c.add_double("trace.start_us", 0, 0, 1e12, "first simulated time recorded in the VCD, us");
  c.add_double("trace.end_us", 0, 0, 1e12, "last simulated time recorded, us (0: to the end)");
  c.add_string("trace.scopes", "", "comma-separated scopes to trace, each a whole dotted name and what is under it, "
               "e.g. ssd.nand.ch0 (empty: all; needs trace.vcd)");
  c.add_string("trace.request", "",
               "host request ids (from 1, comma-separated) whose life the VCD shows as signals of their own "
               "(ssd.request.rID; needs trace.vcd)");
  c.add_int("trace.request_pages", 16, 1, 4096, "page slots shown per traced request (its first pages)");
  c.add_string("report.request_timeline", "",
               "host request ids (from 1, comma-separated) whose life is printed as a table after the run");

  c.add_bool("report.calibrate_kernel", false,
             "after the workload, measure the kernel's activations per second (the fastest of ten rounds "
             "of 400,000 timed notifications; then a peq_with_get loop alike) and report the run's cost in "
             "kernel activations per host request");
  c.add_string("report.requests_csv", "",
               "write one line per host request to this CSV file: submit_us,complete_us,op,lba,bytes,latency_us, part_<part>_us for each latency part (docs/controller.md), id");
  c.add_bool("report.audit", false,
             "after the workload, read every logical page back through the NAND's backdoor and check it "
             "against what the host last wrote (finds data lost where no read of the run looked)");
  c.add_int("report.warmup_requests", 0, 0, 1000000000000ll,
            "the first this many requests run but are left out of the statistics (the window starts at the "
            "arrival of the first request after the warm-up)");
  c.add_double("report.warmup_us", 0, 0, kMaxTimeUs,
               "requests arriving before this simulated time run but are left out of the statistics");
  c.add_enum("report.warmup", "default", {"default", "auto", "fixed"},
             "how the statistics' window starts. auto = run in rounds of report.warmup_round_requests "
             "completions and end the warm-up at steady state, by the SNIA PTS rule: over "
             "report.warmup_window_rounds rounds, each round's write amplification, IOPS and mean latency "
             "per op within +/-20 % of the window's average and its fitted line within 10 % of it across the "
             "window (stats.json steady_state; not reached: the statistics include start-up, and the summary "
             "warns); fixed = report.warmup_requests and report.warmup_us (0: none); default = auto for a "
             "synthetic workload without report.warmup_requests or report.warmup_us, else fixed");
  c.add_int("report.warmup_round_requests", 2000, 10, 1000000000000ll,
            "report.warmup = auto: requests completed per round");
  c.add_int("report.warmup_window_rounds", 5, 2, 1000, "report.warmup = auto: the rounds a steady window spans");
  c.add_double("report.interval_us", 0, 0, kMaxTimeUs,
               "write --out DIR/timeseries.csv with one row per this many simulated us (0: none)");
  c.add_bool("report.timeline", true, "print each NAND command's timeline (nand_ops workloads)");
  c.add_int("report.timeline_max", 200, 0, 1000000, "at most this many timeline lines");
  return c;
}

std::string presets_dir() { return data_dir() + "/configs/presets"; }

// The presets' names: the files NAME.json of presets_dir(), sorted.
static std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(presets_dir(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  if (ec) throw ConfigError(presets_dir() + ": cannot read the presets folder (" + ec.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

static std::string preset_path(const std::string& name) { return presets_dir() + "/" + name + ".json"; }

// Each preset file with its "preset" section's description (read for --list-presets;
// a run reads only the file of its own preset).
const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> found;
    for (const std::string& name : preset_names()) {
      Preset p{name, "", preset_path(name)};
      json::Value root;
      try {
        root = json::parse_file(p.path);
      } catch (const json::ParseError& err) {
        throw ConfigError(err.what());
      }
      for (const auto& [section, v] : root.members)
        if (section == kNotesSection)
          for (const auto& [note, text] : v.members)
            if (note == "description" && text.kind == json::Value::Kind::String) p.description = text.str;
      found.push_back(std::move(p));
    }
    return found;
  }();
  return all;
}

void apply_preset(Config& cfg, const std::string& name) {
  const std::vector<std::string> names = preset_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) {
    cfg.load_file(preset_path(name));
    return;
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw ConfigError("--preset " + name + ": unknown preset; presets are: " + list + " (the files of " + presets_dir() +
                    ")");
}

nand::NandConfig nand_config(const Config& cfg) {
  nand::NandConfig n;
  n.channels = static_cast<std::uint32_t>(cfg.get_int("nand.channels"));
  n.chips_per_channel = static_cast<std::uint32_t>(cfg.get_int("nand.chips_per_channel"));
  n.dies_per_chip = static_cast<std::uint32_t>(cfg.get_int("nand.dies_per_chip"));
  n.planes_per_die = static_cast<std::uint32_t>(cfg.get_int("nand.planes_per_die"));
  n.blocks_per_plane = static_cast<std::uint32_t>(cfg.get_int("nand.blocks_per_plane"));
  n.pages_per_block = static_cast<std::uint32_t>(cfg.get_int("nand.pages_per_block"));
  n.page_bytes = static_cast<std::uint32_t>(cfg.get_int("nand.page_bytes"));
  n.bus_mts = cfg.get_double("nand.bus_mts");
  n.cmd_addr_cycles = static_cast<std::uint32_t>(cfg.get_int("nand.cmd_addr_cycles"));
  n.erase_cmd_cycles = static_cast<std::uint32_t>(cfg.get_int("nand.erase_cmd_cycles"));
  n.t_read_us = cfg.get_double("nand.t_read_us");
  n.t_prog_us = cfg.get_double("nand.t_prog_us");
  n.t_erase_us = cfg.get_double("nand.t_erase_us");
  n.cache_read = cfg.get_bool("nand.cache_read");
  n.cache_program = cfg.get_bool("nand.cache_program");
  n.multiplane = cfg.get_bool("nand.multiplane");
  nand::FaultConfig& f = n.fault;
  f.seed = static_cast<std::uint64_t>(cfg.get_int("nand.fault.seed"));
  f.bad_block_fraction = cfg.get_double("nand.fault.bad_block_fraction");
  f.rated_cycles = cfg.get_double("nand.fault.rated_cycles");
  f.wear_exponent = cfg.get_double("nand.fault.wear_exponent");
  f.wear_cycles = cfg.get_double("nand.fault.wear_cycles");
  f.program_fail_new = cfg.get_double("nand.fault.program_fail_new");
  f.program_fail_eol = cfg.get_double("nand.fault.program_fail_eol");
  f.erase_fail_new = cfg.get_double("nand.fault.erase_fail_new");
  f.erase_fail_eol = cfg.get_double("nand.fault.erase_fail_eol");
  f.rber_new = cfg.get_double("nand.fault.rber_new");
  f.rber_eol = cfg.get_double("nand.fault.rber_eol");
  f.rber_sigma = cfg.get_double("nand.fault.rber_sigma");
  f.retry_gain = cfg.get_double("nand.fault.retry_gain");
  f.retry_steps = static_cast<std::uint32_t>(cfg.get_int("nand.fault.retry_steps"));
  f.soft_senses = static_cast<std::uint32_t>(cfg.get_int("nand.fault.soft_senses"));
  f.soft_gain = cfg.get_double("nand.fault.soft_gain");
  f.retry_cmd_cycles = static_cast<std::uint32_t>(cfg.get_int("nand.fault.retry_cmd_cycles"));
  f.codeword_bytes = static_cast<std::uint32_t>(cfg.get_int("nand.fault.codeword_bytes"));
  f.script = cfg.get_string("nand.fault.script");
  if (!f.script.empty()) {
    std::ifstream in(f.script);
    if (!in) throw ConfigError(cfg.locate("nand.fault.script = " + f.script + ": cannot be read"));
    std::stringstream text;
    text << in.rdbuf();
    try {
      f.injections = nand::parse_fault_script(text.str(), f.script);
      // Injections outside the geometry: found by building the model once.
      nand::FaultModel probe(f, n.channels, n.chips_per_channel, n.dies_per_chip, n.planes_per_die,
                             n.blocks_per_plane, n.pages_per_block);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(e.what());
    }
  }
  std::vector<std::string> errs = n.validate();
  if (!errs.empty()) {
    std::string msg = "invalid NAND configuration:";
    for (const std::string& e : errs) msg += "\n  " + cfg.locate(e);
    throw ConfigError(msg);
  }
  return n;
}

std::string warmup_mode(const Config& cfg) {
  const std::string mode = cfg.get_string("report.warmup");
  const bool explicit_warmup = cfg.get_int("report.warmup_requests") > 0 || cfg.get_double("report.warmup_us") > 0;
  if (mode == "default") return cfg.get_string("workload.kind") == "synthetic" && !explicit_warmup ? "auto" : "fixed";
  if (mode == "auto" && explicit_warmup)
    throw ConfigError(cfg.locate("report.warmup = auto ends the warm-up at steady state: leave report.warmup_requests "
                                 "and report.warmup_us at 0, or set report.warmup = fixed"));
  if (mode == "auto" && cfg.get_string("workload.kind") == "nand_ops")
    throw ConfigError(cfg.locate("report.warmup = auto needs host requests: a nand_ops script has none"));
  return mode;
}

std::string precondition_free_mode(const Config& cfg) {
  const std::string mode = cfg.get_string("ftl.precondition_free");
  if (mode != "auto" && cfg.get_double("ftl.precondition_free_blocks") > 0)
    throw ConfigError(cfg.locate("ftl.precondition_free_blocks is the start of ftl.precondition_free = auto, not of " +
                                 mode));
  return mode;
}

std::uint32_t precondition_free_blocks(const Config& cfg, std::uint32_t gc_low, std::uint32_t reserve) {
  return precondition_free_blocks(precondition_free_mode(cfg), gc_low, reserve);
}

// `reserve`: the free blocks only GC may take (Ftl::gc_reserve).
std::uint32_t precondition_free_blocks(const std::string& mode, std::uint32_t gc_low, std::uint32_t reserve) {
  if (mode == "reserve") return reserve + 1;
  if (mode == "gc_running") return std::max<std::uint32_t>(gc_low - 1, reserve + 1);  // the last reserve + 1 at least
  return gc_low;
}

ctrl::FtlConfig ftl_config(const Config& cfg) {
  ctrl::FtlConfig f;
  f.nand = nand_config(cfg);
  f.overprovisioning = cfg.get_double("ftl.overprovisioning");
  f.allocation = cfg.get_string("ftl.allocation");
  f.gc_threshold = cfg.get_double("ftl.gc_threshold");
  std::vector<std::string> errs = f.validate();
  if (!errs.empty()) {
    std::string msg = "invalid FTL configuration:";
    for (const std::string& e : errs) msg += "\n  " + cfg.locate(e);
    throw ConfigError(msg);
  }
  if (cfg.get_int("workload.size_bytes") % 512 != 0)
    throw ConfigError(cfg.locate("workload.size_bytes = " + std::to_string(cfg.get_int("workload.size_bytes")) +
                                 " is not a multiple of 512"));
  return f;
}

namespace {
// The non-empty items of a comma-separated list, spaces removed.
// The items of a comma-separated list (spaces around them dropped); an empty list is
// empty, an empty item (",,", a leading or trailing comma) is an error naming the key.
std::vector<std::string> comma_list(const Config& cfg, const std::string& key) {
  const std::string& text = cfg.get_string(key);
  std::vector<std::string> items;
  if (text.find_first_not_of(' ') == std::string::npos) return items;
  std::string cur;
  for (char ch : text + ",") {
    if (ch == ',') {
      if (cur.empty()) throw ConfigError(cfg.locate(key + " = '" + text + "': an empty item in the comma list"));
      items.push_back(cur);
      cur.clear();
    } else if (ch != ' ') {
      cur.push_back(ch);
    }
  }
  return items;
}
}  // namespace

std::vector<std::uint64_t> request_ids(const Config& cfg, const std::string& key) {
  std::vector<std::uint64_t> ids;
  for (const std::string& item : comma_list(cfg, key)) {
    std::uint64_t v = 0;
    bool ok = item.size() <= 19;
    for (char d : item) {
      if (d < '0' || d > '9') ok = false;
      else v = v * 10 + static_cast<std::uint64_t>(d - '0');
    }
    if (!ok || v == 0)
      throw ConfigError(cfg.locate(key + ": '" + item + "' is not a request id (a whole number from 1, below 10^19)"));
    ids.push_back(v);
  }
  return ids;
}

TraceOptions trace_options(const Config& cfg) {
  TraceOptions t;
  t.path = cfg.get_string("trace.vcd");
  t.start = us_to_ticks(cfg.get_double("trace.start_us"));
  const double end = cfg.get_double("trace.end_us");
  t.end = end > 0 ? us_to_ticks(end) : kNever;
  if (end > 0 && t.end <= t.start)
    throw ConfigError(cfg.locate("trace.end_us must be greater than trace.start_us (or 0 for no end)"));
  t.scopes = comma_list(cfg, "trace.scopes");
  if (!t.scopes.empty() && t.path.empty())
    throw ConfigError(cfg.locate("trace.scopes chooses what the VCD shows: set trace.vcd too"));
  return t;
}

}  // namespace ssd
