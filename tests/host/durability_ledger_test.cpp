// The host's durability ledger (host/durability_ledger.h): each clause of the power-loss
// contract on cuts built by hand, the device's data after the cut given page by page.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>

#include "host/durability_ledger.h"

using ssd::Token;
using ssd::host::DurabilityLedger;
using End = DurabilityLedger::End;

namespace {
constexpr Token kOld = 0x100;  // what every page held before the writes
auto before = [](std::uint64_t) { return kOld; };
DurabilityLedger::Outcome cut(const DurabilityLedger& l, std::map<std::uint64_t, Token> device) {
  return l.audit([&](std::uint64_t lpn, std::vector<Token>& out) {
    out.push_back(device.count(lpn) ? device[lpn] : kOld);
  });
}
}  // namespace

TEST_CASE("durability ledger: completed writes are durable with the cache off", "[host][power]") {
  DurabilityLedger l(true);
  l.sent(1, 10, false, {{5, 0xA, 0xA}}, before);
  l.acked(1, 20, End::Done);
  const auto kept = cut(l, {{5, 0xA}});
  CHECK(kept.durable_lost == 0);
  CHECK(kept.writes_checked == 1);
  const auto lost = cut(l, {});  // the page reads its old data
  CHECK(lost.durable_lost == 1);
  CHECK(lost.foreign_pages == 1);  // neither its durable data nor a later version
  CHECK(lost.order_violations == 0);
}

TEST_CASE("durability ledger: a volatile write may be lost, and a later one kept is out of order", "[host][power]") {
  DurabilityLedger l(false);
  l.sent(1, 10, false, {{5, 0xA, 0xA}}, before);
  l.acked(1, 20, End::Done);
  l.sent(2, 30, false, {{6, 0xB, 0xB}}, before);  // sent after 1 was acknowledged
  l.acked(2, 40, End::Done);
  const auto both_lost = cut(l, {});
  CHECK(both_lost.durable_lost == 0);
  CHECK(both_lost.volatile_lost == 2);
  CHECK(both_lost.order_violations == 0);
  const auto second_kept = cut(l, {{6, 0xB}});
  CHECK(second_kept.volatile_lost == 1);
  CHECK(second_kept.order_violations == 1);
  const auto first_kept = cut(l, {{5, 0xA}});  // lost a later write only: in order
  CHECK(first_kept.order_violations == 0);
}

TEST_CASE("durability ledger: FUA and a completed flush make writes durable", "[host][power]") {
  DurabilityLedger l(false);
  l.sent(1, 10, false, {{5, 0xA, 0xA}}, before);
  l.sent(2, 11, true, {{6, 0xB, 0xB}}, before);  // FUA
  l.acked(1, 20, End::Done);
  l.acked(2, 21, End::Done);
  auto o = cut(l, {});
  CHECK(o.durable_lost == 1);  // the FUA write
  CHECK(o.volatile_lost == 1);
  const std::uint64_t f = l.flush_sent();
  l.sent(3, 30, false, {{7, 0xC, 0xC}}, before);  // after the flush: not covered by it
  l.acked(3, 35, End::Done);
  l.flush_acked(f);
  o = cut(l, {});
  CHECK(o.durable_lost == 2);
  CHECK(o.volatile_lost == 1);  // write 3
  // A newer durable version of a page replaces the older: the older is no longer owed.
  l.sent(4, 40, true, {{5, 0xD, 0xD}}, before);
  l.acked(4, 50, End::Done);
  o = cut(l, {{5, 0xD}, {6, 0xB}, {7, 0xC}});
  CHECK(o.durable_lost == 0);
  CHECK(o.volatile_lost == 0);
  CHECK(l.writes() == 3);  // write 1 is gone
}

TEST_CASE("durability ledger: tears, data no write carried, and refused writes", "[host][power]") {
  DurabilityLedger l(true);
  // A three-page write in flight at the cut, and a partial-page write whose page merges.
  l.sent(1, 10, false, {{1, 0x11, 0x11}, {2, 0x12, 0x12}, {3, 0x13, 0x13}}, before);
  l.sent(2, 11, false, {{9, 0x99, 0x19}}, before);  // token merged, fresh its own
  auto o = cut(l, {{1, 0x11}, {3, 0x13}, {9, 0x19}});
  CHECK(o.unacked_lost == 1);
  CHECK(o.torn == 1);
  CHECK(o.durable_lost == 0);
  o = cut(l, {{2, 0xBAD}});
  CHECK(o.foreign_pages == 1);
  // Recovery takes the newest version the device holds: the flash's old data and a
  // buffered page the hold-up programs.
  o = l.audit([](std::uint64_t lpn, std::vector<Token>& out) {
    out.push_back(kOld);
    if (lpn == 1) out.push_back(0x11);
  });
  CHECK(o.unacked_lost == 2);
  CHECK(o.torn == 1);
  // A write the device refused leaves nothing owed: its page reads what it held.
  l.acked(1, 20, End::Refused);
  o = cut(l, {});
  CHECK(o.unacked_lost == 1);  // write 2 only
  CHECK(o.pages_checked == 4);
}

TEST_CASE("durability ledger: a write sent inside another's completion comes after it", "[host][power]") {
  // The host sends its next request from inside a completion, at the same instant: the
  // order of events, not the time, tells that write 2 followed write 1's acknowledgement.
  DurabilityLedger l(false);
  l.sent(1, 10, false, {{5, 0xA, 0xA}}, before);
  l.acked(1, 20, End::Done);
  l.sent(2, 20, false, {{6, 0xB, 0xB}}, before);
  l.acked(2, 30, End::Done);
  CHECK(cut(l, {{6, 0xB}}).order_violations == 1);
  // Sent before write 1's acknowledgement (at the same instant too): in order.
  DurabilityLedger m(false);
  m.sent(1, 10, false, {{5, 0xA, 0xA}}, before);
  m.sent(2, 20, false, {{6, 0xB, 0xB}}, before);
  m.acked(1, 20, End::Done);
  m.acked(2, 30, End::Done);
  CHECK(cut(m, {{6, 0xB}}).order_violations == 0);
}

TEST_CASE("durability ledger: a write that failed may leave any of its pages new or old", "[host][power]") {
  DurabilityLedger l(true);
  l.sent(1, 10, false, {{1, 0x11, 0x11}, {2, 0x12, 0x12}}, before);
  l.acked(1, 20, End::Failed);  // a media error: one page on flash, the other not
  const auto o = cut(l, {{1, 0x11}});
  CHECK(o.durable_lost == 0);
  CHECK(o.foreign_pages == 0);
  CHECK(o.unacked_lost == 1);  // never acknowledged as done
  CHECK(o.torn == 1);
}
