#pragma once
// The terminal view of a score result (`rooflens score`): the overall score and each category with its 95%
// interval and the one line that explains it, then a row per workload figure (status, figure, score, roof ratio,
// efficiency, drift), then why any workload is not valid.
#include <string>

#include "core/score.h"

namespace rooflens {

std::string score_summary(const ScoreResult& r);

}  // namespace rooflens
