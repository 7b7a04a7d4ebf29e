// Kernels that run inside a control-flow kernel (If branches, Loop bodies): ORT's profile nests their events in the
// If's own, so the If's layer keeps only its own time, each subgraph kernel names the kernel it ran inside, and
// assembly gives it its subgraph node's cost, which the If's layer then no longer counts. Without that, a Silero
// VAD profile's layers added up to twice the run.
#include <gtest/gtest.h>

#include <string>

#include "assembly/layers.h"
#include "backends/onnxruntime/ort_measure.h"
#include "backends/onnxruntime/ort_profile.h"

using namespace rooflens;

namespace {

// One run on thread 7: Equal, then If_0 (100 µs) whose branch runs A (30 µs) and a nested If_1 (40 µs) that runs B
// (25 µs). Thread 9 runs C inside If_0's span but on another thread: not part of its subgraph. ORT writes each
// event when it ends, so children come before their parents in the file.
const char* kNested = R"([
{"cat":"Node","pid":1,"tid":7,"dur":5,"ts":1002,"ph":"X","name":"Equal_0_kernel_time","args":{"op_name":"Equal"}},
{"cat":"Node","pid":1,"tid":7,"dur":30,"ts":1020,"ph":"X","name":"A_kernel_time","args":{"op_name":"Conv"}},
{"cat":"Node","pid":1,"tid":7,"dur":25,"ts":1060,"ph":"X","name":"B_kernel_time","args":{"op_name":"Relu"}},
{"cat":"Node","pid":1,"tid":7,"dur":40,"ts":1055,"ph":"X","name":"If_1_kernel_time","args":{"op_name":"If"}},
{"cat":"Node","pid":1,"tid":9,"dur":50,"ts":1030,"ph":"X","name":"C_kernel_time","args":{"op_name":"MatMul"}},
{"cat":"Node","pid":1,"tid":7,"dur":101,"ts":1010,"ph":"X","name":"If_0_kernel_time","args":{"op_name":"If"}},
{"cat":"Session","pid":1,"tid":7,"dur":120,"ts":1000,"ph":"X","name":"model_run","args":{}}
])";

const KernelRecord& named(const std::vector<KernelRecord>& ks, const std::string& name) {
  for (const auto& k : ks)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

TEST(ControlFlowKernels, OrtIfKeepsOnlyItsOwnTimeAndItsSubgraphKernelsNameIt) {
  auto ks = ort::kernel_records(ort::parse_ort_profile(kNested, "p.json"), 0, 1);
  ASSERT_EQ(ks.size(), 6u);
  EXPECT_DOUBLE_EQ(named(ks, "If_0").per_iteration_ms[0], 0.031);  // 101 - 30 (A) - 40 (If_1)
  EXPECT_DOUBLE_EQ(named(ks, "If_1").per_iteration_ms[0], 0.015);  // 40 - 25 (B)
  EXPECT_DOUBLE_EQ(named(ks, "A").per_iteration_ms[0], 0.030);
  EXPECT_DOUBLE_EQ(named(ks, "C").per_iteration_ms[0], 0.050);  // another thread: not inside If_0
  EXPECT_EQ(named(ks, "A").enclosing, "If_0");
  EXPECT_EQ(named(ks, "If_1").enclosing, "If_0");
  EXPECT_EQ(named(ks, "B").enclosing, "If_1");
  EXPECT_EQ(named(ks, "C").enclosing, "");
  EXPECT_EQ(named(ks, "Equal_0").enclosing, "");
  double sum = 0;
  for (const auto& k : ks)
    if (k.name != "C") sum += k.per_iteration_ms[0];
  EXPECT_NEAR(sum, 0.005 + 0.101, 1e-12);  // thread 7's kernels add up to its top-level events once
}

NodeAnalysis analysed(std::string name, std::string op, std::string graph, uint64_t flops,
                      NodeExecution e = NodeExecution::Run) {
  NodeAnalysis n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.graph = std::move(graph);
  n.flops = flops;
  n.bytes_read = 400;
  n.bytes_written = 100;
  n.execution = e;
  return n;
}

KernelRecord kernel(std::string name, double ms, std::string enclosing = "") {
  KernelRecord k;
  k.name = std::move(name);
  k.per_iteration_ms = {ms};
  k.enclosing = std::move(enclosing);
  return k;
}

// main: cond -> by_rate (If). The taken branch runs "mm" (and a Relu no kernel of its own computed: fused); the
// branch not taken has a node of the same name.
struct IfModel {
  GraphView g;
  Analysis a;
  IfModel() {
    g.nodes = {{"cond", "Equal", "", {"sr", "k"}, {"c"}, {}}, {"by_rate", "If", "", {"c"}, {"y"}, {}}};
    g.graph_outputs = {"y"};
    a.nodes = {analysed("cond", "Equal", "main", 1), analysed("by_rate", "If", "main", 0),
               analysed("mm", "MatMul", "main/by_rate:else_branch", 0, NodeExecution::NotTaken),
               analysed("mm", "MatMul", "main/by_rate:then_branch", 1024),
               analysed("relu", "Relu", "main/by_rate:then_branch", 64)};
  }
  LayerBuild build(const std::vector<KernelRecord>& ks) const {
    LayerSources in;
    in.original = &g;
    in.analysis = &a;
    return build_layers(ks, in);
  }
};

const Layer& layer(const LayerBuild& b, const std::string& name) {
  for (const auto& l : b.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

TEST(ControlFlowLayers, SubgraphKernelTakesItsNodesCostAndTheIfKeepsTheRest) {
  IfModel m;
  LayerBuild b = m.build({kernel("cond", 0.01), kernel("by_rate", 0.02), kernel("mm", 0.05, "by_rate")});
  EXPECT_EQ(b.unmapped_kernels, 0);
  const Layer& mm = layer(b, "mm");
  EXPECT_EQ(mm.onnx_nodes, std::vector<std::string>{"mm"});
  EXPECT_EQ(mm.flops, 1024u);  // the taken branch's node, not the same-named one never run
  EXPECT_EQ(mm.bytes, 500u);
  const Layer& branch = layer(b, "by_rate");
  EXPECT_EQ(branch.onnx_nodes, std::vector<std::string>{"by_rate"});
  EXPECT_EQ(branch.flops, 64u);  // the fused Relu: no kernel of its own, so it stays with its If
}

TEST(ControlFlowLayers, WithoutNestingTheIfCountsItsWholeSubgraph) {
  IfModel m;
  // A source that does not say where a kernel ran: "mm" matches no top-level node and the If keeps every cost.
  LayerBuild b = m.build({kernel("cond", 0.01), kernel("by_rate", 0.07), kernel("mm", 0.05)});
  EXPECT_EQ(b.unmapped_kernels, 1);
  EXPECT_EQ(layer(b, "by_rate").flops, 1024u + 64u);
  EXPECT_EQ(layer(b, "mm").flops, 0u);
}

}  // namespace
