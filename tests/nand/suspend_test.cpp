// Program and erase suspend and resume (docs/nand-timing.md, "Suspend and resume"):
// timelines computed by hand from the timing equations, in picoseconds.
//
// The default part (nand_config.h): 333 MT/s, so one bus cycle is 10^6/333 ps and each
// bus phase is rounded to whole picoseconds:
//   C = 7 cycles  = 21,021 ps       (read or program command and address)
//   E = 5 cycles  = 15,015 ps       (erase command and address)
//   D = 8192 B    = 24,600,601 ps   (one page of data)
//   S = 3 cycles  = 9,009 ps        (SUSPEND or RESUME)
//   tR = 75 us, tPROG = 750 us, tBERS = 3,800 us,
//   tESPD (erase suspend latency) = 700 us, tPSPD (program suspend latency) = 100 us.
// Cache read and cache program are on.
#include <catch2/catch.hpp>

#include <random>

#include "tests/nand_harness.h"

using namespace ssd;
using namespace ssd::nand;
using ssd::nand::test::Harness;

namespace {

constexpr Tick C = 21'021, E = 15'015, D = 24'600'601, S = 9'009;
constexpr Tick tR = 75'000'000, tPROG = 750'000'000, tBERS = 3'800'000'000;
constexpr Tick tESPD = 700'000'000, tPSPD = 100'000'000;
constexpr Tick us = 1'000'000;

NandConfig part() {
  NandConfig c;
  c.channels = 1;
  c.chips_per_channel = 1;
  c.dies_per_chip = 1;
  c.planes_per_die = 2;
  c.blocks_per_plane = 4;
  c.pages_per_block = 8;
  return c;
}

// A page that reads back: programmed without simulated time.
void stored(Harness& h, unsigned plane, std::uint32_t block, std::uint32_t pages = 1) {
  for (std::uint32_t p = 0; p < pages; ++p) h.engine.backdoor_program(0, 0, plane, block, p, 0x500u + p);
}

FlashCommand& read_at(Harness& h, Tick t, std::uint8_t mask, std::uint32_t block, std::uint32_t page,
                      bool suspend = true) {
  h.run_until(t);
  FlashCommand& r = h.make(FlashOp::Read, 0, 0, mask, block, page);
  r.suspend = suspend;
  h.engine.submit(&r, h.now);
  return r;
}

FlashCommand& resume(Harness& h) {
  FlashCommand& c = h.make(FlashOp::Resume, 0, 0, 0b01, 0, 0);
  h.engine.submit(&c, h.now);
  return c;
}

}  // namespace

TEST_CASE("suspend: the constants of these timelines are the default part's", "[nand][suspend]") {
  const NandConfig c = part();
  CHECK(c.bus_ticks(c.cmd_addr_cycles) == C);
  CHECK(c.bus_ticks(c.erase_cmd_cycles) == E);
  CHECK(c.bus_ticks(c.page_bytes) == D);
  CHECK(c.bus_ticks(c.suspend_cmd_cycles) == S);
  CHECK(us_to_ticks(c.t_suspend_erase_us) == tESPD);
  CHECK(us_to_ticks(c.t_suspend_program_us) == tPSPD);
  CHECK(c.cache_read);
  CHECK(c.cache_program);
}

TEST_CASE("suspend: an erase suspended by one read, then resumed", "[nand][suspend]") {
  Harness h(part());
  stored(h, 1, 0);
  FlashCommand& erase = h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
  // ERASE: E, then tBERS to 3,800,015,015.
  FlashCommand& r = read_at(h, 1000 * us, 0b10, 0, 0);
  FlashCommand& res = resume(h);
  h.run();
  REQUIRE(erase.status == FlashStatus::Ok);
  REQUIRE(r.status == FlashStatus::Ok);
  REQUIRE(res.status == FlashStatus::Ok);
  // The read: S, the suspend latency (the erase works on), its command, tR, data-out.
  CHECK(r.t_start == 1'000'000'000);
  CHECK(r.t_suspend_done == 1'000'000'000 + S + tESPD);  // 1,700,009,009: the erase is held
  CHECK(r.t_array_start == 1'700'009'009 + C);
  CHECK(r.t_done == 1'799'630'631);
  CHECK(r.t_done - r.t_submit == S + tESPD + C + tR + D);  // 799.630631 us
  CHECK(r.bus_cmd_ticks == C);  // its own command's: the SUSPEND is its suspend wait (latency_parts.h)
  // The erase held 2,100,006,006 ps of its tBERS; the RESUME goes when the read is out.
  CHECK(res.t_start == r.t_done);
  CHECK(res.t_done == r.t_done + S);
  CHECK(erase.t_done == 3'899'645'646);
  CHECK(erase.t_done == E + tBERS + (C + tR + D) + S);  // the suspend latency overlaps the erase
  CHECK(erase.suspends == 1);
  CHECK(erase.t_suspended == res.t_done - r.t_suspend_done);  // 99,630,631
  CHECK(erase.t_suspended == 99'630'631);
  const ChannelCounters& n = h.engine.counters();
  CHECK(n.suspends[1] == 1);
  CHECK(n.suspends[0] == 0);
  CHECK(n.resumes == 1);
  CHECK(n.suspended_ticks == 99'630'631);
  CHECK(n.reads == 1);
  CHECK(n.erases == 1);
  CHECK(n.protocol_errors == 0);
  CHECK(h.engine.in_flight() == 0);
  CHECK(h.engine.die_idle(0, 0));
}

TEST_CASE("suspend: a program suspended twice, the third read waits (max_suspends = 2)", "[nand][suspend]") {
  for (const double penalty_us : {0.0, 10.0}) {
    NandConfig cfg = part();
    cfg.max_suspends = 2;
    cfg.suspend_penalty_us = penalty_us;
    const Tick P = us_to_ticks(penalty_us);
    Harness h(cfg);
    stored(h, 1, 0, 3);
    FlashCommand& prog = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
    // PROGRAM: C + D = 24,621,622 into the cache register, then tPROG to 774,621,622.
    FlashCommand& r1 = read_at(h, 100 * us, 0b10, 0, 0);
    FlashCommand& res1 = resume(h);
    FlashCommand& r2 = read_at(h, 400 * us, 0b10, 0, 1);
    FlashCommand& res2 = resume(h);
    FlashCommand& r3 = read_at(h, 700 * us, 0b10, 0, 2);
    h.run();
    INFO("penalty " << penalty_us << " us");
    REQUIRE(prog.status == FlashStatus::Ok);
    for (const FlashCommand* c : {&r1, &r2, &r3, &res1, &res2}) REQUIRE(c->status == FlashStatus::Ok);
    // R1: held at 200,009,009 with 574,612,613 left; through the cache register.
    CHECK(r1.t_suspend_done == 200'009'009);
    CHECK(r1.t_done == 299'630'631);  // S + tPSPD + C + tR + D after 100 us
    CHECK(res1.t_done == 299'639'640);
    // R2: the program ends 874,252,253 (+P) after its first resume; held again at 500,009,009.
    CHECK(r2.t_suspend_done == 500'009'009);
    CHECK(r2.t_done == 599'630'631);
    CHECK(res2.t_done == 599'639'640);
    CHECK(prog.t_done == 973'882'884 + 2 * P);
    CHECK(prog.t_done == C + D + tPROG + 2 * (C + tR + D + S) + 2 * P);
    CHECK(prog.suspends == 2);
    CHECK(prog.t_suspended == 2 * 99'630'631);
    // R3 finds the program at its limit: it waits for its end and runs as a plain read.
    CHECK(r3.t_suspend_done == 0);
    CHECK(r3.t_start == prog.t_done);
    CHECK(r3.t_done == 1'073'504'506 + 2 * P);
    CHECK(r3.t_done - r3.t_submit == 373'504'506 + 2 * P);
    CHECK(h.engine.counters().suspends[0] == 2);
    CHECK(h.engine.counters().suspend_ignored == 1);
    CHECK(h.engine.in_flight() == 0);
  }
}

TEST_CASE("suspend: a second read during the suspend latency waits, then runs as a plain read", "[nand][suspend]") {
  Harness h(part());
  stored(h, 1, 0, 2);
  FlashCommand& erase = h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
  FlashCommand& r1 = read_at(h, 1000 * us, 0b10, 0, 0);
  FlashCommand& r2 = read_at(h, 1100 * us, 0b10, 0, 1);  // inside tESPD
  FlashCommand& res = resume(h);
  h.run();
  REQUIRE(erase.status == FlashStatus::Ok);
  // R1 as alone; R2 is refused until R1's tR ends (1,775,030,030), then its command goes
  // before R1's data-out (command phases first at equal times).
  CHECK(r1.t_suspend_done == 1'700'009'009);
  CHECK(r2.t_suspend_done == 0);
  CHECK(r2.t_start == 1'775'030'030);
  CHECK(r1.t_out_start == 1'775'051'051);
  CHECK(r1.t_done == 1'799'651'652);
  CHECK(r2.t_done == 1'874'651'652);
  CHECK(res.t_done == 1'874'660'661);
  CHECK(erase.t_done == 3'974'666'667);
  CHECK(erase.suspends == 1);
  CHECK(h.engine.counters().suspend_ignored == 1);
  CHECK(h.engine.counters().suspends[1] == 1);
}

TEST_CASE("suspend: an erase that ends within the suspend latency is not held (void suspend)", "[nand][suspend]") {
  Harness h(part());
  stored(h, 1, 0);
  FlashCommand& erase = h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
  FlashCommand& r = read_at(h, 3500 * us, 0b10, 0, 0);
  h.run();
  CHECK(erase.t_done == E + tBERS);  // 3,800,015,015, untouched
  CHECK(erase.suspends == 0);
  CHECK(r.t_suspend_done == erase.t_done);
  CHECK(r.t_done == 3'899'636'637);  // its command at the erase's end: C + tR + D later
  CHECK(h.engine.counters().suspends_void == 1);
  CHECK(h.engine.counters().suspends[1] == 0);
  // Nothing is held: a RESUME now is a protocol error.
  FlashCommand& res = resume(h);
  h.run();
  CHECK(res.status == FlashStatus::ProtocolError);
  CHECK(res.error.find("holds no suspended") != std::string::npos);
}

TEST_CASE("suspend: the SUSPEND's own bus phase outlasting the operation is void too", "[nand][suspend]") {
  Harness h(part());
  stored(h, 1, 0);
  FlashCommand& erase = h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
  // The erase ends at 3,800,015,015, during a SUSPEND that starts 5,000 ps before.
  FlashCommand& r = read_at(h, E + tBERS - 5'000, 0b10, 0, 0);
  h.run();
  CHECK(erase.suspends == 0);
  CHECK(erase.t_done == E + tBERS);
  CHECK(r.t_suspend_done == r.t_start + S);  // the bus end of its SUSPEND
  CHECK(r.t_done == r.t_start + S + C + tR + D);
  CHECK(h.engine.counters().suspends_void == 1);
}

TEST_CASE("suspend: a cached program waits for the suspended one, the read uses a free cache register",
          "[nand][suspend][cache program]") {
  Harness h(part());
  stored(h, 1, 0);
  FlashCommand& p1 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& p2 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);
  // P1: tPROG 24,621,622 to 774,621,622; P2's data-in to 49,243,244, then it waits in
  // plane 0's cache register. A read of plane 1 suspends P1 through plane 1's cache register.
  FlashCommand& r = read_at(h, 100 * us, 0b10, 0, 0);
  FlashCommand& res = resume(h);
  h.run();
  CHECK(p2.t_bus_end == 49'243'244);
  CHECK(r.t_suspend_done == 200'009'009);
  CHECK(r.t_done == 299'630'631);
  CHECK(res.t_done == 299'639'640);
  CHECK(p1.t_done == 874'252'253);
  CHECK(p2.t_array_start == p1.t_done);
  CHECK(p2.t_done == 1'624'252'253);  // unsuspended: 1,524,621,622
  CHECK(p1.suspends == 1);
  CHECK(p2.suspends == 0);
}

TEST_CASE("suspend: a read of the plane whose cache register holds a program suspends the next one",
          "[nand][suspend][cache program]") {
  Harness h(part());
  stored(h, 0, 1);
  FlashCommand& p1 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& p2 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);
  // Plane 0's cache register holds P2: no offer for plane 0 until P2 moves to the array
  // at P1's end (774,621,622); then the read suspends P2 at once.
  FlashCommand& r = read_at(h, 100 * us, 0b01, 1, 0);
  FlashCommand& res = resume(h);
  h.run();
  CHECK(p1.suspends == 0);
  CHECK(p1.t_done == 774'621'622);
  CHECK(r.t_start == 774'621'622);
  CHECK(r.t_suspend_done == 874'630'631);
  CHECK(r.t_done == 974'252'253);
  CHECK(res.t_done == 974'261'262);
  CHECK(p2.suspends == 1);
  CHECK(p2.t_done == 1'624'252'253);
}

TEST_CASE("suspend: reads pipeline in an erase suspend, programs only with the key", "[nand][suspend]") {
  for (const bool programs : {false, true}) {
    NandConfig cfg = part();
    cfg.program_in_erase_suspend = programs;
    Harness h(cfg);
    stored(h, 1, 0, 3);
    FlashCommand& erase = h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
    FlashCommand& r1 = read_at(h, 1000 * us, 0b10, 0, 0);
    h.run_until(1'700'009'009 + 1);  // held
    FlashCommand& r2 = h.submit(FlashOp::Read, 0, 0, 0b10, 0, 1);
    FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b10, 0, 3);
    FlashCommand& res = resume(h);
    h.run();
    INFO("program_in_erase_suspend " << programs);
    CHECK(r1.status == FlashStatus::Ok);
    CHECK(r2.status == FlashStatus::Ok);
    // R2 senses while R1 streams out (cache read).
    CHECK(r2.t_array_start < r1.t_done);
    if (programs) {
      REQUIRE(w.status == FlashStatus::Ok);
      CHECK(w.t_start >= r2.t_done);
      CHECK(res.t_start == w.t_done);  // the erase resumes once the program has ended
      CHECK(erase.t_done == res.t_done + (E + tBERS - 1'700'009'009));
    } else {
      // The held erase never takes it: an error at once, not a wait in front of the RESUME.
      CHECK(w.status == FlashStatus::ProtocolError);
      CHECK(w.error.find("suspended ERASE") != std::string::npos);
      CHECK(res.t_start == r2.t_done);
    }
    CHECK(erase.status == FlashStatus::Ok);
    CHECK(h.engine.in_flight() == 0);
  }
}

TEST_CASE("suspend: protocol errors against a suspension", "[nand][suspend][protocol]") {
  SECTION("an erase while an erase is held") {
    Harness h(part());
    stored(h, 1, 0);
    h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
    read_at(h, 1000 * us, 0b10, 0, 0);
    h.run_until(1'800'000'000);
    FlashCommand& e2 = h.submit(FlashOp::Erase, 0, 0, 0b10, 1, 0);
    FlashCommand& res = resume(h);
    h.run();
    CHECK(e2.status == FlashStatus::ProtocolError);
    CHECK(res.status == FlashStatus::Ok);
  }
  SECTION("a program into the block whose erase is held") {
    NandConfig cfg = part();
    cfg.program_in_erase_suspend = true;
    Harness h(cfg);
    stored(h, 1, 0);
    h.submit(FlashOp::Erase, 0, 0, 0b01, 2, 0);
    read_at(h, 1000 * us, 0b10, 0, 0);
    h.run_until(1'800'000'000);
    FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b01, 2, 0);
    resume(h);
    h.run();
    CHECK(w.status == FlashStatus::ProtocolError);
    CHECK(w.error.find("being erased") != std::string::npos);
  }
  SECTION("a read of the page whose program is held") {
    Harness h(part());
    stored(h, 1, 0);
    FlashCommand& p = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
    read_at(h, 100 * us, 0b10, 0, 0);
    h.run_until(250 * us);
    FlashCommand& bad = h.submit(FlashOp::Read, 0, 0, 0b01, 0, 0);
    resume(h);
    h.run();
    CHECK(bad.status == FlashStatus::ProtocolError);
    CHECK(bad.error.find("whose PROGRAM has not ended") != std::string::npos);
    CHECK(p.status == FlashStatus::Ok);
  }
  SECTION("a program while a program is held") {
    Harness h(part());
    stored(h, 1, 0);
    h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
    read_at(h, 100 * us, 0b10, 0, 0);
    h.run_until(250 * us);
    FlashCommand& w = h.submit(FlashOp::Program, 0, 0, 0b10, 1, 0);
    FlashCommand& res = resume(h);
    h.run();
    CHECK(w.status == FlashStatus::ProtocolError);
    CHECK(res.status == FlashStatus::Ok);
    CHECK(h.engine.in_flight() == 0);
  }
}

TEST_CASE("suspend: the die's suspend word and margin follow its state", "[nand][suspend]") {
  Harness h(part());
  h.engine.set_suspend_offers(true);  // as a block that reads the offers: the array start is an event
  stored(h, 1, 0);
  CHECK(h.engine.suspend_word(0, 0) == 0);
  h.submit(FlashOp::Erase, 0, 0, 0b01, 0, 0);
  h.run_until(E);  // command phase over: tBERS runs
  const std::uint32_t w = h.engine.suspend_word(0, 0);
  FlashCommand probe = h.make(FlashOp::Read, 0, 0, 0b11, 0, 0);
  CHECK(ChannelEngine::accepts(w, probe.start_need()));
  CHECK((w & ChannelEngine::kSuspendErase) != 0);
  CHECK((w & ChannelEngine::kSuspendHeld) == 0);
  CHECK(h.engine.suspend_margin(0, 0, E) == tBERS - tESPD);
  CHECK(h.engine.suspend_margin(0, 0, E + tBERS - tESPD) == 0);
  read_at(h, 1000 * us, 0b10, 0, 0);
  h.run_until(1'750'000'000);  // held; R runs
  const std::uint32_t held = h.engine.suspend_word(0, 0);
  CHECK((held & ChannelEngine::kSuspendHeld) != 0);
  CHECK((held & ChannelEngine::kSuspendResumable) == 0);  // the read is under way
  CHECK(!ChannelEngine::accepts(held, probe.start_need()));  // no second suspension
  h.run_until(1'800'000'000);
  CHECK((h.engine.suspend_word(0, 0) & ChannelEngine::kSuspendResumable) != 0);
}

TEST_CASE("suspend: random soak with suspensions returns every page's last written token",
          "[nand][suspend][integrity]") {
  for (int variant = 0; variant < 4; ++variant) {
    NandConfig cfg = part();
    cfg.dies_per_chip = 2;
    cfg.cache_read = variant & 1;
    cfg.cache_program = variant & 2;
    cfg.program_in_erase_suspend = variant == 3;
    cfg.max_suspends = 3;
    cfg.t_suspend_erase_us = 50;
    cfg.t_suspend_program_us = 20;
    Harness h(cfg);
    std::mt19937_64 rng(77 + variant);
    std::vector<std::vector<Token>> shadow(2 * 2 * 4);  // per (die, plane, block)
    struct Expect { FlashCommand* c; Token t; };
    std::vector<Expect> reads;
    std::size_t resumes = 0;
    // Programs under way per block: a read by suspension of a page whose program has not
    // ended is a protocol error (a controller serves such a read from its buffer).
    std::vector<std::pair<FlashCommand*, std::size_t>> programs;
    auto unfinished = [&](std::size_t b) {
      std::size_t n = 0;
      for (const auto& [c, pb] : programs) n += pb == b && c->status == FlashStatus::Pending;
      return n;
    };
    // Erases under way: a program into a block whose erase is held is a protocol error.
    std::vector<std::pair<FlashCommand*, std::size_t>> erases;
    auto erasing = [&](std::size_t b) {
      for (const auto& [c, eb] : erases)
        if (eb == b && c->status == FlashStatus::Pending) return true;
      return false;
    };
    for (int i = 0; i < 20000; ++i) {
      const unsigned die = rng() % 2, plane = rng() % 2;
      const std::uint32_t block = static_cast<std::uint32_t>(rng() % 4);
      const std::size_t bidx = (die * 2 + plane) * 4 + block;
      std::vector<Token>& sh = shadow[bidx];
      const std::uint8_t mask = static_cast<std::uint8_t>(1u << plane);
      const unsigned kind = rng() % 10;
      // Only what the die could take now or by suspension, as a scheduler block would
      // submit: the engine's words say which.
      FlashCommand probe = h.make(kind < 4 ? FlashOp::Program : kind < 9 ? FlashOp::Read : FlashOp::Erase, 0, die,
                                  mask, block, 0);
      h.cmds.pop_back();
      const bool normal = h.engine.ready_for(probe);
      const bool by_suspension = probe.op == FlashOp::Read && h.engine.queued_total() == 0 &&
                                 ChannelEngine::accepts(h.engine.suspend_word(0, die), probe.start_need());
      if (kind < 4 && sh.size() < cfg.pages_per_block && normal && !erasing(bidx)) {
        FlashCommand& c = h.make(FlashOp::Program, 0, die, mask, block, static_cast<std::uint32_t>(sh.size()));
        c.token[plane] = static_cast<Token>(rng() | 1);
        sh.push_back(c.token[plane]);
        programs.emplace_back(&c, bidx);
        h.engine.submit(&c, h.now);
      } else if (kind < 9 && sh.size() > unfinished(bidx) && (normal || by_suspension)) {
        const auto page = static_cast<std::uint32_t>(rng() % (sh.size() - unfinished(bidx)));
        FlashCommand& c = h.make(FlashOp::Read, 0, die, mask, block, page);
        c.suspend = by_suspension && !normal;
        reads.push_back({&c, sh[page]});
        h.engine.submit(&c, h.now);
      } else if (kind == 9 && normal) {
        FlashCommand& c = h.make(FlashOp::Erase, 0, die, mask, block, 0);
        sh.clear();
        erases.emplace_back(&c, bidx);
        h.engine.submit(&c, h.now);
      }
      h.run_until(h.now + us_to_ticks(static_cast<double>(rng() % 60)));
      // Held operations resume when nothing else of their die is under way.
      for (unsigned d = 0; d < 2; ++d)
        if ((h.engine.accept_word(0, d) & kResumeNeed) && h.engine.queued_total() == 0 && rng() % 4 == 0) {
          FlashCommand& c = h.make(FlashOp::Resume, 0, d, 0b01, 0, 0);
          h.engine.submit(&c, h.now);
          ++resumes;
        }
    }
    for (int k = 0; k < 8; ++k) {  // drain: resume whatever is still held
      h.run();
      for (unsigned d = 0; d < 2; ++d)
        if (h.engine.accept_word(0, d) & kResumeNeed) {
          FlashCommand& c = h.make(FlashOp::Resume, 0, d, 0b01, 0, 0);
          h.engine.submit(&c, h.now);
        }
    }
    h.run();
    INFO("variant " << variant);
    const ChannelCounters& n = h.engine.counters();
    std::string first_error;
    for (const FlashCommand& c : h.cmds)
      if (c.status == FlashStatus::ProtocolError && first_error.empty()) first_error = c.error;
    INFO(first_error);
    CHECK(n.protocol_errors == 0);
    CHECK(h.engine.in_flight() == 0);
    CHECK(n.suspends[0] > 100);
    CHECK(n.suspends[1] > 20);
    CHECK(n.resumes == n.suspends[0] + n.suspends[1]);
    std::size_t bad = 0;
    for (const Expect& e : reads)
      if (e.c->token[e.c->first_plane()] != e.t) ++bad;
    CHECK(bad == 0);
    CHECK(reads.size() > 2000);
  }
}

TEST_CASE("suspend: any read while a program is held goes through the cache registers", "[nand][suspend][registers]") {
  Harness h(part());
  stored(h, 0, 1, 2);
  stored(h, 1, 1, 2);
  FlashCommand& prog = h.submit(FlashOp::Program, 0, 0, 0b11, 0, 0);  // two planes: both data registers
  FlashCommand& r1 = read_at(h, 100 * us, 0b01, 1, 0);             // suspends it: held at 200,009,009
  h.run_until(210 * us);
  FlashCommand& r2 = h.submit(FlashOp::Read, 0, 0, 0b10, 1, 1);     // a plain read of plane 1, while held
  h.run_until(r1.t_suspend_done + C + tR + 1);
  // R2 is under way; the held program still holds both data registers.
  CHECK(r2.t_start != 0);
  CHECK(h.engine.die_state(0, 0).data_busy == 0b11);
  CHECK((h.engine.die_state(0, 0).cache_busy & 0b10) != 0);  // R2 senses into plane 1's cache register
  FlashCommand& held_page = h.submit(FlashOp::Read, 0, 0, 0b10, 0, 0);  // the page the held program writes
  FlashCommand& res = resume(h);
  h.run();
  CHECK(r1.status == FlashStatus::Ok);
  CHECK(r2.status == FlashStatus::Ok);
  CHECK(r2.token[1] == 0x501);
  CHECK(held_page.status == FlashStatus::ProtocolError);
  CHECK(held_page.error.find("whose PROGRAM has not ended") != std::string::npos);
  CHECK(res.status == FlashStatus::Ok);
  CHECK(prog.status == FlashStatus::Ok);
  CHECK(prog.suspends == 1);
  CHECK(h.engine.in_flight() == 0);
}

TEST_CASE("suspend: a read of a plane whose cache register holds a waiting program fails instead of blocking the RESUME",
          "[nand][suspend][protocol]") {
  Harness h(part());
  stored(h, 1, 0);
  stored(h, 0, 1);
  FlashCommand& p1 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 0);
  FlashCommand& p2 = h.submit(FlashOp::Program, 0, 0, 0b01, 0, 1);  // waits in plane 0's cache register
  FlashCommand& r1 = read_at(h, 100 * us, 0b10, 0, 0);             // suspends P1 through plane 1
  FlashCommand& r2 = h.submit(FlashOp::Read, 0, 0, 0b01, 1, 0);     // plane 0: its cache register is P2's
  FlashCommand& res = resume(h);
  h.run();
  CHECK(r1.status == FlashStatus::Ok);
  CHECK(r2.status == FlashStatus::ProtocolError);
  CHECK(r2.error.find("cannot start before the RESUME") != std::string::npos);
  CHECK(res.status == FlashStatus::Ok);
  CHECK(p1.status == FlashStatus::Ok);
  CHECK(p2.status == FlashStatus::Ok);
  CHECK(h.engine.in_flight() == 0);
}
