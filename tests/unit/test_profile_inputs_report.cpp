// The profile's data around the backend run: bounds for generated token ids (found through the model's
// Gathers), the profile report's JSON round trip, and the terminal summary of a profile report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "analysis/input_bounds.h"
#include "core/errors.h"
#include "core/report.h"
#include "model/loader.h"
#include "reporters/profile_summary.h"
#include "support/onnx_builder.h"

using namespace rooflens;
using namespace rooflens::testing;
namespace fs = std::filesystem;

namespace {

// ---- integer input bounds ----

class ProfileInputBounds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rooflens-bounds-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Model load(const onnx::ModelProto& m) {
    std::string path = (dir_ / "m.onnx").string();
    save(m, path);
    return load_model(path);
  }
  fs::path dir_;
};

void set_int_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void add_int64_initializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (auto x : v) t->add_int64_data(x);
}

onnx::ModelProto with_ids_input() {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "ids", {1, 16}, {}, onnx::TensorProto::INT64);
  return m;
}

TEST_F(ProfileInputBounds, GatherFromEmbeddingBoundsTheIds) {
  auto m = with_ids_input();
  auto* g = m.mutable_graph();
  add_value(g->mutable_output(), "e", {1, 16, 8});
  add_float_initializer(g, "embedding", {1000, 8});
  add_node(g, "Gather", {"embedding", "ids"}, {"e"}, "embed");
  auto bounds = integer_input_bounds(load(m));
  ASSERT_EQ(bounds.count("ids"), 1u);
  EXPECT_EQ(bounds.at("ids"), 1000);
}

TEST_F(ProfileInputBounds, FoundThroughCastAndUnsqueeze) {
  auto m = with_ids_input();
  auto* g = m.mutable_graph();
  add_value(g->mutable_output(), "e", {1, 1, 16, 8});
  add_float_initializer(g, "embedding", {1000, 8});
  add_int64_initializer(g, "axes", {1});
  set_int_attr(add_node(g, "Cast", {"ids"}, {"ids32"}, "cast"), "to", onnx::TensorProto::INT32);
  add_node(g, "Unsqueeze", {"ids32", "axes"}, {"ids3d"}, "unsqueeze");
  add_node(g, "Gather", {"embedding", "ids3d"}, {"e"}, "embed");
  auto bounds = integer_input_bounds(load(m));
  ASSERT_EQ(bounds.count("ids"), 1u);
  EXPECT_EQ(bounds.at("ids"), 1000);
}

TEST_F(ProfileInputBounds, TwoGathersGiveTheSmallerTableAndAxisIsHonoured) {
  auto m = with_ids_input();
  auto* g = m.mutable_graph();
  add_value(g->mutable_output(), "e", {1, 16, 8});
  add_value(g->mutable_output(), "p", {1, 16, 8});
  add_value(g->mutable_output(), "q", {8, 1, 16});
  add_float_initializer(g, "embedding", {1000, 8});
  add_float_initializer(g, "positions", {512, 8});
  add_float_initializer(g, "columns", {8, 700});
  add_node(g, "Gather", {"embedding", "ids"}, {"e"}, "embed");
  add_node(g, "Gather", {"positions", "ids"}, {"p"}, "pos");
  set_int_attr(add_node(g, "Gather", {"columns", "ids"}, {"q"}, "cols"), "axis", 1);  // bound 700, not 8
  auto bounds = integer_input_bounds(load(m));
  ASSERT_EQ(bounds.count("ids"), 1u);
  EXPECT_EQ(bounds.at("ids"), 512);
}

TEST_F(ProfileInputBounds, IdsUsedAsDataOrOnlyArithmeticAreAbsent) {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "mask", {1, 16}, {}, onnx::TensorProto::INT64);
  add_value(g->mutable_input(), "table", {100, 16}, {}, onnx::TensorProto::INT64);
  add_value(g->mutable_input(), "x", {1, 16});
  add_value(g->mutable_output(), "m1", {1, 16});
  add_value(g->mutable_output(), "t", {3, 16});
  add_value(g->mutable_output(), "y", {1, 16});
  add_int64_initializer(g, "one", {1});
  add_int64_initializer(g, "rows", {0, 1, 2});
  add_node(g, "Add", {"mask", "one"}, {"m1"}, "add");
  add_node(g, "Gather", {"table", "rows"}, {"t"}, "gather_rows");  // table is gathered *from*: not indices
  add_node(g, "Relu", {"x"}, {"y"}, "relu");
  auto bounds = integer_input_bounds(load(m));
  EXPECT_TRUE(bounds.empty()) << bounds.begin()->first;
}

// ---- report JSON ----

Report profile_report() {
  Report r;
  r.tool.version = "0.2.0";
  r.tool.command = "profile";
  r.model.path = "models/resnet50.onnx";
  r.model.name = "resnet50";
  BackendInfo b;
  b.name = "onnxruntime";
  b.version = "1.30.0";
  b.runtime = "onnxruntime-node 1.30.0 on node 20.20.2";
  b.options = {{"graphOptimizationLevel", "all"}, {"intraOpNumThreads", "2"}};
  r.backends = {b};
  ProfileRun run;
  run.batch = 1;
  run.dims = {{"batch", 1}};
  run.threads = 2;
  run.latencies_ms = {12.345, 12.5, 1.0 / 3.0, 14.25, 0.1};
  run.latency_ms = {5, 0.1, 14.25, 7.9, 12.345, 14.25, 14.25, 14.25, 5.5, 0.69620253164556967};
  run.throughput_per_s = 81.00445524503848;
  run.wall_s = 2.0000001;
  run.stop_reason = "duration";
  run.load_ms = 153.25;
  run.profiled_latency_ms = {3, 13, 14, 13.5, 13.5, 14, 14, 14, 0.5, 0.037037037037037035};
  run.profiling_overhead = 1.125;
  run.coverage = 0.97;
  run.peak_rss_bytes = 214958080;
  run.flops = 8'178'892'800;
  run.macs = 4'089'446'400;
  run.gflops = 662.5;
  Layer conv;
  conv.name = "/layer1/0/bn3/BatchNormalization_output_0_nchwc";
  conv.op = "Conv";
  conv.provider = "CPUExecutionProvider";
  conv.onnx_nodes = {"/layer1/0/conv3/Conv", "/layer1/0/bn3/BatchNormalization", "/layer1/0/Add"};
  conv.time_ms = 7.25;
  conv.share = 0.58;
  conv.flops = 1'000'000;
  conv.bytes = 65536;
  conv.intensity = 15.2587890625;
  conv.bound = "compute";
  conv.efficiency = 0.42;
  conv.roof = "fp32_fma_avx2 x2";
  conv.input_shapes = {{1, 16, 56, 56, 8}, {256, 64, 1, 1}};
  conv.output_shapes = {{1, 32, 56, 56, 8}};
  conv.start_ms = 0.125;
  Layer reorder;
  reorder.name = "ReorderOutput";
  reorder.op = "ReorderOutput";
  reorder.onnx_nodes = {"/avgpool/GlobalAveragePool"};
  reorder.alias = true;
  reorder.cost_known = false;
  reorder.time_ms = 0.01;
  run.layers = {conv, reorder};
  run.unowned = {{"Constant_12", "folded"}, {"Dropout_3", "eliminated"}};
  run.unmapped_kernels = 1;
  run.warnings = {"unstable timings: CV 7% > 5%"};
  r.runs.push_back(run);
  Failure f;
  f.batch = 8;
  f.threads = 2;
  f.dims = {{"batch", 8}, {"seq", 128}};
  f.stage = "run";
  f.kind = "timeout";
  f.message = "timed out after 900 s";
  f.stderr_tail = "line 1\n\"quoted\" \\ tab\there\n";
  r.failures.push_back(f);
  r.warnings = {"cost unknown for com.example:Frobnicate"};
  r.partial = true;
  return r;
}

TEST(ProfileReportJson, ProfileReportRoundTripsByteForByte) {
  Report r = profile_report();
  std::string first = report_to_json(r);
  Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  ASSERT_EQ(back.backends.size(), 1u);
  EXPECT_EQ(back.backends[0].options.at("intraOpNumThreads"), "2");
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].latencies_ms, r.runs[0].latencies_ms);  // doubles exact, 1/3 included
  EXPECT_EQ(back.runs[0].latency_ms.cv, r.runs[0].latency_ms.cv);
  EXPECT_EQ(back.runs[0].flops, 8'178'892'800u);
  ASSERT_EQ(back.runs[0].layers.size(), 2u);
  EXPECT_EQ(back.runs[0].layers[0].onnx_nodes, r.runs[0].layers[0].onnx_nodes);
  EXPECT_EQ(back.runs[0].layers[0].input_shapes, r.runs[0].layers[0].input_shapes);
  EXPECT_TRUE(back.runs[0].layers[1].alias);
  EXPECT_FALSE(back.runs[0].layers[1].cost_known);
  ASSERT_EQ(back.runs[0].unowned.size(), 2u);
  EXPECT_EQ(back.runs[0].unowned[1].fate, "eliminated");
  ASSERT_EQ(back.failures.size(), 1u);
  EXPECT_EQ(back.failures[0].stderr_tail, r.failures[0].stderr_tail);
  EXPECT_EQ(back.failures[0].dims.at("seq"), 128);
  EXPECT_TRUE(back.partial);
  EXPECT_EQ(back.warnings, r.warnings);
  // Compact output reads back to the same document too.
  EXPECT_EQ(report_to_json(report_from_json(report_to_json(r, -1))), first);
}

// --repeat: the partition of the samples into runs round-trips; a report from before it (no "repetitions") reads
// and writes back unchanged; a partition that does not add up is refused with one line naming the run.
TEST(ProfileReportJson, RepetitionsRoundTripAndOlderReportsStayAsTheyWere) {
  Report r = profile_report();
  r.runs[0].repetitions = {2, 3};
  std::string first = report_to_json(r);
  EXPECT_NE(first.find("\"repetitions\": [\n        2,\n        3\n      ],\n      \"latencies_ms\""), std::string::npos)
      << first;
  Report back = report_from_json(first);
  EXPECT_EQ(back.runs[0].repetitions, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(report_to_json(back), first);

  std::string old = report_to_json(profile_report());
  EXPECT_EQ(old.find("repetitions"), std::string::npos);
  EXPECT_TRUE(report_from_json(old).runs[0].repetitions.empty());
  EXPECT_EQ(report_to_json(report_from_json(old)), old);

  for (const char* bad : {"[2, 2]", "[]", "[5, 0]", "[-1, 6]"}) {
    std::string text = first;
    size_t at = text.find("\"repetitions\": [");
    size_t end = text.find(']', at);
    text.replace(at, end + 1 - at, std::string("\"repetitions\": ") + bad);
    try {
      report_from_json(text);
      ADD_FAILURE() << bad << " accepted";
    } catch (const UserError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("run batch=1 threads=2: repetitions do not partition latencies_ms"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos);
    }
  }
}

TEST(ProfileReportJson, AnalyzeReportHasNoProfileSections) {
  Report r = profile_report();
  r.backends.clear();
  std::string text = report_to_json(r);
  EXPECT_EQ(text.find("\"runs\""), std::string::npos);
  EXPECT_EQ(text.find("\"failures\""), std::string::npos);
  Report back = report_from_json(text);
  EXPECT_TRUE(back.backends.empty());
  EXPECT_TRUE(back.runs.empty());
  // A profile report missing one of its sections is malformed, not silently empty.
  std::string profile = report_to_json(profile_report());
  std::string broken = profile;
  broken.replace(broken.find("\"failures\""), 10, "\"failurez\"");
  EXPECT_ANY_THROW(report_from_json(broken));
}

// ---- terminal summary ----

std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) return line;
  return "";
}

TEST(ProfileSummary, ShowsEndToEndRowLayersByTimeWarningsAndFailures) {
  Report r = profile_report();
  r.partial = false;
  Layer small = r.runs[0].layers[0];
  small.name = "tiny_layer";
  small.time_ms = 0.5;
  small.alias = false;
  Layer mid = small;
  mid.name = "middle_layer";
  mid.time_ms = 2.0;
  // Execution order: tiny, reorder, big conv, middle; the table sorts by time.
  r.runs[0].layers = {small, r.runs[0].layers[1], r.runs[0].layers[0], mid};
  std::string s = profile_summary(r, 3);

  EXPECT_NE(s.find("resnet50 on onnxruntime-node 1.30.0"), std::string::npos) << s;
  EXPECT_NE(s.find("intraOpNumThreads=2"), std::string::npos) << s;
  // The e2e row: p50, p90, p99, mean, CV, n of the plain (unprofiled) latency.
  std::string row = line_with(s, "12.345");
  ASSERT_FALSE(row.empty()) << s;
  for (const char* v : {"batch=1", "threads=2", "14.250", "7.900", "69.6%", "5", "81.0", "662.5", "1.125x", "97.0%"})
    EXPECT_NE(row.find(v), std::string::npos) << "'" << v << "' not in: " << row;
  EXPECT_EQ(row.find("batch=1 batch=1"), std::string::npos) << "batch dim repeated: " << row;
  // Top 3 of 4 layers by time: big conv, middle, tiny; the 0.01 ms reorder is cut.
  EXPECT_NE(s.find("top 3 of 4 layers"), std::string::npos) << s;
  EXPECT_NE(s.find("2 ONNX nodes folded/eliminated"), std::string::npos) << s;
  size_t big = s.find("/layer1/0/bn3/BatchNorm"), middle = s.find("middle_layer"), tiny = s.find("tiny_layer");
  ASSERT_NE(big, std::string::npos) << s;
  ASSERT_NE(middle, std::string::npos) << s;
  ASSERT_NE(tiny, std::string::npos) << s;
  EXPECT_LT(big, middle);
  EXPECT_LT(middle, tiny);
  EXPECT_EQ(s.find("ReorderOutput"), std::string::npos) << s;
  std::string big_row = line_with(s, "/layer1/0/bn3/BatchNorm");
  EXPECT_NE(big_row.find("7.250"), std::string::npos) << big_row;
  EXPECT_NE(big_row.find("compute"), std::string::npos) << big_row;
  EXPECT_NE(big_row.find("42.0%"), std::string::npos) << big_row;
  // Warnings: report-wide as they are, per-run prefixed with the configuration.
  EXPECT_NE(s.find("  - cost unknown for com.example:Frobnicate"), std::string::npos) << s;
  EXPECT_NE(s.find("  - batch=1 threads=2: unstable timings: CV 7% > 5%"), std::string::npos) << s;
  EXPECT_EQ(s.find("roofs: "), std::string::npos) << s;
  // The roofs' own warnings come first: a layer's bound and efficiency depend on them.
  r.hardware = HardwareInfo{};
  r.hardware->warnings = {"no DRAM level at 2 thread(s): the sweep up to 1 GiB did not end on a plateau"};
  std::string with_roofs = profile_summary(r, 3);
  size_t roofs = with_roofs.find("  - roofs: no DRAM level at 2 thread(s)");
  EXPECT_NE(roofs, std::string::npos) << with_roofs;
  EXPECT_LT(roofs, with_roofs.find("  - cost unknown for com.example:Frobnicate"));
  r.hardware.reset();
  // Failures: configuration, stage and kind, message.
  EXPECT_NE(s.find("  - batch=8 seq=128 threads=2 [run, timeout] timed out after 900 s"), std::string::npos) << s;
  EXPECT_EQ(s.find("interrupted"), std::string::npos) << s;
  r.partial = true;
  EXPECT_NE(profile_summary(r).find("interrupted"), std::string::npos);
}

TEST(ProfileSummary, NoFinishedConfigurationSaysSo) {
  Report r = profile_report();
  r.runs.clear();
  r.warnings.clear();
  std::string s = profile_summary(r);
  EXPECT_NE(s.find("(no configuration finished)"), std::string::npos) << s;
  EXPECT_EQ(s.find("warnings:"), std::string::npos) << s;
  EXPECT_NE(s.find("failures:"), std::string::npos) << s;
}

}  // namespace

TEST(ProfileSummary, RepeatedRunsShowTheirSpread) {
  Report r = profile_report();
  r.runs[0].latencies_ms = {10, 10.2, 9.9, 13, 13.1, 12.8, 10.1, 10, 10.3};
  r.runs[0].repetitions = {3, 3, 3};
  std::string s = profile_summary(r);
  std::string header = line_with(s, "p50 ms");
  for (const char* col : {"runs", "run medians ms", "spread"})
    EXPECT_NE(header.find(col), std::string::npos) << col << " not in: " << header;
  std::string row = line_with(s, "batch=1 threads=2");
  EXPECT_NE(row.find("10.000–13.000"), std::string::npos) << row;  // lowest and highest run median
  EXPECT_NE(row.find("29.4%"), std::string::npos) << row;          // (13 - 10) / 10.2 (median of all)
  // Without repetitions the table keeps its columns.
  EXPECT_EQ(line_with(profile_summary(profile_report()), "p50 ms").find("runs"), std::string::npos);
}
