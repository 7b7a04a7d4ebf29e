#pragma once
// The closing console report of `rooflens bench`: pass rate per configuration, failures grouped by error type,
// skips by reason, the slowest models.
#include <cstddef>
#include <string>

#include "core/bench_results.h"

namespace rooflens {

struct BenchSummaryOptions {
  size_t top = 10;          // slowest models shown; failure examples per group
  double elapsed_s = 0;     // this invocation's wall time (0: not shown)
  int workers = 1;          // parallel workers (bench -j), each with its own runner
  size_t resumed = 0;       // entries an earlier run had finished
};

std::string bench_summary(const BenchResults& r, const BenchSummaryOptions& o);

// pass / (entries − skipped), 0 when nothing ran.
double pass_rate(size_t pass, size_t total, size_t skipped);

}  // namespace rooflens
