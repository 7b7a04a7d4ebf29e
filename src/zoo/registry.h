#pragma once
// The zoo's table of models: one row per architecture with its family, published source and size limits.
// `zoo list`, `zoo make` and the tests all go through this table, so adding a model is one row + one file.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "zoo/builder.h"
#include "zoo/decoder.h"

namespace rooflens::zoo {

enum class Modality { Image, Text };

struct ModelSpec {
  std::string_view name;
  std::string_view family;
  std::string_view source;  // the published definition the graph reproduces
  Modality modality;
  BuiltModel (*build)(const ZooOptions&);
  std::int64_t default_image = 0;  // image models: default side, smallest side, and required multiple
  std::int64_t min_image = 0;
  std::int64_t image_multiple = 1;
  std::int64_t max_seq = 0;  // text models: position-embedding table size (rotary: the trained context)
  // Decoder-only language models: the size a DecoderConfig gives (throws UserError when the model cannot have it).
  // --kv-cache and the DecoderConfig sizes apply only when set.
  DecoderSize (*decoder_size)(const DecoderConfig&) = nullptr;
};

std::span<const ModelSpec> models();

// Throws UserError naming the available models when `name` is unknown.
const ModelSpec& find_model(std::string_view name);

// Validates the options against the model (UserError on values it cannot build), fills defaults, builds.
BuiltModel make_model(const ModelSpec& spec, ZooOptions options);

// "input_ids, attention_mask int64[batch,seq]" from a model's graph inputs, for listings.
std::string describe_inputs(const onnx::ModelProto& model);

}  // namespace rooflens::zoo
