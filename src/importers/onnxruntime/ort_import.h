#pragma once
#include "importers/importer.h"

namespace rooflens::importers {
// ONNX Runtime profile JSON (enableProfiling / session.enable_profiling) from any execution provider and version,
// read with the live backend's own parser and mapped with its own rules (src/backends/onnxruntime/).
const Importer& ort_importer();
}  // namespace rooflens::importers
