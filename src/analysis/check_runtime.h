#pragma once
// `rooflens analyze --check-runtime MODEL`: the static shapes checked against a runtime's. Runs the model once in
// the runtime (its live runner) with every intermediate tensor of its main graph exposed as an output, and compares
// each static shape with the runtime's (model/runtime_shape_check.h); tensors inside subgraph bodies, which cannot
// be outputs, from one profiled run of the unoptimized model.
#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "model/shapes.h"

namespace rooflens {

struct CheckRuntimeOptions {
  std::string model;
  ShapeOverrides shapes;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  bool json = false;
  std::function<void(const std::string& what)> progress;  // what runs now (a line; the caller says where it goes)
};

// The runtime comes from `make_backend` (-B: the caller's registry), called once the model has loaded and its copy
// with the exposed outputs is written. Prints the comparison to `out`; returns 1 when a static shape differs from the
// runtime's, 0 otherwise. Throws UserError/BackendError (the runtime refused the model) as the commands do, and
// UsageError for a backend that cannot run a model outside a profile.
int check_runtime(const CheckRuntimeOptions& o, const std::function<std::unique_ptr<Backend>()>& make_backend,
                  std::ostream& out);

}  // namespace rooflens
