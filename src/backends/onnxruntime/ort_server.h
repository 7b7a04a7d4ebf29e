#pragma once
// The ONNX Runtime model server: one runner process (runners/ort/run.mjs) serving many models in turn, restarted
// only when a model crashed it or hung past its timeout. See ModelServer in backends/backend.h.
#include <memory>

#include "backends/backend.h"
#include "backends/onnxruntime/ort_runner.h"

namespace rooflens::ort {

std::unique_ptr<ModelServer> make_ort_server(const OrtSessionOptions& base);

}  // namespace rooflens::ort
