// `rooflens import` through the real binary: the project's trtexec MobileNet QAT set (the figures TREx's report
// card shows), TensorRT layer names of a real model mapped to its ONNX nodes with FLOPs from rooflens' analysis,
// compare of a live ORT-CPU profile with an imported TensorRT one matched by ONNX node, an ORT CUDA-EP profile's
// provider shares and CPU fallback, and a malformed file per format as one line and exit 1.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/onnxruntime/ort_runner.h"
#include "support/cli_runner.h"
#include "support/ort_suite.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace rooflens;
using namespace rooflens::testing;

namespace {

std::string fixture(const std::string& rel) { return std::string(ROOFLENS_SOURCE_DIR) + "/tests/fixtures/import/" + rel; }

std::string mobilenet_qat_files() {
  std::string s;
  for (const char* f : {"graph.json", "profile.json", "timing.json", "profile.metadata.json", "build.metadata.json"})
    s += " " + shell_quote(fixture(std::string("trtexec/mobilenet_qat/mobilenet_qat.engine.") + f));
  return s;
}

// TensorRT-style layers for a model's nodes, as TensorRT names them: a convolution fuses the BatchNormalization,
// residual Add and activation after it ("conv + bn + PWN(relu)"); a reformatter before the pooling; the tail from
// the pooling to the classifier as one Myelin region; and one internal layer that names no node.
struct TrtLayer {
  std::string name;
  std::set<std::string> nodes;  // what the layer should map to
};

std::vector<TrtLayer> trt_layers_for(const json& nodes) {
  std::vector<TrtLayer> out;
  size_t i = 0;
  std::vector<std::string> names, ops;
  for (const auto& n : nodes)
    if (n["graph"] == "main") names.push_back(n["name"]), ops.push_back(n["op"]);
  size_t pool = std::find(ops.begin(), ops.end(), "GlobalAveragePool") - ops.begin();
  while (i < pool) {
    TrtLayer l;
    std::string name = names[i];
    l.nodes.insert(names[i]);
    size_t j = i + 1;
    if (ops[i] == "Conv")
      while (j < pool && (ops[j] == "BatchNormalization" || ops[j] == "Add" || ops[j] == "Clip" || ops[j] == "Relu")) {
        name += (ops[j] == "Clip" || ops[j] == "Relu") ? " + PWN(" + names[j] + ")" : " + " + names[j];
        l.nodes.insert(names[j]);
        ++j;
      }
    l.name = name;
    out.push_back(l);
    i = j;
  }
  out.push_back({"Reformatting CopyNode for Input Tensor 0 to " + names[pool], {}});
  out.push_back({"(Unnamed Layer* 901) [Shuffle]", {}});
  TrtLayer tail{"{ForeignNode[" + names[pool] + "..." + names.back() + "]}", {}};
  for (size_t k = pool; k < names.size(); ++k) tail.nodes.insert(names[k]);
  out.push_back(tail);
  return out;
}

// trtexec's --exportProfile for `layers`, each taking `times_ms` (default: 10-16 µs, slower than any roof of the
// A100 allows MobileNetV2's layers at 64 px).
void write_profile(const std::vector<TrtLayer>& layers, const std::string& path,
                   const std::vector<double>& times_ms = {}) {
  std::ofstream f(path);
  f << "[\n  { \"count\" : 500 }\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    double avg = i < times_ms.size() ? times_ms[i] : 0.010 + 0.001 * static_cast<double>(i % 7);
    f << ", " << json{{"name", layers[i].name}, {"timeMs", avg * 500}, {"averageMs", avg}, {"medianMs", avg},
                      {"percentage", 1.0}}.dump()
      << "\n";
  }
  f << "]\n";
}

class ImportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fresh_test_dir("rooflens-import-test"));
    zoo::ZooOptions mb;
    mb.image = 64;
    save_zoo_model("mobilenet_v2", mb, path("mobilenet_v2.onnx"));
    run_cli("analyze " + path("mobilenet_v2.onnx") + " --format json -o " + path("analysis.json"), *dir_);
    json analysis = json::parse(slurp(path("analysis.json")));
    layers_ = new std::vector<TrtLayer>(trt_layers_for(analysis["model"]["analysis"]["nodes"]));
    write_profile(*layers_, path("mobilenet_v2.engine.profile.json"));
    ort_ = ort_runner_available();
    if (ort_)
      ort_log_ = run_cli("profile " + path("mobilenet_v2.onnx") + kQuickProfile + "--no-roofs -o " + path("ort.json"), *dir_).err;
  }
  static void TearDownTestSuite() {
    if (!getenv("KEEP")) fs::remove_all(*dir_);
    delete dir_;
    delete layers_;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static CliResult cli(const std::string& args) { return run_cli(args, *dir_); }

  static inline fs::path* dir_ = nullptr;
  static inline std::vector<TrtLayer>* layers_ = nullptr;
  static inline bool ort_ = false;
  static inline std::string ort_log_;
};

TEST_F(ImportTest, MobileNetQatSetWithViewsOnIt) {
  auto r = cli("import auto" + mobilenet_qat_files() + " -o " + path("trt.json") + " --html " + path("trt.html"));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("layers   80, total"), std::string::npos) << r.out;  // TREx's 78, a Constant and a NoOp
  EXPECT_NE(r.out.find("; 2 at 0 ms\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("TREx's report card counts 78)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Σ mean 0.342 ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory   weights 3.47MB, activations 17.61MB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inserted 5 reformat layer(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("roofs datasheet: NVIDIA A100 SXM4 80GB (the device the files name"), std::string::npos) << r.err;
  json rep = json::parse(slurp(path("trt.json")));
  EXPECT_EQ(rep["tool"]["command"], "import");
  EXPECT_EQ(rep["hardware"]["source"], "datasheet");
  EXPECT_EQ(rep["backends"][0]["name"], "tensorrt");
  EXPECT_EQ(rep["runs"][0]["layers"].size(), 80u);
  EXPECT_DOUBLE_EQ(rep["runs"][0]["latency_ms"]["median"].get<double>(), 0.452);
  // Every layer with a cost and a time sits on the datasheet roofline (the A100's memory roof: MobileNet's
  // layers are far below its int8 ridge point of 624 TOPS / 2039 GB/s = 306 ops/byte).
  for (const auto& l : rep["runs"][0]["layers"])
    if (l["bytes"].get<uint64_t>() > 0 && l["time_ms"].get<double>() > 0) {
      EXPECT_NE(l["bound"], "") << l["name"];
    }
  auto top = cli("top " + path("trt.json") + " --aggregate-by type --top 3");
  EXPECT_EQ(top.rc, 0) << top.err;
  EXPECT_NE(top.out.find("Convolution"), std::string::npos) << top.out;
  auto csv = cli("export " + path("trt.json") + " --to csv");
  ASSERT_EQ(csv.rc, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 81);  // header + 80 layers (a Constant, a NoOp at 0 ms)
  auto html = cli("report " + path("trt.json") + " -o " + path("trt2.html"));
  ASSERT_EQ(html.rc, 0) << html.err;
  EXPECT_NE(slurp(path("trt2.html")).find("\"source\":\"datasheet\""), std::string::npos);
  auto dev = cli("import trtexec" + mobilenet_qat_files() + " --device t4 -q --json");
  ASSERT_EQ(dev.rc, 0) << dev.err;
  EXPECT_EQ(json::parse(dev.out)["hardware"]["machine"]["model"], "NVIDIA T4");
}

TEST_F(ImportTest, TensorRTNamesMapToTheModelsNodes) {
  auto r = cli("import trtexec " + path("mobilenet_v2.engine.profile.json") + " --model " + path("mobilenet_v2.onnx") +
               " --device a100 -o " + path("trt_model.json"));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("unmapped: 1 layer(s) name no ONNX node"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(Unnamed Layer* 901) [Shuffle]"), std::string::npos) << r.out;
  json rep = json::parse(slurp(path("trt_model.json")));
  std::map<std::string, uint64_t> node_flops;
  for (const auto& n : rep["model"]["analysis"]["nodes"]) node_flops[n["name"]] = n["flops"];
  const json& layers = rep["runs"][0]["layers"];
  ASSERT_EQ(layers.size(), layers_->size());
  uint64_t mapped_flops = 0, covered_flops = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const json& l = layers[i];
    const TrtLayer& want = (*layers_)[i];
    std::set<std::string> got(l["onnx_nodes"].begin(), l["onnx_nodes"].end());
    if (l["alias"].get<bool>()) {
      EXPECT_TRUE(want.nodes.empty()) << l["name"];
      continue;
    }
    EXPECT_EQ(got, want.nodes) << l["name"];
    mapped_flops += l["flops"].get<uint64_t>();
    for (const auto& n : got) covered_flops += node_flops.at(n);
  }
  EXPECT_GT(mapped_flops, 0u);
  EXPECT_EQ(mapped_flops, covered_flops);
  // Every FLOP of the model is in some layer: only weightless nodes TensorRT folds are left unowned.
  EXPECT_EQ(mapped_flops, rep["model"]["analysis"]["totals"]["flops"].get<uint64_t>());
  EXPECT_EQ(rep["runs"][0]["unmapped_kernels"], 1);
}

// The physics check on imported times, where it can fail: the TensorRT layers of MobileNetV2 on the A100's
// datasheet roofs, each timed at a chosen multiple of the rate its roof allows (computed here from the datasheet's
// fp32 peak and memory bandwidth and the work and bytes rooflens charges the layer). Layers timed at twice their
// roof are attribution errors, off the roofline; a layer 5% above its roof is within the tolerance; the others sit
// at the bound the datasheet gives their intensity, at the efficiency they were timed for.
TEST_F(ImportTest, LayersFasterThanTheirRoofAreAttributionErrorsAndTheRestSitAtTheirBound) {
  const std::string profile = path("timed.engine.profile.json");
  const std::string import = "import trtexec " + profile + " --model " + path("mobilenet_v2.onnx") +
                             " --device a100 -q --no-db -o ";
  // The work and bytes each layer is charged: the model's, whatever the times.
  write_profile(*layers_, profile);
  auto first = cli(import + path("charged.json"));
  ASSERT_EQ(first.rc, 0) << first.err;
  const json charged = json::parse(slurp(path("charged.json")));
  double peak = 0, bandwidth = 0;  // fp32 GFLOP/s (the layers name no precision), device memory GB/s
  for (const auto& c : charged["hardware"]["compute"])
    if (c["dtype"] == "fp32") peak = std::max(peak, c["gflops"].get<double>());
  for (const auto& m : charged["hardware"]["memory"])
    if (m["level"] == "DRAM") bandwidth = m["gbps"];
  ASSERT_GT(peak, 0);
  ASSERT_GT(bandwidth, 0);

  struct Expected {
    double ratio = 0;  // achieved / attainable, as timed
    std::string bound, roof;
  };
  const json& layers = charged["runs"][0]["layers"];
  ASSERT_EQ(layers.size(), layers_->size());
  std::vector<double> times_ms;
  std::map<std::string, Expected> want;
  std::map<std::string, size_t> seen;  // per bound: every third layer twice as fast as its roof, one at 1.05x
  for (const auto& l : layers) {
    const double bytes = l["bytes"].get<double>();
    const double work = l["flops"].get<double>() - 2 * l.value("padding_macs", 0.0);
    if (bytes <= 0) {
      times_ms.push_back(0.01);
      continue;
    }
    Expected e;
    const bool compute = work > 0 && work / bytes * bandwidth >= peak;
    e.bound = compute ? "compute" : "memory";
    e.roof = compute ? "fp32 x1" : "DRAM datasheet x1";
    const size_t i = seen[e.bound]++;
    e.ratio = i % 3 == 1 ? 2.0 : i == 3 ? 1.05 : 0.5;
    // Seconds = work / attainable rate (GFLOP/s: the lower of the peak and intensity x bandwidth), or bytes / GB/s.
    const double seconds = work > 0 ? work / 1e9 / (e.ratio * std::min(peak, work / bytes * bandwidth))
                                    : bytes / 1e9 / (e.ratio * bandwidth);
    times_ms.push_back(seconds * 1000);
    want[l["name"]] = e;
  }
  write_profile(*layers_, profile, times_ms);
  auto r = cli(import + path("timed.json"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const json run = json::parse(slurp(path("timed.json")))["runs"][0];

  std::map<std::string, size_t> placed, errors_by_bound;
  size_t errors = 0;
  for (const auto& l : run["layers"]) {
    auto it = want.find(l["name"]);
    if (it == want.end()) continue;
    const Expected& e = it->second;
    SCOPED_TRACE(l["name"].get<std::string>() + " timed at " + std::to_string(e.ratio) + "x its " + e.roof + " roof");
    EXPECT_EQ(l["bound"], e.bound);
    EXPECT_EQ(l["roof"], e.roof);
    EXPECT_NEAR(l["efficiency"].get<double>(), e.ratio, 1e-6 * e.ratio);
    if (e.ratio > 1.10) {
      ++errors, ++errors_by_bound[e.bound];
      EXPECT_TRUE(l.contains("attribution_error"));
    } else {
      EXPECT_FALSE(l.contains("attribution_error")) << l["attribution_error"];
      ++placed[e.bound];
    }
  }
  for (const char* bound : {"compute", "memory"}) {  // MobileNetV2 at 64 px on the A100 has both
    EXPECT_GE(placed[bound], 2u) << bound;
    EXPECT_GE(errors_by_bound[bound], 1u) << bound;
  }
  std::string warnings = run["warnings"].dump();
  EXPECT_NE(warnings.find(std::to_string(errors) + " layer(s) above their roof by more than 10%"), std::string::npos)
      << warnings;
}

TEST_F(ImportTest, CompareLiveOrtWithImportedTensorRTByOnnxNode) {
  if (!ort_) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  ASSERT_TRUE(fs::exists(path("ort.json"))) << ort_log_;
  if (!fs::exists(path("trt_model.json")))
    cli("import trtexec " + path("mobilenet_v2.engine.profile.json") + " --model " + path("mobilenet_v2.onnx") +
        " -q -o " + path("trt_model.json"));
  auto r = cli("compare " + path("ort.json") + " " + path("trt_model.json") + " --json");
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  json c = json::parse(r.out);
  ASSERT_EQ(c["items"].size(), 1u) << r.out.substr(0, 2000);
  const json& layers = c["items"][0]["layers"];
  ASSERT_TRUE(layers.is_object()) << r.out.substr(0, 2000);
  // ORT and TensorRT fuse alike here (Conv + BatchNormalization + activation): most groups match one to one.
  EXPECT_GE(layers["matched"].size() + layers["regrouped"].size(), 10u);
  std::string notes = c["notes"].dump();
  EXPECT_NE(notes.find("does not know its threads"), std::string::npos) << notes;
}

TEST_F(ImportTest, OrtCudaProfilePrintsProviderSharesAndFallback) {
  auto r = cli("import auto " + shell_quote(fixture("onnxruntime/cuda_ep_1.16.json")) + " -o " + path("cuda.json"));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("execution providers (share of layers and of layer time):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUDAExecutionProvider"), std::string::npos);
  EXPECT_NE(r.out.find("CPU fallback: 2 layer(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nms (NonMaxSuppression"), std::string::npos) << r.out;
}

// An ORT profile written by the real ONNX Runtime, imported with the optimized graph ORT dumped, maps every kernel
// to the same ONNX nodes as the live backend maps the same kernels.
TEST_F(ImportTest, OrtProfileMapsAsTheLiveBackendDoes) {
  if (!ort_) GTEST_SKIP() << "onnxruntime-node is not installed: run `make deps`";
  ASSERT_TRUE(fs::exists(path("ort.json"))) << ort_log_;
  ort::OrtRunner runner;
  ort::OrtSessionOptions opts;
  opts.intraOpNumThreads = 2;
  opts.optimizedModelFilePath = path("optimized.onnx");
  ort::LoadResult loaded = runner.load(path("mobilenet_v2.onnx"), opts, std::chrono::minutes(2));
  ASSERT_TRUE(loaded.optimized_model);
  TimingOptions t;
  t.warmup_iterations = 1;
  t.warmup_ms = 0;
  t.profile_iterations = 3;
  ort::Inputs in;
  in.dims["batch"] = 1;  // the zoo model's batch is symbolic
  ort::ProfiledRunResult p = runner.run_profiled(in, t, std::chrono::minutes(2), *dir_, true);
  ASSERT_FALSE(p.profile_file.empty());
  auto r = cli("import onnxruntime " + shell_quote(p.profile_file.string()) + " --model " + path("mobilenet_v2.onnx") +
               " --executed-graph " + shell_quote(loaded.optimized_model->string()) + " -q -o " + path("ort_import.json"));
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  json imported = json::parse(slurp(path("ort_import.json"))), live = json::parse(slurp(path("ort.json")));
  std::map<std::string, json> live_nodes;
  for (const auto& l : live["runs"][0]["layers"]) live_nodes[l["name"]] = l["onnx_nodes"];
  const json& layers = imported["runs"][0]["layers"];
  ASSERT_EQ(layers.size(), live_nodes.size());
  for (const auto& l : layers) {
    ASSERT_TRUE(live_nodes.count(l["name"])) << l["name"];
    EXPECT_EQ(l["onnx_nodes"], live_nodes[l["name"]]) << l["name"];
  }
  EXPECT_EQ(imported["runs"][0]["unmapped_kernels"], 0);
  EXPECT_EQ(imported["runs"][0]["flops"], live["runs"][0]["flops"]);
}

// Every fixture set of every format, imported as a user would (roofs: the peaks the files state, the datasheet of
// the device the files name, or this machine's): no layer is placed above its roof beyond the tolerance, and none with a source's zero time is
// placed at all. The fixtures' times were written below the device's peaks (make_fixtures.py), so this catches work
// or bytes charged to the wrong layer, not a missing physics check: LayersFasterThanTheirRoof... times layers above it.
TEST_F(ImportTest, NoImportedLayerIsAboveItsRoof) {
  const std::vector<std::vector<std::string>> sets = {
      {"megengine/load_and_run.profile.json"},
      {"neural_engine/profiling_2023-03-01_10-00-00_0.csv"},
      {"neural_engine/profiling_2023-03-01_10-00-00_0.json"},
      {"openvino/benchmark_average_counters_report.csv"},
      {"openvino/benchmark_detailed_counters_report.csv"},
      {"openvino/exec_graph.xml"},
      {"onnxruntime/cpu_2019.json"},
      {"onnxruntime/cuda_ep_1.16.json"},
      {"onnxruntime/trt_ep_1.30.json"},
      {"onnxruntime/cuda_kernels_1.20.json"},
      {"kineto/simple_add.trace.json.gz"},
      {"kineto/profiler_steps.trace.json"},
      {"nsys/power_iteration.sqlite"},
      {"trtexec/dla_profile_only/orin_dla.profile.json"},
      {"trtexec/mobilenet_qat/mobilenet_qat.engine.graph.json", "trtexec/mobilenet_qat/mobilenet_qat.engine.profile.json",
       "trtexec/mobilenet_qat/mobilenet_qat.engine.profile.metadata.json"},
      {"trtexec/resnet18_fp16/resnet18_fp16.engine.graph.json", "trtexec/resnet18_fp16/resnet18_fp16.engine.profile.json",
       "trtexec/resnet18_fp16/resnet18_fp16.engine.profile.metadata.json"},
      {"trtexec/resnet18_qat/resnet18_qat.engine.graph.json", "trtexec/resnet18_qat/resnet18_qat.engine.profile.json"},
      {"trtexec/tf_resnet50_fp32/tf_resnet50_fp32.engine.graph.json",
       "trtexec/tf_resnet50_fp32/tf_resnet50_fp32.engine.profile.json",
       "trtexec/tf_resnet50_fp32/tf_resnet50_fp32.engine.profile.metadata.json"},
      {"trtexec/trt10/small.engine.graph.json", "trtexec/trt10/small.engine.profile.json"},
      {"trtexec/trt82/small.engine.graph.json", "trtexec/trt82/small.engine.profile.json"},
      {"ncu/resnet_block_t4.raw.csv"},
      {"ncu/gemv_a100_de.details.csv"},
  };
  for (const auto& set : sets) {
    std::string files;
    for (const auto& f : set) files += " " + shell_quote(fixture(f));
    SCOPED_TRACE(set.front());
    auto r = cli("import auto" + files + " -q --no-db -o " + path("roof.json"));
    ASSERT_EQ(r.rc, 0) << r.err;
    const json run = json::parse(slurp(path("roof.json")))["runs"].at(0);
    ASSERT_FALSE(run["layers"].empty());
    for (const auto& l : run["layers"]) {
      EXPECT_FALSE(l.contains("attribution_error")) << l["name"] << ": " << l["attribution_error"];
      EXPECT_LE(l["efficiency"].get<double>(), 1.10) << l["name"] << " on " << l["roof"];
      if (l["time_ms"].get<double>() == 0) {
        EXPECT_EQ(l["bound"], "") << l["name"] << " took 0 ms";
      }
      for (const auto& p : l.value("levels", json::array())) {  // a hierarchical roofline's points, per level
        EXPECT_FALSE(p.contains("attribution_error")) << l["name"] << " at " << p["level"];
        EXPECT_LE(p["efficiency"].get<double>(), 1.10) << l["name"] << " on " << p["roof"];
      }
    }
  }
}

TEST_F(ImportTest, EveryFormatThroughTheBinary) {
  for (const auto& files : {std::string("megengine/load_and_run.profile.json"),
                            std::string("neural_engine/profiling_2023-03-01_10-00-00_0.json"),
                            std::string("openvino/benchmark_average_counters_report.csv"),
                            std::string("ncu/copy_blocked.csv")}) {
    auto r = cli("import auto " + shell_quote(fixture(files)) + " -q -o " + path("any.json"));
    EXPECT_EQ(r.rc, 0) << files << ": " << r.err;
    auto top = cli("top " + path("any.json"));
    EXPECT_EQ(top.rc, 0) << files << ": " << top.err;
  }
}

// The results database: an import is stored under the device its files name, as a machine of its own (never this
// machine's baseline); a database that cannot be reached costs no result: the report is written, exit 3.
TEST_F(ImportTest, StoredUnderTheDeviceTheFilesName) {
  std::string files;
  for (const char* f : {"graph.json", "profile.json", "profile.metadata.json"})
    files += " " + shell_quote(fixture(std::string("trtexec/trt82/small.engine.") + f));
  const std::string db = path("imports.db");
  CliResult r = cli("import auto" + files + " -q --db " + shell_quote(db) + " --tag run=nightly");
  ASSERT_EQ(r.rc, 0) << r.err;
  CliResult h = cli("history --db " + shell_quote(db) + " --json");
  ASSERT_EQ(h.rc, 0) << h.err;
  json trends = json::parse(h.out);
  ASSERT_EQ(trends["machines"].size(), 1u) << h.out;
  EXPECT_EQ(trends["machines"][0]["cpu"], "Tesla T4");
  EXPECT_EQ(trends["machines"][0]["os"], "imported (trtexec)");
  ASSERT_EQ(trends["series"].size(), 1u) << h.out;
  EXPECT_EQ(trends["series"][0]["machine"], trends["machines"][0]["id"]);

  CliResult off = cli("import auto" + files + " -q --no-db");
  EXPECT_EQ(off.rc, 0) << off.err;
  CliResult down = cli("import auto" + files + " -q --db postgresql://rooflens@127.0.0.1:1/none -o " +
                       shell_quote(path("kept.json")));
  EXPECT_EQ(down.rc, 3) << down.err;
  EXPECT_TRUE(fs::exists(path("kept.json")));
  EXPECT_NE(down.err.find("results not stored"), std::string::npos) << down.err;
}

TEST_F(ImportTest, MalformedFilesAreOneLineAndExitOne) {
  for (const auto& [format, file] : std::vector<std::pair<std::string, std::string>>{
           {"trtexec", "malformed/trtexec/huge_count.profile.json"},
           {"onnxruntime", "malformed/onnxruntime/truncated.json"},
           {"megengine", "malformed/megengine/unknown_operator.json"},
           {"neural-engine", "malformed/neural_engine/bad_latency.csv"},
           {"openvino", "malformed/openvino/deep.xml"},
           {"ncu", "malformed/ncu/truncated.raw.csv"},
           {"auto", "malformed/openvino/truncated.csv"}}) {
    auto r = cli("import " + format + " " + shell_quote(fixture(file)) + " -o " + path("bad.json"));
    EXPECT_EQ(r.rc, 1) << file << ": " << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_NE(r.err.find(fixture(file)), std::string::npos) << r.err;
  }
  auto usage = cli("import tensorflow " + shell_quote(fixture("megengine/load_and_run.profile.json")));
  EXPECT_EQ(usage.rc, 2) << usage.err;
}

}  // namespace
