#pragma once
// From two sets of raw timing samples to a verdict: the statistics of significance.h plus the rules that turn
// them into regression / improvement / below threshold / within noise / insufficient samples.
#include <string>
#include <vector>

#include "core/comparison.h"

namespace rooflens {

// One side of a latency comparison: its raw samples, how they split into repetitions (empty: one run), and the
// median its source summarised (used when there are no raw samples; 0 = unknown).
struct LatencySide {
  std::vector<double> samples;
  std::vector<int64_t> repetitions;
  double stats_median = 0;
};

// With at least 2 repetitions (runs) on both sides, the runs are the units: Welch's t-test on the logarithms of
// the repetition medians gives p and the interval of the ratio of their geometric means. Otherwise the samples of
// the one run are tested — run-to-run variation unmeasured (LatencyComparison::single_run): with at least 50
// samples on each side on blocks of consecutive samples (significance.h), Mann-Whitney on the block medians and
// the bootstrap resampling whole blocks; below that on the samples themselves.
LatencyComparison compare_latency(const LatencySide& base, const LatencySide& next, const CompareOptions& options);
// One run per side (the samples as they are).
LatencyComparison compare_latency(const std::vector<double>& base, const std::vector<double>& next,
                                  const CompareOptions& options, double base_stats_median = 0,
                                  double new_stats_median = 0);

// The verdict of a computed comparison:
//   insufficient samples  fewer than options.min_samples on a side, or (one run per side) sizes so small that
//                         even complete separation could not reach p < alpha, or no usable BASE median
//   regression            significant (p < alpha AND the interval lies above 1) and the change exceeds +threshold
//   improvement           significant (p < alpha AND the interval lies below 1) and the change is below -threshold
//   below threshold       significant, but |change| <= threshold
//   within noise          not significant
// A speed-up can never be a regression: that needs the whole interval above 1 and a positive change.
std::string latency_verdict(const LatencyComparison& l, const CompareOptions& options);

}  // namespace rooflens
