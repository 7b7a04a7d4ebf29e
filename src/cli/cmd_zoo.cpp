// `rooflens zoo list | make`: the standard architectures, generated locally (nothing is downloaded).
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/errors.h"
#include "zoo/quantize.h"
#include "zoo/registry.h"
#include "zoo/save.h"

namespace rooflens::cli {

namespace {

struct MakeArgs {
  std::string name;
  std::string output;
  std::string batch = "dynamic";
  std::string seq = "dynamic";
  std::optional<std::int64_t> image;
  int opset = 17;
  std::uint64_t seed = 0;
  bool external_data = false;
  std::string quantize;  // "" | "qdq"
  zoo::QdqOptions qdq;    // --reduce-range
  bool kv_cache = false;
  zoo::DecoderConfig decoder;
};

// "dynamic" keeps the named symbolic dim; a positive integer makes it static.
std::optional<std::int64_t> parse_dim(const std::string& flag, const std::string& value) {
  if (value == "dynamic") return std::nullopt;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < 1)
    throw UserError(flag + " '" + value + "' is not valid: give a positive integer or 'dynamic'");
  return n;
}

std::string group_digits(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string human_bytes(std::uintmax_t n) {
  return n >= 1'000'000 ? fmt::format("{:.1f} MB", static_cast<double>(n) / 1e6)
                        : fmt::format("{:.1f} kB", static_cast<double>(n) / 1e3);
}

int run_list() {
  fmt::print("{:<14} {:<11} {:>12}  {:<60} {}\n", "NAME", "FAMILY", "PARAMS", "DEFAULT INPUT", "SOURCE");
  for (const auto& spec : zoo::models()) {
    zoo::ZooOptions structure_only;
    structure_only.weights = false;  // counts params without generating weights
    const zoo::BuiltModel m = zoo::make_model(spec, structure_only);
    fmt::print("{:<14} {:<11} {:>12}  {:<60} {}\n", spec.name, spec.family, group_digits(m.params),
               zoo::describe_inputs(m.model), spec.source);
  }
  return 0;
}

int run_make(const MakeArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  const zoo::ModelSpec& spec = zoo::find_model(a.name);
  zoo::ZooOptions o;
  o.batch = parse_dim("--batch", a.batch);
  o.seq = parse_dim("--seq", a.seq);
  o.image = a.image;
  o.opset = a.opset;
  o.seed = a.seed;
  o.kv_cache = a.kv_cache;
  o.decoder = a.decoder;
  zoo::BuiltModel m = zoo::make_model(spec, o);
  std::string quantized;
  if (a.qdq.reduce_range && a.quantize.empty()) throw UsageError("--reduce-range: give it with --quantize qdq");
  if (a.quantize == "qdq") {
    zoo::QdqStats q = zoo::quantize_qdq(m.model, a.qdq);
    auto* prop = m.model.add_metadata_props();
    prop->set_key("rooflens.zoo.quantize");
    prop->set_value(a.qdq.reduce_range ? "qdq reduce_range" : "qdq");
    quantized = fmt::format("\n  quantized (QDQ): {} Conv/MatMul/Gemm nodes, {} QuantizeLinear + {} DequantizeLinear "
                            "added; int8 weights{}, uint8 activations (fixed scale, not calibrated)",
                            q.quantized_nodes, q.quantize_nodes, q.dequantize_nodes,
                            a.qdq.reduce_range ? " in 7 bits (reduce_range)" : "");
  }
  const std::string inputs = zoo::describe_inputs(m.model);
  const zoo::SavedFiles saved = zoo::save_model(m.model, a.output, a.external_data);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("wrote {} ({} params, opset {}, {}", a.output, group_digits(m.params), a.opset,
             human_bytes(saved.model_bytes));
  if (a.external_data) fmt::print(" + {} {}", saved.data_path.filename().string(), human_bytes(saved.data_bytes));
  fmt::print(") in {:.2f} s\n  inputs: {}{}\n", seconds, inputs, quantized);
  if (a.kv_cache)
    fmt::print("  outputs: logits, present.0..{}.key|value (feed present back as past_key_values; see rooflens "
               "generate)\n", m.model.graph().output_size() / 2 - 1);
  return 0;
}

}  // namespace

void setup_zoo(CLI::App& root, Action& action) {
  CLI::App* zoo = root.add_subcommand("zoo", "Generate standard models (ResNet, MobileNet, VGG, SqueezeNet, ViT, "
                                             "BERT, GPT-2) as ONNX with seeded random weights");
  zoo->require_subcommand(1);
  zoo->footer(
      "Examples:\n"
      "  rooflens zoo list\n"
      "  rooflens zoo make resnet50 -o resnet50.onnx\n"
      "  rooflens zoo make bert_base -o bert.onnx --batch 8 --seq 128\n"
      "  rooflens zoo make vgg16 -o vgg16.onnx --external-data\n"
      "  rooflens zoo make llama -o llama.onnx --kv-cache            # for rooflens generate\n"
      "See docs/zoo.md for each model's published definition.\n");

  CLI::App* list = zoo->add_subcommand("list", "List the models with their parameter counts and default inputs");
  list->callback([&action] { action = run_list; });

  auto args = std::make_shared<MakeArgs>();
  CLI::App* make = zoo->add_subcommand("make", "Write one model to an .onnx file");
  make->add_option("NAME", args->name, "Model name (see `rooflens zoo list`)")->required();
  make->add_option("-o,--output", args->output, "Output .onnx file")->required();
  make->add_option("--batch", args->batch, "Batch size, or 'dynamic' for a symbolic 'batch' dim")
      ->capture_default_str();
  make->add_option("--seq", args->seq, "Text models: sequence length, or 'dynamic' for a symbolic 'seq' dim")
      ->capture_default_str();
  make->add_option("--image", args->image, "Image models: input side in pixels (default 224)");
  make->add_option("--opset", args->opset, "ONNX opset, 13-17 (below 17 LayerNorm is decomposed)")
      ->capture_default_str();
  make->add_option("--seed", args->seed, "Seed for the random weights (same seed, same bytes)")
      ->capture_default_str();
  make->add_option("--quantize", args->quantize, "Write a quantized variant: qdq (QuantizeLinear/DequantizeLinear "
                                                 "around Conv, MatMul, Gemm)")
      ->check(CLI::IsMember({"qdq"}));
  make->add_flag("--reduce-range", args->qdq.reduce_range,
                 "With --quantize qdq: 7-bit weights ([-64, 64]), as ONNX Runtime's quantizer writes them for x86 "
                 "CPUs without VNNI, whose u8s8 kernels saturate on full-range weights");
  make->add_flag("--external-data", args->external_data,
                 "Write weights to FILE.data next to the model (ONNX external data, 4096-byte aligned)");
  const std::string decoders = "Decoders (gpt2, llama)";
  make->add_flag("--kv-cache", args->kv_cache,
                 "Decoders: past_key_values.N.key|value inputs, present.N.key|value outputs, attention_mask and "
                 "position_ids (Hugging Face Optimum / onnxruntime-genai layout), for rooflens generate")
      ->group(decoders);
  const auto size = CLI::Range(std::int64_t{1}, std::int64_t{1} << 20);
  make->add_option("--layers", args->decoder.layers, "Decoders: transformer layers (default: the published config)")
      ->check(size)->group(decoders);
  make->add_option("--hidden", args->decoder.hidden, "Decoders: hidden size")->check(size)->group(decoders);
  make->add_option("--heads", args->decoder.heads, "Decoders: attention heads (must divide --hidden)")
      ->check(size)->group(decoders);
  make->add_option("--kv-heads", args->decoder.kv_heads,
                   "llama: key/value heads (grouped-query attention; must divide --heads)")
      ->check(size)->group(decoders);
  make->add_option("--ffn", args->decoder.ffn, "Decoders: MLP inner size (gpt2 default: 4 x hidden)")
      ->check(size)->group(decoders);
  make->add_option("--vocab", args->decoder.vocab, "Decoders: vocabulary size")->check(size)->group(decoders);
  make->footer(
      "Examples:\n"
      "  rooflens zoo make resnet50 -o resnet50.onnx                 # dynamic batch, 1x3x224x224 per item\n"
      "  rooflens zoo make vit_b_16 -o vit.onnx --batch 1 --image 384\n"
      "  rooflens zoo make gpt2 -o gpt2.onnx --seq 1024 --seed 42\n"
      "  rooflens zoo make vgg16 -o vgg16.onnx --external-data       # writes vgg16.onnx + vgg16.onnx.data\n"
      "  rooflens zoo make gpt2 -o gpt2-kv.onnx --kv-cache           # past_key_values.N.* in, present.N.* out\n"
      "  rooflens zoo make llama -o tiny.onnx --kv-cache --layers 2 --hidden 256 --heads 4 --kv-heads 2 --vocab 1000\n"
      "  rooflens zoo make resnet18 -o r18q.onnx --quantize qdq      # Q/DQ around every Conv/MatMul/Gemm\n"
      "  rooflens zoo make resnet18 -o r18q7.onnx --quantize qdq --reduce-range   # the same with 7-bit weights\n"
      "--quantize qdq writes what a static int8 quantizer writes in QDQ format for op_types_to_quantize =\n"
      "Conv, MatMul, Gemm: int8 weights (symmetric, per tensor), int32 biases, uint8 activations with one fixed\n"
      "scale (no calibration, so outputs differ from the float model); other ops stay float between a\n"
      "DequantizeLinear and a QuantizeLinear. --reduce-range keeps the weights in 7 bits, so CPUs without VNNI\n"
      "(AVX2 only) compute the same integers as CPUs with it (docs/zoo.md).\n");
  make->callback([&action, args] { action = [args] { return run_make(*args); }; });
}

}  // namespace rooflens::cli
