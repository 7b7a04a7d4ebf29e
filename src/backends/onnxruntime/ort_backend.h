#pragma once
// The ONNX Runtime backend: one runner process per configuration (fresh peak RSS, crash isolation).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace rooflens::ort {

// Options in ORT's spelling (see OrtSessionOptions::set), plus two short forms: opt=LEVEL and threads=N;
// --opt-level becomes graphOptimizationLevel.
std::unique_ptr<Backend> make_ort_backend(const BackendSpec& spec);

}  // namespace rooflens::ort
