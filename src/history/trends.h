#pragma once
// `rooflens history`: runs read from the results database grouped into trends (model × configuration ×
// machine: timings are only ever compared on the machine that took them), level shifts found in each, and the
// CI gate (`--check`): each trend's latest run judged against the runs before it with the statistics `compare`
// uses (src/compare/). The database is not touched here: points in, Trends out.
#include <string>
#include <vector>

#include "core/history.h"
#include "core/trend.h"

namespace rooflens {

struct TrendFilter {
  std::string model;     // regular expression searched in the model name ("" = all)
  std::string config;    // regular expression searched in the configuration label with its options ("" = all)
};

// Groups `points` (oldest first) into series, drops those the filter excludes, and marks change points and
// model changes. Throws UsageError for an invalid regular expression.
Trends build_trends(const std::vector<HistoryPoint>& points, const TrendFilter& filter, double alpha = 0.05,
                    double threshold = 0.05);

// Change points of one series of run centres (ms, > 0; 0 = not timed, skipped): binary segmentation — the split
// with the largest |Welch t| between the two sides (each >= 3 runs) is a change point when its p is below alpha
// divided by the number of candidate splits (Bonferroni: a long quiet series does not produce false shifts by
// sheer number of tries) and the change beyond `threshold`; then each side is searched the same way.
void mark_change_points(std::vector<TrendPoint>& points, double alpha, double threshold);

// The CI gate: for every series with a run in the latest session of `machine` (a machine id; the one whose
// session is most recent when ""), that run against up to options.last passing timed runs before it in the
// series (same machine by construction) — prediction_log_ratio of compare/significance.h on the run centres —
// with compare's verdict rules (p < alpha, interval excluding 1, change beyond the threshold). A failing latest
// run after passing ones is a new failure. Fills t.checks and t.check_options.
void check_latest(Trends& t, const std::string& machine, const CheckOptions& options);

// True when some check fails the gate: a regression or a new failure (as compare's --fail-on-regression).
bool check_fails(const Trends& t);

}  // namespace rooflens
