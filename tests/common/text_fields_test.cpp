// The one number grammar of every reader and --set, the quoting of fields in errors, the
// line reader (common/text_fields.h), and the VCD's scope names. Plain C++.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>

#include "common/text_fields.h"
#include "common/vcd_writer.h"

using namespace ssd;

TEST_CASE("text fields: one number grammar, decimal with an optional sign and exponent", "[text][numbers]") {
  for (const char* ok : {"0", "8", "+8", "-3", "0005", "1.5", "-0.25", "+2.0", "1e3", "1E-3", "2.5e+2", "007.50"}) {
    INFO(ok);
    double d;
    CHECK(parse_real(ok, d));
  }
  // Once accepted by strtod (hexadecimal, spaces, '1.'), or by nothing at all.
  for (const char* bad : {"", " 0.5", "0.5 ", "5 ", "0x0.8", "0x1p14", "1.", ".5", "inf", "nan", "1e", "1e+", "--1",
                          "+-1", "1,5", "1.5.2", "e3", "+", "1e400"}) {
    INFO("'" << bad << "'");
    double d;
    long double ld;
    CHECK_FALSE(parse_real(bad, d));
    CHECK_FALSE(parse_real(bad, ld));
  }
  std::int64_t i;
  std::uint32_t u;
  CHECK(parse_whole("+8", i));
  CHECK(i == 8);
  CHECK(parse_whole("-8", i));
  CHECK(i == -8);
  CHECK(parse_whole("+8", u));
  for (const char* bad : {" 8", "8 ", "8.0", "1e3", "0x10", "", "+", "-", "+-8"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_whole(bad, i));
  }
  CHECK_FALSE(parse_whole("-8", u));           // negative: out of an unsigned range
  CHECK_FALSE(parse_whole("4294967296", u));   // 2^32
}

TEST_CASE("text fields: a quoted field is cut with its length and shows bytes that do not print",
          "[text][quote]") {
  CHECK(quote("abc") == "'abc'");
  CHECK(quote("\xEF\xBB\xBFx") == "'\\xEF\\xBB\\xBFx'");
  const std::string q = quote(std::string(8 << 20, 'z'));
  CHECK(q.size() < 100);
  CHECK(q == "'" + std::string(64, 'z') + "...' (8388608 bytes)");
}

TEST_CASE("text fields: lines end at LF, CR or CRLF and are bounded", "[text][lines]") {
  std::istringstream in("a\nb\rc\r\nd");
  std::string line;
  for (const char* want : {"a", "b", "c", "d"}) {
    REQUIRE(read_line(in, line, 16) == LineRead::Line);
    CHECK(line == want);
  }
  CHECK(read_line(in, line, 16) == LineRead::End);
  std::istringstream blank("\r\r\n\n");
  int lines = 0;
  while (read_line(blank, line, 16) == LineRead::Line) ++lines;
  CHECK(lines == 3);  // CR, CRLF, LF: three empty lines
  std::istringstream wide(std::string(17, 'x') + "\n");
  CHECK(read_line(wide, line, 16) == LineRead::TooLong);
  std::istringstream exact(std::string(16, 'x'));
  CHECK(read_line(exact, line, 16) == LineRead::Line);
  std::string bom = "\xEF\xBB\xBFhi";
  CHECK(strip_bom(bom));
  CHECK(bom == "hi");
}

TEST_CASE("vcd scopes: a scope is a whole dotted name, ch1 never takes ch10", "[vcd][scopes]") {
  VcdWriter vcd(TraceOptions{"scopes_test.vcd", 0, kNever, {"ssd.nand.ch1", "ssd.host"}});
  CHECK(vcd.declare("ssd.nand.ch1.busy", 1) != VcdWriter::kNoVar);
  CHECK(vcd.declare("ssd.nand.ch1", 1) != VcdWriter::kNoVar);  // the scope itself
  CHECK(vcd.declare("ssd.nand.ch10.busy", 1) == VcdWriter::kNoVar);
  CHECK(vcd.declare("ssd.nand.ch15.busy", 1) == VcdWriter::kNoVar);
  CHECK(vcd.declare("ssd.hostess", 1) == VcdWriter::kNoVar);
  CHECK(vcd.unmatched_scopes() == std::vector<std::string>{"ssd.host"});
  vcd.finish(0);
}
