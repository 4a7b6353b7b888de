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

// An error message as what() can carry it: a NUL byte (a string's \u0000) would end the
// C string there, so each is written as \u0000.
inline std::string without_nul(std::string s) {
  for (std::size_t i = s.find('\0'); i != std::string::npos; i = s.find('\0', i + 6)) s.replace(i, 1, "\\u0000");
  return s;
}

struct ParseError : std::runtime_error {
  explicit ParseError(const std::string& what) : std::runtime_error(without_nul(what)) {}
};

// Throws ParseError("<source>:<line>:<col>: <what>").
Value parse(const std::string& text, const std::string& source);
Value parse_file(const std::string& path);

// Writes a value as indented JSON.
void write(std::string& out, const Value& v, int indent = 0);
std::string quote(const std::string& s);

}  // namespace ssd::json
