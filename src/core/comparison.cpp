#include "core/comparison.h"

#include <map>

namespace rooflens {

const char* status::of_failure(const std::string& kind) {
  if (kind == "timeout") return kTimeout;
  if (kind == "died") return kCrash;
  if (kind == "interrupted") return kSkip;
  return kFail;
}

VerdictCounts count_verdicts(const Comparison& c) {
  VerdictCounts n;
  const std::map<std::string, size_t VerdictCounts::*> field{
      {verdict::kRegression, &VerdictCounts::regressions},     {verdict::kImprovement, &VerdictCounts::improvements},
      {verdict::kBelowThreshold, &VerdictCounts::below_threshold}, {verdict::kWithinNoise, &VerdictCounts::within_noise},
      {verdict::kInsufficient, &VerdictCounts::insufficient},  {verdict::kNotTimed, &VerdictCounts::not_timed},
      {verdict::kNewFailure, &VerdictCounts::new_failures},    {verdict::kFixed, &VerdictCounts::fixed},
      {verdict::kStillFailing, &VerdictCounts::still_failing}, {verdict::kStatusChanged, &VerdictCounts::status_changed},
      {verdict::kSkipped, &VerdictCounts::skipped},            {verdict::kOnlyBase, &VerdictCounts::only_base},
      {verdict::kOnlyNew, &VerdictCounts::only_new}};
  for (const auto& item : c.items) {
    auto it = field.find(item.verdict);
    if (it != field.end()) ++(n.*(it->second));
  }
  return n;
}

bool fails_check(const VerdictCounts& n) { return n.regressions > 0 || n.new_failures > 0; }

}  // namespace rooflens
