#pragma once
// Static-analysis views of a Report: per-node table, per-op-type summary and totals, in each output format.
#include <functional>
#include <map>
#include <string>

#include "core/report.h"
#include "core/text_table.h"

namespace rooflens {

struct AnalysisView {
  size_t top = 0;            // 0 = all nodes
  std::string sort = "";     // "" = graph order; flops|macs|params|bytes|intensity|name|op
};

using AnalysisReporter = std::function<std::string(const Report&, const AnalysisView&)>;

// format name ("table", "json", "csv", "md") -> reporter.
const std::map<std::string, AnalysisReporter>& analysis_reporters();
// Sort keys accepted by AnalysisView::sort.
std::vector<std::string> analysis_sort_keys();

// The node and op-type tables: human units (terminal) or exact values under machine keys (CSV). Their columns
// come from one registry each (reporters/columns.h), as `top`'s do.
TextTable node_table(const Report& r, const AnalysisView& v, bool exact_values = false);
TextTable op_type_table(const Report& r, bool exact_values = false);

}  // namespace rooflens
