#include "host/trace_reader.h"

#include "common/text_fields.h"
#include "host/request_source.h"

#include <filesystem>
#include <vector>

namespace ssd::host {

TraceFormat parse_trace_format(const std::string& name) {
  if (name == "msr") return TraceFormat::Msr;
  if (name == "spc") return TraceFormat::Spc;
  if (name == "disksim") return TraceFormat::DiskSim;
  if (name == "mqsim") return TraceFormat::MqSim;
  if (name == "blkparse") return TraceFormat::Blkparse;
  throw TraceError("unknown trace format '" + name + "' (msr, spc, disksim, mqsim, blkparse)");
}

TraceReader::TraceReader(const std::string& path, TraceFormat format, std::int64_t device, double time_scale,
                         bool timed)
    : path_(path), format_(format), device_(device), time_scale_(time_scale), timed_(timed), in_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw TraceError(path + ": is a directory, not a trace");
  if (!in_) throw TraceError(path + ": cannot open the trace");
}

const char* TraceReader::time_field() const {
  static const char* names[] = {"Timestamp", "Timestamp", "arrival_ms", "arrival_ns", "time"};
  return names[static_cast<int>(format_)];
}

std::uint64_t TraceReader::sectors_to_bytes(std::uint64_t sectors, const char* field) const {
  if (sectors > ~std::uint64_t{0} / 512) fail(field, std::to_string(sectors) + " sectors are past 2^64 bytes");
  return sectors * 512;
}

void TraceReader::fail(const std::string& field, const std::string& what) const {
  throw TraceError(field_error(path_, line_, field, what));
}

namespace {

std::vector<std::string> split(const std::string& s, bool csv) {
  std::vector<std::string> f;
  std::string cur;
  bool in_field = false;
  for (char c : s) {
    const bool sep = csv ? c == ',' : (c == ' ' || c == '\t');
    if (sep) {
      if (csv || in_field) f.push_back(cur);
      cur.clear();
      in_field = false;
    } else {
      cur.push_back(c);
      in_field = true;
    }
  }
  if (csv || in_field) f.push_back(cur);
  if (csv)
    for (std::string& x : f) {  // trim spaces around CSV fields
      const std::size_t a = x.find_first_not_of(' ');
      const std::size_t b = x.find_last_not_of(' ');
      x = a == std::string::npos ? std::string() : x.substr(a, b - a + 1);
    }
  return f;
}


// An integer as a C program prints one (%llu, %d): digits only, no sign. MQSim's and
// DiskSim's traces are written so; "+5" or "-0" there is not a number they wrote.
template <typename Int>
bool parse_digits(const std::string& s, Int& v) {
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return !s.empty() && parse_whole(s, v);
}
// An MSR host name: printable characters other than a space (the traces' names: hm, src1).
bool host_name(const std::string& s) {
  for (const char c : s)
    if (c <= ' ' || c > '~') return false;
  return !s.empty();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool TraceReader::parse(const std::string& text, TraceRecord& r) {
  const bool csv = format_ == TraceFormat::Msr || format_ == TraceFormat::Spc;
  std::vector<std::string> f = split(text, csv);
  if (f.empty() || (f.size() == 1 && f[0].empty())) return false;  // blank line
  if (!f[0].empty() && f[0][0] == '#') return false;                // comment
  long double t = 0;  // in the format's time unit
  long double unit_ps = 0;
  std::uint64_t u = 0;
  std::int64_t dev = 0;
  switch (format_) {
    case TraceFormat::Msr: {
      static const char* names[] = {"Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"};
      if (f.size() < 7) fail(names[f.size()], "missing (an MSR line has 7 comma-separated fields)");
      if (f.size() > 7) too_many(names[6], f.size(), "an MSR line has 7 comma-separated fields");
      if (!parse_whole(f[0], u)) fail("Timestamp", "not a whole number: " + quote(f[0]));
      t = static_cast<long double>(u);
      unit_ps = 1e5L;  // 100 ns
      if (!host_name(f[1])) fail("Hostname", "not a host name (printable characters, no space): " + quote(f[1]));
      if (!parse_whole(f[2], dev) || dev < 0) fail("DiskNumber", "not a disk number: " + quote(f[2]));
      const std::string type = lower(f[3]);
      if (type == "read") r.op = HostOp::Read;
      else if (type == "write") r.op = HostOp::Write;
      else fail("Type", "expected Read or Write, got " + quote(f[3]));
      if (!parse_whole(f[4], r.offset)) fail("Offset", "not a byte offset: " + quote(f[4]));
      if (!parse_whole(f[5], r.bytes)) fail("Size", "not a size in bytes: " + quote(f[5]));
      if (!parse_whole(f[6], u)) fail("ResponseTime", "not a whole number (of 100 ns): " + quote(f[6]));
      break;
    }
    case TraceFormat::Spc: {
      static const char* names[] = {"ASU", "LBA", "Size", "Opcode", "Timestamp"};
      // The SPC format allows optional fields after the Timestamp: they are ignored.
      if (f.size() < 5) fail(names[f.size()], "missing (an SPC line has 5 comma-separated fields)");
      if (!parse_whole(f[0], dev) || dev < 0) fail("ASU", "not an ASU number: " + quote(f[0]));
      if (!parse_whole(f[1], u)) fail("LBA", "not a block number: " + quote(f[1]));
      r.offset = sectors_to_bytes(u, "LBA");
      if (!parse_whole(f[2], r.bytes)) fail("Size", "not a size in bytes: " + quote(f[2]));
      const std::string op = lower(f[3]);
      if (op == "r") r.op = HostOp::Read;
      else if (op == "w") r.op = HostOp::Write;
      else fail("Opcode", "expected r or w, got " + quote(f[3]));
      if (!parse_real(f[4], t) || t < 0) fail("Timestamp", "not a time in seconds: " + quote(f[4]));
      unit_ps = 1e12L;
      break;
    }
    case TraceFormat::DiskSim: {
      static const char* names[] = {"arrival_ms", "devno", "blkno", "bcount", "flags"};
      if (f.size() < 5) fail(names[f.size()], "missing (a DiskSim line has 5 fields)");
      if (f.size() > 5) too_many(names[4], f.size(), "a DiskSim line has 5 fields");
      if (!parse_real(f[0], t) || t < 0) fail("arrival_ms", "not a time in ms: " + quote(f[0]));
      unit_ps = 1e9L;
      if (!parse_digits(f[1], dev)) fail("devno", "not a device number (digits): " + quote(f[1]));
      if (!parse_digits(f[2], u)) fail("blkno", "not a block number (digits): " + quote(f[2]));
      r.offset = sectors_to_bytes(u, "blkno");
      if (!parse_digits(f[3], u)) fail("bcount", "not a block count (digits): " + quote(f[3]));
      r.bytes = sectors_to_bytes(u, "bcount");
      if (!parse_digits(f[4], u)) fail("flags", "not a number (digits): " + quote(f[4]));
      r.op = (u & 1) ? HostOp::Read : HostOp::Write;
      break;
    }
    case TraceFormat::MqSim: {
      static const char* names[] = {"arrival_ns", "device", "start_sector", "sector_count", "type"};
      if (f.size() < 5) fail(names[f.size()], "missing (an MQSim line has 5 fields)");
      if (f.size() > 5) too_many(names[4], f.size(), "an MQSim line has 5 fields");
      if (!parse_digits(f[0], u)) fail("arrival_ns", "not a time in ns (digits): " + quote(f[0]));
      t = static_cast<long double>(u);
      unit_ps = 1e3L;
      if (!parse_digits(f[1], dev)) fail("device", "not a device number (digits): " + quote(f[1]));
      if (!parse_digits(f[2], u)) fail("start_sector", "not a sector number (digits): " + quote(f[2]));
      r.offset = sectors_to_bytes(u, "start_sector");
      if (!parse_digits(f[3], u)) fail("sector_count", "not a sector count (digits): " + quote(f[3]));
      r.bytes = sectors_to_bytes(u, "sector_count");
      if (f[4] == "1") r.op = HostOp::Read;
      else if (f[4] == "0") r.op = HostOp::Write;
      else fail("type", "expected 1 (read) or 0 (write), got " + quote(f[4]));
      break;
    }
    case TraceFormat::Blkparse:
      if (!parse_blkparse(f, r, t)) return false;
      dev = r.device;
      unit_ps = 1e12L;
      break;
  }
  static const char* size_field[] = {"Size", "Size", "bcount", "sector_count", "blocks"};
  static const char* offset_field[] = {"Offset", "LBA", "blkno", "start_sector", "sector"};
  if (r.bytes == 0 && r.op != HostOp::Flush) fail(size_field[static_cast<int>(format_)], "a request of 0 bytes");
  if (r.offset > ~std::uint64_t{0} - r.bytes)
    fail(offset_field[static_cast<int>(format_)], "the request's end is past 2^64 bytes");
  r.device = dev;
  if (device_ >= 0 && dev != device_) return preflush_ = false;
  if (!have_first_) {
    have_first_ = true;
    first_ = t;
  }
  const long double rel = (t - first_) * unit_ps;
  if (!timed_) {  // a closed loop never uses the times: only their syntax is checked
    r.time = 0;
  } else {
    if (rel < 0) fail(time_field(), "time goes backwards (times must not decrease)");
    // Scaled as the replay will (workload.time_scale), then checked against the range.
    if (!ps_to_input_tick(rel * time_scale_, r.time))
      fail(time_field(), "the time from the first request, " + std::to_string(static_cast<double>(rel) / 1e12) +
                             " s" + (time_scale_ != 1.0L ? " x " + param::key(&WorkloadConfig::time_scale) : std::string()) +
                             ", is past the simulated time range (2^63 ps, 106.7 days)");
    if (r.time < last_) fail(time_field(), "time goes backwards (times must not decrease)");
    last_ = r.time;
  }
  if (preflush_) {  // blkparse: a request with a preflush is a flush, then the request, at one time
    preflush_ = false;
    pending_ = r;
    have_pending_ = true;
    r.op = HostOp::Flush;
    r.offset = 0;
    r.bytes = 0;
    r.fua = false;
  }
  return true;
}

// One line of blkparse's default output (blkparse_fmt.c): the header "MAJ,MIN CPU SEQ
// SECONDS.NANOSECONDS PID ACTION RWBS", then for a Q event "SECTOR + BLOCKS [PROCESS]"
// (with -t, an elapsed time in parentheses before the process). False: not a request.
bool TraceReader::parse_blkparse(const std::vector<std::string>& f, TraceRecord& r, long double& t) {
  const std::size_t comma = f[0].find(',');
  std::uint32_t major = 0, minor = 0;  // Linux's are 12 and 20 bits
  if (comma == std::string::npos || !parse_whole(f[0].substr(0, comma), major) ||
      !parse_whole(f[0].substr(comma + 1), minor)) {
    // blkparse closes its output with a summary per CPU and a total ("CPU0 (8,0):",
    // "Total (8,0):"): the events end there.
    if (f[0].rfind("CPU", 0) == 0 || f[0] == "Total") {
      summary_ = true;
      return false;
    }
    fail("device", "not MAJOR,MINOR (two numbers below 2^32): " + quote(f[0]));
  }
  static const char* names[] = {"device", "cpu", "sequence", "time", "pid", "action", "rwbs"};
  if (f.size() < 6) fail(names[f.size()], "missing (a blkparse event has at least 6 fields)");
  if (!parse_real(f[3], t) || t < 0) fail("time", "not a time in seconds: " + quote(f[3]));
  if (f[5] != "Q") return false;  // the request's other events (G, I, D, C, M, ...): not arrivals
  if (f.size() < 7) fail("rwbs", "missing (a Q event has an RWBS field)");
  const std::string& rwbs = f[6];
  const char* const rule = "expected [F]{R|W|D|N|F}[F][A][S][M], got ";
  // Its first letters: a preflush (F), then the operation; an F not followed by R, W, D or
  // N is the operation itself, a flush (with its flags: "FS", "FA").
  std::size_t i = 0;
  const bool preflush = rwbs.size() > 1 && rwbs[0] == 'F' &&
                        (rwbs[1] == 'R' || rwbs[1] == 'W' || rwbs[1] == 'D' || rwbs[1] == 'N' || rwbs[1] == 'F');
  if (preflush) i = 1;
  const char kind = rwbs.empty() ? '\0' : rwbs[i++];
  if (kind == 'D' && i < rwbs.size() && rwbs[i] == 'E') ++i;  // DE: a secure erase, a discard of its data
  // FUA (a write's data must be on flash before it completes); readahead, sync,
  // metadata: no bearing on the model.
  r.fua = false;
  for (; i < rwbs.size(); ++i) {
    if (rwbs[i] != 'F' && rwbs[i] != 'A' && rwbs[i] != 'S' && rwbs[i] != 'M') fail("rwbs", rule + quote(rwbs));
    if (rwbs[i] == 'F' && kind == 'W') r.fua = true;
  }
  switch (kind) {
    case 'R': r.op = HostOp::Read; break;
    case 'W': r.op = HostOp::Write; break;
    case 'D': r.op = HostOp::Trim; break;
    case 'N':
      if (!preflush) fail("rwbs", "a request that is no read, write, discard or flush: " + quote(rwbs));
      r.op = HostOp::Flush;
      break;
    case 'F': r.op = HostOp::Flush; break;
    default: fail("rwbs", rule + quote(rwbs));
  }
  r.device = static_cast<std::int64_t>(minor);
  r.offset = 0;
  r.bytes = 0;
  std::size_t rest = 7;  // the first field after the request's sectors
  if (f.size() > 9 && f[8] == "+") {
    std::uint64_t sector = 0, blocks = 0;
    if (!parse_whole(f[7], sector)) fail("sector", "not a sector number: " + quote(f[7]));
    if (!parse_whole(f[9], blocks)) fail("blocks", "not a count of 512-byte blocks: " + quote(f[9]));
    r.offset = sectors_to_bytes(sector, "sector");
    r.bytes = sectors_to_bytes(blocks, "blocks");
    rest = 10;
  } else if (f.size() > 7 && f[7].front() != '[') {
    fail("sector", "expected SECTOR + BLOCKS [PROCESS], got " + quote(f[7]));
  }
  if (rest < f.size() && f[rest].front() != '(' && f[rest].front() != '[')
    fail("process", "expected [PROCESS] after the blocks, got " + quote(f[rest]));
  if (r.op == HostOp::Flush) {
    if (r.bytes != 0) fail("blocks", "a flush that carries data: " + quote(rwbs) + " with " + quote(f[9]) + " blocks");
    r.offset = 0;  // a flush's sector means nothing
  }
  preflush_ = preflush && r.op != HostOp::Flush;  // parse() puts a flush before it
  return true;
}

void TraceReader::too_many(const char* last, std::size_t fields, const char* rule) const {
  fail(last, "followed by " + std::to_string(fields - (format_ == TraceFormat::Msr ? 7 : 5)) + " more field(s) (" +
                 rule + ")");
}

bool TraceReader::next(TraceRecord& r) {
  if (have_pending_) {  // a preflushed request, after its flush
    have_pending_ = false;
    r = pending_;
    return true;
  }
  std::string text;
  while (!summary_) {
    const LineRead got = read_line(in_, text, kMaxLineBytes);
    if (got == LineRead::End) break;
    ++line_;
    r.line = line_;
    if (got == LineRead::TooLong)
      throw TraceError(path_ + ":" + std::to_string(line_) + ": a line longer than " + std::to_string(kMaxLineBytes) +
                       " bytes (is this a trace?)");
    if (line_ == 1) strip_bom(text);
    if (parse(text, r)) return true;
  }
  if (in_.bad()) throw TraceError(path_ + ":" + std::to_string(line_) + ": read error");
  return false;
}

}  // namespace ssd::host
