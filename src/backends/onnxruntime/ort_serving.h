#pragma once
// ONNX Runtime's serving capability (backends/serving.h): one `node run.mjs` per instance, its inference session
// created with the explicit intra-op thread count, its samples prepared by the runner (runners/ort/serve.mjs).
#include <memory>

#include "backends/common/cpu_budget.h"
#include "backends/onnxruntime/ort_runner.h"
#include "backends/serving.h"

namespace rooflens::ort {

std::unique_ptr<Serving> make_ort_serving(OrtSessionOptions base, CpuBudget budget);

}  // namespace rooflens::ort
