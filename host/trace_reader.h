// Block-trace readers, streamed line by line (a 10 GB trace runs in constant memory):
//  - msr:     MSR Cambridge CSV  Timestamp(FILETIME, 100 ns),Hostname,DiskNumber,Read|Write,Offset(B),Size(B),ResponseTime
//  - spc:     UMass/SPC ASCII    ASU,LBA(512 B),Size(B),Opcode(r|w),Timestamp(s)
//  - disksim: DiskSim ASCII      arrival(ms) devno blkno(512 B) bcount(blocks) flags(bit 0: read)
//  - mqsim:   MQSim text         arrival(ns) device start_sector(512 B) sector_count type(1 read, 0 write)
//  - blkparse: Linux blkparse's default text output; its Q (queued) events are the
//    requests: MAJ,MIN cpu seq time(s) pid Q RWBS sector + blocks(512 B) [process]. RWBS
//    gives the kind: R read, W write, D discard (a trim), FN a flush; a leading F (a
//    preflush) is a flush before the request; a FUA flag is ignored (a write completes
//    on flash). Other events are skipped; blkparse's closing summary ends the trace.
//    The device number (workload.device) is the minor number.
// Only blkparse records trims and flushes: the other formats' documentation knows reads
// and writes only (docs/host.md, "Traces").
// Times are made relative to the first record. Lines end at LF, CR or CRLF; a leading
// UTF-8 byte-order mark is skipped. A malformed line (a field missing, not a number, one
// field too many, longer than kMaxLineBytes) is an error naming the file, the line and
// the field.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/input_error.h"
#include "tlm/host_protocol.h"

namespace ssd::host {

struct TraceError : InputError {
  using InputError::InputError;
};

enum class TraceFormat { Msr, Spc, DiskSim, MqSim, Blkparse };
// Throws TraceError for an unknown name.
TraceFormat parse_trace_format(const std::string& name);

struct TraceRecord {
  Tick time = 0;            // relative to the first record, times the reader's time scale
  HostOp op = HostOp::Read;
  std::uint64_t offset = 0;  // bytes
  std::uint64_t bytes = 0;
  bool fua = false;  // blkparse: a write with Force Unit Access (an F after its kind)
  std::int64_t device = 0;
  int line = 0;
};

class TraceReader {
 public:
  // device: keep only records of this device/volume number (-1: all). time_scale: times
  // are multiplied by it (workload.time_scale), and must stay within kMaxInputTick.
  // timed: false for a closed-loop replay, which never uses the times: their syntax is
  // checked, not their range or order, and every record's time is 0.
  TraceReader(const std::string& path, TraceFormat format, std::int64_t device = -1, double time_scale = 1.0,
              bool timed = true);
  // A line may be this long at most (a file with no line ends is refused at its line 1).
  static constexpr std::size_t kMaxLineBytes = 4096;
  // The next record; false at the end. Throws TraceError("FILE:LINE: field 'X': ...").
  bool next(TraceRecord& r);
  const std::string& path() const { return path_; }
  int line() const { return line_; }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  [[noreturn]] void too_many(const char* last, std::size_t fields, const char* rule) const;
  const char* time_field() const;  // the format's name of its time field
  // A count of 512-byte sectors in bytes; fails naming `field` past 2^64.
  std::uint64_t sectors_to_bytes(std::uint64_t sectors, const char* field) const;
  bool parse(const std::string& text, TraceRecord& r);
  bool parse_blkparse(const std::vector<std::string>& f, TraceRecord& r, long double& t);

  std::string path_;
  TraceFormat format_;
  std::int64_t device_;
  long double time_scale_;
  bool timed_;
  std::ifstream in_;
  int line_ = 0;
  bool have_first_ = false;
  long double first_ = 0;  // first record's time, in the format's unit
  Tick last_ = 0;
  bool summary_ = false;        // blkparse: its closing summary began; no record follows
  bool preflush_ = false;       // blkparse: the line parsed has a preflush
  bool have_pending_ = false;   // blkparse: a preflushed request, after its flush
  TraceRecord pending_;
};

}  // namespace ssd::host
