// The profile driver around a backend: a configuration whose profiled run fails keeps its end-to-end figures
// (a result of their own) and says why its layers are missing; the field survives the JSON round trip and
// older reports without it still load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "backends/backend.h"
#include "core/report.h"
#include "profile/profile.h"
#include "support/onnx_builder.h"

using namespace rooflens;
using namespace rooflens::testing;
namespace fs = std::filesystem;

namespace {

// A backend whose timed run succeeds and whose profiled run the runtime refused.
class ProfileRefusedBackend : public Backend {
 public:
  BackendInfo info() const override { return {"fake", "1", {}, "fake runtime"}; }
  BackendRun run(const RunConfig&) override {
    BackendRun r;
    r.latencies_ms = {2.0, 2.5, 3.0};
    r.wall_s = 0.0075;
    r.stop_reason = "min_reached";
    r.profile_error = "m.onnx: cannot parse ORT profile x.json";
    return r;
  }
  void abort() override {}
  std::unique_ptr<ModelServer> serve() override { return nullptr; }
};

std::string relu_model() {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 8});
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  add_value(g->mutable_output(), "y", {1, 8});
  std::string path = (fs::temp_directory_path() / ("rooflens-driver-" + std::to_string(::getpid()) + ".onnx")).string();
  save(m, path);
  return path;
}

}  // namespace

TEST(ProfileDriver, AFailedProfiledRunKeepsTheEndToEndFiguresAndSaysWhy) {
  std::string model = relu_model();
  ProfileOptions o;
  o.model = model;
  ProfileRefusedBackend backend;
  Report r = run_profile(o, backend, nullptr, {});
  fs::remove(model);

  EXPECT_TRUE(r.failures.empty());
  ASSERT_EQ(r.runs.size(), 1u);
  const ProfileRun& run = r.runs[0];
  EXPECT_EQ(run.latency_ms.n, 3);
  EXPECT_DOUBLE_EQ(run.latency_ms.median, 2.5);
  EXPECT_TRUE(run.layers.empty());
  EXPECT_EQ(run.layers_error, "m.onnx: cannot parse ORT profile x.json");
  bool warned = false;
  for (const auto& w : run.warnings) warned |= w.find("no layer times") != std::string::npos;
  EXPECT_TRUE(warned);

  std::string text = report_to_json(r);
  EXPECT_NE(text.find("\"layers_error\""), std::string::npos);
  EXPECT_EQ(report_to_json(report_from_json(text)), text);
}

TEST(ProfileDriver, ReportsWithoutLayersErrorStillLoad) {
  Report r;
  r.backend = BackendInfo{"onnxruntime", "1.30.0", {}, "x"};
  r.runs.emplace_back();
  std::string text = report_to_json(r);
  EXPECT_EQ(text.find("\"layers_error\""), std::string::npos);  // written only when set
  Report back = report_from_json(text);
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_TRUE(back.runs[0].layers_error.empty());
  EXPECT_EQ(report_to_json(back), text);
}
