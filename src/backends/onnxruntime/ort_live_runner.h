#pragma once
// The ONNX Runtime live runner: one runner process (runners/ort/run.mjs) serving many models in turn, restarted
// only when a model crashed it or hung past its timeout. See LiveRunner in backends/backend.h.
#include <memory>

#include "backends/backend.h"
#include "backends/common/cpu_budget.h"
#include "backends/onnxruntime/ort_runner.h"

namespace rooflens::ort {

// Every inference session gets an explicit intra-op thread count: the load's, else the model's or -B's
// intraOpNumThreads, else one per physical core of `budget` (ort_settings.h).
std::unique_ptr<LiveRunner> make_ort_live_runner(const OrtSessionOptions& base, const CpuBudget& budget);

}  // namespace rooflens::ort
