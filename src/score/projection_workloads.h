#pragma once
// The suite's workloads as projection inputs (whatif/score_projection.h) for `score --project`: each workload's model
// built as the score command builds it (score::build_model: the same seeded file) and its figures' work taken from
// its kind (score/kind.h: a served model's batch-1 pass per sample; a decoder's prefill per prompt token and a decode
// step in the middle of decoding), on `cores` cores, with the suite's reference times. Precisions the zoo does not
// build (fp16) are kept as not projected, so the projected score says it is incomplete.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "score/run_suite.h"
#include "score/suite.h"
#include "whatif/score_projection.h"

namespace rooflens::score {

std::vector<ProjectionWorkload> projection_workloads(const Suite& suite, const ScoreOptions& o,
                                                     const std::filesystem::path& dir, int64_t cores);

}  // namespace rooflens::score
