#include "common/vcd_writer.h"

#include <algorithm>
#include <stdexcept>

namespace ssd {

namespace {
std::string id_code(unsigned n) {
  std::string s;
  do {
    s.push_back(static_cast<char>('!' + n % 94));
    n /= 94;
  } while (n != 0);
  return s;
}

}  // namespace

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  return parts;
}

VcdWriter::VcdWriter(TraceOptions opts) : opts_(std::move(opts)) {
  out_.open(opts_.path, std::ios::out | std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot open trace file '" + opts_.path + "' for writing");
}

VcdWriter::~VcdWriter() {
  if (!finished_) finish(last_time_);
}

namespace {
// A scope names whole dotted components: ssd.nand.ch1 is ssd.nand.ch1 and what is under
// it, never ssd.nand.ch10.
bool under(const std::string& name, const std::string& scope) {
  return name.compare(0, scope.size(), scope) == 0 && (name.size() == scope.size() || name[scope.size()] == '.');
}
}  // namespace

bool VcdWriter::in_scope(const std::string& name) const {
  if (opts_.scopes.empty()) return true;
  for (const std::string& p : opts_.scopes)
    if (under(name, p)) return true;
  return false;
}

std::vector<std::string> VcdWriter::unmatched_scopes() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < opts_.scopes.size(); ++i)
    if (i >= scope_matched_.size() || !scope_matched_[i]) out.push_back(opts_.scopes[i]);
  return out;
}

std::vector<std::string> VcdWriter::scopes_offered() const {
  // Each layer (two components) once, with the range of its channels (chN) if it has any.
  std::vector<std::string> out;
  std::vector<std::pair<long, long>> range;
  for (const std::string& s : offered_) {
    const std::size_t dot1 = s.find('.');
    const std::size_t dot2 = dot1 == std::string::npos ? std::string::npos : s.find('.', dot1 + 1);
    const std::string layer = s.substr(0, dot2);
    if (out.empty() || out.back() != layer) {
      out.push_back(layer);
      range.emplace_back(-1, -1);
    }
    if (dot2 == std::string::npos || s.compare(dot2 + 1, 2, "ch") != 0) continue;
    const std::string num = s.substr(dot2 + 3);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 9) continue;
    const long n = std::stol(num);
    auto& r = range.back();
    r.first = r.first < 0 ? n : std::min(r.first, n);
    r.second = std::max(r.second, n);
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    if (range[i].first >= 0)
      out[i] += " (" + out[i] + ".ch" + std::to_string(range[i].first) + " to .ch" + std::to_string(range[i].second) + ")";
  return out;
}

std::vector<VcdWriter::Declared> VcdWriter::declared() const {
  std::vector<Declared> out;
  out.reserve(vars_.size());
  for (const Var& v : vars_) out.push_back(Declared{v.name, v.width});
  return out;
}

int VcdWriter::declare(const std::string& name, unsigned width, std::uint64_t initial) {
  if (header_written_) throw std::logic_error("VcdWriter: declare() after the first change");
  if (!opts_.scopes.empty()) {
    scope_matched_.resize(opts_.scopes.size(), 0);
    for (std::size_t i = 0; i < opts_.scopes.size(); ++i)
      if (under(name, opts_.scopes[i])) scope_matched_[i] = 1;
    std::size_t cut = std::string::npos, from = 0;
    for (int k = 0; k < 3; ++k) {  // the first three components
      cut = name.find('.', from);
      if (cut == std::string::npos) break;
      from = cut + 1;
    }
    const std::string top = name.substr(0, cut);
    const auto at = std::lower_bound(offered_.begin(), offered_.end(), top);
    if (at == offered_.end() || *at != top) offered_.insert(at, top);
  }
  if (!in_scope(name)) return kNoVar;
  vars_.push_back(Var{name, id_code(static_cast<unsigned>(vars_.size())), width, initial, initial});
  return static_cast<int>(vars_.size() - 1);
}

void VcdWriter::backwards(Tick t) const {
  throw std::logic_error("VcdWriter: a change at " + std::to_string(t) + " ps, after one at " +
                         std::to_string(cur_time_) + " ps (the trace would go back in time)");
}

void VcdWriter::write_header() {
  header_written_ = true;
  out_ << "$date model run $end\n$version ssdsim $end\n$timescale 1ps $end\n";
  // Group variables into nested scopes, in name order.
  std::vector<unsigned> order(vars_.size());
  for (unsigned i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](unsigned a, unsigned b) { return vars_[a].name < vars_[b].name; });
  std::vector<std::string> open;
  for (unsigned i : order) {
    std::vector<std::string> parts = split_dots(vars_[i].name);
    std::string leaf = parts.back();
    parts.pop_back();
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    while (open.size() > common) {
      out_ << "$upscope $end\n";
      open.pop_back();
    }
    for (std::size_t k = common; k < parts.size(); ++k) {
      out_ << "$scope module " << parts[k] << " $end\n";
      open.push_back(parts[k]);
    }
    out_ << "$var wire " << vars_[i].width << ' ' << vars_[i].code << ' ' << leaf;
    if (vars_[i].width > 1) out_ << " [" << vars_[i].width - 1 << ":0]";
    out_ << " $end\n";
  }
  while (!open.empty()) {
    out_ << "$upscope $end\n";
    open.pop_back();
  }
  out_ << "$enddefinitions $end\n";
}

void VcdWriter::write_value(const std::string& code, unsigned width, std::uint64_t value) {
  if (width == 1) {
    out_ << (value ? '1' : '0') << code << '\n';
    return;
  }
  char buf[65];
  unsigned n = 0;
  for (int b = static_cast<int>(width) - 1; b >= 0; --b) {
    bool bit = b < 64 && ((value >> b) & 1u);
    if (n == 0 && !bit && b != 0) continue;  // leading zeros are implied
    buf[n++] = bit ? '1' : '0';
  }
  out_ << 'b';
  out_.write(buf, n);
  out_ << ' ' << code << '\n';
}

void VcdWriter::open_window(bool use_latest) {
  if (!header_written_) write_header();
  window_open_ = true;
  last_time_ = opts_.start;
  out_ << '#' << opts_.start << "\n$dumpvars\n";
  for (Var& v : vars_) {
    if (use_latest) v.committed = v.value;
    write_value(v.code, v.width, v.committed);
  }
  out_ << "$end\n";
  ++changes_;
}

void VcdWriter::flush() {
  if (dirty_.empty()) return;
  const bool in_window = cur_time_ >= opts_.start && cur_time_ < opts_.end;
  if (in_window && !window_open_) {
    const bool at_start = cur_time_ == opts_.start;
    open_window(at_start);  // at the start time itself the latest values are the state
    if (at_start) {
      for (unsigned i : dirty_) vars_[i].dirty = false;
      dirty_.clear();
      return;
    }
  }
  // Declaration order within a timestep: processes that run at one time may run in any
  // order (the accel/ hooks change it), and the file must not depend on it.
  std::sort(dirty_.begin(), dirty_.end());
  bool stamped = false;
  for (unsigned i : dirty_) {
    Var& v = vars_[i];
    v.dirty = false;
    if (v.value == v.committed) continue;
    v.committed = v.value;
    if (!in_window) continue;
    if (!stamped) {
      out_ << '#' << cur_time_ << '\n';
      last_time_ = cur_time_;
      stamped = true;
    }
    write_value(v.code, v.width, v.value);
    ++changes_;
  }
  dirty_.clear();
}

void VcdWriter::finish(Tick t) {
  if (finished_) return;
  finished_ = true;
  flush();
  if (!window_open_) open_window(false);
  const Tick end = std::min(t, opts_.end);
  if (end > last_time_) out_ << '#' << end << '\n';
  out_.flush();
  out_.close();
}

}  // namespace ssd
