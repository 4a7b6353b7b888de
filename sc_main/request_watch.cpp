#include "sc_main/request_watch.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace ssd {

RequestWatch::RequestWatch(const Setup& setup, VcdWriter* vcd)
    : vcd_(vcd), nand_(setup.nand), spp_(setup.sectors_per_page), slots_(setup.page_slots) {
  planes_ = nand_.channels * nand_.chips_per_channel * nand_.dies_per_chip * nand_.planes_per_die;
  const auto add = [this](std::uint64_t id) -> Watched& {
    auto at = std::lower_bound(watched_.begin(), watched_.end(), id,
                               [](const Watched& w, std::uint64_t v) { return w.id < v; });
    if (at == watched_.end() || at->id != id) {
      at = watched_.insert(at, Watched{});
      at->id = id;
    }
    return *at;
  };
  for (std::uint64_t id : setup.timeline) add(id).timeline = true;
  if (!vcd_) return;
  for (std::uint64_t id : setup.traced) add(id).traced = true;
  for (Watched& w : watched_) {
    if (!w.traced) continue;
    const std::string r = "ssd.request.r" + std::to_string(w.id);
    w.v_stage = vcd_->declare(r + ".stage", 4);
    w.v_pages = vcd_->declare(r + ".pages", 32);
    w.v_commands = vcd_->declare(r + ".commands", 16);
    for (unsigned p = 0; p < slots_; ++p) {
      const std::string s = r + ".p" + std::to_string(p);
      w.v_pstage.push_back(vcd_->declare(s + ".stage", 4));
      w.v_pwhere.push_back(vcd_->declare(s + ".where", 32));
      w.v_pcmd.push_back(vcd_->declare(s + ".cmd", 64));
      w.v_porigin.push_back(vcd_->declare(s + ".origin", 3));
    }
  }
}

RequestWatch::Watched* RequestWatch::find(std::uint64_t id) {
  const auto at = std::lower_bound(watched_.begin(), watched_.end(), id,
                                   [](const Watched& w, std::uint64_t v) { return w.id < v; });
  return at != watched_.end() && at->id == id ? &*at : nullptr;
}

std::uint32_t RequestWatch::where_of(const FlashCommand& c) const {
  return ((std::uint32_t{c.channel} * nand_.chips_per_channel + c.chip) * nand_.dies_per_chip + c.die) *
             nand_.planes_per_die + c.first_plane() + 1;
}

std::string RequestWatch::where_name(std::uint32_t where) const {
  if (where == 0 || where > planes_) return "-";
  std::uint32_t p = where - 1;
  const std::uint32_t plane = p % nand_.planes_per_die;
  p /= nand_.planes_per_die;
  const std::uint32_t die = p % nand_.dies_per_chip;
  p /= nand_.dies_per_chip;
  const std::uint32_t chip = p % nand_.chips_per_channel;
  const std::uint32_t ch = p / nand_.chips_per_channel;
  return "ch" + std::to_string(ch) + ".chip" + std::to_string(chip) + ".die" + std::to_string(die) + ".plane" +
         std::to_string(plane);
}

// While the firmware has commands out for it, a request waits for the earliest of them.
Stage RequestWatch::request_stage(const Watched& w) const {
  if (w.host != Stage::Firmware || w.inflight.empty()) return w.host;
  Stage s = Stage::Done;
  for (const InFlight& f : w.inflight) s = std::min(s, f.stage);
  return s;
}

// A command's change (`by_command`) shows the request's stage on its own row; a
// host-side change gets a row of its own, even at the same time as the one before.
void RequestWatch::update(Watched& w, Tick t, bool by_command) {
  const Stage s = request_stage(w);
  if (w.traced) {
    vcd_->change(w.v_stage, t, static_cast<unsigned>(s));
    vcd_->change(w.v_commands, t, w.inflight.size());
  }
  if (!w.timeline) {
    w.shown = s;
    return;
  }
  if (by_command && !w.rows.empty() && w.rows.back().t == t) w.rows.back().request = s;
  else if (s != w.shown) w.rows.push_back(Row{t, s, -1, 0, FlashOrigin::None, 0, s});
  w.shown = s;
}

void RequestWatch::request_arrived(Tick t, std::uint64_t id, HostOp op, std::uint64_t lba, std::uint32_t sectors,
                                   Tick arrival) {
  Watched* w = find(id);
  if (!w) return;
  w->seen = true;
  w->op = op;
  w->lba = lba;
  w->sectors = sectors;
  w->pages = static_cast<std::uint32_t>(page_span(lba, sectors, spp_).count);
  w->arrival = arrival;
  w->entered = t;
  w->host = Stage::HostQueue;
  if (w->traced) vcd_->change(w->v_pages, t, w->pages);
  update(*w, t, false);
}

void RequestWatch::request_at(Tick t, std::uint64_t id, Stage s) {
  Watched* w = find(id);
  if (!w || !w->seen) return;
  w->host = s;
  if (s == Stage::Done) w->done = t;
  update(*w, t, false);
}

void RequestWatch::page_row(Watched& w, Tick t, std::uint32_t page, std::uint64_t cmd, FlashOrigin origin,
                            std::uint32_t where, Stage s) {
  if (w.traced && page < slots_) {
    vcd_->change(w.v_pstage[page], t, static_cast<unsigned>(s));
    vcd_->change(w.v_pwhere[page], t, where);
    vcd_->change(w.v_pcmd[page], t, cmd);
    vcd_->change(w.v_porigin[page], t, static_cast<unsigned>(origin));
  }
  if (w.timeline) {
    for (auto it = w.rows.rbegin(); it != w.rows.rend() && it->t == t; ++it) {
      if (it->page == static_cast<int>(page) && it->cmd == cmd) {
        it->stage = s;  // changed again at the same time: one row
        it->where = where;
        return;
      }
    }
    w.rows.push_back(Row{t, w.shown, static_cast<int>(page), cmd, origin, where, s});
  }
}

void RequestWatch::page_answered(Tick t, std::uint64_t id, std::uint32_t page) {
  Watched* w = find(id);
  if (!w || !w->seen) return;
  page_row(*w, t, page, 0, FlashOrigin::None, 0, Stage::Done);
  update(*w, t, true);
}

void RequestWatch::command_at(Tick t, const FlashCommand& c, Stage s) {
  // A command of several pages may serve several requests (the firmware's batching, the
  // block's merging): each page's request sees the command's stages.
  const auto it = carried_.find(c.id);
  if (it == carried_.end()) {
    command_for(t, c, c.request, c.host_page, s);
    return;
  }
  for (const Carried& p : it->second)
    if (p.request) command_for(t, c, p.request, p.page, s);
  if (s == Stage::Done) carried_.erase(it);
}

void RequestWatch::command_carries(Tick, const FlashCommand& whole, const FlashCommand& part) {
  carried_[whole.id].push_back({part.request, part.host_page});
}

void RequestWatch::command_joined(Tick, const FlashCommand& part, const FlashCommand& whole) {
  // The command carries its own page, then its partners' (multi-plane rescheduling).
  auto [it, fresh] = carried_.try_emplace(whole.id);
  if (fresh) it->second.push_back({whole.request, whole.host_page});
  it->second.push_back({part.request, part.host_page});
  // The part's row in the block queue now belongs to the command that carries it.
  Watched* w = find(part.request);
  if (!w || !w->seen) return;
  for (InFlight& f : w->inflight)
    if (f.cmd == part.id && f.page == part.host_page) f.cmd = whole.id;
}

void RequestWatch::command_for(Tick t, const FlashCommand& c, std::uint64_t request, std::uint32_t page, Stage s) {
  Watched* w = find(request);
  if (!w || !w->seen) return;
  auto f = std::find_if(w->inflight.begin(), w->inflight.end(), [&c, page](const InFlight& x) { return x.cmd == c.id && x.page == page; });
  if (s == Stage::Done) {
    if (f != w->inflight.end()) w->inflight.erase(f);
  } else if (f == w->inflight.end()) {
    w->inflight.push_back(InFlight{c.id, page, s});
  } else {
    if (f->stage == s) return;  // another bus segment of the same phase
    f->stage = s;
  }
  page_row(*w, t, page, c.id, c.origin, where_of(c), s);
  update(*w, t, true);
}

void RequestWatch::request_parts(Tick, std::uint64_t id, const PartTicks& parts) {
  Watched* w = find(id);
  if (w && w->seen) w->parts = parts;
}

void RequestWatch::print_timelines(std::ostream& os) const {
  for (const Watched& w : watched_) {
    if (!w.timeline) continue;
    os << "Request " << w.id;
    if (!w.seen) {
      os << ": not reached by this run\n";
      continue;
    }
    os << std::fixed << std::setprecision(3);
    os << ": " << to_string(w.op) << " lba " << w.lba << ", " << w.sectors << " sectors (" << w.pages
       << (w.pages == 1 ? " page" : " pages") << "); arrived " << ticks_to_us(w.arrival) << " us";
    if (w.done != kNever)
      os << ", done " << ticks_to_us(w.done) << " us, latency " << ticks_to_us(w.done - w.arrival) << " us";
    else
      os << ", not done when the run ended";
    os << "\n     time (us)  request (after)  page  command  origin        where                   command stage\n";
    os << std::setprecision(6);
    for (const Row& r : w.rows) {
      os << std::setw(14) << ticks_to_us(r.t) << "  ";
      if (r.page < 0) {
        os << to_string(r.request) << '\n';
        continue;
      }
      os << std::left << std::setw(16) << to_string(r.request) << ' ' << std::setw(5) << r.page << ' ' << std::setw(8) << (r.cmd ? std::to_string(r.cmd) : "-") << ' '
         << std::setw(13) << (r.cmd ? to_string(r.origin) : "no flash") << ' ' << std::setw(23)
         << where_name(r.where) << ' ' << to_string(r.stage) << std::right << '\n';
    }
    if (w.done != kNever) {
      os << "  latency parts (us, docs/controller.md):";
      bool any = false;
      for (unsigned k = 0; k < kParts; ++k) {
        if (!w.parts[k]) continue;
        os << (any ? ", " : " ") << part_name(k) << ' ' << ticks_to_us(w.parts[k]);
        any = true;
      }
      os << (any ? "\n" : " none\n");
    }
    os.unsetf(std::ios::floatfield);
  }
}

std::vector<std::uint64_t> RequestWatch::unseen() const {
  std::vector<std::uint64_t> out;
  for (const Watched& w : watched_)
    if (!w.seen) out.push_back(w.id);
  return out;
}

bool RequestWatch::traced_span(Tick& first, Tick& last) const {
  bool any = false;
  for (const Watched& w : watched_) {
    if (!w.traced || !w.seen) continue;
    const Tick end = w.done != kNever ? w.done : w.entered;
    first = any ? std::min(first, w.entered) : w.entered;
    last = any ? std::max(last, end) : end;
    any = true;
  }
  return any;
}

std::vector<std::pair<std::uint64_t, std::uint32_t>> RequestWatch::traced_pages() const {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> out;
  for (const Watched& w : watched_)
    if (w.traced && w.seen) out.emplace_back(w.id, w.pages);
  return out;
}

std::vector<std::pair<std::uint64_t, std::uint32_t>> RequestWatch::beyond_slots() const {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> out;
  for (const Watched& w : watched_)
    if (w.traced && w.seen && w.pages > slots_) out.emplace_back(w.id, w.pages);
  return out;
}

}  // namespace ssd
