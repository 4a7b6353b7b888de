#include "sc_main/gtkw_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "controller/flash_sched.h"

namespace ssd {

namespace {

// GTKWave's trace flags (its save-file format): display formats, translate filter,
// group begin/end, collapsed group, comment row.
constexpr unsigned kHex = 0x2, kDec = 0x4, kBin = 0x8, kRight = 0x20, kBlank = 0x200, kFilter = 0x2000;
constexpr unsigned kClosed = 0x400000, kGroupBegin = 0x800000, kGroupEnd = 0x1000000;

bool starts(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// The number after `prefix` in a name component ("chip12" -> 12), or -1.
long number_of(const std::string& part, const std::string& prefix) {
  if (!starts(part, prefix) || part.size() == prefix.size()) return -1;
  long v = 0;
  for (std::size_t i = prefix.size(); i < part.size(); ++i) {
    if (part[i] < '0' || part[i] > '9') return -1;
    v = v * 10 + (part[i] - '0');
  }
  return v;
}

class Writer {
 public:
  explicit Writer(const ViewSpec& spec) : spec_(spec) {}

  void comment(const std::string& text) { os_ << '@' << std::hex << (kBlank) << std::dec << "\n-" << text << '\n'; }
  void group_begin(const std::string& name, bool closed) {
    os_ << '@' << std::hex << (kGroupBegin | kBlank | (closed ? kClosed : 0)) << std::dec << "\n-" << name << '\n';
  }
  void group_end(const std::string& name, bool closed) {
    os_ << '@' << std::hex << (kGroupEnd | kBlank | (closed ? kClosed : 0)) << std::dec << "\n-" << name << '\n';
  }
  // A signal row, labelled `alias`.
  void signal(const VcdWriter::Declared& v, const std::string& alias) {
    const std::string filter = filter_of(v.name);
    unsigned flags = kRight | (v.width == 1 ? kBin : v.name.find("accept") != std::string::npos ? kHex : kDec);
    if (!filter.empty()) {
      flags |= kFilter;
      auto it = filters_.find(filter);
      if (it == filters_.end()) it = filters_.emplace(filter, filters_.size() + 1).first;
      os_ << '@' << std::hex << flags << std::dec << "\n^" << it->second << ' ' << filter << '\n';
    } else {
      os_ << '@' << std::hex << flags << std::dec << '\n';
    }
    os_ << "+{" << alias << "} " << v.name;
    if (v.width > 1) os_ << '[' << v.width - 1 << ":0]";
    os_ << '\n';
    ++rows_;
  }
  std::string str() const { return os_.str(); }
  unsigned rows() const { return rows_; }

 private:
  // The translate filter for a signal, by its own name (waves/*.txt), or none.
  std::string filter_of(const std::string& name) const {
    const std::vector<std::string> parts = split_dots(name);
    const std::string& leaf = parts.back();
    const std::string parent = parts.size() > 1 ? parts[parts.size() - 2] : "";
    const auto w = [this](const char* f) { return spec_.filters_dir + "/" + f; };
    if (leaf == "bus_phase") return w("bus_phase.txt");
    if (leaf == "bus_chip" || leaf == "grant_chip" || (parent == "push" && leaf == "chip")) return w("bus_chip.txt");
    if (leaf == "array") return w("array_state.txt");
    if (leaf == "status" && parts.size() > 1 && parts[1] == "nand") return w("flash_status.txt");
    if (leaf == "data_reg" || leaf == "cache_reg") return w("reg_state.txt");
    if (leaf == "origin" || leaf == "bus_origin") return w("origin.txt");
    if (leaf == "cmd" || leaf == "bus_cmd" || leaf == "request" || leaf == "bus_request" || leaf == "grant" ||
        leaf == "grant_id")
      return parts.size() > 2 && parts[2] == "rtl" && leaf == "grant" ? "" : w("id.txt");
    if (leaf == "stage") return w("stage.txt");
    if (leaf == "where") return spec_.where_filter;
    if (leaf == "batch_op") return w("host_op.txt");
    if (leaf == "pcie_up" || leaf == "pcie_down") return w("pcie_tlp.txt");
    if (leaf == "edge") return w("edge.txt");
    if (parent == "push" && leaf == "op") return w("flash_op.txt");
    if (parent == "push" && leaf == "class") return w("cmd_class.txt");
    return "";
  }

  const ViewSpec& spec_;
  std::ostringstream os_;
  std::map<std::string, std::size_t> filters_;
  unsigned rows_ = 0;
};

}  // namespace

double gtkw_zoom_for(Tick ps) {
  // A window of 4.85 * 2^-z picoseconds at zoom z (measured: z = -28 shows 1.3 ms).
  const double w = std::max(1.0, static_cast<double>(ps));
  return -std::log2(w / 4.85);
}

std::string gtkw_view(const ViewSpec& spec) {
  using Var = VcdWriter::Declared;
  std::map<std::string, const Var*> by_name;
  for (const Var& v : spec.vars) by_name[v.name] = &v;
  const auto get = [&by_name](const std::string& n) -> const Var* {
    const auto it = by_name.find(n);
    return it == by_name.end() ? nullptr : it->second;
  };
  Writer w(spec);

  // The traced requests.
  for (const auto& [id, pages] : spec.requests) {
    const std::string r = "ssd.request.r" + std::to_string(id);
    if (!get(r + ".stage")) continue;
    w.group_begin("request " + std::to_string(id), false);
    for (const char* leaf : {"stage", "pages", "commands"})
      if (const Var* v = get(r + "." + leaf)) w.signal(*v, leaf);
    for (unsigned p = 0; p < pages; ++p)
      for (const char* leaf : {"stage", "where", "cmd", "origin"})
        if (const Var* v = get(r + ".p" + std::to_string(p) + "." + leaf))
          w.signal(*v, "page " + std::to_string(p) + " " + leaf);
    w.group_end("request " + std::to_string(id), false);
  }

  // The overview: one row set per layer, then per channel bus.
  const auto layer = [&](const std::string& title, const std::string& scope, std::vector<const char*> leaves) {
    std::vector<const Var*> rows;
    for (const char* leaf : leaves)
      if (const Var* v = get(scope + "." + leaf)) rows.push_back(v);
    if (rows.empty()) return;
    w.comment(title);
    for (const Var* v : rows) w.signal(*v, title + " " + split_dots(v->name).back());
  };
  layer("power", "ssd.power", {"cuts", "recovery_ns"});  // power cuts (power.*), when made
  layer("host", "ssd.host", {"outstanding", "queued", "batch", "batch_op"});
  layer("hif", "ssd.hif", {"tags", "backpressure", "inbound", "commands", "fetched", "interrupts", "pcie_down",
                           "pcie_up", "pcie_queue"});  // SATA's, or NVMe's
  layer("fw", "ssd.firmware", {"busy", "work_queue", "commands", "gc_planes", "map_log_checkpoint", "map_log_commands"});
  bool block_title = false;
  for (unsigned ch = 0; ch < spec.channels; ++ch) {
    if (const Var* v = get("ssd.sched.ch" + std::to_string(ch) + ".grant")) {
      if (!block_title) w.comment("block: grant per channel");
      block_title = true;
      w.signal(*v, "ch" + std::to_string(ch) + " grant");
    }
  }
  for (unsigned ch = 0; ch < spec.channels; ++ch) {
    const std::string c = "ssd.nand.ch" + std::to_string(ch);
    std::vector<const Var*> rows;
    for (const char* leaf : {"bus_phase", "bus_chip", "bus_cmd", "bus_origin", "bus_request"})
      if (const Var* v = get(c + "." + leaf)) rows.push_back(v);
    if (rows.empty()) continue;
    w.comment("channel " + std::to_string(ch) + " bus");
    for (const Var* v : rows) w.signal(*v, "ch" + std::to_string(ch) + " " + split_dots(v->name).back());
  }

  // One collapsed group per channel: chips, dies, planes, across the layers.
  for (unsigned ch = 0; ch < spec.channels; ++ch) {
    const std::string tag = "ch" + std::to_string(ch);
    struct Row {
      long chip, die, plane;
      int layer;
      std::size_t order;
      const Var* v;
      std::string alias;
    };
    std::vector<Row> rows;
    for (std::size_t i = 0; i < spec.vars.size(); ++i) {
      const Var& v = spec.vars[i];
      const std::vector<std::string> parts = split_dots(v.name);
      if (parts.size() < 5 || parts[0] != "ssd" || parts[2] != tag) continue;
      const int lay = parts[1] == "sched" ? 0 : parts[1] == "nand" ? 1 : parts[1] == "firmware" ? 2 : -1;
      if (lay < 0) continue;
      Row r{number_of(parts[3], "chip"), -1, -1, lay, i, &v, ""};
      if (r.chip < 0) continue;
      std::string alias = parts[3];
      for (std::size_t k = 4; k < parts.size(); ++k) {
        if (number_of(parts[k], "die") >= 0 && r.die < 0) r.die = number_of(parts[k], "die");
        else if (number_of(parts[k], "plane") >= 0 && r.plane < 0) r.plane = number_of(parts[k], "plane");
        alias += " " + parts[k];
      }
      r.alias = (lay == 0 ? "block " : lay == 2 ? "fw " : "") + alias;
      rows.push_back(r);
    }
    if (rows.empty()) continue;
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      if (a.chip != b.chip) return a.chip < b.chip;
      if (a.die != b.die) return a.die < b.die;
      if (a.plane != b.plane) return a.plane < b.plane;
      if (a.layer != b.layer) return a.layer < b.layer;
      return a.order < b.order;
    });
    w.group_begin("channel " + std::to_string(ch), true);
    for (const Row& r : rows) w.signal(*r.v, r.alias);
    w.group_end("channel " + std::to_string(ch), true);
  }

  // The verilated block, collapsed.
  std::vector<const Var*> rtl;
  for (const Var& v : spec.vars)
    if (starts(v.name, "ssd.sched.rtl.")) rtl.push_back(&v);
  if (!rtl.empty()) {
    const std::string group = "RTL block (" + param::key(&ctrl::SchedConfig::rtl) + ")";
    w.group_begin(group, true);
    for (const Var* v : rtl) {
      std::string alias = v->name.substr(std::string("ssd.sched.rtl.").size());
      std::replace(alias.begin(), alias.end(), '.', ' ');
      w.signal(*v, alias);
    }
    w.group_end(group, true);
  }

  std::ostringstream os;
  os << "[*] " << spec.title << "\n[*] open with: gtkwave " << spec.vcd_path << " <this file>\n";
  os << "[dumpfile] \"" << spec.vcd_path << "\"\n";
  os << "[timestart] " << spec.start << "\n[size] 1600 1000\n[pos] -1 -1\n";
  char zoom[64];
  std::snprintf(zoom, sizeof zoom, "*%.6f %lld", gtkw_zoom_for(spec.window),
                spec.marker == kNever ? -1LL : static_cast<long long>(spec.marker));
  os << zoom;
  for (int i = 0; i < 26; ++i) os << " -1";
  os << "\n[sst_width] 220\n[signals_width] 330\n[sst_expanded] 1\n[sst_vpaned_height] 300\n";
  os << w.str();
  return os.str();
}

}  // namespace ssd
