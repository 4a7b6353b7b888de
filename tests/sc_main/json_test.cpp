// The JSON reader (sc_main/json.h), and an integer's way through a config file.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "sc_main/json.h"
#include "sc_main/sim_config.h"

using namespace ssd;

TEST_CASE("json: 100,000 keys parse, and a duplicate among them is refused by line", "[config][json]") {
  // The duplicate test was once quadratic (34 s for 100,000 keys); it is a hash set now.
  std::string text = "{\n";
  for (int i = 0; i < 100000; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",\n";
  const json::Value v = json::parse(text + "\"last\": 0\n}\n", "many.json");
  CHECK(v.members.size() == 100001);
  CHECK_THROWS_WITH(json::parse(text + "\"k5\": 1\n}\n", "dup.json"),
                    Catch::Contains("dup.json:100002") && Catch::Contains("duplicate key \"k5\""));
}

TEST_CASE("json: an integer is one when it fits in 64 bits, to the last digit", "[config][json]") {
  // The fuzzer found it: workload.seed = 2^63 - 1 was written to config.json and refused
  // when loaded back ("expected an integer, got a number").
  const json::Value v = json::parse("{\"a\": 9223372036854775807, \"b\": 9223372036854775808, \"c\": -9223372036854775808}", "n.json");
  CHECK(v.members[0].second.is_integer);
  CHECK(v.members[0].second.integer == INT64_MAX);
  CHECK_FALSE(v.members[1].second.is_integer);
  CHECK(v.members[2].second.is_integer);
  Config c = make_config();
  c.set_text("workload.seed", "9223372036854775807", "--set");
  Config d = make_config();
  d.load_json(json::parse(c.to_json(), "config.json"), "config.json");
  CHECK(d.get_int("workload.seed") == INT64_MAX);
}
