#pragma once
// A run measured beside a reference model (`profile --reference`, core/report.h ReferenceTiming): the ratio of
// each repetition's median to the reference's repetition that ran right beside it. One pair is two turns a
// fraction of a second apart, so whatever the host does over seconds and minutes (a slow spell, a step of 20%
// between sessions) divides out; what is left is how much more work the model is than the reference.
#include <vector>

#include "core/report_run.h"

namespace rooflens {

// run_medians[i] / reference_medians[i] for every pair both have (the shorter list decides), skipping pairs with a
// non-positive median; empty when there is none.
std::vector<double> paired_ratios(const std::vector<double>& run_medians, const std::vector<double>& reference_medians);

// The centre of the pairs' ratios (run_center: their median), 0 when there is no pair.
double reference_ratio(const std::vector<double>& run_medians, const std::vector<double>& reference_medians);

// The run's repetition medians over its reference's; 0 without a reference.
double reference_ratio(const ProfileRun& run);

}  // namespace rooflens
