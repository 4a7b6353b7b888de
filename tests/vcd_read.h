// Reads a VCD as the tests check it: each variable's full dotted name (its scopes and
// its own), and its values in time order as written ($dumpvars included), binary
// strings without the 'b'.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tlm/flash_command.h"

namespace ssd::test {

struct Vcd {
  using Changes = std::vector<std::pair<Tick, std::string>>;
  std::map<std::string, std::string> code;  // full name -> id code
  std::map<std::string, Changes> by_code;   // id code -> (time, value)
  bool has(const std::string& name) const { return code.count(name) != 0; }
  // A variable's changes by its full name (empty if it has none or does not exist).
  const Changes& changes(const std::string& name) const {
    static const Changes none;
    const auto c = code.find(name);
    if (c == code.end()) return none;
    const auto it = by_code.find(c->second);
    return it == by_code.end() ? none : it->second;
  }
  static std::uint64_t value(const std::string& bits) { return std::stoull(bits, nullptr, 2); }
};

inline Vcd read_vcd(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  Vcd v;
  std::vector<std::string> scope;
  std::string line;
  Tick now = 0;
  bool defs = true;
  while (std::getline(in, line)) {
    std::istringstream is(line);
    std::string w;
    is >> w;
    if (defs) {
      if (w == "$scope") {
        std::string kind, name;
        is >> kind >> name;
        scope.push_back(name);
      } else if (w == "$upscope") {
        scope.pop_back();
      } else if (w == "$var") {
        std::string type, width, id, name;
        is >> type >> width >> id >> name;
        std::string full;
        for (const std::string& s : scope) full += s + ".";
        v.code[full + name] = id;
      } else if (w == "$enddefinitions") {
        defs = false;
      }
      continue;
    }
    if (w.empty() || w[0] == '$') continue;
    if (w[0] == '#') {
      now = std::stoull(w.substr(1));
    } else if (w[0] == 'b') {
      std::string id;
      is >> id;
      v.by_code[id].push_back({now, w.substr(1)});
    } else {
      v.by_code[w.substr(1)].push_back({now, w.substr(0, 1)});
    }
  }
  return v;
}

}  // namespace ssd::test
