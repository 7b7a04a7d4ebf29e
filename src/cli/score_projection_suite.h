#pragma once
// The suite's workloads as projection inputs (whatif/score_projection.h) for `score --project`: each served
// workload's model built as the score command builds it (score::build_model: the same seeded file) and analysed; its
// latency and throughput figures are one sample of a batch-1 pass on `cores` cores, with the suite's reference times.
// Decoders (their per-token work needs generate's prefill and decode analysis) and precisions the zoo does not build
// (fp16) are kept as not projected, so the projected score says it is incomplete.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "score/driver.h"
#include "score/suite.h"
#include "whatif/score_projection.h"

namespace rooflens::cli {

std::vector<ProjectionWorkload> projection_workloads(const score::Suite& suite, const score::ScoreOptions& o,
                                                     const std::filesystem::path& dir, int64_t cores);

}  // namespace rooflens::cli
