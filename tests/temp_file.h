// A file written for a test, in the test's working directory.
#pragma once

#include <fstream>
#include <string>

namespace ssd::test {

// Writes `text` to `name` and returns the name.
inline std::string write_temp(const std::string& name, const std::string& text) {
  std::ofstream(name) << text;
  return name;
}

}  // namespace ssd::test
