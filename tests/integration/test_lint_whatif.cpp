// rooflens lint and whatif end to end on real ONNX Runtime runs of zoo models: ResNet-50 without graph
// optimizations has unfused memory-bound chains (and with them, none); the Q/DQ variant of ResNet-18 keeps Q/DQ
// pairs and fp32 islands; whatif projects a real report onto per-thread roofs, a datasheet device and a batch.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens::testing;

namespace {

// Ceilings at 1 and 2 threads so the test does not measure this machine (rooflens hw); labelled as measured
// elsewhere, which is what a --roofs file from another machine is.
const char* kRoofs = R"({"source":"measured","machine":{"model":"test","cores":2,"threads":2,
  "caches":[{"level":"L1d","size_bytes":49152,"instances":2,"cores_sharing":1},
            {"level":"L2","size_bytes":2097152,"instances":2,"cores_sharing":1}]},
  "compute":[{"name":"fp32_fma","isa":"avx512","dtype":"fp32","threads":1,"gflops":190},
             {"name":"fp32_fma","isa":"avx512","dtype":"fp32","threads":2,"gflops":370}],
  "memory":[{"level":"L1","kernel":"read","threads":1,"gbps":380},{"level":"L1","kernel":"read","threads":2,"gbps":630},
            {"level":"L2","kernel":"read","threads":1,"gbps":150},{"level":"L2","kernel":"read","threads":2,"gbps":280},
            {"level":"DRAM","kernel":"read","threads":1,"gbps":16},{"level":"DRAM","kernel":"read","threads":2,"gbps":33}]})";

class LintWhatIfTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-lint-test"));
    ok_ = ort_runner_available();
    std::ofstream(path("roofs.json")) << kRoofs;
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static CliResult cli(const std::string& args) { return run_cli(args, dir_->string()); }
  static json read_json(const std::string& p) { return json::parse(slurp(p)); }
  static std::set<std::string> rules_of(const json& report) {
    std::set<std::string> rules;
    for (const auto& f : report["findings"]) rules.insert(f["rule"].get<std::string>());
    return rules;
  }
  // ResNet-50 (64x64 input: the same 175 nodes, a quicker run) profiled at one optimization level.
  static json resnet50_at(const std::string& level) {
    std::string onnx = path("resnet50.onnx"), report = path("resnet50-" + level + ".json");
    if (!fs::exists(onnx)) {
      EXPECT_EQ(cli("zoo make resnet50 --image 64 -o " + onnx).rc, 0);
    }
    auto r = cli("profile " + onnx + kQuickProfile + "--roofs " + path("roofs.json") +
                 " -B onnxruntime:graphOptimizationLevel=" + level + " -o " + report);
    EXPECT_EQ(r.rc, 0) << r.err;
    return read_json(report);
  }

  static inline fs::path* dir_ = nullptr;
  static inline bool ok_ = false;
};

TEST_F(LintWhatIfTest, ResNet50WithoutGraphOptimizationsHasUnfusedChains) {
  json off = resnet50_at("disabled");
  ASSERT_TRUE(rules_of(off).count("unfused-chain")) << off["findings"].dump(1);
  for (const auto& f : off["findings"]) {
    if (f["rule"] != "unfused-chain") continue;
    std::set<std::string> ops;
    for (const auto& l : off["runs"][0]["layers"])
      for (const auto& name : f["layers"])
        if (l["name"] == name) ops.insert(l["op"].get<std::string>());
    // The chains are what ORT fuses into the convolutions at level all: normalization, activation, residual adds.
    EXPECT_TRUE(ops.count("BatchNormalization") && ops.count("Relu") && ops.count("Add")) << f.dump(1);
    EXPECT_FALSE(ops.count("Conv")) << "convolutions do not fuse into each other";
  }
  // Every layer says what it is, where it ran and its dtypes (the producer's classification).
  for (const auto& l : off["runs"][0]["layers"]) {
    EXPECT_EQ(l["device"], "cpu");
    EXPECT_FALSE(l["input_dtypes"].empty());
  }
  // With ORT's fusions on, the chains are gone.
  json on = resnet50_at("all");
  EXPECT_FALSE(rules_of(on).count("unfused-chain")) << on["findings"].dump(1);

  // The lint command reads the report: JSON, Markdown, and --fail-on for CI.
  std::string report = path("resnet50-disabled.json");
  auto j = cli("lint " + report + " --format json --rule unfused-chain");
  ASSERT_EQ(j.rc, 0) << j.err;
  json listed = json::parse(j.out);
  ASSERT_EQ(listed["findings"].size(), 1u);
  EXPECT_FALSE(listed["findings"][0]["mitigation"].get<std::string>().empty());
  auto md = cli("lint " + report + " --format md");
  EXPECT_NE(md.out.find("`unfused-chain`"), std::string::npos) << md.out;
  auto strict = cli("lint " + report + " --rule unfused-chain --fail-on warning");
  std::string severity = listed["findings"][0]["severity"];
  EXPECT_EQ(strict.rc, severity == "info" ? 0 : 1) << severity;
  EXPECT_EQ(cli("lint " + report + " --rule no-such-rule").rc, 2);
  EXPECT_EQ(cli("lint " + path("missing.json")).rc, 1);
}

TEST_F(LintWhatIfTest, QdqZooVariantKeepsQdqPairsAndFp32Islands) {
  std::string onnx = path("resnet18-qdq.onnx"), report = path("resnet18-qdq.json");
  auto made = cli("zoo make resnet18 --image 64 --quantize qdq -o " + onnx);
  ASSERT_EQ(made.rc, 0) << made.err;
  EXPECT_NE(made.out.find("QuantizeLinear"), std::string::npos);
  auto r = cli("profile " + onnx + kQuickProfile + "--roofs " + path("roofs.json") + " -o " + report);
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = read_json(report);
  std::set<std::string> rules = rules_of(rep);
  EXPECT_TRUE(rules.count("unfused-qdq")) << rep["findings"].dump(1);
  EXPECT_TRUE(rules.count("fp32-island")) << rep["findings"].dump(1);
  // ORT fused the Conv/Gemm pairs into integer kernels: the layers report 8-bit inputs.
  bool integer_kernel = false;
  for (const auto& l : rep["runs"][0]["layers"])
    if (l["op"] == "QLinearConv") integer_kernel = l["input_dtypes"][0] == "uint8";
  EXPECT_TRUE(integer_kernel);
  for (const auto& f : rep["findings"])
    if (f["rule"] == "fp32-island") {
      EXPECT_NE(f["title"].get<std::string>().find("int8 model"), std::string::npos);
    }
  EXPECT_NE(r.out.find("unfused-qdq"), std::string::npos) << "the summary's findings section";
}

TEST_F(LintWhatIfTest, WhatIfProjectsARealReport) {
  std::string onnx = path("resnet50.onnx"), report = path("resnet50-t1.json");
  if (!fs::exists(onnx)) {
    ASSERT_EQ(cli("zoo make resnet50 --image 64 -o " + onnx).rc, 0);
  }
  auto p = cli("profile " + onnx + " --threads 1 --warmup-ms 0 --duration 0 --iterations 3 --profile-iterations 3 -q "
               "--roofs " + path("roofs.json") + " -o " + report);
  ASSERT_EQ(p.rc, 0) << p.err;
  json measured = read_json(report)["runs"][0];

  auto t = cli("whatif " + report + " --threads 2 --format json");
  ASSERT_EQ(t.rc, 0) << t.err;
  json proj = json::parse(t.out);
  ASSERT_EQ(proj["runs"].size(), 1u);
  const json& run = proj["runs"][0];
  EXPECT_EQ(run["layers"].size(), measured["layers"].size());
  EXPECT_GT(run["projected_ms"].get<double>(), 0);
  // Twice the compute peak and more bandwidth at 2 threads: every layer faster; a layer compute-bound on both sides
  // by exactly the peaks' ratio (370 / 190), one that now fits the 2 cores' L2 by up to 280 / 16. The e2e projection
  // is a weighted mean of the layers' (and the kept gap's): faster, never more than the fastest layer.
  double fastest = 0;
  for (size_t i = 0; i < run["layers"].size(); ++i) {
    const json& pl = run["layers"][i];
    double ms = measured["layers"][i]["time_ms"].get<double>(), ratio = ms / pl["time_ms"].get<double>();
    if (ms <= 0) continue;
    fastest = std::max(fastest, ratio);
    EXPECT_GE(ratio, 1.0 - 1e-9) << pl["name"];
    if (pl["bound"] == "compute" && !pl["bound_changed"].get<bool>()) {
      EXPECT_NEAR(ratio, 370.0 / 190.0, 1e-6) << pl["name"];
    }
  }
  double speedup = run["measured_ms"].get<double>() / run["projected_ms"].get<double>();
  EXPECT_GT(speedup, 1.0);
  EXPECT_LE(speedup, fastest + 1e-9);
  EXPECT_GE(proj["assumptions"].size(), 3u);

  auto text = cli("whatif " + report + " --device a100 --quantize fp16");
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("DATASHEET"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("projected"), std::string::npos);

  std::string html = path("projected.html"), out = path("projected.json");
  auto b = cli("whatif " + report + " --batch 8 --html " + html + " -o " + out);
  EXPECT_EQ(b.rc, 0) << b.err;
  EXPECT_NE(slurp(html).find("\"whatif\""), std::string::npos);
  json withp = read_json(out);
  EXPECT_EQ(withp["whatif"]["modes"], json::array({"batch"}));
  EXPECT_EQ(cli("report " + out + " -o " + path("again.html") + " -q").rc, 0);  // the projection reads back

  EXPECT_EQ(cli("whatif " + report).rc, 2);                        // nothing to project
  EXPECT_EQ(cli("whatif " + report + " --threads 4").rc, 1);       // no 4-thread roofs: say so, do not guess
  EXPECT_EQ(cli("whatif " + report + " --device no-such-gpu").rc, 1);
  auto devices = cli("whatif --list-devices");
  EXPECT_NE(devices.out.find("h100-sxm5-80gb"), std::string::npos);
  auto hw = cli("hw --device t4");
  EXPECT_NE(hw.out.find("datasheet"), std::string::npos) << hw.out;
  EXPECT_NE(hw.out.find("NOT measured"), std::string::npos);
  // -o FILE and --json are both honoured, in either order: the JSON on stdout and in FILE.
  for (const std::string order : {"json-first", "json-last"}) {
    const std::string file = path("t4-" + order + ".json");
    const std::string flags = order == "json-first" ? " --json -o " + file : " -o " + file + " --json";
    auto both = cli("hw --device t4" + flags);
    ASSERT_EQ(both.rc, 0) << flags << both.err;
    EXPECT_EQ(json::parse(both.out)["hardware"]["source"], "datasheet") << flags;
    EXPECT_EQ(read_json(file)["hardware"]["source"], "datasheet") << flags;
  }
}

}  // namespace
