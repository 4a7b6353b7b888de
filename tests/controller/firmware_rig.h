// The firmware's units (controller/firmware.h) run without the SystemC kernel: the
// module's ports, an event loop, a NAND behind them and a host in front.
//  - The NAND runs each die's commands one at a time, in the order they reach it, in a
//    fixed time per operation (no bus). It keeps every page's token, refuses (records)
//    a program of any page but its block's next one and a read of an erased page, and can
//    be told to fail a program, or give a read bit errors, by page.
//  - The host keeps `depth` requests outstanding (a closed loop), random reads and writes
//    of 1 to 32 sectors anywhere (pages written in part among them), each write's pages
//    recorded in a shadow as it is sent, every read checked against it when it completes.
// Every event at a time runs in order: the NAND's completions, then the firmware's
// wake-ups, then the instant's batches (FlashOut::settle_soon), as in the module.
#pragma once

#include <catch2/catch.hpp>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "controller/firmware.h"
#include "tlm/host_protocol.h"

namespace ssd::ctrl::test {

inline FtlConfig tiny_device() {  // 2 x 2 x 1 x 2, 16 blocks of 8 pages of 4 KiB: GC all the time
  FtlConfig f;
  f.nand.channels = 2;
  f.nand.chips_per_channel = 2;
  f.nand.dies_per_chip = 1;
  f.nand.planes_per_die = 2;
  f.nand.blocks_per_plane = 16;
  f.nand.pages_per_block = 8;
  f.nand.page_bytes = 4096;
  f.overprovisioning = 0.25;
  return f;
}

inline FirmwareConfig free_firmware() {
  FirmwareConfig fw;
  fw.cycles_per_command = fw.cycles_per_page = fw.cycles_per_gc_page = 0;
  return fw;
}

struct Rig final : FirmwarePorts {
  static constexpr Tick kRead = 50 * kTicksPerUs, kProgram = 500 * kTicksPerUs, kErase = 2000 * kTicksPerUs;

  Rig(const FtlConfig& f, const FirmwareConfig& c, std::unique_ptr<FirmwareScheduler> release = nullptr,
      std::unique_ptr<WriteAllocator> allocator = nullptr)
      : ftl_cfg(f), spp(f.nand.page_bytes / 512), fw(f, c, std::move(allocator), std::move(release), *this),
        blocks(f.nand.total_pages() / f.nand.pages_per_block), die_free(f.nand.chips() * f.nand.dies_per_chip, 0) {
    fw.set_time(0);
    fw.start();
  }
  FtlConfig ftl_cfg;
  std::uint64_t spp;
  Firmware fw;

  // ---- the event loop ----
  struct Event {
    Tick t;
    int phase;  // 0: NAND completions and host arrivals, 1: firmware wake-ups, 2: the instant's batches
    std::uint64_t seq;
    std::function<void()> f;
    bool operator>(const Event& o) const {
      return t != o.t ? t > o.t : phase != o.phase ? phase > o.phase : seq > o.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  Tick t = 0;
  std::uint64_t seq = 0;
  void at(Tick when, int phase, std::function<void()> f) { events.push({when, phase, seq++, std::move(f)}); }
  void run() {
    while (!events.empty()) {
      Event e = events.top();
      events.pop();
      t = e.t;
      fw.set_time(t);
      e.f();
    }
  }

  // ---- the ports ----
  std::vector<std::string> errors, warnings;
  std::uint64_t sent = 0, sent_pages = 0, multiplane = 0;
  void send(FwCommand& c) override {
    FlashCommand& f = *c.cmd;
    ++sent;
    sent_pages += f.plane_count();
    if (f.plane_count() > 1) ++multiplane;
    const std::size_t die = (std::size_t{f.channel} * ftl_cfg.nand.chips_per_channel + f.chip) * ftl_cfg.nand.dies_per_chip + f.die;
    const Tick start = std::max(t, die_free[die]);
    const Tick end = start + (f.op == FlashOp::Read ? kRead : f.op == FlashOp::Program ? kProgram : kErase);
    die_free[die] = end;
    f.t_queued = t;
    f.t_submit = f.t_start = f.t_bus_end = f.t_array_start = start;
    f.t_array_end = f.t_out_ready = f.t_out_start = f.t_done = end;
    f.bus_cmd_ticks = 0;
    f.waited = {};
    f.metered = false;
    FwCommand* cp = &c;
    at(end, 0, [this, cp] { execute(*cp); });
  }
  bool settle_pending = false;
  void wake_at(FwCommand& c, Tick when) override {
    FwCommand* cp = &c;
    at(when, 1, [this, cp] { fw.time_came(*cp); });
  }
  // As sc_event's timed notification (FirmwareCore::alarm_at): of two calls pending, the
  // earlier wins and the later is dropped (the port's contract: the stage asks again).
  Tick alarm_when = ~Tick{0};
  std::uint64_t alarm_gen = 0;
  void alarm_at(Tick when) override {
    if (alarm_when != ~Tick{0} && alarm_when <= when) return;
    alarm_when = when;
    const std::uint64_t g = ++alarm_gen;
    at(when, 1, [this, g] {
      if (g != alarm_gen) return;  // replaced by an earlier one
      alarm_when = ~Tick{0};
      fw.alarm();
    });
  }
  void settle_soon() override {
    if (settle_pending) return;
    settle_pending = true;
    at(t, 2, [this] {
      settle_pending = false;
      fw.settle();
    });
  }
  void error(const std::string& what) override { errors.push_back(what); }
  void warning(const std::string& what) override { warnings.push_back(what); }

  // ---- the NAND ----
  struct Block {
    std::uint32_t wp = 0;
    std::vector<Token> tokens;
  };
  std::vector<Block> blocks;
  std::vector<Tick> die_free;
  std::set<std::uint32_t> fail_program;               // ppas whose program fails (once)
  std::map<std::uint32_t, std::uint16_t> bit_errors;  // ppa -> bit errors of its reads at level 0
  std::uint16_t errors_per_level = 30;                // each further read level removes this many
  std::uint64_t nand_reads = 0, nand_programs = 0, nand_erases = 0, out_of_order = 0;
  std::uint32_t global_block(const FlashCommand& f, unsigned p) const {
    const nand::NandConfig& n = ftl_cfg.nand;
    return static_cast<std::uint32_t>(
        ((((std::size_t{f.channel} * n.chips_per_channel + f.chip) * n.dies_per_chip + f.die) * n.planes_per_die + p) *
         n.blocks_per_plane) +
        f.block[p]);
  }
  void execute(FwCommand& c) {
    FlashCommand& f = *c.cmd;
    const std::uint32_t ppb = ftl_cfg.nand.pages_per_block;
    f.status = FlashStatus::Ok;
    for (unsigned p = 0; p < kMaxPlanes; ++p) {
      if (!(f.plane_mask >> p & 1u)) continue;
      Block& b = blocks[global_block(f, p)];
      const std::uint32_t ppa = global_block(f, p) * ppb + f.page;
      if (b.tokens.empty()) b.tokens.assign(ppb, kErasedToken);
      switch (f.op) {
        case FlashOp::Program: {
          // A wordline of nand.bits_per_cell pages: page k's data in token (k = 0) or
          // wordline_token[k - 1]; a failure fails them all.
          const std::uint32_t n = ftl_cfg.nand.bits_per_cell;
          ++nand_programs;
          if (f.page != b.wp || f.page % n) {
            ++out_of_order;
            errors.push_back("programming " + f.describe() + " out of order: the block's next page is " +
                             std::to_string(b.wp));
          }
          b.wp = f.page + n;
          bool failed = false;
          for (std::uint32_t k = 0; k < n; ++k) failed = fail_program.erase(ppa + k) > 0 || failed;
          for (std::uint32_t k = 0; k < n; ++k)
            b.tokens[f.page + k] = failed ? kFailedProgramToken : k == 0 ? f.token[p] : f.wordline_token[k - 1][p];
          if (failed) {
            f.failed_planes = static_cast<std::uint8_t>(f.failed_planes | 1u << p);
            f.status = FlashStatus::ProgramFailed;
          }
          break;
        }
        case FlashOp::Read: {
          ++nand_reads;
          if (f.page >= b.wp) errors.push_back("reading " + f.describe() + ", which is erased");
          f.token[p] = b.tokens[f.page];
          const auto e = bit_errors.find(ppa);
          const int left = e == bit_errors.end() ? 0 : e->second - errors_per_level * f.read_level;
          f.bit_errors[p] = static_cast<std::uint16_t>(left > 0 ? left : 0);
          break;
        }
        case FlashOp::Erase:
          ++nand_erases;
          b.wp = 0;
          b.tokens.assign(ppb, kErasedToken);
          break;
        case FlashOp::Resume:
          break;
      }
    }
    if (fw.decodes(c)) {
      FwCommand* cp = &c;
      at(t + c.ecc_ticks, 0, [this, cp] { fw.completed(*cp); });
      return;
    }
    fw.completed(c);
  }
  Token page_token(std::uint32_t ppa) const {
    const Block& b = blocks[ppa / ftl_cfg.nand.pages_per_block];
    const std::uint32_t page = ppa % ftl_cfg.nand.pages_per_block;
    return page < b.wp ? b.tokens[page] : kErasedToken;
  }

  // ---- the host ----
  struct Request {
    HostCommand cmd;
    std::vector<Token> expected;  // read: the token each page last had written (the host's own)
    Tick sent = 0, done = 0;
    bool complete = false;
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  };
  std::deque<Request> requests;
  std::map<std::uint64_t, Token> shadow;  // lpn -> the token last written
  std::uint64_t reads_checked = 0, mismatches = 0, media_errors = 0, completed = 0;
  std::function<void(Request&)> on_complete;  // a test's
  Token expected(std::uint64_t lpn) const {
    const auto it = shadow.find(lpn);
    return it == shadow.end() ? kUnwrittenToken : it->second;
  }
  // Sends a host command now (its core work is free: it is processed at once); `fua`: a
  // write with Force Unit Access.
  Request& send_host(HostOp op, std::uint64_t lba, std::uint32_t sectors, bool fua = false) {
    Request& r = requests.emplace_back();
    HostCommand& c = r.cmd;
    c.op = op;
    c.fua = fua;
    c.lba = lba;
    c.sectors = sectors;
    c.id = requests.size();
    c.t_fw_in = t;
    r.sent = t;
    const PageSpan span = page_span(lba, sectors, spp);
    for (std::uint64_t lpn = span.first; lpn < span.end() && sectors; ++lpn) {
      if (op == HostOp::Read) {
        r.expected.push_back(expected(lpn));
      } else if (op == HostOp::Write) {
        const Token fresh = write_token(lpn, c.id);
        c.tokens.push_back(fresh);
        shadow[lpn] = covers_part(lba, sectors, lpn, spp) ? merge_tokens(expected(lpn), fresh) : fresh;
      } else if (op == HostOp::Trim && !covers_part(lba, sectors, lpn, spp)) {
        shadow.erase(lpn);
      }
    }
    const Tick done = fw.arrived(c);
    REQUIRE(done == t);  // free firmware
    fw.process(c, &r);
    return r;
  }
  void complete(HostWork& w) override {
    Request& r = *static_cast<Request*>(w.payload);
    r.complete = true;
    r.done = t;
    r.status = w.response == HostWork::Response::Ok ? tlm::TLM_OK_RESPONSE
               : w.response == HostWork::Response::AddressError ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                                : tlm::TLM_GENERIC_ERROR_RESPONSE;
    ++completed;
    if (r.cmd.op == HostOp::Read)
      for (std::size_t i = 0; i < r.cmd.tokens.size() && i < r.expected.size(); ++i) {
        if (r.cmd.tokens[i] == kUnrecoveredToken) {
          ++media_errors;
          continue;
        }
        ++reads_checked;
        if (r.cmd.tokens[i] != r.expected[i]) ++mismatches;
      }
    if (on_complete) on_complete(r);
  }
  // A closed loop of `total` random requests, `depth` outstanding; writes `write_share`.
  std::uint64_t rng = 0x9E3779B97F4A7C15ull;
  std::uint64_t next_random() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  }
  void random_load(std::uint64_t total, unsigned depth, unsigned write_percent = 50) {
    const std::uint64_t sectors = fw.ftl().logical_pages() * spp;
    std::uint64_t issued = 0;
    const std::uint64_t before = completed;
    const auto one = [this, sectors, write_percent, &issued] {
      ++issued;
      const std::uint32_t n = static_cast<std::uint32_t>(1 + next_random() % 32);
      const std::uint64_t lba = next_random() % (sectors - n);
      send_host(next_random() % 100 < write_percent ? HostOp::Write : HostOp::Read, lba, n);
    };
    on_complete = [this, total, one, before, &issued](Request&) {
      if (issued < total) at(t, 0, one);
      else if (completed - before == total) fw.end_of_workload();
    };
    for (unsigned k = 0; k < depth && issued < total; ++k) at(0, 0, one);
    run();
    on_complete = nullptr;
  }
  // Every logical page read back from the NAND where the FTL maps it, against the shadow.
  std::uint64_t audit_mismatches() const {
    std::uint64_t bad = 0;
    for (std::uint64_t lpn = 0; lpn < fw.ftl().logical_pages(); ++lpn) {
      const std::uint32_t ppa = fw.ftl().lookup(lpn);
      const Token held = ppa == kUnmapped ? kUnwrittenToken : page_token(ppa);
      bad += held != expected(lpn);
    }
    return bad;
  }
};

}  // namespace ssd::ctrl::test
