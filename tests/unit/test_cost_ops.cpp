// Cost registry: lookup rules, coverage of the ops real models use, the doc table, and the elementwise,
// data-movement and miscellaneous families. Every expected number is worked out by hand in a comment.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/saturating.h"
#include "test_cost_helpers.h"

namespace rooflens {
namespace {
using testing::OpCase;
using testing::registry;

// ---------- registry ----------

TEST(CostRegistry, AiOnnxIsTheDefaultDomain) {
  EXPECT_NE(registry().find("ai.onnx", "Conv"), nullptr);
  EXPECT_EQ(registry().find("ai.onnx", "Conv"), registry().find("", "Conv"));
  EXPECT_EQ(registry().find("", "NoSuchOp"), nullptr);
  EXPECT_EQ(registry().find("com.microsoft", "Relu"), nullptr);  // domains are not mixed up
}

TEST(CostRegistry, AddReplacesAndOpsAreSorted) {
  CostRegistry r;
  r.add("ai.onnx", "B", [](const CostInput&) { OpWork w;
    w.flops = 1;
    return w; });
  r.add("", "A", [](const CostInput&) { return OpWork{}; });
  r.add("", "B", [](const CostInput&) { OpWork w;
    w.flops = 2;
    return w; });
  const auto ops = r.ops();
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].second, "A");
  EXPECT_EQ((*r.find("", "B"))(CostInput{}).flops, 2u);
  const auto all = registry().ops();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
}

// The acceptance list: ops real models use must all be registered.
TEST(CostRegistry, CoversTheOpsRealModelsUse) {
  const std::vector<std::string> onnx = {
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "GlobalAveragePool",
      "GlobalMaxPool", "LpPool", "BatchNormalization", "LayerNormalization", "InstanceNormalization",
      "GroupNormalization", "LRN", "MeanVarianceNormalization", "Relu", "LeakyRelu", "PRelu", "Elu", "Selu",
      "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Softplus", "Softsign", "Gelu", "Mish",
      "ThresholdedRelu", "Clip", "Erf", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Ceil", "Floor",
      "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
      "Pow", "Not", "IsNaN", "IsInf", "Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Mean", "Sum", "Equal",
      "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor", "BitShift", "BitwiseAnd",
      "BitwiseOr", "BitwiseXor", "BitwiseNot", "Where", "Cast", "CastLike", "Softmax", "LogSoftmax", "Hardmax",
      "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
      "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "TopK", "CumSum", "MatMul",
      "Gemm", "Einsum", "MatMulInteger", "QLinearMatMul", "LSTM", "GRU", "RNN", "Reshape", "Flatten",
      "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
      "Scatter", "ScatterElements", "ScatterND", "Expand", "Tile", "Pad", "Identity", "Shape", "Size",
      "ConstantOfShape", "Constant", "Range", "NonZero", "DepthToSpace", "SpaceToDepth", "Dropout", "OneHot",
      "Trilu", "ReverseSequence", "Compress", "Unique", "Resize", "Upsample", "QuantizeLinear",
      "DequantizeLinear", "DynamicQuantizeLinear", "NonMaxSuppression", "RoiAlign", "If", "Loop", "Scan",
      "GridSample", "DFT", "Det", "Bernoulli", "RandomNormal", "RandomUniform", "RandomNormalLike",
      "RandomUniformLike", "SimplifiedLayerNormalization", "Attention", "RotaryEmbedding"};
  const std::vector<std::string> ms = {
      "FusedConv", "FusedGemm", "FusedMatMul", "Attention", "MultiHeadAttention", "GroupQueryAttention",
      "SkipLayerNormalization", "SkipSimplifiedLayerNormalization", "SimplifiedLayerNormalization",
      "EmbedLayerNormalization", "BiasGelu", "FastGelu", "Gelu", "QuickGelu", "BiasAdd", "BiasSoftmax",
      "RotaryEmbedding", "MatMulNBits", "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "QLinearAdd",
      "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearConcat", "QLinearAveragePool",
      "QLinearGlobalAveragePool", "QLinearSoftmax", "QGemm", "QAttention", "NhwcConv", "NhwcMaxPool",
      "Inverse", "Trilu", "Unique", "GatherND", "QuantizeLinear", "DequantizeLinear", "QLinearConv"};
  const std::vector<std::string> nchwc = {"Conv", "MaxPool", "AveragePool", "GlobalMaxPool",
                                          "GlobalAveragePool", "ReorderInput", "ReorderOutput", "Upsample"};
  for (const auto& op : onnx) EXPECT_NE(registry().find(kOnnx, op), nullptr) << op;
  for (const auto& op : ms) EXPECT_NE(registry().find(kMs, op), nullptr) << "com.microsoft " << op;
  for (const auto& op : nchwc) EXPECT_NE(registry().find(kNchwc, op), nullptr) << "nchwc " << op;
}

// Every cost function must survive hostile input: no inputs at all, unknown shapes, scalars, zero dims,
// absurd dims. Results may be unknown, but never a crash or a division by zero (run under UBSan).
TEST(CostRegistry, EveryOpSurvivesDegenerateShapes) {
  const int64_t big = int64_t{1} << 40;
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {0, 0, 0, 0}, {-1, 4}, {1, 1, 1, 1, 1}, {big, big, 3}};
  for (bool hostile_attrs : {false, true})
  for (const auto& [domain, op] : registry().ops()) {
    const CostFn& fn = *registry().find(domain, op);
    Node node;
    node.op = op;
    node.domain = domain;
    (void)fn(CostInput{});  // no node, no tensors
    if (hostile_attrs) {
      auto add = [&](const char* name, int64_t v) {
        Attribute a;
        a.name = name;
        a.kind = Attribute::Kind::Int;
        a.i = v;
        node.attrs.push_back(a);
      };
      for (const char* n : {"num_heads", "kv_num_heads", "q_num_heads", "K", "N", "hidden_size", "group"})
        add(n, 0);
      add("size", -5);
      add("axis", 100);
      add("sampling_ratio", -1);
      add("p", 3);
      add("transA", 1);
      add("transBatchA", 1);
      Attribute eq;
      eq.name = "equation";
      eq.kind = Attribute::Kind::String;
      eq.s = "...a...,,->";
      node.attrs.push_back(eq);
      Attribute ks;
      ks.name = "kernel_shape";
      ks.kind = Attribute::Kind::Ints;
      ks.ints = {-1, 1 << 30, 1 << 30, 1 << 30};
      node.attrs.push_back(ks);
      for (const char* n : {"mode", "activation", "reduction", "approximate"}) {
        Attribute m;
        m.name = n;
        m.kind = Attribute::Kind::String;
        m.s = std::string(n) == "mode" ? "cubic" : "bogus";
        node.attrs.push_back(m);
      }
    }
    CostInput c;
    c.node = &node;
    (void)fn(c);
    for (const auto& dims : shapes) {
      const TensorInfo t = make_tensor_info(DType::Float, dims);
      node.inputs.assign(9, "x");
      node.outputs.assign(3, "y");
      CostInput full;
      full.node = &node;
      full.in.assign(9, &t);
      full.out.assign(3, &t);
      full.in_is_initializer.assign(9, false);
      const OpWork w = fn(full);
      EXPECT_LE(w.macs, w.flops == kCountMax ? kCountMax : w.flops) << domain << " " << op;
    }
  }
}

// ---------- docs/cost-model.md lists every registered op (and nothing unregistered) ----------

std::filesystem::path find_doc() {
  namespace fs = std::filesystem;
  const fs::path rel = fs::path("docs") / "cost-model.md";
  const fs::path beside = fs::path(__FILE__).parent_path() / ".." / ".." / rel;
  if (fs::exists(beside)) return beside;
  for (fs::path p = fs::current_path(); !p.empty(); p = p.parent_path()) {  // build dir under the tree
    if (fs::exists(p / rel)) return p / rel;
    if (p == p.parent_path()) break;
  }
  return beside;
}

// Table rows start with "| "; the first cell is `Op`, `Op2`, ... optionally followed by " (domain)".
std::set<std::pair<std::string, std::string>> documented_ops() {
  std::ifstream in(find_doc());
  std::set<std::pair<std::string, std::string>> ops;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::string cell = line.substr(2, line.find(" |", 2) - 2);
    std::string domain;
    if (!cell.empty() && cell.back() == ')') {
      const size_t open = cell.rfind(" (");
      domain = cell.substr(open + 2, cell.size() - open - 3);
    }
    for (size_t a = cell.find('`'); a != std::string::npos; a = cell.find('`', a + 1)) {
      const size_t b = cell.find('`', a + 1);
      if (b == std::string::npos) break;
      ops.insert({domain, cell.substr(a + 1, b - a - 1)});
      a = b;
    }
  }
  return ops;
}

TEST(CostModelDoc, ListsEveryRegisteredOp) {
  ASSERT_TRUE(std::filesystem::exists(find_doc())) << find_doc();
  const auto doc = documented_ops();
  ASSERT_GT(doc.size(), 100u);
  for (const auto& [domain, op] : registry().ops())
    EXPECT_TRUE(doc.count({domain, op})) << "docs/cost-model.md has no row for " << op << " ("
                                         << (domain.empty() ? "ai.onnx" : domain) << ")";
  for (const auto& [domain, op] : doc)
    EXPECT_NE(registry().find(domain, op), nullptr) << "documented but not registered: " << domain << " " << op;
}

// ---------- elementwise ----------

TEST(CostElementwise, UnaryCountsPerOutputElement) {
  EXPECT_WORK(OpCase("Relu").in({2, 3}).out({2, 3}).run(), 6, 0);          // 6 x 1
  EXPECT_WORK(OpCase("Sigmoid").in({10}).out({10}).run(), 60, 0);          // 10 x (exp 4 + add + div)
  EXPECT_WORK(OpCase("Tanh").in({5}).out({5}).run(), 20, 0);               // 5 x 4
  EXPECT_WORK(OpCase("Mish").in({2}).out({2}).run(), 28, 0);               // 2 x (softplus 9 + tanh 4 + mul)
  EXPECT_WORK(OpCase("HardSwish").in({4}).out({4}).run(), 20, 0);          // 4 x 5
  EXPECT_WORK(OpCase("Cast").in({4}).out({4}, DType::Float16).run(), 0, 0);
}

TEST(CostElementwise, BinaryBroadcastsToTheOutput) {
  // [2,3,4] + [4] -> 24 outputs, one add each.
  EXPECT_WORK(OpCase("Add").in({2, 3, 4}).in({4}).out({2, 3, 4}).run(), 24, 0);
  EXPECT_WORK(OpCase("Where").in({3}, DType::Bool).in({3}).in({1}).out({3}).run(), 3, 0);
}

TEST(CostElementwise, VariadicCountsInputsMinusOne) {
  // Sum of 3 inputs: 2 adds x 5 outputs = 10; Mean adds a divide: 3 x 5 = 15.
  EXPECT_WORK(OpCase("Sum").in({5}).in({5}).in({5}).out({5}).run(), 10, 0);
  EXPECT_WORK(OpCase("Mean").in({5}).in({5}).in({5}).out({5}).run(), 15, 0);
  EXPECT_WORK(OpCase("Max").in({5}).out({5}).run(), 0, 0);  // a single input is a copy
}

TEST(CostElementwise, GeluFormsAndMsVariants) {
  EXPECT_WORK(OpCase("Gelu").in({4}).out({4}).run(), 32, 0);                            // 4 x erf form 8
  EXPECT_WORK(OpCase("Gelu").attr_s("approximate", "tanh").in({4}).out({4}).run(), 48, 0);  // 4 x 12
  EXPECT_WORK(OpCase("FastGelu", kMs).in({2}).in({2}).out({2}).run(), 26, 0);           // 2 x (12 + bias)
  EXPECT_WORK(OpCase("BiasGelu", kMs).in({2}).in({2}).out({2}).run(), 18, 0);           // 2 x 9
  EXPECT_WORK(OpCase("QuickGelu", kMs).in({3}).out({3}).run(), 24, 0);                  // 3 x 8
  EXPECT_WORK(OpCase("BiasAdd", kMs).in({3}).in({3}).in({3}).out({3}).run(), 6, 0);     // 3 x 2
}

TEST(CostElementwise, UnresolvedOutputIsUnknownNotZero) {
  const OpWork w = OpCase("Relu").in({-1, 3}).out({-1, 3}).run();
  EXPECT_FALSE(w.known);
  EXPECT_EQ(w.note, "shape of output 0 unresolved");
}

// ---------- data movement and resampling ----------

TEST(CostShape, MovementOpsAreKnownZeroWithoutShapes) {
  for (const char* op : {"Reshape", "Transpose", "Gather", "Concat", "Slice", "Pad", "Identity", "Dropout"}) {
    const OpWork w = OpCase(op).unresolved().run();
    EXPECT_TRUE(w.known) << op;
    EXPECT_EQ(w.flops, 0u) << op;
  }
  EXPECT_WORK(OpCase("ReorderInput", kNchwc).in({1, 3, 4, 4}).out({1, 8, 4, 4}).run(), 0, 0);
}

TEST(CostShape, ScatterWithReductionCountsUpdates) {
  EXPECT_WORK(OpCase("ScatterND").in({5, 4}).in({3, 1}, DType::Int64).in({3, 4}).out({5, 4}).run(), 0, 0);
  // reduction=add: one add per update element, 3 x 4 = 12.
  EXPECT_WORK(OpCase("ScatterND").attr_s("reduction", "add").in({5, 4}).in({3, 1}, DType::Int64).in({3, 4})
                  .out({5, 4}).run(), 12, 0);
}

TEST(CostShape, ResizeByMode) {
  // [1,3,4,4] -> [1,3,8,8]: 192 outputs, 2 resized axes.
  auto resize = [](const char* mode) {
    return OpCase("Resize").attr_s("mode", mode).in({1, 3, 4, 4}).none().in({4}).out({1, 3, 8, 8}).run();
  };
  EXPECT_WORK(resize("nearest"), 0, 0);
  EXPECT_WORK(resize("linear"), 1536, 0);   // 192 x 2 x 2^2
  EXPECT_WORK(resize("cubic"), 6144, 0);    // 192 x 2 x 4^2
  EXPECT_WORK(OpCase("Upsample", kNchwc).attr_s("mode", "linear").in({1, 8, 2, 2}).out({1, 8, 4, 4}).run(),
              1024, 0);                     // 128 x 8
  EXPECT_FALSE(OpCase("Resize").attr_s("mode", "linear").in({1, 3, -1, -1}).out({1, 3, 8, 8}).run().known);
}

TEST(CostShape, GridSampleAndRoiAlign) {
  // GridSample [1,2,3,3] output, 2 spatial axes, bilinear: 18 x 8 = 144.
  EXPECT_WORK(OpCase("GridSample").attr_s("mode", "bilinear").in({1, 2, 5, 5}).in({1, 3, 3, 2})
                  .out({1, 2, 3, 3}).run(), 144, 0);
  // RoiAlign output [2,3,2,2] = 24 bins, sampling 2: 24 x (4 samples x 8 + 1) = 792.
  EXPECT_WORK(OpCase("RoiAlign").attr("sampling_ratio", 2).in({1, 3, 8, 8}).in({2, 4}).in({2}, DType::Int64)
                  .out({2, 3, 2, 2}).run(), 792, 0);
}

// ---------- misc ----------

TEST(CostMisc, NonMaxSuppressionPairwise) {
  // scores [1,2,4]: per class 6 pairs x 12 + 4 x ceil(log2 4)=2 -> 80; 2 classes -> 160.
  EXPECT_WORK(OpCase("NonMaxSuppression").in({1, 4, 4}).in({1, 2, 4}).out({3, 3}, DType::Int64).run(), 160, 0);
}

TEST(CostMisc, LinearAlgebraAndSpectral) {
  // Det [3,4,4]: 2*64/3 = 42 per matrix x 3 = 126.
  EXPECT_WORK(OpCase("Det").in({3, 4, 4}).out({3}).run(), 126, 0);
  // Inverse [2,3,3]: 2*27 = 54 per matrix x 2 = 108.
  EXPECT_WORK(OpCase("Inverse", kMs).in({2, 3, 3}).out({2, 3, 3}).run(), 108, 0);
  // DFT-17 axis 1 on [2,8,2]: 2 transforms x 5*8*3 = 240.
  EXPECT_WORK(OpCase("DFT").attr("axis", 1).in({2, 8, 2}).out({2, 8, 2}).run(), 240, 0);
  // DFT-20: axis defaults to -2 -> same signal.
  EXPECT_WORK(OpCase("DFT").opset(20).in({2, 8, 2}).out({2, 8, 2}).run(), 240, 0);
}

TEST(CostMisc, ControlFlowAndRandom) {
  const OpWork w = OpCase("Loop").unresolved().run();
  EXPECT_TRUE(w.known);
  EXPECT_EQ(w.flops, 0u);
  EXPECT_NE(w.note.find("body"), std::string::npos);
  EXPECT_WORK(OpCase("RandomNormal").out({3, 3}).run(), 9, 0);
  EXPECT_WORK(OpCase("Constant").out({3, 3}).run(), 0, 0);
}

}  // namespace
}  // namespace rooflens
