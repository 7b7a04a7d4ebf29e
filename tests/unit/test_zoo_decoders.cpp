// The zoo's decoder language models (gpt2, llama) with and without the KV cache: parameter counts against each
// architecture's closed-form formula (computed here, independently of the builder), the Optimum I/O layout,
// identical weights with and without the cache, exact MACs of a decode step through rooflens' own analyzer, and the
// sizes the zoo refuses. Configurations are small (structure only, no weights) to keep this fast.
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <onnx/checker.h>

#include "analysis/model_summary.h"
#include "core/errors.h"
#include "model/loader.h"
#include "zoo/registry.h"

namespace rooflens::zoo {
namespace {

struct Size {
  int64_t layers, hidden, heads, kv_heads, ffn, vocab;
};

// GPT2LMHeadModel: tied wte [V, D], wpe [1024, D]; per block ln_1 + ln_2 (2 x 2D), c_attn D x 3D + 3D, c_proj D x D
// + D, c_fc D x F + F, mlp c_proj F x D + D; ln_f 2D.
uint64_t gpt2_params(const Size& s) {
  const uint64_t D = s.hidden, F = s.ffn;
  const uint64_t block = 4 * D + (D * 3 * D + 3 * D) + (D * D + D) + (D * F + F) + (F * D + D);
  return s.vocab * D + 1024 * D + s.layers * block + 2 * D;
}

// LlamaForCausalLM with tied embeddings and no biases: embed [V, D]; per layer q D x H*d, k and v D x KV*d, o H*d x D,
// gate and up D x F, down F x D, two RMSNorm weights D; final norm D.
uint64_t llama_params(const Size& s) {
  const uint64_t D = s.hidden, d = s.hidden / s.heads, H = s.heads, KV = s.kv_heads, F = s.ffn;
  const uint64_t layer = D * H * d + 2 * D * KV * d + H * d * D + 3 * D * F + 2 * D;
  return s.vocab * D + s.layers * layer + D;
}

// MACs of one decode step (1 token per sequence, batch 1) attending to T tokens: the projections and MLP per token,
// QK^T and AV over T keys in every head, the LM head.
uint64_t llama_decode_macs(const Size& s, uint64_t T) {
  const uint64_t D = s.hidden, d = s.hidden / s.heads;
  return s.layers * (D * s.heads * d + 2 * D * s.kv_heads * d + s.heads * d * D + 3 * D * s.ffn + 2 * s.heads * T * d) +
         D * s.vocab;
}
uint64_t gpt2_decode_macs(const Size& s, uint64_t T) {
  const uint64_t D = s.hidden, d = s.hidden / s.heads;
  return s.layers * (3 * D * D + D * D + 2 * D * s.ffn + 2 * s.heads * T * d) + D * s.vocab;
}

ZooOptions options(const Size& s, bool kv_cache, bool weights = false) {
  ZooOptions o;
  o.weights = weights;
  o.kv_cache = kv_cache;
  o.decoder = {s.layers, s.hidden, s.heads, s.kv_heads, s.ffn, s.vocab};
  return o;
}

uint64_t proto_params(const onnx::ModelProto& m) {
  uint64_t n = 0;
  for (const auto& t : m.graph().initializer()) {
    uint64_t e = 1;
    for (auto d : t.dims()) e *= static_cast<uint64_t>(d);
    n += e;
  }
  return n;
}

TEST(ZooDecoders, PublishedConfigsMatchTheirFormulas) {
  const Size gpt2{12, 768, 12, 12, 3072, 50257}, smollm2{30, 576, 9, 3, 1536, 49152};
  EXPECT_EQ(gpt2_params(gpt2), 124'439'808u);      // HF gpt2, as published
  EXPECT_EQ(llama_params(smollm2), 134'515'008u);  // HF SmolLM2-135M, as published
  for (bool kv : {false, true}) {
    ZooOptions o;
    o.weights = false;
    o.kv_cache = kv;
    BuiltModel g = make_model(find_model("gpt2"), o), l = make_model(find_model("llama"), o);
    EXPECT_EQ(g.params, gpt2_params(gpt2)) << "kv_cache " << kv;
    EXPECT_EQ(proto_params(g.model), g.params);
    EXPECT_EQ(l.params, llama_params(smollm2)) << "kv_cache " << kv;
    EXPECT_EQ(proto_params(l.model), l.params);
  }
}

class DecoderSizes : public ::testing::TestWithParam<Size> {};

TEST_P(DecoderSizes, ParamsEqualTheFormulaWithAndWithoutCache) {
  const Size s = GetParam();
  for (bool kv : {false, true}) {
    const BuiltModel l = make_model(find_model("llama"), options(s, kv));
    EXPECT_EQ(l.params, llama_params(s));
    EXPECT_EQ(proto_params(l.model), llama_params(s));
    if (s.kv_heads == s.heads) {  // GPT-2 has no grouped-query attention
      const BuiltModel g = make_model(find_model("gpt2"), options(s, kv));
      EXPECT_EQ(g.params, gpt2_params(s));
      EXPECT_EQ(proto_params(g.model), gpt2_params(s));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, DecoderSizes,
                         ::testing::Values(Size{1, 64, 2, 2, 128, 100}, Size{2, 128, 4, 2, 256, 512},
                                           Size{3, 96, 6, 3, 200, 1000}, Size{2, 256, 8, 1, 512, 300}));

// Optimum's layout: names, element types and dims of every input and output.
TEST(ZooDecoders, KvCacheIoFollowsTheOptimumLayout) {
  const Size s{2, 128, 4, 2, 256, 512};
  const BuiltModel m = make_model(find_model("llama"), options(s, true));
  auto dims = [](const onnx::ValueInfoProto& v) {
    std::vector<std::string> out;
    for (const auto& d : v.type().tensor_type().shape().dim())
      out.push_back(d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value()));
    return out;
  };
  const auto& g = m.model.graph();
  ASSERT_EQ(g.input_size(), 3 + 2 * 2);
  EXPECT_EQ(g.input(0).name(), "input_ids");
  EXPECT_EQ(dims(g.input(0)), (std::vector<std::string>{"batch_size", "sequence_length"}));
  EXPECT_EQ(g.input(1).name(), "attention_mask");
  EXPECT_EQ(dims(g.input(1)), (std::vector<std::string>{"batch_size", "past_sequence_length + sequence_length"}));
  EXPECT_EQ(g.input(2).name(), "position_ids");
  EXPECT_EQ(g.input(3).name(), "past_key_values.0.key");
  EXPECT_EQ(g.input(6).name(), "past_key_values.1.value");
  EXPECT_EQ(dims(g.input(3)), (std::vector<std::string>{"batch_size", "2", "past_sequence_length", "32"}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(g.input(i).type().tensor_type().elem_type(), onnx::TensorProto::INT64);
  ASSERT_EQ(g.output_size(), 1 + 2 * 2);
  EXPECT_EQ(g.output(0).name(), "logits");
  EXPECT_EQ(dims(g.output(0)), (std::vector<std::string>{"batch_size", "sequence_length", "512"}));
  EXPECT_EQ(g.output(1).name(), "present.0.key");
  EXPECT_EQ(g.output(4).name(), "present.1.value");
  EXPECT_EQ(dims(g.output(4)),
            (std::vector<std::string>{"batch_size", "2", "past_sequence_length + sequence_length", "32"}));
  BuiltModel with_weights = make_model(find_model("llama"), options(s, true, true));
  EXPECT_NO_THROW(onnx::checker::check_model(with_weights.model));
}

// Same seed, same tensor names: the cached model computes with exactly the weights of the plain one, which is what
// lets the integration test compare their logits.
TEST(ZooDecoders, CacheDoesNotChangeTheWeights) {
  for (const char* name : {"gpt2", "llama"}) {
    const Size s{2, 64, 4, 2, 96, 50};
    Size sz = s;
    if (std::string(name) == "gpt2") sz.kv_heads = sz.heads;
    const BuiltModel plain = make_model(find_model(name), options(sz, false, true));
    const BuiltModel cached = make_model(find_model(name), options(sz, true, true));
    std::map<std::string, std::string> a, b;
    for (const auto& t : plain.model.graph().initializer()) a[t.name()] = t.raw_data();
    for (const auto& t : cached.model.graph().initializer()) b[t.name()] = t.raw_data();
    EXPECT_EQ(a, b) << name;
  }
}

// rooflens' own loader, shape driver and cost registry on a decode step of the cached models: every shape resolves,
// every cost is known, and the MACs equal the closed form (attention over past + 1 tokens included).
TEST(ZooDecoders, DecodeStepMacsThroughAnalyze) {
  struct Case {
    const char* name;
    Size s;
    uint64_t (*macs)(const Size&, uint64_t);
  };
  for (const Case& c : {Case{"llama", {2, 128, 4, 2, 256, 512}, &llama_decode_macs},
                        Case{"gpt2", {2, 128, 4, 4, 512, 512}, &gpt2_decode_macs}}) {
    const BuiltModel m = make_model(find_model(c.name), options(c.s, true));
    const std::string bytes = m.model.SerializeAsString();
    const int64_t past = 37, d = c.s.hidden / c.s.heads;
    ShapeOverrides o;
    o.shapes["input_ids"] = {1, 1};
    o.shapes["attention_mask"] = {1, past + 1};
    o.shapes["position_ids"] = {1, 1};
    for (int64_t i = 0; i < c.s.layers; ++i)
      for (const char* kind : {"key", "value"})
        o.shapes["past_key_values." + std::to_string(i) + "." + kind] = {1, c.s.kv_heads, past, d};
    const Model model =
        load_model_from_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), c.name, "", o);
    const Analysis a = analyze_model(model, CostRegistry::builtin());
    EXPECT_EQ(a.totals.unresolved_nodes, 0) << c.name;
    EXPECT_EQ(a.totals.unknown_cost_nodes, 0) << c.name;
    EXPECT_EQ(a.totals.macs, c.macs(c.s, past + 1)) << c.name;
  }
}

TEST(ZooDecoders, RefusesSizesItCannotBuild) {
  auto make = [](const char* name, auto set) {
    ZooOptions o;
    o.weights = false;
    set(o);
    return make_model(find_model(name), o);
  };
  EXPECT_THROW(make("resnet18", [](ZooOptions& o) { o.kv_cache = true; }), UserError);
  EXPECT_THROW(make("bert_base", [](ZooOptions& o) { o.decoder.layers = 2; }), UserError);
  EXPECT_THROW(make("llama", [](ZooOptions& o) { o.decoder.heads = 7; }), UserError);  // 576 / 7
  EXPECT_THROW(make("llama", [](ZooOptions& o) { o.decoder.kv_heads = 2; }), UserError);  // 9 % 2
  EXPECT_THROW(make("llama", [](ZooOptions& o) { o.decoder.hidden = 90, o.decoder.heads = 2; }), UserError);  // odd d
  EXPECT_THROW(make("gpt2", [](ZooOptions& o) { o.decoder.kv_heads = 4; }), UserError);
  EXPECT_THROW(make("gpt2", [](ZooOptions& o) { o.kv_cache = true, o.seq = 16; }), UserError);
  try {
    make("llama", [](ZooOptions& o) { o.decoder.kv_heads = 2; });
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--kv-heads 2 must divide --heads 9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rooflens::zoo
