// The latency attribution over all requests (tlm/latency_parts.h): each request's parts,
// composed from its events and its last page's path, checked to sum to its latency, and
// kept per operation (read; write) as each part's mean, p99, share of the
// mean latency, and its mean over the slowest requests (the p99's bucket and above), so
// that a tail latency can be taken apart as exactly as the mean. A part's p99 comes from
// bucket counts of 1/32 (3.1 %) resolution, rounded up to the bucket's upper edge
// (CoarseHistogram's buckets: 15 KB a part, against the latency histogram's 120 KB, so
// that recording 22 parts per request stays in cache). Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/latency_histogram.h"
#include "tlm/host_protocol.h"
#include "tlm/latency_parts.h"

namespace ssd::host {

class LatencyAttribution {
 public:
  // Request `c`'s parts, its host-side events' differences around the firmware's page
  // parts (c.parts), with `done` its completion at the host. Returns an empty string if
  // they sum to done - c.t_submit and none exceeds it, else what is wrong.
  static std::string compose(const HostCommand& c, Tick done, PartTicks& out) {
    out = c.parts;
    at(out, Part::HostQueue) = c.t_dispatch - c.t_submit;
    at(out, Part::NcqWait) = c.t_tag - c.t_dispatch;
    at(out, Part::HostLinkIn) = c.t_fw_in - c.t_tag;
    at(out, Part::FirmwareQueue) = c.t_core_start - c.t_fw_in;
    at(out, Part::FirmwareBusy) = c.t_processed - c.t_core_start;
    at(out, Part::HostLinkOut) = done - c.t_fw_done;
    return check(out, done - c.t_submit);
  }
  // Empty if `p` sums to `latency` with no part above it. A part computed from events out
  // of order wraps to a huge value (2^64 - x); summed in 128 bits it cannot then reach the
  // latency, so the sum alone catches it, and the message names the part.
  static std::string check(const PartTicks& p, Tick latency) {
    unsigned __int128 sum = 0;
    for (unsigned k = 0; k < kParts; ++k) sum += p[k];
    if (sum == latency) return {};
    for (unsigned k = 0; k < kParts; ++k)
      if (p[k] > latency)
        return std::string("part ") + part_name(k) + " = " + std::to_string(p[k]) + " ps exceeds the latency " +
               std::to_string(latency) + " ps";
    return "the parts sum to " + std::to_string(static_cast<Tick>(sum)) + " ps, the latency is " +
           std::to_string(latency) + " ps";
  }

  // Op 0: reads; 1: writes, as the host's latency figures (trims and flushes are apart).
  void record(int op, Tick latency, const PartTicks& p) {
    Op& o = ops_[op];
    ++o.count;
    const std::size_t b = LatencyHistogram::index(latency);
    if (b >= o.rows.size()) o.rows.resize(b + 1);
    Row& r = o.rows[b];
    ++r.count;
    for (unsigned k = 0; k < kParts; ++k) {
      if (!p[k]) continue;
      ++o.nonzero[k][CoarseHistogram::index(p[k])];
      ++o.nonzero_count[k];
      o.sum[k] += p[k];
      r.sum[k] += static_cast<double>(p[k]);
    }
  }

  struct Figures {
    double mean_us = 0, p99_us = 0, share = 0, tail_us = 0;
  };
  // Op 0, 1 or 2 (all): every part's figures, indexed by part, and the tail they take
  // apart: the requests in the latency histogram's bucket of the p99 and above (the p99
  // is that bucket's upper edge), how many, and their mean latency.
  struct Summary {
    std::array<Figures, kParts> parts{};
    std::uint64_t tail_count = 0;
    double tail_mean_us = 0;
  };
  Summary figures(int op) const {
    Summary out;
    const std::uint64_t n = count(op);
    if (!n) return out;
    unsigned __int128 all = 0;
    for (int o : members(op))
      for (unsigned k = 0; k < kParts; ++k) all += ops_[o].sum[k];
    const Row tail = tail_row(op);
    out.tail_count = tail.count;
    double tail_sum = 0;
    for (double v : tail.sum) tail_sum += v;
    out.tail_mean_us = tail.count ? tail_sum / static_cast<double>(tail.count) / 1e6 : 0.0;
    const std::uint64_t need = LatencyHistogram::rank(0.99, n);
    for (unsigned part = 0; part < kParts; ++part) {
      Figures& f = out.parts[part];
      unsigned __int128 sum = 0;
      std::uint64_t nonzero = 0;
      for (int o : members(op)) {
        sum += ops_[o].sum[part];
        nonzero += ops_[o].nonzero_count[part];
      }
      f.mean_us = static_cast<double>(sum) / static_cast<double>(n) / 1e6;
      f.share = all ? static_cast<double>(sum) / static_cast<double>(all) : 0.0;
      // p99 with the zeros (not recorded) below every recorded value.
      const std::uint64_t zeros = n - nonzero;
      if (need > zeros) {
        std::uint64_t seen = zeros;
        for (std::size_t b = 0; b < kBuckets; ++b) {
          for (int o : members(op)) seen += ops_[o].nonzero[part][b];
          if (seen >= need) {
            f.p99_us = static_cast<double>(CoarseHistogram::upper_edge(b)) / 1e6;
            break;
          }
        }
      }
      f.tail_us = tail.count ? tail.sum[part] / static_cast<double>(tail.count) / 1e6 : 0.0;
    }
    return out;
  }
  std::uint64_t count(int op) const {
    std::uint64_t n = 0;
    for (int o : members(op)) n += ops_[o].count;
    return n;
  }

 private:
  static constexpr std::size_t kBuckets = (64 - CoarseHistogram::kSubBits + 1) << CoarseHistogram::kSubBits;
  struct Row {
    std::uint64_t count = 0;
    std::array<double, kParts> sum{};
  };
  struct Op {
    std::uint64_t count = 0;
    // Per part, the counts of its non-zero values by CoarseHistogram bucket.
    std::array<std::array<std::uint64_t, kBuckets>, kParts> nonzero{};
    std::array<std::uint64_t, kParts> nonzero_count{};
    std::array<unsigned __int128, kParts> sum{};
    std::vector<Row> rows;  // by the latency's histogram bucket
  };
  static std::vector<int> members(int op) { return op == 2 ? std::vector<int>{0, 1} : std::vector<int>{op}; }
  Row tail_row(int op) const {
    std::size_t rows = 0;
    for (int o : members(op)) rows = std::max(rows, ops_[o].rows.size());
    std::vector<Row> merged(rows);
    for (int o : members(op))
      for (std::size_t b = 0; b < ops_[o].rows.size(); ++b) {
        merged[b].count += ops_[o].rows[b].count;
        for (unsigned k = 0; k < kParts; ++k) merged[b].sum[k] += ops_[o].rows[b].sum[k];
      }
    Row tail;
    const std::uint64_t n = count(op);
    if (!n) return tail;
    const std::uint64_t need = LatencyHistogram::rank(0.99, n);
    std::uint64_t seen = 0;
    std::size_t first = rows;
    for (std::size_t b = 0; b < rows; ++b) {
      seen += merged[b].count;
      if (seen >= need) {
        first = b;
        break;
      }
    }
    for (std::size_t b = first; b < rows; ++b) {
      tail.count += merged[b].count;
      for (unsigned k = 0; k < kParts; ++k) tail.sum[k] += merged[b].sum[k];
    }
    return tail;
  }
  Op ops_[2];
};

}  // namespace ssd::host
