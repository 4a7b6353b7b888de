// The NAND command script reader (sc_main/nand_script.h), plain C++.
#include <catch2/catch.hpp>

#include <string>

#include "sc_main/nand_script.h"
#include "tests/temp_file.h"

using namespace ssd;
using ssd::test::write_temp;

TEST_CASE("nand script: commands, plane lists, page ranges and comments", "[script]") {
  const std::string path = write_temp("script_ok.ops",
                                      "# comment\n"
                                      "0 program 1 2 1 0,1 7 0-2   # three commands\n"
                                      "\n"
                                      "10.5 read 0 0 0 all 7 1\n"
                                      "20 erase 0 0 0 1 7 -\n"
                                      "30 power_cut - - - - - -\n"
                                      "40 read 0 0 0 0 7 0\n");
  NandScriptReader r(path, nand::NandConfig{});
  ScriptCommand c;
  for (std::uint32_t pg = 0; pg < 3; ++pg) {
    REQUIRE(r.next(c));
    CHECK(c.op == FlashOp::Program);
    CHECK(c.channel == 1);
    CHECK(c.chip == 2);
    CHECK(c.die == 1);
    CHECK(c.plane_mask == 0b11);
    CHECK(c.block == 7);
    CHECK(c.page == pg);
    CHECK(c.line == 2);
  }
  REQUIRE(r.next(c));
  CHECK(c.op == FlashOp::Read);
  CHECK(c.time == us_to_ticks(10.5));
  CHECK(c.plane_mask == 0b11);
  REQUIRE(r.next(c));
  CHECK(c.op == FlashOp::Erase);
  CHECK(c.plane_mask == 0b10);
  CHECK_FALSE(c.power_cut);
  REQUIRE(r.next(c));
  CHECK(c.power_cut);
  CHECK(c.time == us_to_ticks(30));
  CHECK(c.line == 6);
  REQUIRE(r.next(c));
  CHECK_FALSE(c.power_cut);
  CHECK(c.op == FlashOp::Read);
  CHECK_FALSE(r.next(c));
}

TEST_CASE("nand script: malformed lines are refused naming file, line and field", "[script]") {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"0 read 0 0 0 0 0\n", "bad.ops:1: field 'pages': missing"},
      {"x read 0 0 0 0 0 0\n", "bad.ops:1: field 'time_us': not a number"},
      {"-1 read 0 0 0 0 0 0\n", "field 'time_us': negative"},
      {"5 read 0 0 0 0 0 0\n1 read 0 0 0 0 0 0\n", "bad.ops:2: field 'time_us': time 1 goes backwards"},
      {"0 raed 0 0 0 0 0 0\n", "field 'op': unknown operation 'raed'"},
      {"0 read -1 0 0 0 0 0\n", "field 'channel'"},
      {"0 read 0 x 0 0 0 0\n", "field 'chip'"},
      {"0 read 0 0 0.5 0 0 0\n", "field 'die'"},
      {"0 read 0 0 0 9 0 0\n", "field 'planes': not a plane number: '9'"},
      {"0 read 0 0 0 0 b 0\n", "field 'block'"},
      {"0 read 0 0 0 0 0 5-2\n", "field 'pages': not a page range"},
      {"0 read 0 0 0 0 0 0 extra\n", "unexpected text after the 8th field"},
      // Every address field against the geometry (8 channels, 4 chips, 2 dies, 2 planes,
      // 1024 blocks), refused here rather than as a protocol error per page at the device.
      {"0 read 8 0 0 0 0 0\n", "bad.ops:1: field 'channel': channel 8 does not exist (nand.channels = 8)"},
      {"0 read 0 4 0 0 0 0\n", "field 'chip': chip 4 does not exist (nand.chips_per_channel = 4)"},
      {"0 erase 0 0 2 0 0 -\n", "field 'die': die 2 does not exist (nand.dies_per_chip = 2)"},
      {"0 read 0 0 0 0,3 0 0\n", "field 'planes': a plane past nand.planes_per_die = 2"},
      {"0 program 0 0 0 0 1024 0-3\n", "field 'block': block 1024 does not exist (nand.blocks_per_plane = 1024)"},
  };
  for (const Case& k : cases) {
    INFO(k.text);
    const std::string path = write_temp("bad.ops", k.text);
    NandScriptReader r(path, nand::NandConfig{});
    ScriptCommand c;
    CHECK_THROWS_WITH([&] { while (r.next(c)) {} }(), Catch::Contains(k.expect));
  }
  CHECK_THROWS_WITH(NandScriptReader("missing.ops", nand::NandConfig{}), Catch::Contains("missing.ops: cannot open"));
}

TEST_CASE("nand script: lines end at LF, CR or CRLF, a BOM is skipped, a long line is refused", "[script]") {
  for (const char* end : {"\n", "\r", "\r\n"}) {
    INFO("line end " << (end[0] == '\n' ? "LF" : end[1] ? "CRLF" : "CR"));
    const std::string path = write_temp("ends.ops", std::string("\xEF\xBB\xBF" "0 program 0 0 0 0 5 0") + end +
                                                        "10 read 0 0 0 0 5 0" + end);
    NandScriptReader r(path, nand::NandConfig{});
    ScriptCommand c;
    REQUIRE(r.next(c));
    CHECK(c.op == FlashOp::Program);
    REQUIRE(r.next(c));
    CHECK(c.op == FlashOp::Read);
    CHECK(c.line == 2);
    CHECK_FALSE(r.next(c));
  }
  const std::string path = write_temp("long.ops", std::string(NandScriptReader::kMaxLineBytes + 1, ' ') + "\n");
  NandScriptReader r(path, nand::NandConfig{});
  ScriptCommand c;
  CHECK_THROWS_WITH(r.next(c), Catch::Contains("long.ops:1: a line longer than 4096 bytes"));
}
