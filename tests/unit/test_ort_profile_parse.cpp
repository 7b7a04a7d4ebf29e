// ORT profile parsing on hand-written profiles shaped like onnxruntime 1.30's output.
#include <gtest/gtest.h>

#include <string>

#include "backends/onnxruntime/ort_profile.h"
#include "backends/onnxruntime/ort_runner.h"
#include "core/errors.h"

using namespace rooflens;
using namespace rooflens::ort;

namespace {

// Two runs (the first a warm-up). Events appear as ORT writes them: each run's kernels before its model_run,
// numbers inside args as strings, mem_* and scheduling stats present.
const char* kProfile = R"([
{"cat":"Session","pid":7,"tid":7,"dur":709,"ts":10,"ph":"X","name":"model_loading_uri","args":{}},
{"cat":"Session","pid":7,"tid":7,"dur":21827,"ts":794,"ph":"X","name":"session_initialization","args":{}},
{"cat":"Node","pid":7,"tid":7,"dur":163,"ts":33808,"ph":"X","name":"conv1_nchwc_kernel_time",
 "args":{"op_name":"Conv","provider":"CPUExecutionProvider","node_index":"1","activation_size":"840",
 "parameter_size":"1216","output_size":"2560","mem_arena_held":"1048640",
 "input_type_shape":[{"float":[2,3,7,5]},{"float":[16,3,3,2]},{"float":[16]}],
 "output_type_shape":[{"float":[2,16,5,4]}],
 "thread_scheduling_stats":{"main_thread":{"thread_pool_name":"session-1-intra-op","thread_id":"139692381748352",
 "block_size":[1],"core":0},"sub_threads":{}}}},
{"cat":"Node","pid":7,"tid":7,"dur":23,"ts":33981,"ph":"X","name":"ReorderOutput_kernel_time",
 "args":{"op_name":"ReorderOutput","provider":"CPUExecutionProvider","node_index":"2",
 "input_type_shape":[{"float":[2,16,5,4]}],"output_type_shape":[{"float":[2,4,5,4]}]}},
{"cat":"Session","pid":7,"tid":7,"dur":211,"ts":33803,"ph":"X","name":"SequentialExecutor::Execute","args":{}},
{"cat":"Session","pid":7,"tid":7,"dur":2186,"ts":33776,"ph":"X","name":"model_run","args":{}},
{"cat":"Node","pid":7,"tid":7,"dur":95,"ts":36333,"ph":"X","name":"conv1_nchwc_kernel_time",
 "args":{"op_name":"Conv","provider":"CPUExecutionProvider","node_index":1}},
{"cat":"Node","pid":7,"tid":9,"dur":20,"ts":36435,"ph":"X","name":"fused MatMul_0_kernel_time",
 "args":{"op_name":"FusedMatMul","provider":"CPUExecutionProvider","node_index":"3",
 "input_type_shape":[{"int64":[1,128]}],"output_type_shape":[]}},
{"cat":"Session","pid":7,"tid":7,"dur":163,"ts":36306,"ph":"X","name":"model_run","args":{}}
])";

TEST(OrtProfileParse, LiftsNodeArgsAndAssignsRuns) {
  OrtProfile p = parse_ort_profile(kProfile, "p.json");
  ASSERT_EQ(p.events.size(), 9u);
  ASSERT_EQ(p.runs.size(), 2u);
  EXPECT_EQ(p.runs[0].ts_us, 33776);
  EXPECT_EQ(p.runs[0].dur_us, 2186);
  EXPECT_EQ(p.runs[1].ts_us, 36306);

  const OrtProfileEvent& conv = p.events[2];
  EXPECT_TRUE(conv.is_kernel());
  EXPECT_EQ(conv.name, "conv1_nchwc_kernel_time");
  EXPECT_EQ(conv.node_name, "conv1_nchwc");
  EXPECT_EQ(conv.op_name, "Conv");
  EXPECT_EQ(conv.provider, "CPUExecutionProvider");
  EXPECT_EQ(conv.node_index, 1);
  EXPECT_EQ(conv.ts_us, 33808);
  EXPECT_EQ(conv.dur_us, 163);
  EXPECT_EQ(conv.pid, 7);
  ASSERT_EQ(conv.input_type_shape.size(), 3u);
  EXPECT_EQ(conv.input_type_shape[0].dtype, "float");
  EXPECT_EQ(conv.input_type_shape[0].dims, (std::vector<int64_t>{2, 3, 7, 5}));
  EXPECT_EQ(conv.input_type_shape[2].dims, (std::vector<int64_t>{16}));
  ASSERT_EQ(conv.output_type_shape.size(), 1u);
  EXPECT_EQ(conv.output_type_shape[0].dims, (std::vector<int64_t>{2, 16, 5, 4}));
  EXPECT_EQ(conv.activation_size, 840);
  EXPECT_EQ(conv.parameter_size, 1216);
  EXPECT_EQ(conv.output_size, 2560);
  EXPECT_EQ(conv.thread_id, "139692381748352");
  EXPECT_EQ(conv.args["mem_arena_held"], "1048640");  // unlifted args stay available
  EXPECT_EQ(conv.run_index, 0);

  EXPECT_EQ(p.events[3].run_index, 0);
  EXPECT_EQ(p.events[6].run_index, 1);
  EXPECT_EQ(p.events[6].node_index, 1);  // numeric node_index accepted too
  EXPECT_FALSE(p.events[6].activation_size.has_value());

  const OrtProfileEvent& fused = p.events[7];
  EXPECT_EQ(fused.node_name, "fused MatMul_0");
  EXPECT_EQ(fused.op_name, "FusedMatMul");
  EXPECT_EQ(fused.tid, 9);
  EXPECT_EQ(fused.input_type_shape[0].dtype, "int64");
  EXPECT_TRUE(fused.output_type_shape.empty());
  EXPECT_EQ(fused.run_index, 1);

  // Session events are not kernels and carry no run index.
  EXPECT_FALSE(p.events[0].is_kernel());
  EXPECT_EQ(p.events[0].run_index, -1);
  EXPECT_TRUE(p.events[0].node_name.empty());
}

TEST(OrtProfileParse, KernelEventsDropWarmup) {
  OrtProfile p = parse_ort_profile(kProfile, "p.json");
  EXPECT_EQ(p.kernel_events(0).size(), 4u);
  auto measured = p.kernel_events(1);
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_EQ(measured[0]->ts_us, 36333);
  EXPECT_EQ(measured[1]->ts_us, 36435);
  EXPECT_TRUE(p.kernel_events(2).empty());
  EXPECT_EQ(p.run_durations_us(1), (std::vector<int64_t>{163}));
  EXPECT_EQ(p.run_durations_us(0).size(), 2u);
}

TEST(OrtProfileParse, KernelOutsideAnyRunHasNoRunIndex) {
  OrtProfile p = parse_ort_profile(R"([
    {"cat":"Node","name":"a_kernel_time","ts":5,"dur":1,"ph":"X","args":{"op_name":"Relu"}},
    {"cat":"Session","name":"model_run","ts":10,"dur":10,"ph":"X","args":{}},
    {"cat":"Node","name":"b_kernel_time","ts":12,"dur":3,"ph":"X","args":{"op_name":"Relu"}},
    {"cat":"Node","name":"c_kernel_time","ts":25,"dur":1,"ph":"X","args":{"op_name":"Relu"}}])",
                                   "x.json");
  EXPECT_EQ(p.events[0].run_index, -1);
  EXPECT_EQ(p.events[2].run_index, 0);
  EXPECT_EQ(p.events[3].run_index, -1);
  EXPECT_EQ(p.kernel_events(0).size(), 1u);
  EXPECT_EQ(p.events[0].node_index, -1);
  EXPECT_TRUE(p.events[0].provider.empty());
}

TEST(OrtProfileParse, AcceptsTraceEventsObjectAndEmptyArray) {
  OrtProfile p = parse_ort_profile(R"({"traceEvents":[
    {"cat":"Session","name":"model_run","ts":"10","dur":"4","ph":"X"}]})", "t.json");
  ASSERT_EQ(p.runs.size(), 1u);
  EXPECT_EQ(p.runs[0].dur_us, 4);
  EXPECT_TRUE(parse_ort_profile("[]", "e.json").events.empty());
}

TEST(OrtProfileParse, ErrorsNameTheSource) {
  auto expect_error = [](const std::string& text, const std::string& needle) {
    try {
      parse_ort_profile(text, "/tmp/prof.json");
      FAIL() << "no error for " << text;
    } catch (const UserError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("/tmp/prof.json"), std::string::npos) << m;
      EXPECT_NE(m.find(needle), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  };
  expect_error(R"([{"cat":"Node","name":"x","ts":1,"dur":2)", "not valid JSON");
  expect_error(R"({"a":1})", "expected a JSON array");
  expect_error(R"([1])", "event 0 is not an object");
  expect_error(R"([{"cat":"Node","name":"x","dur":2}])", "no numeric 'ts'");
  expect_error(R"([{"cat":"Node","name":"x","ts":"abc","dur":2}])", "no numeric 'ts'");
  expect_error(R"([{"cat":"Node","name":"x","ts":1,"dur":-2}])", "bad 'dur'");
  expect_error(R"([{"cat":"Node","name":"x","ts":1,"ph":"X"}])", "without 'dur'");
  EXPECT_THROW(read_ort_profile("/nonexistent/rooflens/prof.json"), UserError);
}

TEST(OrtSessionOptions, SetFromTextAndJsonNames) {
  OrtSessionOptions o;
  o.set("intraOpNumThreads", "2");
  o.set("graphOptimizationLevel", "layout");
  o.set("executionMode", "parallel");
  o.set("enableCpuMemArena", "false");
  o.set("executionProviders", "cpu");
  o.set("session.intra_op.allow_spinning", "0");
  o.set("extra.optimization.enable_gelu_approximation", "1");
  o.set("freeDimensionOverrides.batch", "4");
  auto j = o.to_json();
  EXPECT_EQ(j["intraOpNumThreads"], 2);
  EXPECT_EQ(j["graphOptimizationLevel"], "layout");
  EXPECT_EQ(j["executionMode"], "parallel");
  EXPECT_EQ(j["enableCpuMemArena"], false);
  EXPECT_EQ(j["executionProviders"], nlohmann::ordered_json::array({"cpu"}));
  EXPECT_EQ(j["extra"]["session.intra_op.allow_spinning"], "0");
  EXPECT_EQ(j["extra"]["optimization.enable_gelu_approximation"], "1");
  EXPECT_EQ(j["freeDimensionOverrides"]["batch"], 4);
  EXPECT_FALSE(j.contains("interOpNumThreads"));  // unset: ORT's default

  EXPECT_THROW(o.set("graphOptimizationLevel", "max"), UsageError);
  EXPECT_THROW(o.set("intraOpNumThreads", "two"), UsageError);
  EXPECT_THROW(o.set("enableMemPattern", "maybe"), UsageError);
  EXPECT_THROW(o.set("intraOpThreads", "2"), UsageError);
}

TEST(OrtInputs, RequestFields) {
  Inputs in;
  in.seed = 7;
  in.dims["batch"] = 2;
  in.inputs["input_ids"].max = 30522;
  in.inputs["input_ids"].shape = std::vector<int64_t>{2, 16};
  in.inputs["pixels"].low = 0.0;
  auto j = in.to_json();
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["dims"]["batch"], 2);
  EXPECT_EQ(j["inputs"]["input_ids"]["max"], 30522);
  EXPECT_EQ(j["inputs"]["input_ids"]["shape"], nlohmann::ordered_json::array({2, 16}));
  EXPECT_EQ(j["inputs"]["pixels"]["low"], 0.0);
  EXPECT_FALSE(j["inputs"]["pixels"].contains("high"));
  EXPECT_FALSE(j.contains("test_data_dir"));
}

}  // namespace

// A reply's "warnings" (the web build's wait for V8's compiler that ran out, runners/ort/compiler_quiet.mjs): every
// string, in order; anything else skipped; none when the field is absent or not an array.
TEST(OrtReplies, WarningsAreTheReplysStrings) {
  const auto w =
      reply_warnings(nlohmann::json::parse(R"({"ok":true,"warnings":["V8 was still compiling", 3, "second"]})"));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "V8 was still compiling");
  EXPECT_EQ(w[1], "second");
  EXPECT_TRUE(reply_warnings(nlohmann::json::parse(R"({"ok":true})")).empty());
  EXPECT_TRUE(reply_warnings(nlohmann::json::parse(R"({"ok":true,"warnings":"one"})")).empty());
}
