// Coverage per iteration against the sum of per-kernel medians, on iterations whose noise lands in a different
// kernel each time (what a busy machine does to a profile).
#include <gtest/gtest.h>

#include "core/coverage.h"
#include "stats/order.h"

using namespace rooflens;

TEST(IterationCoverage, NoiseInOneKernelIsNotMissingTime) {
  // Three kernels of 10 ms; in each iteration one of them was preempted for 20 ms (inside its timing); 1 ms of
  // each run lies between kernels.
  std::vector<std::vector<double>> k = {{30, 10, 10}, {10, 30, 10}, {10, 10, 30}};
  std::vector<double> runs = {51, 51, 51};
  IterationCoverage c = iteration_coverage(k, runs);
  EXPECT_EQ(c.iterations, 3u);
  EXPECT_DOUBLE_EQ(c.coverage, 50.0 / 51);
  EXPECT_DOUBLE_EQ(c.between_kernels_ms, 1.0);
  // Σ of medians says 30 of 51 ms: 59%, "missing" time that was never between kernels.
  double medians = 0;
  for (const auto& v : k) medians += stats::median_of(v);
  EXPECT_DOUBLE_EQ(medians / stats::median_of(runs), 30.0 / 51);
}

TEST(IterationCoverage, EdgeCases) {
  EXPECT_EQ(iteration_coverage({}, {10, 10}).iterations, 0u);
  EXPECT_EQ(iteration_coverage({{1, 2}}, {}).coverage, 0);
  // Kernels that overlap (parallel execution) can exceed the run: coverage above 1, no negative gap.
  IterationCoverage c = iteration_coverage({{8, 8}, {6, 6}}, {10, 10});
  EXPECT_DOUBLE_EQ(c.coverage, 1.4);
  EXPECT_DOUBLE_EQ(c.between_kernels_ms, 0);
  // A missing run time skips that iteration.
  c = iteration_coverage({{5, 5, 5}}, {10, 0, 10});
  EXPECT_EQ(c.iterations, 2u);
  EXPECT_DOUBLE_EQ(c.between_kernels_ms, 5);
}
