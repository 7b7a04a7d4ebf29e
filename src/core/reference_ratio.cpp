#include "core/reference_ratio.h"

#include <algorithm>

#include "core/history.h"
#include "core/repetitions.h"

namespace rooflens {

std::vector<double> paired_ratios(const std::vector<double>& run_medians, const std::vector<double>& reference_medians) {
  std::vector<double> out;
  const size_t n = std::min(run_medians.size(), reference_medians.size());
  for (size_t i = 0; i < n; ++i)
    if (run_medians[i] > 0 && reference_medians[i] > 0) out.push_back(run_medians[i] / reference_medians[i]);
  return out;
}

double reference_ratio(const std::vector<double>& run_medians, const std::vector<double>& reference_medians) {
  return run_center(paired_ratios(run_medians, reference_medians));
}

double reference_ratio(const ProfileRun& run) {
  if (!run.reference) return 0;
  return reference_ratio(run.repetition_medians(), run.reference->repetition_medians());
}

}  // namespace rooflens
