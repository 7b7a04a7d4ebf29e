#pragma once
// `rooflens lint`: a registry of rules over a Report. Each rule reads one profiled run (its layers, the model's
// analysis, the roofs) and adds findings: a severity, the layers and ONNX nodes involved, the numbers, what to
// do and where to read more. Rules read the report only (never a runtime's kernel names: producers classify
// their kernels into Layer::kind / device / dtypes), so a rule works for every source that fills those fields.
#include <string>
#include <vector>

#include "core/report.h"

namespace rooflens {

class FindingSink;
struct RunFacts;

// A rule: one function over one run. `family` groups rules by what they look at (one file per family,
// src/lint/rules_<family>.cpp); `id` is what findings carry and docs/lint.md explains.
struct LintRule {
  const char* id;
  const char* family;
  const char* summary;     // one line for `rooflens lint --list-rules` and docs
  const char* read_more;   // URL
  void (*check)(const RunFacts& facts, FindingSink& out);
};

// Every rule, in the order findings are reported (src/lint/registry.cpp: one line per family).
const std::vector<LintRule>& lint_rules();

// Runs every rule over every run that has layers (and the timing rules over every run), most severe first
// within a run, runs in report order.
std::vector<Finding> lint_report(const Report& report);

}  // namespace rooflens
