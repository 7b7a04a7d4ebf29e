#pragma once
// The fixture of integration suites that run the `rooflens` binary on the real ORT runner (integration tests only:
// cli_runner.h needs the binary's path).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace rooflens::testing {

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
