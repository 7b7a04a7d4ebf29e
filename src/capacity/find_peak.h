#pragma once
// `--find-peak`: the highest server QPS that is VALID. From a first guess, the bracket is widened exponentially
// (×1.25, then the factor squared at each step: ×1.56, ×2.44, ...) until one side is VALID and the other INVALID,
// then bisected until (upper - lower) / lower is at most the precision. Every QPS tried is kept with its verdict.
// A run that fails for a reason no QPS cures (a runner died, Ctrl-C) ends the search.
#include <functional>
#include <vector>

#include "core/capacity.h"

namespace rooflens::capacity {

struct PeakOptions {
  double start_qps = 10;
  double precision = 0.02;
  int max_runs = 40;
  double floor_qps = 0.01;         // below this nothing is VALID: give up
};

struct PeakOutcome {
  PeakSearch peak;
  std::vector<ScenarioResult> points;  // in the order tried
  bool stopped = false;                // a run could not finish (fault, interrupt)
};

// `run(qps)` makes and judges one server run; `broken(result)` says a result ended the search.
PeakOutcome find_peak(const PeakOptions& o, const std::function<ScenarioResult(double qps)>& run,
                      const std::function<bool(const ScenarioResult&)>& broken);

}  // namespace rooflens::capacity
