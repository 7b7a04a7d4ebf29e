#pragma once
// `--find-peak`: the highest server QPS that is VALID. From a first guess, the bracket is widened exponentially
// (×1.25, then the factor squared at each step: ×1.56, ×2.44, ...) until one side is VALID and the other INVALID,
// then bisected until (upper - lower) / lower is at most the precision. Every QPS tried is kept with its verdict.
// A run that fails for a reason no QPS cures (a runner died, Ctrl-C) ends the search, and so does the time limit
// (`--search --budget`), checked between runs: the peak is then the best VALID rate found, not converged.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "capacity/loadgen/engine.h"
#include "capacity/loadgen/settings.h"
#include "core/capacity.h"

namespace rooflens::capacity {

struct PeakOptions {
  double start_qps = 10;           // the first point tried (a rate, or a count of users)
  double precision = 0.02;
  int max_runs = 40;
  double floor_qps = 0.01;         // below this nothing is VALID: give up
  bool whole = false;              // the axis counts (users): points are whole numbers, and a bracket one apart has
                                   // converged
  std::function<bool()> out_of_time;  // checked before each run after the first: true ends the search (--budget)
  // Consulted after each INVALID run while no run has been VALID: a reason means no lower rate can cure what failed
  // (lower_rates_cannot_help below), and the search ends with it rather than walking down to rates whose minimum
  // query count takes hours.
  std::function<std::optional<std::string>(const ScenarioResult&)> hopeless;
};

struct PeakOutcome {
  PeakSearch peak;
  std::vector<ScenarioResult> points;  // in the order tried
  bool stopped = false;                // a run could not finish (fault, interrupt)
  bool out_of_time = false;            // PeakOptions::out_of_time ended the search before it converged
  double below_floor_qps = 0;          // the rate the downward bracket would have tried next, when it lay below
                                       // PeakOptions::floor_qps (0 otherwise)
  std::string hopeless;                // PeakOptions::hopeless's reason, when it ended the search
};

// A server run INVALID for its length alone (its percentile met the SLO, but early stopping's bound asks for more
// queries than it ran) says nothing yet about its rate: the minimum query count to run it again with, the count the
// bound asked for, when that fits `max_seconds` at `qps` and `max_queries` (0: no cap); 0 when the run stands. A
// search that kept every run at the minimum called rates INVALID that hold (resnet50 at 8 QPS: p99 86.8 ms under a
// 100 ms SLO, 2 of 662 queries over it, and the bound asked for 838; docs/capacity.md).
int64_t lengthened_min_queries(const ScenarioResult& r, double qps, int64_t max_queries, double max_seconds = kMlperfDurationS);

// The stop rule of a search with no VALID rate yet: `r` (judged from `records`) is INVALID and more of its queries
// than the percentile allows missed the SLO without having waited for another query — their instance's previous call
// had ended when they were scheduled, so their own service time missed it, which no lower rate changes. The warning
// that says so, or nothing.
std::optional<std::string> lower_rates_cannot_help(const ScenarioResult& r, const RunRecords& records, double slo_ms,
                                                   double percentile);

// The search on any axis (a server rate, a count of users): `attempt(x)` runs and judges one point. PeakOutcome's
// `points` stay empty; the caller keeps what it ran.
struct PeakProbe {
  bool valid = false;
  bool stop = false;  // the point could not finish (fault, interrupt) or no lower point can cure it
};
PeakOutcome search_peak(const PeakOptions& o, const std::function<PeakProbe(double x)>& attempt);

// `run(qps)` makes and judges one server run; `broken(result)` says a result ended the search.
PeakOutcome find_peak(const PeakOptions& o, const std::function<ScenarioResult(double qps)>& run,
                      const std::function<bool(const ScenarioResult&)>& broken);

}  // namespace rooflens::capacity
