#include "generate/decoder_io.h"

#include <regex>

#include "core/errors.h"

namespace rooflens {
namespace {

const char* const kHow =
    "export the decoder with its KV cache (Optimum: --task text-generation-with-past; onnxruntime-genai's model "
    "builder) or make one with `rooflens zoo make gpt2 --kv-cache`";

std::string io_names_of(const std::vector<DeclaredValue>& values) {
  std::string s;
  for (size_t i = 0; i < values.size() && i < 8; ++i) s += (i ? ", " : "") + values[i].name;
  if (values.size() > 8) s += ", … (" + std::to_string(values.size()) + " in all)";
  return s;
}

bool is_int(DType t) { return t == DType::Int64 || t == DType::Int32; }

// Fills `io.cache` from past_key_values.N.key|value inputs and present.N.key|value outputs; layers must be
// numbered 0..L-1 with both tensors on both sides.
void bind_cache(const DeclaredIo& d, const std::string& file, DecoderIo& io) {
  static const std::regex past_re(R"(past_key_values\.(\d+)\.(key|value))");
  std::map<int64_t, int> seen;  // layer -> bit 1 key, bit 2 value
  for (const auto& in : d.inputs) {
    std::smatch m;
    if (!std::regex_match(in.name, m, past_re)) continue;
    if (m[1].length() > 6) throw UserError(file + ": input '" + in.name + "': layer number out of range");
    seen[std::stoll(m[1].str())] |= m[2] == "key" ? 1 : 2;
  }
  if (seen.empty())
    throw UserError(file + ": not a decoder with a KV cache: no past_key_values.N.key/.value inputs (inputs: " +
                    io_names_of(d.inputs) + "); rooflens generate needs the Optimum / onnxruntime-genai layout — " + kHow);
  int64_t expected = 0;
  for (const auto& [layer, bits] : seen) {
    const std::string past = "past_key_values." + std::to_string(expected) + ".";
    if (layer != expected) throw UserError(file + ": input '" + past + "key' is missing (layers must count from 0)");
    for (const char* kind : {"key", "value"})
      if (!(bits & (kind[0] == 'k' ? 1 : 2))) throw UserError(file + ": input '" + past + kind + "' is missing");
    KvBinding kv{past + "key", past + "value", "present." + std::to_string(layer) + ".key",
                 "present." + std::to_string(layer) + ".value"};
    for (const auto* out : {&kv.present_key, &kv.present_value})
      if (!d.output(*out))
        throw UserError(file + ": output '" + *out + "' is missing: every past_key_values.N input needs its present.N "
                        "output (outputs: " + io_names_of(d.outputs) + ")");
    io.cache.push_back(std::move(kv));
    ++expected;
  }
}

// kv_heads, head_dim and dtype from the past tensors, which must all agree: [batch, kv_heads, past, head_dim].
void cache_geometry(const DeclaredIo& d, const std::string& file, DecoderIo& io) {
  for (const auto& kv : io.cache)
    for (const auto* name : {&kv.past_key, &kv.past_value}) {
      const TensorInfo& t = d.input(*name)->type;
      if (!t.has_rank || t.dims.size() != 4)
        throw UserError(file + ": input '" + *name + "' must be [batch, kv_heads, past_sequence, head_dim] (rank 4), "
                        "is " + t.shape_string());
      if (!t.dims[1].known() || !t.dims[3].known())
        throw UserError(file + ": input '" + *name + "' has a symbolic kv_heads or head_dim (" + t.shape_string() +
                        "); rooflens generate needs them fixed in the model, as exporters write them");
      if (t.dtype != DType::Float && t.dtype != DType::Float16)
        throw UserError(file + ": input '" + *name + "' is " + dtype_name(t.dtype) + "; the cache must be float or "
                        "float16");
      if (io.kv_heads == 0) {
        io.kv_heads = t.dims[1].value;
        io.head_dim = t.dims[3].value;
        io.kv_dtype = dtype_name(t.dtype);
      } else if (t.dims[1].value != io.kv_heads || t.dims[3].value != io.head_dim || io.kv_dtype != dtype_name(t.dtype)) {
        throw UserError(file + ": input '" + *name + "' (" + t.shape_string() + " " + dtype_name(t.dtype) +
                        ") differs from past_key_values.0.key: layers with different cache shapes are not supported");
      }
    }
}

// An optional integer [batch, *] input: its dtype name, "" when absent.
std::string int_input(const DeclaredIo& d, const std::string& file, const std::string& name, bool required) {
  const DeclaredValue* v = d.input(name);
  if (!v) {
    if (required)
      throw UserError(file + ": no input '" + name + "' (inputs: " + io_names_of(d.inputs) + "); " + kHow);
    return "";
  }
  if (!is_int(v->type.dtype) || (v->type.has_rank && v->type.dims.size() != 2))
    throw UserError(file + ": input '" + name + "' must be int64 or int32 [batch, length], is " +
                    dtype_name(v->type.dtype) + " " + v->type.shape_string());
  return dtype_name(v->type.dtype);
}

}  // namespace

DecoderIo detect_decoder_io(const DeclaredIo& d, const std::string& file) {
  DecoderIo io;
  io.layout = "optimum";
  bind_cache(d, file, io);
  cache_geometry(d, file, io);
  io.input_ids = "input_ids";
  io.ids_dtype = int_input(d, file, "input_ids", true);
  io.mask_dtype = int_input(d, file, "attention_mask", false);
  if (!io.mask_dtype.empty()) io.attention_mask = "attention_mask";
  io.position_dtype = int_input(d, file, "position_ids", false);
  if (!io.position_dtype.empty()) io.position_ids = "position_ids";
  const DeclaredValue* logits = d.output("logits");
  if (!logits) throw UserError(file + ": no output 'logits' (outputs: " + io_names_of(d.outputs) + ")");
  if (!logits->type.has_rank || logits->type.dims.size() != 3 || !logits->type.dims[2].known())
    throw UserError(file + ": output 'logits' must be [batch, sequence, vocab] with a fixed vocab, is " +
                    logits->type.shape_string());
  io.logits = "logits";
  io.vocab = logits->type.dims[2].value;
  for (const auto& in : d.inputs) {
    bool known = in.name == io.input_ids || in.name == io.attention_mask || in.name == io.position_ids;
    for (const auto& kv : io.cache) known = known || in.name == kv.past_key || in.name == kv.past_value;
    if (known) continue;
    if (in.name == "use_cache_branch")
      throw UserError(file + ": a merged decoder (input 'use_cache_branch') is not supported: use the "
                      "decoder_with_past_model.onnx Optimum writes next to it");
    throw UserError(file + ": input '" + in.name + "' is not one rooflens generate feeds (input_ids, attention_mask, "
                    "position_ids, past_key_values.N.key|value)");
  }
  return io;
}

std::map<std::string, std::vector<int64_t>> step_shapes(const DecoderIo& io, int64_t batch, int64_t tokens,
                                                        int64_t past) {
  std::map<std::string, std::vector<int64_t>> s;
  s[io.input_ids] = {batch, tokens};
  if (!io.attention_mask.empty()) s[io.attention_mask] = {batch, past + tokens};
  if (!io.position_ids.empty()) s[io.position_ids] = {batch, tokens};
  for (const auto& kv : io.cache) {
    s[kv.past_key] = {batch, io.kv_heads, past, io.head_dim};
    s[kv.past_value] = {batch, io.kv_heads, past, io.head_dim};
  }
  return s;
}

std::map<std::string, int64_t> step_dims(const DeclaredIo& declared,
                                         const std::map<std::string, std::vector<int64_t>>& shapes) {
  std::map<std::string, int64_t> dims;
  for (const auto& in : declared.inputs) {
    auto it = shapes.find(in.name);
    if (it == shapes.end()) continue;
    for (size_t i = 0; i < in.type.dims.size() && i < it->second.size(); ++i)
      if (!in.type.dims[i].symbol.empty()) dims[in.type.dims[i].symbol] = it->second[i];
  }
  return dims;
}

}  // namespace rooflens
