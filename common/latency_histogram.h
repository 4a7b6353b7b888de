// A log-linear latency histogram (HdrHistogram-like), plain C++: values below
// 2^SubBits are exact; above, each power of two is split into 2^SubBits buckets, so a
// percentile is reported to within 2^-SubBits of the true value, rounded up to its
// bucket's upper edge and never above the exact maximum. Mean, min and max are exact.
// Memory is fixed, independent of the sample count: LatencyHistogram (SubBits 8: 1/256,
// 0.39 %) takes about 120 KB; CoarseHistogram (SubBits 5: 1/32, 3.1 %) about 15 KB.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ssd {

template <unsigned SubBits>
class BasicLatencyHistogram {
 public:
  static constexpr unsigned kSubBits = SubBits;
  static constexpr std::uint64_t kSub = 1u << kSubBits;

  BasicLatencyHistogram() : buckets_((64 - kSubBits + 1) * kSub, 0) {}

  void record(std::uint64_t v) {
    ++buckets_[index(v)];
    ++count_;
    sum_ += v;
    max_ = std::max(max_, v);
    min_ = std::min(min_, v);
  }
  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return count_ ? max_ : 0; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }

  // The smallest bucket upper edge with at least q (0..1) of the samples at or below it.
  std::uint64_t quantile(double q) const { return count_ ? at_rank(rank(q, count_)) : 0; }
  // The rank (1..count) of quantile q among `count` samples.
  static std::uint64_t rank(double q, std::uint64_t count) {
    const std::uint64_t need = static_cast<std::uint64_t>(q * static_cast<double>(count) + 0.5);
    return std::clamp<std::uint64_t>(need, 1, count);
  }
  // The smallest bucket upper edge with at least `need` (1..count) samples at or below it.
  std::uint64_t at_rank(std::uint64_t need) const {
    if (count_ == 0) return 0;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
      seen += buckets_[i];
      if (seen >= need) return std::min(upper_edge(i), max_);
    }
    return max_;
  }

  static std::size_t index(std::uint64_t v) {
    if (v < kSub) return static_cast<std::size_t>(v);
    const unsigned e = 63u - static_cast<unsigned>(__builtin_clzll(v));  // >= kSubBits
    const std::uint64_t top = v >> (e - kSubBits);                       // [kSub, 2 kSub)
    return static_cast<std::size_t>((e - kSubBits + 1) * kSub + (top - kSub));
  }
  static std::uint64_t upper_edge(std::size_t i) {
    if (i < kSub) return i;
    const std::uint64_t g = i / kSub, off = i % kSub;
    const unsigned shift = static_cast<unsigned>(g - 1);
    return ((kSub + off) << shift) + ((std::uint64_t{1} << shift) - 1);
  }

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t min_ = ~std::uint64_t{0};
};

using LatencyHistogram = BasicLatencyHistogram<8>;
using CoarseHistogram = BasicLatencyHistogram<5>;

}  // namespace ssd
