#pragma once
// Summary statistics of timing samples. Percentiles are nearest-rank (the ceil(p/100 * n)-th smallest sample,
// a value that was actually measured), std is the sample standard deviation (n - 1), cv = std / mean.
#include <vector>

#include "core/report_run.h"

namespace rooflens {

// Order statistics (median, nearest-rank percentile) are stats/order.h's.
LatencyStats summarize(std::vector<double> samples);

}  // namespace rooflens
