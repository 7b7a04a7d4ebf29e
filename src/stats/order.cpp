#include "stats/order.h"

#include <algorithm>
#include <cmath>

#include "stats/normal.h"

namespace rooflens::stats {

double percentile_nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

double median_of(std::vector<double> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

std::optional<std::pair<double, double>> median_ci(std::vector<double> s, double confidence) {
  const double n = static_cast<double>(s.size());
  const double z = normal_quantile(0.5 + confidence / 2);
  const double j = std::floor((n - z * std::sqrt(n)) / 2);
  const double k = std::ceil(1 + (n + z * std::sqrt(n)) / 2);
  if (!(j >= 1) || !(k <= n)) return std::nullopt;
  std::sort(s.begin(), s.end());
  return std::make_pair(s[static_cast<size_t>(j) - 1], s[static_cast<size_t>(k) - 1]);
}

double upper_median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  const auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  return *mid;
}

double robust_cv(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double m = median_of(samples);
  if (!(m > 0)) return 0;
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (double v : samples) deviations.push_back(std::fabs(v - m));
  return 1.4826 * median_of(std::move(deviations)) / m;
}

double geometric_mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) {
    // A zero, negative or infinite member has no logarithm to average: the mean is undefined, said as 0.
    if (!(x > 0) || !std::isfinite(x)) return 0;
    s += std::log(x);
  }
  return std::exp(s / static_cast<double>(v.size()));
}

}  // namespace rooflens::stats
