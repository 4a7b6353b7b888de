// Write allocation: which plane a page write goes to. The seam for allocation policies
// (ftl.write_policy; the dynamic ones are in controller/write_policies.h): the firmware
// asks its WriteAllocator for each host page it programs, giving it a read-only view of
// the device. Plain C++.
//
// StaticAllocator is the default policy (ftl.allocation): a logical page always goes to
// the same plane, by an order of the four dimensions (channel, chip, die, plane), fastest
// varying first. The FTL lays the preconditioned device out by it, and GC keeps data in
// its die (in its plane with ftl.gc_destination = plane), so with it a page lives on the
// chip of plane_of(lpn) for the whole run (the host's location vectors predict the chip
// from it: host/io_scheduler.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/busy_forecast.h"
#include "nand/nand_config.h"

namespace ssd::ctrl {

// What an allocation policy may look at: the device as the firmware sees it now.
class AllocationView {
 public:
  virtual ~AllocationView() = default;
  // The geometry and nominal timing. Planes are numbered
  // ((channel * chips_per_channel + chip) * dies_per_chip + die) * planes_per_die + plane.
  virtual const nand::NandConfig& nand() const = 0;
  virtual std::uint32_t planes() const = 0;
  virtual std::uint32_t chip_of_plane(std::uint32_t plane) const = 0;
  virtual std::uint32_t free_blocks(std::uint32_t plane) const = 0;
  // Flash commands the firmware has issued to the chip and not yet seen complete.
  virtual std::uint32_t commands_outstanding(std::uint32_t chip) const = 0;
  // Programs built for the plane that have no page yet (late binding: a firmware
  // scheduling policy holds them; controller/firmware_sched.h).
  virtual std::uint32_t unbound_programs(std::uint32_t plane) const = 0;
  // The firmware's forecast of when the work it has issued to each channel, chip and die
  // ends, with the commands outstanding on each (an estimate from the nominal timing:
  // controller/busy_forecast.h), and the time now. The forecast is kept only for an
  // allocator that weighs it (WriteAllocator::uses_forecast); otherwise it stays empty.
  virtual const BusyForecast& forecast() const = 0;
  virtual Tick now() const = 0;
  // Whether a host page written now can have a page of the plane: no host write waits
  // for space in it and its host stream can allocate (an open block with a page left,
  // or a free block above GC's reserve). A dynamic policy places only there.
  virtual bool can_place(std::uint32_t plane) const = 0;
  // The page offset the plane's host stream allocates next (0 when it must open a
  // block): programs of a die's planes at one offset can run as one n-plane command.
  virtual std::uint32_t next_offset(std::uint32_t plane) const = 0;
  // The firmware's commands for a die, numbered chip * dies_per_chip + die (chip as
  // above), built and not yet completed (held by the firmware, in the block or at the
  // NAND), by operation: its queue as the firmware knows it.
  struct DieLoad {
    std::uint32_t reads = 0, programs = 0, erases = 0;
    std::uint32_t total() const { return reads + programs + erases; }
  };
  virtual DieLoad die_load(std::uint32_t die) const = 0;
};

// Chen et al.'s write groups (controller/write_policies.h), for a policy that forms them:
// index n counts the groups of n pages, as formed (pages placed in them so far) and as
// predicted when each was opened (its size from the channel's bus time).
struct WriteGroupCounters {
  std::vector<std::uint64_t> formed, predicted;
};

class WriteAllocator {
 public:
  virtual ~WriteAllocator() = default;
  // The plane the next program of logical page `lpn` goes to.
  virtual std::uint32_t plane_for(std::uint64_t lpn, const AllocationView& view) = 0;
  // Whether plane_for reads view.forecast() (the firmware keeps it only then: it costs a
  // little at every command).
  virtual bool uses_forecast() const { return false; }
  // A policy that forms write groups: their sizes (null: it forms none).
  virtual const WriteGroupCounters* groups() const { return nullptr; }
  // The write group the last plane_for put its page in (id 0: none, the page goes alone):
  // the group's forecast start (pages join it until then, and it leaves for the flash
  // then at the latest), whether this page opened it and whether it filled it. The
  // holding stage keeps a group's programs until it is complete, so that they leave
  // together (controller/holding_stage.h).
  struct GroupNote {
    std::uint64_t id = 0;
    Tick until = 0;
    bool opened = false, last = false;
  };
  virtual GroupNote group_note() const { return {}; }
  static constexpr Tick kNoGroup = ~Tick{0};
};

class StaticAllocator final : public WriteAllocator {
 public:
  // Parses an order such as "CWDP" into dimension per position (0 channel, 1 chip, 2 die,
  // 3 plane); false if it is not the four letters in some order.
  static bool parse_order(const std::string& s, unsigned out[4]) {
    if (s.size() != 4) return false;
    const std::string letters = "CWDP";
    bool seen[4] = {false, false, false, false};
    for (unsigned i = 0; i < 4; ++i) {
      const std::size_t d = letters.find(s[i]);
      if (d == std::string::npos || seen[d]) return false;
      seen[d] = true;
      out[i] = static_cast<unsigned>(d);
    }
    return true;
  }
  StaticAllocator() = default;
  // `order` must parse (FtlConfig::validate checks it).
  StaticAllocator(const nand::NandConfig& n, const std::string& order) {
    unsigned ord[4];
    parse_order(order, ord);
    const std::uint64_t size[4] = {n.channels, n.chips_per_channel, n.dies_per_chip, n.planes_per_die};
    const std::uint64_t planes = size[0] * size[1] * size[2] * size[3];
    // The order's mixed radix spans the planes exactly: a page's plane depends only on
    // lpn mod planes, one division and a table.
    plane_of_lane_.resize(planes);
    for (std::uint64_t q = 0; q < planes; ++q) {
      std::uint64_t coord[4] = {0, 0, 0, 0};
      std::uint64_t r = q;
      for (unsigned k = 0; k < 4; ++k) {
        coord[ord[k]] = r % size[ord[k]];
        r /= size[ord[k]];
      }
      plane_of_lane_[q] = static_cast<std::uint32_t>(
          ((coord[0] * n.chips_per_channel + coord[1]) * n.dies_per_chip + coord[2]) * n.planes_per_die + coord[3]);
    }
  }
  std::uint32_t plane_of(std::uint64_t lpn) const { return plane_of_lane_[lpn % plane_of_lane_.size()]; }
  std::uint32_t plane_for(std::uint64_t lpn, const AllocationView&) override { return plane_of(lpn); }

 private:
  std::vector<std::uint32_t> plane_of_lane_;  // plane_of(q) for q < planes
};

}  // namespace ssd::ctrl
