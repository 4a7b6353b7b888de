// The Verilog scheduler block (rtl/sched_block.v) against the C++ block's decisions
// (controller/sched_policy.h), decision edge by decision edge, on random stimulus: random
// commands (die, operation, planes, class) queued between edges, and the readiness the
// block samples at each edge in runs of patterns: every die ready, none, random accept
// words, one channel saturated (never open), random channels open. The commands queued
// are kept within the RTL block's memory (the C++ block's queues are unbounded). Each parameterisation of the block
// is its own verilated model (tests/CMakeLists.txt). Without the SystemC kernel.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "Vrtl_hos_2x2.h"
#include "Vrtl_hos_2x2___024root.h"
#include "Vrtl_hos_2x2_fault.h"
#include "Vrtl_hos_2x2_fault___024root.h"
#include "Vrtl_hos_3x3.h"
#include "Vrtl_hos_3x3___024root.h"
#include "Vrtl_hos_4x4.h"
#include "Vrtl_hos_4x4___024root.h"
#include "Vrtl_ios_2x4.h"
#include "Vrtl_ios_2x4___024root.h"
#include "controller/sched_policy.h"
#include "rtl/rtl_block.h"

using namespace ssd;
using rtl::RtlBlock;
using rtl::Shape;

namespace {

// The stimulus' random numbers (xorshift64), each below n: one stream per comparison and seed.
struct Xorshift {
  std::uint64_t x;
  std::uint64_t operator()(std::uint64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % n;
  }
};

// The first difference between the two blocks' decisions, or "" if none.
struct Outcome {
  std::uint64_t decisions = 0, pushes = 0, grants = 0, merged = 0, most_parts = 0;
  std::uint64_t avoided = 0, held = 0;  // the C++ block's pipeline passes and refused moves
  std::string divergence;
};

template <typename Model>
Outcome compare(const Shape& g, bool read_first, bool by_priority, std::uint64_t decisions, std::uint64_t seed,
                const ctrl::RescheduleConfig& rs = {}) {
  RtlBlock<Model> rtl(g, read_first, by_priority, rs);
  std::unique_ptr<ctrl::SchedPolicy> cpp;
  ctrl::HosPolicy* hos = nullptr;
  if (g.ios) {
    cpp = std::make_unique<ctrl::IosPolicy>(g.channels, g.chips);
  } else {
    auto h = std::make_unique<ctrl::HosPolicy>(g.channels, g.chips, read_first, by_priority);
    if (rs.on()) h->set_reschedule(rs, g.dies);
    hos = h.get();
    cpp = std::move(h);
  }
  Xorshift rnd{seed * 0x9E3779B97F4A7C15ull + 1};
  const unsigned dies = g.channels * g.chips * g.dies;
  std::deque<FlashCommand> commands;  // stable addresses for the C++ block
  std::vector<std::uint32_t> accept(dies, 0);
  std::vector<unsigned> all(g.channels);
  for (unsigned ch = 0; ch < g.channels; ++ch) all[ch] = ch;
  std::vector<ctrl::Grant> out;
  Outcome o;
  unsigned pattern = 0, saturated = 0;
  std::uint64_t id = 0;
  for (std::uint64_t step = 0; step < decisions && o.divergence.empty(); ++step) {
    if (step % 500 == 0) {
      pattern = static_cast<unsigned>(rnd(5));
      saturated = static_cast<unsigned>(rnd(g.channels));
    }
    // Commands queued before the edge, each in its own edge of the RTL block.
    for (unsigned n = static_cast<unsigned>(rnd(4)); n-- > 0;) {
      FlashCommand c;
      c.id = ++id;
      c.channel = static_cast<std::uint8_t>(rnd(g.channels));
      c.chip = static_cast<std::uint8_t>(rnd(g.chips));
      c.die = static_cast<std::uint8_t>(rnd(g.dies));
      const std::uint64_t r = rnd(100);
      c.op = r < 50 ? FlashOp::Read : r < 85 ? FlashOp::Program : FlashOp::Erase;
      // Two planes per die; with rescheduling four, mostly single-page commands (several
      // partners to a grant).
      c.plane_mask = static_cast<std::uint8_t>(!rs.on() ? 1 + rnd(3) : rnd(8) == 0 ? 1 + rnd(15) : 1u << rnd(4));
      c.priority = static_cast<FlashPriority>(rnd(3));
      c.page = static_cast<std::uint32_t>(rnd(3));  // offsets that often match: partners
      c.keep_order = rnd(8) == 0;
      c.slc = rnd(4) == 0;  // a quarter in SLC mode: partners share the mode (erases too)
      const std::size_t room = g.depth - cpp->queued();  // the block's command memory
      if (room == 0) continue;
      commands.push_back(c);
      cpp->push(&commands.back());
      rtl.push(commands.back());
      ++o.pushes;
    }
    // What the block samples at the edge.
    std::uint64_t open = 0;
    for (unsigned ch = 0; ch < g.channels; ++ch) {
      bool on = true;
      if (pattern == 3) on = ch != saturated;
      if (pattern == 4) on = rnd(2);
      if (on) open |= std::uint64_t{1} << ch;
    }
    for (std::uint32_t& a : accept) {
      switch (pattern) {
        case 0: a = (1u << RtlBlock<Model>::kAcceptBits) - 1; break;  // every die ready for anything
        case 1: a = 0; break;                                          // none
        default: a = static_cast<std::uint32_t>(rnd(1u << RtlBlock<Model>::kAcceptBits));
      }
    }
    ++o.decisions;
    for (unsigned ch = 0; ch < g.channels; ++ch) rtl.set_open(ch, open >> ch & 1u);
    for (unsigned ch = 0; ch < g.channels; ++ch)
      for (unsigned chip = 0; chip < g.chips; ++chip)
        for (unsigned die = 0; die < g.dies; ++die)
          rtl.set_accept(ch, chip, die, accept[(ch * g.chips + chip) * g.dies + die]);
    // Between edges the block says which channels a decision would grant on.
    std::uint64_t would = 0;
    for (unsigned ch = 0; ch < g.channels; ++ch) would |= std::uint64_t{rtl.would_grant(ch)} << ch;
    std::vector<typename RtlBlock<Model>::Grant> got;
    rtl.decide(got);
    out.clear();
    const auto is_open = [open](unsigned ch) { return (open >> ch & 1u) != 0; };
    if (hos) {
      struct Offer {
        const std::vector<std::uint32_t>* accept;
        unsigned base, dies;
        std::uint32_t accept_word(unsigned chip, unsigned die) const { return (*accept)[base + chip * dies + die]; }
      };
      std::vector<Offer> offers(g.channels);
      for (unsigned ch = 0; ch < g.channels; ++ch) offers[ch] = Offer{&accept, ch * g.chips * g.dies, g.dies};
      hos->decide_on_offers([&offers](unsigned ch) -> const Offer& { return offers[ch]; }, is_open, out, all);
    } else {
      const auto ready = [&](const FlashCommand& c) {
        const std::uint32_t word = accept[(c.channel * g.chips + c.chip) * g.dies + c.die];
        return is_open(c.channel) && (c.start_need() & ~word) == 0;
      };
      cpp->decide(ready, is_open, out, nullptr);
    }
    std::vector<const ctrl::Grant*> want(g.channels, nullptr);
    for (const ctrl::Grant& c : out) want[c.cmd->channel] = &c;
    for (unsigned ch = 0; ch < g.channels && o.divergence.empty(); ++ch)
      if ((would >> ch & 1u) != (want[ch] != nullptr))
        o.divergence = "decision " + std::to_string(step) + ", channel " + std::to_string(ch) +
                       ": the RTL block said it would " + (would >> ch & 1u ? "" : "not ") + "grant";
    for (unsigned ch = 0; ch < g.channels; ++ch) {
      // The command and its partners (multi-plane rescheduling), in order.
      std::vector<std::uint64_t> want_ids, got_ids;
      if (want[ch]) {
        want_ids.push_back(want[ch]->cmd->id);
        for (unsigned k = 0; k < want[ch]->partners; ++k) want_ids.push_back(want[ch]->part[k]->id);
      }
      if (got[ch].valid) got_ids.push_back(got[ch].id);
      for (unsigned k = 0; got[ch].valid && k < got[ch].parts; ++k) got_ids.push_back(got[ch].part_id[k]);
      const bool same = want_ids == got_ids && (!want[ch] || got[ch].chip == want[ch]->cmd->chip);
      if (same) {
        o.grants += got_ids.size();
        o.merged += got_ids.size() > 1;
        o.most_parts = std::max<std::uint64_t>(o.most_parts, got_ids.size());
        continue;
      }
      const auto show = [](const std::vector<std::uint64_t>& v) {
        std::string t = v.empty() ? "nothing" : "command";
        for (std::uint64_t i : v) t += " " + std::to_string(i);
        return t;
      };
      std::ostringstream m;
      m << "decision " << step << ", channel " << ch << ": RTL " << show(got_ids)
        << (got[ch].valid ? " chip " + std::to_string(got[ch].chip) : "") << ", C++ " << show(want_ids)
        << (want[ch] ? " chip " + std::to_string(want[ch]->cmd->chip) : "");
      o.divergence = m.str();
      break;
    }
    // The status pins the waveforms draw: a queue is held when the C++ block holds
    // commands in it.
    for (unsigned q = 0; q < (hos ? g.channels * g.chips : 1) && o.divergence.empty(); ++q) {
      const bool held = hos ? cpp->queued_on_chip(q / g.chips, q % g.chips) != 0 : cpp->queued() != 0;
      if (rtl.queue_held(q) != held)
        o.divergence = "decision " + std::to_string(step) + ", queue " + std::to_string(q) + ": the RTL block's queue_held is " +
                       (held ? "low" : "high");
    }
    if (rtl.overflow()) o.divergence = "the RTL block's queue overflowed at decision " + std::to_string(step);
  }
  if (hos && hos->reschedule_counters()) {
    o.avoided = hos->reschedule_counters()->switches_avoided;
    o.held = hos->reschedule_counters()->held_by_dependency;
  }
  return o;
}

// Four seeds; for HOS one in each combination of read_first and classes.
template <typename Model>
void check_equal(const Shape& g, std::uint64_t decisions) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const bool read_first = !g.ios && (seed & 1u), by_priority = !g.ios && (seed & 2u);
    const Outcome o = compare<Model>(g, read_first, by_priority, decisions, seed);
    INFO("seed " << seed << (read_first ? ", read first" : "") << (by_priority ? ", classes" : "") << ": " << o.decisions << " decisions, " << o.pushes << " commands queued, " << o.grants
                 << " granted");
    REQUIRE(o.divergence == "");
    // The patterns let commands go, and hold them back: most commands queued are granted,
    // and the queues are seldom empty.
    CHECK(o.pushes > o.decisions / 5);
    CHECK(o.grants * 10 > o.pushes * 9);
    CHECK(o.grants <= o.pushes);
  }
}

}  // namespace

TEST_CASE("rtl block: HOS, 2 channels x 2 chips, decides as the C++ block", "[rtl]") {
  check_equal<Vrtl_hos_2x2>({2, 2, 1, 16, false}, 60000);
}

TEST_CASE("rtl block: HOS, 3 x 3 chips x 2 dies, decides as the C++ block", "[rtl]") {
  check_equal<Vrtl_hos_3x3>({3, 3, 2, 32, false}, 60000);
}

TEST_CASE("rtl block: HOS, 4 x 4 chips x 2 dies, decides as the C++ block", "[rtl]") {
  check_equal<Vrtl_hos_4x4>({4, 4, 2, 64, false}, 60000);
}

TEST_CASE("rtl block: IOS, 2 x 4 chips x 2 dies, decides as the C++ block", "[rtl]") {
  check_equal<Vrtl_ios_2x4>({2, 4, 2, 64, true}, 60000);
}

// With rescheduling: four seeds, windows 3 to 6, read_first and classes as above.
template <typename Model>
void check_rescheduling(const Shape& g, const char* setting, std::uint64_t decisions) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const bool read_first = seed & 1u, by_priority = seed & 2u;
    const ctrl::RescheduleConfig rs = ctrl::parse_reschedule(setting, static_cast<std::uint32_t>(2 + seed));
    const Outcome o = compare<Model>(g, read_first, by_priority, decisions, seed, rs);
    INFO(setting << ", window " << rs.window << ", seed " << seed << (read_first ? ", read first" : "")
                 << (by_priority ? ", classes" : "") << ": " << o.decisions << " decisions, " << o.pushes
                 << " commands queued, " << o.grants << " granted, " << o.merged << " merged commands (at most "
                 << o.most_parts << " pages), " << o.avoided << " pipeline passes, " << o.held << " moves held");
    REQUIRE(o.divergence == "");
    CHECK(o.grants * 10 > o.pushes * 9);
    // The rules fired, and the blocks agreed on them: partners (up to three at once), the
    // pipeline's passes, and moves refused for keep_order.
    if (rs.multiplane) {
      CHECK(o.merged > o.decisions / 1000);
      CHECK(o.most_parts >= 3);
    }
    if (rs.pipeline) CHECK(o.avoided > o.decisions / 100);
    CHECK(o.held > 0);
  }
}

TEST_CASE("rtl block: HOS 3 x 3 x 2 with multi-plane rescheduling decides as the C++ block", "[rtl][reschedule]") {
  check_rescheduling<Vrtl_hos_3x3>({3, 3, 2, 32, false}, "multiplane", 60000);
}

TEST_CASE("rtl block: HOS 3 x 3 x 2 with pipeline rescheduling decides as the C++ block", "[rtl][reschedule]") {
  check_rescheduling<Vrtl_hos_3x3>({3, 3, 2, 32, false}, "pipeline", 60000);
}

TEST_CASE("rtl block: HOS 4 x 4 x 2 with both reschedulings decides as the C++ block", "[rtl][reschedule]") {
  check_rescheduling<Vrtl_hos_4x4>({4, 4, 2, 64, false}, "both", 60000);
}

TEST_CASE("rtl block: a block whose round robin is broken is caught within a few decisions", "[rtl]") {
  const Outcome o = compare<Vrtl_hos_2x2_fault>({2, 2, 1, 16, false}, false, false, 60000, 1);
  INFO("caught at " << o.divergence);
  REQUIRE(o.divergence != "");
  CHECK(o.decisions < 1000);
}

// Suspend and resume (docs/scheduler.md): the two blocks on random stimulus as above, with
// each die's suspend word random too (an offer by suspension for random planes, an erase
// or a program, held, resumable, a margin around the threshold), in every mode, with and
// without GC's reads. A grant is compared with what it does: the command, whether it
// suspends, or a RESUME of which die.
namespace {

struct SuspendOutcome {
  std::uint64_t decisions = 0, pushes = 0, grants = 0, suspends = 0, held_reads = 0, resumes = 0;
  std::string divergence;
};

template <typename Model>
SuspendOutcome compare_suspend(const Shape& g, bool read_first, bool by_priority, const ctrl::SuspendForm& sf,
                               std::uint64_t decisions, std::uint64_t seed) {
  RtlBlock<Model> rtl(g, read_first, by_priority, {}, sf);
  ctrl::HosPolicy cpp(g.channels, g.chips, read_first, by_priority);
  cpp.set_suspend(sf.mode, sf.min_margin_us, sf.gc_reads, sf.hold_programs);
  Xorshift rnd{seed * 0x9E3779B97F4A7C15ull + 7};
  const unsigned dies = g.channels * g.chips * g.dies;
  std::deque<FlashCommand> commands;
  std::vector<std::uint32_t> accept(dies, 0), sword(dies, 0);
  std::vector<Tick> margin(dies, 0);
  std::vector<unsigned> all(g.channels);
  for (unsigned ch = 0; ch < g.channels; ++ch) all[ch] = ch;
  // A channel's words as nand::ChannelStatus gives them.
  struct Status {
    const std::vector<std::uint32_t>* accept;
    const std::vector<std::uint32_t>* sword;
    const std::vector<Tick>* margin;
    unsigned base, dies, held;
    std::uint32_t accept_word(unsigned chip, unsigned die) const { return (*accept)[base + chip * dies + die]; }
    std::uint32_t suspend_word(unsigned chip, unsigned die) const { return (*sword)[base + chip * dies + die]; }
    Tick suspend_margin(unsigned chip, unsigned die) const { return (*margin)[base + chip * dies + die]; }
    unsigned held_dies() const { return held; }
    unsigned dies_per_chip() const { return dies; }
  };
  std::vector<Status> status(g.channels);
  std::vector<ctrl::Grant> out;
  SuspendOutcome o;
  unsigned pattern = 0;
  std::uint64_t id = 0;
  using E = nand::ChannelEngine;
  for (std::uint64_t step = 0; step < decisions && o.divergence.empty(); ++step) {
    if (step % 500 == 0) pattern = static_cast<unsigned>(rnd(4));
    for (unsigned n = static_cast<unsigned>(rnd(4)); n-- > 0;) {
      FlashCommand c;
      c.id = ++id;
      c.channel = static_cast<std::uint8_t>(rnd(g.channels));
      c.chip = static_cast<std::uint8_t>(rnd(g.chips));
      c.die = static_cast<std::uint8_t>(rnd(g.dies));
      const std::uint64_t r = rnd(100);
      c.op = r < 60 ? FlashOp::Read : r < 90 ? FlashOp::Program : FlashOp::Erase;
      c.plane_mask = static_cast<std::uint8_t>(1 + rnd(3));
      c.priority = static_cast<FlashPriority>(rnd(3));
      c.keep_order = rnd(8) == 0;
      if (g.depth == cpp.queued()) continue;
      commands.push_back(c);
      cpp.push(&commands.back());
      rtl.push(commands.back());
      ++o.pushes;
    }
    std::uint64_t open = 0;
    for (unsigned ch = 0; ch < g.channels; ++ch)
      if (pattern != 3 || rnd(2)) open |= std::uint64_t{1} << ch;
    for (unsigned d = 0; d < dies; ++d) {
      // Accept words: mostly refusing (dies busy), at times anything.
      accept[d] = pattern == 0 ? (1u << RtlBlock<Model>::kAcceptBits) - 1
                               : static_cast<std::uint32_t>(rnd(4) == 0 ? rnd(1u << RtlBlock<Model>::kAcceptBits) : 0);
      // Suspend words: an offer for random planes (with its condition bit), erase or not,
      // held and resumable at times, and a margin around the threshold.
      std::uint32_t w = static_cast<std::uint32_t>(rnd(4) ? (1u << kMaxPlanes) | rnd(8) : rnd(1u << kStartBits));
      if (rnd(2)) w |= E::kSuspendErase;
      if (rnd(6) == 0) w |= E::kSuspendHeld;
      if ((w & E::kSuspendHeld) && rnd(2)) w |= E::kSuspendResumable;
      sword[d] = w;
      const std::uint64_t m_us = sf.min_margin_us + rnd(5) - std::min<std::uint64_t>(2, sf.min_margin_us);
      margin[d] = rnd(8) == 0 ? 0 : m_us * kTicksPerUs + rnd(kTicksPerUs);
    }
    for (unsigned ch = 0; ch < g.channels; ++ch) {
      unsigned held = 0;
      for (unsigned k = 0; k < g.chips * g.dies; ++k) held += (sword[ch * g.chips * g.dies + k] & E::kSuspendHeld) != 0;
      status[ch] = Status{&accept, &sword, &margin, ch * g.chips * g.dies, g.dies, held};
    }
    ++o.decisions;
    for (unsigned ch = 0; ch < g.channels; ++ch) rtl.set_open(ch, open >> ch & 1u);
    for (unsigned ch = 0; ch < g.channels; ++ch)
      for (unsigned chip = 0; chip < g.chips; ++chip)
        for (unsigned die = 0; die < g.dies; ++die) {
          const unsigned d = (ch * g.chips + chip) * g.dies + die;
          rtl.set_accept(ch, chip, die, accept[d]);
          const Tick m_us = std::min<Tick>(margin[d] / kTicksPerUs, 65535);
          rtl.set_suspend_word(ch, chip, die, sword[d] | static_cast<std::uint32_t>(m_us) << 12);
        }
    std::uint64_t would = 0;
    for (unsigned ch = 0; ch < g.channels; ++ch) would |= std::uint64_t{rtl.would_grant(ch)} << ch;
    std::vector<typename RtlBlock<Model>::Grant> got;
    rtl.decide(got);
    out.clear();
    const auto is_open = [open](unsigned ch) { return (open >> ch & 1u) != 0; };
    cpp.decide_on_suspend_offers([&status](unsigned ch) -> const Status& { return status[ch]; }, is_open, out, all);
    std::vector<const ctrl::Grant*> want(g.channels, nullptr);
    for (const ctrl::Grant& c : out) want[c.resume ? c.channel : c.cmd->channel] = &c;
    const auto show = [](bool valid, bool resume, bool suspend, std::uint64_t id, unsigned chip, unsigned die) {
      if (!valid) return std::string("nothing");
      if (resume) return "RESUME chip " + std::to_string(chip) + " die " + std::to_string(die);
      return "command " + std::to_string(id) + " chip " + std::to_string(chip) + (suspend ? " by suspension" : "");
    };
    for (unsigned ch = 0; ch < g.channels && o.divergence.empty(); ++ch) {
      const ctrl::Grant* w = want[ch];
      const auto& r = got[ch];
      if ((would >> ch & 1u) != (w != nullptr))
        o.divergence = "decision " + std::to_string(step) + ", channel " + std::to_string(ch) +
                       ": the RTL block said it would " + (would >> ch & 1u ? "" : "not ") + "grant";
      const std::string a = show(w != nullptr, w && w->resume, w && w->suspend, w && w->cmd ? w->cmd->id : 0,
                                 w ? (w->resume ? w->chip : w->cmd->chip) : 0, w ? w->die : 0);
      const std::string b = show(r.valid, r.resume, r.suspend, r.id, r.chip, r.die);
      if (a != b && o.divergence.empty())
        o.divergence = "decision " + std::to_string(step) + ", channel " + std::to_string(ch) + ": RTL " + b + ", C++ " + a;
      if (!w) continue;
      ++o.grants;
      if (w->resume) ++o.resumes;
      else if (w->suspend) ++o.suspends;
      else if (sword[(ch * g.chips + w->cmd->chip) * g.dies + w->cmd->die] & E::kSuspendHeld) ++o.held_reads;
    }
    if (rtl.overflow()) o.divergence = "the RTL block's queue overflowed at decision " + std::to_string(step);
  }
  return o;
}

template <typename Model>
void check_suspend(const Shape& g, std::uint64_t decisions) {
  for (std::uint8_t mode = 1; mode <= 3; ++mode)
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const bool read_first = seed & 1u, by_priority = seed & 2u, gc = mode == 3 && seed > 2;
      const bool hold = (seed + mode) % 2 == 0;
      const ctrl::SuspendForm sf{mode, gc, static_cast<std::uint32_t>(seed == 4 ? 0 : 100 * seed), hold};
      const SuspendOutcome o = compare_suspend<Model>(g, read_first, by_priority, sf, decisions, seed);
      INFO("mode " << unsigned{mode} << ", seed " << seed << (read_first ? ", read first" : "")
                   << (by_priority ? ", classes" : "") << (gc ? ", GC reads" : "") << (hold ? ", programs held" : "")
                   << ", threshold "
                   << sf.min_margin_us << " us: " << o.decisions << " decisions, " << o.pushes << " queued, "
                   << o.grants << " grants, " << o.suspends << " by suspension, " << o.held_reads
                   << " on held dies, " << o.resumes << " resumes");
      REQUIRE(o.divergence == "");
      CHECK(o.suspends > decisions / 100);
      CHECK(o.resumes > decisions / 100);
      CHECK(o.held_reads > decisions / 1000);
    }
}

}  // namespace

TEST_CASE("rtl block: HOS 3 x 3 x 2 with suspend and resume decides as the C++ block", "[rtl][suspend]") {
  check_suspend<Vrtl_hos_3x3>({3, 3, 2, 32, false}, 30000);
}

TEST_CASE("rtl block: HOS 4 x 4 x 2 with suspend and resume decides as the C++ block", "[rtl][suspend]") {
  check_suspend<Vrtl_hos_4x4>({4, 4, 2, 64, false}, 30000);
}
