// A property-based fuzzer for every input reader: the four trace formats, NAND command
// scripts, JSON config files and --set assignments. Plain C++, no SystemC kernel.
//
//   fuzz_readers READER CORPUS_DIR [--iterations N] [--seconds S] [--seed X]
//   READER: msr | spc | disksim | mqsim | blkparse | nand_ops | json | set
//
// Each input is a file of the corpus, or one mutated from them (bytes flipped, inserted or
// deleted; fields replaced by extreme numbers; lines duplicated, swapped or cut). The
// oracle: the reader either refuses the input with the project's error form naming the
// file, a line that exists and a field of the format ("FILE:LINE: field 'NAME': ..."; a
// config error names the file and line, or --set, and a key), or it accepts it, and then
// what it read equals what an independent strict reading of the same text gives (trace:
// operation, byte offset, byte count, device and arrival time of every record; script:
// every command's time, operation, address and page), and the independent reading
// accepts exactly the same inputs. A crash, a hang (the run's time limit) or an exception
// of another type fails it. Exit status: 0 all inputs held, 1 a counterexample (printed,
// and written to fuzz_failure.txt), 2 bad arguments.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "host/trace_reader.h"
#include "sc_main/config.h"
#include "sc_main/json.h"
#include "sc_main/nand_script.h"
#include "sc_main/sim_config.h"

using namespace ssd;
namespace fs = std::filesystem;

namespace {

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? next() % n : 0; }
};

// ---- the independent strict reading ----
// Whole unsigned decimal: an optional '+', digits (leading zeros allowed, however many),
// at most 2^64 - 1.
std::optional<std::uint64_t> strict_u64(const std::string& in) {
  const std::string s = !in.empty() && in[0] == '+' ? in.substr(1) : in;
  if (s.empty()) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > ~std::uint64_t{0}) return std::nullopt;
  }
  return static_cast<std::uint64_t>(v);
}
// A device number: digits, or "-" then digits that read 0 (std::from_chars reads "-0").
std::optional<std::int64_t> strict_dev(const std::string& s) {
  if (!s.empty() && s[0] == '-') {
    if (s.size() > 1 && s[1] == '+') return std::nullopt;  // one sign at most
    const auto v = strict_u64(s.substr(1));
    if (v && *v == 0) return 0;
    return std::nullopt;
  }
  const auto v = strict_u64(s);
  if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}
// Digits only, no sign (MQSim's and DiskSim's integers, as C programs print them).
std::optional<std::uint64_t> digits_u64(const std::string& s) {
  if (s.empty() || s[0] == '+') return std::nullopt;
  return strict_u64(s);
}
std::optional<std::int64_t> digits_dev(const std::string& s) {
  const auto v = digits_u64(s);
  if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}
// An MSR host name: printable characters other than a space.
bool msr_host(const std::string& s) {
  static const std::regex name("[!-~]+");
  return std::regex_match(s, name);
}
// A real: [+-]digits[.digits][(e|E)[+-]digits] (the project's one number grammar, written
// again here as a regular expression), then its value as strtold reads it, finite as a
// double.
std::optional<long double> strict_real(const std::string& s) {
  static const std::regex grammar(R"([+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
  if (!std::regex_match(s, grammar)) return std::nullopt;
  const long double v = std::strtold(s.c_str(), nullptr);
  if (!std::isfinite(static_cast<double>(v))) return std::nullopt;
  return v;
}
std::vector<std::string> fields_csv(const std::string& line) {
  std::vector<std::string> f(1);
  for (char c : line) {
    if (c == ',') f.emplace_back();
    else f.back().push_back(c);
  }
  for (std::string& x : f) {
    const std::size_t a = x.find_first_not_of(' '), b = x.find_last_not_of(' ');
    x = a == std::string::npos ? "" : x.substr(a, b - a + 1);
  }
  return f;
}
std::vector<std::string> fields_ws(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : line + " ") {
    if (c == ' ' || c == '\t') {
      if (!cur.empty()) f.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  return f;
}
// Lines as the readers split them: a line ends at LF, CR or CRLF; a last line without an
// end counts. A line longer than kMaxLine is kept whole (the readers refuse it).
constexpr std::size_t kMaxLine = 4096;
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      out.push_back(cur);
      cur.clear();
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}
// A line of a file as a reader sees it: a byte-order mark at the start of line 1 dropped.
std::string without_bom(int n, const std::string& line) {
  return n == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0 ? line.substr(3) : line;
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Rec {
  HostOp op;
  std::uint64_t offset, bytes;
  std::int64_t device;
  Tick time;
  bool operator==(const Rec& o) const {
    return op == o.op && offset == o.offset && bytes == o.bytes && device == o.device && time == o.time;
  }
};
struct Expect {
  bool ok = true;
  int line = 0;  // the refused line
  bool too_long = false;  // refused for its length, not a field
  std::vector<Rec> recs;
};

// Every record of a trace in `fmt`, all devices, time scale 1; or the line it refuses.
Expect oracle_trace(host::TraceFormat fmt, const std::string& text) {
  Expect e;
  const long double kPs = 9223372036854775808.0L;  // 2^63
  bool have_first = false;
  long double first = 0;
  Tick last = 0;
  int n = 0;
  for (const std::string& raw : lines_of(text)) {
    ++n;
    if (raw.size() > kMaxLine) {
      e.ok = false;
      e.line = n;
      e.too_long = true;
      return e;
    }
    const std::string line = without_bom(n, raw);
    const bool csv = fmt == host::TraceFormat::Msr || fmt == host::TraceFormat::Spc;
    const std::vector<std::string> f = csv ? fields_csv(line) : fields_ws(line);
    if (f.empty() || (f.size() == 1 && f[0].empty())) continue;
    if (!f[0].empty() && f[0][0] == '#') continue;
    auto refuse = [&] { e.ok = false; e.line = n; return e; };
    Rec r{};
    long double t = 0, unit = 0;
    unsigned __int128 off = 0, bytes = 0;
    std::optional<std::int64_t> dev;
    bool preflush = false;  // blkparse: a flush record first
    switch (fmt) {
      case host::TraceFormat::Msr: {
        if (f.size() != 7) return refuse();
        const auto ts = strict_u64(f[0]);
        dev = strict_dev(f[2]);
        const std::string ty = lower(f[3]);
        const auto o = strict_u64(f[4]), b = strict_u64(f[5]), rt = strict_u64(f[6]);
        if (!ts || !msr_host(f[1]) || !dev || (ty != "read" && ty != "write") || !o || !b || !rt) return refuse();
        t = static_cast<long double>(*ts);
        unit = 1e5L;
        r.op = ty == "read" ? HostOp::Read : HostOp::Write;
        off = *o;
        bytes = *b;
        break;
      }
      case host::TraceFormat::Spc: {
        if (f.size() < 5) return refuse();
        dev = strict_dev(f[0]);
        const auto lba = strict_u64(f[1]), b = strict_u64(f[2]);
        const std::string op = lower(f[3]);
        const auto ts = strict_real(f[4]);
        if (!dev || !lba || !b || (op != "r" && op != "w") || !ts || *ts < 0) return refuse();
        off = static_cast<unsigned __int128>(*lba) * 512;
        bytes = *b;
        r.op = op == "r" ? HostOp::Read : HostOp::Write;
        t = *ts;
        unit = 1e12L;
        break;
      }
      case host::TraceFormat::DiskSim: {
        if (f.size() != 5) return refuse();
        const auto ts = strict_real(f[0]);
        dev = digits_dev(f[1]);
        const auto blk = digits_u64(f[2]), cnt = digits_u64(f[3]), flags = digits_u64(f[4]);
        if (!ts || *ts < 0 || !dev || !blk || !cnt || !flags) return refuse();
        t = *ts;
        unit = 1e9L;
        off = static_cast<unsigned __int128>(*blk) * 512;
        bytes = static_cast<unsigned __int128>(*cnt) * 512;
        r.op = (*flags & 1) ? HostOp::Read : HostOp::Write;
        break;
      }
      case host::TraceFormat::MqSim: {
        if (f.size() != 5) return refuse();
        const auto ts = digits_u64(f[0]);
        dev = digits_dev(f[1]);
        const auto sec = digits_u64(f[2]), cnt = digits_u64(f[3]);
        if (!ts || !dev || !sec || !cnt || (f[4] != "0" && f[4] != "1")) return refuse();
        t = static_cast<long double>(*ts);
        unit = 1e3L;
        off = static_cast<unsigned __int128>(*sec) * 512;
        bytes = static_cast<unsigned __int128>(*cnt) * 512;
        r.op = f[4] == "1" ? HostOp::Read : HostOp::Write;
        break;
      }
      case host::TraceFormat::Blkparse: {
        // MAJ,MIN CPU SEQ TIME PID ACTION RWBS [SECTOR + BLOCKS] [PROCESS] ...; only Q events.
        static const std::regex devno("([^,]*),([^,]*)");
        std::smatch m;
        const auto below32 = [](const std::string& x) { const auto v = strict_u64(x); return v && *v <= 0xFFFFFFFFull; };
        if (!std::regex_match(f[0], m, devno) || !below32(m[1].str()) || !below32(m[2].str())) {
          if (f[0].compare(0, 3, "CPU") == 0 || f[0] == "Total") return e;  // the closing summary
          return refuse();
        }
        const std::uint64_t minor = *strict_u64(m[2].str());
        if (f.size() < 6) return refuse();
        const auto ts = strict_real(f[3]);
        if (!ts || *ts < 0) return refuse();
        if (f[5] != "Q") continue;
        if (f.size() < 7) return refuse();
        static const std::regex rwbs("(F?)(R|W|DE|D|N|F)[FASM]*");
        if (!std::regex_match(f[6], m, rwbs)) return refuse();
        preflush = m[1].length() == 1;
        const std::string k = m[2].str();
        if (k == "N" && !preflush) return refuse();
        r.op = k == "R" ? HostOp::Read : k == "W" ? HostOp::Write : k[0] == 'D' ? HostOp::Trim : HostOp::Flush;
        std::size_t rest = 7;
        if (f.size() >= 10 && f[8] == "+") {
          const auto sec = strict_u64(f[7]), cnt = strict_u64(f[9]);
          if (!sec || !cnt) return refuse();
          off = static_cast<unsigned __int128>(*sec) * 512;
          bytes = static_cast<unsigned __int128>(*cnt) * 512;
          rest = 10;
        } else if (f.size() >= 8 && f[7][0] != '[') {
          return refuse();
        }
        if (rest < f.size() && f[rest][0] != '[' && f[rest][0] != '(') return refuse();
        if (r.op == HostOp::Flush) {
          if (bytes != 0) return refuse();
          off = 0;
          preflush = false;
        }
        dev = static_cast<std::int64_t>(minor);
        t = *ts;
        unit = 1e12L;
        break;
      }
    }
    if (!dev || *dev < 0) return refuse();
    const unsigned __int128 max64 = ~std::uint64_t{0};
    if (off > max64 || bytes > max64 || (bytes == 0 && r.op != HostOp::Flush) || off + bytes > max64) return refuse();
    r.offset = static_cast<std::uint64_t>(off);
    r.bytes = static_cast<std::uint64_t>(bytes);
    r.device = *dev;
    if (!have_first) {
      have_first = true;
      first = t;
    }
    const long double rel = (t - first) * unit;
    if (rel < 0 || rel + 0.5L > kPs) return refuse();
    r.time = static_cast<Tick>(rel + 0.5L);
    if (r.time < last) return refuse();
    last = r.time;
    if (preflush) e.recs.push_back(Rec{HostOp::Flush, 0, 0, r.device, r.time});
    e.recs.push_back(r);
  }
  return e;
}

struct Cmd {
  Tick time;
  FlashOp op;
  unsigned channel, chip, die, mask;
  std::uint32_t block, page;
  bool suspend = false, power_cut = false;  // suspend_read; power_cut (nothing else read)
  bool operator==(const Cmd& o) const {
    if (power_cut || o.power_cut) return power_cut == o.power_cut && time == o.time;
    return time == o.time && op == o.op && channel == o.channel && chip == o.chip && die == o.die &&
           mask == o.mask && block == o.block && page == o.page && suspend == o.suspend;
  }
};

// A NAND script on the default geometry (2 planes, 256 pages a block); expansion of page
// ranges is bounded by the geometry, so a command list is small.
std::optional<std::vector<Cmd>> oracle_script(const std::string& text, int& bad_line) {
  std::vector<Cmd> out;
  Tick last = 0;
  int n = 0;
  for (const std::string& raw : lines_of(text)) {
    ++n;
    if (raw.size() > kMaxLine) {
      bad_line = -n;  // refused for its length
      return std::nullopt;
    }
    std::string line = without_bom(n, raw);
    if (const std::size_t h = line.find('#'); h != std::string::npos) line.resize(h);
    // istringstream >> word splits on any white space (\r \v \f included).
    std::vector<std::string> f;
    std::string cur;
    for (char c : line + " ") {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!cur.empty()) f.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(c);
      }
    }
    if (f.empty()) continue;
    bad_line = n;
    if (f.size() != 8) return std::nullopt;
    const auto tr = strict_real(f[0]);
    if (!tr || !std::isfinite(static_cast<double>(std::strtod(f[0].c_str(), nullptr)))) return std::nullopt;
    const double t = std::strtod(f[0].c_str(), nullptr);
    if (t < 0) return std::nullopt;
    const long double ps = static_cast<long double>(t) * 1e6L;
    if (ps + 0.5L > 9223372036854775808.0L) return std::nullopt;
    Cmd c{};
    c.time = static_cast<Tick>(ps + 0.5L);
    if (c.time < last) return std::nullopt;
    last = c.time;
    if (f[1] == "read") c.op = FlashOp::Read;
    else if (f[1] == "program") c.op = FlashOp::Program;
    else if (f[1] == "erase") c.op = FlashOp::Erase;
    else if (f[1] == "suspend_read") c.op = FlashOp::Read, c.suspend = true;
    else if (f[1] == "resume") c.op = FlashOp::Resume;
    else if (f[1] == "power_cut") c.power_cut = true;
    else return std::nullopt;
    if (c.power_cut) {  // names nothing: every other field '-'
      for (int i = 2; i < 8; ++i)
        if (f[i] != "-") return std::nullopt;
      out.push_back(c);
      continue;
    }
    const auto ch = strict_u64(f[2]), chip = strict_u64(f[3]), die = strict_u64(f[4]);
    if (!ch || *ch > 65535 || !chip || *chip > 65535 || !die || *die > 65535) return std::nullopt;
    c.channel = static_cast<unsigned>(*ch);
    c.chip = static_cast<unsigned>(*chip);
    c.die = static_cast<unsigned>(*die);
    if (c.op == FlashOp::Resume) {  // names its die only: planes, block and pages '-'
      if (f[5] != "-" || f[6] != "-" || f[7] != "-") return std::nullopt;
      const nand::NandConfig geo{};
      if (c.channel >= geo.channels || c.chip >= geo.chips_per_channel || c.die >= geo.dies_per_chip)
        return std::nullopt;
      c.mask = 1;
      out.push_back(c);
      continue;
    }
    const auto blk = strict_u64(f[6]);
    if (!blk || *blk > 0xFFFFFFFFull) return std::nullopt;
    c.block = static_cast<std::uint32_t>(*blk);
    if (f[5] == "all") {
      c.mask = 3;
    } else {
      // comma list, as std::getline splits it: empty items are refused, a trailing comma is not an item
      std::vector<std::string> items;
      std::string it;
      for (char x : f[5]) {
        if (x == ',') {
          items.push_back(it);
          it.clear();
        } else {
          it.push_back(x);
        }
      }
      if (!it.empty()) items.push_back(it);
      for (const std::string& s : items) {
        const auto p = strict_u64(s);
        if (!p || *p >= kMaxPlanes) return std::nullopt;
        c.mask |= 1u << *p;
      }
      if (!c.mask) return std::nullopt;
    }
    // The default geometry's bounds, each address field by its key.
    const nand::NandConfig geo{};
    if (c.channel >= geo.channels || c.chip >= geo.chips_per_channel || c.die >= geo.dies_per_chip ||
        (c.mask >> geo.planes_per_die) != 0 || c.block >= geo.blocks_per_plane)
      return std::nullopt;
    std::uint64_t first = 0, lastp = 0;
    if (c.op == FlashOp::Erase) {
      if (f[7] != "-" && (!strict_u64(f[7]) || *strict_u64(f[7]) > 0xFFFFFFFFull)) return std::nullopt;
      c.page = f[7] == "-" ? 0 : static_cast<std::uint32_t>(*strict_u64(f[7]));
      out.push_back(c);
      continue;
    }
    const std::size_t dash = f[7].find('-');
    if (dash == std::string::npos) {
      const auto p = strict_u64(f[7]);
      if (!p || *p > 0xFFFFFFFFull) return std::nullopt;
      first = lastp = *p;
    } else {
      const auto a = strict_u64(f[7].substr(0, dash)), b = strict_u64(f[7].substr(dash + 1));
      if (!a || !b || *a > 0xFFFFFFFFull || *b > 0xFFFFFFFFull || *b < *a) return std::nullopt;
      first = *a;
      lastp = *b;
    }
    if (lastp >= 256) return std::nullopt;  // nand.pages_per_block
    for (std::uint64_t p = first; p <= lastp; ++p) {
      c.page = static_cast<std::uint32_t>(p);
      out.push_back(c);
    }
  }
  bad_line = 0;
  return out;
}

// ---- mutation ----
const char* kExtremes[] = {"0", "-1", "-0", "18446744073709551615", "18446744073709551616", "36028797018963968",
                           "9223372036854775807", "1e30", "-1e30", "1e308", "nan", "inf", "0x10", "1.5", "",
                           "4294967295", "4294967296", "65535", "65536", "+1", " 7", "007", "1e-30", "\t", ","};

std::string mutate(std::string s, Rng& rng) {
  const int edits = 1 + static_cast<int>(rng.below(4));
  for (int k = 0; k < edits; ++k) {
    const std::size_t at = rng.below(s.size() + 1);
    switch (rng.below(8)) {
      case 0:  // flip a byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.below(256));
        break;
      case 1:  // insert a character of the formats' alphabets
        s.insert(at, 1, "0123456789,- \t\n.e#r\"{}:[]"[rng.below(25)]);
        break;
      case 2:  // delete a run
        if (!s.empty()) s.erase(rng.below(s.size()), 1 + rng.below(8));
        break;
      case 3:
      case 4: {  // replace a number (a run of digits) by an extreme
        std::vector<std::pair<std::size_t, std::size_t>> runs;
        for (std::size_t i = 0; i < s.size();) {
          if (std::isdigit(static_cast<unsigned char>(s[i]))) {
            std::size_t j = i;
            while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
            runs.emplace_back(i, j - i);
            i = j;
          } else {
            ++i;
          }
        }
        if (!runs.empty()) {
          const auto [p, len] = runs[rng.below(runs.size())];
          s.replace(p, len, kExtremes[rng.below(sizeof kExtremes / sizeof *kExtremes)]);
        }
        break;
      }
      case 5: {  // duplicate a line
        std::vector<std::string> l = lines_of(s);
        if (!l.empty()) {
          const std::size_t i = rng.below(l.size());
          l.insert(l.begin() + static_cast<long>(i), l[i]);
          s.clear();
          for (const std::string& x : l) s += x + "\n";
        }
        break;
      }
      case 6: {  // swap two lines
        std::vector<std::string> l = lines_of(s);
        if (l.size() > 1) {
          std::swap(l[rng.below(l.size())], l[rng.below(l.size())]);
          s.clear();
          for (const std::string& x : l) s += x + "\n";
        }
        break;
      }
      default:  // cut the text
        s.resize(rng.below(s.size() + 1));
        break;
    }
  }
  return s;
}

// ---- the properties ----
struct Failure {
  std::string why;
};

// The project's error form: "FILE:LINE: field 'NAME': ..." with a line of the file and a
// field of the format.
void check_error_form(const std::string& msg, const std::string& path, int expect_line,
                      const std::vector<std::string>& fields) {
  const std::regex form("^" + std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                        R"(:([0-9]+): field '([a-z_A-Z]+)': .+)");
  std::smatch m;
  if (!std::regex_match(msg, m, form)) throw Failure{"error not of the form FILE:LINE: field 'NAME': ...: " + msg};
  if (std::stoi(m[1]) != expect_line)
    throw Failure{"error names line " + m[1].str() + ", the strict reading refuses line " +
                  std::to_string(expect_line) + ": " + msg};
  if (std::find(fields.begin(), fields.end(), m[2].str()) == fields.end())
    throw Failure{"error names field '" + m[2].str() + "', not one of the format's: " + msg};
}

// A line past the readers' bound: "FILE:LINE: a line longer than 4096 bytes ...".
void check_long_line(const std::string& msg, const std::string& path, int expect_line) {
  const std::string want = path + ":" + std::to_string(expect_line) + ": a line longer than " +
                           std::to_string(kMaxLine) + " bytes";
  if (msg.compare(0, want.size(), want) != 0) throw Failure{"expected '" + want + " ...', got: " + msg};
}

void check_trace(host::TraceFormat fmt, const std::string& text, const std::string& path) {
  static const std::vector<std::vector<std::string>> fields = {
      {"Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"},
      {"ASU", "LBA", "Size", "Opcode", "Timestamp"},
      {"arrival_ms", "devno", "blkno", "bcount", "flags"},
      {"arrival_ns", "device", "start_sector", "sector_count", "type"},
      {"device", "cpu", "sequence", "time", "pid", "action", "rwbs", "sector", "blocks", "process"}};
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  const Expect want = oracle_trace(fmt, text);
  std::vector<Rec> got;
  try {
    host::TraceReader rd(path, fmt);
    host::TraceRecord r;
    while (rd.next(r)) got.push_back(Rec{r.op, r.offset, r.bytes, r.device, r.time});
  } catch (const host::TraceError& e) {
    if (want.ok) throw Failure{std::string("refused what the strict reading accepts: ") + e.what()};
    if (want.too_long) check_long_line(e.what(), path, want.line);
    else check_error_form(e.what(), path, want.line, fields[static_cast<int>(fmt)]);
    return;
  }
  if (!want.ok) throw Failure{"accepted what the strict reading refuses at line " + std::to_string(want.line)};
  if (got.size() != want.recs.size())
    throw Failure{"read " + std::to_string(got.size()) + " records, the strict reading " +
                  std::to_string(want.recs.size())};
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want.recs[i]))
      throw Failure{"record " + std::to_string(i) + " differs (offset " + std::to_string(got[i].offset) + " vs " +
                    std::to_string(want.recs[i].offset) + ", bytes " + std::to_string(got[i].bytes) + " vs " +
                    std::to_string(want.recs[i].bytes) + ", time " + std::to_string(got[i].time) + " vs " +
                    std::to_string(want.recs[i].time) + ")"};
}

void check_script(const std::string& text, const std::string& path) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  int bad = 0;
  const auto want = oracle_script(text, bad);
  std::vector<Cmd> got;
  try {
    NandScriptReader rd(path, nand::NandConfig{});
    ScriptCommand c;
    while (rd.next(c)) {
      got.push_back(Cmd{c.time, c.op, c.channel, c.chip, c.die, c.plane_mask, c.block, c.page, c.suspend, c.power_cut});
      if (got.size() > 100000) throw Failure{"more than 100,000 commands from a small script"};
    }
  } catch (const ScriptError& e) {
    if (want) throw Failure{std::string("refused what the strict reading accepts: ") + e.what()};
    if (bad < 0) check_long_line(e.what(), path, -bad);
    else check_error_form(e.what(), path, bad, {"time_us", "op", "channel", "chip", "die", "planes", "block", "pages"});
    return;
  }
  if (!want) throw Failure{"accepted what the strict reading refuses at line " + std::to_string(bad < 0 ? -bad : bad)};
  if (got.size() != want->size())
    throw Failure{"read " + std::to_string(got.size()) + " commands, the strict reading " + std::to_string(want->size())};
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == (*want)[i])) throw Failure{"command " + std::to_string(i) + " differs"};
}

// A config refusal names where (FILE:LINE, or --set) and, but for JSON syntax errors, a key
// or the file's structure; an acceptance reads back every key as its text says.
void check_config(const std::string& text, const std::string& path, bool is_set) {
  Config c = make_config();
  try {
    if (is_set) {
      for (const std::string& a : lines_of(text)) c.set_assignment(a);
    } else {
      std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
      c.load_file(path);
    }
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    const std::regex form(is_set ? R"(^--set[ :])" : "^" + path + R"(:[0-9]+(:[0-9]+)?: )");
    if (!std::regex_search(m, form)) throw Failure{"config error without its origin: " + m};
    return;
  }
  // Accepted: every key set from the text holds a value in its range, and the effective
  // configuration is valid JSON that loads back to the same values.
  const std::string back = c.to_json();
  Config d = make_config();
  try {
    d.load_json(json::parse(back, "effective"), "effective");
  } catch (const std::exception& e) {
    throw Failure{std::string("the accepted config does not load back: ") + e.what()};
  }
  if (d.to_json() != back) throw Failure{"the accepted config changes when loaded back"};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_readers msr|spc|disksim|mqsim|blkparse|nand_ops|json|set CORPUS_DIR [--iterations N] "
                 "[--seconds S] [--seed X]\n";
    return 2;
  }
  const std::string reader = argv[1];
  const fs::path corpus = argv[2];
  std::uint64_t iterations = 2000, seed = 1;
  double seconds = 0;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    const auto n = strict_u64(v);
    if (k == "--iterations" && n) iterations = *n;
    else if (k == "--seed" && n) seed = *n;
    else if (k == "--seconds" && strict_real(v) && *strict_real(v) >= 0) seconds = static_cast<double>(*strict_real(v));
    else {
      std::cerr << "fuzz_readers: bad option " << k << " " << v << "\n";
      return 2;
    }
  }
  const std::vector<std::string> kinds = {"msr", "spc", "disksim", "mqsim", "blkparse", "nand_ops", "json", "set"};
  if (std::find(kinds.begin(), kinds.end(), reader) == kinds.end()) {
    std::cerr << "fuzz_readers: unknown reader '" << reader << "'\n";
    return 2;
  }
  std::vector<std::string> seeds;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(corpus, ec)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    seeds.push_back(ss.str());
  }
  if (ec || seeds.empty()) {
    std::cerr << "fuzz_readers: no seed files in " << corpus << "\n";
    return 2;
  }
  std::sort(seeds.begin(), seeds.end());
  Rng rng{seed};
  const std::string path = "fuzz_" + reader + ".input";
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  for (std::uint64_t i = 0;; ++i) {
    if (seconds > 0) {
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= seconds) break;
    } else if (i >= iterations) {
      break;
    }
    const std::string text = i < seeds.size() ? seeds[i] : mutate(seeds[rng.below(seeds.size())], rng);
    try {
      if (reader == "msr") check_trace(host::TraceFormat::Msr, text, path);
      else if (reader == "spc") check_trace(host::TraceFormat::Spc, text, path);
      else if (reader == "disksim") check_trace(host::TraceFormat::DiskSim, text, path);
      else if (reader == "mqsim") check_trace(host::TraceFormat::MqSim, text, path);
      else if (reader == "blkparse") check_trace(host::TraceFormat::Blkparse, text, path);
      else if (reader == "nand_ops") check_script(text, path);
      else check_config(text, path, reader == "set");
    } catch (const Failure& f) {
      std::cerr << "fuzz_readers " << reader << ": input " << i << " (seed " << seed << "): " << f.why
                << "\n--- input ---\n" << text << "\n--- end ---\n";
      std::ofstream("fuzz_failure.txt", std::ios::binary) << text;
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "fuzz_readers " << reader << ": input " << i << ": unexpected exception: " << e.what()
                << "\n--- input ---\n" << text << "\n--- end ---\n";
      std::ofstream("fuzz_failure.txt", std::ios::binary) << text;
      return 1;
    }
    ++done;
  }
  std::cout << "fuzz_readers " << reader << ": " << done << " inputs, every one refused in form or read exactly\n";
  return 0;
}
