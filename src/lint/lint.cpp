#include "lint/lint.h"

#include <algorithm>

#include "lint/rule.h"

namespace rooflens {

std::vector<Finding> lint_report(const Report& report) {
  std::vector<Finding> all;
  for (const auto& run : report.runs) {
    RunFacts facts(report, run);
    std::vector<Finding> found;
    for (const auto& rule : lint_rules()) {
      FindingSink sink(rule, facts.label, found);
      rule.check(facts, sink);
    }
    // Most severe first; rules keep registry order within a severity.
    std::stable_sort(found.begin(), found.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
    for (auto& f : found) all.push_back(std::move(f));
  }
  return all;
}

}  // namespace rooflens
