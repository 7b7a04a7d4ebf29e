#pragma once
// The ONNX Runtime backend: one runner process per configuration (fresh peak RSS, crash isolation).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace rooflens::ort {

// Options in ORT's spelling (see OrtSessionOptions::set), plus two short forms: opt=LEVEL and threads=N.
std::unique_ptr<Backend> make_ort_backend(const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace rooflens::ort
