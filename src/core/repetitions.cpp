#include "core/repetitions.h"

#include <algorithm>
#include <cmath>

#include "stats/order.h"

namespace rooflens {

std::vector<int64_t> repetition_sizes(const std::vector<int64_t>& sizes, size_t samples) {
  if (!sizes.empty() && partition_error(sizes, samples).empty()) return sizes;
  if (samples == 0) return {};
  return {static_cast<int64_t>(samples)};
}

std::string partition_error(const std::vector<int64_t>& sizes, size_t samples) {
  if (sizes.empty()) return "";
  uint64_t sum = 0;
  for (int64_t n : sizes) {
    if (n <= 0) return "a repetition of " + std::to_string(n) + " samples (each holds at least one)";
    sum += static_cast<uint64_t>(n);
  }
  if (sum != samples)
    return "the counts sum to " + std::to_string(sum) + " but there are " + std::to_string(samples) + " samples";
  return "";
}

std::vector<std::vector<double>> split_repetitions(const std::vector<double>& samples,
                                                   const std::vector<int64_t>& sizes) {
  std::vector<std::vector<double>> out;
  size_t at = 0;
  for (int64_t n : repetition_sizes(sizes, samples.size())) {
    auto first = samples.begin() + static_cast<std::ptrdiff_t>(at);
    out.emplace_back(first, first + n);
    at += static_cast<size_t>(n);
  }
  return out;
}

std::vector<double> repetition_medians(const std::vector<double>& samples, const std::vector<int64_t>& sizes) {
  std::vector<double> out;
  for (auto& rep : split_repetitions(samples, sizes)) out.push_back(stats::median_of(std::move(rep)));
  return out;
}

RepetitionSpread repetition_spread(const std::vector<double>& samples, const std::vector<int64_t>& sizes) {
  RepetitionSpread s;
  std::vector<std::vector<double>> reps = split_repetitions(samples, sizes);
  s.count = reps.size();
  if (reps.empty()) return s;
  std::vector<double> medians, cvs;
  s.min_samples = reps.front().size();
  for (const auto& r : reps) {
    medians.push_back(stats::median_of(r));
    cvs.push_back(stats::robust_cv(r));
    s.min_samples = std::min(s.min_samples, r.size());
  }
  s.min_median = *std::min_element(medians.begin(), medians.end());
  s.max_median = *std::max_element(medians.begin(), medians.end());
  double all = stats::median_of(samples);
  s.spread = all > 0 ? (s.max_median - s.min_median) / all : 0;
  s.within_cv = stats::median_of(cvs);
  return s;
}

bool spread_is_large(const RepetitionSpread& s) {
  if (s.count < 2 || s.min_samples == 0) return false;
  double standard_error = 1.2533 * s.within_cv / std::sqrt(static_cast<double>(s.min_samples));
  return s.spread > std::max({s.within_cv, 0.02, 4 * standard_error});
}

}  // namespace rooflens
