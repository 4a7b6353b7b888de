// Fields of text input (traces, NAND command scripts, config values): a whole string read
// as one number with nothing left over, and the project's form of an error about a field,
// "FILE:LINE: field 'NAME': what". One definition for every reader.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace ssd {

// The one number grammar of every reader and of --set (one function, so that a trace, a
// script, a config file and the command line agree): decimal, an optional sign ('+' or
// '-'), digits; a real may add a fraction ('.' and digits) and an exponent ('e' or 'E',
// an optional sign, digits). No space before or after, no hexadecimal, no inf or nan, no
// '1.' or '.5'. Whether it fits its type and range is the caller's to check.
inline bool decimal_number(const std::string& s, bool integer) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  if (!digits()) return false;
  if (!integer) {
    if (i < n && s[i] == '.') {
      ++i;
      if (!digits()) return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
      if (!digits()) return false;
    }
  }
  return i == n;
}

// An integer of the grammar above filling the whole string, in the type's range; false
// on anything else ('-' for an unsigned type: a negative number is out of its range).
template <typename Int>
bool parse_whole(const std::string& s, Int& v) {
  static_assert(std::is_integral_v<Int>);
  if (!decimal_number(s, true)) return false;
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  const auto r = std::from_chars(b, s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A real of the grammar above filling the whole string, finite.
inline bool parse_real(const std::string& s, double& v) {
  if (!decimal_number(s, false)) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}
// The same in long double (trace timestamps), finite also as a double.
inline bool parse_real(const std::string& s, long double& v) {
  if (!decimal_number(s, false)) return false;
  char* end = nullptr;
  v = std::strtold(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(static_cast<double>(v));
}

// The items of a comma-separated list (a config value), each without the spaces and tabs
// around it: "" has none, "1,,2" an empty second item.
inline std::vector<std::string> comma_items(const std::string& list) {
  std::vector<std::string> items;
  std::size_t at = 0;
  while (at <= list.size() && !list.empty()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::string item = list.substr(at, comma - at);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    items.push_back(std::move(item));
    at = comma + 1;
  }
  return items;
}

// A field's text for an error message: quoted, a byte that does not print shown as \xHH
// (a byte-order mark is visible), and cut after `max` bytes with its length said (an
// 8 MB field must not become 8 MB of stderr).
inline std::string quote(const std::string& s, std::size_t max = 64) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  out += s.size() > max ? "...' (" + std::to_string(s.size()) + " bytes)" : "'";
  return out;
}

// One line of text input, read into `line` without its end: a line ends at LF, CR or
// CRLF (Unix, old Mac and Windows files alike), or at the end of the input. A line
// longer than `max_bytes` is TooLong (its first max_bytes bytes are in `line`), so that
// one line, or a file with no line end at all, cannot exhaust memory.
enum class LineRead { Line, End, TooLong };
inline LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  std::streambuf* sb = in.rdbuf();
  using traits = std::char_traits<char>;
  int c = sb->sbumpc();
  if (c == traits::eof()) return LineRead::End;
  for (;; c = sb->sbumpc()) {
    if (c == traits::eof() || c == '\n') return LineRead::Line;
    if (c == '\r') {
      if (sb->sgetc() == '\n') sb->sbumpc();
      return LineRead::Line;
    }
    if (line.size() == max_bytes) return LineRead::TooLong;
    line.push_back(static_cast<char>(c));
  }
}

// The UTF-8 byte-order mark some editors put at the start of a text file.
inline bool strip_bom(std::string& first_line) {
  if (first_line.compare(0, 3, "\xEF\xBB\xBF") != 0) return false;
  first_line.erase(0, 3);
  return true;
}

inline std::string field_error(const std::string& path, long long line, const std::string& field,
                               const std::string& what) {
  std::ostringstream os;
  os << path << ':' << line << ": field '" << field << "': " << what;
  return os.str();
}

}  // namespace ssd
