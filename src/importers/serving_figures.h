#pragma once
// What the serving importers (vllm, aiperf) share: a metric's figures as a benchmark client's file gives them, into
// the report's distribution, every figure the file did not give named instead of set to 0 (ServingResult::not_given,
// shown as "-"). The report never states what did not happen.
#include <optional>
#include <string>
#include <vector>

#include "core/report_serving.h"
#include "importers/importer.h"

namespace rooflens::importers {

struct GivenFigures {
  std::optional<double> mean, p50, p90, p95, p99, max;
  bool any() const { return mean || p50 || p90 || p95 || p99 || max; }
};

// Fills `out` from `g` (n: the requests it is over) and names each absent figure "<metric>.<figure>" in `not_given`
// (the whole metric, "<metric>", when the file gives none of it).
void give(const GivenFigures& g, int64_t n, const std::string& metric, ServingDistribution& out,
          std::vector<std::string>& not_given);

// A serving import's Imported: no layers, the serving run, the tool as its backend.
Imported imported_serving(ServingResult run, const std::string& tool, const std::string& version,
                          const std::string& model, std::vector<std::string> read);

}  // namespace rooflens::importers
