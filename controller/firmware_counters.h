// What the firmware counts (stats.json "firmware" and part of "ftl"), in a header of its
// own so that the plain C++ units that count (the GC unit) need not include the SystemC
// firmware module.
#pragma once

#include <cstdint>
#include <vector>

namespace ssd::ctrl {

struct FirmwareCounters {
  std::uint64_t host_reads = 0, host_writes = 0, host_trims = 0, host_flushes = 0;
  std::uint64_t trimmed_pages = 0;  // whole logical pages a trim unmapped (or found unmapped)
  std::uint64_t flushes_waited = 0;  // flushes that waited for earlier writes to be on flash
  std::uint64_t fua_writes = 0;      // host writes with Force Unit Access
  std::uint64_t cancelled_programs = 0;  // superseded host programs a firmware scheduler dropped
  std::uint64_t combined_commands = 0;   // n-plane commands a firmware scheduler made of single-page ones
  // Cells of n bits: wordline programs sent (per plane), and the filler pages that padded
  // partial wordlines (HoldingStage, "wordlines").
  std::uint64_t wordlines = 0, padded_pages = 0;
  std::uint64_t mixed_pages = 0;  // GC copies bound into host wordlines (ftl.wordline_mix)
  // GC runs parked with copies in a partial wordline the next run filled or GC padded later
  // (GcUnit: their last wordline not padded at their end).
  std::uint64_t gc_carried_wordlines = 0;
  std::uint64_t flash_reads = 0, buffer_hits = 0, unwritten_reads = 0;
  std::uint64_t rmw_reads = 0, superseded_programs = 0, stalled_writes = 0;
  std::uint64_t gc_runs = 0, gc_foreground = 0, gc_copies = 0, gc_stale_copies = 0;
  std::uint64_t fold_runs = 0;  // of gc_runs, those whose victim was an SLC cache block (a fold)
  std::uint64_t gc_skipped_copies = 0;  // a victim's page invalidated before its copy was issued
  std::uint64_t gc_urgent_commands = 0;  // GC commands issued in the foreground (urgent class)
  // Blocks a program failed in, emptied by GC and retired; the valid pages found in them.
  std::uint64_t gc_retired = 0, gc_retire_copies = 0;
  // Copies GC left in their victim for want of a free page (the plane lost blocks): the
  // one that found none and those not yet issued; the run ended without erasing it.
  std::uint64_t gc_dropped_copies = 0;
};

// Failures and their recovery (stats.json "faults"; docs/controller.md, "Faults and
// recovery").
struct FaultCounters {
  // Page reads by the decode tier that ended them (hard, read retry, soft; an
  // uncorrectable read counts in none) and by the extra read levels each took (index n:
  // n retries; the last index counts the uncorrectable ones too).
  std::uint64_t tier_reads[3] = {0, 0, 0};
  std::vector<std::uint64_t> retries;
  std::uint64_t retry_reads = 0;            // read attempts the firmware issued again at a further level
  std::uint64_t uncorrectable_reads = 0;    // page reads beyond the last tier, any origin
  std::uint64_t host_pages_unrecovered = 0; // host read pages answered with a media error
  std::uint64_t lost_pages = 0;             // logical pages whose data is known lost (poisoned), now
  std::uint64_t program_failures = 0, erase_failures = 0;  // pages, blocks
  std::uint64_t reprogrammed_pages = 0;     // host pages programmed again elsewhere after a failure
  std::uint64_t recopied_pages = 0;         // GC copies programmed again elsewhere after a failure
  std::uint64_t refused_writes = 0, refused_trims = 0;  // host commands refused, read-only
  std::uint64_t failed_write_pages = 0;     // host write pages failed: their plane could gain no space
  std::uint64_t failed_acknowledged_pages = 0;  // of those, pages the write cache had acknowledged
};

// Where host pages went and how commands were batched (stats.json "placement" and
// "batching").
struct PlacementCounters {
  std::uint64_t placed_off_static = 0;  // host pages programmed off their static plane (ftl.allocation)
  // Per channel, over the host commands completed that the forecast predicted (a policy that
  // weighs it: WriteAllocator::uses_forecast): the predicted and the actual wait from
  // the request's arrival at the controller to the command's first bus cycle (Chen's
  // Eq. 9), summed, and the commands.
  std::vector<std::uint64_t> predicted_wait_ps, actual_wait_ps, predicted_commands;
  std::uint64_t abs_error_ps = 0;  // |actual - predicted|, summed over those commands
  // Chen's write groups (WriteAllocator::groups): over the groups whose first page has
  // run, the forecast and the actual delay from the group's opening to that page's start,
  // summed, |actual - predicted| summed, and the groups.
  std::uint64_t group_predicted_ps = 0, group_actual_ps = 0, group_abs_error_ps = 0, groups_timed = 0;
  // Batching (controller/die_batcher.h): commands sent to the scheduler block through it,
  // batches by their pages (index n: n pages), pages sent in n-plane commands.
  std::uint64_t batches = 0;
  std::vector<std::uint64_t> batch_sizes;
  std::uint64_t multiplane_pages = 0;
};

}  // namespace ssd::ctrl
