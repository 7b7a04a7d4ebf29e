// Unit tests for rooflens' own shape functions (model/shape_ops.h). Every expected shape below was worked out
// by hand from the op's definition; the comment next to a case shows the arithmetic.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/shape_ops.h"

// GCC 12 at -O2 sees the std::optional<std::vector> temporaries of OpCase::in's default argument destroyed through
// an uninitialised path (GCC bug 80635, "std::optional and bogus -Wmaybe-uninitialized warning"); clang does not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace rooflens {
namespace {

using Values = std::optional<std::vector<int64_t>>;
using shape_util::matmul_shape;

TensorInfo T(std::vector<int64_t> dims, DType d = DType::Float) { return make_tensor_info(d, dims); }

// Builds one node plus its input types/values, runs the registered shape function, returns the outputs.
class OpCase {
 public:
  OpCase(std::string domain, std::string op, int opset = 1) {
    node_.op = std::move(op);
    node_.domain = std::move(domain);
    node_.opset = opset;
    node_.name = node_.op + "_0";
    node_.outputs = {"y0"};
  }
  OpCase& in(TensorInfo t, Values v = std::nullopt) { return push("x", std::move(t), std::move(v)); }
  // A named input whose type and shape nobody knows.
  OpCase& unknown(Values v = std::nullopt) { return push("x", std::nullopt, std::move(v)); }
  // An omitted optional input ("" in the node).
  OpCase& omitted() { return push("", std::nullopt, std::nullopt); }
  OpCase& attr(const std::string& name, int64_t v) {
    Attribute a; a.name = name; a.kind = Attribute::Kind::Int; a.i = v;
    node_.attrs.push_back(a);
    return *this;
  }
  OpCase& attr(const std::string& name, int v) { return attr(name, static_cast<int64_t>(v)); }
  OpCase& attr(const std::string& name, std::vector<int64_t> v) {
    Attribute a; a.name = name; a.kind = Attribute::Kind::Ints; a.ints = std::move(v);
    node_.attrs.push_back(a);
    return *this;
  }
  OpCase& attr(const std::string& name, const char* v) {
    Attribute a; a.name = name; a.kind = Attribute::Kind::String; a.s = v;
    node_.attrs.push_back(a);
    return *this;
  }
  OpCase& attr_tensor(const std::string& name, DType d) {
    Attribute a; a.name = name; a.kind = Attribute::Kind::Tensor; a.tensor = T({1}, d);
    node_.attrs.push_back(a);
    return *this;
  }
  OpCase& outputs(size_t n) {
    node_.outputs.resize(n, "y");
    return *this;
  }
  bool registered(const ShapeRegistry& r) const { return r.find(node_.domain, node_.op, node_.opset); }

  std::vector<TensorInfo> run(const ShapeRegistry& r, bool* ok = nullptr, bool pass_node = true) const {
    const ShapeFn* fn = r.find(node_.domain, node_.op, node_.opset);
    EXPECT_NE(fn, nullptr) << node_.domain << "::" << node_.op << "-" << node_.opset;
    std::vector<TensorInfo> out(node_.outputs.size());
    if (!fn) return out;
    ShapeInput s;
    s.node = pass_node ? &node_ : nullptr;
    for (const auto& t : types_) s.in.push_back(t ? &*t : nullptr);
    s.in_values = values_;
    bool res = (*fn)(s, out);
    if (ok) *ok = res;
    return out;
  }
  std::vector<TensorInfo> run() const { return run(reg()); }
  static const ShapeRegistry& reg() {
    static const ShapeRegistry r = ShapeRegistry::builtin();
    return r;
  }

 private:
  OpCase& push(const char* name, std::optional<TensorInfo> t, Values v) {
    node_.inputs.push_back(name);
    types_.push_back(std::move(t));
    values_.push_back(std::move(v));
    return *this;
  }
  Node node_;
  std::vector<std::optional<TensorInfo>> types_;
  std::vector<Values> values_;
};

std::string S(const TensorInfo& t) { return t.shape_string(); }
const char* D(const TensorInfo& t) { return dtype_name(t.dtype); }

// ---------------------------------------------------------------- registry and helpers

TEST(ShapeRegistry, FindPicksHighestMinOpsetNotAboveNodeOpset) {
  ShapeRegistry r;
  auto tag = [](int64_t v) {
    return ShapeFn([v](const ShapeInput&, std::vector<TensorInfo>& out) {
      out[0] = T({v});
      return true;
    });
  };
  r.add("", "Op", 1, tag(1));
  r.add("", "Op", 18, tag(18));
  r.add("", "Op", 13, tag(13));
  auto which = [&](const std::string& domain, int opset) -> int64_t {
    const ShapeFn* fn = r.find(domain, "Op", opset);
    if (!fn) return -1;
    std::vector<TensorInfo> out(1);
    (*fn)(ShapeInput{}, out);
    return out[0].dims[0].value;
  };
  EXPECT_EQ(which("", 0), -1);
  EXPECT_EQ(which("", 1), 1);
  EXPECT_EQ(which("", 12), 1);
  EXPECT_EQ(which("", 13), 13);
  EXPECT_EQ(which("", 17), 13);
  EXPECT_EQ(which("", 21), 18);
  EXPECT_EQ(which("ai.onnx", 21), 18);  // ai.onnx is the default domain
  EXPECT_EQ(which("com.microsoft", 21), -1);
  r.add("ai.onnx", "Op", 18, tag(99));  // same key: replaces
  EXPECT_EQ(which("", 20), 99);
}

TEST(ShapeRegistry, BuiltinLeavesOldOpsetsToLibonnx) {
  const auto& r = OpCase::reg();
  EXPECT_EQ(r.find("", "ReduceMean", 17), nullptr);
  EXPECT_NE(r.find("", "ReduceMean", 18), nullptr);
  EXPECT_NE(r.find("", "ReduceSum", 13), nullptr);
  EXPECT_EQ(r.find("", "Split", 13), nullptr);
  EXPECT_EQ(r.find("", "Gelu", 19), nullptr);
  EXPECT_NE(r.find("", "Gelu", 20), nullptr);
  EXPECT_EQ(r.find("", "Softplus", 21), nullptr);
  EXPECT_NE(r.find("", "Softplus", 22), nullptr);
  EXPECT_NE(r.find("com.microsoft", "FusedConv", 1), nullptr);
  EXPECT_NE(r.find("com.microsoft.nchwc", "ReorderInput", 1), nullptr);
  EXPECT_EQ(r.find("com.microsoft", "NoSuchOp", 1), nullptr);
}

TEST(ShapeHelpers, ValueOutOfRangeIsUnknown) {
  ShapeInput s;
  s.in_values.push_back(std::vector<int64_t>{1, 2});
  EXPECT_EQ(*s.value(0), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(s.value(1).has_value());
  EXPECT_FALSE(s.value(1000).has_value());
}

TEST(ShapeHelpers, Broadcast) {
  EXPECT_EQ(S(broadcast(T({2, 1, 4}), T({3, 1}))), "2x3x4");
  TensorInfo sym = T({-1, 5});
  sym.dims[0].symbol = "batch";
  EXPECT_EQ(S(broadcast(sym, T({1, 5}))), "batchx5");  // unknown vs 1: keeps the symbol
  EXPECT_EQ(S(broadcast(T({-1}), T({7}))), "7");       // unknown vs 7 must be 7 (or 1)
  EXPECT_EQ(S(broadcast(T({2}), T({3}))), "?");         // incompatible: not invented
  EXPECT_EQ(S(broadcast(T({2}), TensorInfo{})), "?");  // rank unknown
  EXPECT_EQ(S(same_as(nullptr)), "?");
  EXPECT_EQ(with_dtype(T({1}), DType::Int8).dtype, DType::Int8);
}

TEST(ShapeHelpers, MatmulShape) {
  EXPECT_EQ(S(matmul_shape(T({4, 5}), T({3, 5, 6}))), "3x4x6");
  EXPECT_EQ(S(matmul_shape(T({5}), T({2, 5, 6}))), "2x6");
  EXPECT_EQ(S(matmul_shape(T({2, 4, 5}), T({5}))), "2x4");
  EXPECT_EQ(S(matmul_shape(T({5}), T({5}))), "scalar");
}

// ---------------------------------------------------------------- com.microsoft fused ops

TEST(ContribShapes, FusedConvPadsStrides) {
  // (224 + 3 + 3 - 7) / 2 + 1 = 112
  auto o = OpCase("com.microsoft", "FusedConv").in(T({1, 3, 224, 224})).in(T({64, 3, 7, 7}))
               .attr("strides", std::vector<int64_t>{2, 2}).attr("pads", std::vector<int64_t>{3, 3, 3, 3})
               .attr("activation", "Relu").run();
  EXPECT_EQ(S(o[0]), "1x64x112x112");
  EXPECT_STREQ(D(o[0]), "float");
}

TEST(ContribShapes, FusedConvAutoPadDilationSymbolicBatch) {
  TensorInfo x = T({-1, 8, 225, 32});
  x.dims[0].symbol = "N";
  // SAME_UPPER: ceil(225 / 2) = 113, ceil(32 / 2) = 16
  auto same = OpCase("com.microsoft", "FusedConv").in(x).in(T({16, 8, 3, 3}))
                  .attr("auto_pad", "SAME_UPPER").attr("strides", std::vector<int64_t>{2, 2}).run();
  EXPECT_EQ(S(same[0]), "Nx16x113x16");
  // dilation 2, kernel 3: effective 5; (32 - 5) / 1 + 1 = 28; kernel_shape attr wins over W's dims
  auto dil = OpCase("com.microsoft", "FusedConv").in(T({1, 8, 32, 32})).in(T({16, 8, -1, -1}))
                 .attr("kernel_shape", std::vector<int64_t>{3, 3}).attr("dilations", std::vector<int64_t>{2, 2})
                 .run();
  EXPECT_EQ(S(dil[0]), "1x16x28x28");
  // group conv, 1-D, VALID: (100 - 5) / 3 + 1 = 32
  auto g = OpCase("com.microsoft", "FusedConv").in(T({2, 32, 100})).in(T({32, 1, 5}))
               .attr("group", 32).attr("auto_pad", "VALID").attr("strides", std::vector<int64_t>{3}).run();
  EXPECT_EQ(S(g[0]), "2x32x32");
}

TEST(ContribShapes, FusedGemm) {
  EXPECT_EQ(S(OpCase("com.microsoft", "FusedGemm").in(T({8, 256})).in(T({1000, 256})).attr("transB", 1).run()[0]),
            "8x1000");
  EXPECT_EQ(S(OpCase("com.microsoft", "FusedGemm").in(T({256, 8})).in(T({256, 10})).attr("transA", 1).run()[0]),
            "8x10");
}

TEST(ContribShapes, FusedMatMul) {
  EXPECT_EQ(S(OpCase("com.microsoft", "FusedMatMul").in(T({2, 3, 4, 5})).in(T({2, 3, 6, 5}))
                  .attr("transB", 1).run()[0]), "2x3x4x6");
  EXPECT_EQ(S(OpCase("com.microsoft", "FusedMatMul").in(T({5, 4})).in(T({3, 5, 6}))
                  .attr("transA", 1).run()[0]), "3x4x6");
  // transBatchA: A [S=7, B=2, K=4] is used as [2, 7, 4]; times [2, 4, 5] -> [2, 7, 5]
  EXPECT_EQ(S(OpCase("com.microsoft", "FusedMatMul").in(T({7, 2, 4})).in(T({2, 4, 5}))
                  .attr("transBatchA", 1).run()[0]), "2x7x5");
}

TEST(ContribShapes, AttentionWithAndWithoutPast) {
  // weights [768, 2304]: hidden = 2304 / 3 = 768, head = 768 / 12 = 64
  auto o = OpCase("com.microsoft", "Attention").in(T({2, 128, 768})).in(T({768, 2304})).in(T({2304}))
               .attr("num_heads", 12).outputs(2).run();
  EXPECT_EQ(S(o[0]), "2x128x768");
  EXPECT_EQ(S(o[1]), "2x2x12x128x64");
  // past seq 10 + 1 new token = 11
  auto p = OpCase("com.microsoft", "Attention").in(T({2, 1, 768}, DType::Float16)).in(T({768, 2304}))
               .in(T({2304})).omitted().in(T({2, 2, 12, 10, 64}, DType::Float16)).attr("num_heads", 12)
               .outputs(2).run();
  EXPECT_EQ(S(p[0]), "2x1x768");
  EXPECT_EQ(S(p[1]), "2x2x12x11x64");
  EXPECT_STREQ(D(p[1]), "float16");
  // qkv_hidden_sizes decides the output width: 512 / 8 heads = 64
  auto q = OpCase("com.microsoft", "Attention").in(T({1, 4, 256})).in(T({256, 1536}))
               .attr("num_heads", 8).attr("qkv_hidden_sizes", std::vector<int64_t>{512, 512, 512}).run();
  EXPECT_EQ(S(q[0]), "1x4x512");
  // a past whose shape is unknown leaves the total length unknown
  auto u = OpCase("com.microsoft", "Attention").in(T({2, 1, 768})).in(T({768, 2304})).omitted().omitted()
               .unknown().attr("num_heads", 12).outputs(2).run();
  EXPECT_EQ(S(u[1]), "2x2x12x?x64");
}

TEST(ContribShapes, MultiHeadAttention) {
  // value [2, 32, 256] with 8 heads: v_head 32; key 512 / 8 = 64
  auto o = OpCase("com.microsoft", "MultiHeadAttention").in(T({2, 16, 512})).in(T({2, 32, 512}))
               .in(T({2, 32, 256})).attr("num_heads", 8).outputs(3).run();
  EXPECT_EQ(S(o[0]), "2x16x256");
  EXPECT_EQ(S(o[1]), "2x8x32x64");
  EXPECT_EQ(S(o[2]), "2x8x32x32");
  // packed QKV [B, S, N, 3, H]
  auto p = OpCase("com.microsoft", "MultiHeadAttention").in(T({2, 16, 8, 3, 64})).attr("num_heads", 8).run();
  EXPECT_EQ(S(p[0]), "2x16x512");
  // 4-D key/value plus past_key of 10: present = 10 + 1
  auto d = OpCase("com.microsoft", "MultiHeadAttention").in(T({1, 1, 512})).in(T({1, 8, 1, 64}))
               .in(T({1, 8, 1, 64})).omitted().omitted().omitted().in(T({1, 8, 10, 64})).in(T({1, 8, 10, 64}))
               .attr("num_heads", 8).outputs(3).run();
  EXPECT_EQ(S(d[0]), "1x1x512");
  EXPECT_EQ(S(d[1]), "1x8x11x64");
}

TEST(ContribShapes, GroupQueryAttention) {
  // 32 heads x 128 = 4096; kv 1024 / 8 kv heads = 128; cache = max(past 100, total 105) = 105
  auto o = OpCase("com.microsoft", "GroupQueryAttention").in(T({1, 5, 4096}, DType::Float16))
               .in(T({1, 5, 1024}, DType::Float16)).in(T({1, 5, 1024}, DType::Float16))
               .in(T({1, 8, 100, 128}, DType::Float16)).in(T({1, 8, 100, 128}, DType::Float16))
               .in(T({1}, DType::Int32)).in(T({}, DType::Int32), std::vector<int64_t>{105})
               .attr("num_heads", 32).attr("kv_num_heads", 8).outputs(3).run();
  EXPECT_EQ(S(o[0]), "1x5x4096");
  EXPECT_EQ(S(o[1]), "1x8x105x128");
  EXPECT_EQ(S(o[2]), "1x8x105x128");
  // packed QKV: 6144 / (32 + 2 * 8) = 128 -> 32 * 128 = 4096; total length unknown -> cache length unknown
  auto p = OpCase("com.microsoft", "GroupQueryAttention").in(T({1, 5, 6144})).omitted().omitted()
               .in(T({1, 8, 100, 128})).in(T({1, 8, 100, 128})).in(T({1}, DType::Int32)).unknown()
               .attr("num_heads", 32).attr("kv_num_heads", 8).outputs(3).run();
  EXPECT_EQ(S(p[0]), "1x5x4096");
  EXPECT_EQ(S(p[1]), "1x8x?x128");
}

TEST(ContribShapes, SkipLayerNormalizationFamily) {
  for (const char* op : {"SkipLayerNormalization", "SkipSimplifiedLayerNormalization"}) {
    auto o = OpCase("com.microsoft", op).in(T({2, 8, 768}, DType::Float16)).in(T({2, 8, 768}, DType::Float16))
                 .in(T({768}, DType::Float16)).outputs(4).run();
    EXPECT_EQ(S(o[0]), "2x8x768") << op;
    EXPECT_STREQ(D(o[0]), "float16");
    EXPECT_EQ(S(o[1]), "2x8x1") << op;
    EXPECT_STREQ(D(o[1]), "float");  // statistics are float in ORT
    EXPECT_EQ(S(o[2]), "2x8x1");
    EXPECT_EQ(S(o[3]), "2x8x768");
  }
  // SimplifiedLayerNormalization is registered in the default domain too (ORT puts it there).
  auto s = OpCase("", "SimplifiedLayerNormalization", 14).in(T({2, 8, 768})).in(T({768})).outputs(2).run();
  EXPECT_EQ(S(s[0]), "2x8x768");
  EXPECT_EQ(S(s[1]), "2x8x1");
  auto l = OpCase("", "LayerNormalization", 13).in(T({2, 8, 768})).in(T({768})).attr("axis", 1).outputs(3).run();
  EXPECT_EQ(S(l[1]), "2x1x1");
}

TEST(ContribShapes, EmbedLayerNormalization) {
  auto o = OpCase("com.microsoft", "EmbedLayerNormalization").in(T({4, 128}, DType::Int32))
               .in(T({4, 128}, DType::Int32)).in(T({30522, 768})).in(T({512, 768})).in(T({2, 768}))
               .in(T({768})).in(T({768})).outputs(3).run();
  EXPECT_EQ(S(o[0]), "4x128x768");
  EXPECT_STREQ(D(o[0]), "float");
  EXPECT_EQ(S(o[1]), "4");
  EXPECT_STREQ(D(o[1]), "int32");
  EXPECT_EQ(S(o[2]), "4x128x768");
}

TEST(ContribShapes, ElementwiseSameAsInput) {
  for (const char* op : {"BiasGelu", "FastGelu", "Gelu", "QuickGelu", "BiasAdd", "BiasSoftmax", "RotaryEmbedding"}) {
    auto o = OpCase("com.microsoft", op).in(T({2, 8, 64}, DType::Float16)).in(T({64}, DType::Float16)).run();
    EXPECT_EQ(S(o[0]), "2x8x64") << op;
    EXPECT_STREQ(D(o[0]), "float16") << op;
  }
}

// ---------------------------------------------------------------- quantized ops

TEST(QuantShapes, MatMulNBitsAndFriends) {
  auto n = OpCase("com.microsoft", "MatMulNBits").in(T({1, 7, 4096}, DType::Float16)).in(T({11008, 128, 16}, DType::UInt8))
               .in(T({11008 * 128}, DType::Float16)).attr("K", 4096).attr("N", 11008).attr("bits", 4)
               .attr("block_size", 32).run();
  EXPECT_EQ(S(n[0]), "1x7x11008");
  EXPECT_STREQ(D(n[0]), "float16");
  auto i = OpCase("com.microsoft", "MatMulIntegerToFloat").in(T({2, 3, 4}, DType::UInt8)).in(T({4, 5}, DType::Int8))
               .in(T({1})).in(T({5})).run();
  EXPECT_EQ(S(i[0]), "2x3x5");
  EXPECT_STREQ(D(i[0]), "float");
  auto d = OpCase("com.microsoft", "DynamicQuantizeMatMul").in(T({8, 16})).in(T({16, 32}, DType::Int8)).run();
  EXPECT_EQ(S(d[0]), "8x32");
  EXPECT_STREQ(D(d[0]), "float");
}

TEST(QuantShapes, QLinearElementwiseAndConcat) {
  const auto u8 = DType::UInt8;
  auto a = OpCase("com.microsoft", "QLinearAdd").in(T({1, 64, 56, 56}, u8)).in(T({})).in(T({}, u8))
               .in(T({1, 64, 1, 1}, u8)).in(T({})).in(T({}, u8)).in(T({})).in(T({}, u8)).run();
  EXPECT_EQ(S(a[0]), "1x64x56x56");
  EXPECT_STREQ(D(a[0]), "uint8");
  EXPECT_EQ(S(OpCase("com.microsoft", "QLinearSigmoid").in(T({3, 4}, u8)).run()[0]), "3x4");
  EXPECT_EQ(S(OpCase("com.microsoft", "QLinearLeakyRelu").in(T({3, 4}, u8)).run()[0]), "3x4");
  // 32 + 16 = 48 channels
  auto c = OpCase("com.microsoft", "QLinearConcat").in(T({})).in(T({}, u8)).in(T({1, 32, 8, 8}, u8)).in(T({}))
               .in(T({}, u8)).in(T({1, 16, 8, 8}, u8)).in(T({})).in(T({}, u8)).attr("axis", 1).run();
  EXPECT_EQ(S(c[0]), "1x48x8x8");
  auto cu = OpCase("com.microsoft", "QLinearConcat").in(T({})).in(T({}, u8)).in(T({1, 32, 8, 8}, u8)).in(T({}))
                .in(T({}, u8)).in(T({1, -1, 8, 8}, u8)).in(T({})).in(T({}, u8)).attr("axis", 1).run();
  EXPECT_EQ(S(cu[0]), "1x?x8x8");
}

TEST(QuantShapes, QLinearPoolsAndNhwc) {
  const auto u8 = DType::UInt8;
  EXPECT_EQ(S(OpCase("com.microsoft", "QLinearGlobalAveragePool").in(T({1, 64, 7, 7}, u8)).run()[0]), "1x64x1x1");
  EXPECT_EQ(S(OpCase("com.microsoft", "QLinearGlobalAveragePool").in(T({1, 7, 7, 64}, u8))
                  .attr("channels_last", 1).run()[0]), "1x1x1x64");
  // (56 + 1 + 1 - 3) / 2 + 1 = 28
  EXPECT_EQ(S(OpCase("com.microsoft", "QLinearAveragePool").in(T({1, 64, 56, 56}, u8))
                  .attr("kernel_shape", std::vector<int64_t>{3, 3}).attr("strides", std::vector<int64_t>{2, 2})
                  .attr("pads", std::vector<int64_t>{1, 1, 1, 1}).run()[0]), "1x64x28x28");
  // (112 + 2 - 3) / 2 + 1 = 56, channels stay last
  EXPECT_EQ(S(OpCase("com.microsoft", "NhwcMaxPool").in(T({1, 112, 112, 64}, DType::Int8))
                  .attr("kernel_shape", std::vector<int64_t>{3, 3}).attr("strides", std::vector<int64_t>{2, 2})
                  .attr("pads", std::vector<int64_t>{1, 1, 1, 1}).run()[0]), "1x56x56x64");
}

TEST(QuantShapes, QGemm) {
  const auto u8 = DType::UInt8;
  auto q = OpCase("com.microsoft", "QGemm").in(T({4, 16}, u8)).in(T({})).in(T({}, u8)).in(T({10, 16}, DType::Int8))
               .in(T({})).in(T({}, DType::Int8)).omitted().in(T({})).in(T({}, u8)).attr("transB", 1).run();
  EXPECT_EQ(S(q[0]), "4x10");
  EXPECT_STREQ(D(q[0]), "uint8");
  auto f = OpCase("com.microsoft", "QGemm").in(T({4, 16}, u8)).in(T({})).in(T({}, u8)).in(T({16, 10}, DType::Int8))
               .in(T({})).in(T({}, DType::Int8)).run();
  EXPECT_EQ(S(f[0]), "4x10");
  EXPECT_STREQ(D(f[0]), "float");  // no y_scale: float output
}

// ---------------------------------------------------------------- com.microsoft.nchwc

TEST(NchwcShapes, ConvAndPools) {
  // NCHWc Conv: 128 filters; (56 + 2 - 3) / 2 + 1 = 28
  auto c = OpCase("com.microsoft.nchwc", "Conv").in(T({1, 64, 56, 56})).in(T({128, 64, 3, 3})).in(T({128}))
               .attr("strides", std::vector<int64_t>{2, 2}).attr("pads", std::vector<int64_t>{1, 1, 1, 1}).run();
  EXPECT_EQ(S(c[0]), "1x128x28x28");
  // ceil_mode: ceil((56 - 3) / 2) + 1 = 28; floor would give 27
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "MaxPool").in(T({1, 64, 56, 56}))
                  .attr("kernel_shape", std::vector<int64_t>{3, 3}).attr("strides", std::vector<int64_t>{2, 2})
                  .attr("ceil_mode", 1).run()[0]), "1x64x28x28");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "AveragePool").in(T({1, 64, 56, 56}))
                  .attr("kernel_shape", std::vector<int64_t>{3, 3}).attr("strides", std::vector<int64_t>{2, 2})
                  .run()[0]), "1x64x27x27");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "GlobalAveragePool").in(T({1, 2048, 7, 7})).run()[0]), "1x2048x1x1");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "GlobalMaxPool").in(T({1, 16, 7, 7})).run()[0]), "1x16x1x1");
  // Upsample by integer scales
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "Upsample").in(T({1, 16, 20, 30}))
                  .attr("scales", std::vector<int64_t>{1, 1, 2, 3}).run()[0]), "1x16x40x90");
}

TEST(NchwcShapes, ReorderInputOutput) {
  // Unknown block size: 64 pads to 64 for both 8 and 16; 24 would be 24 or 32, so it stays unknown.
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderInput").in(T({1, 64, 56, 56})).run()[0]), "1x64x56x56");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderInput").in(T({1, 24, 56, 56})).run()[0]), "1x?x56x56");
  ShapeRegistry r8 = ShapeRegistry::builtin(), r16 = ShapeRegistry::builtin();
  register_nchwc_shapes(r8, 8);
  register_nchwc_shapes(r16, 16);
  auto nhwc = OpCase("com.microsoft.nchwc", "ReorderInput").in(T({1, 56, 56, 24})).attr("channels_last", 1);
  EXPECT_EQ(S(nhwc.run(r8)[0]), "1x24x56x56");
  EXPECT_EQ(S(nhwc.run(r16)[0]), "1x32x56x56");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderInput").in(T({1, 3, 8, 8})).run(r16)[0]), "1x16x8x8");
  // an explicit channel count is rounded, not the (already padded) input dim
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderInput").in(T({1, 16, 8, 8})).attr("channels", 20)
                  .run(r8)[0]), "1x24x8x8");

  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderOutput").in(T({1, 16, 224, 224})).attr("channels", 3)
                  .run()[0]), "1x3x224x224");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderOutput").in(T({1, 16, 224, 224})).attr("channels", 3)
                  .attr("channels_last", 1).run()[0]), "1x224x224x3");
  EXPECT_EQ(S(OpCase("com.microsoft.nchwc", "ReorderOutput").in(T({1, 16, 4, 4})).run()[0]), "1x?x4x4");
}

// ---------------------------------------------------------------- default domain, opsets 18-22

TEST(Opset18Shapes, ReduceMeanAxesInput) {
  auto x = T({2, 3, 4, 5});
  auto mean = [&](const Values& axes, int64_t keep) {
    return OpCase("", "ReduceMean", 18).in(x).in(T({2}, DType::Int64), axes).attr("keepdims", keep).run()[0];
  };
  EXPECT_EQ(S(mean(std::vector<int64_t>{1, -1}, 1)), "2x1x4x1");
  EXPECT_EQ(S(mean(std::vector<int64_t>{1, -1}, 0)), "2x4");
  // axes values unknown: keepdims keeps the rank; without keepdims the rank follows the axes length (2)
  EXPECT_EQ(S(mean(std::nullopt, 1)), "?x?x?x?");
  EXPECT_EQ(S(mean(std::nullopt, 0)), "?x?");
  EXPECT_EQ(S(mean(std::vector<int64_t>{4}, 1)), "?");  // out-of-range axis: rank not guessed
}

TEST(Opset18Shapes, ReduceWithoutAxes) {
  auto x = T({2, 3, 4, 5});
  EXPECT_EQ(S(OpCase("", "ReduceMean", 18).in(x).run()[0]), "1x1x1x1");
  EXPECT_EQ(S(OpCase("", "ReduceMax", 20).in(x).attr("keepdims", 0).run()[0]), "scalar");
  EXPECT_EQ(S(OpCase("", "ReduceL2", 18).in(x).omitted().attr("noop_with_empty_axes", 1).run()[0]), "2x3x4x5");
  // empty axes tensor = no axes
  EXPECT_EQ(S(OpCase("", "ReduceSum", 13).in(x).in(T({0}, DType::Int64), std::vector<int64_t>{})
                  .attr("keepdims", 0).run()[0]), "scalar");
  EXPECT_EQ(S(OpCase("", "ReduceSum", 13).in(x).in(T({1}, DType::Int64), std::vector<int64_t>{0}).run()[0]),
            "1x3x4x5");
  // keepdims with unknown axes: a dim already 1 is 1 either way
  EXPECT_EQ(S(OpCase("", "ReduceProd", 18).in(T({1, 3})).unknown().run()[0]), "1x?");
  // no input type at all: nothing to report, and the function says so
  bool ok = true;
  auto o = OpCase("", "ReduceLogSumExp", 18).unknown().run(OpCase::reg(), &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(S(o[0]), "?");
}

TEST(Opset18Shapes, SplitNumOutputsAndSplitInput) {
  // num_outputs 3 on 10: ceil(10/3) = 4 -> 4, 4, 2
  auto o = OpCase("", "Split", 18).in(T({10, 6})).attr("num_outputs", 3).outputs(3).run();
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(S(o[0]), "4x6");
  EXPECT_EQ(S(o[1]), "4x6");
  EXPECT_EQ(S(o[2]), "2x6");
  auto e = OpCase("", "Split", 18).in(T({10, 6})).attr("axis", -1).attr("num_outputs", 2).outputs(2).run();
  EXPECT_EQ(S(e[1]), "10x3");
  auto s = OpCase("", "Split", 18).in(T({10, 6})).in(T({2}, DType::Int64), std::vector<int64_t>{2, 8}).outputs(2).run();
  EXPECT_EQ(S(s[0]), "2x6");
  EXPECT_EQ(S(s[1]), "8x6");
  auto u = OpCase("", "Split", 18).in(T({10, 6})).in(T({2}, DType::Int64)).outputs(2).run();
  EXPECT_EQ(S(u[0]), "?x6");
  auto ud = OpCase("", "Split", 18).in(T({-1, 6})).attr("num_outputs", 2).outputs(2).run();
  EXPECT_EQ(S(ud[1]), "?x6");
}

TEST(Opset18Shapes, PadAxesInput) {
  auto x = T({1, 3, 4, 4});
  EXPECT_EQ(S(OpCase("", "Pad", 18).in(x).in(T({8}, DType::Int64), std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 1})
                  .run()[0]), "1x3x6x6");
  // axes [2, 3]: H 4 + 1 + 3 = 8, W 4 + 2 + 4 = 10
  EXPECT_EQ(S(OpCase("", "Pad", 19).in(x).in(T({4}, DType::Int64), std::vector<int64_t>{1, 2, 3, 4}).omitted()
                  .in(T({2}, DType::Int64), std::vector<int64_t>{2, 3}).run()[0]), "1x3x8x10");
  EXPECT_EQ(S(OpCase("", "Pad", 18).in(x).in(T({2}, DType::Int64), std::vector<int64_t>{1, 1}).omitted()
                  .in(T({1}, DType::Int64), std::vector<int64_t>{-1}).run()[0]), "1x3x4x6");
  // pads unknown: all axes may change; with known axes only those do
  EXPECT_EQ(S(OpCase("", "Pad", 18).in(x).unknown().run()[0]), "?x?x?x?");
  EXPECT_EQ(S(OpCase("", "Pad", 18).in(x).unknown().omitted().in(T({2}, DType::Int64), std::vector<int64_t>{2, 3})
                  .run()[0]), "1x3x?x?");
}

TEST(Opset18Shapes, Resize) {
  auto x = T({1, 3, 100, 200});
  EXPECT_EQ(S(OpCase("", "Resize", 18).in(x).omitted().omitted()
                  .in(T({4}, DType::Int64), std::vector<int64_t>{1, 3, 64, 64}).run()[0]), "1x3x64x64");
  EXPECT_EQ(S(OpCase("", "Resize", 18).in(x).omitted().omitted()
                  .in(T({2}, DType::Int64), std::vector<int64_t>{64, 48}).attr("axes", std::vector<int64_t>{2, -1})
                  .run()[0]), "1x3x64x48");
  // not_larger: scale = min(50/100, 50/200) = 0.25 -> 25 x 50; not_smaller: max = 0.5 -> 50 x 100
  auto policy = [&](const char* p) {
    return S(OpCase("", "Resize", 18).in(x).omitted().omitted()
                 .in(T({2}, DType::Int64), std::vector<int64_t>{50, 50}).attr("axes", std::vector<int64_t>{2, 3})
                 .attr("keep_aspect_ratio_policy", p).run()[0]);
  };
  EXPECT_EQ(policy("not_larger"), "1x3x25x50");
  EXPECT_EQ(policy("not_smaller"), "1x3x50x100");
  // float scales never reach us: resized axes unknown, the others kept
  EXPECT_EQ(S(OpCase("", "Resize", 19).in(x).omitted().in(T({2})).attr("axes", std::vector<int64_t>{2, 3})
                  .run()[0]), "1x3x?x?");
  EXPECT_EQ(S(OpCase("", "Resize", 18).in(x).in(T({0})).in(T({4})).run()[0]), "?x?x?x?");
}

TEST(Opset18Shapes, Col2ImAndAffineGrid) {
  // 12 / (2 * 2) = 3 channels
  EXPECT_EQ(S(OpCase("", "Col2Im", 18).in(T({1, 12, 25})).in(T({2}, DType::Int64), std::vector<int64_t>{6, 6})
                  .in(T({2}, DType::Int64), std::vector<int64_t>{2, 2}).run()[0]), "1x3x6x6");
  EXPECT_EQ(S(OpCase("", "Col2Im", 18).in(T({1, 12, 25})).in(T({2}, DType::Int64)).in(T({2}, DType::Int64))
                  .run()[0]), "1x?x?x?");
  EXPECT_EQ(S(OpCase("", "AffineGrid", 20).in(T({2, 2, 3})).in(T({4}, DType::Int64), std::vector<int64_t>{2, 3, 32, 48})
                  .run()[0]), "2x32x48x2");
  EXPECT_EQ(S(OpCase("", "AffineGrid", 20).in(T({2, 3, 4})).in(T({5}, DType::Int64), std::vector<int64_t>{2, 1, 4, 5, 6})
                  .run()[0]), "2x4x5x6x3");
  EXPECT_EQ(S(OpCase("", "AffineGrid", 20).in(T({2, 2, 3})).unknown().run()[0]), "2x?x?x2");
}

TEST(Opset18Shapes, ConvAndPoolChanges) {
  // DeformConv: (10 - 3) + 1 = 8
  EXPECT_EQ(S(OpCase("", "DeformConv", 19).in(T({1, 4, 10, 10})).in(T({8, 4, 3, 3})).in(T({1, 18, 8, 8}))
                  .run()[0]), "1x8x8x8");
  // LpPool-18 ceil_mode: ceil((32 - 3) / 2) + 1 = 16; floor: 15
  auto lp = [](int64_t ceil) {
    return S(OpCase("", "LpPool", 18).in(T({1, 3, 32, 32})).attr("kernel_shape", std::vector<int64_t>{3, 3})
                 .attr("strides", std::vector<int64_t>{2, 2}).attr("ceil_mode", ceil).run()[0]);
  };
  EXPECT_EQ(lp(1), "1x3x16x16");
  EXPECT_EQ(lp(0), "1x3x15x15");
  // ceil_mode drops a last window that would start in the end padding: span 4 + 1 - 2 = 3,
  // ceil(3 / 2) + 1 = 3, but window 3 starts at 4 >= 4 -> 2
  EXPECT_EQ(S(OpCase("", "LpPool", 18).in(T({1, 1, 4})).attr("kernel_shape", std::vector<int64_t>{2})
                  .attr("strides", std::vector<int64_t>{2}).attr("pads", std::vector<int64_t>{0, 1})
                  .attr("ceil_mode", 1).run()[0]), "1x1x2");
  // AveragePool-19 dilations: kernel 3 dilated by 2 spans 5; 10 - 5 + 1 = 6
  EXPECT_EQ(S(OpCase("", "AveragePool", 19).in(T({1, 3, 10, 10})).attr("kernel_shape", std::vector<int64_t>{3, 3})
                  .attr("dilations", std::vector<int64_t>{2, 2}).run()[0]), "1x3x6x6");
  EXPECT_EQ(S(OpCase("", "GridSample", 20).in(T({1, 3, 8, 8, 8})).in(T({1, 4, 5, 6, 3})).run()[0]), "1x3x4x5x6");
}

TEST(Opset18Shapes, SameShapeAndTypeRules) {
  for (const char* op : {"GroupNormalization", "ScatterElements", "ScatterND", "Mish"})
    EXPECT_EQ(S(OpCase("", op, 18).in(T({2, 6, 4})).in(T({6})).run()[0]), "2x6x4") << op;
  EXPECT_EQ(S(OpCase("", "Gelu", 20).in(T({2, 6})).run()[0]), "2x6");
  EXPECT_EQ(S(OpCase("", "Softplus", 22).in(T({2, 6}, DType::BFloat16)).run()[0]), "2x6");
  auto b = OpCase("", "BitwiseAnd", 18).in(T({4, 1}, DType::Int32)).in(T({3}, DType::Int32)).run()[0];
  EXPECT_EQ(S(b), "4x3");
  EXPECT_STREQ(D(b), "int32");
  EXPECT_EQ(S(OpCase("", "BitwiseNot", 18).in(T({5}, DType::UInt8)).run()[0]), "5");
  auto inf = OpCase("", "IsInf", 20).in(T({2, 3}, DType::BFloat16)).run()[0];
  EXPECT_EQ(S(inf), "2x3");
  EXPECT_STREQ(D(inf), "bool");
  EXPECT_STREQ(D(OpCase("", "IsNaN", 20).in(T({2}, DType::Float8E4M3FN)).run()[0]), "bool");
  EXPECT_STREQ(D(OpCase("", "Equal", 19).in(T({2}, DType::String)).in(T({2}, DType::String)).run()[0]), "bool");
  EXPECT_STREQ(D(OpCase("", "Cast", 19).in(T({2})).attr("to", 17).run()[0]), "float8e4m3fn");
  EXPECT_STREQ(D(OpCase("", "QuantizeLinear", 21).in(T({2})).in(T({})).attr("output_dtype", 22).run()[0]), "int4");
  EXPECT_STREQ(D(OpCase("", "DequantizeLinear", 21).in(T({2}, DType::Int4)).in(T({}, DType::Float16)).run()[0]),
               "float16");
}

TEST(Opset18Shapes, CenterCropPadAndConstantOfShape) {
  EXPECT_EQ(S(OpCase("", "CenterCropPad", 18).in(T({20, 10, 3})).in(T({2}, DType::Int64), std::vector<int64_t>{10, 20})
                  .attr("axes", std::vector<int64_t>{0, -2}).run()[0]), "10x20x3");
  EXPECT_EQ(S(OpCase("", "CenterCropPad", 18).in(T({20, 10, 3})).in(T({2}, DType::Int64))
                  .attr("axes", std::vector<int64_t>{0, 1}).run()[0]), "?x?x3");
  auto c = OpCase("", "ConstantOfShape", 20).in(T({2}, DType::Int64), std::vector<int64_t>{2, 3})
               .attr_tensor("value", DType::BFloat16).run()[0];
  EXPECT_EQ(S(c), "2x3");
  EXPECT_STREQ(D(c), "bfloat16");
  auto u = OpCase("", "ConstantOfShape", 21).in(T({3}, DType::Int64)).run()[0];
  EXPECT_EQ(S(u), "?x?x?");
  EXPECT_STREQ(D(u), "float");
}

TEST(ShapeRobustness, NoNodeOrMissingInputsDoNotCrash) {
  // Every builtin function must cope with a missing node, no inputs, and no output slots.
  const char* ops[][2] = {
      {"com.microsoft", "FusedConv"}, {"com.microsoft", "Attention"}, {"com.microsoft", "MultiHeadAttention"},
      {"com.microsoft", "GroupQueryAttention"}, {"com.microsoft", "EmbedLayerNormalization"},
      {"com.microsoft", "QLinearConcat"}, {"com.microsoft", "QGemm"}, {"com.microsoft.nchwc", "ReorderInput"},
      {"com.microsoft.nchwc", "Upsample"}, {"", "Split"}, {"", "Pad"}, {"", "Resize"}, {"", "Col2Im"},
      {"", "AffineGrid"}, {"", "ConstantOfShape"}, {"", "CenterCropPad"}, {"", "ReduceMean"}};
  for (const auto& op : ops) {
    const ShapeFn* fn = OpCase::reg().find(op[0], op[1], 22);
    ASSERT_NE(fn, nullptr) << op[1];
    std::vector<TensorInfo> none, three(3);
    ShapeInput empty;
    (*fn)(empty, none);
    (*fn)(empty, three);
    ShapeInput scalars;  // rank-0 inputs where tensors are expected
    scalars.in.assign(9, nullptr);
    TensorInfo scalar = T({});
    for (auto& p : scalars.in) p = &scalar;
    scalars.in_values.assign(9, std::vector<int64_t>{});
    (*fn)(scalars, three);
  }
  // Without a node, attrs default: FusedConv still derives channels and kernel from W.
  auto o = OpCase("com.microsoft", "FusedConv").in(T({1, 3, 8, 8})).in(T({4, 3, 3, 3}))
               .run(OpCase::reg(), nullptr, false);
  EXPECT_EQ(S(o[0]), "1x4x6x6");
}

}  // namespace
}  // namespace rooflens
