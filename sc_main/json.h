// A small JSON reader that remembers where each value stood, so that a bad
// config names its file, line and key. Only what config files need: objects,
// arrays, strings, numbers, true/false/null.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ssd::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  bool b = false;
  double num = 0;
  bool is_integer = false;  // written without fraction or exponent
  std::int64_t integer = 0;
  std::string str;          // String; for Number, the text as written
  std::vector<Value> items;                          // Array
  std::vector<std::pair<std::string, Value>> members;  // Object, in file order
  int line = 0;
  const char* kind_name() const;
};

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ParseError("<source>:<line>:<col>: <what>").
Value parse(const std::string& text, const std::string& source);
Value parse_file(const std::string& path);

// Writes a value as indented JSON.
void write(std::string& out, const Value& v, int indent = 0);
std::string quote(const std::string& s);

}  // namespace ssd::json
