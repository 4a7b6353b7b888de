// common/params.h: keys declared beside a struct's fields, the defaults taken from the
// struct, the loader, the names found by field, and the range checks.
#include <catch2/catch.hpp>

#include <map>

#include "common/params.h"

namespace {

using namespace ssd;

enum class Mode { Slow, Fast };

struct Inner {
  double rate = 2.5;
  static const param::Table<Inner>& keys() {
    static const param::Table<Inner> t = [] {
      param::Table<Inner> k;
      k.number("toy.inner.rate", &Inner::rate, 0, 10, "a rate");
      return k;
    }();
    return t;
  }
};

struct Toy {
  std::uint32_t count = 7;
  bool on = true;
  std::string name = "x";
  std::string pick = "b";
  Mode mode = Mode::Fast;
  Inner inner;
  static const param::Table<Toy>& keys() {
    static const param::Table<Toy> t = [] {
      param::Table<Toy> k;
      k.integer("toy.count", &Toy::count, 1, 100, "a count")
          .unit("widgets")
          .flag("toy.on", &Toy::on, "a switch")
          .text("toy.name", &Toy::name, "a name")
          .choice("toy.pick", &Toy::pick, {"a", "b"}, "a choice kept as its name")
          .choice("toy.mode", &Toy::mode, {{"slow", Mode::Slow}, {"fast", Mode::Fast}}, "a choice kept as a value")
          .part(&Toy::inner, Inner::keys());
      return k;
    }();
    return t;
  }
};

const param::Field<Toy>& field(const std::string& name) {
  for (const auto& f : Toy::keys().fields())
    if (f.key.name == name) return f;
  FAIL("no field " << name);
  throw;
}

}  // namespace

TEST_CASE("params: a table's keys take their defaults from the struct, parts included", "[params]") {
  const auto& fields = Toy::keys().fields();
  REQUIRE(fields.size() == 6);
  CHECK(field("toy.count").def.i == 7);
  CHECK(field("toy.count").key.imin == 1);
  CHECK(field("toy.count").key.imax == 100);
  CHECK(field("toy.count").key.unit == "widgets");
  CHECK(field("toy.on").key.unit.empty());
  CHECK(field("toy.on").def.b);
  CHECK(field("toy.name").def.s == "x");
  CHECK(field("toy.pick").def.s == "b");
  CHECK(field("toy.mode").def.s == "fast");
  CHECK(field("toy.mode").key.choices == std::vector<std::string>{"slow", "fast"});
  CHECK(field("toy.inner.rate").def.d == 2.5);
}

TEST_CASE("params: the generic loader fills every field, a part's and a mapped choice's too", "[params]") {
  std::map<std::string, param::Value> given;
  given["toy.count"].i = 42;
  given["toy.on"].b = false;
  given["toy.name"].s = "y";
  given["toy.pick"].s = "a";
  given["toy.mode"].s = "slow";
  given["toy.inner.rate"].d = 9.5;
  Toy t;
  for (const auto& f : Toy::keys().fields()) f.set(t, given.at(f.key.name));
  CHECK(t.count == 42);
  CHECK(!t.on);
  CHECK(t.name == "y");
  CHECK(t.pick == "a");
  CHECK(t.mode == Mode::Slow);
  CHECK(t.inner.rate == 9.5);
  for (const auto& f : Toy::keys().fields()) {  // and reads back what it wrote
    const param::Value v = f.get(t);
    const param::Value& w = given.at(f.key.name);
    CHECK(param::value_text(f.key, v) == param::value_text(f.key, w));
  }
}

TEST_CASE("params: key() names the key of a field, also through a part", "[params]") {
  CHECK(param::key(&Toy::count) == "toy.count");
  CHECK(param::key(&Toy::mode) == "toy.mode");
  CHECK(param::key(&Inner::rate) == "toy.inner.rate");
  CHECK(param::names(Toy::keys()).back() == "toy.inner.rate");
}

TEST_CASE("params: check() names each field outside its key's range or choices", "[params]") {
  Toy t;
  CHECK(param::check(t).empty());
  t.count = 0;
  t.pick = "z";
  t.inner.rate = 11;
  const std::vector<std::string> errs = param::check(t);
  REQUIRE(errs.size() == 3);
  CHECK(errs[0] == "toy.count = 0 is out of range [1, 100]");
  CHECK(errs[1] == "toy.pick: 'z' is not one of: a, b");
  CHECK(errs[2] == "toy.inner.rate = 11 is out of range [0, 10]");
}

TEST_CASE("params: a key declared twice is refused when the table is built", "[params]") {
  param::Table<Toy> k;
  k.integer("toy.count", &Toy::count, 1, 100, "a count");
  CHECK_THROWS_WITH(k.flag("toy.count", &Toy::on, "again"), Catch::Contains("declared twice: toy.count"));
}
