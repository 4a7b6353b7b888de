// A small VCD writer for the model's own state traces (bus phases, die states,
// register occupancy, queue lengths). Changes are written when they happen, so a
// trace costs nothing while off and only a few bytes per change while on; it can
// be limited to a time window and to scopes (name prefixes). Enum-valued
// variables are plain vectors; waves/*.txt hold the GTKWave translate filters.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "tlm/flash_command.h"

namespace ssd {

struct TraceOptions {
  std::string path;                 // empty: tracing off
  Tick start = 0;                   // first time recorded
  Tick end = kNever;                // changes at or after this time are dropped
  std::vector<std::string> scopes;  // whole dotted names to keep, with what is under them; empty: all
};

// A dotted signal name's components: "ssd.nand.ch0" -> {"ssd", "nand", "ch0"}.
std::vector<std::string> split_dots(const std::string& s);

class VcdWriter {
 public:
  static constexpr int kNoVar = -1;
  explicit VcdWriter(TraceOptions opts);
  ~VcdWriter();
  VcdWriter(const VcdWriter&) = delete;
  VcdWriter& operator=(const VcdWriter&) = delete;

  // Declares a variable; `name` is dotted (scopes then the variable's own name).
  // Returns kNoVar when the scope filter excludes it; change() ignores kNoVar.
  // All declarations must come before the first change().
  int declare(const std::string& name, unsigned width, std::uint64_t initial = 0);
  // Times must not decrease. Changes within one timestep are coalesced: only a
  // variable's final value at that time is written (no zero-width glitches).
  void change(int var, Tick t, std::uint64_t value) {
    if (var < 0) return;
    if (t < cur_time_) backwards(t);
    if (t != cur_time_) flush();
    cur_time_ = t;
    Var& v = vars_[static_cast<unsigned>(var)];
    v.value = value;
    if (!v.dirty) {
      v.dirty = true;
      dirty_.push_back(static_cast<unsigned>(var));
    }
  }
  // Writes the final timestamp and closes the file.
  void finish(Tick t);
  const std::string& path() const { return opts_.path; }
  // After the declarations: the trace.scopes prefixes no declared variable matched (a
  // typo would otherwise write an empty VCD), and the scopes there are to trace, for the
  // message: each layer (ssd.nand) with the range of its channels (ssd.nand.ch0 to .ch7).
  std::vector<std::string> unmatched_scopes() const;
  std::vector<std::string> scopes_offered() const;
  std::uint64_t changes_written() const { return changes_; }
  // The variables declared (those the scope filter kept), in declaration order.
  struct Declared {
    std::string name;
    unsigned width;
  };
  std::vector<Declared> declared() const;

 private:
  struct Var {
    std::string name;
    std::string code;
    unsigned width;
    std::uint64_t value;      // latest
    std::uint64_t committed;  // as of the end of the last finished timestep
    bool dirty = false;
  };
  [[noreturn]] void backwards(Tick t) const;  // a change before the last: a model bug
  void write_header();
  void flush();
  void open_window(bool use_latest);
  void write_value(const std::string& code, unsigned width, std::uint64_t value);
  bool in_scope(const std::string& name) const;

  TraceOptions opts_;
  std::vector<char> scope_matched_;    // per opts_.scopes entry
  std::vector<std::string> offered_;   // sorted, unique: see scopes_offered()
  std::ofstream out_;
  std::vector<Var> vars_;
  std::vector<unsigned> dirty_;
  bool header_written_ = false;
  bool window_open_ = false;
  Tick cur_time_ = 0;
  Tick last_time_ = 0;  // last timestamp written
  std::uint64_t changes_ = 0;
  bool finished_ = false;
};

}  // namespace ssd
