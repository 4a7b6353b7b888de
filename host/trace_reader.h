// Block-trace readers, streamed line by line (a 10 GB trace runs in constant memory):
//  - msr:     MSR Cambridge CSV  Timestamp(FILETIME, 100 ns),Hostname,DiskNumber,Read|Write,Offset(B),Size(B),ResponseTime
//  - spc:     UMass/SPC ASCII    ASU,LBA(512 B),Size(B),Opcode(r|w),Timestamp(s)
//  - disksim: DiskSim ASCII      arrival(ms) devno blkno(512 B) bcount(blocks) flags(bit 0: read)
//  - mqsim:   MQSim text         arrival(ns) device start_sector(512 B) sector_count type(1 read, 0 write)
// Times are made relative to the first record. A malformed line is an error naming the
// file, the line and the field.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tlm/host_protocol.h"

namespace ssd::host {

struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TraceFormat { Msr, Spc, DiskSim, MqSim };
// Throws TraceError for an unknown name.
TraceFormat parse_trace_format(const std::string& name);

struct TraceRecord {
  Tick time = 0;            // relative to the first record
  HostOp op = HostOp::Read;
  std::uint64_t offset = 0;  // bytes
  std::uint64_t bytes = 0;
  std::int64_t device = 0;
  int line = 0;
};

class TraceReader {
 public:
  // device: keep only records of this device/volume number (-1: all).
  TraceReader(const std::string& path, TraceFormat format, std::int64_t device = -1);
  // The next record; false at the end. Throws TraceError("FILE:LINE: field 'X': ...").
  bool next(TraceRecord& r);
  const std::string& path() const { return path_; }
  int line() const { return line_; }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  bool parse(const std::string& text, TraceRecord& r);

  std::string path_;
  TraceFormat format_;
  std::int64_t device_;
  std::ifstream in_;
  int line_ = 0;
  bool have_first_ = false;
  long double first_ = 0;  // first record's time, in the format's unit
  Tick last_ = 0;
};

}  // namespace ssd::host
