#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// Intel Neural Engine's ENGINE_PROFILING=1 output: the profiling CSV (sparse-ratio table, one row per operator,
// totals) and/or its trace JSON (model_inference / Iteration / operator events).
const Importer& neural_engine_importer();
}  // namespace rooflens::importers
