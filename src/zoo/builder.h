#pragma once
// A small graph builder over onnx::ModelProto, used by the zoo architectures. It owns naming (unique
// node/tensor names), weight generation (seeded, per-tensor streams) and the trainable-parameter tally,
// so each architecture file only describes layers.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include <onnx/onnx_pb.h>

namespace rooflens::zoo {

// Decoder-only language models (gpt2, llama): overrides of the published config; 0 keeps the model's own.
struct DecoderConfig {
  std::int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0;
  bool any() const { return layers || hidden || heads || kv_heads || ffn || vocab; }
};

// What the user asked for. Unset optionals mean "the model's default" (dynamic batch / dynamic seq).
struct ZooOptions {
  std::optional<std::int64_t> batch;  // nullopt: symbolic dim "batch"
  std::optional<std::int64_t> seq;    // text models; nullopt: symbolic dim "seq"
  std::optional<std::int64_t> image;  // image models; nullopt: the model's default (224)
  int opset = 17;
  std::uint64_t seed = 0;
  // false builds the structure only (initializers carry dims but no data): used to count parameters
  // for `zoo list` without generating hundreds of MB of weights.
  bool weights = true;
  // Decoders: past_key_values.N.key|value inputs and present.N.key|value outputs (Hugging Face Optimum /
  // onnxruntime-genai layout) plus attention_mask and position_ids, for generation with a KV cache.
  bool kv_cache = false;
  DecoderConfig decoder;
};

using Dim = std::variant<std::int64_t, std::string>;  // static size or symbolic name
using Dims = std::vector<std::int64_t>;
using Attrs = std::vector<onnx::AttributeProto>;

// Uniform [lo, hi) initial values; the helpers below pick ranges that keep activations finite.
struct Init {
  float lo = 0.0f;
  float hi = 0.0f;
  static Init uniform(float bound) { return {-bound, bound}; }
  static Init range(float lo, float hi) { return {lo, hi}; }
  static Init he(std::int64_t fan_in);      // Kaiming-uniform for layers followed by ReLU
  static Init xavier(std::int64_t fan_in, std::int64_t fan_out);
  static Init normal_std(float std);        // uniform with the given standard deviation
};

struct BuiltModel {
  onnx::ModelProto model;
  std::uint64_t params = 0;  // trainable parameter elements (BN running stats excluded)
};

class Builder {
 public:
  Builder(std::string_view model_name, const ZooOptions& options);

  const ZooOptions& options() const { return options_; }
  // The batch dim as the user asked: static size or the symbolic name "batch".
  Dim batch_dim() const;
  // The sequence dim of text models: static length or the symbolic name "seq".
  Dim seq_dim() const;

  void input(const std::string& name, onnx::TensorProto_DataType type, const std::vector<Dim>& dims);
  // Publishes `tensor` as graph output `name`, renaming the producing node's output (no Identity node).
  void output(const std::string& tensor, const std::string& name, onnx::TensorProto_DataType type,
              const std::vector<Dim>& dims);

  // Trainable weight (counted in params) and non-trainable buffer (e.g. BN running mean/var).
  std::string param(const std::string& name, const Dims& dims, Init init);
  std::string buffer(const std::string& name, const Dims& dims, Init init);

  // Constant nodes, deduplicated by value, so constants never masquerade as parameters.
  std::string scalar_f32(float value);
  std::string scalar_i64(std::int64_t value);  // 0-d tensor (e.g. a Gather index)
  std::string ints(const std::vector<std::int64_t>& values);  // 1-d int64 tensor (shapes, axes)
  // 1-d float tensor, for computed tables that are buffers in PyTorch (rotary inverse frequencies).
  std::string floats(const std::string& key, const std::vector<float>& values);

  // Adds a node named "<scope>/<op>" (made unique) and returns its output tensor names.
  std::vector<std::string> node(std::string_view op, std::string_view scope, std::vector<std::string> inputs,
                                Attrs attrs = {}, int outputs = 1);
  std::string op(std::string_view op_type, std::string_view scope, std::vector<std::string> inputs,
                 Attrs attrs = {}) {
    return node(op_type, scope, std::move(inputs), std::move(attrs), 1).front();
  }

  BuiltModel finish(std::string_view doc);

 private:
  std::string initializer(const std::string& name, const Dims& dims, Init init);
  std::string unique(std::string name);
  std::string constant(const std::string& key, onnx::TensorProto value);

  ZooOptions options_;
  onnx::ModelProto model_;
  std::uint64_t params_ = 0;
  std::unordered_map<std::string, int> used_names_;
  std::map<std::string, std::string> constants_;  // value key -> tensor name
};

// Small helpers for attributes, so architecture files read like the published definitions.
onnx::AttributeProto attr(const std::string& name, std::int64_t value);
inline onnx::AttributeProto attr(const std::string& name, int value) {  // int literals would be ambiguous
  return attr(name, static_cast<std::int64_t>(value));
}
onnx::AttributeProto attr(const std::string& name, float value);
onnx::AttributeProto attr(const std::string& name, const std::vector<std::int64_t>& values);

}  // namespace rooflens::zoo
