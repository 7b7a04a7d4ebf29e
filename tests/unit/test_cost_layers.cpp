// Normalisation, pooling/reduction, recurrent, attention and quantisation costs, each worked out by hand.
#include "test_cost_helpers.h"

namespace rooflens {
namespace {
using testing::OpCase;

// ---------- normalisation ----------

TEST(CostNorm, BatchNormCountsScaleAndBiasOnly) {
  // [1,4,2,2] = 16 elements x (multiply + add) = 32; params are scale and bias, not mean/var.
  const OpWork w = OpCase("BatchNormalization").in({1, 4, 2, 2}).init({4}).init({4}).init({4}).init({4})
                       .out({1, 4, 2, 2}).run();
  EXPECT_WORK(w, 32, 0);
  EXPECT_TRUE(w.params_explicit);
  EXPECT_EQ(w.param_inputs, (std::vector<int>{1, 2}));
}

TEST(CostNorm, LayerInstanceGroupNorm) {
  // LayerNorm [2,8] = 16 x (normalise 5 + scale 1 + bias 1) = 112; without bias 96.
  EXPECT_WORK(OpCase("LayerNormalization").in({2, 8}).init({8}).init({8}).out({2, 8}).run(), 112, 0);
  EXPECT_WORK(OpCase("LayerNormalization").in({2, 8}).init({8}).out({2, 8}).run(), 96, 0);
  // InstanceNorm / GroupNorm [1,2,3,3] = 18 x 7 = 126.
  EXPECT_WORK(OpCase("InstanceNormalization").in({1, 2, 3, 3}).init({2}).init({2}).out({1, 2, 3, 3}).run(), 126, 0);
  EXPECT_WORK(OpCase("GroupNormalization").attr("num_groups", 1).in({1, 2, 3, 3}).init({2}).init({2})
                  .out({1, 2, 3, 3}).run(), 126, 0);
  EXPECT_WORK(OpCase("MeanVarianceNormalization").in({1, 2, 3, 3}).out({1, 2, 3, 3}).run(), 90, 0);  // 18 x 5
}

TEST(CostNorm, LrnWindow) {
  // size 5: 5 + 4 + pow 4 = 13 per element x 16 = 208.
  EXPECT_WORK(OpCase("LRN").attr("size", 5).in({1, 4, 2, 2}).out({1, 4, 2, 2}).run(), 208, 0);
}

TEST(CostNorm, SkipAndSimplifiedVariants) {
  // SkipLayerNorm [2,4] with beta and bias: skip 1 + bias 1 + normalise 5 + gamma 1 + beta 1 = 9 x 8 = 72.
  EXPECT_WORK(OpCase("SkipLayerNormalization", kMs).in({2, 4}).in({2, 4}).init({4}).init({4}).init({4})
                  .out({2, 4}).run(), 72, 0);
  // SkipSimplified without bias: skip 1 + rms 3 + gamma 1 = 5 x 8 = 40.
  EXPECT_WORK(OpCase("SkipSimplifiedLayerNormalization", kMs).in({2, 4}).in({2, 4}).init({4}).out({2, 4}).run(),
              40, 0);
  // RMS norm: 4 x 8 = 32, registered in both domains.
  EXPECT_WORK(OpCase("SimplifiedLayerNormalization").in({2, 4}).init({4}).out({2, 4}).run(), 32, 0);
  EXPECT_WORK(OpCase("SimplifiedLayerNormalization", kMs).in({2, 4}).init({4}).out({2, 4}).run(), 32, 0);
}

// ---------- pooling, reductions, softmax ----------

TEST(CostPool, WindowPools) {
  // out [1,2,4,4] = 32 x kernel 9 = 288.
  EXPECT_WORK(OpCase("MaxPool").attr_ints("kernel_shape", {3, 3}).in({1, 2, 6, 6}).out({1, 2, 4, 4}).run(), 288, 0);
  EXPECT_WORK(OpCase("AveragePool").attr_ints("kernel_shape", {3, 3}).in({1, 2, 6, 6}).out({1, 2, 4, 4}).run(),
              288, 0);
  EXPECT_WORK(OpCase("MaxPool", kNchwc).attr_ints("kernel_shape", {3, 3}).in({1, 8, 6, 6}).out({1, 8, 4, 4}).run(),
              1152, 0);  // 128 x 9
  EXPECT_WORK(OpCase("NhwcMaxPool", kMs).attr_ints("kernel_shape", {2, 2}).in({1, 4, 4, 2}).out({1, 2, 2, 2}).run(),
              32, 0);    // 8 x 4
  EXPECT_FALSE(OpCase("MaxPool").in({1, 2, 6, 6}).out({1, 2, 4, 4}).run().known);  // no kernel_shape
}

TEST(CostPool, GlobalAndLpPools) {
  EXPECT_WORK(OpCase("GlobalAveragePool").in({1, 8, 7, 7}).out({1, 8, 1, 1}).run(), 392, 0);  // 392 adds
  EXPECT_WORK(OpCase("GlobalMaxPool", kNchwc).in({1, 8, 2, 2}).out({1, 8, 1, 1}).run(), 32, 0);
  // LpPool p=2, kernel 2x2, out 4: 4 x (4 x 2 + sqrt) = 36.
  EXPECT_WORK(OpCase("LpPool").attr_ints("kernel_shape", {2, 2}).in({1, 1, 3, 3}).out({1, 1, 2, 2}).run(), 36, 0);
  // GlobalLpPool p=2 over 16: 32 + 1 sqrt = 33.
  EXPECT_WORK(OpCase("GlobalLpPool").in({1, 1, 4, 4}).out({1, 1, 1, 1}).run(), 33, 0);
}

TEST(CostPool, QuantizedPools) {
  // QLinearAveragePool kernel 2x2, out 4: 4 x (4 + requantise 3) = 28.
  EXPECT_WORK(OpCase("QLinearAveragePool", kMs).attr_ints("kernel_shape", {2, 2}).in({1, 1, 3, 3}, DType::UInt8)
                  .out({1, 1, 2, 2}, DType::UInt8).run(), 28, 0);
  // QLinearGlobalAveragePool [1,2,3,3]: 18 adds + 2 x 3 = 24.
  EXPECT_WORK(OpCase("QLinearGlobalAveragePool", kMs).in({1, 2, 3, 3}, DType::UInt8)
                  .out({1, 2, 1, 1}, DType::UInt8).run(), 24, 0);
}

TEST(CostReduce, PerInputAndPerOutputTerms) {
  // ReduceMean [2,3,4] -> [2,1,1]: 24 adds + 2 divides.
  EXPECT_WORK(OpCase("ReduceMean").in({2, 3, 4}).out({2, 1, 1}).run(), 26, 0);
  EXPECT_WORK(OpCase("ReduceL2").in({2, 3, 4}).out({2, 1, 1}).run(), 50, 0);     // 48 + 2 sqrt
  EXPECT_WORK(OpCase("ReduceLogSumExp").in({2, 3}).out({2}).run(), 38, 0);      // 6 x 5 + 2 x 4
  EXPECT_WORK(OpCase("ReduceSum").in({2, 3, 4}).out({-1}).run(), 24, 0);        // output not needed
  EXPECT_WORK(OpCase("ArgMax").in({3, 4}).out({3, 1}, DType::Int64).run(), 12, 0);
  EXPECT_WORK(OpCase("CumSum").in({10}).in({}, DType::Int64).out({10}).run(), 10, 0);
}

TEST(CostReduce, TopKHeap) {
  // k 10 over [4,100]: ceil(log2 10) = 4 compares x 400 = 1600; k 1: 400.
  EXPECT_WORK(OpCase("TopK").in({4, 100}).in({1}, DType::Int64).out({4, 10}).out({4, 10}, DType::Int64).run(),
              1600, 0);
  EXPECT_WORK(OpCase("TopK").in({4, 100}).in({1}, DType::Int64).out({4, 1}).out({4, 1}, DType::Int64).run(),
              400, 0);
}

TEST(CostSoftmax, Family) {
  EXPECT_WORK(OpCase("Softmax").in({2, 5}).out({2, 5}).run(), 80, 0);      // 10 x 8
  EXPECT_WORK(OpCase("LogSoftmax").in({2, 5}).out({2, 5}).run(), 80, 0);
  EXPECT_WORK(OpCase("Hardmax").in({2, 5}).out({2, 5}).run(), 10, 0);
  EXPECT_WORK(OpCase("BiasSoftmax", kMs).in({2, 5}).in({5}).out({2, 5}).run(), 90, 0);  // 10 x (8 + 1)
}

// ---------- recurrent ----------

TEST(CostRnn, VanillaRnn) {
  // seq 5, batch 2, I 3, H 4, 1 dir: MACs 10 cells x 1 gate x 4 x (3+4) = 280; 10 x 4 x (1 + tanh 4) = 200.
  EXPECT_WORK(OpCase("RNN").attr("hidden_size", 4).in({5, 2, 3}).init({1, 4, 3}).init({1, 4, 4}).out({5, 1, 2, 4})
                  .run(), 760, 280);
}

TEST(CostRnn, BidirectionalGruWithBias) {
  // seq 3, batch 1, 2 dirs = 6 cells; G 3, H 4, I 2: MACs 6 x 3 x 4 x 6 = 432.
  // per unit 8 + bias 6 + 2 sigmoid 12 + tanh 4 = 30 -> 6 x 4 x 30 = 720.
  EXPECT_WORK(OpCase("GRU").attr("hidden_size", 4).in({3, 1, 2}).init({2, 12, 2}).init({2, 12, 4}).init({2, 24})
                  .out({3, 2, 1, 4}).run(), 864 + 720, 432);
}

TEST(CostRnn, BatchFirstLstmAndActivations) {
  // layout 1: X [batch 2, seq 3, I 4], H 2: 6 cells; MACs 6 x 4 x 2 x 6 = 288.
  // per unit 8 + 3 sigmoid 18 + 2 tanh 8 = 34 -> 6 x 2 x 34 = 408.
  const OpWork w = OpCase("LSTM").attr("layout", 1).attr("hidden_size", 2).in({2, 3, 4}).init({1, 8, 4})
                       .init({1, 8, 2}).out({2, 3, 1, 2}).run();
  EXPECT_WORK(w, 576 + 408, 288);
  EXPECT_EQ(w.param_inputs, (std::vector<int>{1, 2, 3, 7}));
  // HardSigmoid (4) instead of Sigmoid: 8 + 12 + 8 = 28 -> 336.
  EXPECT_WORK(OpCase("LSTM").attr("layout", 1).attr("hidden_size", 2)
                  .attr_strings("activations", {"HardSigmoid", "Tanh", "Tanh"}).in({2, 3, 4}).init({1, 8, 4})
                  .init({1, 8, 2}).out({2, 3, 1, 2}).run(), 576 + 336, 288);
  EXPECT_FALSE(OpCase("LSTM").in({-1, 3, 4}).init({1, 8, 4}).init({1, 8, 2}).run().known);
}

// ---------- attention ----------

TEST(CostAttention, OrtAttentionWithProjection) {
  // input [2,4,8], weights [8,24], 2 heads: projection 8 rows x 8 x 24 = 1536 MACs, bias 192 FLOPs;
  // scores 2x2x4x4 = 64, attention MACs 64 x (4 + 4) = 512; softmax+scale 64 x 9 = 576.
  EXPECT_WORK(OpCase("Attention", kMs).attr("num_heads", 2).in({2, 4, 8}).init({8, 24}).init({24}).out({2, 4, 8})
                  .run(), 4096 + 192 + 576, 2048);
  // With mask and past length 3: L 7, scores 112, attention MACs 896; softmax+scale+mask 112 x 10.
  EXPECT_WORK(OpCase("Attention", kMs).attr("num_heads", 2).in({2, 4, 8}).init({8, 24}).init({24})
                  .in({2, 7}, DType::Int32).in({2, 2, 2, 3, 4}).out({2, 4, 8}).run(),
              2 * (1536 + 896) + 192 + 1120, 1536 + 896);
}

TEST(CostAttention, QAttentionDequantisesProjection) {
  // rows 2 x 4 x 12 = 96 MACs; bias + dequant 2 x 12 x 2 = 48; 1 head, scores 4, MACs 4 x 8 = 32; 36.
  const OpWork w = OpCase("QAttention", kMs).attr("num_heads", 1).in({1, 2, 4}, DType::UInt8)
                       .init({4, 12}, DType::Int8).init({12}).init({}).init({}).out({1, 2, 4}).run();
  EXPECT_WORK(w, 256 + 48 + 36, 128);
  EXPECT_EQ(w.param_inputs, (std::vector<int>{1, 2}));
}

TEST(CostAttention, MultiHeadAttention) {
  // Q [2,4,8], K/V [2,6,8], 2 heads: scores 96, MACs 96 x 8 = 768; 96 x 9.
  EXPECT_WORK(OpCase("MultiHeadAttention", kMs).attr("num_heads", 2).in({2, 4, 8}).in({2, 6, 8}).in({2, 6, 8})
                  .out({2, 4, 8}).run(), 2400, 768);
  // bias [24]: + Q 2x4x8 = 64 + K,V 2x6x16 = 192.
  EXPECT_WORK(OpCase("MultiHeadAttention", kMs).attr("num_heads", 2).in({2, 4, 8}).in({2, 6, 8}).in({2, 6, 8})
                  .init({24}).out({2, 4, 8}).run(), 2400 + 256, 768);
  // Packed QKV [2,4,2,3,4]: D 8, L = S 4: scores 64, MACs 512, 64 x 9.
  EXPECT_WORK(OpCase("MultiHeadAttention", kMs).attr("num_heads", 2).in({2, 4, 2, 3, 4}).out({2, 4, 8}).run(),
              1024 + 576, 512);
}

TEST(CostAttention, GroupQueryAttention) {
  // Q [1,3,16], 4 heads of 4, present_key [1,2,10,4] -> L 10: scores 120, MACs 960; 120 x 9 = 1080.
  EXPECT_WORK(OpCase("GroupQueryAttention", kMs).attr("num_heads", 4).attr("kv_num_heads", 2).in({1, 3, 16})
                  .in({1, 3, 8}).in({1, 3, 8}).out({1, 3, 16}).out({1, 2, 10, 4}).out({1, 2, 10, 4}).run(),
              3000, 960);
  // Packed QKV [1,3,32] = (4 + 2x2) heads x 4, rotary: + 3 x (4 + 2) heads x 4 x 3 = 216.
  EXPECT_WORK(OpCase("GroupQueryAttention", kMs).attr("num_heads", 4).attr("kv_num_heads", 2).attr("do_rotary", 1)
                  .in({1, 3, 32}).out({1, 3, 16}).out({1, 2, 10, 4}).out({1, 2, 10, 4}).run(),
              3216, 960);
}

TEST(CostAttention, OnnxAttention) {
  // 4-D: Q [1,2,3,4], K [1,2,5,4], V [1,2,5,6]: scores 30; MACs 30 x (4 + 6) = 300; 30 x 9 = 270.
  EXPECT_WORK(OpCase("Attention").in({1, 2, 3, 4}).in({1, 2, 5, 4}).in({1, 2, 5, 6}).out({1, 2, 3, 6}).run(),
              870, 300);
  // 3-D with head counts: same numbers.
  EXPECT_WORK(OpCase("Attention").attr("q_num_heads", 2).attr("kv_num_heads", 1).in({1, 3, 8}).in({1, 5, 4})
                  .in({1, 5, 6}).out({1, 3, 12}).run(), 870, 300);
}

TEST(CostAttention, RotaryAndEmbedLayerNorm) {
  EXPECT_WORK(OpCase("RotaryEmbedding", kMs).in({1, 2, 8}).in({2}, DType::Int64).out({1, 2, 8}).run(), 48, 0);
  // out [2,3,4] = 24 x (word+pos 1, segment 1, LayerNorm 7) = 216.
  EXPECT_WORK(OpCase("EmbedLayerNormalization", kMs).in({2, 3}, DType::Int32).in({2, 3}, DType::Int32)
                  .init({100, 4}).init({16, 4}).init({2, 4}).init({4}).init({4}).out({2, 3, 4}).run(), 216, 0);
}

// ---------- quantisation ----------

TEST(CostQuant, BoundariesAndParams) {
  const OpWork q = OpCase("QuantizeLinear").in({10}).init({}).init({}, DType::UInt8).out({10}, DType::UInt8).run();
  EXPECT_WORK(q, 30, 0);
  EXPECT_TRUE(q.params_explicit);
  EXPECT_TRUE(q.param_inputs.empty());
  const OpWork d = OpCase("DequantizeLinear").init({10}, DType::Int8).init({}).init({}, DType::Int8).out({10}).run();
  EXPECT_WORK(d, 20, 0);
  EXPECT_EQ(d.param_inputs, (std::vector<int>{0}));
  EXPECT_WORK(OpCase("DynamicQuantizeLinear").in({10}).out({10}, DType::UInt8).out({}).out({}, DType::UInt8).run(),
              50, 0);
}

TEST(CostQuant, QLinearElementwise) {
  // float op + requantise 3 per output: Add 6 x 4 = 24, Sigmoid 9 x 9 = 81, Concat 4 x 3 = 12.
  EXPECT_WORK(OpCase("QLinearAdd", kMs).in({2, 3}, DType::UInt8).init({}).init({}, DType::UInt8).in({2, 3}, DType::UInt8)
                  .init({}).init({}, DType::UInt8).init({}).init({}, DType::UInt8).out({2, 3}, DType::UInt8).run(), 24, 0);
  EXPECT_WORK(OpCase("QLinearSigmoid", kMs).in({3, 3}, DType::UInt8).out({3, 3}, DType::UInt8).run(), 81, 0);
  EXPECT_WORK(OpCase("QLinearConcat", kMs).init({}).init({}, DType::UInt8).in({2}, DType::UInt8).out({4}, DType::UInt8)
                  .run(), 12, 0);
}

}  // namespace
}  // namespace rooflens
