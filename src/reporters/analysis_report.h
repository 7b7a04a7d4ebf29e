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

TextTable node_table(const Report& r, const AnalysisView& v);
TextTable op_type_table(const Report& r);

}  // namespace rooflens
