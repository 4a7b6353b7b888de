// Follows chosen host requests through every layer (tlm/request_life.h): as signals in
// the VCD (trace.request) and as a table printed after the run
// (report.request_timeline). Requests not chosen cost a lookup per call while it is
// attached; without chosen requests it is not attached at all.
//
// Signals of a traced request, under ssd.request.r<ID>: `stage` (waves/stage.txt: the
// request's own stage; while the firmware has flash commands out for it, the earliest
// stage among them: what it waits for), `pages`, `commands` (its flash commands in
// flight), and per page slot pK (the first trace.request_pages pages): `stage`, `where`
// (the plane serving it: 1 + the plane's index over the device, named by the filter
// where.txt written beside the view), `cmd` and `origin` of the command serving it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/vcd_writer.h"
#include "nand/nand_config.h"
#include "tlm/request_life.h"

namespace ssd {

class RequestWatch final : public LifeListener {
 public:
  struct Setup {
    std::vector<std::uint64_t> traced;    // trace.request (needs a VcdWriter)
    std::vector<std::uint64_t> timeline;  // report.request_timeline
    unsigned page_slots = 16;             // trace.request_pages
    nand::NandConfig nand;
    std::uint64_t sectors_per_page = 8;
  };
  // Declares the traced requests' signals in `vcd` (null: none traced).
  RequestWatch(const Setup& setup, VcdWriter* vcd);

  void request_arrived(Tick t, std::uint64_t id, HostOp op, std::uint64_t lba, std::uint32_t sectors,
                       Tick arrival) override;
  void request_at(Tick t, std::uint64_t id, Stage s) override;
  void page_answered(Tick t, std::uint64_t id, std::uint32_t page) override;
  void command_at(Tick t, const FlashCommand& c, Stage s) override;
  void command_joined(Tick t, const FlashCommand& part, const FlashCommand& whole) override;
  void command_carries(Tick t, const FlashCommand& whole, const FlashCommand& part) override;
  void request_parts(Tick t, std::uint64_t id, const PartTicks& parts) override;

  // The report.request_timeline tables, one per request, in the order given, each followed
  // by the request's latency parts (the non-zero ones, in path order).
  void print_timelines(std::ostream& os) const;
  // The chosen requests the run never reached.
  std::vector<std::uint64_t> unseen() const;
  // The span of the traced requests' lives (false: none traced was seen).
  bool traced_span(Tick& first, Tick& last) const;
  // Pages of traced requests beyond the page slots (shown in no slot): request, pages.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> beyond_slots() const;
  // "ch0.chip1.die0.plane1" for a `where` value (1 + plane index).
  std::string where_name(std::uint32_t where) const;
  std::uint32_t where_values() const { return planes_ + 1; }
  // The traced requests seen: id, pages.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> traced_pages() const;
  unsigned page_slots() const { return slots_; }

 private:
  // command_at for one request and page of the command.
  void command_for(Tick t, const FlashCommand& c, std::uint64_t request, std::uint32_t page, Stage s);
  struct Row {
    Tick t;
    Stage request;       // the request's stage after this row
    int page;            // -1: a change of the request's own stage
    std::uint64_t cmd;   // the command (0: none)
    FlashOrigin origin;
    std::uint32_t where;
    Stage stage;         // the command's (or the page's) stage
  };
  struct InFlight {
    std::uint64_t cmd;
    std::uint32_t page;
    Stage stage;
  };
  struct Watched {
    std::uint64_t id = 0;
    bool traced = false, timeline = false, seen = false;
    HostOp op = HostOp::Read;
    std::uint64_t lba = 0;
    std::uint32_t sectors = 0, pages = 0;
    Tick arrival = 0, entered = 0, done = kNever;
    PartTicks parts{};  // its latency parts, once done
    Stage host = Stage::None, shown = Stage::None;
    std::vector<InFlight> inflight;
    std::vector<Row> rows;
    int v_stage = VcdWriter::kNoVar, v_pages = VcdWriter::kNoVar, v_commands = VcdWriter::kNoVar;
    std::vector<int> v_pstage, v_pwhere, v_pcmd, v_porigin;  // per page slot
  };
  Watched* find(std::uint64_t id);
  Stage request_stage(const Watched& w) const;
  void update(Watched& w, Tick t, bool by_command);  // the request's stage after a change
  void page_row(Watched& w, Tick t, std::uint32_t page, std::uint64_t cmd, FlashOrigin origin, std::uint32_t where,
                Stage s);
  std::uint32_t where_of(const FlashCommand& c) const;

  std::vector<Watched> watched_;  // by id
  // A command that carries pages of requests other than its own (the firmware joined them
  // into it, or the scheduler block merged partners into it), by command id, until its
  // NAND work is done: the (request, page) of each page it serves, which see its stages.
  struct Carried {
    std::uint64_t request;
    std::uint32_t page;
  };
  std::unordered_map<std::uint64_t, std::vector<Carried>> carried_;
  VcdWriter* vcd_;
  nand::NandConfig nand_;
  std::uint64_t spp_;
  std::uint32_t planes_;
  unsigned slots_;
};

}  // namespace ssd
