// The firmware's write buffer (controller/write_path.h) without the SystemC kernel: a
// recording owner sees what becomes known, in what order.
#include <catch2/catch.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "controller/write_path.h"
#include "tlm/host_protocol.h"

using namespace ssd;
using namespace ssd::ctrl;

namespace {

struct Recorder final : WritePath::Owner {
  std::vector<std::string> log;
  WritePath* path = nullptr;
  std::function<void()> on_read;  // called after a parked read is answered (re-entry)
  void data_known(std::uint32_t op) override {
    log.push_back("program op" + std::to_string(op) + " token " + std::to_string(path->op(op).token));
  }
  void read_answered(void* host, std::uint32_t page, Token t) override {
    log.push_back("read " + std::string(static_cast<const char*>(host)) + " page " + std::to_string(page) + " token " +
                  std::to_string(t));
    if (on_read) on_read();
  }
};

struct Fixture {
  Recorder rec;
  WritePath path{rec};
  Fixture() { rec.path = &path; }
};

char kWriteA[] = "A", kWriteB[] = "B", kRead1[] = "r1", kRead2[] = "r2";

}  // namespace

TEST_CASE("write path: a whole page's data is known at once and answers reads") {
  Fixture f;
  std::uint32_t op;
  REQUIRE(f.path.write(7, kWriteA, 1234, false, 10, op) == WritePath::Start::Known);
  REQUIRE(f.rec.log == std::vector<std::string>{"program op" + std::to_string(op) + " token 1234"});
  CHECK(f.path.op(op).t_known == 10);
  CHECK(f.path.op(op).waited_for == WritePath::Waited::None);
  CHECK(f.path.op(op).replaces == kUnmapped);
  Token t = 0;
  CHECK(f.path.read(7, kRead1, 0, t) == WritePath::Read::Answered);
  CHECK(t == 1234);
  CHECK(f.path.read(8, kRead1, 1, t) == WritePath::Read::Miss);
  CHECK(f.path.in_flight() == 1);
}

TEST_CASE("write path: a page written in part is merged with the page read from flash") {
  Fixture f;
  std::uint32_t op;
  REQUIRE(f.path.write(3, kWriteA, 55, true, 0, op) == WritePath::Start::NeedsOldData);
  CHECK(f.rec.log.empty());
  f.path.reading_old_data(op, 900);
  Token t = 0;
  CHECK(f.path.read(3, kRead1, 2, t) == WritePath::Read::Parked);  // the newest write's data is not known
  f.path.old_data(op, 77, 40);
  const Token merged = merge_tokens(77, 55);
  CHECK(f.rec.log == std::vector<std::string>{"read r1 page 2 token " + std::to_string(merged),
                                              "program op0 token " + std::to_string(merged)});
  CHECK(f.path.op(op).replaces == 900);
  CHECK(f.path.op(op).waited_for == WritePath::Waited::Rmw);
  CHECK(f.path.op(op).t_known == 40);
}

TEST_CASE("write path: a page never written merges with the unwritten token") {
  Fixture f;
  std::uint32_t op;
  REQUIRE(f.path.write(3, kWriteA, 55, true, 0, op) == WritePath::Start::NeedsOldData);
  f.path.old_data(op, kUnwrittenToken, 0);
  CHECK(f.path.op(op).token == merge_tokens(kUnwrittenToken, 55));
  CHECK(f.path.op(op).waited_for == WritePath::Waited::None);
}

TEST_CASE("write path: waiters are served in arrival order, a chained merge before its predecessor's program") {
  Fixture f;
  std::uint32_t a, b;
  Token t = 0;
  REQUIRE(f.path.write(5, kWriteA, 11, true, 0, a) == WritePath::Start::NeedsOldData);
  f.path.reading_old_data(a, 100);
  REQUIRE(f.path.read(5, kRead1, 0, t) == WritePath::Read::Parked);
  REQUIRE(f.path.write(5, kWriteB, 22, true, 1, b) == WritePath::Start::Waits);  // merges with A's data
  CHECK(f.path.op(b).waited_for == WritePath::Waited::Buffer);
  REQUIRE(f.path.read(5, kRead2, 3, t) == WritePath::Read::Parked);  // waits for B now
  CHECK(!f.path.newest(a));
  CHECK(f.path.newest(b));
  f.path.old_data(a, 33, 9);
  const Token ta = merge_tokens(33, 11), tb = merge_tokens(ta, 22);
  CHECK(f.rec.log == std::vector<std::string>{"read r1 page 0 token " + std::to_string(ta),
                                              "read r2 page 3 token " + std::to_string(tb),
                                              "program op" + std::to_string(b) + " token " + std::to_string(tb),
                                              "program op" + std::to_string(a) + " token " + std::to_string(ta)});
  CHECK(f.path.op(b).t_known == 9);
  // A later partial write merges with B's known data at once.
  std::uint32_t c;
  CHECK(f.path.write(5, kWriteA, 44, true, 12, c) == WritePath::Start::Known);
  CHECK(f.path.op(c).token == merge_tokens(tb, 44));
}

TEST_CASE("write path: a trim or a program on flash takes the page out of the buffer, entries are reused") {
  Fixture f;
  std::uint32_t a, b;
  Token t = 0;
  f.path.write(9, kWriteA, 1, false, 0, a);
  f.path.write(9, kWriteB, 2, false, 0, b);
  CHECK(!f.path.newest(a));  // its program must not move the mapping
  f.path.trim(9);
  CHECK(!f.path.newest(b));
  CHECK(f.path.read(9, kRead1, 0, t) == WritePath::Read::Miss);
  f.path.release(a);
  f.path.release(b);
  CHECK(f.path.in_flight() == 0);
  std::uint32_t c;
  f.path.write(10, kWriteA, 3, false, 0, c);
  CHECK((c == a || c == b));  // a freed entry, not a new one
  CHECK(f.path.newest(c));
  REQUIRE(f.path.maps_at_end(c));
  f.path.mapped(c);  // programmed: the mapping has it now
  CHECK(f.path.read(10, kRead1, 0, t) == WritePath::Read::Miss);
  CHECK(f.path.in_flight() == 1);
}

TEST_CASE("write path: a page released before its data is known is refused") {
  Fixture f;
  std::uint32_t op;
  REQUIRE(f.path.write(1, kWriteA, 5, true, 0, op) == WritePath::Start::NeedsOldData);
  CHECK_THROWS_AS(f.path.release(op), std::logic_error);
}

TEST_CASE("write path: a host command taken while a waiter is served (re-entry) is served in turn") {
  // A read answered completes its host command; the host's next command, a write of the
  // same page, arrives at once, inside the serving loop.
  Fixture f;
  std::uint32_t a, b = WritePath::kNone;
  Token t = 0;
  REQUIRE(f.path.write(2, kWriteA, 10, true, 0, a) == WritePath::Start::NeedsOldData);
  REQUIRE(f.path.read(2, kRead1, 0, t) == WritePath::Read::Parked);
  REQUIRE(f.path.read(2, kRead2, 1, t) == WritePath::Read::Parked);
  f.rec.on_read = [&] {
    if (b != WritePath::kNone) return;
    REQUIRE(f.path.write(2, kWriteB, 20, true, 1, b) == WritePath::Start::Known);  // A's data is known now
  };
  f.path.old_data(a, 7, 1);
  const Token ta = merge_tokens(7, 10), tb = merge_tokens(ta, 20);
  CHECK(f.rec.log == std::vector<std::string>{"read r1 page 0 token " + std::to_string(ta),
                                              "program op" + std::to_string(b) + " token " + std::to_string(tb),
                                              "read r2 page 1 token " + std::to_string(ta),
                                              "program op" + std::to_string(a) + " token " + std::to_string(ta)});
  CHECK(f.path.newest(b));
}

TEST_CASE("write path: a failed write stays its page's data until the page is written again or trimmed") {
  Fixture f;
  std::uint32_t a, b, c;
  REQUIRE(f.path.write(4, kWriteA, 10, false, 0, a) == WritePath::Start::Known);
  REQUIRE(f.path.write(4, kWriteB, 20, false, 0, b) == WritePath::Start::Known);
  // The older write fails: the newer carries the page; the older is freed at once.
  f.path.fail(a);
  CHECK(f.path.in_flight() == 1);
  CHECK(f.path.failed_kept() == 0);
  // The newest fails: kept, never programmed, and reads are answered from it.
  f.path.fail(b);
  CHECK(f.path.in_flight() == 1);
  CHECK(f.path.failed_kept() == 1);
  CHECK(f.path.newest(b));
  Token t = 0;
  CHECK(f.path.read(4, kRead1, 0, t) == WritePath::Read::Answered);
  CHECK(t == 20);
  // A write of part of the page merges with the failed write's data, which it replaces:
  // known at once, and the failed entry freed.
  f.rec.log.clear();
  REQUIRE(f.path.write(4, kWriteA, 30, true, 5, c) == WritePath::Start::Known);
  CHECK(f.path.op(c).token == merge_tokens(20, 30));
  CHECK(f.path.op(c).waited_for == WritePath::Waited::None);
  CHECK(f.rec.log == std::vector<std::string>{"program op" + std::to_string(c) + " token " +
                                              std::to_string(merge_tokens(20, 30))});
  CHECK(f.path.failed_kept() == 0);
  CHECK(f.path.in_flight() == 1);
  // A trim of a page whose newest write failed frees it; reads then miss.
  f.path.fail(c);
  CHECK(f.path.failed_kept() == 1);
  f.path.trim(4);
  CHECK(f.path.failed_kept() == 0);
  CHECK(f.path.in_flight() == 0);
  CHECK(f.path.read(4, kRead1, 0, t) == WritePath::Read::Miss);
}

// The mapping holds the newest version on flash: an older write whose program ends first
// moves it (its write may be acknowledged, and a power cut may come before the newer
// one's program ends); one that ends after a newer write reached the mapping, or after a
// trim, does not.
TEST_CASE("write path: an older write's program maps until a newer one or a trim reaches the mapping",
          "[power]") {
  Fixture f;
  std::uint32_t a, b, c;
  char kWriteC[] = "C";
  // A then B of page 9; A's program ends first: mapped; then B's.
  f.path.write(9, kWriteA, 1, false, 0, a);
  f.path.write(9, kWriteB, 2, false, 0, b);
  CHECK(f.path.maps_at_end(a));
  f.path.mapped(a);
  CHECK(f.path.newest(b));  // reads still go to B's data in the buffer
  f.path.release(a);
  CHECK(f.path.maps_at_end(b));
  f.path.mapped(b);
  f.path.release(b);
  // A, B, C of page 9; B ends first (mapped), then A (older than B: not), then C.
  f.path.write(9, kWriteA, 1, false, 0, a);
  f.path.write(9, kWriteB, 2, false, 0, b);
  f.path.write(9, kWriteC, 3, false, 0, c);
  REQUIRE(f.path.maps_at_end(b));
  f.path.mapped(b);
  f.path.release(b);
  CHECK_FALSE(f.path.maps_at_end(a));
  f.path.release(a);
  CHECK(f.path.maps_at_end(c));
  f.path.mapped(c);
  f.path.release(c);
  // The newest ends first: the older one no longer maps.
  f.path.write(9, kWriteA, 1, false, 0, a);
  f.path.write(9, kWriteB, 2, false, 0, b);
  f.path.mapped(b);
  f.path.release(b);
  CHECK_FALSE(f.path.maps_at_end(a));
  f.path.release(a);
  // A trim after both: neither maps.
  f.path.write(9, kWriteA, 1, false, 0, a);
  f.path.write(9, kWriteB, 2, false, 0, b);
  f.path.trim(9);
  CHECK_FALSE(f.path.maps_at_end(a));
  CHECK_FALSE(f.path.maps_at_end(b));
  f.path.release(a);
  f.path.release(b);
  // Nothing in flight: the floor is gone, a new write maps.
  f.path.write(9, kWriteA, 1, false, 0, a);
  CHECK(f.path.maps_at_end(a));
  CHECK(f.path.in_flight() == 1);
}
