#pragma once
// Recognising a decoder with a KV cache by its I/O, as Hugging Face Optimum and onnxruntime-genai export it:
//   inputs  input_ids [batch, seq], attention_mask [batch, past + seq] (optional), position_ids [batch, seq]
//           (optional), past_key_values.N.key / .value [batch, kv_heads, past, head_dim] for N = 0..layers-1
//   outputs logits [batch, seq, vocab], present.N.key / .value [batch, kv_heads, past + seq, head_dim]
// and the input shapes of one generation step.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/report_generation.h"
#include "model/declared_io.h"

namespace rooflens {

// Throws UserError, one line naming `file` and what is missing or unexpected (and how to get a model that works),
// when the model is not such a decoder.
DecoderIo detect_decoder_io(const DeclaredIo& io, const std::string& file);

// Every input's shape for one step: `batch` sequences, `tokens` fed each, `past` cached tokens each.
std::map<std::string, std::vector<int64_t>> step_shapes(const DecoderIo& io, int64_t batch, int64_t tokens,
                                                        int64_t past);
// The symbolic dims those shapes give the declared inputs ({"batch_size": 1, "past_sequence_length": 127, ...}).
std::map<std::string, int64_t> step_dims(const DeclaredIo& declared,
                                         const std::map<std::string, std::vector<int64_t>>& shapes);

}  // namespace rooflens
