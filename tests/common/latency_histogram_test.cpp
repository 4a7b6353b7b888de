// The latency histogram (common/latency_histogram.h), plain C++.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "common/latency_histogram.h"

using namespace ssd;

TEST_CASE("latency histogram: percentiles within 1/256 of the exact value, exact mean and max", "[stats]") {
  LatencyHistogram h;
  std::vector<std::uint64_t> xs;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(18.0, 1.5);  // picoseconds: ~65 us median
  for (int i = 0; i < 200000; ++i) {
    const auto v = static_cast<std::uint64_t>(dist(rng));
    xs.push_back(v);
    h.record(v);
  }
  std::sort(xs.begin(), xs.end());
  long double sum = 0;
  for (std::uint64_t v : xs) sum += v;
  CHECK(h.mean() == Approx(static_cast<double>(sum / xs.size())).epsilon(1e-12));
  CHECK(h.max() == xs.back());
  CHECK(h.min() == xs.front());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const std::uint64_t exact = xs[static_cast<std::size_t>(q * xs.size() + 0.5) - 1];
    const std::uint64_t got = h.quantile(q);
    INFO("q " << q << " exact " << exact << " got " << got);
    CHECK(got >= exact);
    CHECK(static_cast<double>(got - exact) <= static_cast<double>(exact) / 256.0 + 1);
  }
  // Small values are exact; bucket edges are consistent with the index.
  for (std::uint64_t v : {0ull, 1ull, 255ull, 256ull, 257ull, 1000ull, 123456789ull, ~0ull}) {
    const std::size_t i = LatencyHistogram::index(v);
    CHECK(LatencyHistogram::upper_edge(i) >= v);
    if (i > 0) CHECK(LatencyHistogram::upper_edge(i - 1) < v);
  }
}
