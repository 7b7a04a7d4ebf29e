#pragma once
// Summary statistics of timing samples. Percentiles are nearest-rank (the ceil(p/100 * n)-th smallest sample,
// a value that was actually measured), std is the sample standard deviation (n - 1), cv = std / mean.
#include <vector>

#include "core/report_run.h"

namespace rooflens {

LatencyStats summarize(std::vector<double> samples);

// Nearest-rank percentile of already sorted samples; p in (0, 100]. 0 for an empty vector.
double percentile_nearest_rank(const std::vector<double>& sorted, double p);

double median_of(std::vector<double> samples);  // 0 for an empty vector; mean of the middle two when even

}  // namespace rooflens
