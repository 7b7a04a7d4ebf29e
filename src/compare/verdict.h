#pragma once
// From two sets of raw timing samples to a verdict: the statistics of significance.h plus the rules that turn
// them into regression / improvement / below threshold / within noise / insufficient samples.
#include <string>
#include <vector>

#include "core/comparison.h"

namespace rooflens {

// Medians come from the raw samples; when a side has none, from its summary (`*_stats_median`, 0 = unknown).
// With at least 50 samples on each side, the tests run on blocks of consecutive samples (significance.h):
// Mann-Whitney on the block medians, the bootstrap resampling whole blocks.
LatencyComparison compare_latency(const std::vector<double>& base, const std::vector<double>& next,
                                  const CompareOptions& options, double base_stats_median = 0,
                                  double new_stats_median = 0);

// The verdict of a computed comparison:
//   insufficient samples  fewer than options.min_samples on a side, or sizes so small that even complete
//                         separation could not reach p < alpha, or no usable BASE median
//   regression            significant (Mann-Whitney p < alpha AND the bootstrap interval lies above 1) and the
//                         median change exceeds +threshold
//   improvement           significant (p < alpha AND the interval lies below 1) and the change is below -threshold
//   below threshold       significant, but |change| <= threshold
//   within noise          not significant
// A speed-up can never be a regression: that needs the whole interval above 1 and a positive change.
std::string latency_verdict(const LatencyComparison& l, const CompareOptions& options);

}  // namespace rooflens
