#pragma once
// Statistics of a sample from its order: medians, nearest-rank percentiles, the median's distribution-free confidence
// interval, a robust coefficient of variation, the geometric mean. Pure functions; samples by value where they
// are sorted.
#include <optional>
#include <utility>
#include <vector>

namespace rooflens::stats {

// Nearest-rank percentile of already sorted samples: the ceil(p/100 * n)-th smallest, a value that was measured;
// p in (0, 100]. 0 for an empty vector.
double percentile_nearest_rank(const std::vector<double>& sorted, double p);

// 0 for an empty vector; the mean of the middle two when n is even.
double median_of(std::vector<double> samples);

// The (n/2 + 1)-th smallest (the upper of the middle two when n is even): a median that was measured. 0 when empty.
double upper_median(std::vector<double> samples);

// The median's confidence interval from order statistics (no distribution assumed): the j-th and k-th smallest with
// j = floor((n - z√n) / 2), k = ceil(1 + (n + z√n) / 2), z the normal quantile of (1 + confidence) / 2; nullopt
// when n is too small for j >= 1 and k <= n.
std::optional<std::pair<double, double>> median_ci(std::vector<double> samples, double confidence);

// 1.4826 × MAD / median: the standard deviation's robust stand-in (equal to it for normal samples) over the
// median, so one outlier does not make a run look noisy. 0 for fewer than 2 samples or a median <= 0.
double robust_cv(const std::vector<double>& samples);

// exp(mean(ln x)); 0 for an empty vector or when a value is not positive and finite.
double geometric_mean(const std::vector<double>& values);

}  // namespace rooflens::stats
