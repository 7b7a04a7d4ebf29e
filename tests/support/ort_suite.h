#pragma once
// Shared set-up for integration suites that run the real ONNX Runtime runner on zoo models.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "backends/onnxruntime/ort_runner.h"
#include "core/errors.h"
#include "support/cli_runner.h"
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

// An integration suite of the binary on the real ORT runner: one fresh directory for the whole suite (kept with KEEP=1),
// each test skipped where onnxruntime-node is not installed, `rooflens` run inside the directory. The derived suite
// names the directory (`static constexpr const char* kDir`) and may fill it (`static void prepare()`).
template <class Derived>
class OrtCliSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(fresh_test_dir(Derived::kDir));
    Derived::prepare();
  }
  static void TearDownTestSuite() {
    if (!std::getenv("KEEP")) std::filesystem::remove_all(*dir_);
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  }
  static void prepare() {}
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static CliResult cli(const std::string& args) { return run_cli(args, dir_->string()); }
  static inline std::filesystem::path* dir_ = nullptr;
};

}  // namespace rooflens::testing
