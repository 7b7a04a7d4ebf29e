// Matmul-class ops: convolutions and matrix products. 1 MAC = 2 FLOPs; flops include 2 x macs.
#include "core/saturating.h"
#include "test_cost_helpers.h"

namespace rooflens {
namespace {
using testing::OpCase;

// ---------- convolutions ----------

TEST(CostConv, PlainConvWithBias) {
  // out [1,16,6,6] = 576 positions x (W 432 / Cout 16 = 27) = 15552 MACs; flops 31104 + 576 bias.
  EXPECT_WORK(OpCase("Conv").in({1, 3, 8, 8}).init({16, 3, 3, 3}).init({16}).out({1, 16, 6, 6}).run(),
              31680, 15552);
}

TEST(CostConv, DepthwiseConv) {
  // group 8: out [1,8,3,3] = 72 x (W 72 / 8 = 9) = 648 MACs, no bias.
  EXPECT_WORK(OpCase("Conv").attr("group", 8).in({1, 8, 5, 5}).init({8, 1, 3, 3}).out({1, 8, 3, 3}).run(),
              1296, 648);
}

TEST(CostConv, NchwcConvWithActivationAndSum) {
  // out [1,16,4,4] = 256 x (W 1152 / 16 = 72) = 18432 MACs; + 256 x (bias + Relu + Sum) = 768.
  EXPECT_WORK(OpCase("Conv", kNchwc).attr_s("activation", "Relu").in({1, 8, 6, 6}).init({16, 8, 3, 3})
                  .init({16}).in({1, 16, 4, 4}).out({1, 16, 4, 4}).run(),
              36864 + 768, 18432);
}

TEST(CostConv, FusedConvActivation) {
  // out [1,1,1,1] x 9 = 9 MACs; Sigmoid adds 6.
  EXPECT_WORK(OpCase("FusedConv", kMs).attr_s("activation", "Sigmoid").in({1, 1, 3, 3}).init({1, 1, 3, 3})
                  .out({1, 1, 1, 1}).run(), 24, 9);
  EXPECT_WORK(OpCase("NhwcConv", kMs).in({1, 3, 3, 1}).init({1, 1, 3, 3}).out({1, 1, 1, 1}).run(), 18, 9);
}

TEST(CostConv, ConvTransposeSpreadsTheInput) {
  // X [1,4,3,3] = 36 positions x (W 32 / Cin 4 = Cout/g 2 x 2x2) = 288 MACs; bias on out [1,2,6,6] = 72.
  EXPECT_WORK(OpCase("ConvTranspose").in({1, 4, 3, 3}).init({4, 2, 2, 2}).init({2}).out({1, 2, 6, 6}).run(),
              648, 288);
}

TEST(CostConv, IntegerAndQLinearConvListTheirWeights) {
  // out [1,2,2,2] = 8 x 9 = 72 MACs.
  const OpWork ci = OpCase("ConvInteger").in({1, 1, 4, 4}, DType::UInt8).init({2, 1, 3, 3}, DType::Int8)
                        .out({1, 2, 2, 2}, DType::Int32).run();
  EXPECT_WORK(ci, 144, 72);
  EXPECT_TRUE(ci.params_explicit);
  EXPECT_EQ(ci.param_inputs, (std::vector<int>{1}));
  // QLinearConv: 144 + 8 x (bias 1 + requantise 3) = 176.
  const OpWork q = OpCase("QLinearConv").in({1, 1, 4, 4}, DType::UInt8).init({}).init({}, DType::UInt8)
                       .init({2, 1, 3, 3}, DType::Int8).init({2}).init({2}, DType::Int8).init({}).init({}, DType::UInt8)
                       .init({2}, DType::Int32).out({1, 2, 2, 2}, DType::UInt8).run();
  EXPECT_WORK(q, 176, 72);
  EXPECT_EQ(q.param_inputs, (std::vector<int>{3, 8}));
}

TEST(CostConv, UnresolvedWeightIsUnknown) {
  const OpWork w = OpCase("Conv").in({1, 3, 8, 8}).unresolved().out({1, 16, 6, 6}).run();
  EXPECT_FALSE(w.known);
  EXPECT_EQ(w.note, "shape of input 1 unresolved");
  const OpWork m = OpCase("Conv").in({1, 3, 8, 8}).none().out({1, 16, 6, 6}).run();
  EXPECT_EQ(m.note, "input 1 missing");
  const OpWork s = OpCase("Conv").in({1, 3, 8, 8}).in({16, 3, -1, 3}).out({1, 16, 6, 6}).run();
  EXPECT_FALSE(s.known);
  EXPECT_EQ(s.note, "shape of input 1 unresolved");
}

// ---------- matrix products ----------

TEST(CostMatMul, BatchedMatMul) {
  // [2,3,4] x [4,5] -> [2,3,5]: 30 outputs x K 4 = 120 MACs.
  EXPECT_WORK(OpCase("MatMul").in({2, 3, 4}).init({4, 5}).out({2, 3, 5}).run(), 240, 120);
  // 1-D A: [4] x [4,5] -> [5]: 20 MACs.
  EXPECT_WORK(OpCase("MatMul").in({4}).in({4, 5}).out({5}).run(), 40, 20);
}

TEST(CostMatMul, BroadcastsBatchWhenOutputUnresolved) {
  // [2,1,3,4] x [5,4,6]: batch 2x5 = 10, M 3, N 6 -> 180 outputs x K 4 = 720 MACs.
  EXPECT_WORK(OpCase("MatMul").in({2, 1, 3, 4}).in({5, 4, 6}).out({-1, -1, 3, 6}).run(), 1440, 720);
}

TEST(CostMatMul, SaturatesOnAbsurdDims) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_WORK(OpCase("MatMul").in({big, big}).in({big, big}).out({big, big}).run(), kCountMax, kCountMax);
}

TEST(CostMatMul, GemmScalingAndBias) {
  // A [2,3], B^T from [5,3]: M 2, N 5, K 3 = 30 MACs; alpha 0.5 (10) + C (10) = 80.
  EXPECT_WORK(OpCase("Gemm").attr("transB", 1).attr_f("alpha", 0.5f).in({2, 3}).init({5, 3}).init({5})
                  .out({2, 5}).run(), 80, 30);
  // transA with beta 2: A [3,2] -> M 2, K 3; + C 10 + beta 10 = 80.
  EXPECT_WORK(OpCase("Gemm").attr("transA", 1).attr_f("beta", 2.0f).in({3, 2}).init({3, 5}).init({5})
                  .out({2, 5}).run(), 80, 30);
  // FusedGemm Relu, no C: 24 MACs, 48 + 8.
  EXPECT_WORK(OpCase("FusedGemm", kMs).attr_s("activation", "Relu").in({2, 3}).init({3, 4}).out({2, 4}).run(),
              56, 24);
}

TEST(CostMatMul, EinsumContractions) {
  // bij,bjk->bik: b2 i3 j4 k5 = 120 MACs.
  EXPECT_WORK(OpCase("Einsum").attr_s("equation", "bij,bjk->bik").in({2, 3, 4}).in({2, 4, 5}).out({2, 3, 5})
                  .run(), 240, 120);
  // Ellipsis broadcast: "...ij,jk" with A [2,3,4], B [4,5]: 2*3*4*5 = 120 MACs.
  EXPECT_WORK(OpCase("Einsum").attr_s("equation", "...ij, jk -> ...ik").in({2, 3, 4}).in({4, 5})
                  .out({2, 3, 5}).run(), 240, 120);
  // One operand reduction ij-> over [3,4]: 12 adds, no MACs.
  EXPECT_WORK(OpCase("Einsum").attr_s("equation", "ij->").in({3, 4}).out({}).run(), 12, 0);
  EXPECT_FALSE(OpCase("Einsum").attr_s("equation", "ijk,jk").in({3, 4}).in({4, 5}).out({3}).run().known);
}

TEST(CostMatMul, QuantizedMatMuls) {
  const OpWork mi = OpCase("MatMulInteger").in({2, 4}, DType::UInt8).init({4, 3}, DType::Int8)
                        .out({2, 3}, DType::Int32).run();
  EXPECT_WORK(mi, 48, 24);  // 6 outputs x K 4
  EXPECT_EQ(mi.param_inputs, (std::vector<int>{1}));
  // QLinearMatMul: 24 MACs; + 6 x requantise 3 = 66.
  const OpWork q = OpCase("QLinearMatMul").in({2, 4}, DType::UInt8).init({}).init({}, DType::UInt8)
                       .init({4, 3}, DType::Int8).init({}).init({}, DType::Int8).init({}).init({}, DType::UInt8)
                       .out({2, 3}, DType::UInt8).run();
  EXPECT_WORK(q, 66, 24);
  EXPECT_EQ(q.param_inputs, (std::vector<int>{3}));
  // QGemm A [2,3] x B [3,4]: 24 MACs; with y_scale 8 x 3 requantise -> 72; without, 8 x scale -> 56.
  EXPECT_WORK(OpCase("QGemm", kMs).in({2, 3}, DType::UInt8).init({}).init({}, DType::UInt8)
                  .init({3, 4}, DType::Int8).init({}).init({}, DType::Int8).none().init({}).init({}, DType::UInt8)
                  .out({2, 4}, DType::UInt8).run(), 72, 24);
  EXPECT_WORK(OpCase("QGemm", kMs).in({2, 3}, DType::UInt8).init({}).init({}, DType::UInt8)
                  .init({3, 4}, DType::Int8).init({}).init({}, DType::Int8).out({2, 4}).run(), 56, 24);
  // MatMulIntegerToFloat [2,3]x[3,4] + bias (input 6): 48 + 8 x (scale + bias) = 64.
  EXPECT_WORK(OpCase("MatMulIntegerToFloat", kMs).in({2, 3}, DType::UInt8).init({3, 4}, DType::Int8).init({})
                  .init({}).none().none().init({4}).out({2, 4}).run(), 64, 24);
  // DynamicQuantizeMatMul: 48 + 8 scale + A's 6 elements x 5 to quantise = 86.
  EXPECT_WORK(OpCase("DynamicQuantizeMatMul", kMs).in({2, 3}).init({3, 4}, DType::Int8).init({})
                  .out({2, 4}).run(), 86, 24);
}

TEST(CostMatMul, FusedMatMulTransposes) {
  // transA: A [2,4,3] contracts dim -2 (4); out [2,3,5] = 30 x 4 = 120 MACs; alpha 2 adds 30.
  EXPECT_WORK(OpCase("FusedMatMul", kMs).attr("transA", 1).attr_f("alpha", 2.0f).in({2, 4, 3}).in({4, 5})
                  .out({2, 3, 5}).run(), 270, 120);
  // transA + transBatchA: A [4,2,3] is treated as [2, 4->K?]: K = dim 0 = 4.
  EXPECT_WORK(OpCase("FusedMatMul", kMs).attr("transA", 1).attr("transBatchA", 1).in({4, 2, 3}).in({4, 5})
                  .out({2, 3, 5}).run(), 240, 120);
}

TEST(CostMatMul, MatMulNBits) {
  // A [1,8,16], K 16, N 32: 8 rows x 16 x 32 = 4096 MACs; dequantise 2 x 32 x 16 = 1024.
  const OpWork w = OpCase("MatMulNBits", kMs).attr("K", 16).attr("N", 32).attr("bits", 4).attr("block_size", 16)
                       .in({1, 8, 16}).init({32, 1, 8}, DType::UInt8).init({32}).out({1, 8, 32}).run();
  EXPECT_WORK(w, 8192 + 1024, 4096);
  EXPECT_EQ(w.param_inputs, (std::vector<int>{1, 5}));
  // With bias (input 5): + 8 x 32 = 256.
  EXPECT_WORK(OpCase("MatMulNBits", kMs).attr("K", 16).attr("N", 32).in({1, 8, 16}).init({32, 1, 8}, DType::UInt8)
                  .init({32}).none().none().init({32}).out({1, 8, 32}).run(), 9216 + 256, 4096);
  EXPECT_FALSE(OpCase("MatMulNBits", kMs).in({1, 8, 16}).out({1, 8, 32}).run().known);  // no K/N
}

}  // namespace
}  // namespace rooflens

namespace rooflens {
namespace {

// Per axis, (tap, output position) pairs whose input index o*stride - pad + j*dilation lies outside [0, in),
// counted one by one: the independent figure for Conv's padding_macs.
struct Axis {
  int64_t in, k, stride, dilation, pad;
  int64_t out() const { return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1; }
  int64_t inside() const {
    int64_t n = 0;
    for (int64_t o = 0; o < out(); ++o)
      for (int64_t j = 0; j < k; ++j) {
        const int64_t i = o * stride - pad + j * dilation;
        n += i >= 0 && i < in;
      }
    return n;
  }
};

TEST(CostConvPadding, MacsOnZeroPaddingMatchACountOfEveryTapAtEveryPosition) {
  const std::vector<Axis> axes = {{7, 3, 1, 1, 1},   {56, 3, 1, 1, 1},  {14, 3, 1, 24, 24}, {14, 3, 1, 12, 12},
                                  {14, 3, 1, 36, 36}, {224, 7, 2, 1, 3}, {9, 3, 2, 1, 1},    {5, 5, 1, 1, 2},
                                  {8, 1, 1, 1, 0},   {13, 3, 3, 2, 4}};
  for (const Axis& h : axes)
    for (const Axis& w : {Axis{7, 3, 1, 1, 1}, Axis{14, 3, 1, 24, 24}, Axis{11, 1, 1, 1, 0}}) {
      SCOPED_TRACE("H " + std::to_string(h.in) + " k" + std::to_string(h.k) + " s" + std::to_string(h.stride) + " d" +
                   std::to_string(h.dilation) + " p" + std::to_string(h.pad) + ", W " + std::to_string(w.in));
      const int64_t cin = 8, cout = 4;
      const OpWork work = testing::OpCase("Conv")
                              .attr_ints("strides", {h.stride, w.stride})
                              .attr_ints("dilations", {h.dilation, w.dilation})
                              .attr_ints("pads", {h.pad, w.pad, h.pad, w.pad})
                              .in({1, cin, h.in, w.in})
                              .init({cout, cin, h.k, w.k})
                              .out({1, cout, h.out(), w.out()})
                              .run();
      const uint64_t all = static_cast<uint64_t>(cout * h.out() * w.out() * cin * h.k * w.k);
      ASSERT_EQ(work.macs, all);
      const long double share = static_cast<long double>(h.inside()) / (h.k * h.out()) *
                                static_cast<long double>(w.inside()) / (w.k * w.out());
      const auto inside = static_cast<uint64_t>(static_cast<long double>(all) * share + 0.5L);
      EXPECT_EQ(work.padding_macs, all - inside);
    }
}

TEST(CostConvPadding, AConvolutionWithoutPaddingHasNone) {
  EXPECT_EQ(testing::OpCase("Conv").in({1, 8, 9, 9}).init({4, 8, 3, 3}).out({1, 4, 7, 7}).run().padding_macs, 0u);
  // SAME_UPPER on a 7x7 map: the same taps as explicit padding 1.
  const OpWork same = testing::OpCase("Conv").attr_s("auto_pad", "SAME_UPPER").in({1, 8, 7, 7}).init({4, 8, 3, 3})
                          .out({1, 4, 7, 7}).run();
  const OpWork explicit_pad = testing::OpCase("Conv").attr_ints("pads", {1, 1, 1, 1}).in({1, 8, 7, 7})
                                  .init({4, 8, 3, 3}).out({1, 4, 7, 7}).run();
  EXPECT_GT(same.padding_macs, 0u);
  EXPECT_EQ(same.padding_macs, explicit_pad.padding_macs);
}

TEST(CostPartialReads, GatherSliceAndShapeReadOnlyWhatTheyUse) {
  const OpWork g = testing::OpCase("Gather").init({30000, 768}).in({4}, DType::Int64).out({4, 768}).run();
  ASSERT_EQ(g.partial_reads.size(), 1u);
  EXPECT_EQ(g.partial_reads[0], (std::pair<size_t, uint64_t>{0, 4 * 768}));
  const OpWork s = testing::OpCase("Slice").in({8, 100}).in({1}, DType::Int64).in({1}, DType::Int64).out({8, 10}).run();
  EXPECT_EQ(s.partial_reads[0], (std::pair<size_t, uint64_t>{0, 80}));
  const OpWork shape = testing::OpCase("Shape").in({8, 100}).out({2}, DType::Int64).run();
  EXPECT_EQ(shape.partial_reads[0], (std::pair<size_t, uint64_t>{0, 0}));
  EXPECT_TRUE(testing::OpCase("Transpose").in({8, 100}).out({100, 8}).run().partial_reads.empty());
}

}  // namespace
}  // namespace rooflens
