#pragma once
// Shared set-up for integration suites that run the real ONNX Runtime runner on zoo models.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "backends/onnxruntime/ort_runner.h"
#include "core/errors.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace rooflens::testing {

// Short timings for `rooflens profile` in tests: they check behaviour, not speed.
inline const std::string kQuickProfile =
    " --threads 2 --warmup-ms 0 --duration 0 --iterations 3 --profile-iterations 3 -q ";

// A fresh per-process directory under the system temp dir.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  auto dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// True when runners/ort and its onnxruntime-node install are present (`make deps`).
inline bool ort_runner_available() {
  try {
    return ort::runner_dependencies_installed(ort::locate_runner_script());
  } catch (const UserError&) {
    return false;
  }
}

inline void save_zoo_model(const std::string& name, const zoo::ZooOptions& options, const std::string& path) {
  auto built = zoo::make_model(zoo::find_model(name), options);
  zoo::save_model(built.model, path, false);
}

}  // namespace rooflens::testing
