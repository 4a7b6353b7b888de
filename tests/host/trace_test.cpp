// Trace readers: the four formats, device selection, relative times, and malformed
// lines refused by file, line and field. Plain C++.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "host/request_source.h"

using namespace ssd;
using namespace ssd::host;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  std::ofstream(name) << text;
  return name;
}
std::vector<TraceRecord> read_all(const std::string& path, TraceFormat f, std::int64_t dev = -1) {
  TraceReader r(path, f, dev);
  std::vector<TraceRecord> out;
  TraceRecord t;
  while (r.next(t)) out.push_back(t);
  return out;
}
}  // namespace

TEST_CASE("trace: MSR Cambridge CSV, times relative to the first record in 100 ns units", "[trace][msr]") {
  auto v = read_all(write_temp("t.msr", "128166386783630075,hm,0,Write,3164164096,40960,2896\n"
                                        "128166386783640075,hm,0,Read,512,512,100\n"),
                    TraceFormat::Msr);
  REQUIRE(v.size() == 2);
  CHECK(v[0].time == 0);
  CHECK(v[0].op == HostOp::Write);
  CHECK(v[0].offset == 3164164096ull);
  CHECK(v[0].bytes == 40960);
  CHECK(v[1].time == 10000ull * 100 * 1000);  // 10000 x 100 ns in ps
  CHECK(v[1].op == HostOp::Read);
}

TEST_CASE("trace: SPC, DiskSim and MQSim records", "[trace]") {
  auto spc = read_all(write_temp("t.spc", "0,20941264,8192,W,0.551706\n1,10,512,r,1.5\n"), TraceFormat::Spc);
  REQUIRE(spc.size() == 2);
  CHECK(spc[0].offset == 20941264ull * 512);
  CHECK(spc[0].op == HostOp::Write);
  CHECK(spc[1].time == us_to_ticks((1.5 - 0.551706) * 1e6));
  CHECK(spc[1].device == 1);
  auto ds = read_all(write_temp("t.ds", "13.191135\t30\t0\t5\t1\n17.829285 20 576560 6 0\n"), TraceFormat::DiskSim);
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].op == HostOp::Read);
  CHECK(ds[0].bytes == 5 * 512);
  CHECK(ds[1].op == HostOp::Write);
  CHECK(ds[1].offset == 576560ull * 512);
  CHECK(ds[1].time == us_to_ticks((17.829285 - 13.191135) * 1e3));
  auto mq = read_all(write_temp("t.mq", "938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n"), TraceFormat::MqSim);
  REQUIRE(mq.size() == 2);
  CHECK(mq[1].time == 315000ull * 1000);
  CHECK(mq[1].op == HostOp::Read);
  // Device selection.
  CHECK(read_all("t.mq", TraceFormat::MqSim, 3).size() == 1);
}

TEST_CASE("trace: malformed lines are refused by file, line and field", "[trace][errors]") {
  struct Case {
    TraceFormat f;
    const char* text;
    const char* expect;
  } cases[] = {
      {TraceFormat::Msr, "1,hm,0,Write,4096\n", "bad.trace:1: field 'Size': missing"},
      {TraceFormat::Msr, "1,hm,0,Write,4096,x,1\n", "field 'Size': not a size in bytes: 'x'"},
      {TraceFormat::Msr, "1,hm,0,Erase,4096,512,1\n", "field 'Type': expected Read or Write"},
      {TraceFormat::Msr, "1,hm,0,Write,4096,-512,1\n", "field 'Size'"},
      {TraceFormat::Msr, "5,hm,0,Write,0,512,1\n3,hm,0,Write,0,512,1\n", "bad.trace:2: field 'Timestamp': time goes backwards"},
      {TraceFormat::Spc, "0,10,512,x,1.0\n", "field 'Opcode': expected r or w"},
      {TraceFormat::DiskSim, "1.0 0 10 8\n", "field 'flags': missing"},
      {TraceFormat::DiskSim, "abc 0 10 8 1\n", "field 'arrival_ms'"},
      {TraceFormat::MqSim, "100 0 8 8 2\n", "field 'type': expected 1 (read) or 0 (write)"},
      {TraceFormat::MqSim, "100 0 8 0 1\n", "a request of 0 bytes"},
      // Every field of an MSR line is checked, the ones the model does not use too.
      {TraceFormat::Msr, "1,hm,0,Write,0,512,x\n", "field 'ResponseTime': not a whole number (of 100 ns): 'x'"},
      {TraceFormat::Msr, "1,hm,0,Write,0,512,-3\n", "field 'ResponseTime'"},
      {TraceFormat::Msr, "1,,0,Write,0,512,1\n", "field 'Hostname': not a host name"},
      {TraceFormat::Msr, "1,h m,0,Write,0,512,1\n", "field 'Hostname'"},
      // MQSim's and DiskSim's integers are digits, as their C writers print them.
      {TraceFormat::MqSim, "+5 0 8 8 1\n", "field 'arrival_ns': not a time in ns (digits): '+5'"},
      {TraceFormat::MqSim, "5 -0 8 8 1\n", "field 'device': not a device number (digits): '-0'"},
      {TraceFormat::MqSim, "5 0 +8 8 1\n", "field 'start_sector'"},
      {TraceFormat::DiskSim, "1.0 -0 10 8 1\n", "field 'devno': not a device number (digits): '-0'"},
      {TraceFormat::DiskSim, "1.0 0 +10 8 1\n", "field 'blkno'"},
      {TraceFormat::DiskSim, "1.0 0 10 +8 1\n", "field 'bcount'"},
      {TraceFormat::DiskSim, "1.0 0 10 8 +1\n", "field 'flags'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    write_temp("bad.trace", c.text);
    CHECK_THROWS_WITH(read_all("bad.trace", c.f), Catch::Contains(c.expect));
  }
  CHECK_THROWS_WITH(TraceReader("missing.trace", TraceFormat::Msr), Catch::Contains("missing.trace: cannot open"));
  CHECK_THROWS_WITH(parse_trace_format("csv"), Catch::Contains("msr, spc, disksim, mqsim"));
}

TEST_CASE("trace: an address past the capacity is an error, wraps, or is skipped and counted", "[trace][capacity]") {
  write_temp("cap.mq", "0 0 0 8 1\n10 0 1000 16 1\n20 0 8 8 0\n");
  TraceSourceConfig c;
  c.path = "cap.mq";
  c.format = TraceFormat::MqSim;
  c.capacity_sectors = 512;
  HostRequest r;
  Tick at;
  {
    TraceSource s(c);
    REQUIRE(s.next(r, at));
    CHECK_THROWS_WITH(s.next(r, at), Catch::Contains("cap.mq:2: field 'offset'"));
  }
  {
    c.out_of_range = OutOfRange::Skip;
    TraceSource s(c);
    int n = 0;
    while (s.next(r, at)) ++n;
    CHECK(n == 2);
    CHECK(s.skipped() == 1);
  }
  {
    c.out_of_range = OutOfRange::Wrap;
    TraceSource s(c);
    REQUIRE(s.next(r, at));
    REQUIRE(s.next(r, at));
    CHECK(r.lba == 1000 % (512 - 16 + 1));
    CHECK(r.lba + r.sectors <= 512);
  }
  {
    write_temp("huge.mq", "0 0 36028797018963967 16 1\n");  // (2^55 - 1) sectors: the byte end overflows
    TraceSourceConfig h = c;
    h.path = "huge.mq";
    h.out_of_range = OutOfRange::Wrap;
    TraceSource s(h);
    CHECK_THROWS_WITH(s.next(r, at), Catch::Contains("huge.mq:1: field 'start_sector': the request's end is past 2^64"));
  }
  {
    // Its bytes end 50 short of 2^64, the sector holding the last of them does not.
    write_temp("huge_end.csv", "0,h,0,Read,18446744073709551516,50,0\n");
    TraceSourceConfig h = c;
    h.path = "huge_end.csv";
    h.format = TraceFormat::Msr;
    h.out_of_range = OutOfRange::Wrap;
    TraceSource s(h);
    CHECK_THROWS_WITH(s.next(r, at), Catch::Contains("huge_end.csv:1: field 'offset'"));
  }
  {
    c.out_of_range = OutOfRange::Error;
    c.time_scale = 0.5;
    c.limit = 1;
    TraceSource s(c);
    REQUIRE(s.next(r, at));
    CHECK_FALSE(s.next(r, at));  // the limit
  }
}

TEST_CASE("trace: a replica gives the same requests from the first, independently, and a pipe has none",
          "[trace][lookahead]") {
  write_temp("rep.mq", "0 0 0 8 1\n10 0 1000 16 1\n20 0 8 8 0\n30 0 24 16 0\n");
  TraceSourceConfig c;
  c.path = "rep.mq";
  c.format = TraceFormat::MqSim;
  c.capacity_sectors = 512;
  c.out_of_range = OutOfRange::Skip;
  TraceSource s(c);
  HostRequest r, q;
  Tick at, bt;
  REQUIRE(s.next(r, at));  // read one before the replica is made: it still starts at the first
  std::unique_ptr<RequestSource> rep = s.reopen();
  REQUIRE(rep);
  REQUIRE(rep->next(q, bt));
  CHECK((q.lba == r.lba && q.sectors == r.sectors && q.op == r.op && bt == at));
  int n = 1;
  while (s.next(r, at)) {
    ++n;
    REQUIRE(rep->next(q, bt));
    CHECK((q.lba == r.lba && q.sectors == r.sectors && q.op == r.op && bt == at));
  }
  CHECK(n == 3);  // one skipped, by both
  CHECK_FALSE(rep->next(q, bt));
  c.path = "/dev/stdin";
  if (!std::filesystem::is_regular_file(c.path)) {
    TraceSource p(c);
    CHECK_FALSE(p.reopen());
  }
}

TEST_CASE("trace: lines end at LF, CR or CRLF, and a leading byte-order mark is skipped", "[trace][lines]") {
  const std::string a = "128166386783630075,hm,0,Write,4096,512,1", b = "128166386783640075,hm,0,Read,512,512,1",
                    c = "128166386783650075,hm,0,Write,4096,512,1";
  for (const std::string& end : {std::string("\n"), std::string("\r"), std::string("\r\n")}) {
    INFO("line end " << (end == "\n" ? "LF" : end == "\r" ? "CR" : "CRLF"));
    auto v = read_all(write_temp("ends.msr", a + end + b + end + c + end), TraceFormat::Msr);
    REQUIRE(v.size() == 3);  // CR alone once read as one line: "40\r96" became 4096
    CHECK(v[0].offset == 4096);
    CHECK(v[1].offset == 512);
    CHECK(v[2].line == 3);
  }
  auto v = read_all(write_temp("bom.msr", "\xEF\xBB\xBF" + a + "\n"), TraceFormat::Msr);
  REQUIRE(v.size() == 1);
  CHECK(v[0].bytes == 512);
}

TEST_CASE("trace: one field too many, a line too long, or no line end at all is refused at its line",
          "[trace][errors][bounds]") {
  write_temp("more.msr", "1,hm,0,Write,4096,512,1,9\n");
  CHECK_THROWS_WITH(read_all("more.msr", TraceFormat::Msr),
                    Catch::Contains("more.msr:1: field 'ResponseTime': followed by 1 more field"));
  write_temp("more.mq", "100 0 8 8 1 5\n");
  CHECK_THROWS_WITH(read_all("more.mq", TraceFormat::MqSim), Catch::Contains("more.mq:1: field 'type': followed by"));
  write_temp("more.ds", "1.0 0 10 8 1 7\n");
  CHECK_THROWS_WITH(read_all("more.ds", TraceFormat::DiskSim), Catch::Contains("field 'flags': followed by"));
  // The SPC format allows optional fields after the timestamp.
  CHECK(read_all(write_temp("opt.spc", "0,10,512,r,1.0,extra\n"), TraceFormat::Spc).size() == 1);
  // A line past the bound; a file with no line end (as /dev/zero would be).
  write_temp("long.msr", "1,hm,0,Write,4096,512,1\n" + std::string(TraceReader::kMaxLineBytes + 1, '7') + "\n");
  CHECK_THROWS_WITH(read_all("long.msr", TraceFormat::Msr), Catch::Contains("long.msr:2: a line longer than 4096 bytes"));
  write_temp("zeros.msr", std::string(1 << 20, '\0'));
  CHECK_THROWS_WITH(read_all("zeros.msr", TraceFormat::Msr), Catch::Contains("zeros.msr:1: a line longer than"));
}

TEST_CASE("trace: an error quotes a long field cut, with its length, and shows bytes that do not print",
          "[trace][errors]") {
  write_temp("wide.mq", std::string(3000, '9') + "x 0 8 8 1\n");
  try {
    read_all("wide.mq", TraceFormat::MqSim);
    FAIL("accepted");
  } catch (const TraceError& e) {
    const std::string m = e.what();
    CHECK(m.size() < 200);
    CHECK_THAT(m, Catch::Contains("...' (3001 bytes)"));
  }
  write_temp("ctl.msr", "1,hm,0,Wr\x01te,4096,512,1\n");
  CHECK_THROWS_WITH(read_all("ctl.msr", TraceFormat::Msr), Catch::Contains("got 'Wr\\x01te'"));
}

TEST_CASE("trace: a closed loop checks the times' syntax only, a timed replay their range too",
          "[trace][closed]") {
  // 9 x 10^9 s apart: past 2^63 ps (106 days), which only a timed replay uses.
  write_temp("far.mq", "0 0 0 8 1\n9000000000000000000 0 8 8 1\n");
  CHECK_THROWS_WITH(read_all("far.mq", TraceFormat::MqSim), Catch::Contains("field 'arrival_ns'"));
  {
    TraceReader r("far.mq", TraceFormat::MqSim, -1, 1.0, false);
    TraceRecord t;
    REQUIRE(r.next(t));
    REQUIRE(r.next(t));
    CHECK(t.time == 0);
  }
  write_temp("badtime.mq", "0 0 0 8 1\nsoon 0 8 8 1\n");
  TraceReader r("badtime.mq", TraceFormat::MqSim, -1, 1.0, false);
  TraceRecord t;
  REQUIRE(r.next(t));
  CHECK_THROWS_WITH(r.next(t), Catch::Contains("badtime.mq:2: field 'arrival_ns'"));
}

TEST_CASE("trace: no requests is an error naming the file, and a limit that cuts the trace says so",
          "[trace][empty]") {
  TraceSourceConfig c;
  c.format = TraceFormat::MqSim;
  c.capacity_sectors = 512;
  HostRequest r;
  Tick at;
  for (const char* text : {"", "\n\n  \n", "# a comment\n# another\n"}) {
    INFO("'" << text << "'");
    c.path = write_temp("none.mq", text);
    TraceSource s(c);
    CHECK_THROWS_WITH(s.next(r, at), Catch::Contains("no requests in none.mq"));
  }
  c.path = write_temp("other.mq", "0 3 0 8 1\n");
  c.device = 1;
  {
    TraceSource s(c);
    CHECK_THROWS_WITH(s.next(r, at), Catch::Contains("of device 1"));
  }
  c.device = -1;
  c.path = write_temp("three.mq", "0 0 0 8 1\n10 0 8 8 1\n20 0 16 8 1\n");
  c.limit = 2;
  std::ostringstream err;
  std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
  TraceSource s(c);
  int n = 0;
  while (s.next(r, at)) ++n;
  CHECK_FALSE(s.next(r, at));
  std::cerr.rdbuf(old);
  CHECK(n == 2);
  CHECK(err.str() == "ssdsim: workload.requests = 2 stops the replay of three.mq before its line 3 (unset it to "
                     "replay the whole trace)\n");
}

TEST_CASE("trace: a request past the host's largest transfer is split as a block layer splits it",
          "[trace][split]") {
  write_temp("big.mq", "0 0 100 20 1\n5000 0 0 8 0\n");  // 20 sectors, then 8
  TraceSourceConfig c;
  c.path = "big.mq";
  c.format = TraceFormat::MqSim;
  c.capacity_sectors = 4096;
  SplitSource s(std::make_unique<TraceSource>(c), 8);
  HostRequest r;
  Tick at;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> pieces;
  std::vector<Tick> times;
  while (s.next(r, at)) {
    pieces.emplace_back(r.lba, r.sectors);
    times.push_back(at);
    CHECK(r.op == (r.lba >= 100 ? HostOp::Read : HostOp::Write));
  }
  // 20 sectors from 100: 8 + 8 + 4, in address order, at the request's arrival; then 8 whole.
  CHECK(pieces == std::vector<std::pair<std::uint64_t, std::uint32_t>>{{100, 8}, {108, 8}, {116, 4}, {0, 8}});
  CHECK(times == std::vector<Tick>{0, 0, 0, 5000ull * 1000});
  CHECK(s.split() == 1);
  // A replica splits alike.
  SplitSource t(std::make_unique<TraceSource>(c), 8);
  std::unique_ptr<RequestSource> rep = t.reopen();
  REQUIRE(rep);
  int n = 0;
  while (rep->next(r, at)) ++n;
  CHECK(n == 4);
}

TEST_CASE("trace: blkparse Q events, with discards as trims, flushes and preflushed writes", "[trace][blkparse]") {
  // blkparse's default output (and -t's elapsed time): only Q events are requests; the
  // closing summary ends the events.
  auto v = read_all(write_temp("t.blk",
                               "  8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [jbd2/sda1-8]\n"
                               "  8,0    3        2     0.000001812   697  G  WS 223490 + 8 [jbd2/sda1-8]\n"
                               "  8,0    3        4     0.000010023   697  D  WS 223490 + 8 [jbd2/sda1-8]\n"
                               "  8,0    1        1     0.000200100  2311  Q   R 1048576 + 256 [fio]\n"
                               "  8,0    1        2     0.000210100  2311  Q  FWFS 223498 + 8 [jbd2/sda1-8]\n"
                               "  8,0    0        1     0.000300000   412  Q  FN [kworker/0:1H]\n"
                               "  8,0    2        7     0.000412000  1733  Q   D 4194304 + 2048 (   12) [fstrim]\n"
                               "  8,0    3        9     0.000500000   697  C  WS 223490 + 8 [0]\n"
                               "  8,16   0        3     0.000600000  2311  Q   F [sync]\n"
                               "  8,0    0        2     0.000700000   412  Q  FA [kworker/0:1H]\n"
                               "CPU0 (8,0):\n"
                               " Reads Queued:           1,      128KiB\t Writes Queued:           2,        8KiB\n"),
                    TraceFormat::Blkparse);
  REQUIRE(v.size() == 8);
  CHECK(v[0].op == HostOp::Write);
  CHECK(v[0].offset == 223490ull * 512);
  CHECK(v[0].bytes == 8 * 512);
  CHECK_FALSE(v[0].fua);
  CHECK(v[1].op == HostOp::Read);
  CHECK(v[1].time == 200100ull * 1000);
  CHECK(v[2].op == HostOp::Flush);  // the preflush, then the write, at one time
  CHECK(v[2].bytes == 0);
  CHECK(v[3].op == HostOp::Write);
  CHECK(v[3].offset == 223498ull * 512);
  CHECK(v[3].time == v[2].time);
  CHECK(v[3].fua);  // the F after the kind: Force Unit Access
  CHECK_FALSE(v[2].fua);
  CHECK(v[4].op == HostOp::Flush);
  CHECK(v[5].op == HostOp::Trim);
  CHECK(v[5].bytes == 2048 * 512);
  CHECK(v[6].op == HostOp::Flush);
  CHECK(v[6].device == 16);  // the minor number
  CHECK(v[7].op == HostOp::Flush);  // F and a flag: a flush (the fuzzer's strict reading agrees)
  CHECK(read_all("t.blk", TraceFormat::Blkparse, 16).size() == 1);
  struct Case {
    const char* text;
    const char* expect;
  } bad[] = {
      {"8:0 0 1 0.1 1 Q W 0 + 8 [x]\n", "bad.blk:1: field 'device'"},
      {"8,0 0 1 0.1 1 Q N 0 + 8 [x]\n", "field 'rwbs': a request that is no read, write, discard or flush"},
      {"8,0 0 1 0.1 1 Q WX 0 + 8 [x]\n", "field 'rwbs': expected"},
      {"8,0 0 1 0.1 1 Q W 0 + 0 [x]\n", "field 'blocks': a request of 0 bytes"},
      {"8,0 0 1 0.1 1 Q FN 0 + 8 [x]\n", "field 'blocks': a flush that carries data"},
      {"8,0 0 1 0.1 1 Q W 0 - 8 [x]\n", "field 'sector'"},
      {"8,0 0 1 0.2 1 Q W 0 + 8 [x]\n8,0 0 2 0.1 1 Q W 8 + 8 [x]\n", "bad.blk:2: field 'time': time goes backwards"},
  };
  for (const Case& c : bad) {
    INFO(c.text);
    write_temp("bad.blk", c.text);
    CHECK_THROWS_WITH(read_all("bad.blk", TraceFormat::Blkparse), Catch::Contains(c.expect));
  }
  CHECK(parse_trace_format("blkparse") == TraceFormat::Blkparse);
}

TEST_CASE("trace: a flush passes the splitter and the capacity checks as a request of no sectors",
          "[trace][blkparse][split]") {
  write_temp("flush.blk", "8,0 0 1 0.0 1 Q FWS 64 + 131072 [x]\n8,0 0 2 0.5 1 Q D 0 + 65536 [x]\n");
  TraceSourceConfig c;
  c.path = "flush.blk";
  c.format = TraceFormat::Blkparse;
  c.capacity_sectors = 1 << 20;
  SplitSource s(std::make_unique<TraceSource>(c), 65536);
  std::vector<HostRequest> got;
  HostRequest r;
  Tick at;
  while (s.next(r, at)) got.push_back(r);
  REQUIRE(got.size() == 4);  // the flush, the write in two pieces, the trim whole
  CHECK((got[0].op == HostOp::Flush && got[0].sectors == 0 && got[0].lba == 0));
  CHECK((got[1].op == HostOp::Write && got[1].lba == 64 && got[1].sectors == 65536));
  CHECK((got[2].op == HostOp::Write && got[2].lba == 64 + 65536 && got[2].sectors == 65536));
  CHECK((got[3].op == HostOp::Trim && got[3].sectors == 65536));
  CHECK(s.split() == 1);
}
