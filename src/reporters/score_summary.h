#pragma once
// The terminal view of a score result (`rooflens score`): the overall score and each category with its 95%
// interval and the one line that explains it, then a row per workload figure (status, figure, score, roof ratio,
// efficiency, drift), then why any workload is not valid.
#include <string>
#include <vector>

#include "core/score.h"

namespace rooflens {

std::string score_summary(const ScoreResult& r);

// The terminal view of a projected score (`rooflens score --project DEVICE`): the overall and categories with their
// roof ratios and where each efficiency came from, labelled PROJECTED, its notes, and (when given) the calibration
// rows against this machine's measured score.
std::string projected_score_summary(const ScoreResult& projected, const std::vector<CalibrationRow>& calibration);

}  // namespace rooflens
