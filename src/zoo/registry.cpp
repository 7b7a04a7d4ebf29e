#include "zoo/registry.h"

#include <array>
#include <utility>

#include "core/errors.h"
#include "zoo/architectures.h"

namespace rooflens::zoo {

namespace {

using M = Modality;
// Image limits: the smallest side whose final feature map is still >= 1 pixel; vgg16's AdaptiveAvgPool((7,7))
// has no ONNX op, so it is only exact for sides that are multiples of 224; ViT needs whole 16x16 patches.
const std::array<ModelSpec, 9> kModels{{
    {"resnet18", "ResNet", "torchvision.models.resnet18", M::Image, &build_resnet18, 224, 32, 1, 0},
    {"resnet50", "ResNet", "torchvision.models.resnet50", M::Image, &build_resnet50, 224, 32, 1, 0},
    {"mobilenet_v2", "MobileNet", "torchvision.models.mobilenet_v2", M::Image, &build_mobilenet_v2, 224, 32, 1, 0},
    {"vgg16", "VGG", "torchvision.models.vgg16", M::Image, &build_vgg16, 224, 224, 224, 0},
    {"squeezenet1_0", "SqueezeNet", "torchvision.models.squeezenet1_0", M::Image, &build_squeezenet1_0, 224, 64, 1,
     0},
    {"vit_b_16", "ViT", "torchvision.models.vit_b_16", M::Image, &build_vit_b_16, 224, 16, 16, 0},
    {"bert_base", "BERT", "transformers BertModel (bert-base-uncased)", M::Text, &build_bert_base, 0, 0, 1, 512},
    {"gpt2", "GPT-2", "transformers GPT2LMHeadModel (gpt2)", M::Text, &build_gpt2, 0, 0, 1, 1024, &gpt2_size},
    {"llama", "Llama", "transformers LlamaForCausalLM (SmolLM2-135M)", M::Text, &build_llama, 0, 0, 1, 8192, &llama_size},
}};

constexpr std::int64_t kMaxBatch = 1 << 20;   // beyond this the int64 element counts of activations overflow easily
constexpr std::int64_t kMaxImage = 1 << 14;

void validate_image(const ModelSpec& spec, ZooOptions& o) {
  if (o.seq) throw UserError("--seq applies to text models; " + std::string(spec.name) + " takes --image");
  const std::int64_t image = o.image.value_or(spec.default_image);
  if (image < spec.min_image || image > kMaxImage || image % spec.image_multiple != 0)
    throw UserError("--image " + std::to_string(image) + " is not valid for " + std::string(spec.name) +
                    ": use a side between " + std::to_string(spec.min_image) + " and " + std::to_string(kMaxImage) +
                    (spec.image_multiple > 1 ? " that is a multiple of " + std::to_string(spec.image_multiple) : ""));
  o.image = image;
}

constexpr std::int64_t kMaxDecoderDim = 1 << 20;

// Sizes a decoder can be built with: every overridden dim in range, whole heads, whole query groups per kv head.
void validate_decoder(const ModelSpec& spec, const ZooOptions& o) {
  const std::string name(spec.name);
  if (!spec.decoder_size) {
    if (o.kv_cache) throw UserError("--kv-cache applies to decoder language models (gpt2, llama), not " + name);
    if (o.decoder.any())
      throw UserError("--layers/--hidden/--heads/--kv-heads/--ffn/--vocab apply to decoder language models (gpt2, "
                      "llama), not " + name);
    return;
  }
  const DecoderConfig& d = o.decoder;
  for (auto [flag, v] : {std::pair{"--layers", d.layers}, {"--hidden", d.hidden}, {"--heads", d.heads},
                         {"--kv-heads", d.kv_heads}, {"--ffn", d.ffn}, {"--vocab", d.vocab}})
    if (v < 0 || v > kMaxDecoderDim)
      throw UserError(std::string(flag) + " " + std::to_string(v) + " is out of range: use 1 to " +
                      std::to_string(kMaxDecoderDim));
  spec.decoder_size(d);  // resolves the sizes and throws UserError on a combination the model cannot have
}

void validate_text(const ModelSpec& spec, ZooOptions& o) {
  if (o.image) throw UserError("--image applies to image models; " + std::string(spec.name) + " takes --seq");
  if (o.kv_cache && o.seq)
    throw UserError("--seq does not apply with --kv-cache: the step and past lengths stay dynamic (rooflens generate "
                    "sets them)");
  if (o.seq && (*o.seq < 1 || *o.seq > spec.max_seq))
    throw UserError("--seq " + std::to_string(*o.seq) + " is not valid for " + std::string(spec.name) +
                    ": its position table allows 1 to " + std::to_string(spec.max_seq) + " tokens");
}

}  // namespace

std::span<const ModelSpec> models() { return kModels; }

const ModelSpec& find_model(std::string_view name) {
  for (const auto& m : kModels)
    if (m.name == name) return m;
  std::string names;
  for (const auto& m : kModels) names += (names.empty() ? "" : ", ") + std::string(m.name);
  throw UserError("unknown zoo model '" + std::string(name) + "': choose one of " + names +
                  " (see `rooflens zoo list`)");
}

BuiltModel make_model(const ModelSpec& spec, ZooOptions options) {
  if (options.batch && (*options.batch < 1 || *options.batch > kMaxBatch))
    throw UserError("--batch " + std::to_string(*options.batch) + " is out of range: use 1 to " +
                    std::to_string(kMaxBatch) + " or 'dynamic'");
  validate_decoder(spec, options);
  (spec.modality == Modality::Image ? validate_image : validate_text)(spec, options);
  BuiltModel built = spec.build(options);
  auto* name = built.model.add_metadata_props();
  name->set_key("rooflens.zoo.model");
  name->set_value(std::string(spec.name));
  return built;
}

std::string describe_inputs(const onnx::ModelProto& model) {
  // Consecutive inputs of the same type are grouped ("a, b int64[batch,seq]") to keep listings short; a long
  // group (a KV cache's 2 x layers inputs) shows its first and last names.
  std::string out, last_type;
  std::vector<std::string> names;
  auto flush = [&] {
    if (names.empty()) return;
    std::string list;
    if (names.size() > 4)
      list = names.front() + " … " + names.back() + " (" + std::to_string(names.size()) + " inputs)";
    else
      for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
    out += (out.empty() ? "" : "; ") + list + " " + last_type;
  };
  for (const auto& in : model.graph().input()) {
    const auto& t = in.type().tensor_type();
    std::string dims;
    for (const auto& d : t.shape().dim())
      dims += (dims.empty() ? "" : ",") + (d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value()));
    const std::string type =
        std::string(t.elem_type() == onnx::TensorProto_DataType_INT64 ? "int64" : "float") + "[" + dims + "]";
    if (type != last_type) {
      flush();
      names.clear();
      last_type = type;
    }
    names.push_back(in.name());
  }
  flush();
  return out;
}

}  // namespace rooflens::zoo
