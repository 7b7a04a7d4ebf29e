// `rooflens profile` end to end on the real ONNX Runtime (runners/ort) with the project's zoo models.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/onnxruntime/ort_runner.h"
#include "core/errors.h"
#include "support/cli_runner.h"
#include "support/processes.h"
#include "support/mapping_checks.h"
#include "support/onnx_builder.h"
#include "support/ort_suite.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens;
using namespace rooflens::testing;

namespace {


class ProfileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-profile-test"));
    ok_ = ort_runner_available();
    if (!ok_) return;
    make("resnet50", {});
    make("mobilenet_v2", {});
    zoo::ZooOptions vit;
    vit.image = 64;  // 16 patches + class token: a real ViT-B/16 encoder that stays quick
    make("vit_b_16", vit);
    zoo::ZooOptions sq;
    sq.image = 64;
    make("squeezenet1_0", sq);
    sq.batch = 1;
    make("squeezenet1_0", sq, "squeezenet_fixed");
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  }
  static void make(const std::string& name, const zoo::ZooOptions& o, const std::string& file = "") {
    save_zoo_model(name, o, model(file.empty() ? name : file));
  }
  static std::string model(const std::string& name) { return (*dir_ / (name + ".onnx")).string(); }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static json read_json(const std::string& p) { return json::parse(slurp(p)); }

  static inline fs::path* dir_ = nullptr;
  static inline bool ok_ = false;
};

TEST_F(ProfileTest, EveryKernelMapsAndEveryNodeIsAccountedForAtEveryOptimizationLevel) {
  // The mapping is the profiled runner's: --layers-only leaves the measured runner out (its inference session and timed
  // runs are half of each profile's time and nothing here reads them).
  for (const std::string m : {"resnet50", "mobilenet_v2", "vit_b_16"}) {
    for (const std::string level : {"disabled", "basic", "extended", "all"}) {
      std::string report = path(m + "." + level + ".json");
      auto r = run_cli("profile " + model(m) + kQuickProfile + "--layers-only --no-roofs --opt-level " + level + " -o " +
                           report,
                       *dir_);
      ASSERT_EQ(r.rc, 0) << m << " " << level << ": " << r.err << r.out;
      json rep = read_json(report);
      ASSERT_EQ(rep["runs"].size(), 1u) << m << " at " << level;
      expect_mapping_invariants(rep, m + " at " + level);
      EXPECT_EQ(rep["backends"][0]["options"]["graphOptimizationLevel"], level);
      const json& run = rep["runs"][0];
      size_t n_nodes = rep["model"]["analysis"]["nodes"].size();
      // Fusion really happens above "disabled" (fewer kernels than nodes), and not at "disabled".
      if (level == "disabled") EXPECT_EQ(run["unowned"].size() + run["layers"].size(), n_nodes) << m;
      else EXPECT_LT(run["layers"].size(), n_nodes) << m << " " << level;
    }
  }
}

TEST_F(ProfileTest, FusedLayersOwnTheirOriginalNodes) {
  std::string report = path("resnet50.all.json");
  if (!fs::exists(report)) {
    auto r = run_cli("profile " + model("resnet50") + kQuickProfile + "--no-roofs --opt-level all -o " + report, *dir_);
    ASSERT_EQ(r.rc, 0) << r.err;
  }
  json rep = read_json(report);
  bool found = false;
  for (const auto& l : rep["runs"][0]["layers"]) {
    std::set<std::string> nodes;
    for (const auto& n : l["onnx_nodes"]) nodes.insert(n);
    if (!nodes.count("layer1.0.conv3/Conv")) continue;
    found = true;
    // NCHWc conv with BatchNorm folded in, the residual Add fused as "Sum" and the Relu as activation.
    EXPECT_EQ(nodes, (std::set<std::string>{"layer1.0.conv3/Conv", "layer1.0.bn3/BatchNormalization", "layer1.0/Add",
                                            "layer1.0.relu/Relu_4"}));
  }
  EXPECT_TRUE(found);
}

TEST_F(ProfileTest, CoverageOfLayerTimesIsCloseToTheProfiledLatency) {
  // One intra-op thread: with two on a 2-CPU machine, any other process preempts a worker in bursts, and the
  // per-kernel medians then drop below the per-run median (that case is warned about, not hidden).
  for (const std::string m : {"resnet50", "mobilenet_v2"}) {
    std::string report = path(m + ".coverage.json");
    auto r = run_cli("profile " + model(m) + " --threads 1 --duration 1 --profile-iterations 10 -q --no-roofs -o " +
                         report,
                     *dir_);
    ASSERT_EQ(r.rc, 0) << r.err;
    json run = read_json(report)["runs"][0];
    double coverage = run["coverage"];
    EXPECT_GE(coverage, 0.90) << m;
    EXPECT_LE(coverage, 1.05) << m;
    EXPECT_NE(r.out.find("coverage"), std::string::npos);
    EXPECT_GT(run["profiling_overhead"].get<double>(), 0.5);
    EXPECT_GT(run["peak_rss_bytes"].get<uint64_t>(), 50u << 20);  // a 100 MB model's inference session is resident
  }
}

TEST_F(ProfileTest, LayersArePlacedOnTheGivenRoofs) {
  // A datasheet so the test does not depend on measuring this machine.
  std::string roofs = path("roofs.json");
  std::ofstream(roofs) << R"({"source":"datasheet","compute":[{"name":"fp32_fma","isa":"avx512","dtype":"fp32",
    "threads":2,"gflops":100}],"memory":[{"level":"DRAM","kernel":"read","threads":2,"gbps":10}]})";
  std::string report = path("roofline.json");
  auto r = run_cli("profile " + model("squeezenet1_0") + kQuickProfile + "--roofs " + roofs + " -o " + report, *dir_);
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = read_json(report);
  EXPECT_EQ(rep["hardware"]["source"], "datasheet");
  int compute = 0, memory = 0;
  for (const auto& l : rep["runs"][0]["layers"]) {
    double time_s = l["time_ms"].get<double>() / 1000;
    if (time_s <= 0) continue;
    if (l.value("bytes_source", "") == "view") {  // a Flatten moves no data: no place on the roofline
      EXPECT_EQ(l["bound"], "") << l["name"];
      continue;
    }
    // The work the layer is placed by: its FLOPs without the MACs on convolution padding (docs/mapping.md).
    double flops = l["flops"].get<double>() - 2 * l.value("padding_macs", 0.0), bytes = l["bytes"].get<double>();
    double attainable = flops > 0 ? std::min(100.0, flops / bytes * 10) : 10;
    double achieved = flops > 0 ? flops / time_s / 1e9 : bytes / time_s / 1e9;
    EXPECT_NEAR(l["efficiency"].get<double>(), achieved / attainable, 1e-6 * achieved / attainable) << l["name"];
    std::string bound = l["bound"];
    (bound == "compute" ? compute : memory)++;
    EXPECT_EQ(bound, flops > 0 && flops / bytes * 10 >= 100 ? "compute" : "memory") << l["name"];
  }
  EXPECT_GT(compute, 0);  // SqueezeNet has convs above the ridge (10 FLOP/B) and pooling/concat below it
  EXPECT_GT(memory, 0);
}

TEST_F(ProfileTest, BatchRangeGivesOneRunPerPowerOfTwo) {
  std::string report = path("batches.json");
  auto r = run_cli("profile " + model("squeezenet1_0") + kQuickProfile + "--no-roofs --no-layers -b 1-8 -o " + report, *dir_);
  ASSERT_EQ(r.rc, 0) << r.err;
  json rep = read_json(report);
  ASSERT_EQ(rep["runs"].size(), 4u);
  std::vector<int64_t> batches;
  for (const auto& run : rep["runs"]) {
    batches.push_back(run["batch"]);
    EXPECT_EQ(run["dims"]["batch"], run["batch"]);
    EXPECT_GE(run["latency_ms"]["n"].get<int64_t>(), 3);
    EXPECT_TRUE(run["layers"].empty());  // --no-layers
    // FLOPs scale with the batch.
    EXPECT_EQ(run["flops"].get<uint64_t>(), rep["runs"][0]["flops"].get<uint64_t>() * run["batch"].get<uint64_t>());
  }
  EXPECT_EQ(batches, (std::vector<int64_t>{1, 2, 4, 8}));
}

TEST_F(ProfileTest, FixedBatchModelRefusesABatchRangeClearly) {
  auto r = run_cli("profile " + model("squeezenet_fixed") + kQuickProfile + "--no-roofs -b 1-8", *dir_);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("fixed batch of 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--shape"), std::string::npos) << r.err;
  EXPECT_EQ(r.err_lines(), 1) << r.err;
}

TEST_F(ProfileTest, SweepCombinesThreadsAndBatchAsAGrid) {
  std::string report = path("grid.json");
  auto r = run_cli("profile " + model("squeezenet1_0") + kQuickProfile + "--no-roofs --no-layers -b 1,2 --sweep threads=1,2 -o " +
                       report,
                   *dir_);
  ASSERT_EQ(r.rc, 0) << r.err;
  std::set<std::pair<int64_t, int64_t>> seen;
  json rep = read_json(report);
  for (const auto& run : rep["runs"]) seen.insert({run["batch"].get<int64_t>(), run["threads"].get<int64_t>()});
  EXPECT_EQ(seen, (std::set<std::pair<int64_t, int64_t>>{{1, 1}, {1, 2}, {2, 1}, {2, 2}}));
}

TEST_F(ProfileTest, TokenIdsStayInsideTheEmbeddingTable) {
  // ids -> Gather(embedding[50, 4]): generated ids in the default [0, 100) would make ORT fail the run.
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "ids", {-1, 16}, {"batch", ""}, onnx::TensorProto::INT64);
  add_float_initializer(g, "emb", {50, 4});
  add_node(g, "Gather", {"emb", "ids"}, {"y"}, "embed");
  add_value(g->mutable_output(), "y", {-1, 16, 4}, {"batch", "", ""});
  save(m, path("embed.onnx"));
  std::string report = path("embed.json");
  auto r = run_cli("profile " + path("embed.onnx") + kQuickProfile + "--no-roofs -o " + report, *dir_);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_EQ(read_json(report)["runs"].size(), 1u);
}

TEST_F(ProfileTest, NodeNamesWithQuotesAndBackslashesKeepTheirLayers) {
  // ORT writes node names into its profile unescaped (invalid JSON); the runner repairs the file, so the layers
  // survive and carry the names exactly.
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 16});
  add_node(g, "Relu", {"x"}, {"y"}, "relu \"quoted\", \\ back");
  add_node(g, "Sigmoid", {"y"}, {"z"}, "sig\"");
  add_value(g->mutable_output(), "z", {1, 16});
  save(m, path("quotes.onnx"));
  std::string report = path("quotes.json");
  auto r = run_cli("profile " + path("quotes.onnx") + kQuickProfile + "--no-roofs -o " + report, *dir_);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  json rep = read_json(report);
  ASSERT_EQ(rep["runs"].size(), 1u);
  std::set<std::string> names;
  for (const auto& l : rep["runs"][0]["layers"]) names.insert(l["name"].get<std::string>());
  EXPECT_TRUE(names.count("relu \"quoted\", \\ back")) << rep["runs"][0]["layers"].dump();
  EXPECT_TRUE(names.count("sig\"")) << rep["runs"][0]["layers"].dump();
  EXPECT_EQ(rep["runs"][0]["unmapped_kernels"], 0);
}

TEST_F(ProfileTest, ModelOrtRefusesIsAFailureCarryingOrtsMessage) {
  // rooflens can analyze it (cost unknown), ORT has no kernel for the op.
  auto m = empty_model(17);
  auto* op = m.add_opset_import();
  op->set_domain("com.example");
  op->set_version(1);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 4});
  add_node(g, "Frobnicate", {"x"}, {"y"}, "frob", "com.example");
  add_value(g->mutable_output(), "y", {1, 4});
  save(m, path("refused.onnx"));
  std::string report = path("refused.json");
  auto r = run_cli("profile " + path("refused.onnx") + kQuickProfile + "--no-roofs -o " + report, *dir_);
  EXPECT_EQ(r.rc, 1);
  json rep = read_json(report);
  ASSERT_EQ(rep["failures"].size(), 1u);
  EXPECT_EQ(rep["failures"][0]["stage"], "load");
  // Named as a run of this configuration would be (fixed batch 1, kQuickProfile's 2 threads), not as requested (0, 0).
  EXPECT_EQ(rep["failures"][0]["batch"], 1);
  EXPECT_EQ(rep["failures"][0]["threads"], 2);
  std::string msg = rep["failures"][0]["message"];
  EXPECT_NE(msg.find("Frobnicate"), std::string::npos) << msg;  // ORT's own text names the op
  EXPECT_NE(r.out.find("failures:"), std::string::npos);
  EXPECT_NE(r.out.find("Frobnicate"), std::string::npos);
}

TEST_F(ProfileTest, TimeoutIsRecordedPerConfigurationAndTheRunGoesOn) {
  // 100 ms is too short to load ResNet-50 (100 MB): both batch sizes time out, each recorded, none aborts the run.
  std::string report = path("timeout.json");
  auto r = run_cli("profile " + model("resnet50") + kQuickProfile + "--no-roofs --timeout 0.1 -b 1,2 -o " + report, *dir_);
  EXPECT_EQ(r.rc, 1);
  json rep = read_json(report);
  ASSERT_EQ(rep["failures"].size(), 2u) << rep["failures"].dump();
  int64_t batch = 1;
  for (const auto& f : rep["failures"]) {
    EXPECT_EQ(f["kind"], "timeout");
    EXPECT_EQ(f["stage"], "load");
    EXPECT_EQ(f["batch"], batch);
    EXPECT_EQ(f["dims"]["batch"], batch);  // the dims the inference session would have run at
    batch *= 2;
  }
  EXPECT_TRUE(rep["runs"].empty());
}

// --- background runs: a killed runner, Ctrl-C, two runs at once ---------------------------------------------


std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

TEST_F(ProfileTest, KilledRunnerIsRecordedAndTheOtherBatchesContinue) {
  std::string report = path("killed.json");
  auto args = split_args("profile " + model("squeezenet1_0") + " --no-roofs --no-layers -q --warmup-ms 0 " +
                         "--duration 3 -b 1,2 -o " + report);
  pid_t pid = spawn_rooflens(args, path("killed.out"), path("killed.err"));
  // The first runner that has been up for a moment (past its hello) is mid-measurement: kill it.
  // (rooflens first starts a short-lived probe runner for the versions; the measuring one follows it.)
  ASSERT_TRUE(wait_for([&] { return !children_of(pid).empty(); }, std::chrono::seconds(60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  auto kids = children_of(pid);
  ASSERT_EQ(kids.size(), 1u);
  ::kill(kids.front(), SIGKILL);
  int rc = wait_exit(pid);
  EXPECT_EQ(rc, 1) << slurp(path("killed.err"));
  json rep = read_json(report);
  ASSERT_EQ(rep["failures"].size(), 1u) << rep.dump();
  EXPECT_EQ(rep["failures"][0]["kind"], "died");
  EXPECT_EQ(rep["failures"][0]["batch"], 1);
  ASSERT_EQ(rep["runs"].size(), 1u);
  EXPECT_EQ(rep["runs"][0]["batch"], 2);
}

TEST_F(ProfileTest, CtrlCLeavesAValidPartialReport) {
  std::string report = path("interrupted.json");
  auto args = split_args("profile " + model("squeezenet1_0") + " --no-roofs --no-layers -q --warmup-ms 0 " +
                         "--duration 2 -b 1,2,4,8 -o " + report);
  pid_t pid = spawn_rooflens(args, path("int.out"), path("int.err"));
  // After the first configuration is on disk, interrupt the second.
  ASSERT_TRUE(wait_for([&] { return fs::exists(report); }, std::chrono::seconds(60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGINT);
  int rc = wait_exit(pid);
  EXPECT_EQ(rc, 1);
  json rep = read_json(report);  // parses: the file was replaced atomically
  EXPECT_TRUE(rep["partial"].get<bool>());
  EXPECT_GE(rep["runs"].size(), 1u);
  EXPECT_LT(rep["runs"].size(), 4u);
  ASSERT_FALSE(rep["failures"].empty());
  EXPECT_EQ(rep["failures"].back()["kind"], "interrupted");
  EXPECT_TRUE(children_of(pid).empty());
}

// --repeat 3 over two configurations: each timed three times, round-robin (both have a run before either has
// its second), the samples partitioned per run, the profiled run once.
TEST_F(ProfileTest, RepeatTimesEachConfigurationRoundRobin) {
  std::string report = path("repeat.json");
  auto args = split_args("profile " + model("squeezenet1_0") + " --no-roofs -q --warmup-ms 0 --duration 0 " +
                         "--iterations 5 --profile-iterations 3 --sweep threads=1,2 --repeat 3 -o " + report);
  pid_t pid = spawn_rooflens(args, path("repeat.out"), path("repeat.err"));
  // The report is rewritten after every run: when the second configuration first appears, the first one has
  // fewer than its three runs (run one after the other, it would have all three).
  json first_seen;
  wait_for(
      [&] {
        if (!fs::exists(report)) return false;
        json rep = json::parse(slurp(report), nullptr, false);
        if (rep.is_discarded() || rep["runs"].size() < 2) return false;
        first_seen = rep;
        return true;
      },
      std::chrono::seconds(120));
  EXPECT_EQ(wait_exit(pid), 0) << slurp(path("repeat.err"));
  ASSERT_FALSE(first_seen.is_null());
  EXPECT_LT(first_seen["runs"][0]["repetitions"].size(), 3u) << first_seen["runs"][0]["repetitions"];

  json rep = read_json(report);
  ASSERT_EQ(rep["runs"].size(), 2u);
  for (const auto& run : rep["runs"]) {
    ASSERT_EQ(run["repetitions"].size(), 3u) << run["threads"];
    size_t sum = 0;
    for (const auto& n : run["repetitions"]) {
      EXPECT_GE(n.get<size_t>(), 5u);
      sum += n.get<size_t>();
    }
    EXPECT_EQ(sum, run["latencies_ms"].size());
    EXPECT_EQ(run["latency_ms"]["n"].get<size_t>(), sum);
    EXPECT_FALSE(run["layers"].empty());                        // one profiled run, in the first runner
    EXPECT_EQ(run["profiled_latency_ms"]["n"].get<int64_t>(), 3);
  }
  std::string summary = slurp(path("repeat.out"));
  EXPECT_NE(summary.find("run medians ms"), std::string::npos) << summary;
}

// Ctrl-C between runs of --repeat: the runs that finished stand (no failure recorded), the report is partial.
TEST_F(ProfileTest, CtrlCDuringRepeatKeepsTheFinishedRuns) {
  std::string report = path("repeat-int.json");
  auto args = split_args("profile " + model("squeezenet1_0") + " --no-roofs --no-layers -q --warmup-ms 0 " +
                         "--duration 0 --iterations 3 --repeat 50 -o " + report);
  pid_t pid = spawn_rooflens(args, path("repeat-int.out"), path("repeat-int.err"));
  ASSERT_TRUE(wait_for(
      [&] {
        json rep = fs::exists(report) ? json::parse(slurp(report), nullptr, false) : json();
        return rep.is_object() && !rep["runs"].empty() && rep["runs"][0]["repetitions"].size() >= 2;
      },
      std::chrono::seconds(120)));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 1);
  json rep = read_json(report);
  EXPECT_TRUE(rep["partial"].get<bool>());
  EXPECT_TRUE(rep["failures"].empty()) << rep["failures"];
  ASSERT_EQ(rep["runs"].size(), 1u);
  size_t runs = rep["runs"][0]["repetitions"].size();
  EXPECT_GE(runs, 2u);
  EXPECT_LT(runs, 50u);
  std::string warnings = rep["runs"][0]["warnings"].dump();
  EXPECT_NE(warnings.find("interrupted: " + std::to_string(runs) + " of 50 runs done"), std::string::npos) << warnings;
  EXPECT_TRUE(children_of(pid).empty());
}

// A later run of --repeat that dies: recorded as that configuration's failure ("run 2 of 3: ..."), the finished
// run stays in the report, and compare calls the configuration a new failure against a report where it passed.
TEST_F(ProfileTest, ARunnerKilledInALaterRunFailsTheConfiguration) {
  std::string report = path("repeat-killed.json");
  auto args = split_args("profile " + model("squeezenet1_0") + " --no-roofs --no-layers -q --warmup-ms 0 " +
                         "--duration 2 --repeat 3 -b 1 -o " + report);
  pid_t pid = spawn_rooflens(args, path("repeat-killed.out"), path("repeat-killed.err"));
  // The first run is on disk; the second run's runner has been measuring for a moment: kill it.
  ASSERT_TRUE(wait_for([&] { return fs::exists(report); }, std::chrono::seconds(60)));
  ASSERT_TRUE(wait_for([&] { return !children_of(pid).empty(); }, std::chrono::seconds(60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  auto kids = children_of(pid);
  ASSERT_EQ(kids.size(), 1u);
  ::kill(kids.front(), SIGKILL);
  EXPECT_EQ(wait_exit(pid), 1) << slurp(path("repeat-killed.err"));
  json rep = read_json(report);
  ASSERT_EQ(rep["failures"].size(), 1u) << rep["failures"];
  const json& f = rep["failures"][0];
  EXPECT_EQ(f["kind"], "died");
  EXPECT_EQ(f["message"].get<std::string>().rfind("run 2 of 3: ", 0), 0u) << f["message"];
  ASSERT_EQ(rep["runs"].size(), 1u);
  EXPECT_EQ(rep["runs"][0]["repetitions"].size(), 1u);  // the run that finished stays
  EXPECT_EQ(f["batch"], rep["runs"][0]["batch"]);
  EXPECT_EQ(f["threads"], rep["runs"][0]["threads"]);
  EXPECT_FALSE(rep["partial"].get<bool>());

  std::string passing = path("repeat-passing.json");
  auto ok = run_cli("profile " + model("squeezenet1_0") + kQuickProfile + "--no-roofs --no-layers -b 1 -o " + passing, *dir_);
  ASSERT_EQ(ok.rc, 0) << ok.err;
  auto cmp = run_cli("compare " + passing + " " + report + " --json --fail-on-regression", *dir_);
  EXPECT_EQ(cmp.rc, 1);
  json it = json::parse(cmp.out)["items"];
  ASSERT_EQ(it.size(), 1u) << cmp.out;
  EXPECT_EQ(it[0]["verdict"], "new failure");
  EXPECT_EQ(it[0]["new_status"], "crash");
}

TEST_F(ProfileTest, TwoRunsAtOnceInOneDirectoryDoNotInterfere) {
  std::string a = path("twin-a.json"), b = path("twin-b.json");
  auto common = "profile " + model("squeezenet1_0") + kQuickProfile + "--no-roofs -o ";
  std::string tmp = path("shared-tmp");  // one TMPDIR for both: their private dirs must not collide
  fs::create_directories(tmp);
  pid_t pa = spawn_rooflens(split_args(common + a), path("a.out"), path("a.err"), tmp);
  pid_t pb = spawn_rooflens(split_args(common + b), path("b.out"), path("b.err"), tmp);
  EXPECT_EQ(wait_exit(pa), 0) << slurp(path("a.err"));
  EXPECT_EQ(wait_exit(pb), 0) << slurp(path("b.err"));
  for (const auto& p : {a, b}) {
    json rep = read_json(p);
    ASSERT_EQ(rep["runs"].size(), 1u);
    EXPECT_FALSE(rep["runs"][0]["layers"].empty());
    EXPECT_EQ(rep["runs"][0]["unmapped_kernels"], 0);
  }
  // Both cleaned up their private directories (optimized graphs, ORT profiles), and their runners left nothing
  // else either (ONNX Runtime's telemetry, on by default, writes mat-debug-PID.log and .ses there).
  for (const auto& e : fs::directory_iterator(tmp)) ADD_FAILURE() << "left in TMPDIR: " << e.path().filename();
}

}  // namespace
