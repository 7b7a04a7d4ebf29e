#pragma once
// ONNX Runtime's decoder generation (backends/generation.h): one fresh runner per configuration, the loop itself
// in runners/ort/generate.mjs.
#include <sys/types.h>

#include <atomic>
#include <memory>

#include "backends/common/cpu_budget.h"
#include "backends/generation.h"
#include "backends/onnxruntime/ort_runner.h"

namespace rooflens::ort {

// `runner_pid` is the backend's: it holds the pid of the runner in flight, so Backend::abort() can end it. Inference
// sessions get an explicit intra-op thread count (ort_settings.h), rooflens' choice from `budget` when none is asked
// for.
std::unique_ptr<DecoderGeneration> make_ort_generation(const OrtSessionOptions& base, const CpuBudget& budget,
                                                       std::atomic<pid_t>& runner_pid);

// The detected decoder I/O as the runner feeds it (ONNX dtype names become ORT's JavaScript ones).
DecoderBinding decoder_binding(const DecoderIo& io);

}  // namespace rooflens::ort
