// Memory prediction on hand-built graphs: liveness arithmetic (branches, graph inputs and outputs, in-place and
// alias buffers), If branches held while their node runs, the executed order with a weight the runtime packed, the
// difference to a measurement in parts, and the JSON sections' round trip and strict reading.
#include <gtest/gtest.h>

#include "analysis/cost.h"
#include "analysis/model_summary.h"
#include "backends/onnxruntime/ort_inference_session_memory.h"
#include "core/errors.h"
#include "core/memory_json.h"
#include "memory/executed_memory.h"
#include "memory/kv_cache.h"
#include "memory/liveness.h"
#include "memory/model_memory.h"
#include "memory/run_memory.h"
#include "model/loader.h"
#include "reporters/memory_text.h"
#include "support/onnx_builder.h"

using namespace rooflens;
using namespace rooflens::testing;

namespace {

LiveTensor tensor(const std::string& name, uint64_t bytes, bool input = false, bool output = false) {
  LiveTensor t;
  t.name = name;
  t.bytes = bytes;
  t.graph_input = input;
  t.graph_output = output;
  return t;
}

LiveStep step(std::vector<int> reads, std::vector<int> writes, BufferReuse reuse = BufferReuse::none) {
  LiveStep s;
  s.reads = std::move(reads);
  s.writes = std::move(writes);
  s.reuse = reuse;
  return s;
}

}  // namespace

TEST(Liveness, ATensorLivesFromItsProducerToItsLastConsumer) {
  // x (input, 100) -> a (200) -> b (50) -> y (output, 10)
  std::vector<LiveTensor> t{tensor("x", 100, true), tensor("a", 200), tensor("b", 50), tensor("y", 10, false, true)};
  Liveness l = liveness(t, {step({0}, {1}), step({1}, {2}), step({2}, {3})});
  ASSERT_EQ(l.live.size(), 3u);
  EXPECT_EQ(l.live[0], 300u);  // x + a
  EXPECT_EQ(l.live[1], 350u);  // x (the caller's, held throughout) + a (read here) + b
  EXPECT_EQ(l.live[2], 160u);  // a freed after its last reader
  EXPECT_EQ(l.peak, 350u);
  EXPECT_EQ(l.peak_step, 1);
  EXPECT_EQ(l.naive, 360u);   // every tensor, nothing freed
}

TEST(Liveness, BranchesKeepTheirInputUntilTheLastOfThem) {
  // x -> a; a -> p; a -> q; (p, q) -> y: a lives until q is made, p until y is.
  std::vector<LiveTensor> t{tensor("x", 10, true), tensor("a", 100), tensor("p", 40), tensor("q", 60),
                            tensor("y", 1, false, true)};
  Liveness l = liveness(t, {step({0}, {1}), step({1}, {2}), step({1}, {3}), step({2, 3}, {4})});
  EXPECT_EQ(l.live[1], 10u + 100 + 40);
  EXPECT_EQ(l.live[2], 10u + 100 + 40 + 60);
  EXPECT_EQ(l.live[3], 10u + 40 + 60 + 1);
  EXPECT_EQ(l.peak, 210u);
}

TEST(Liveness, AnOutputNobodyReadsIsFreedAfterItsStepButAGraphOutputLivesToTheEnd) {
  std::vector<LiveTensor> t{tensor("x", 10, true), tensor("unused", 500), tensor("out", 70, false, true),
                            tensor("z", 5), tensor("w", 1, false, true)};
  Liveness l = liveness(t, {step({0}, {1, 2}), step({0}, {3}), step({3}, {4})});
  EXPECT_EQ(l.live[0], 10u + 500 + 70);
  EXPECT_EQ(l.live[1], 10u + 70 + 5);   // "unused" gone, the graph output still there
  EXPECT_EQ(l.live[2], 10u + 70 + 5 + 1);
}

TEST(Liveness, InPlaceTakesTheBufferOnlyAtItsLastUseWithTheSameSizeAndNotTheCallers) {
  // x (input) -> a (200) -> relu r (200, in place) -> y (10)
  std::vector<LiveTensor> t{tensor("x", 100, true), tensor("a", 200), tensor("r", 200), tensor("y", 10, false, true)};
  Liveness shared = liveness(t, {step({0}, {1}), step({1}, {2}, BufferReuse::inplace), step({2}, {3})});
  EXPECT_EQ(shared.live[1], 300u);  // r is a's buffer
  EXPECT_EQ(shared.live[2], 310u);  // the shared buffer lives on as r until y is made
  EXPECT_EQ(shared.shared_outputs, 1);
  Liveness own = liveness(t, {step({0}, {1}), step({1}, {2}), step({2}, {3})});
  EXPECT_EQ(own.live[1], 500u);

  // a still has a reader after the Relu: the Relu cannot overwrite it.
  Liveness later = liveness(t, {step({0}, {1}), step({1}, {2}, BufferReuse::inplace), step({1, 2}, {3})});
  EXPECT_EQ(later.live[1], 500u);
  EXPECT_EQ(later.shared_outputs, 0);

  // Another size: no reuse. The caller's input: never reused.
  std::vector<LiveTensor> other{tensor("x", 100, true), tensor("a", 200), tensor("r", 120), tensor("y", 10, false, true)};
  EXPECT_EQ(liveness(other, {step({0}, {1}), step({1}, {2}, BufferReuse::inplace), step({2}, {3})}).live[1], 420u);
  std::vector<LiveTensor> direct{tensor("x", 100, true), tensor("r", 100), tensor("y", 10, false, true)};
  EXPECT_EQ(liveness(direct, {step({0}, {1}, BufferReuse::inplace), step({1}, {2})}).live[0], 200u);
}

TEST(Liveness, AnAliasSharesItsInputsBufferAndKeepsItAliveAsLongAsEitherIsRead) {
  // a (64) -> reshape v (alias) ; a is not read again, v is read by the last step.
  std::vector<LiveTensor> t{tensor("x", 8, true), tensor("a", 64), tensor("v", 64), tensor("b", 16), tensor("y", 4, false, true)};
  Liveness l = liveness(t, {step({0}, {1}), step({1}, {2}, BufferReuse::alias), step({0}, {3}), step({2, 3}, {4})});
  EXPECT_EQ(l.live[1], 8u + 64);           // no new bytes
  EXPECT_EQ(l.live[2], 8u + 64 + 16);      // a's buffer still live: v is read later
  EXPECT_EQ(l.live[3], 8u + 64 + 16 + 4);
  EXPECT_EQ(l.shared_outputs, 1);
}

namespace {

onnx::GraphProto* add_body(onnx::NodeProto* n, const std::string& attr, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

// x [4, 16] float (256 B); c = (x > 0) decides between a branch that makes two [4, 16] tensors in turn (MatMul then
// Relu: 256 B each) and one that makes a [4, 64] tensor (1 KiB) from a reshape-free MatMul; y [4, 16] out.
onnx::ModelProto branch_model(bool with_condition_input) {
  auto m = empty_model(17);
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {4, 16});
  if (with_condition_input) add_value(g->mutable_input(), "c", {}, {}, onnx::TensorProto::BOOL);
  add_value(g->mutable_output(), "y", {4, 16});
  add_float_initializer(g, "w", {16, 16}, 0.1f);
  add_float_initializer(g, "wide", {16, 64}, 0.1f);
  add_float_initializer(g, "narrow", {64, 16}, 0.1f);
  add_node(g, "Relu", {"x"}, {"x1"}, "pre");  // x1: 256 B, read inside both branches (outer scope)
  auto* iff = add_node(g, "If", {"c"}, {"y"}, "choose");
  auto* small = add_body(iff, "then_branch", "small");
  add_node(small, "MatMul", {"x1", "w"}, {"s1"}, "s_mm");
  add_node(small, "Relu", {"s1"}, {"s2"}, "s_relu");
  add_value(small->mutable_output(), "s2", {4, 16});
  auto* big = add_body(iff, "else_branch", "big");
  add_node(big, "MatMul", {"x1", "wide"}, {"b1"}, "b_mm");
  add_node(big, "MatMul", {"b1", "narrow"}, {"b2"}, "b_mm2");
  add_value(big->mutable_output(), "b2", {4, 16});
  return m;
}

ModelInfo memory_analysed(const onnx::ModelProto& proto, const ShapeOverrides& o = {}) {
  Model m = load_built(proto, o);
  ModelInfo info = summarize_model(m);
  info.analysis = analyze_model(m, CostRegistry::builtin());
  info.memory = predict_model_memory(m, info.analysis);
  return info;
}

const NodeAnalysis& node(const Analysis& a, const std::string& name) {
  for (const auto& n : a.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

}  // namespace

TEST(ModelMemory, AnUndecidedIfHoldsItsLargerBranchWhileItRunsAndOuterValuesUntilThen) {
  ModelInfo info = memory_analysed(branch_model(true));
  ASSERT_TRUE(info.memory);
  const ModelMemory& m = *info.memory;
  EXPECT_EQ(m.weights.bytes, (16u * 16 + 16 * 64 + 64 * 16) * 4);
  // Main graph at the If: x (256, the caller's) + x1 (256, read inside the branches: lives until the If has run) +
  // c (1) + y (256) + the larger branch's peak: b1 (1024) + b2 (256) while b_mm2 runs.
  const uint64_t at_if = 256 + 256 + 1 + 256;
  EXPECT_EQ(m.activations.peak_bytes, at_if + 1024 + 256);
  EXPECT_EQ(m.activations.peak_node_name, "choose");
  const Analysis& a = info.analysis;
  EXPECT_EQ(m.live_bytes[static_cast<size_t>(node(a, "b_mm2").index)], at_if + 1024 + 256);
  EXPECT_EQ(m.live_bytes[static_cast<size_t>(node(a, "s_relu").index)], at_if + 256 + 256);  // in place: no
  bool noted = false;                                                                      // reuse rule here
  for (const auto& n : m.notes) noted |= n.find("If 'choose'") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(m.peak_bytes, m.weights.bytes + m.activations.peak_bytes);
  // Naive: every tensor of both branches and the main graph, and the inputs.
  EXPECT_EQ(m.activations.naive_bytes, 256u + 1 + 256 + 256 + (256 + 256) + (1024 + 256));
}

TEST(ModelMemory, ABranchNotTakenCostsNothing) {
  ShapeOverrides o;
  o.values["c"] = {1};  // then: the small branch
  ModelInfo info = memory_analysed(branch_model(true), o);
  const ModelMemory& m = *info.memory;
  EXPECT_EQ(m.activations.peak_bytes, 256u + 256 + 1 + 256 + 256 + 256);
  EXPECT_EQ(m.live_bytes[static_cast<size_t>(node(info.analysis, "b_mm2").index)], 0u);
  for (const auto& n : m.notes) EXPECT_EQ(n.find("If 'choose'"), std::string::npos) << n;
}

TEST(ModelMemory, WeightsReadByNoNodeAreSaidAndLeftOutOfTheNeed) {
  auto proto = empty_model(17);
  auto* g = proto.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 8});
  add_value(g->mutable_output(), "y", {2, 8});
  add_float_initializer(g, "w", {8, 8});
  add_float_initializer(g, "stale", {100});
  add_node(g, "MatMul", {"x", "w"}, {"y"}, "mm");
  ModelInfo info = memory_analysed(proto);
  EXPECT_EQ(info.memory->weights.bytes, (64u + 100) * 4);
  EXPECT_EQ(info.memory->weights.unused_bytes, 400u);
  EXPECT_EQ(info.memory->peak_bytes, 256u + 64 + 64);  // used weights + x + y
}

namespace {

KernelRecord memory_kernel(const std::string& name, const std::string& op, std::vector<std::vector<int64_t>> in,
                    std::vector<std::vector<int64_t>> out) {
  KernelRecord k;
  k.name = name;
  k.op = op;
  k.input_shapes = std::move(in);
  k.output_shapes = std::move(out);
  k.input_dtypes.assign(k.input_shapes.size(), "float");
  k.output_dtypes.assign(k.output_shapes.size(), "float");
  return k;
}

GraphView::Node gnode(const std::string& name, const std::string& op, std::vector<std::string> in,
                      std::vector<std::string> out) {
  GraphView::Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

}  // namespace

TEST(ExecutedMemory, APackedWeightTheProfileNoLongerListsIsSizedFromTheModelAndCopiesAreCountedWhereKept) {
  // x [1, 64] -> MatMul(W [64, 64], packed) -> h -> Gemm(W again, packed; bias) -> y; Gather(W) reads W as it is.
  GraphView g;
  g.graph_inputs = {"x", "ids"};
  g.graph_outputs = {"y", "e"};
  g.nodes = {gnode("mm", "MatMul", {"x", "W"}, {"h"}), gnode("gemm", "Gemm", {"h", "W", "b"}, {"y"}),
             gnode("emb", "Gather", {"W", "ids"}, {"e"})};
  std::vector<KernelRecord> k{memory_kernel("mm", "MatMul", {{1, 64}}, {{1, 64}}),          // W not listed: packed
                              memory_kernel("gemm", "Gemm", {{1, 64}, {64}}, {{1, 64}}),     // W not listed: packed
                              memory_kernel("emb", "Gather", {{64, 64}, {2}}, {{2, 64}})};
  k[0].packed_inputs = {1};
  k[1].packed_inputs = {1};
  k[2].input_dtypes[1] = "int64";
  std::optional<ExecutedMemory> e = executed_memory(k, g, {{"W", 64 * 64 * 4}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->weights_bytes, 64u * 64 * 4 + 64 * 4);  // W once, the bias
  EXPECT_EQ(e->packed_bytes, 2u * 64 * 64 * 4);        // two packed copies: the Gather still reads the original
  // Activations: x (256) + ids (16) held by the caller; h (256); y (256) and e (512) to the end.
  EXPECT_EQ(e->curve[0], 256u + 16 + 256);
  EXPECT_EQ(e->curve[1], 256u + 16 + 256 + 256);
  EXPECT_EQ(e->curve[2], 256u + 16 + 256 + 512);
  EXPECT_EQ(e->activations_bytes, 256u + 16 + 256 + 512);
  EXPECT_EQ(e->peak_kernel, 2);
  EXPECT_EQ(e->outputs_bytes, 256u + 512);

  // Without the Gather, the last packing kernel's copy replaces the original: one copy beyond it.
  g.nodes.pop_back();
  k.pop_back();
  EXPECT_EQ(executed_memory(k, g, {{"W", 64 * 64 * 4}})->packed_bytes, 64u * 64 * 4);
}

TEST(RunMemory, AConstantTheRuntimeFoldedIsSizedFromTheExecutedGraphNotCountedAsAnActivation) {
  // A tied LM head: the user's graph computes Transpose(E) at run time; ORT folds it into an initializer at inference
  // session creation and packs it for the MatMul. The profile lists the MatMul with its activation only, so the folded
  // constant's size can come from the executed graph's own initializers alone.
  GraphView g;
  g.graph_inputs = {"x"};
  g.graph_outputs = {"y"};
  g.nodes = {gnode("lm_head", "MatMul", {"x", "E_T"}, {"y"})};
  g.constant_bytes = {{"E_T", 64u * 1000 * 4}};
  std::vector<KernelRecord> k{memory_kernel("lm_head", "MatMul", {{1, 64}}, {{1, 1000}})};
  k[0].packed_inputs = {1};
  RunMemorySources in;
  in.kernels = &k;
  in.executed = &g;
  in.inputs = {"x"};
  in.outputs = {"y"};
  std::optional<RunMemory> m = run_memory(in);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->predicted.weights_source, "executed_graph");
  EXPECT_EQ(m->predicted.weights_bytes, 64u * 1000 * 4);  // the folded constant, once: its packed copy replaces it
  EXPECT_EQ(m->predicted.prepacked_bytes, 0u);
  EXPECT_EQ(m->predicted.activations_bytes, 64u * 4 + 1000 * 4);  // x and y only
}

TEST(ExecutedMemory, KernelsTheGraphDoesNotHaveMakeNoPrediction) {
  GraphView g;
  g.graph_inputs = {"x"};
  g.nodes = {gnode("a", "Relu", {"x"}, {"y"})};
  EXPECT_FALSE(executed_memory({memory_kernel("other", "Relu", {{4}}, {{4}})}, g));
}

TEST(RunMemoryExplained, ThePartsAddUpToTheMeasuredIncrease) {
  MemoryPrediction p;
  p.baseline_bytes = 28'000'000;
  p.weights_bytes = 100'000'000;
  p.prepacked_bytes = 2'000'000;
  p.activations_bytes = 8'000'000;
  p.output_copies_bytes = 4'000;
  p.structures_bytes = 1'000'000;
  p.weights_source = "executed_graph";
  MemoryMeasured m;
  m.start_bytes = 50'000'000;
  m.after_session_bytes = 185'000'000;  // 4 MB beyond baseline + structures + weights + packed
  m.probe_peak_bytes = 190'000'000;     // 5 MB above the inference session: 3 MB under the activations
  m.run_peak_bytes = 200'000'000;
  m.increase_bytes = measured_increase(m);
  EXPECT_EQ(m.increase_bytes, 140'000'000u);
  int64_t sum = 0;
  bool timed_part = false;
  for (const auto& part : explain_memory(p, m)) {
    if (part.name == "timed runs beyond one run") {
      timed_part = true;
      EXPECT_EQ(part.bytes, 10'000'000);
      continue;  // beside the increase, not in it
    }
    sum += part.bytes;
  }
  EXPECT_TRUE(timed_part);
  EXPECT_EQ(sum, static_cast<int64_t>(m.increase_bytes));
}

TEST(MemoryJson, SectionsRoundTripAndMalformedOnesAreRefused) {
  ModelInfo info = memory_analysed(branch_model(true));
  Report r;
  r.tool.version = "test";
  r.tool.command = "analyze";
  r.model = info;
  const std::string text = report_to_json(r);
  EXPECT_NE(text.find("\"memory\""), std::string::npos);
  EXPECT_EQ(report_to_json(report_from_json(text)), text);

  // A curve that does not fit the node list is refused, naming the field.
  std::string bad = text;
  const size_t at = bad.find("\"live_bytes\": [");
  ASSERT_NE(at, std::string::npos);
  bad.insert(at + std::string("\"live_bytes\": [").size(), "1, ");
  try {
    report_from_json(bad);
    FAIL() << "a live_bytes of the wrong length was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("live_bytes"), std::string::npos) << e.what();
  }
}

// An inference session whose allocator kept the weights' copies (a run predicted without the C allocator's replay,
// which only the measurement shows): the profile's memory lines name what it kept and how to give it back; one without
// it gets no such line. A report written before the part was named "inference session beyond its prediction" reads
// alike.
TEST(RunMemoryExplained, AnErrorThatIsMostlyTheAllocatorsRetentionSaysSoAndHowToCompare) {
  MemoryPrediction p;
  p.baseline_bytes = 28'000'000;
  p.weights_bytes = 102'000'000;
  p.activations_bytes = 8'000'000;
  p.total_bytes = 138'000'000;
  MemoryMeasured m;
  m.start_bytes = 56'000'000;
  m.after_session_bytes = 56'000'000 + 28'000'000 + 102'000'000 + 192'000'000;
  m.probe_peak_bytes = m.after_session_bytes + 3'000'000;
  m.run_peak_bytes = m.probe_peak_bytes;
  m.increase_bytes = measured_increase(m);
  m.peak_bytes = measured_peak(m);
  Report r;
  ProfileRun run;
  run.batch = 1;
  RunMemory rm;
  rm.predicted = p;
  rm.measured = m;
  rm.explained = explain_memory(p, m);
  EXPECT_EQ(allocator_retention_bytes(rm), 192'000'000u);
  RunMemory older = rm;
  for (auto& part : older.explained)
    if (part.name == "inference session beyond its prediction") part.name = "session beyond its prediction";
  EXPECT_EQ(allocator_retention_bytes(older), 192'000'000u);
  run.memory = rm;
  r.runs.push_back(run);
  std::string text = run_memory_text(r);
  EXPECT_NE(text.find("the runner started at 56.00MB"), std::string::npos) << text;
  EXPECT_NE(text.find("the C allocator keeps 192.00MB beyond the weights after inference session creation (measured"),
            std::string::npos) << text;
  EXPECT_NE(text.find("mallocMmapThreshold=131072"), std::string::npos) << text;

  // With glibc giving the blocks back, the inference session is what was predicted: no such line.
  rm.measured->after_session_bytes = 56'000'000 + 28'000'000 + 102'000'000 + 3'000'000;
  rm.measured->probe_peak_bytes = rm.measured->run_peak_bytes = rm.measured->after_session_bytes + 8'000'000;
  rm.measured->increase_bytes = measured_increase(*rm.measured);
  rm.measured->peak_bytes = measured_peak(*rm.measured);
  rm.explained = explain_memory(p, *rm.measured);
  EXPECT_EQ(allocator_retention_bytes(rm), 0u);
  r.runs[0].memory = rm;
  text = run_memory_text(r);
  EXPECT_EQ(text.find("the C allocator keeps"), std::string::npos) << text;
}

TEST(KvMemory, TheWeightsTheRuntimeKeptAndTheirPackedCopiesAreInBothPeaksAndOldReportsStillRead) {
  KvShape s;
  s.weights_bytes = 1000;
  s.weights_source = "executed_graph";
  s.prepacked_bytes = 300;
  s.kv_bytes_per_token = 10;
  s.prompt = 4;
  s.gen = 2;
  s.vocab = 5;
  s.baseline_bytes = 50;
  const KvMemory k = kv_memory(s);
  // prefill: base 1350 + present 40 + logits 4 x 5 x 4 = 80 (no copies); decode: + past 50 + present 60 + logits 20.
  EXPECT_EQ(k.prefill_peak_bytes, 1350u + 40 + 80);
  EXPECT_EQ(k.decode_peak_bytes, 1350u + 50 + 60 + 20);
  EXPECT_EQ(k.weights_source, "executed_graph");

  json j = k;
  EXPECT_EQ(j.get<KvMemory>().prepacked_bytes, 300u);
  j.erase("weights_source");
  j.erase("prepacked_bytes");
  const KvMemory old = j.get<KvMemory>();  // written before these two fields existed
  EXPECT_EQ(old.weights_source, "analysis");
  EXPECT_EQ(old.prepacked_bytes, 0u);
}

TEST(KvMemory, TheCopiesAreNamedAndTheUncollectedBoundSumsTheRequestsEarlierOutputs) {
  KvShape s;
  s.kv_bytes_per_token = 10;
  s.batch = 2;
  s.prompt = 4;
  s.gen = 4;
  s.vocab = 5;
  s.output_copies = 1;
  const KvMemory k = kv_memory(s);
  // Each output is copied once: prefill present 2 x 4 x 10 = 80 + logits 2 x 4 x 5 x 4 = 160; the last step's
  // present 2 x 8 x 10 = 160 + one position's logits 2 x 5 x 4 = 40.
  EXPECT_EQ(k.prefill_copies_bytes, 80u + 160);
  EXPECT_EQ(k.decode_copies_bytes, 160u + 40);
  EXPECT_EQ(k.decode_peak_bytes, k.decode_activations_bytes + k.decode_copies_bytes);
  // Garbage by the last step (step 3, fed step 2's present): the prefill's outputs (80 + 160), and steps 0 and 1's
  // (presents of 5 and 6 tokens: 100 and 120, + 40 of logits each).
  EXPECT_EQ(k.uncollected_copies_bytes, 80u + 160 + 100 + 40 + 120 + 40);
  s.gen = 1;  // one step: it is fed the prefill's present, whose logits are still beside it — nothing is garbage
  EXPECT_EQ(kv_memory(s).uncollected_copies_bytes, 0u);
  s.output_copies = 0;  // a caller that is handed the runtime's own buffers holds no copies
  s.gen = 4;
  EXPECT_EQ(kv_memory(s).uncollected_copies_bytes, 0u);

  // Reports written before the named parts existed read them as 0.
  json j = k;
  EXPECT_EQ(j.get<KvMemory>().uncollected_copies_bytes, k.uncollected_copies_bytes);
  for (const char* key : {"prefill_copies_bytes", "decode_copies_bytes", "uncollected_copies_bytes",
                          "session_beyond_bytes", "prefill_caller_buffers_bytes", "decode_caller_buffers_bytes",
                          "caller_heap_bytes"})
    j.erase(key);
  EXPECT_EQ(j.get<KvMemory>().decode_copies_bytes, 0u);
}

TEST(ExecutedMemory, AGraphOutputGetsABufferOfItsOwnEvenWhereItsKernelMayWorkInPlace) {
  // x -> conv -> a -> Relu -> y (graph output): the Relu may take a's buffer in place, but ORT's planner gives a
  // graph output a buffer of its own (kAllocateOutput); a Relu inside the graph takes it.
  GraphView g;
  g.graph_inputs = {"x"};
  g.graph_outputs = {"y"};
  g.nodes = {gnode("c", "Conv", {"x", "W"}, {"a"}), gnode("r", "Relu", {"a"}, {"y"})};
  std::vector<KernelRecord> k{memory_kernel("c", "Conv", {{1, 8}, {8, 8}}, {{1, 8}}), memory_kernel("r", "Relu", {{1, 8}}, {{1, 8}})};
  k[1].reuse = BufferReuse::inplace;
  std::optional<ExecutedMemory> e = executed_memory(k, g);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->activations_bytes, 32u * 3);  // x, a and y while the Relu runs
  EXPECT_EQ(e->events.size(), 3u);           // a, y allocated; a released
  g.graph_outputs = {"z"};
  g.nodes.push_back(gnode("n", "Neg", {"y"}, {"z"}));
  k.push_back(memory_kernel("n", "Neg", {{1, 8}}, {{1, 8}}));
  EXPECT_EQ(executed_memory(k, g)->curve[1], 32u * 2);  // y took a's buffer
}

TEST(Liveness, AMaybeInPlaceInputIsTakenOnlyWhenTheWalkIsAskedTo) {
  // x -> c1 -> a; x -> c2 -> s; conv(a, w, b, s) -> o (the fused residual Sum, input 3) -> y: s dies at the conv.
  std::vector<LiveTensor> t{tensor("x", 100, true), tensor("a", 400), tensor("s", 400), tensor("o", 400),
                            tensor("y", 10, false, true)};
  LiveStep conv = step({1, 2}, {3});
  conv.maybe_inplace = 1;  // position of s among the step's reads
  const std::vector<LiveStep> steps{step({0}, {1}), step({0}, {2}), conv, step({3}, {4})};
  const Liveness own = liveness(t, steps);
  EXPECT_EQ(own.live[2], 1300u);
  EXPECT_EQ(own.shared_outputs, 0);
  const Liveness shared = liveness(t, steps, true);
  EXPECT_EQ(shared.live[2], 900u);  // o wrote into s
  EXPECT_EQ(shared.shared_outputs, 1);
  // s still read later: not taken even when asked.
  const Liveness later = liveness(t, {step({0}, {1}), step({0}, {2}), conv, step({2, 3}, {4})}, true);
  EXPECT_EQ(later.shared_outputs, 0);
}

TEST(RunMemory, TheBandHoldsTheCallersInputsAndTheInferenceSessionsNodeStructuresAndSpansAMaybeInPlaceRule) {
  // x (the caller's 1 MiB input) -> c1 -> a, x -> c2 -> s, conv(a, W, B, s) -> o -> Relu -> y.
  constexpr uint64_t MiB = 1 << 20;
  GraphView g;
  g.graph_inputs = {"x"};
  g.graph_outputs = {"y"};
  g.nodes = {gnode("c1", "Neg", {"x"}, {"a"}), gnode("c2", "Neg", {"x"}, {"s"}),
             gnode("conv", "Conv", {"a", "W", "B", "s"}, {"o"}), gnode("r", "Neg", {"o"}, {"y"})};
  const std::vector<int64_t> big{1, 64, 64, 64};  // 1 MiB of floats
  std::vector<KernelRecord> k{memory_kernel("c1", "Neg", {big}, {big}), memory_kernel("c2", "Neg", {big}, {big}),
                              memory_kernel("conv", "Conv", {big, {64, 64, 1, 1}, {64}, big}, {big}),
                              memory_kernel("r", "Neg", {big}, {big})};
  k[2].maybe_inplace_input = 3;
  ArenaRules rules;
  rules.granule = 256;
  rules.initial_region = MiB;
  rules.doubling = true;
  rules.max_dead_bytes = 128 * MiB;
  rules.page = 4096;
  RunMemorySources in;
  in.kernels = &k;
  in.executed = &g;
  in.inputs = {"x"};
  in.outputs = {"y"};
  in.baseline_bytes = 27'000'000;
  in.node_bytes = 3'000;
  in.arena = rules;
  const std::optional<RunMemory> m = run_memory(in);
  ASSERT_TRUE(m && m->predicted.arena);
  const MemoryPrediction& p = m->predicted;
  EXPECT_EQ(p.structures_bytes, 4u * 3'000);  // without the model: the executed graph's nodes
  EXPECT_EQ(p.total_bytes, p.baseline_bytes + p.structures_bytes + p.weights_bytes + p.prepacked_bytes +
                               p.activations_bytes + p.output_copies_bytes);
  const ArenaPrediction& a = *p.arena;
  EXPECT_EQ(a.inputs_bytes, MiB);
  const uint64_t fixed = p.baseline_bytes + p.structures_bytes + p.weights_bytes + p.prepacked_bytes +
                         p.output_copies_bytes + a.inputs_bytes;
  EXPECT_EQ(a.low_bytes, fixed + a.written_bytes);
  EXPECT_EQ(a.high_bytes, fixed + a.held_bytes);
  // Without the rule a, s, o are live at once (3 MiB written); with it o takes s's buffer: the low end writes 2 MiB.
  EXPECT_EQ(a.written_bytes, 2 * MiB);
  EXPECT_GE(a.held_bytes, 3 * MiB);
  EXPECT_TRUE(std::any_of(m->notes.begin(), m->notes.end(),
                          [](const std::string& n) { return n.find("1 kernel(s) may write into") == 0; }));
  // No runtime rule, no note, and the low end writes what the walk allocates.
  k[2].maybe_inplace_input = -1;
  const std::optional<RunMemory> plain = run_memory(in);
  EXPECT_EQ(plain->predicted.arena->written_bytes, 3 * MiB + 0);
  EXPECT_TRUE(plain->notes.empty());
}

// With the inference session's creation stated, the prediction is the C allocator's replay of it and of the first run,
// plus the calibrated parts — and nothing of the measurement: the same prediction whatever the runner measured, or
// without a measurement at all. Its parts then add up to the measured increase through a "kept by the C allocator"
// part.
TEST(RunMemory, TheCreationsReplayMakesThePredictionAndNoMeasurementMovesIt) {
  constexpr uint64_t MiB = 1 << 20;
  GraphView g;
  g.graph_inputs = {"x"};
  g.graph_outputs = {"y"};
  g.nodes = {gnode("mm", "MatMul", {"x", "W"}, {"y"})};
  g.constants = {{"W", 4 * MiB}};
  g.constant_bytes = {{"W", 4 * MiB}};
  std::vector<KernelRecord> k{memory_kernel("mm", "MatMul", {{1, 1024}, {1024, 1024}}, {{1, 1024}})};
  k[0].packed_inputs = {1};
  const std::vector<HeapEvent> creation = ort::inference_session_creation_blocks(g, g, 4 * MiB + 300);
  const std::optional<CAllocatorRules> rules = ort::runner_c_allocator(std::nullopt);
  const std::vector<Layer> layers(1);
  RunMemorySources in;
  in.layers = &layers;
  in.kernels = &k;
  in.executed = &g;
  in.inputs = {"x"};
  in.outputs = {"y"};
  in.baseline_bytes = 27'000'000;
  in.node_bytes = 3'000;
  in.inference_session_creation = &creation;
  in.c_allocator = &rules;
  const std::optional<RunMemory> alone = run_memory(in);
  ASSERT_TRUE(alone && alone->predicted.c_allocator);
  const MemoryPrediction& p = alone->predicted;
  const uint64_t calibrated = p.baseline_bytes + p.structures_bytes;
  EXPECT_EQ(p.total_bytes, calibrated + p.c_allocator->run_peak_bytes);
  EXPECT_EQ(p.peak_bytes, calibrated + std::max(p.c_allocator->creation_peak_bytes, p.c_allocator->run_peak_bytes));
  // The file parsed (4 MiB), copied (4 MiB) and packed (4 MiB): the packed copy is what stays.
  EXPECT_EQ(p.c_allocator->copies_bytes, 4 * MiB);
  EXPECT_EQ(p.c_allocator->packed_bytes, 4 * MiB);
  EXPECT_GE(p.c_allocator->creation_peak_bytes, 8 * MiB);

  MemoryMeasured m;
  m.start_bytes = 50'000'000;
  m.after_session_bytes = 90'000'000;
  m.session_peak_bytes = 95'000'000;
  m.probe_peak_bytes = m.run_peak_bytes = 93'000'000;
  m.increase_bytes = measured_increase(m);
  m.peak_bytes = measured_peak(m);
  std::optional<MemoryMeasured> measured = m;
  in.measured = &measured;
  const std::optional<RunMemory> with = run_memory(in);
  measured->after_session_bytes += 64'000'000;  // a process that held 64 MB more: the same prediction
  measured->probe_peak_bytes = measured->run_peak_bytes = measured->session_peak_bytes += 64'000'000;
  measured->increase_bytes = measured_increase(*measured);
  measured->peak_bytes = measured_peak(*measured);
  const std::optional<RunMemory> more = run_memory(in);
  const auto predicted = [](const RunMemory& r) { return json(r).at("predicted").dump(); };
  EXPECT_EQ(predicted(*alone), predicted(*with));
  EXPECT_EQ(predicted(*alone), predicted(*more));
  int64_t sum = 0;
  for (const auto& part : with->explained)
    if (part.name != "timed runs beyond one run" && part.name != "creation above the first run") sum += part.bytes;
  EXPECT_EQ(sum, static_cast<int64_t>(m.increase_bytes));
  EXPECT_TRUE(std::any_of(with->explained.begin(), with->explained.end(),
                          [](const MemoryPart& x) { return x.name == "kept by the C allocator"; }));
  // The JSON keeps all of it, and a report from before the replay still reads (its peak is its first run's).
  const RunMemory back = json(*with).get<RunMemory>();
  EXPECT_EQ(json(back).dump(), json(*with).dump());
  json old = json(*with);
  old["predicted"].erase("c_allocator");
  old["predicted"].erase("peak_bytes");
  old["measured"].erase("peak_bytes");
  const RunMemory read = old.get<RunMemory>();
  EXPECT_FALSE(read.predicted.c_allocator);
  EXPECT_EQ(read.predicted.peak_bytes, read.predicted.total_bytes);
  EXPECT_EQ(read.measured->peak_bytes, measured_peak(m));
}

// The one entry point of a model's prediction: a model without nodes has its file's weights and nothing else (no
// activations, a peak of 0), as every command's model.memory had before the entry point.
TEST(ModelMemory, AModelWithoutNodesHasItsWeightsAndNoPrediction) {
  auto proto = empty_model(17);
  auto* g = proto.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 8});
  add_value(g->mutable_output(), "x", {2, 8});
  add_float_initializer(g, "stale", {100});
  Model m = load_built(proto);
  const ModelMemory mm = predict_model_memory(m, analyze_model(m, CostRegistry::builtin()));
  EXPECT_EQ(mm.weights.bytes, 400u);
  EXPECT_EQ(mm.weights.unused_bytes, 400u);
  EXPECT_EQ(used_weight_bytes(mm.weights), 0u);
  EXPECT_EQ(mm.peak_bytes, 0u);
  EXPECT_TRUE(mm.live_bytes.empty());
  EXPECT_EQ(summarize_model(m).weight_bytes, mm.weights.bytes);  // the summary's figure is the memory room's
}

// A run's Measurement gives its memory section the runtime's side of the prediction (kernels, executed graph,
// calibration constants, allocator rules) and, apart, the runner's measurement with the kernels' allocator figures.
TEST(RunMemory, TheSourcesComeFromTheMeasurementAndItsMemoryMovesNoPrediction) {
  Measurement run;
  run.executed_graph = GraphView{};
  run.executed_graph->graph_inputs = {"x"};
  run.executed_graph->graph_outputs = {"y"};
  run.executed_graph->nodes = {gnode("r", "Relu", {"x"}, {"y"})};
  run.kernels = {memory_kernel("r", "Relu", {{1, 1024}}, {{1, 1024}})};
  run.kernels[0].allocator_held_bytes = 1 << 20;
  run.kernels[0].allocator_in_use_bytes = 8192;
  run.runtime_baseline_bytes = 27'000'000;
  run.runtime_baseline_run_bytes = 2'000'000;
  run.runtime_node_bytes = 3'000;
  run.runtime_cost_measured_at = "2026-11-28T00:00:00Z";
  run.output_copies = 1;
  RunMemorySources in = run_memory_sources(run);
  EXPECT_EQ(in.kernels, &run.kernels);
  EXPECT_EQ(in.executed, &*run.executed_graph);
  EXPECT_EQ(in.baseline_run_bytes, 2'000'000u);
  EXPECT_EQ(in.runtime_cost_measured_at, run.runtime_cost_measured_at);
  EXPECT_EQ(in.analysis, nullptr);  // the model's side is the caller's
  in.inputs = {"x"};
  in.outputs = {"y"};
  const std::optional<RunMemory> alone = run_memory(in);
  ASSERT_TRUE(alone);
  EXPECT_FALSE(alone->measured);
  EXPECT_EQ(alone->predicted.output_copies_bytes, 4096u);
  EXPECT_EQ(alone->predicted.structures_bytes, 3'000u);

  run.memory = MemoryMeasured{};
  run.memory->start_bytes = 10'000'000;
  run.memory->after_session_bytes = 40'000'000;
  run.memory->probe_peak_bytes = run.memory->run_peak_bytes = 41'000'000;
  run.memory->increase_bytes = measured_increase(*run.memory);
  const std::optional<RunMemory> with = run_memory(run_memory_sources(run) /* no model: the executed graph's */);
  ASSERT_TRUE(with && with->measured);
  EXPECT_EQ(with->measured->allocator_held_bytes, uint64_t{1} << 20);
  EXPECT_EQ(with->measured->allocator_in_use_peak_bytes, 8192u);
  EXPECT_FALSE(run.memory->allocator_held_bytes);  // the Measurement itself is left as it is
  EXPECT_EQ(json(*with).at("predicted").dump(), json(*alone).at("predicted").dump());
}

// The inference session's creation beyond its prediction is one rule for a profile's run and a decoder's configuration:
// what the runner held once the inference session existed, above its start, less baseline + (structures) + weights +
// packed copies.
TEST(RunMemoryExplained, TheInferenceSessionBeyondItsPredictionIsOneRule) {
  MemoryPrediction p;
  p.baseline_bytes = 28'000'000;
  p.structures_bytes = 1'000'000;
  p.weights_bytes = 100'000'000;
  p.prepacked_bytes = 5'000'000;
  MemoryMeasured m;
  m.start_bytes = 50'000'000;
  m.after_session_bytes = 200'000'000;
  EXPECT_EQ(inference_session_beyond_prediction(p, m), 150'000'000 - 134'000'000);
  m.after_session_bytes = 150'000'000;
  EXPECT_EQ(inference_session_beyond_prediction(p, m), 100'000'000 - 134'000'000);  // held less: negative
  p.c_allocator = CAllocatorPrediction{};
  // With a replay, the replay's inference session stands for weights and copies.
  p.c_allocator->session_bytes = 90'000'000;
  EXPECT_EQ(inference_session_beyond_prediction(p, m), 100'000'000 - 119'000'000);
}

// A decoder configuration's memory section: the prediction from the steps' model memory, or from the profiled
// prefill's executed graph where there is one; the runner's measurement beside it, which moves no predicted figure.
TEST(KvMemory, TheDecodersSectionIsPredictedFromItsStepsAndTheMeasurementOnlySitsBesideIt) {
  DecoderIo io;
  io.cache.resize(2);  // two layers
  io.kv_heads = 2;
  io.head_dim = 4;
  io.kv_dtype = "float";
  io.vocab = 10;
  EXPECT_EQ(kv_bytes_per_token(io), 2u * 2 * 2 * 4 * 4);
  DecoderSteps steps;
  steps.prefill.weights.bytes = 5'000;
  steps.prefill.weights.unused_bytes = 1'000;
  steps.prefill.activations.peak_bytes = 700;
  steps.prefill.peak_bytes = 4'700;
  steps.decode = ModelMemory{};
  steps.decode->weights = steps.prefill.weights;
  steps.decode->activations.peak_bytes = 900;
  steps.decode->peak_bytes = 4'900;
  EXPECT_EQ(steps.need(), 4'900u);
  DecoderMemorySources in;
  in.io = &io;
  in.batch = 1;
  in.prompt = 3;
  in.gen = 2;
  in.steps = &steps;
  in.baseline_bytes = 20'000;
  in.baseline_run_bytes = 2'000;
  in.output_copies = 1;
  const KvMemory alone = decoder_memory(in);
  EXPECT_EQ(alone.weights_source, "analysis");
  EXPECT_EQ(alone.weights_bytes, 4'000u);  // the weights a node reads
  EXPECT_EQ(alone.prefill_activations_bytes, 700u);
  EXPECT_EQ(alone.decode_activations_bytes, 900u);
  EXPECT_EQ(alone.baseline_run_bytes, 2'000u);
  EXPECT_EQ(alone.kv_bytes_per_token, 128u);
  EXPECT_EQ(alone.session_beyond_bytes, 0u);

  RunMemory prefill_run;  // the prefill profiled: the runtime's own weights and the executed order's activations
  prefill_run.predicted.weights_source = "executed_graph";
  prefill_run.predicted.weights_bytes = 4'500;
  prefill_run.predicted.prepacked_bytes = 300;
  prefill_run.predicted.activations_bytes = 650;
  in.prefill_run = &prefill_run;
  DecoderMemoryMeasured measured;
  measured.runner = MemoryMeasured{};
  measured.runner->start_bytes = 1'000'000;
  measured.runner->after_session_bytes = 1'030'000;  // 30,000 above the start: 5,200 beyond 20,000 + 4,500 + 300
  measured.runner->increase_bytes = 40'000;
  measured.prefill_peak_bytes = 1'035'000;
  measured.decode_peak_bytes = 1'038'000;
  measured.collected = CollectedMemory{1'033'000, 1'034'000, {}};
  measured.collected->caller.heap_bytes = 512;
  measured.caller.measured = true;
  measured.caller.prefill_buffers_bytes = 77;
  in.measured = &measured;
  const KvMemory k = decoder_memory(in);
  EXPECT_EQ(k.weights_source, "executed_graph");
  EXPECT_EQ(k.weights_bytes, 4'500u);
  EXPECT_EQ(k.prefill_activations_bytes, 650u);
  EXPECT_EQ(k.decode_activations_bytes, 900u);  // the decode step was not profiled at its last context
  EXPECT_EQ(k.prefill_measured_bytes, 35'000u);
  EXPECT_EQ(k.decode_measured_bytes, 38'000u);
  EXPECT_EQ(k.measured_increase_bytes, 40'000u);
  EXPECT_EQ(k.prefill_collected_bytes, 33'000u);
  EXPECT_EQ(k.decode_collected_bytes, 34'000u);
  EXPECT_EQ(k.collected_heap_bytes, 512u);
  EXPECT_EQ(k.prefill_caller_buffers_bytes, 77u);
  EXPECT_EQ(k.session_beyond_bytes, 5'200u);
  in.measured = nullptr;
  KvMemory unmeasured = decoder_memory(in);
  unmeasured.session_beyond_bytes = k.session_beyond_bytes;  // the measured fields aside, the same section
  for (uint64_t KvMemory::*f : {&KvMemory::prefill_measured_bytes, &KvMemory::decode_measured_bytes,
                                &KvMemory::measured_increase_bytes, &KvMemory::prefill_collected_bytes,
                                &KvMemory::decode_collected_bytes, &KvMemory::collected_heap_bytes,
                                &KvMemory::prefill_caller_buffers_bytes})
    unmeasured.*f = k.*f;
  EXPECT_EQ(json(unmeasured).dump(), json(k).dump());

  // A runtime whose memory is not predicted (ONNX Runtime Web): the model's weights and the cache stay, nothing
  // predicted does, the measurement stands, and the reason survives the JSON.
  in.measured = &measured;
  in.not_predicted = "no rules for it";
  const KvMemory web = decoder_memory(in);
  EXPECT_EQ(web.not_predicted, "no rules for it");
  EXPECT_EQ(web.weights_bytes, k.weights_bytes);
  EXPECT_EQ(web.decode_kv_bytes, k.decode_kv_bytes);
  EXPECT_EQ(web.per_step_kv_bytes, k.per_step_kv_bytes);
  for (uint64_t KvMemory::*f : {&KvMemory::prefill_activations_bytes, &KvMemory::decode_activations_bytes,
                                &KvMemory::prefill_peak_bytes, &KvMemory::decode_peak_bytes, &KvMemory::predicted_bytes,
                                &KvMemory::baseline_bytes, &KvMemory::prepacked_bytes, &KvMemory::prefill_copies_bytes,
                                &KvMemory::session_beyond_bytes})
    EXPECT_EQ(web.*f, 0u);
  EXPECT_EQ(web.prefill_collected_bytes, 33'000u);
  EXPECT_EQ(web.decode_measured_bytes, 38'000u);
  EXPECT_EQ(json(json(web).get<KvMemory>()).dump(), json(web).dump());
  EXPECT_FALSE(json(k).contains("not_predicted"));
}
