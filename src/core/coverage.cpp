#include "core/coverage.h"

#include <algorithm>

#include "core/stats.h"

namespace rooflens {

IterationCoverage iteration_coverage(const std::vector<std::vector<double>>& kernel_ms, const std::vector<double>& run_ms) {
  std::vector<double> sums(run_ms.size(), 0.0);
  std::vector<char> seen(run_ms.size(), 0);
  for (const auto& k : kernel_ms)
    for (size_t i = 0; i < k.size() && i < sums.size(); ++i) {
      sums[i] += k[i];
      seen[i] = 1;
    }
  std::vector<double> ratios, gaps;
  for (size_t i = 0; i < run_ms.size(); ++i) {
    if (!seen[i] || run_ms[i] <= 0) continue;
    ratios.push_back(sums[i] / run_ms[i]);
    gaps.push_back(std::max(0.0, run_ms[i] - sums[i]));
  }
  IterationCoverage c;
  c.iterations = ratios.size();
  c.coverage = median_of(ratios);
  c.between_kernels_ms = median_of(gaps);
  return c;
}

}  // namespace rooflens
