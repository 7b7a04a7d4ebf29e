#pragma once
// `rooflens compare`: match BASE's items with NEW's (model × configuration), classify status changes (new
// failures, fixed failures, items only on one side) and, where both sides passed, compare latencies
// (verdict.h) and layers (layer_match.h). Rendering lives in reporters/compare_report.h.
#include <string>

#include "core/comparison.h"
#include "compare/sources.h"

namespace rooflens {

// Throws UsageError when BASE and NEW are of different kinds (a report and bench results).
Comparison compare_sources(const CompareSource& base, const CompareSource& head, const CompareOptions& options);

// The verdict of an item from its two statuses alone (status::k*, kAbsent for a missing side); "" when both
// passed and the latency verdict decides.
std::string status_verdict(const std::string& base_status, const std::string& new_status);

// --threshold: "5%" or "0.05" (both 5%), at least 0 and below 100%. A bare number of 1 or more ("5") is
// refused as ambiguous. Throws UsageError("--threshold ...: ...").
double parse_threshold(const std::string& text);

}  // namespace rooflens
