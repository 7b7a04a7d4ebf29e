// Coverage per iteration on a real PyTorch export (Debian's python3-torch, torchvision's ResNet-50, random weights)
// at 2 intra-op threads: the kernels cover nearly all of each profiled run, the time between them is its own row,
// and the layer table adds up to the run — up to the noise inside kernels, which a busy machine adds and the
// summary then names.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

// Debian's interpreter (python3-torch installs there; a PATH shim may point elsewhere).
const char* kPython = "/usr/bin/python3";

bool torch_available() {
  std::string cmd = std::string(kPython) + " -c 'import torch, torchvision' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

TEST(CoverageIntegration, PyTorchResNet50AtTwoThreadsAddsUpToTheRun) {
  if (!ort_runner_available()) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  if (!torch_available()) GTEST_SKIP() << "python3-torch / python3-torchvision are not installed: run `make deps`";
  fs::path dir = fresh_test_dir("rooflens-coverage-test");
  std::string onnx = (dir / "resnet50_torch.onnx").string(), report = (dir / "report.json").string();
  std::string exporter = std::string(ROOFLENS_SOURCE_DIR) + "/tests/data_gen/export_torchvision.py";
  ASSERT_EQ(std::system((std::string(kPython) + " " + shell_quote(exporter) + " resnet50 " + shell_quote(onnx)).c_str()), 0);
  auto r = run_cli("profile " + onnx + " --threads 2 --warmup-ms 200 --duration 1 --profile-iterations 10 --no-roofs -o " +
                       report,
                   dir.string());
  ASSERT_EQ(r.rc, 0) << r.err;
  json run = json::parse(slurp(report))["runs"][0];
  double coverage = run["coverage"], between = run["between_kernels_ms"], total = run["profiled_run_ms"];
  double layers = 0;
  for (const auto& l : run["layers"]) layers += l["time_ms"].get<double>();
  // Per iteration, the kernels account for the run: what ORT spends between its kernels is small and measured.
  EXPECT_GE(coverage, 0.90);
  EXPECT_LE(coverage, 1.05);
  EXPECT_GE(between, 0);
  EXPECT_LT(between, 0.10 * total);
  EXPECT_NE(r.out.find("+ between kernels"), std::string::npos) << r.out;
  // The layer table's sum of per-kernel medians + that row adds up to the run on a quiet machine; on a busy one
  // the noise inside kernels (preemption, in a different kernel each iteration) separates them, and the summary
  // says how much.
  // Quiet is judged on the iterations the layers come from (the profiled ones) as well as the timed run: under
  // ctest -j 2 the other test's bursts can land on the ten profiled iterations of a run whose timed phase was calm
  // (a Zen 3 EPYC: timed CV 0.043, layers 76.3 + between 0.8 ms against 87.2).
  double rest = total - layers - between;
  const double cv = std::max(run["latency_ms"]["cv"].get<double>(), run["profiled_latency_ms"]["cv"].get<double>());
  bool quiet = cv <= 0.05;
  if (quiet && std::abs(rest) > 0.05 * total)
    ADD_FAILURE() << "quiet run (CV " << cv << ") but layers " << layers << " + between " << between
                  << " ms vs run " << total << " ms";
  if (rest > 0.05 * total) {
    EXPECT_NE(r.out.find("noise inside kernels"), std::string::npos) << r.out;
  }
  EXPECT_LE(layers + between, 1.10 * total);  // noise only lowers the sum of medians: more is time counted twice
  if (!getenv("KEEP")) fs::remove_all(dir);
}

}  // namespace
