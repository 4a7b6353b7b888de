#include "sc_main/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <sstream>
#include <unordered_set>

namespace ssd::json {

const char* Value::kind_name() const {
  switch (kind) {
    case Kind::Null: return "null";
    case Kind::Bool: return "a boolean";
    case Kind::Number: return is_integer ? "an integer" : "a number";
    case Kind::String: return "a string";
    case Kind::Array: return "an array";
    case Kind::Object: return "an object";
  }
  return "?";
}

namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : s_(text), src_(source) {}

  Value document() {
    skip();
    Value v = value(0);
    skip();
    if (i_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::ostringstream os;
    os << src_ << ':' << line_ << ':' << (i_ - line_start_ + 1) << ": " << what;
    throw ParseError(os.str());
  }
  void skip() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++line_;
        line_start_ = ++i_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else {
        break;
      }
    }
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  Value value(int depth) {
    if (depth > 64) fail("nesting too deep");
    if (i_ >= s_.size()) fail("unexpected end of file, expected a value");
    Value v;
    v.line = line_;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Kind::Object;
      skip();
      if (eat('}')) return v;
      std::unordered_set<std::string> seen;  // duplicate keys, in O(1) each
      for (;;) {
        skip();
        if (i_ >= s_.size() || s_[i_] != '"') fail("expected a key in double quotes");
        std::string key = string();
        if (!seen.insert(key).second) fail("duplicate key \"" + key + "\"");
        skip();
        if (!eat(':')) fail("expected ':' after key \"" + key + "\"");
        skip();
        v.members.emplace_back(std::move(key), value(depth + 1));
        skip();
        if (eat('}')) return v;
        if (!eat(',')) fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      ++i_;
      v.kind = Value::Kind::Array;
      skip();
      if (eat(']')) return v;
      for (;;) {
        skip();
        v.items.push_back(value(depth + 1));
        skip();
        if (eat(']')) return v;
        if (!eat(',')) fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = Value::Kind::String;
      v.str = string();
      return v;
    }
    if (s_.compare(i_, 4, "true") == 0) {
      i_ += 4;
      v.kind = Value::Kind::Bool;
      v.b = true;
      return v;
    }
    if (s_.compare(i_, 5, "false") == 0) {
      i_ += 5;
      v.kind = Value::Kind::Bool;
      return v;
    }
    if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (static_cast<unsigned char>(c) == 0xEF && s_.compare(i_, 3, "\xEF\xBB\xBF") == 0)
      fail("a UTF-8 byte-order mark, which JSON does not have here");
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(c));
    fail(std::string("unexpected character '") + (c >= 0x20 && c < 0x7f ? std::string(1, c) : std::string(hex)) +
         "'");
  }
  Value number() {
    Value v;
    v.line = line_;
    v.kind = Value::Kind::Number;
    const std::size_t start = i_;
    bool integer = true;
    eat('-');
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("malformed number");
    // JSON: no leading zero ("01" is not a number; "0", "0.5" are).
    if (s_[i_] == '0' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))
      fail("malformed number: a leading zero");
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (eat('.')) {
      integer = false;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("malformed number");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      integer = false;
      ++i_;
      if (!eat('+')) eat('-');
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("malformed number");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    v.str = s_.substr(start, i_ - start);
    v.num = std::strtod(v.str.c_str(), nullptr);
    if (!std::isfinite(v.num)) fail("number out of range: " + v.str);
    // An integer literal is an integer when it fits in 64 bits, exactly (a bound on its
    // double refused 9223372036854775807, which a config.json can hold).
    if (integer) {
      const auto r = std::from_chars(v.str.data(), v.str.data() + v.str.size(), v.integer);
      v.is_integer = r.ec == std::errc() && r.ptr == v.str.data() + v.str.size();
    }
    return v;
  }
  std::string string() {
    ++i_;  // opening quote
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      char c = s_[i_++];
      if (c == '"') return out;
      if (c == '\n') fail("newline inside a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated string");
      char e = s_[i_++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          unsigned cp = 0;
          for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
            else fail("bad \\u escape");
          }
          if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default: fail(std::string("bad escape \\") + e);
      }
    }
  }

  const std::string& s_;
  std::string src_;
  std::size_t i_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace

Value parse(const std::string& text, const std::string& source) {
  return Parser(text, source).document();
}

Value parse_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ParseError(path + ": is a directory, not a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  // A leading UTF-8 byte-order mark, which some editors write, is skipped (RFC 8259
  // allows a parser to ignore it); one anywhere else is an error saying what it is.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  return parse(text, path);
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

void write(std::string& out, const Value& v, int indent) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  switch (v.kind) {
    case Value::Kind::Null: out += "null"; break;
    case Value::Kind::Bool: out += v.b ? "true" : "false"; break;
    case Value::Kind::Number: out += v.str; break;
    case Value::Kind::String: out += quote(v.str); break;
    case Value::Kind::Array:
      out += "[";
      for (std::size_t k = 0; k < v.items.size(); ++k) {
        out += k ? ", " : "";
        write(out, v.items[k], indent + 2);
      }
      out += "]";
      break;
    case Value::Kind::Object:
      if (v.members.empty()) {
        out += "{}";
        break;
      }
      out += "{\n";
      for (std::size_t k = 0; k < v.members.size(); ++k) {
        out += pad + quote(v.members[k].first) + ": ";
        write(out, v.members[k].second, indent + 2);
        out += k + 1 < v.members.size() ? ",\n" : "\n";
      }
      out += std::string(static_cast<std::size_t>(indent), ' ') + "}";
      break;
  }
}

}  // namespace ssd::json
