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
                                      "20 erase 0 0 0 1 7 -\n");
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
