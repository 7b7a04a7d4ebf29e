#pragma once
// `rooflens analyze --check-runtime MODEL`: runs the model once in a runtime with every intermediate tensor of
// its main graph exposed as an output, and compares each static shape with the runtime's.
#include <chrono>
#include <iosfwd>
#include <string>

#include "model/shapes.h"

namespace rooflens::cli {

struct CheckRuntimeOptions {
  std::string model;
  ShapeOverrides shapes;
  std::string backend = "onnxruntime";         // -B spelling
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  bool json = false;
};

// Prints the comparison to `out`; returns 1 when a static shape differs from the runtime's, 0 otherwise.
// Throws UserError/BackendError (the runtime refused the model) as the other commands do.
int check_runtime(const CheckRuntimeOptions& o, std::ostream& out);

}  // namespace rooflens::cli
