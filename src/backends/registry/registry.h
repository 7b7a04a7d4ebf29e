#pragma once
// The backends rooflens can run, by name (`-B name:options`). Adding a backend is its folder plus one line in
// registry.cpp (and its CMake option when it needs a library not everyone has).
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace rooflens {

struct BackendEntry {
  std::string name;
  std::unique_ptr<Backend> (*make)(const BackendSpec&);
  // The child-process side of a backend whose runtime lives inside the rooflens binary: `rooflens __runner NAME`
  // runs this (it serves the runner protocol on stdin/stdout and returns the exit code). Null when the backend
  // has a runner program of its own (ONNX Runtime's is runners/ort/run.mjs).
  int (*runner_main)() = nullptr;
};

const std::vector<BackendEntry>& backend_entries();
std::vector<std::string> backend_names();
// Throws UsageError naming the known backends for an unknown name.
std::unique_ptr<Backend> make_backend(const BackendSpec& spec);
// `rooflens __runner NAME`: throws UsageError when NAME has no in-binary runner.
int run_backend_runner(const std::string& name);

}  // namespace rooflens
