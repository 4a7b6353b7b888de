// Fields of text input (traces, NAND command scripts, config values): a whole string read
// as one number with nothing left over, and the project's form of an error about a field,
// "FILE:LINE: field 'NAME': what". One definition for every reader.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>

namespace ssd {

// An integer (decimal, optional '-' for signed types) filling the whole string; false on
// anything else, on an empty string and on overflow.
template <typename Int>
bool parse_whole(const std::string& s, Int& v) {
  static_assert(std::is_integral_v<Int>);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A finite real number filling the whole string.
inline bool parse_real(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}
// The same in long double (trace timestamps), finite also as a double.
inline bool parse_real(const std::string& s, long double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtold(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(static_cast<double>(v));
}

inline std::string field_error(const std::string& path, long long line, const std::string& field,
                               const std::string& what) {
  std::ostringstream os;
  os << path << ':' << line << ": field '" << field << "': " << what;
  return os.str();
}

}  // namespace ssd
