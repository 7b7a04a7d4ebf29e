#pragma once
// Renderings of a report's findings (rooflens lint, src/lint/): the terminal list `lint` prints, Markdown for a
// pull request, JSON, and the short Findings section of the profile summary.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/report.h"

namespace rooflens {

struct FindingsView {
  std::string source;                 // the report's path, for the heading
  const Report* report = nullptr;
  std::vector<Finding> findings;      // those to show (after --min-severity), in report order
};

using FindingsFormatter = std::function<std::string(const FindingsView&)>;
const std::map<std::string, FindingsFormatter>& findings_formats();  // table, md, json

// An evidence number in its unit: "12.3%", "1.234 ms", "191.2 MB", "16".
std::string evidence_text(const Evidence& e);
// "2 errors, 1 warning, 3 info".
std::string severity_counts(const std::vector<Finding>& findings);
// The profile summary's section: one line per finding (severity, run, rule, title); "" when there are none.
std::string findings_section(const Report& r, size_t max_lines = 12);

}  // namespace rooflens
