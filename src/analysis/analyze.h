#pragma once
// Static analysis of one ONNX file: load (weights stay on disk), resolve shapes, count each node's cost,
// and fill the Report's model section.
#include <string>

#include "core/report.h"
#include "model/shapes.h"

namespace rooflens {

struct AnalyzeOptions {
  ShapeOverrides shapes;
};

// Throws UserError with a one-line message naming the file (and node) on bad input.
Report analyze_model_file(const std::string& path, const AnalyzeOptions& options = {});

}  // namespace rooflens
