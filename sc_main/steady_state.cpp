#include "sc_main/steady_state.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace ssd {

SteadyStateRule::SteadyStateRule(std::vector<std::string> names, unsigned window, double data, double slope)
    : names_(std::move(names)), window_(window), data_(data), slope_(slope) {
  if (window_ < 2) throw std::invalid_argument("steady state: a window needs at least 2 rounds");
  if (!(data_ > 0 && data_ <= 1) || !(slope_ > 0 && slope_ <= 1))
    throw std::invalid_argument("steady state: the excursions must be in (0, 1]");
}

bool SteadyStateRule::steady(const std::vector<double>& v, std::string& why) const {
  const double n = static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += x;
  const double avg = sum / n;
  const double band = std::fabs(avg);
  char text[160];
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::fabs(v[i] - avg) > data_ * band) {
      std::snprintf(text, sizeof text, "%.4g is %.1f %% from the window's average %.4g (at most %.0f %%)", v[i],
                    band > 0 ? 100.0 * std::fabs(v[i] - avg) / band : 100.0, avg, 100.0 * data_);
      why = text;
      return false;
    }
  }
  // Least squares over x = 0 .. n-1: slope = sum((x - xm)(y - ym)) / sum((x - xm)^2).
  const double xm = (n - 1) / 2;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double dx = static_cast<double>(i) - xm;
    sxy += dx * (v[i] - avg);
    sxx += dx * dx;
  }
  const double change = std::fabs(sxy / sxx * (n - 1));
  if (change > slope_ * band) {
    std::snprintf(text, sizeof text, "its fitted line changes by %.4g across the window, %.1f %% of the average %.4g (at most %.0f %%)",
                  change, band > 0 ? 100.0 * change / band : 100.0, avg, 100.0 * slope_);
    why = text;
    return false;
  }
  return true;
}

bool SteadyStateRule::add(Round r) {
  if (r.values.size() != names_.size()) throw std::invalid_argument("steady state: a round needs one value per name");
  rounds_.push_back(std::move(r));
  if (reached_ || rounds_.size() < window_) return false;
  const std::size_t first = rounds_.size() - window_;
  why_not_.clear();
  std::vector<double> v;
  for (std::size_t k = 0; k < names_.size(); ++k) {
    v.clear();
    std::size_t missing = 0;
    for (std::size_t i = first; i < rounds_.size(); ++i) {
      const double x = rounds_[i].values[k];
      if (std::isnan(x)) ++missing;
      else v.push_back(x);
    }
    if (missing == window_) continue;  // not tracked over this window
    if (missing) {
      why_not_ = names_[k] + ": missing from " + std::to_string(missing) + " of the window's rounds";
      return false;
    }
    std::string why;
    if (!steady(v, why)) {
      why_not_ = names_[k] + ": " + why;
      return false;
    }
  }
  reached_ = true;
  first_ = first;
  return true;
}

}  // namespace ssd
