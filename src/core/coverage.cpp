#include "core/coverage.h"

#include <algorithm>
#include <optional>

#include "stats/order.h"

namespace rooflens {

namespace {

// Σ kernel ms per iteration, and which iterations had any kernel.
std::vector<double> kernel_sums(const std::vector<std::vector<double>>& kernel_ms, size_t iterations,
                                std::vector<char>& seen) {
  std::vector<double> sums(iterations, 0.0);
  seen.assign(iterations, 0);
  for (const auto& k : kernel_ms)
    for (size_t i = 0; i < k.size() && i < sums.size(); ++i) {
      sums[i] += k[i];
      seen[i] = 1;
    }
  return sums;
}

// The median over the iterations that count of f(i), or nullopt when `per_iteration` has no value for them.
template <class F>
std::optional<double> median_over(const std::vector<double>& per_iteration, const std::vector<char>& counts, F f) {
  std::vector<double> v;
  for (size_t i = 0; i < counts.size() && i < per_iteration.size(); ++i)
    if (counts[i]) v.push_back(f(i));
  if (v.empty()) return std::nullopt;
  return stats::median_of(v);
}

// The profiler's bookkeeping between kernels, bounded by the source's calibration per kernel (kernels x gap) and by
// what the executor actually spent between them (or, without an executor span, the whole time between kernels),
// and the coverage of each run once that is set aside.
void add_profiler_bookkeeping(DispatchBreakdown& d, const std::vector<double>& sums, const std::vector<double>& run_ms,
                              const DispatchSamples& s, const std::vector<char>& counts, int64_t kernels) {
  const double bound = *s.profiler_gap_ms * static_cast<double>(kernels);
  auto bookkeeping = [&](size_t i) {
    const double between = i < s.executor_ms.size() ? s.executor_ms[i] - sums[i] : run_ms[i] - sums[i];
    return std::clamp(between, 0.0, bound);
  };
  d.profiler_gap_ms = s.profiler_gap_ms;
  d.profiler_bookkeeping_ms = median_over(run_ms, counts, bookkeeping);
  d.coverage_without_profiler = median_over(run_ms, counts, [&](size_t i) {
    const double rest = run_ms[i] - bookkeeping(i);
    return rest > 0 ? sums[i] / rest : 0.0;
  });
}

}  // namespace

DispatchBreakdown dispatch_breakdown(const std::vector<std::vector<double>>& kernel_ms, const std::vector<double>& run_ms,
                                     const DispatchSamples& s, int64_t kernels) {
  std::vector<char> counts;
  const std::vector<double> sums = kernel_sums(kernel_ms, run_ms.size(), counts);
  for (size_t i = 0; i < run_ms.size(); ++i) counts[i] = counts[i] && run_ms[i] > 0;
  DispatchBreakdown d;
  d.kernels = kernels;
  d.outside_executor_ms = median_over(s.executor_ms, counts, [&](size_t i) { return std::max(0.0, run_ms[i] - s.executor_ms[i]); });
  d.executor_gaps_ms = median_over(s.executor_ms, counts, [&](size_t i) { return std::max(0.0, s.executor_ms[i] - sums[i]); });
  d.fences_ms = median_over(s.fences_ms, counts, [&](size_t i) { return s.fences_ms[i]; });
  d.longest_gap_ms = median_over(s.longest_gap_ms, counts, [&](size_t i) { return s.longest_gap_ms[i]; });
  d.pool_handoff_ms = median_over(s.pool_handoff_ms, counts, [&](size_t i) { return s.pool_handoff_ms[i]; });
  d.pool_wait_ms = median_over(s.pool_wait_ms, counts, [&](size_t i) { return s.pool_wait_ms[i]; });
  d.parallel_kernels = s.parallel_kernels;
  if (s.profiler_gap_ms && kernels > 0) add_profiler_bookkeeping(d, sums, run_ms, s, counts, kernels);
  return d;
}

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
  c.coverage = stats::median_of(ratios);
  c.between_kernels_ms = stats::median_of(gaps);
  return c;
}

}  // namespace rooflens
