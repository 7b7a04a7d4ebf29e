#pragma once
// Memory as terminal lines: the model's need predicted from its analysis (analyze, every report), and each run's
// prediction in the executed order against what its runner held, with the difference in parts (profile).
#include <string>

#include "core/report.h"

namespace rooflens {

// "memory  weights 102 MB · activations: liveness peak 10.3 MB at /layer1/... (naive sum 106 MB) · peak 112 MB\n";
// "" when the model has no memory section.
std::string model_memory_text(const ModelInfo& m);

// A table of the runs' predicted and measured memory, then each run's difference in parts; "" when no run has one.
std::string run_memory_text(const Report& r);

}  // namespace rooflens
